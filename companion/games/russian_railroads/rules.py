"""Russian Railroads: the Game protocol over the table state.

A turn is one action space (``action_board``): ``take_space`` places its workers and coins,
then its action's parts follow as effects (rail steps, a locomotive or factory, industry steps,
a doubler, hiring the engineer), each bounded by what the space still gives; every effect is
checked against the player board rules (``board_rules``), and the special spaces fire by
themselves. Turns, passing, the
round end with its scoring, the final scoring and the decisions the table owes (``pending``) are
tracked here. Rulebook: seed 000 (Czech, complete); seed 004 (Spanish) for the starting bonus
draft.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import fields
from typing import Any, Final

from companion.core.actions import Action, Prompt
from companion.core.choices import Choice
from companion.core.errors import IllegalActionError, SnapshotError
from companion.core.game import Component, PlayerSpec, TurnStatus
from companion.core.jsonvalue import JsonObject, thaw
from companion.core.messages import Message, Text, join_texts, msg, plural, text_json
from companion.core.problems import Problem
from companion.core.public import PublicView
from companion.core.records import evolve
from companion.core.scoring import PlayerScore, ScoreLine, ScoreSheet, highest
from companion.core.snapshot import Field
from companion.games.russian_railroads import action_board
from companion.games.russian_railroads import board_rules as br
from companion.games.russian_railroads.action_board import (
    ENGINEER_GRANTS,
    ENGINEER_PLACES,
    ENGINEER_SPACE_WORKERS,
    FACTORY_GRANTS,
    QUESTION_CARD_GRANTS,
    SPACE_BY_KEY,
    TOKEN_GRANTS,
    ActionSpace,
    Grant,
    engineer_place_index,
    parse_grant,
    public_engineers,
)
from companion.games.russian_railroads.board_data import (
    BLACK,
    BONUS_CARD_INSTEAD_POINTS,
    BONUS_CARDS,
    COLOURS,
    ENGINEERS,
    FACTORY_FUNCTIONS,
    INDUSTRY_LAST,
    LOCOMOTIVES_PER_LEVEL,
    LOCOMOTIVES_REMOVED,
    MAX_DOUBLERS,
    OWNER_SOURCE,
    QUESTION_CARDS,
    ROUNDS,
    SETTLED_ENGINEER_WORKERS,
    SPACE_FIGURE_TITLES,
    START_COINS,
    STARTING_BONUS_CARDS,
    TOKENS,
    TRACKS,
    TRANS_SIBERIAN,
    BoardData,
    figure_bounds,
)
from companion.games.russian_railroads.contract import NAME, score_contract_snapshot
from companion.games.russian_railroads.interpret import COMPONENTS
from companion.games.russian_railroads.names import (
    BONUS_CARD_NAMES,
    FACTORY_FUNCTION_NAMES,
    QUESTION_CARD_NAMES,
    RAIL_COLOURS,
    STARTING_BONUS_NAMES,
    TOKEN_NAMES,
    TRACK_NAMES,
    cost_message,
    engineer_name,
    grant_message,
    grants_message,
    named,
    source_message,
    space_title,
    steps,
    token_space_message,
    track_name,
)
from companion.games.russian_railroads.scoring import (
    CATEGORY_LABELS,
    FigureUse,
    industry_values_note,
    score_bonus_cards,
    score_engineers,
    score_round,
    unknown_figure,
    unverified_figure,
)
from companion.games.russian_railroads.sections import (
    S_BLACK_WORKER,
    S_BONUS,
    S_CARDS,
    S_DOUBLERS,
    S_ENGINEERS,
    S_EXTRA,
    S_FACTORIES,
    S_GAME_END,
    S_LAST_ROUND,
    S_LOCO_AREA,
    S_LOCO_TAKE,
    S_OWN_ENGINEERS,
    S_PLAYER_COUNT,
    S_REPEAT,
    S_SECOND_MARKER,
    S_SPECIAL,
    S_START,
    S_TOKENS,
    S_TURN,
    S_TURN_ADVANCE,
    S_TURN_CHANGE,
    S_TURN_MOVE,
    S_TWO_PLAYERS,
    S_WORKERS,
)
from companion.games.russian_railroads.sections import (
    S_COINS as S_COINS_RULE,
)
from companion.games.russian_railroads.sections import (
    S_PUBLIC_ENGINEERS as S_PUB,
)
from companion.games.russian_railroads.state import (
    TOKEN_SPACE_INDUSTRY,
    Engineer,
    Pending,
    PlayerBoard,
    RussianRailroadsState,
)

# Effects are the parts of an action space's action: entered only while a space taken this turn
# (or a token, "?" card or factory function) still gives them (seed 000, "POPIS JEDNOHO TAHU
# HRÁČE": one action space a turn, its action in full).
EFFECTS = frozenset(
    {"build", "take_locomotive", "build_factory", "industry", "doublers", "hire_engineer"}
)
RESOLUTIONS = {
    "token": frozenset({"use_token", "decline"}),
    "question_card": frozenset({"question_card"}),
    "bonus_card": frozenset({"bonus_card", "decline"}),
    "factory": frozenset({"factory_function"}),
    "starting_bonus": frozenset({"starting_bonus"}),
    "space": EFFECTS | {"take_space", "decline"},
}
ACTION_KINDS = EFFECTS | {
    "take_space",
    "pass",
    "use_token",
    "decline",
    "question_card",
    "bonus_card",
    "factory_function",
    "starting_bonus",
    "engineer_tile",
}
ENGINEER_PLACE_NAMES: dict[str, Message] = {
    "left": msg("the left engineer action space"),
    "right": msg("the right engineer action space"),
    "hiring": msg("the engineer hiring space"),
}
"""The face-up places of the engineer row, in words."""
ROUND_CATEGORIES = (TRANS_SIBERIAN, "st_petersburg", "kiev", "industry")
RUNNING_CATEGORIES = (
    *ROUND_CATEGORIES,
    "pass",
    "terminus",
    "actions",
    "bonus_cards",
    "engineers",
)


def refuse(message: Text, rule: Text = "", section: Text = "") -> IllegalActionError:
    return IllegalActionError(message, rule=rule, section=section)


def _not_in_full(space: ActionSpace, grant: str) -> IllegalActionError:
    """A space whose action (``grant``) this board cannot do in full ("POPIS JEDNOHO TAHU
    HRÁČE": an action is done at once and in full)."""
    return refuse(
        msg(
            "the action of “{space}” ({what}) cannot be done in full on this board",
            space=space_title(space),
            what=grant_message(grant),
        ),
        msg("an action is done at once and in full, never partly"),
        S_WORKERS,
    )


class RussianRailroads:
    name = NAME
    title = "Russian Railroads"
    min_players = 2
    max_players = 4
    hidden = False
    choices_by_viewer = False
    """The choices tree is the same in every view (nothing in Russian Railroads is hidden):
    ``companion.service.table_choices`` builds a correction line once for every view."""
    components: tuple[Component, ...] = COMPONENTS

    # -- setup ------------------------------------------------------------------------------
    def setup(
        self, players: Sequence[PlayerSpec], options: Mapping[str, Any]
    ) -> RussianRailroadsState:
        n = len(players)
        if not self.min_players <= n <= self.max_players:
            raise refuse(
                plural("{n} player", "{n} players", "n", n=n),
                msg("Russian Railroads is played by 2 to 4 players"),
                S_PLAYER_COUNT,
            )
        opts = Field(thaw(dict(options)), "options")  # the engine hands frozen JSON
        opts.only("turn_order", "board", "starting_bonus", "engineer_row")
        order_doc = opts.get("turn_order", list(range(n)))
        order = tuple(i.int(lo=0, hi=n - 1) for i in order_doc.list(max_len=n))
        if sorted(order) != list(range(n)):
            order_doc.fail(f"a turn order lists every player 0–{n - 1} once")
        board = BoardData.from_options(opts.get("board", {}).value)
        draft = opts.get("starting_bonus", True).bool()
        # Engineers dealt: 4 B + 3 A with 4 players, 3 + 3 with 2–3 (seed 000 setup step 9,
        # "HRA VE DVOU HRÁČÍCH", "HRA VE TŘECH HRÁČÍCH"); the table may say which, left to
        # right ("" for a tile not named); by default none is named yet: the face-up ones are
        # named by the table when they are used or hired (``engineer_tile``).
        dealt = 7 if n == 4 else 6
        row_doc = opts.get("engineer_row", [""] * dealt)
        row = tuple(e.str(frozenset({"", *ENGINEERS})) for e in row_doc.list(max_len=7))
        if len(row) != dealt:
            row_doc.fail(f"{dealt} engineers are dealt with {n} players")
        named_row = [e for e in row if e]
        if len(set(named_row)) != len(named_row):
            row_doc.fail("an engineer appears twice")
        removed = LOCOMOTIVES_REMOVED[n]
        # Every player takes a level-1 locomotive from the supply (seed 004, Preparar).
        supply = [LOCOMOTIVES_PER_LEVEL[lv] - removed for lv in range(1, 10)]
        supply[0] -= n
        start_rails = tuple((1, 0, 0, 0, 0) for _ in TRACKS)  # black on space 1 of each track
        boards = tuple(
            PlayerBoard(name=p.name, rails=start_rails, coins=START_COINS[n]) for p in players
        )
        # Starting bonus draft: 4th, 3rd, 2nd in turn order; the first takes none.
        pending = (
            tuple(Pending("starting_bonus", order[pos], "draft") for pos in range(n - 1, 0, -1))
            if draft
            else ()
        )
        return RussianRailroadsState(
            players=boards,
            rounds=ROUNDS[n],
            phase="draft" if pending else "play",
            turn_order=order,
            current=None if pending else order[0],
            turn_order_claims=(None, None),
            locomotive_supply=tuple(supply),
            question_cards=QUESTION_CARDS,
            starting_bonus_cards=STARTING_BONUS_CARDS,
            pending=pending,
            board=board,
            engineer_row=row,
        )

    # -- apply ------------------------------------------------------------------------------
    def apply(self, state: RussianRailroadsState, action: Action) -> RussianRailroadsState:
        if action.kind not in ACTION_KINDS:
            raise refuse(
                msg("Russian Railroads has no such move"),
                msg("the moves are the action spaces, their effects, passing and the choices"),
            )
        if state.phase == "over":
            raise refuse(
                msg("the game is over"), msg("the game ends after the final scoring"), S_GAME_END
            )
        p = action.player
        if not isinstance(p, int) or not 0 <= p < len(state.players):
            raise refuse(
                msg("the move names no player at the table"),
                msg("every move belongs to a player at the table"),
            )
        args = Field(thaw(action.args), "args")
        try:
            state = self._check_turn(state, p, action.kind)
            if action.kind in EFFECTS:
                state = self._spend(state, p, action.kind, args)
            state = getattr(self, f"_do_{action.kind}")(state, p, args)
        except SnapshotError as exc:  # malformed arguments are refused like illegal moves
            raise refuse(str(exc), msg("a move says what it does in full")) from exc
        return self._after(state)

    def describe(self, action: Action, names: Sequence[str]) -> Message:
        """A move as one sentence for the TV's last moves and the history log: the player's
        name and what they did, in words (track and space names), never notation."""
        return describe_action(action, names)

    # -- whose turn -------------------------------------------------------------------------
    def expected(self, state: RussianRailroadsState) -> int | None:
        """Whose turn it is: the current player until they have taken their action space, then
        the next player in turn order who has not passed."""
        if state.current is None:
            return state.turn_order[0] if state.turn_order else None
        if state.acted:
            return next_active(state, state.current)
        return state.current

    def _check_turn(self, state: RussianRailroadsState, p: int, kind: str) -> RussianRailroadsState:
        if kind == "engineer_tile":  # what the table sees, not a move: any time, by anyone
            return state
        name = state.players[p].name
        if state.pending:
            first = state.pending[0]
            who = state.players[first.player].name
            if first.kind == "turn_order_move":
                if p != first.player or kind not in ("take_space", "pass"):
                    raise refuse(
                        msg(
                            "{player}: {what} — waiting for {who} to move the worker from the "
                            "turn order space to a one-worker action space (or pass)",
                            player=name,
                            what=kind_words(kind),
                            who=who,
                        ),
                        msg("after the round, the turn order workers move, space 2 first"),
                        S_TURN_MOVE,
                    )
                return state
            allowed = RESOLUTIONS[first.kind]
            if p != first.player or kind not in allowed:
                raise refuse(
                    msg(
                        "{player}: {what} — waiting for {who} to decide: {decision}",
                        player=name,
                        what=kind_words(kind),
                        who=who,
                        decision=describe(first),
                    ),
                    msg("a decision owed is made before play goes on"),
                    S_WORKERS if first.kind == "space" else "",
                )
            return state
        if kind in EFFECTS:
            raise refuse(
                msg(
                    "{player}: {what} without an action space — take an action space first; "
                    "its action says what may be done",
                    player=name,
                    what=kind_words(kind),
                ),
                msg(
                    "a turn is one action space: place its workers, then do its action at once "
                    "and in full"
                ),
                S_WORKERS,
            )
        if kind in ("decline", "question_card", "bonus_card", "factory_function", "starting_bonus"):
            raise refuse(
                msg(
                    "{player}: {what} — no such decision is owed",
                    player=name,
                    what=kind_words(kind),
                ),
                msg("a choice is made only when a space, token or card asks for it"),
                S_WORKERS,
            )
        if state.phase != "play":
            raise refuse(
                msg(
                    "{player}: {what} during the starting bonus draft",
                    player=name,
                    what=kind_words(kind),
                ),
                msg("the starting bonus draft comes before the first round"),
                S_START,
            )
        if p in state.passed:
            raise refuse(
                msg("{player} has passed this round", player=name),
                msg("a player who passed is out of the round"),
                S_TURN,
            )
        if kind == "use_token":
            # The industry "?" token space the table declares: right after that player's turn.
            if p != state.current or not state.acted:
                raise refuse(
                    msg(
                        "{player}: a “?” token only when a token space has just fired", player=name
                    ),
                    msg("a token is used when a token space fires"),
                    S_SPECIAL,
                )
            return state
        expected = self.expected(state)
        if p != expected:
            whose: Text = (
                state.players[expected].name
                if expected is not None
                else msg("nobody", context="turn")
            )
            if p == state.current and state.acted:
                raise refuse(
                    msg(
                        "{player} has taken an action space this turn; it is {whose}'s turn",
                        player=name,
                        whose=whose,
                    ),
                    msg("one action per turn, and a player acts or passes, not both"),
                    S_WORKERS,
                )
            raise refuse(
                msg("{player} acted, but it is {whose}'s turn", player=name, whose=whose),
                msg("players take turns in turn order"),
                S_TURN,
            )
        if kind == "pass":
            return evolve(state, current=p, acted=False)
        return evolve(state, current=p, acted=True)

    # -- effects ----------------------------------------------------------------------------
    def _board(
        self, state: RussianRailroadsState, p: int, outcome: br.Outcome
    ) -> RussianRailroadsState:
        boards = list(state.players)
        boards[p] = outcome.board
        return evolve(
            state,
            players=tuple(boards),
            pending=outcome.pending + state.pending,
            returned_factories=tuple(sorted(state.returned_factories + outcome.returned)),
        )

    def _token_space(self, state: RussianRailroadsState) -> int | None:
        return state.board.figure("industry_token_space").value

    def _do_build(self, state: RussianRailroadsState, p: int, args: Field) -> RussianRailroadsState:
        """Rail steps of one or more colours split over tracks (seed 000, "POSTUP VÝSTAVBY
        TRATÍ"): ``{"moves": [{"track": …, "colour": …, "steps": n}, …]}``."""
        args.only("moves", "source")
        moves = []
        for m in args.get("moves").list(max_len=10):
            m.only("track", "colour", "steps")
            moves.append(
                (
                    m.get("track").str(TRACKS),
                    m.get("colour").str(COLOURS),
                    m.get("steps").int(lo=1, hi=br.MAX_STEPS_PER_MOVE),
                )
            )
        if not moves:
            args.get("moves").fail("at least one move")
        outcome = br.build(state.players[p], p, moves, self._token_space(state))
        return self._board(state, p, outcome)

    def _placements(self, doc: Field) -> list[br.Placement]:
        out = []
        for item in doc.list(max_len=8):
            item.only("track", "replace", "factory")
            if item.get("factory", False).bool():
                out.append(br.Placement(to_factory=True))
                continue
            rep = item.get("replace", None)
            out.append(
                br.Placement(
                    track=item.get("track").str(TRACKS),
                    replace=None if rep.value is None else rep.int(lo=1, hi=9),
                )
            )
        return out

    def _lowest(self, state: RussianRailroadsState) -> int:
        for level, count in enumerate(state.locomotive_supply, start=1):
            if count > 0:
                return level
        raise refuse(
            msg("the locomotive supply is empty"),
            msg("a locomotive or factory is taken from the supply"),
            S_LOCO_TAKE,
        )

    def _take_supply(self, state: RussianRailroadsState, level: int) -> RussianRailroadsState:
        supply = list(state.locomotive_supply)
        supply[level - 1] -= 1
        return evolve(state, locomotive_supply=tuple(supply))

    def _do_take_locomotive(
        self, state: RussianRailroadsState, p: int, args: Field
    ) -> RussianRailroadsState:
        """Take the lowest-level locomotive in the supply and place it, with the chain of
        displaced locomotives (seed 000, "ZÍSKÁVÁNÍ LOKOMOTIV", "ZVÝŠENÍ VÝKONU LOKOMOTIVY")."""
        args.only("placements", "level", "source")
        level = self._lowest(state)
        if args.has("level") and args.get("level").int(lo=1, hi=9) != level:
            raise refuse(
                msg(
                    "a level {named} locomotive was named, but the lowest in the supply is "
                    "level {level}",
                    named=str(args.get("level").value)[:8],
                    level=level,
                ),
                msg("players take the lowest-level locomotive still in the supply"),
                S_LOCO_TAKE,
            )
        placements = self._placements(args.get("placements"))
        state = self._take_supply(state, level)
        outcome = br.place_locomotive(
            state.players[p], p, level, placements, self._token_space(state)
        )
        return self._board(state, p, outcome)

    def _do_build_factory(
        self, state: RussianRailroadsState, p: int, args: Field
    ) -> RussianRailroadsState:
        """``{"from": "supply"}`` (the lowest-level locomotive, turned over) or ``{"from":
        "returned", "level": n}`` (a factory returned to the supply); ``replace_slot`` when all
        five slots are full (seed 000, "STAVBA TOVÁREN", "ZÁSADY PLATNÉ …": the one
        exception to "lowest level")."""
        args.only("from", "level", "replace_slot", "source")
        source = args.get("from", "supply").str(frozenset({"supply", "returned"}))
        slot_doc = args.get("replace_slot", None)
        slot = None if slot_doc.value is None else slot_doc.int(lo=1, hi=5)
        if source == "supply":
            level = self._lowest(state)
            if args.has("level") and args.get("level").int(lo=1, hi=9) != level:
                raise refuse(
                    msg(
                        "a level {named} factory was named, but the lowest in the supply is "
                        "level {level}",
                        named=str(args.get("level").value)[:8],
                        level=level,
                    ),
                    msg(
                        "a factory from the supply is the lowest-level locomotive turned over; "
                        "any returned factory may be chosen instead"
                    ),
                    S_LOCO_TAKE,
                )
            state = self._take_supply(state, level)
        else:
            level = args.get("level").int(lo=1, hi=9)
            if level not in state.returned_factories:
                raise refuse(
                    msg("no level {level} factory has been returned to the supply", level=level),
                    msg("a returned factory can be chosen only if it is there"),
                    S_LOCO_TAKE,
                )
            returned = list(state.returned_factories)
            returned.remove(level)
            state = evolve(state, returned_factories=tuple(returned))
        return self._board(state, p, br.add_factory(state.players[p], level, slot))

    def _do_industry(
        self, state: RussianRailroadsState, p: int, args: Field
    ) -> RussianRailroadsState:
        """``{"steps": n, "marker": 1|2}`` (seed 000, "PRŮMYSLOVÝ ROZVOJ")."""
        args.only("steps", "marker", "source")
        steps = args.get("steps").int(lo=1, hi=INDUSTRY_LAST)
        marker = args.get("marker", 1).int(lo=1, hi=2) - 1
        outcome = br.industry_steps(
            state.players[p],
            p,
            marker,
            steps,
            self._token_space(state),
            builds_factory=factory_builds(state),
        )
        return self._board(state, p, outcome)

    def _do_doublers(
        self, state: RussianRailroadsState, p: int, args: Field
    ) -> RussianRailroadsState:
        args.only("count", "source")
        count = args.get("count", 1).int(lo=1, hi=MAX_DOUBLERS)
        return self._place_doublers(state, p, count, up_to=False)

    def _place_doublers(
        self, state: RussianRailroadsState, p: int, count: int, *, up_to: bool
    ) -> RussianRailroadsState:
        if count > state.doubler_supply and not up_to:
            raise refuse(
                plural(
                    "{n} doubler wanted, {left} left in the supply",
                    "{n} doublers wanted, {left} left in the supply",
                    "n",
                    n=count,
                    left=state.doubler_supply,
                ),
                msg("the 20 doublers are deliberately limited"),
                S_DOUBLERS,
            )
        board = state.players[p]
        placed = br.add_doublers(board, min(count, state.doubler_supply), up_to=up_to)
        used = placed.doublers - board.doublers
        state = evolve(state, doubler_supply=state.doubler_supply - used)
        return self._board(state, p, br.Outcome(placed))

    def _add_points(
        self, state: RussianRailroadsState, p: int, category: str, points: int, why: Text
    ) -> RussianRailroadsState:
        board = state.players[p]
        board = evolve(board, points=(*board.points, (category, points, why)))
        return self._board(state, p, br.Outcome(board))

    def _hire(
        self, state: RussianRailroadsState, p: int, number: int, ability: str
    ) -> RussianRailroadsState:
        taken = {e.number for b in state.players for e in b.engineers}
        if number in taken:
            raise refuse(
                msg("engineer {number} is already hired", number=number),
                msg("each engineer tile exists once"),
                S_ENGINEERS,
            )
        board = state.players[p]
        board = evolve(board, engineers=(*board.engineers, Engineer(number, ability)))
        return self._board(state, p, br.Outcome(board))

    def _engineer_number(self, state: RussianRailroadsState, ability: str, args: Field) -> int:
        """The number printed on the tile: the owner's board figure where set, else the table
        reads it off the tile (``{"number": n}``)."""
        known = state.board.engineer_number(ability)
        if not args.has("number"):
            if known is None:
                raise refuse(
                    msg(
                        "say the number printed on the engineer tile “{engineer}”",
                        engineer=engineer_name(ability),
                    ),
                    msg("each engineer tile carries a number, used for ties and by a factory"),
                    S_ENGINEERS,
                )
            return known
        number = args.get("number").int(lo=1, hi=99)
        if known is not None and number != known:
            raise refuse(
                msg(
                    "the engineer “{engineer}” carries the number {known}, not {number}",
                    engineer=engineer_name(ability),
                    known=known,
                    number=number,
                ),
                msg("each engineer tile carries a number, used for ties and by a factory"),
                S_ENGINEERS,
            )
        return number

    def _check_unseen(self, state: RussianRailroadsState, ability: str) -> None:
        """Each engineer tile exists once (seed 000, "DESTIČKY INŽENÝRŮ")."""
        held = any(e.ability == ability for b in state.players for e in b.engineers)
        if held or ability in state.engineer_row:
            raise refuse(
                msg(
                    "the engineer “{engineer}” is already on the table elsewhere",
                    engineer=engineer_name(ability),
                ),
                msg("each engineer tile exists once"),
                S_ENGINEERS,
            )

    def _name_tile(
        self, state: RussianRailroadsState, place: str, ability: str
    ) -> RussianRailroadsState:
        row = list(state.engineer_row)
        index = engineer_place_index(len(row), place)
        if index < 0:
            raise refuse(
                msg("no engineer lies on {place} any more", place=ENGINEER_PLACE_NAMES[place]),
                msg("each round the engineers move one place right"),
                S_PUB,
            )
        if row[index]:
            raise refuse(
                msg(
                    "the engineer on {place} is already named: “{engineer}”",
                    place=ENGINEER_PLACE_NAMES[place],
                    engineer=engineer_name(row[index]),
                ),
                msg("the engineer tiles face up are named once"),
                S_PUB,
            )
        self._check_unseen(state, ability)
        row[index] = ability
        return evolve(state, engineer_row=tuple(row))

    def _do_engineer_tile(
        self, state: RussianRailroadsState, p: int, args: Field
    ) -> RussianRailroadsState:
        """The table names a face-up engineer tile (seed 000 setup step 9: the A tiles lie face
        up, across, on the hiring space and the two variable action spaces; "PŘÍPRAVA DALŠÍHO
        KOLA": a tile moving onto a variable action space is turned face up):
        ``{"place": "left" | "right" | "hiring", "engineer": ability}``. What the table sees,
        not a move: the turn stays where it is."""
        args.only("place", "engineer")
        place = args.get("place").str(frozenset(ENGINEER_PLACES))
        ability = args.get("engineer").str(frozenset(ENGINEERS))
        del p
        return self._name_tile(state, place, ability)

    def _do_hire_engineer(
        self, state: RussianRailroadsState, p: int, args: Field
    ) -> RussianRailroadsState:
        """Hire the engineer on the hiring space, the rightmost (seed 000, "VYUŽITÍ SCHOPNOSTÍ
        INŽENÝRŮ"): at most one a round; ``{"ability": a, "number": n}`` — the tile by its
        name (needed while the table has not named it) and the number printed on it (unless the
        owner set it)."""
        args.only("number", "ability", "source")
        if state.engineer_hired:
            raise refuse(
                msg("this round's engineer is already hired"),
                msg("at most one engineer can be hired each round"),
                S_ENGINEERS,
            )
        if not state.engineer_row:
            raise refuse(
                msg("no engineer is left on the hiring space"),
                msg("only the rightmost engineer can be hired"),
                S_ENGINEERS,
            )
        ability = args.get("ability", "").str(frozenset({"", *ENGINEERS}))
        available = state.engineer_row[-1]
        if available:
            if ability and ability != available:
                raise refuse(
                    msg(
                        "the engineer “{named}” was named, but the one on the hiring space is "
                        "“{available}”",
                        named=engineer_name(ability),
                        available=engineer_name(available),
                    ),
                    msg("only the rightmost engineer can be hired"),
                    S_ENGINEERS,
                )
            ability = available
        elif not ability:
            raise refuse(
                msg("say which engineer lies on the hiring space"),
                msg("the engineer's action space is printed on its tile"),
                S_ENGINEERS,
            )
        else:
            state = self._name_tile(state, "hiring", ability)
        number = self._engineer_number(state, ability, args)
        return evolve(self._hire(state, p, number, ability), engineer_hired=True)

    def _claim_turn_order(
        self, state: RussianRailroadsState, p: int, space: int
    ) -> RussianRailroadsState:
        """A worker under turn order space 1 or 2 (seed 000, "ZMĚNA NA LIŠTĚ POŘADÍ NA TAHU"):
        never under one's own marker (allowed with 2 players, whose board side has only space
        1), never both spaces; not in the last round (the last round tile replaces it)."""
        n = len(state.players)
        if state.round == state.rounds:
            raise refuse(
                msg("a turn order space in the last round"),
                msg("in the last round the turn order space is replaced by industry +3"),
                S_LAST_ROUND,
            )
        if n == 2 and space == 2:
            raise refuse(
                msg("turn order space 2 with 2 players"),
                msg("the 2-player side has one turn order space"),
                S_TWO_PLAYERS,
            )
        if state.turn_order_claims[space - 1] is not None:
            raise refuse(
                msg("turn order space {n} is taken this round", n=space),
                msg("an action space is used once a round"),
                S_TURN_CHANGE,
            )
        if p in state.turn_order_claims:
            raise refuse(
                msg(
                    "{player} already has a worker on the turn order track",
                    player=state.players[p].name,
                ),
                msg("a player never takes both turn order spaces"),
                S_TURN_ADVANCE,
            )
        if n > 2 and state.position(p) == space:
            raise refuse(
                msg(
                    "{player} is already on turn order space {n}",
                    player=state.players[p].name,
                    n=space,
                ),
                msg("no worker under one's own marker (allowed only with 2 players)"),
                S_TURN_CHANGE,
            )
        claims = list(state.turn_order_claims)
        claims[space - 1] = p
        return evolve(state, turn_order_claims=tuple(claims))

    # -- action spaces ----------------------------------------------------------------------
    def space_for(
        self, state: RussianRailroadsState, p: int, key: str, ability: str = ""
    ) -> ActionSpace:
        """The action space ``key`` as this table has it (board spaces, public engineer spaces,
        the player's own engineers)."""
        n = len(state.players)
        if key in SPACE_BY_KEY:
            space = SPACE_BY_KEY[key]
            if n not in space.players:
                raise refuse(
                    plural(
                        "the space “{space}” is not on the board with {n} player",
                        "the space “{space}” is not on the board with {n} players",
                        "n",
                        space=space_title(space),
                        n=n,
                    ),
                    msg("the 2-player side of the board crosses some spaces out"),
                    S_TWO_PLAYERS,
                )
            last = state.round == state.rounds
            if (space.last_round_only and not last) or (space.not_last_round and last):
                raise refuse(
                    msg(
                        "the space “{space}” is not available in round {round}",
                        space=space_title(space),
                        round=state.round,
                    ),
                    msg(
                        "in the last round the turn order space is covered by the last round "
                        "tile (industry +3)"
                    ),
                    S_LAST_ROUND,
                )
            return self._space_workers(state, space, space.key)
        if key.startswith("own_engineer_"):
            number = Field(key.removeprefix("own_engineer_"), "space").value
            mine = [e for e in state.players[p].engineers if str(e.number) == number]
            if not mine:
                raise refuse(
                    msg(
                        "{player} has no engineer number {number}",
                        player=state.players[p].name,
                        number=number,
                    ),
                    msg("only a hired engineer's own action space may be used by its owner"),
                    S_OWN_ENGINEERS,
                )
            if not mine[0].ability:
                raise refuse(
                    msg(
                        "engineer {number}: say which engineer it is (its ability) when hiring",
                        number=number,
                    ),
                    msg("the engineer's action space is printed on its tile"),
                    S_OWN_ENGINEERS,
                )
            grants = tuple(
                g if parse_grant(g).immediate or ":upto" in g or g == "repeat" else f"{g}:upto"
                for g in ENGINEER_GRANTS[mine[0].ability]
            )
            own = ActionSpace(
                key,
                f"own engineer {number}: {ENGINEERS[mine[0].ability]}",
                "engineers",
                ENGINEER_SPACE_WORKERS,
                0,
                grants,
                frozenset({2, 3, 4}),
                action_board.S_OWN_ENGINEERS,
                False,
            )
            return self._space_workers(state, own, self._worker_figure(state, p, key))
        if key.startswith("engineer_"):
            ability = key.removeprefix("engineer_")
            if ability not in ENGINEERS:
                raise refuse(
                    msg("there is no such engineer"),
                    msg("the engineers are listed in the rulebook"),
                    S_PUB,
                )
            # Only the two variable action spaces: not the face-down tiles before them, not the
            # one on the hiring space (seed 000 setup step 9, "VYUŽITÍ INŽENÝRŮ NA PROMĚNLIVÝCH
            # AKČNÍCH POLÍCH", "INŽENÝŘI NA HERNÍM PLÁNU PŘED PROMĚNLIVÝMI AKČNÍMI POLI").
            if ability not in public_engineers(state.engineer_row):
                raise refuse(
                    msg(
                        "the engineer “{engineer}” is not on an engineer action space",
                        engineer=engineer_name(ability),
                    ),
                    msg("the engineers face up on the variable action spaces may be used by all"),
                    S_PUB,
                )
            shown = ActionSpace(
                key,
                f"engineer: {ENGINEERS[ability]}",
                "engineers",
                ENGINEER_SPACE_WORKERS,
                0,
                ENGINEER_GRANTS[ability],
                frozenset({2, 3, 4}),
                action_board.S_PUBLIC_ENGINEERS,
                False,
            )
            return self._space_workers(state, shown, self._worker_figure(state, p, key))
        raise refuse(
            msg("there is no such action space"),
            msg("the action spaces are the board's, the public engineers' and your own engineers'"),
            S_WORKERS,
        )

    @staticmethod
    def _space_workers(
        state: RussianRailroadsState, space: ActionSpace, figure: str
    ) -> ActionSpace:
        """A space whose worker count no public source confirms takes it from the board
        figures (the owner's value from the box, else the one source's)."""
        key = f"space_workers_{figure}"
        if key not in state.board.figures or (
            len(state.players) == 2 and figure in TWO_PLAYER_SIDE_KNOWN
        ):
            return space
        value = state.board.figure(key).value
        return space if value is None else evolve(space, workers=value)

    def _do_take_space(
        self, state: RussianRailroadsState, p: int, args: Field
    ) -> RussianRailroadsState:
        """One turn = one action space (seed 000, "POPIS JEDNOHO TAHU HRÁČE"): free (or the
        reusable one), exactly its workers from the player's own supply, a coin standing in for
        a worker but never the reverse ("DALŠÍ AKCE"); the action follows at once and in full.
        ``{"space": key, "workers": n, "temporary": n, "coins": n, "black_worker": bool}``."""
        args.only("space", "workers", "temporary", "coins", "black_worker")
        space = self.space_for(state, p, args.get("space").str())
        board = state.players[p]
        workers = args.get("workers", 0).int(lo=0, hi=4)
        temporary = args.get("temporary", 0).int(lo=0, hi=2)
        coins = args.get("coins", 0).int(lo=0, hi=4)
        black = args.get("black_worker", False).bool()
        first = state.pending[0] if state.pending else None
        repeat = first is not None and first.kind == "space" and "repeat" in first.grants
        moving = first is not None and first.kind == "turn_order_move"
        if first is not None and first.kind == "space" and not repeat:
            raise refuse(
                msg("{player}: first finish {what}", player=board.name, what=describe(first)),
                msg("one action per turn"),
                S_WORKERS,
            )
        if repeat:
            assert first is not None
            if space.key not in board.used_spaces:
                raise refuse(
                    msg(
                        "{player} has not used the one-worker space “{space}” this round",
                        player=board.name,
                        space=space_title(space),
                    ),
                    msg(
                        "a repeat takes a one-worker action the player used this round again "
                        "(never the 2 temporary workers)"
                    ),
                    S_REPEAT,
                )
            if workers or temporary or coins or black:
                raise refuse(
                    msg("a repeated action places no workers or coins"),
                    msg("the repeat is the card's, factory's or engineer's own action"),
                    S_REPEAT,
                )
            if "repeat" in space.grants:
                # repeating the repeat engineer's own action only asks again which action to
                # repeat: no action of its own, so the repeat names the action itself
                raise refuse(
                    msg(
                        "{player}: the repeat names the action to do again, not the repeat "
                        "engineer “{space}”",
                        player=board.name,
                        space=space_title(space),
                    ),
                    msg("a repeat takes a one-worker action the player used this round again"),
                    S_REPEAT,
                )
            if first.source.startswith("engineer_"):
                # the public repeat engineer is a variable action space like the board's: the
                # action it repeats is done in full (seed 000, "VYUŽITÍ INŽENÝRŮ NA PROMĚNLIVÝCH
                # AKČNÍCH POLÍCH", "POPIS JEDNOHO TAHU HRÁČE"); one's own may be used partly
                self._check_doable(state, p, space)
            rest = list(first.grants)
            rest.remove("repeat")
            state = evolve(state, pending=(evolve(first, grants=tuple(rest)), *state.pending[1:]))
            state = self._drop_spent(state)
            # Seed 000, "DESTIČKY INŽENÝRŮ" footnote: repeating an action first done with the
            # black worker may give the extra black step again.
            again = board.black_worker_space == space.key and _black_steps(space)
            return self._grant(state, p, space.key, space.grants, again)
        if not space.reusable and space.key in state.occupied:
            raise refuse(
                msg("the space “{space}” is taken this round", space=space_title(space)),
                msg("an action space must be free: no worker or coin on it"),
                S_WORKERS,
            )
        if moving:
            if space.workers != 1 or space.coins or temporary or coins or workers > 1:
                raise refuse(
                    msg(
                        "{player}: the worker from the turn order space may go only to a "
                        "one-worker space, alone (“{space}” needs {cost})",
                        player=board.name,
                        space=space_title(space),
                        cost=cost_message(space),
                    ),
                    msg(
                        "no temporary workers, coins or further own workers with this extra action"
                    ),
                    S_TURN_MOVE,
                )
            # The worker moved is the one on the turn order space: the black worker only if it
            # stood there (seed 000, "KARTY ?": the black worker).
            if black and not board.black_worker_space.startswith("turn_order_"):
                raise refuse(
                    msg(
                        "{player}: the worker on the turn order space is not the black worker",
                        player=board.name,
                    ),
                    msg("the black worker gives its extra black step where it is placed"),
                    S_BLACK_WORKER,
                )
            # ... and when it is, it is the black worker whether the entry says so or not
            black = board.black_worker_space.startswith("turn_order_")
            if black:
                board = evolve(board, black_worker_space=space.key)
            state = evolve(state, pending=state.pending[1:])
        else:
            need = space.workers + space.coins
            if coins < space.coins or workers + temporary + coins != need:
                raise refuse(
                    msg(
                        "the space “{space}” needs {cost}; {player} placed {workers}, {temporary} "
                        "and {coins}",
                        space=space_title(space),
                        cost=cost_message(space),
                        player=board.name,
                        workers=plural("{n} worker", "{n} workers", "n", n=workers),
                        temporary=plural(
                            "{n} temporary worker", "{n} temporary workers", "n", n=temporary
                        ),
                        coins=plural("{n} coin", "{n} coins", "n", n=coins),
                    ),
                    msg(
                        "place exactly the workers the space shows; a coin may replace a worker, "
                        "a worker never replaces a coin"
                    ),
                    S_COINS_RULE,
                )
            own_left = board.workers(len(state.players)) - board.workers_used
            if workers > own_left:
                raise refuse(
                    plural(
                        "{player} places {n} worker with {left} left",
                        "{player} places {n} workers with {left} left",
                        "n",
                        player=board.name,
                        n=workers,
                        left=own_left,
                    ),
                    msg("workers come from the player's own supply"),
                    S_WORKERS,
                )
            temp_left = board.temporary - board.temporary_used
            if temporary > temp_left:
                raise refuse(
                    plural(
                        "{player} has {n} temporary worker left",
                        "{player} has {n} temporary workers left",
                        "n",
                        player=board.name,
                        n=temp_left,
                    ),
                    msg(
                        "temporary workers come from the 2-temporary-workers space, this round only"
                    ),
                    S_EXTRA,
                )
            if coins > board.coins:
                raise refuse(
                    plural(
                        "{player} places {n} coin with {have}",
                        "{player} places {n} coins with {have}",
                        "n",
                        player=board.name,
                        n=coins,
                        have=board.coins,
                    ),
                    msg("coins come from the player's own supply"),
                    S_COINS_RULE,
                )
            if black and (not board.black_worker or board.black_worker_used or workers < 1):
                raise refuse(
                    msg("{player} has no black worker to place this round", player=board.name),
                    msg("the black worker comes from its “?” card and is one of the own workers"),
                    S_BLACK_WORKER,
                )
            board = evolve(
                board,
                workers_used=board.workers_used + workers,
                temporary_used=board.temporary_used + temporary,
                coins=board.coins - coins,
                black_worker_used=board.black_worker_used or black,
                black_worker_space=space.key if black else board.black_worker_space,
            )
        self._check_doable(state, p, space)
        if (
            space.workers == 1
            and not space.coins
            and space.key != "temporary"
            and not space.key.startswith("turn_order")
        ):
            board = evolve(board, used_spaces=(*board.used_spaces, space.key))
        state = self._board(state, p, br.Outcome(board))
        figure = self._worker_figure(state, p, space.key)
        used = state.board.figures.get(f"space_workers_{figure}")
        two_player_side = len(state.players) == 2 and figure in TWO_PLAYER_SIDE_KNOWN
        if used is not None and not used.confirmed and not two_player_side:
            state = evolve(state, figures_used=state.figures_used | {used.key})
        if not space.reusable:
            state = evolve(state, occupied=(*state.occupied, space.key))
        return self._grant(state, p, space.key, space.grants, black and _black_steps(space))

    @staticmethod
    def _worker_figure(state: RussianRailroadsState, p: int, key: str) -> str:
        """Which worker-count figure a space uses ("" for a settled one)."""
        if key.startswith("own_engineer_"):
            number = key.removeprefix("own_engineer_")
            ability = next(
                (e.ability for e in state.players[p].engineers if str(e.number) == number), ""
            )
        elif key.startswith("engineer_"):
            ability = key.removeprefix("engineer_")
        else:
            return key
        return "" if ability in SETTLED_ENGINEER_WORKERS else "engineer"

    def _check_doable(self, state: RussianRailroadsState, p: int, space: ActionSpace) -> None:
        """:meth:`_check_now`, once per space while the choices tree tries every way to pay for
        it on one board (:func:`doable_memo`): the answer does not depend on the payment."""
        memo = _DOABLE_MEMO.get()
        if memo is None or not _same_table(memo[0], state):
            self._check_now(state, p, space)
            return
        key = (p, space.key)
        if key not in memo[1]:
            try:
                self._check_now(state, p, space)
                memo[1][key] = None
            except IllegalActionError as exc:
                memo[1][key] = exc
        refusal = memo[1][key]
        if refusal is not None:
            raise refusal.with_traceback(None)

    def _check_now(self, state: RussianRailroadsState, p: int, space: ActionSpace) -> None:
        """An action must be done in full (seed 000, "POPIS JEDNOHO TAHU HRÁČE"): a space whose
        action cannot be done is not taken; the 3-worker locomotive + factory space needs a
        locomotive in the supply (seed 000, "ROZDÍLY AKČNÍCH POLÍ TÉTO OBLASTI")."""
        from companion.games.russian_railroads.choices import grant_doable, steps_doable

        if space.key == "locomotive_and_factory" and not any(state.locomotive_supply):
            raise refuse(
                msg("the locomotive and factory space needs a locomotive in the supply"),
                msg("this space cannot be taken when the supply has no locomotive"),
                S_LOCO_AREA,
            )
        if "hire" in space.grants and state.engineer_hired:
            raise refuse(
                msg("this round's engineer is already hired"),
                msg("at most one engineer can be hired each round"),
                S_ENGINEERS,
            )
        own = space.key.startswith("own_engineer_")  # may be used partly ("A INŽENÝŘI")
        steps: list[tuple[tuple[str, ...], int]] = []
        for g in space.grants:
            grant = parse_grant(g)
            if grant.kind == "doublers" and not own:
                # Seed 000, "ŽETONY ZDVOJNÁSOBENÍ": one doubler on each of the eight spaces, from
                # the limited supply of 20; the action is done in full or not at all.
                board = state.players[p]
                if (
                    board.doublers + grant.count > MAX_DOUBLERS
                    or grant.count > state.doubler_supply
                ):
                    raise refuse(
                        msg(
                            "the action of “{space}” ({what}) cannot be done in full: "
                            "{player} has {placed} of 8 doublers, the supply {left}",
                            space=space_title(space),
                            what=grant_message(g),
                            player=board.name,
                            placed=board.doublers,
                            left=state.doubler_supply,
                        ),
                        msg("at most 8 doublers, one on each marked space, from a supply of 20"),
                        S_DOUBLERS,
                    )
            if grant.kind == "repeat" and not own and not self._repeatable(state, p):
                raise _not_in_full(space, g)
            if grant.immediate or grant.up_to:
                continue
            if grant.kind == "steps":
                steps.append((grant.colours, grant.count))
                continue
            if not grant_doable(state, p, g):
                raise _not_in_full(space, g)
        token_space = self._token_space(state)
        if steps and not steps_doable(state.players[p], p, steps, token_space):
            what = [g for g in space.grants if parse_grant(g).kind == "steps"]
            raise refuse(
                msg(
                    "the action of “{space}” ({what}) cannot be done in full on this board",
                    space=space_title(space),
                    what=grants_message(tuple(what)),
                ),
                msg("an action is done at once and in full, never partly"),
                S_WORKERS,
            )

    def _repeatable(self, state: RussianRailroadsState, p: int) -> bool:
        """Whether some one-worker action the player used this round can be done again in full
        (a repeat of a repeat is no action of its own: left out)."""
        for key in dict.fromkeys(state.players[p].used_spaces):
            try:
                space = self.space_for(state, p, key)
                if "repeat" in space.grants:
                    continue
                self._check_doable(state, p, space)
            except IllegalActionError:
                continue
            return True
        return False

    def _grant(
        self,
        state: RussianRailroadsState,
        p: int,
        source: str,
        grants: Sequence[str],
        extra_black: bool,
    ) -> RussianRailroadsState:
        """Apply a space's (card's, token's, factory's) immediate gains; what needs a choice
        waits as a ``space`` decision at the front."""
        later = []
        for g in grants:
            grant = parse_grant(g)
            if not grant.immediate:
                later.append(g)
                continue
            board = state.players[p]
            match grant.kind:
                case "doublers":
                    state = self._place_doublers(state, p, grant.count, up_to=True)
                case "coins":
                    board = evolve(board, coins=board.coins + grant.count)
                    state = self._board(state, p, br.Outcome(board))
                case "temporary":
                    board = evolve(board, temporary=board.temporary + 2)
                    state = self._board(state, p, br.Outcome(board))
                    state = evolve(state, temporary_taken=True)
                case "points":
                    state = self._add_points(
                        state, p, "actions", grant.count, _in_round(state, source_message(source))
                    )
                case "turn_order":
                    state = self._claim_turn_order(state, p, grant.count)
        if later:
            pending = Pending("space", p, source, grants=tuple(later), extra_black=extra_black)
            state = evolve(state, pending=(pending, *state.pending))
        return state

    def _drop_spent(self, state: RussianRailroadsState) -> RussianRailroadsState:
        if state.pending and state.pending[0].kind == "space" and not state.pending[0].grants:
            return evolve(state, pending=state.pending[1:])
        return state

    def _spend(
        self, state: RussianRailroadsState, p: int, kind: str, args: Field
    ) -> RussianRailroadsState:
        """An effect entered while a space still gives something: it must be one of those
        things, no bigger than the space allows (seed 000, "POPIS JEDNOHO TAHU HRÁČE")."""
        first = state.pending[0]
        extra_used = False
        for i, g in enumerate(first.grants):
            fit = self._fits(parse_grant(g), kind, args, first.extra_black)
            if fit is None:
                continue
            extra_used = fit
            left = _left_of(parse_grant(g), g, kind, args) if not extra_used else None
            rest = first.grants[:i] + ((left,) if left else ()) + first.grants[i + 1 :]
            spent = evolve(first, grants=rest, extra_black=first.extra_black and not extra_used)
            return self._drop_spent(evolve(state, pending=(spent, *state.pending[1:])))
        raise refuse(
            msg(
                "{player}: {what} is more than or other than what {source} gives: {gives}",
                player=state.players[p].name,
                what=effect_message(kind, args),
                source=source_message(first.source),
                gives=grants_message(first.grants),
            ),
            msg("the action is the one the space shows, done in full and no more"),
            S_WORKERS,
        )

    @staticmethod
    def _fits(grant: Grant, kind: str, args: Field, extra_black: bool) -> bool | None:
        """``None``: the effect is not this grant; else whether the black worker's extra black
        step was used."""
        match kind:
            case "build":
                moves = [
                    (m.get("colour").str(COLOURS), m.get("steps").int(lo=1, hi=15))
                    for m in args.get("moves").list(max_len=10)
                ]
                total = sum(n for _, n in moves)
                black = sum(n for c, n in moves if c == BLACK)
                if grant.kind == "four_repeat":
                    return False if moves == [(BLACK, 1)] else None
                if grant.kind != "steps" or any(c not in grant.colours for c, _ in moves):
                    return None
                extra = extra_black and BLACK in grant.colours and black >= 2
                top = grant.count + (1 if extra else 0)
                if total > top or (total < grant.count and not grant.up_to):
                    return None
                return total > grant.count
            case "industry":
                steps = args.get("steps").int(lo=1, hi=INDUSTRY_LAST)
                if grant.kind == "four_repeat":
                    return False if steps == 1 else None
                if grant.kind != "industry":
                    return None
                ok = steps == grant.count or (grant.up_to and steps < grant.count)
                return False if ok else None
            case "doublers":
                count = args.get("count", 1).int(lo=1, hi=MAX_DOUBLERS)
                return False if grant.kind == "four_repeat" and count == 1 else None
            case "take_locomotive":
                return False if grant.kind in ("locomotive", "locomotive_or_factory") else None
            case "build_factory":
                return False if grant.kind in ("factory", "locomotive_or_factory") else None
            case "hire_engineer":
                return False if grant.kind == "hire" else None
        return None

    # -- passing and the round end ----------------------------------------------------------
    def _do_pass(self, state: RussianRailroadsState, p: int, args: Field) -> RussianRailroadsState:
        """Pass: out of the round, with the points on the back of the turn order card (seed
        000, "LIŠTA POŘADÍ NA TAHU"). After the round, ``pass`` also ends a turn order
        worker's extra action."""
        args.only()
        if state.pending and state.pending[0].kind == "turn_order_move":
            return evolve(state, pending=state.pending[1:])
        position = state.position(p)
        figure = state.board.figure(f"pass_points_{position}")
        if not figure.confirmed:
            state = evolve(state, figures_used=state.figures_used | {figure.key})
        state = evolve(state, passed=state.passed | {p})
        if figure.value:
            state = self._add_points(
                state,
                p,
                "pass",
                figure.value,
                _in_round(state, msg("passed from position {n}", n=position)),
            )
        following = next_active(state, p)
        return evolve(state, current=following, acted=False)

    def _after(self, state: RussianRailroadsState) -> RussianRailroadsState:
        """Move the game along once nothing is owed: the draft ends; all passed → the new turn
        order and the turn order workers' moves; then the round's scoring. An industry move
        that stopped at a factory goes on by itself once that factory has acted."""
        while state.pending and state.pending[0].kind == "industry_rest":
            rest = state.pending[0]
            state = evolve(state, pending=state.pending[1:])
            # as far as the board allows: where the factory's action did not build the next
            # factory, the steps beyond the empty slot are lost
            for count in range(rest.level, 0, -1):
                try:
                    outcome = br.industry_steps(
                        state.players[rest.player],
                        rest.player,
                        rest.marker,
                        count,
                        self._token_space(state),
                        builds_factory=factory_builds(state),
                    )
                except IllegalActionError:
                    continue
                state = self._board(state, rest.player, outcome)
                break
        if state.pending:
            return state
        if state.phase == "draft":
            return evolve(state, phase="play", current=state.turn_order[0])
        if state.phase == "play" and len(state.passed) == len(state.players):
            order = new_turn_order(state)
            moves = tuple(
                Pending("turn_order_move", claimant, f"turn order space {space}")
                for space, claimant in (
                    (2, state.turn_order_claims[1]),
                    (1, state.turn_order_claims[0]),
                )
                if claimant is not None
            )
            state = evolve(state, turn_order=order, phase="after_round", pending=moves)
            if moves:
                return state
        if state.phase == "after_round":
            return self._end_round(state)
        return state

    def _end_round(self, state: RussianRailroadsState) -> RussianRailroadsState:
        """Seed 000, "VYHODNOCENÍ A ZÍSKÁVÁNÍ BODŮ" then "PŘÍPRAVA DALŠÍHO KOLA" (or "KONEC
        HRY" after the last round)."""
        use = FigureUse()
        boards = []
        for board in state.players:
            lines = score_round(board.scoring_input(), state.board, use)
            points = board.points + tuple(
                (line.category, line.points, _in_round(state, line.note)) for line in lines
            )
            boards.append(evolve(board, points=points))
        used = state.figures_used | _figure_keys(use)
        if state.round == state.rounds:
            inputs = [b.scoring_input() for b in boards]
            engineer_lines = score_engineers(inputs)
            final = []
            for board, inp, eng in zip(boards, inputs, engineer_lines, strict=True):
                card = score_bonus_cards(inp)
                extra = (
                    ("bonus_cards", card.points, msg("final scoring: {what}", what=card.note)),
                    ("engineers", eng.points, msg("final scoring: {what}", what=eng.note)),
                )
                final.append(evolve(board, points=board.points + extra))
            return evolve(
                state, players=tuple(final), phase="over", current=None, figures_used=used
            )
        fresh = tuple(
            evolve(
                b,
                workers_used=0,
                temporary=0,
                temporary_used=0,
                used_spaces=(),
                black_worker_used=False,
                black_worker_space="",
            )
            for b in boards
        )
        return evolve(
            state,
            players=fresh,
            round=state.round + 1,
            phase="play",
            current=state.turn_order[0],
            acted=False,
            passed=frozenset(),
            turn_order_claims=(None, None),
            engineer_hired=False,
            # Seed 000, "PŘÍPRAVA DALŠÍHO KOLA": the engineers move one space right; the one
            # on the hiring space leaves (hired, or back to the box when nobody hired it).
            engineer_row=state.engineer_row[:-1],
            temporary_taken=False,
            occupied=(),
            figures_used=used,
        )

    # -- tokens, cards, factories -----------------------------------------------------------
    def _do_use_token(
        self, state: RussianRailroadsState, p: int, args: Field
    ) -> RussianRailroadsState:
        """Choose one of the seven "?" tokens for a token space that fired (seed 000, "ŽETONY",
        "ZVLÁŠTNÍ POLÍČKO NA LIŠTĚ PRŮMYSLOVÉHO ROZVOJE"). Tokens with a table choice
        (4 rail steps, industry up to 5) are followed by those effects; the others act here."""
        args.only("token", "space")
        token = args.get("token").str(frozenset(TOKENS))
        board = state.players[p]
        if state.pending and state.pending[0].kind == "token":
            state = evolve(state, pending=state.pending[1:])
        else:
            # The industry token space is not public: the table declares it fired.
            if args.get("space", "").value != TOKEN_SPACE_INDUSTRY:
                raise refuse(
                    msg("{player}: no token space has fired", player=board.name),
                    msg("a token is used when a token space fires"),
                    S_SPECIAL,
                )
            known = self._token_space(state)
            if known is not None or TOKEN_SPACE_INDUSTRY in board.token_spaces:
                raise refuse(
                    msg("the industry token space is known or already used"),
                    msg("each token space is used once"),
                    S_SPECIAL,
                )
            board = evolve(board, token_spaces=(*board.token_spaces, TOKEN_SPACE_INDUSTRY))
            state = self._board(state, p, br.Outcome(board))
        if token in board.tokens_used:
            raise refuse(
                msg(
                    "{player} has already used the “?” token: {token}",
                    player=board.name,
                    token=named(TOKEN_NAMES, token),
                ),
                msg("each token can be used once a game"),
                S_TOKENS,
            )
        board = evolve(board, tokens_used=(*board.tokens_used, token))
        state = self._board(state, p, br.Outcome(board))
        match token:
            case "three_doublers":
                return self._place_doublers(state, p, 3, up_to=True)
            case "revaluation":
                return self._board(state, p, br.Outcome(evolve(board, revaluation=True)))
            case "kiev_medal":
                return self._board(state, p, br.Outcome(evolve(board, kiev_medal=True)))
            case "second_industry_marker":
                if 0 in board.industry:
                    raise refuse(
                        msg("a marker stands on industry space 0"),
                        msg("the two industry markers never share a space"),
                        S_SECOND_MARKER,
                    )
                return self._board(
                    state, p, br.Outcome(evolve(board, industry=(*board.industry, 0)))
                )
            case "question_card":
                return evolve(state, pending=(Pending("question_card", p, token), *state.pending))
        # four_steps, industry_five: the steps follow as the token's action ("up to").
        return self._grant(state, p, f"token {token}", TOKEN_GRANTS[token], False)

    def _do_decline(
        self, state: RussianRailroadsState, p: int, args: Field
    ) -> RussianRailroadsState:
        """Decline a "may": a token space ("můžete si vybrat"), a bonus card from the deck, or
        the rest of an action that may be used partly (a hired engineer's space, the bottom
        space's "up to 2 steps", a card's, token's or factory's "můžete"). A full action may
        be left only where nothing of it can be done any more."""
        args.only()
        first = state.pending[0]
        if first.kind == "space":
            from companion.games.russian_railroads.choices import grant_doable

            owed = [
                g
                for g in first.grants
                if not parse_grant(g).up_to
                and g not in ("repeat", "four_repeat")
                and grant_doable(state, p, g)
            ]
            # the public repeat engineer's repeat is owed in full while something can be
            # repeated (seed 000, "VYUŽITÍ INŽENÝRŮ NA PROMĚNLIVÝCH AKČNÍCH POLÍCH")
            if (
                "repeat" in first.grants
                and first.source.startswith("engineer_")
                and self._repeatable(state, p)
            ):
                owed.append("repeat")
            if owed:
                raise refuse(
                    msg(
                        "{player}: {gives} of {source} is still owed",
                        player=state.players[p].name,
                        gives=grants_message(tuple(owed)),
                        source=source_message(first.source),
                    ),
                    msg("an action is done in full, never partly"),
                    S_WORKERS,
                )
        return evolve(state, pending=state.pending[1:])

    def _do_question_card(
        self, state: RussianRailroadsState, p: int, args: Field
    ) -> RussianRailroadsState:
        """Take one "?" card (seed 000, "KARTY ?"), then look through the bonus deck."""
        args.only("card", "number", "ability", "placements")
        card = args.get("card").str(frozenset(QUESTION_CARDS))
        if card not in state.question_cards:
            raise refuse(
                msg("the “?” card “{card}” is gone", card=named(QUESTION_CARD_NAMES, card)),
                msg("each “?” card is taken once"),
                S_CARDS,
            )
        state = evolve(
            state,
            question_cards=tuple(c for c in state.question_cards if c != card),
            pending=(Pending("bonus_card", p, "question_card"), *state.pending[1:]),
        )
        board = state.players[p]
        match card:
            case "engineer_and_coin":
                # The engineer without a letter (seed 000 setup step 9, "KARTY ?"): its action
                # space is printed on it, so the table names it, and reads its number.
                ability = args.get("ability").str(frozenset(ENGINEERS))
                self._check_unseen(state, ability)
                number = self._engineer_number(state, ability, args)
                state = self._hire(state, p, number, ability)
                board = state.players[p]
                return self._board(state, p, br.Outcome(evolve(board, coins=board.coins + 1)))
            case "black_worker":
                board = evolve(board, black_worker=True, extra_workers=board.extra_workers + 1)
                return self._board(state, p, br.Outcome(board))
            case "locomotive_9":
                outcome = br.place_locomotive(
                    board, p, 9, self._placements(args.get("placements")), self._token_space(state)
                )
                return self._board(state, p, outcome)
        # four_actions, factory_and_industry: the card's actions, before its bonus card.
        return self._grant(state, p, f"card {card}", QUESTION_CARD_GRANTS[card], False)

    def _do_bonus_card(
        self, state: RussianRailroadsState, p: int, args: Field
    ) -> RussianRailroadsState:
        """A final bonus card from the deck, or 10 points instead (seed 000, "KARTY CÍLOVÝCH
        BONUSŮ")."""
        args.only("card", "points_instead")
        state = evolve(state, pending=state.pending[1:])
        if args.get("points_instead", False).bool():
            return self._add_points(
                state,
                p,
                "bonus_cards",
                BONUS_CARD_INSTEAD_POINTS,
                msg("10 points instead of a card"),
            )
        card = args.get("card").str(frozenset(BONUS_CARDS))
        held = [b.name for b in state.players if card in b.bonus_cards]
        if held:
            raise refuse(
                msg(
                    "{player} already holds the bonus card “{card}”",
                    player=held[0],
                    card=named(BONUS_CARD_NAMES, card),
                ),
                msg("each bonus card exists once"),
                S_BONUS,
            )
        if state.bonus_deck == 0:
            raise refuse(msg("the bonus deck is empty"), msg("cards come from the deck"), S_BONUS)
        board = state.players[p]
        state = evolve(state, bonus_deck=state.bonus_deck - 1)
        return self._board(
            state, p, br.Outcome(evolve(board, bonus_cards=(*board.bonus_cards, card)))
        )

    def _do_factory_function(
        self, state: RussianRailroadsState, p: int, args: Field
    ) -> RussianRailroadsState:
        """An industry marker reached a factory: its function (seed 000, "TOVÁRNY"). Which
        function each locomotive level carries is not public, so the table says it once per
        level; functions without a choice act here, the others are entered as effects."""
        args.only("function")
        first = state.pending[0]
        function = args.get("function").str(frozenset(FACTORY_FUNCTIONS))
        known = state.known_factory_function(first.level)
        if known is not None and known != function:
            raise refuse(
                msg(
                    "level {level} factories show “{known}”, not “{function}”",
                    level=first.level,
                    known=named(FACTORY_FUNCTION_NAMES, known),
                    function=named(FACTORY_FUNCTION_NAMES, function),
                ),
                msg("locomotives of the same level are factories with the same function"),
                S_FACTORIES,
            )
        if known is None:
            state = evolve(
                state, factory_functions=(*state.factory_functions, (first.level, function))
            )
        state = evolve(state, pending=state.pending[1:])
        board = state.players[p]
        level = first.level or 0
        match function:
            case "engineer_number_points":
                total = sum(e.number for e in board.engineers)
                return (
                    self._add_points(
                        state,
                        p,
                        "actions",
                        total,
                        msg("the level {level} factory: the engineers' numbers", level=level),
                    )
                    if total
                    else state
                )
            case "industry_step":
                try:
                    outcome = br.industry_steps(
                        board,
                        p,
                        first.marker,
                        1,
                        self._token_space(state),
                        builds_factory=factory_builds(state),
                    )
                except IllegalActionError:
                    return state  # "Není-li to možné, akce propadá" — the function is lost
                return self._board(state, p, outcome)
            case "bonus_card_or_10":
                return evolve(state, pending=(Pending("bonus_card", p, "factory"), *state.pending))
            case "coin":
                return self._board(state, p, br.Outcome(evolve(board, coins=board.coins + 1)))
            case "two_doublers":
                return self._place_doublers(state, p, 2, up_to=True)
            case "best_two_locomotives_points":
                levels = sorted((lv for t in TRACKS for lv in board.locos(t)), reverse=True)
                total = sum(levels[:2])
                return self._add_points(
                    state,
                    p,
                    "actions",
                    total,
                    msg("the level {level} factory: the two strongest locomotives", level=level),
                )
        # locomotive_or_factory, repeat_action, two_any_steps: the factory's action follows.
        return self._grant(state, p, f"factory {function}", FACTORY_GRANTS[function], False)

    def _do_starting_bonus(
        self, state: RussianRailroadsState, p: int, args: Field
    ) -> RussianRailroadsState:
        """Starting bonus cards, drafted 4th → 2nd in turn order (seed 004, Preparar; cards:
        seed 000, "POČÁTEČNÍ PRÉMIOVÉ KARTY")."""
        args.only("card", "track")
        card = args.get("card").str(frozenset(STARTING_BONUS_CARDS))
        if card not in state.starting_bonus_cards:
            raise refuse(
                msg(
                    "the starting card “{card}” is taken",
                    card=named(STARTING_BONUS_NAMES, card),
                ),
                msg("each card is taken once"),
                S_START,
            )
        state = evolve(
            state,
            starting_bonus_cards=tuple(c for c in state.starting_bonus_cards if c != card),
            pending=state.pending[1:],
        )
        board = state.players[p]
        match card:
            case "black_step":
                track = args.get("track").str(TRACKS)
                outcome = br.build(board, p, [(track, BLACK, 1)], self._token_space(state))
                return self._board(state, p, outcome)
            case "industry_step":
                return self._board(
                    state, p, br.industry_steps(board, p, 0, 1, self._token_space(state))
                )
            case "doubler":
                return self._place_doublers(state, p, 1, up_to=False)
        return self._board(state, p, br.Outcome(evolve(board, coins=board.coins + 1)))

    # -- views ------------------------------------------------------------------------------
    def is_over(self, state: RussianRailroadsState) -> bool:
        return state.phase == "over"

    def public_view(self, state: RussianRailroadsState) -> PublicView:
        """What the table sees (``companion.core.public``): every screen renders this."""
        from companion.games.russian_railroads.public import public_view

        return public_view(self, state)

    def screen_json(self, state: RussianRailroadsState) -> JsonObject:
        """The table for the live screens (``companion.games.russian_railroads.public``)."""
        from companion.games.russian_railroads.public import screen_json

        return screen_json(self, state)

    def status(self, state: RussianRailroadsState) -> TurnStatus:
        if state.phase == "over":
            return TurnStatus(phase="over", round=state.round)
        if state.pending:
            first = state.pending[0]
            return TurnStatus(
                active_players=(first.player,),
                phase=state.phase,
                waiting_for=msg(
                    "{player}: {what}",
                    player=state.players[first.player].name,
                    what=describe(first),
                ),
                round=state.round,
                prompt=Prompt(describe(first), first.player, pending_options(state)),
            )
        expected = self.expected(state)
        current = expected if expected is not None else state.turn_order[0]
        following = next_active(state, current)
        return TurnStatus(
            active_players=(current,),
            phase=state.phase,
            waiting_for=(
                msg(
                    "{player} to act or pass (then {next})",
                    player=state.players[current].name,
                    next=state.players[following].name,
                )
                if following is not None
                else msg("{player} to act or pass", player=state.players[current].name)
            ),
            round=state.round,
        )

    def score(self, state: RussianRailroadsState) -> ScoreSheet:
        """The running score: every point so far, by category, each line saying where its
        points came from."""
        players = []
        for board in state.players:
            lines = []
            for category in RUNNING_CATEGORIES:
                entries = [(pts, why) for cat, pts, why in board.points if cat == category]
                total = sum(p for p, _ in entries)
                # the short line is the latest scoring's reason; every scoring is the detail
                # (shown on tap); a category worth nothing says nothing
                detail: Text = join_texts(
                    [msg("{why} → {points}", why=why, points=pts) for pts, why in entries], "; "
                )
                if category in ROUND_CATEGORIES and entries:
                    note = _without_round(entries[-1][1])
                else:
                    note = detail if len(entries) == 1 else ""
                if not total:
                    note, detail = "", ""
                lines.append(
                    ScoreLine(
                        category, total, note, label=CATEGORY_LABELS.get(category), detail=detail
                    )
                )
            players.append(PlayerScore(board.name, tuple(lines)))
        winners = highest([(p.name, (p.total,)) for p in players]) if state.phase == "over" else ()
        return ScoreSheet(
            NAME, tuple(players), winners, figure_notes(state.board, state.figures_used)
        )

    def score_snapshot(self, data: Any) -> ScoreSheet:
        """The contract snapshot (``"scoring": "round" | "final"``); a full table snapshot
        (no ``scoring`` field) is scored as the running score of that table."""
        if isinstance(data, Mapping) and "scoring" not in data:
            return self.score(self.from_json(data))
        return score_contract_snapshot(data, BoardData.default())

    def problems(self, state: RussianRailroadsState) -> tuple[Problem, ...]:
        from companion.games.russian_railroads.notation import find_problems

        return find_problems(state)

    def choices(
        self, state: RussianRailroadsState, viewer: int | None = None
    ) -> tuple[Choice, ...]:
        """What the table can enter now (``companion.core.choices``)."""
        from companion.games.russian_railroads.choices import choices

        return choices(state, viewer)

    # -- owner-supplied board figures (the "board figures" page) ----------------------------
    def board_figures(self, options: Mapping[str, Any]) -> tuple[JsonObject, ...]:
        """Every figure the rulebooks do not print, as the owner's page lists it: ``key``,
        ``description``, ``value`` (``None`` unknown), ``confirmed``, ``source``, ``lo``/``hi``.
        ``options``: the game options in force (config and saved), whose ``board`` holds the
        owner's values."""
        board = BoardData.from_options(thaw(options.get("board", {})), "board")
        out: list[JsonObject] = []
        for key, fig in board.figures.items():
            lo, hi = figure_bounds(key)
            out.append(
                {
                    "key": key,
                    "description": text_json(fig.description),
                    "value": fig.value,
                    "confirmed": fig.confirmed,
                    "owner": fig.source == OWNER_SOURCE,
                    "source": text_json(fig.source),
                    "lo": lo,
                    "hi": hi,
                }
            )
        return tuple(out)

    def board_figure_options(
        self, saved: Mapping[str, Any], entered: Mapping[str, Any]
    ) -> JsonObject:
        """The saved game options with the owner's figures (``{key: value}``; ``None`` clears a
        value): checked like the ``board`` option, a bad value refused by its key."""
        figures = {k: v for k, v in dict(entered).items() if v is not None}
        BoardData.from_options(figures, "figures")
        options: JsonObject = {k: thaw(v) for k, v in saved.items() if k != "board"}
        if figures:
            options["board"] = figures
        return options

    def interpret(
        self, state: RussianRailroadsState, player: int | None, component: str
    ) -> Action | Prompt:
        from companion.games.russian_railroads.interpret import interpret

        return interpret(state, player, component)

    def to_json(self, state: RussianRailroadsState) -> JsonObject:
        from companion.games.russian_railroads.notation import state_to_json

        return state_to_json(state)

    def from_json(self, data: Any) -> RussianRailroadsState:
        from companion.games.russian_railroads.notation import state_from_json

        return state_from_json(data)


def _figure_keys(use: FigureUse) -> frozenset[str]:
    keys = set(use.used)
    if "industry_values" in keys:
        keys.discard("industry_values")
        keys.add("industry_value_1")
    return frozenset(keys)


def figure_notes(board: BoardData, keys: frozenset[str]) -> tuple[Text, ...]:
    """One visible note per unconfirmed figure that has counted."""
    notes: list[Text] = []
    if any(k.startswith("industry_value_") for k in keys):
        fig = board.figure("industry_value_1")
        if not fig.confirmed:
            notes.append(industry_values_note(fig))
    pass_keys = sorted(k for k in keys if k.startswith("pass_points_"))
    if pass_keys:
        notes.append(
            msg(
                "turn order cards' pass points ({values}), not yet checked against a box "
                "({source})",
                values=", ".join(str(board.figure(k).value) for k in pass_keys),
                source=board.figure(pass_keys[0]).source,
            )
        )
    space_keys = sorted(
        k for k in keys if k.startswith("space_workers_") and not board.figure(k).confirmed
    )
    if space_keys:
        counts = [
            msg(
                "{space}: {n}",
                space=SPACE_FIGURE_TITLES.get(k.removeprefix("space_workers_"), k),
                n=board.figure(k).value or 0,
            )
            for k in space_keys
        ]
        notes.append(
            msg(
                "action spaces' worker counts ({counts}), not yet checked against a box",
                counts=join_texts(counts, "; "),
            )
        )
    for key in sorted(k for k in keys if k.startswith("kiev_bonus_")):
        fig = board.figure(key)
        if fig.value is None:
            notes.append(unknown_figure(fig))
        elif not fig.confirmed:
            notes.append(unverified_figure(fig))
    return tuple(notes)


_DOABLE_MEMO: ContextVar[
    tuple[RussianRailroadsState, dict[tuple[int, str], IllegalActionError | None]] | None
] = ContextVar("russian_railroads_doable", default=None)


_TABLE_FIELDS: Final = tuple(
    f.name for f in fields(RussianRailroadsState) if f.name not in ("current", "acted")
)


def _same_table(a: RussianRailroadsState, b: RussianRailroadsState) -> bool:
    """The same board, whoever is marked as acting (``apply`` marks the turn before the space
    is checked): every other field the very same object."""
    return a is b or all(getattr(a, name) is getattr(b, name) for name in _TABLE_FIELDS)


@contextmanager
def doable_memo(state: RussianRailroadsState) -> Iterator[None]:
    """While it is open, whether a space's action can be done in full on ``state`` is worked
    out once per space (the choices tree applies one entry per way to pay)."""
    token = _DOABLE_MEMO.set((state, {}))
    try:
        yield
    finally:
        _DOABLE_MEMO.reset(token)


def _in_round(state: RussianRailroadsState, what: Text) -> Message:
    """Why points were scored, with the round they were scored in."""
    return msg("round {round}: {what}", round=state.round, what=what)


def _without_round(why: Text) -> Text:
    """The reason without its round ("reach 5 …" of "round 3: reach 5 …")."""
    if isinstance(why, Message) and why.msgid == "round {round}: {what}":
        what = why.param("what")
        return what if isinstance(what, str | Message) else why
    if isinstance(why, str) and ":" in why:  # a snapshot written before the messages
        return why.split(":", 1)[1].strip()
    return why


# The 2-player side of the action board is known exactly (reference sheet: two solo-helper
# apps); these spaces' worker counts are unconfirmed only on the 3–4-player side.
TWO_PLAYER_SIDE_KNOWN = frozenset(
    {"grey_3", "brown_1", "brown_2", "natural_1", "natural_2", "white_1", "white_2"}
)


STAGED_STEPS = 3
"""An "up to" rail grant this big (the 4-steps token) is spent a few steps at a time: colour,
then how many — a tap each, not every split at once."""


def _left_of(grant: Grant, text: str, kind: str, args: Field) -> str | None:
    """What a big "up to" rail grant still gives after a build that used part of it: the steps
    may be taken a few at a time, in the order the player likes (seed 000, "?" token "up to 4
    steps with any rails"; "DESTIČKY INŽENÝRŮ": the order of the steps is the player's)."""
    staged = grant.count >= STAGED_STEPS or text.endswith(":staged")
    if kind != "build" or grant.kind != "steps" or not grant.up_to or not staged:
        return None
    total = sum(m.get("steps").int(lo=1, hi=15) for m in args.get("moves").list(max_len=10))
    if total >= grant.count:
        return None
    parts = text.split(":")
    return f"{parts[0]}:{parts[1]}:{grant.count - total}:upto:staged"


def factory_builds(state: RussianRailroadsState) -> Callable[[int], bool]:
    """Whether a factory of a locomotive level may build a factory when reached (its function
    "a locomotive or a factory" (seed 000, "TOVÁRNY"), or not yet known)."""

    def builds(level: int) -> bool:
        return state.known_factory_function(level) in (None, "locomotive_or_factory")

    return builds


def _black_steps(space: ActionSpace) -> bool:
    """The space's action includes a black step (where the black worker adds one)."""
    return any(
        parse_grant(g).kind == "steps" and BLACK in parse_grant(g).colours for g in space.grants
    )


def next_active(state: RussianRailroadsState, after: int) -> int | None:
    """The next player in turn order after ``after`` who has not passed (wrapping around)."""
    order = state.turn_order
    start = order.index(after)
    for step in range(1, len(order) + 1):
        candidate = order[(start + step) % len(order)]
        if candidate not in state.passed:
            return candidate
    return None


def new_turn_order(state: RussianRailroadsState) -> tuple[int, ...]:
    """Seed 000, "URČENÍ POŘADÍ NA TAHU PRO DALŠÍ KOLO": the players with a worker on the
    turn order spaces take those positions, the others move back keeping their order; special
    case: the first player on space 2 with space 1 empty changes nothing."""
    first, second = state.turn_order_claims
    order = state.turn_order
    if first is None and second is None:
        return order
    if first is None and second == order[0]:
        return order
    claimed = {pos: who for pos, who in ((0, first), (1, second)) if who is not None}
    others = iter(p for p in order if p not in claimed.values())
    return tuple(claimed[pos] if pos in claimed else next(others) for pos in range(len(order)))


def pending_options(state: RussianRailroadsState) -> tuple[Action, ...]:
    """The answers to the first decision owed, each an action (for the table page)."""
    first = state.pending[0]
    p = first.player
    board = state.players[p]
    match first.kind:
        case "token":
            return (
                *(
                    Action("use_token", p, {"token": t})
                    for t in TOKENS
                    if t not in board.tokens_used
                ),
                Action("decline", p),
            )
        case "bonus_card":
            held = {c for b in state.players for c in b.bonus_cards}
            cards = [c for c in BONUS_CARDS if c not in held] if state.bonus_deck else []
            return (
                *(Action("bonus_card", p, {"card": c}) for c in cards),
                Action("bonus_card", p, {"points_instead": True}),
                Action("decline", p),
            )
        case "factory":
            known = state.known_factory_function(first.level)
            functions = FACTORY_FUNCTIONS if known is None else (known,)
            return tuple(Action("factory_function", p, {"function": f}) for f in functions)
        case "question_card":
            return tuple(
                Action("question_card", p, {"card": c})
                for c in state.question_cards
                if c not in ("engineer_and_coin", "locomotive_9")
            )
        case "starting_bonus":
            options: list[Action] = []
            for card in state.starting_bonus_cards:
                if card == "black_step":
                    options.extend(
                        Action("starting_bonus", p, {"card": card, "track": t}) for t in TRACKS
                    )
                else:
                    options.append(Action("starting_bonus", p, {"card": card}))
            return tuple(options)
    return (Action("pass", p),)


def describe(pending: Pending) -> Message:
    """What a player still owes the table, as the status and the prompt say it."""
    match pending.kind:
        case "token":
            return msg(
                "choose a “?” token for {space} (or decline)",
                space=token_space_message(pending.source),
            )
        case "factory":
            return msg(
                "which function does the level {level} factory show? ({functions})",
                level=pending.level or 0,
                functions=join_texts(
                    [named(FACTORY_FUNCTION_NAMES, f) for f in FACTORY_FUNCTIONS], ", "
                ),
            )
        case "bonus_card":
            return msg("take a final bonus card from the deck, or 10 points instead")
        case "question_card":
            return msg("choose one of the “?” cards")
        case "starting_bonus":
            return msg("choose a starting bonus card")
        case "turn_order_move":
            return msg(
                "move the worker from {space} to a one-worker action, or pass",
                space=source_message(pending.source),
            )
        case "space":
            return msg(
                "still to use from {source}: {gives}",
                source=source_message(pending.source),
                gives=grants_message(pending.grants),
            )
    return msg("{what}", what=pending.kind.replace("_", " "))


KIND_WORDS: dict[str, Message] = {
    "build": msg("building rails"),
    "take_locomotive": msg("taking a locomotive"),
    "build_factory": msg("building a factory"),
    "industry": msg("moving the industry marker"),
    "doublers": msg("taking doublers"),
    "hire_engineer": msg("hiring an engineer"),
    "take_space": msg("taking an action space"),
    "pass": msg("passing"),
    "use_token": msg("using a “?” token"),
    "decline": msg("declining"),
    "question_card": msg("taking a “?” card"),
    "bonus_card": msg("taking a bonus card"),
    "factory_function": msg("saying what a factory does"),
    "starting_bonus": msg("choosing a starting card"),
    "engineer_tile": msg("naming an engineer tile"),
}
"""A move's kind in words, for refusals ("Red: building rails — waiting for …")."""


def kind_words(kind: str) -> Text:
    return KIND_WORDS.get(kind, msg("this move"))


def effect_message(kind: str, args: Field) -> Text:
    """Plain words for an effect entered (for refusals)."""
    try:
        match kind:
            case "build":
                parts: list[Text] = [
                    msg(
                        "{steps} on {track}",
                        steps=steps(int(m.get("steps").value), str(m.get("colour").value)),
                        track=track_name(str(m.get("track").value)),
                    )
                    for m in args.get("moves").list(max_len=10)
                ]
                return join_texts(parts, ", ") if parts else msg("no steps")
            case "industry":
                return msg("industry +{n}", n=int(args.get("steps").value))
            case "doublers":
                n = int(args.get("count", 1).value)
                return plural("{n} doubler", "{n} doublers", "n", n=n)
    except (SnapshotError, TypeError, ValueError):
        pass
    return {
        "take_locomotive": msg("a locomotive"),
        "build_factory": msg("a factory"),
        "hire_engineer": msg("hiring the engineer"),
    }.get(kind, kind_words(kind))


GAME = RussianRailroads()


def describe_action(action: Action, names: Sequence[str]) -> Message:
    """:meth:`RussianRailroads.describe`: a sentence whatever the arguments (a malformed action
    is described by its kind, never refused here)."""
    p = action.player
    who: str = names[p] if isinstance(p, int) and 0 <= p < len(names) else "—"
    args: Any = thaw(action.args)
    args = args if isinstance(args, dict) else {}
    match action.kind:
        case "take_space":
            space = SPACE_BY_KEY.get(str(args.get("space", "")))
            if space is not None:
                return msg(
                    "{player} takes the space “{space}”", player=who, space=space_title(space)
                )
            return msg("{player} takes an action space", player=who)
        case "pass":
            return msg("{player} passes", player=who)
        case "build":
            moves = args.get("moves") if isinstance(args.get("moves"), list) else []
            parts: list[Message] = []
            for m in moves:
                if not isinstance(m, dict):
                    continue
                track = TRACK_NAMES.get(str(m.get("track")))
                colour = RAIL_COLOURS.get(str(m.get("colour")))
                steps = m.get("steps")
                if track is None or colour is None or not isinstance(steps, int):
                    continue
                parts.append(
                    plural(
                        "{n} {colour} rail on {track}",
                        "{n} {colour} rails on {track}",
                        "n",
                        n=steps,
                        colour=colour,
                        track=track,
                    )
                )
            if parts:
                return msg("{player} builds {rails}", player=who, rails=join_texts(parts, ", "))
            return msg("{player} builds rails", player=who)
        case "take_locomotive":
            return msg("{player} takes a locomotive", player=who)
        case "build_factory":
            return msg("{player} builds a factory", player=who)
        case "industry":
            steps = args.get("steps")
            if isinstance(steps, int):
                return plural(
                    "{player} moves the industry marker {n} space",
                    "{player} moves the industry marker {n} spaces",
                    "n",
                    player=who,
                    n=steps,
                )
            return msg("{player} moves the industry marker", player=who)
        case "doublers":
            return msg("{player} takes a doubler", player=who)
        case "hire_engineer":
            return msg("{player} hires an engineer", player=who)
        case "use_token":
            return msg("{player} uses a “?” token", player=who)
        case "decline":
            return msg("{player} declines", player=who)
        case "question_card":
            return msg("{player} takes a “?” card", player=who)
        case "bonus_card":
            return msg("{player} takes a bonus card", player=who)
        case "factory_function":
            return msg("{player} says what the new factory does", player=who)
        case "starting_bonus":
            return msg("{player} chooses a starting card", player=who)
        case "engineer_tile":
            place = ENGINEER_PLACE_NAMES.get(str(args.get("place")))
            ability = str(args.get("engineer", ""))
            if place is not None and ability in ENGINEERS:
                return msg(
                    "{player}: the engineer on {place} is “{engineer}”",
                    player=who,
                    place=place,
                    engineer=engineer_name(ability),
                )
            return msg("{player} names an engineer tile", player=who)
    return msg("{player} enters a move", player=who)
