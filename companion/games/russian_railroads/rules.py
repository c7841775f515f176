"""Russian Railroads: the Game protocol over the table state.

The engine tracks EFFECTS (rail steps, a locomotive or factory taken, industry steps, doublers,
coins, workers, engineers, tokens, cards), because the full action board is not public and the
table decides which action space produced them; every effect is checked against the player
board rules (``board_rules``), and the special spaces fire by themselves. Turns, passing, the
round end with its scoring, the final scoring and the decisions the table owes (``pending``) are
tracked here. Rulebook: seed 000 (Czech, complete); seed 004 (Spanish) for the starting bonus
draft.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from companion.core.actions import Action, Prompt
from companion.core.errors import IllegalActionError, SnapshotError
from companion.core.game import Component, PlayerSpec, TurnStatus
from companion.core.jsonvalue import JsonObject, thaw
from companion.core.problems import Problem
from companion.core.scoring import PlayerScore, ScoreLine, ScoreSheet, highest
from companion.core.snapshot import Field
from companion.games.russian_railroads import board_rules as br
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
    QUESTION_CARDS,
    ROUNDS,
    START_COINS,
    STARTING_BONUS_CARDS,
    TOKENS,
    TRACKS,
    TRANS_SIBERIAN,
    BoardData,
)
from companion.games.russian_railroads.contract import NAME, score_contract_snapshot
from companion.games.russian_railroads.interpret import COMPONENTS
from companion.games.russian_railroads.scoring import (
    FigureUse,
    score_bonus_cards,
    score_engineers,
    score_round,
)
from companion.games.russian_railroads.state import (
    TOKEN_SPACE_INDUSTRY,
    Engineer,
    Pending,
    PlayerBoard,
    RussianRailroadsState,
)

S_TURN = "seed 000, POŘADÍ NA TAHU"
S_TURN_CHANGE = "seed 000, ZMĚNA NA LIŠTĚ POŘADÍ NA TAHU"
S_TURN_NEXT = "seed 000, URČENÍ POŘADÍ NA TAHU PRO DALŠÍ KOLO"
S_TURN_MOVE = "seed 000, DALŠÍ VYUŽITÍ DĚLNÍKŮ UMÍSTĚNÝCH NA AKČNÍ POLE LIŠTY POŘADÍ NA TAHU"
S_ENGINEERS = "seed 000, VYUŽITÍ SCHOPNOSTÍ INŽENÝRŮ"
S_EXTRA = "seed 000, DOPLŇKOVÉ AKCE"
S_TOKENS = "seed 000, POPIS KARET A ŽETONŮ (ŽETONY)"
S_CARDS = "seed 000, POPIS KARET A ŽETONŮ (KARTY ?)"
S_BONUS = "seed 000, KARTY CÍLOVÝCH BONUSŮ"
S_FACTORIES = "seed 000, POPIS KARET A ŽETONŮ (TOVÁRNY)"
S_START = "seed 004, Preparar (starting bonus cards: 4th, 3rd, 2nd player)"
S_LAST_ROUND = "seed 000, PŘÍPRAVA DALŠÍHO KOLA (last round tile)"
S_WORKERS = "seed 000, POPIS JEDNOHO TAHU HRÁČE"

EFFECTS = frozenset(
    {
        "build",
        "take_locomotive",
        "build_factory",
        "industry",
        "doublers",
        "gain_coins",
        "place_workers",
        "take_temporary_workers",
        "points",
        "hire_engineer",
        "turn_order",
    }
)
RESOLUTIONS = {
    "token": frozenset({"use_token", "decline"}),
    "question_card": frozenset({"question_card"}),
    "bonus_card": frozenset({"bonus_card", "decline"}),
    "factory": frozenset({"factory_function"}),
    "starting_bonus": frozenset({"starting_bonus"}),
}
ACTION_KINDS = EFFECTS | {
    "pass",
    "use_token",
    "decline",
    "question_card",
    "bonus_card",
    "factory_function",
    "starting_bonus",
}
ROUND_CATEGORIES = (TRANS_SIBERIAN, "st_petersburg", "kiev", "industry")
RUNNING_CATEGORIES = (
    *ROUND_CATEGORIES,
    "pass",
    "terminus",
    "actions",
    "bonus_cards",
    "engineers",
)


def refuse(message: str, rule: str = "", section: str = "") -> IllegalActionError:
    return IllegalActionError(message, rule=rule, section=section)


class RussianRailroads:
    name = NAME
    title = "Russian Railroads"
    min_players = 2
    max_players = 4
    hidden = False
    components: tuple[Component, ...] = COMPONENTS

    # -- setup ------------------------------------------------------------------------------
    def setup(
        self, players: Sequence[PlayerSpec], options: Mapping[str, Any]
    ) -> RussianRailroadsState:
        n = len(players)
        if not self.min_players <= n <= self.max_players:
            raise refuse(f"{n} players; Russian Railroads takes 2–4", "player count")
        opts = Field(dict(options), "options")
        opts.only("turn_order", "board", "starting_bonus", "engineer_row")
        order_doc = opts.get("turn_order", list(range(n)))
        order = tuple(i.int(lo=0, hi=n - 1) for i in order_doc.list(max_len=n))
        if sorted(order) != list(range(n)):
            order_doc.fail(f"a turn order lists every player 0–{n - 1} once")
        board = BoardData.from_options(opts.get("board", {}).value)
        draft = opts.get("starting_bonus", True).bool()
        # Engineers dealt: 4 B + 3 A with 4 players, 3 + 3 with 2–3 (seed 000 setup step 9,
        # "ÚPRAVA PRO HRU DVOU A TŘÍ HRÁČŮ"); the table may say which, left to right.
        row_doc = opts.get("engineer_row", [])
        row = tuple(e.str(frozenset(ENGINEERS)) for e in row_doc.list(max_len=7))
        if row and len(row) != (7 if n == 4 else 6):
            row_doc.fail(f"{7 if n == 4 else 6} engineers are dealt with {n} players")
        if len(set(row)) != len(row):
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
                f"unknown action {action.kind!r}; Russian Railroads knows "
                f"{', '.join(sorted(ACTION_KINDS))}",
                "the game knows these effects",
            )
        if state.phase == "over":
            raise refuse("the game is over", "the game ends after the final scoring")
        p = action.player
        if not isinstance(p, int) or not 0 <= p < len(state.players):
            raise refuse(
                f"player {p!r}: name a player 0–{len(state.players) - 1}",
                "every effect belongs to a player at the table",
            )
        args = Field(thaw(action.args), "args")
        try:
            state = self._check_turn(state, p, action.kind)
            state = getattr(self, f"_do_{action.kind}")(state, p, args)
        except SnapshotError as exc:  # malformed arguments are refused like illegal moves
            raise refuse(str(exc), "action arguments") from exc
        return self._after(state)

    # -- whose turn -------------------------------------------------------------------------
    def _check_turn(self, state: RussianRailroadsState, p: int, kind: str) -> RussianRailroadsState:
        name = state.players[p].name
        if state.pending:
            first = state.pending[0]
            who = state.players[first.player].name
            if first.kind == "turn_order_move":
                if p != first.player or (kind not in EFFECTS and kind != "pass"):
                    raise refuse(
                        f"{name}: {kind} — waiting for {who} to use the worker from the turn "
                        "order space (one more one-worker action, then pass)",
                        "after the round, the turn order workers move, space 2 first",
                        S_TURN_MOVE,
                    )
                return state
            allowed = RESOLUTIONS[first.kind]
            if p != first.player or kind not in allowed:
                raise refuse(
                    f"{name}: {kind} — waiting for {who} to decide: {describe(first)}",
                    "a decision owed is made before play goes on",
                )
            return state
        if kind in (
            "decline",
            "question_card",
            "bonus_card",
            "factory_function",
            "starting_bonus",
        ) or (kind == "use_token" and state.phase != "play"):
            raise refuse(
                f"{name}: {kind} — no such decision is owed",
                "a choice is made only when a space, token or card asks for it",
            )
        if state.phase != "play":
            raise refuse(
                f"{name}: {kind} during {state.phase}",
                "the starting bonus draft comes before the first round",
                S_START,
            )
        if p in state.passed:
            raise refuse(
                f"{name} has passed this round",
                "a player who passed is out of the round",
                S_TURN,
            )
        if state.current is None or p == state.current:
            return replace(state, current=p, acted=True)
        following = next_active(state, state.current)
        if p != following or not state.acted:
            expected = state.players[following].name if following is not None else "nobody"
            raise refuse(
                f"{name} acted, but it is {state.players[state.current].name}'s turn "
                f"(next: {expected})",
                "players take turns in turn order",
                S_TURN,
            )
        return replace(state, current=p, acted=True)

    # -- effects ----------------------------------------------------------------------------
    def _board(
        self, state: RussianRailroadsState, p: int, outcome: br.Outcome
    ) -> RussianRailroadsState:
        boards = list(state.players)
        boards[p] = outcome.board
        return replace(
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
            "the locomotive supply is empty",
            "a locomotive or factory is taken from the supply",
            br.S_LOCO_TAKE,
        )

    def _take_supply(self, state: RussianRailroadsState, level: int) -> RussianRailroadsState:
        supply = list(state.locomotive_supply)
        supply[level - 1] -= 1
        return replace(state, locomotive_supply=tuple(supply))

    def _do_take_locomotive(
        self, state: RussianRailroadsState, p: int, args: Field
    ) -> RussianRailroadsState:
        """Take the lowest-level locomotive in the supply and place it, with the chain of
        displaced locomotives (seed 000, "ZÍSKÁVÁNÍ LOKOMOTIV", "ZVÝŠENÍ VÝKONU LOKOMOTIVY")."""
        args.only("placements", "level", "source")
        level = self._lowest(state)
        if args.has("level") and args.get("level").int(lo=1, hi=9) != level:
            raise refuse(
                f"a level-{args.get('level').value} locomotive was named, but the lowest in "
                f"the supply is {level}",
                "players take the lowest-level locomotive still in the supply",
                br.S_LOCO_TAKE,
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
                    f"level {args.get('level').value} named, but the lowest in the supply is "
                    f"{level}",
                    "a factory from the supply is the lowest-level locomotive turned over; "
                    "any returned factory may be chosen instead",
                    br.S_LOCO_TAKE,
                )
            state = self._take_supply(state, level)
        else:
            level = args.get("level").int(lo=1, hi=9)
            if level not in state.returned_factories:
                raise refuse(
                    f"no level-{level} factory has been returned to the supply",
                    "a returned factory can be chosen only if it is there",
                    br.S_LOCO_TAKE,
                )
            returned = list(state.returned_factories)
            returned.remove(level)
            state = replace(state, returned_factories=tuple(returned))
        return self._board(state, p, br.add_factory(state.players[p], level, slot))

    def _do_industry(
        self, state: RussianRailroadsState, p: int, args: Field
    ) -> RussianRailroadsState:
        """``{"steps": n, "marker": 1|2}`` (seed 000, "PRŮMYSLOVÝ ROZVOJ")."""
        args.only("steps", "marker", "source")
        steps = args.get("steps").int(lo=1, hi=INDUSTRY_LAST)
        marker = args.get("marker", 1).int(lo=1, hi=2) - 1
        outcome = br.industry_steps(state.players[p], p, marker, steps, self._token_space(state))
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
                f"{count} doubler(s) wanted, {state.doubler_supply} left in the supply",
                "the 20 doublers are deliberately limited",
                br.S_DOUBLERS,
            )
        board = state.players[p]
        placed = br.add_doublers(board, min(count, state.doubler_supply), up_to=up_to)
        used = placed.doublers - board.doublers
        state = replace(state, doubler_supply=state.doubler_supply - used)
        return self._board(state, p, br.Outcome(placed))

    def _do_gain_coins(
        self, state: RussianRailroadsState, p: int, args: Field
    ) -> RussianRailroadsState:
        """Coins from the bank (2-coins space, a factory, a starting card); unlimited (seed 000
        setup, footnote 2)."""
        args.only("count", "source")
        count = args.get("count").int(lo=1, hi=10)
        board = state.players[p]
        return self._board(state, p, br.Outcome(replace(board, coins=board.coins + count)))

    def _do_place_workers(
        self, state: RussianRailroadsState, p: int, args: Field
    ) -> RussianRailroadsState:
        """Workers, temporary workers and coins put on an action space (seed 000, "POPIS
        JEDNOHO TAHU HRÁČE", "DALŠÍ AKCE": a coin may stand in for a worker). Optional: the
        engine works from effects alone."""
        args.only("workers", "temporary", "coins", "space")
        workers = args.get("workers", 0).int(lo=0, hi=4)
        temporary = args.get("temporary", 0).int(lo=0, hi=2)
        coins = args.get("coins", 0).int(lo=0, hi=4)
        if workers + temporary + coins == 0:
            args.fail("place at least one worker or coin")
        board = state.players[p]
        own_left = board.workers(len(state.players)) - board.workers_used
        if workers > own_left:
            raise refuse(
                f"{board.name} places {workers} worker(s) with {own_left} left",
                "workers come from the player's own supply",
                S_WORKERS,
            )
        if temporary > board.temporary - board.temporary_used:
            raise refuse(
                f"{board.name} has {board.temporary - board.temporary_used} temporary workers",
                "temporary workers come from the 2-temporary-workers space, this round only",
                S_EXTRA,
            )
        if coins > board.coins:
            raise refuse(
                f"{board.name} places {coins} coin(s) with {board.coins}",
                "coins come from the player's own supply",
                S_EXTRA,
            )
        board = replace(
            board,
            workers_used=board.workers_used + workers,
            temporary_used=board.temporary_used + temporary,
            coins=board.coins - coins,
        )
        return self._board(state, p, br.Outcome(board))

    def _do_take_temporary_workers(
        self, state: RussianRailroadsState, p: int, args: Field
    ) -> RussianRailroadsState:
        """The two temporary workers, usable this round only (seed 000, "2 SEZÓNÍ DĚLNÍCI");
        the space is taken once a round (and cannot be repeated)."""
        args.only("source")
        if state.temporary_taken:
            raise refuse(
                "the temporary workers are already taken this round",
                "each action space is used once a round; this one cannot be repeated",
                S_EXTRA,
            )
        board = state.players[p]
        state = replace(state, temporary_taken=True)
        return self._board(state, p, br.Outcome(replace(board, temporary=board.temporary + 2)))

    def _do_points(
        self, state: RussianRailroadsState, p: int, args: Field
    ) -> RussianRailroadsState:
        """Points an engineer gives with its action (3 or 5; seed 000, "DESTIČKY INŽENÝRŮ")."""
        args.only("points", "reason", "source")
        points = args.get("points").int(lo=1, hi=5)
        reason = args.get("reason", "engineer").str()
        return self._add_points(state, p, "actions", points, reason)

    def _add_points(
        self, state: RussianRailroadsState, p: int, category: str, points: int, why: str
    ) -> RussianRailroadsState:
        board = state.players[p]
        board = replace(board, points=(*board.points, (category, points, why)))
        return self._board(state, p, br.Outcome(board))

    def _hire(
        self, state: RussianRailroadsState, p: int, number: int, ability: str
    ) -> RussianRailroadsState:
        taken = {e.number for b in state.players for e in b.engineers}
        if number in taken:
            raise refuse(
                f"engineer {number} is already hired",
                "each engineer tile exists once",
                S_ENGINEERS,
            )
        board = state.players[p]
        board = replace(board, engineers=(*board.engineers, Engineer(number, ability)))
        return self._board(state, p, br.Outcome(board))

    def _engineer_args(self, args: Field) -> tuple[int, str]:
        number = args.get("number").int(lo=1, hi=99)
        ability = args.get("ability", "").str(frozenset({"", *ENGINEERS}))
        return number, ability

    def _do_hire_engineer(
        self, state: RussianRailroadsState, p: int, args: Field
    ) -> RussianRailroadsState:
        """Hire the engineer on the rightmost space (seed 000, "VYUŽITÍ SCHOPNOSTÍ INŽENÝRŮ"):
        at most one a round; ``{"number": n}`` as printed on the tile."""
        args.only("number", "ability", "source")
        if state.engineer_hired:
            raise refuse(
                "this round's engineer is already hired",
                "at most one engineer can be hired each round",
                S_ENGINEERS,
            )
        number, ability = self._engineer_args(args)
        if state.engineer_row:
            available = state.engineer_row[-1]
            if ability and ability != available:
                raise refuse(
                    f"engineer '{ability}' named, but the one on the hiring space is '{available}'",
                    "only the rightmost engineer can be hired",
                    S_ENGINEERS,
                )
            ability = available
        return replace(self._hire(state, p, number, ability), engineer_hired=True)

    def _do_turn_order(
        self, state: RussianRailroadsState, p: int, args: Field
    ) -> RussianRailroadsState:
        """A worker under turn order space 1 or 2 (seed 000, "ZMĚNA NA LIŠTĚ POŘADÍ NA TAHU"):
        never under one's own marker (allowed with 2 players, whose board side has only space
        1), never both spaces; not in the last round (the last round tile replaces it)."""
        args.only("space", "source")
        space = args.get("space").int(lo=1, hi=2)
        n = len(state.players)
        if state.round == state.rounds:
            raise refuse(
                "turn order space in the last round",
                "in the last round the turn order space is replaced by industry +3",
                S_LAST_ROUND,
            )
        if n == 2 and space == 2:
            raise refuse(
                "turn order space 2 with 2 players", "the 2-player side has one turn order space"
            )
        if state.turn_order_claims[space - 1] is not None:
            raise refuse(
                f"turn order space {space} is taken this round", "an action space is used once"
            )
        if p in state.turn_order_claims:
            raise refuse(
                f"{state.players[p].name} already has a worker on the turn order track",
                "a player never takes both turn order spaces",
                "seed 004, ¿Cómo avanzar en el seguimiento de órdenes de turno?",
            )
        if n > 2 and state.position(p) == space:
            raise refuse(
                f"{state.players[p].name} is already on turn order space {space}",
                "no worker under one's own marker (allowed only with 2 players)",
                S_TURN_CHANGE,
            )
        claims = list(state.turn_order_claims)
        claims[space - 1] = p
        return replace(state, turn_order_claims=tuple(claims))

    # -- passing and the round end ----------------------------------------------------------
    def _do_pass(self, state: RussianRailroadsState, p: int, args: Field) -> RussianRailroadsState:
        """Pass: out of the round, with the points on the back of the turn order card (seed
        000, "LIŠTA POŘADÍ NA TAHU"). After the round, ``pass`` also ends a turn order
        worker's extra action."""
        args.only()
        if state.pending and state.pending[0].kind == "turn_order_move":
            return replace(state, pending=state.pending[1:])
        position = state.position(p)
        figure = state.board.figure(f"pass_points_{position}")
        if not figure.confirmed:
            state = replace(state, figures_used=state.figures_used | {figure.key})
        state = replace(state, passed=state.passed | {p})
        if figure.value:
            state = self._add_points(
                state,
                p,
                "pass",
                figure.value,
                f"round {state.round}: passed from position {position}",
            )
        following = next_active(state, p)
        return replace(state, current=following, acted=False)

    def _after(self, state: RussianRailroadsState) -> RussianRailroadsState:
        """Move the game along once nothing is owed: the draft ends; all passed → the new turn
        order and the turn order workers' moves; then the round's scoring."""
        if state.pending:
            return state
        if state.phase == "draft":
            return replace(state, phase="play", current=state.turn_order[0])
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
            state = replace(state, turn_order=order, phase="after_round", pending=moves)
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
                (line.category, line.points, f"round {state.round}: {line.note}") for line in lines
            )
            boards.append(replace(board, points=points))
        used = state.figures_used | _figure_keys(use)
        if state.round == state.rounds:
            inputs = [b.scoring_input() for b in boards]
            engineer_lines = score_engineers(inputs)
            final = []
            for board, inp, eng in zip(boards, inputs, engineer_lines, strict=True):
                card = score_bonus_cards(inp)
                extra = (
                    ("bonus_cards", card.points, f"final: {card.note}"),
                    ("engineers", eng.points, f"final: {eng.note}"),
                )
                final.append(replace(board, points=board.points + extra))
            return replace(
                state, players=tuple(final), phase="over", current=None, figures_used=used
            )
        fresh = tuple(replace(b, workers_used=0, temporary=0, temporary_used=0) for b in boards)
        return replace(
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
            state = replace(state, pending=state.pending[1:])
        else:
            # The industry token space is not public: the table declares it fired.
            if args.get("space", "").value != TOKEN_SPACE_INDUSTRY:
                raise refuse(
                    f"{board.name}: no token space has fired",
                    "a token is used when a token space fires",
                    br.S_SPECIAL,
                )
            known = self._token_space(state)
            if known is not None or TOKEN_SPACE_INDUSTRY in board.token_spaces:
                raise refuse(
                    "the industry token space is known or already used",
                    "each token space is used once",
                    br.S_SPECIAL,
                )
            board = replace(board, token_spaces=(*board.token_spaces, TOKEN_SPACE_INDUSTRY))
            state = self._board(state, p, br.Outcome(board))
        if token in board.tokens_used:
            raise refuse(
                f"{board.name} has already used the {token} token",
                "each token can be used once a game",
                S_TOKENS,
            )
        board = replace(board, tokens_used=(*board.tokens_used, token))
        state = self._board(state, p, br.Outcome(board))
        match token:
            case "three_doublers":
                return self._place_doublers(state, p, 3, up_to=True)
            case "revaluation":
                return self._board(state, p, br.Outcome(replace(board, revaluation=True)))
            case "kiev_medal":
                return self._board(state, p, br.Outcome(replace(board, kiev_medal=True)))
            case "second_industry_marker":
                if 0 in board.industry:
                    raise refuse(
                        "a marker stands on industry space 0",
                        "the two industry markers never share a space",
                        br.S_SECOND_MARKER,
                    )
                return self._board(
                    state, p, br.Outcome(replace(board, industry=(*board.industry, 0)))
                )
            case "question_card":
                return replace(state, pending=(Pending("question_card", p, token), *state.pending))
        return state  # four_steps, industry_five: the table enters the steps next

    def _do_decline(
        self, state: RussianRailroadsState, p: int, args: Field
    ) -> RussianRailroadsState:
        """Decline a "may": a token space ("můžete si vybrat") or a bonus card from the deck."""
        args.only()
        return replace(state, pending=state.pending[1:])

    def _do_question_card(
        self, state: RussianRailroadsState, p: int, args: Field
    ) -> RussianRailroadsState:
        """Take one "?" card (seed 000, "KARTY ?"), then look through the bonus deck."""
        args.only("card", "number", "placements")
        card = args.get("card").str(frozenset(QUESTION_CARDS))
        if card not in state.question_cards:
            raise refuse(f"the {card} '?' card is gone", "each '?' card is taken once", S_CARDS)
        state = replace(
            state,
            question_cards=tuple(c for c in state.question_cards if c != card),
            pending=(Pending("bonus_card", p, "question_card"), *state.pending[1:]),
        )
        board = state.players[p]
        match card:
            case "engineer_and_coin":
                number, _ = self._engineer_args(args)
                state = self._hire(state, p, number, "")
                board = state.players[p]
                return self._board(state, p, br.Outcome(replace(board, coins=board.coins + 1)))
            case "black_worker":
                board = replace(board, black_worker=True, extra_workers=board.extra_workers + 1)
                return self._board(state, p, br.Outcome(board))
            case "locomotive_9":
                outcome = br.place_locomotive(
                    board, p, 9, self._placements(args.get("placements")), self._token_space(state)
                )
                return self._board(state, p, outcome)
        return state  # four_actions, factory_and_industry: the table enters the effects

    def _do_bonus_card(
        self, state: RussianRailroadsState, p: int, args: Field
    ) -> RussianRailroadsState:
        """A final bonus card from the deck, or 10 points instead (seed 000, "KARTY CÍLOVÝCH
        BONUSŮ")."""
        args.only("card", "points_instead")
        state = replace(state, pending=state.pending[1:])
        if args.get("points_instead", False).bool():
            return self._add_points(
                state, p, "bonus_cards", BONUS_CARD_INSTEAD_POINTS, "10 points instead of a card"
            )
        card = args.get("card").str(frozenset(BONUS_CARDS))
        held = [b.name for b in state.players if card in b.bonus_cards]
        if held:
            raise refuse(f"{held[0]} already holds {card}", "each bonus card exists once", S_BONUS)
        if state.bonus_deck == 0:
            raise refuse("the bonus deck is empty", "cards come from the deck", S_BONUS)
        board = state.players[p]
        state = replace(state, bonus_deck=state.bonus_deck - 1)
        return self._board(
            state, p, br.Outcome(replace(board, bonus_cards=(*board.bonus_cards, card)))
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
                f"level-{first.level} factories show {known}, not {function}",
                "locomotives of the same level are factories with the same function",
                "seed 000, TOVÁRNY",
            )
        if known is None:
            state = replace(
                state, factory_functions=(*state.factory_functions, (first.level, function))
            )
        state = replace(state, pending=state.pending[1:])
        board = state.players[p]
        why = f"factory (level {first.level})"
        match function:
            case "engineer_number_points":
                total = sum(e.number for e in board.engineers)
                return (
                    self._add_points(state, p, "actions", total, f"{why}: engineer numbers")
                    if total
                    else state
                )
            case "industry_step":
                try:
                    outcome = br.industry_steps(board, p, first.marker, 1, self._token_space(state))
                except IllegalActionError:
                    return state  # "Není-li to možné, akce propadá" — the function is lost
                return self._board(state, p, outcome)
            case "bonus_card_or_10":
                return replace(state, pending=(Pending("bonus_card", p, "factory"), *state.pending))
            case "coin":
                return self._board(state, p, br.Outcome(replace(board, coins=board.coins + 1)))
            case "two_doublers":
                return self._place_doublers(state, p, 2, up_to=True)
            case "best_two_locomotives_points":
                levels = sorted((lv for t in TRACKS for lv in board.locos(t)), reverse=True)
                total = sum(levels[:2])
                return self._add_points(state, p, "actions", total, f"{why}: best two locomotives")
        return state  # locomotive_or_factory, repeat_action, two_any_steps: entered as effects

    def _do_starting_bonus(
        self, state: RussianRailroadsState, p: int, args: Field
    ) -> RussianRailroadsState:
        """Starting bonus cards, drafted 4th → 2nd in turn order (seed 004, Preparar; cards:
        seed 000, "POČÁTEČNÍ PRÉMIOVÉ KARTY")."""
        args.only("card", "track")
        card = args.get("card").str(frozenset(STARTING_BONUS_CARDS))
        if card not in state.starting_bonus_cards:
            raise refuse(f"the {card} starting card is taken", "each card is taken once", S_START)
        state = replace(
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
        return self._board(state, p, br.Outcome(replace(board, coins=board.coins + 1)))

    # -- views ------------------------------------------------------------------------------
    def is_over(self, state: RussianRailroadsState) -> bool:
        return state.phase == "over"

    def status(self, state: RussianRailroadsState) -> TurnStatus:
        if state.phase == "over":
            return TurnStatus(phase="over", round=state.round)
        if state.pending:
            first = state.pending[0]
            return TurnStatus(
                active_players=(first.player,),
                phase=state.phase,
                waiting_for=f"{state.players[first.player].name}: {describe(first)}",
                round=state.round,
                prompt=Prompt(describe(first), first.player, pending_options(state)),
            )
        current = state.current if state.current is not None else state.turn_order[0]
        following = next_active(state, current)
        return TurnStatus(
            active_players=(current,),
            phase=state.phase,
            waiting_for=f"{state.players[current].name} to act or pass"
            + (f" (then {state.players[following].name})" if following is not None else ""),
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
                if category in ROUND_CATEGORIES and entries:
                    rounds = ", ".join(why.split(":", 1)[0] + f": {pts}" for pts, why in entries)
                    note = f"{rounds} (latest {entries[-1][1]})"
                else:
                    note = "; ".join(f"{why} → {pts}" for pts, why in entries)
                lines.append(ScoreLine(category, sum(p for p, _ in entries), note))
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


def figure_notes(board: BoardData, keys: frozenset[str]) -> tuple[str, ...]:
    """One visible note per unconfirmed figure that has counted."""
    notes = []
    if any(k.startswith("industry_value_") for k in keys):
        fig = board.figure("industry_value_1")
        if not fig.confirmed:
            notes.append(
                "board data unverified: industry track values 1, 2, 3, 5, 10, 15, 20, 25, 30 "
                f"({fig.source})"
            )
    pass_keys = sorted(k for k in keys if k.startswith("pass_points_"))
    if pass_keys:
        values = ", ".join(str(board.figure(k).value) for k in pass_keys)
        notes.append(
            f"board data unverified: turn order card pass points ({values}) "
            f"({board.figure(pass_keys[0]).source})"
        )
    for key in sorted(k for k in keys if k.startswith("kiev_bonus_")):
        fig = board.figure(key)
        if fig.value is None:
            notes.append(f"board data unknown: {fig.description} — not counted")
        elif not fig.confirmed:
            notes.append(f"board data unverified: {fig.description} = {fig.value} ({fig.source})")
    return tuple(notes)


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


def describe(pending: Pending) -> str:
    match pending.kind:
        case "token":
            return f"choose a '?' token for the token space {pending.source} (or decline)"
        case "factory":
            return (
                f"which function does the level-{pending.level} factory show? "
                f"({', '.join(FACTORY_FUNCTIONS)})"
            )
        case "bonus_card":
            return "take a final bonus card from the deck, or 10 points instead"
        case "question_card":
            return "choose one of the '?' cards"
        case "starting_bonus":
            return "choose a starting bonus card"
        case "turn_order_move":
            return f"move the worker from {pending.source} to a one-worker action, then pass"
    return pending.kind


GAME = RussianRailroads()
