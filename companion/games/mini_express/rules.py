"""Mini Express behind the Game protocol: setup, actions, turns and the end, scoring."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from companion.core.actions import Action, Prompt
from companion.core.choices import Choice
from companion.core.errors import IllegalActionError, SnapshotError, UnknownComponentError
from companion.core.game import Component, PlayerSpec, TurnStatus
from companion.core.jsonvalue import JsonObject, thaw
from companion.core.messages import Message, Text, join_texts, msg
from companion.core.problems import Problem
from companion.core.public import PublicView
from companion.core.records import evolve
from companion.core.scoring import ScoreSheet
from companion.core.snapshot import Field
from companion.games.mini_express import notation
from companion.games.mini_express.automa import (
    automa_turn,
    build_guidance,
    chosen_company,
    parse_draw,
    setup_draw,
)
from companion.games.mini_express.board_table import Cell, ShareValueTable, cell_path
from companion.games.mini_express.data import (
    COMPANIES,
    LEVELS,
    SOLO,
    TURISTA_LAST_CITY,
    TWO_EXPERIENCED_VARIANT,
)
from companion.games.mini_express.moves import BuildReport, build, take_share
from companion.games.mini_express.names import (
    AUTOMA_TURN,
    FINAL_SCORING,
    GAME_END,
    PLAY,
    SETUP,
    SOLO_END,
    SOLO_SETUP,
    TWO_EXPERIENCED,
    cell_words,
    company_name,
)
from companion.games.mini_express.scoring import NAME, Holding, Scoring, score_holdings
from companion.games.mini_express.setup import (
    AUTOMA_SETUP_DRAWS,
    draft_share,
    finish_automa_setup,
    next_drafter,
)
from companion.games.mini_express.setup import setup as setup_state
from companion.games.mini_express.state import AUTOMA_SETUP, DRAFT, OVER, MiniExpressState
from companion.games.mini_express.state import PLAY as PLAY_PHASE


class MissingShareValueError(SnapshotError):
    """Scoring needs cells of the board table the snapshot does not give. The message is the
    contract's: ``share_values.7.2nd missing`` (then any other missing cells)."""

    def __init__(self, cells: Sequence[tuple[int, str]]) -> None:
        first, *more = cells
        also = f" (also needed: {', '.join(cell_path(c) for c in more)})" if more else ""
        super().__init__(cell_path(first), f"missing{also}")
        self.cells = tuple(cells)
        self.args = (f"{cell_path(first)} missing{also}",)


ACTIONS = (
    "draft_share",
    "automa_setup_draw",
    "take_share",
    "build",
    "automa_turn",
    "no_second_action",
    "share_values",
)
SHARE_VALUES_RULE = msg("the board's share-value table: track lengths 0–15 × 1st, 2nd, other")

KIND_WORDS: dict[str, Message] = {
    "draft_share": msg("picking a starting share"),
    "automa_setup_draw": msg("the Mašinfíra's starting draw"),
    "automa_turn": msg("the Mašinfíra's turn"),
    "take_share": msg("taking a share"),
    "build": msg("building track"),
    "no_second_action": msg("ending the turn without a second action"),
    "share_values": msg("filling the board table"),
}
"""A move's kind in words, for refusals."""


def kind_words(kind: str) -> Text:
    return KIND_WORDS.get(kind, msg("this move"))


_PARSED: dict[int, tuple[Action, Field, BuildReport | None]] = {}
"""The arguments of the actions applied lately, read once (by the action's identity; the action
is kept with them): the correction listing replays the same later actions of the log for every
correction it tries (issue 48), and reading a build's report was half of each apply."""
_PARSED_KEPT = 4096


def _args(action: Action) -> Field:
    known = _PARSED.get(id(action))
    if known is not None and known[0] is action:
        return known[1]
    args = Field(thaw(action.args), "args")  # (never changed: read only)
    if len(_PARSED) >= _PARSED_KEPT:
        _PARSED.clear()
    _PARSED[id(action)] = (action, args, None)
    return args


def _build_report(action: Action, args: Field) -> BuildReport:
    known = _PARSED.get(id(action))
    if known is not None and known[0] is action and known[2] is not None:
        return known[2]
    report = BuildReport.parse(args)  # (a refusal is not kept: it is raised again)
    if known is not None and known[0] is action:
        _PARSED[id(action)] = (action, args, report)
    return report


class MiniExpress:
    name = NAME
    title = "Mini Express"
    min_players = 1
    max_players = 5
    hidden = False
    choices_by_viewer = False
    """The choices tree is the same in every view (nothing in Mini Express is hidden):
    ``companion.service.table_choices`` builds a correction line once for every view."""
    components = tuple(
        Component(f"share-{c}", f"{c.capitalize()} share", "share") for c in COMPANIES
    )

    # -- setup ---------------------------------------------------------------------------------
    def setup(self, players: Sequence[PlayerSpec], options: Mapping[str, Any]) -> MiniExpressState:
        return setup_state(players, options)

    def describe(self, action: Action, names: Sequence[str]) -> Message:
        """The move in words for the log and the TV (``describe.py``)."""
        from companion.games.mini_express.describe import describe

        return describe(action, names)

    # -- actions -------------------------------------------------------------------------------
    def apply(self, state: MiniExpressState, action: Action) -> MiniExpressState:
        if action.kind not in ACTIONS:
            raise IllegalActionError(
                msg("Mini Express has no such move"),
                rule=msg("the moves are taking a share, building track and the Mašinfíra's turn"),
                section=PLAY,
            )
        if action.kind == "share_values":
            # not a move: the table enters cells of the board it reads, in any phase
            return self._fill_share_values(state, action)
        if state.phase == OVER:
            raise IllegalActionError(
                msg("the game is over"),
                rule=msg("no move after the end of the game"),
                section=SOLO_END if state.variant == SOLO else GAME_END,
            )
        args = _args(action)
        try:
            if state.phase == DRAFT:
                return self._draft(state, action, args)
            if state.phase == AUTOMA_SETUP:
                return self._automa_setup(state, action, args)
            return self._play(state, action, args)
        except SnapshotError as exc:
            raise IllegalActionError(f"malformed action: {exc}") from exc

    def _fill_share_values(self, state: MiniExpressState, action: Action) -> MiniExpressState:
        """ZÁVĚREČNÉ BODOVÁNÍ: a share is worth the cell of the table printed on the board in
        the row of its company's track length and the column of its owner's influence rank.
        That table is not in the rulebook (only the four cells of its "Příklad závěrečného
        bodování" are), so the table reads the cells the scoring asks for off the board and
        enters them here — during the game or after its end, when the final scoring is done.
        Only unknown cells are filled: a known cell keeps its value (undo or correct the log
        entry that set it), and the rulebook's cells cannot differ."""
        if action.player is not None:
            raise IllegalActionError(
                msg("the board table is entered by the table, not by a player"),
                rule=msg("filling the board table is not a player's move"),
                section=FINAL_SCORING,
            )
        args = Field(thaw(action.args), "args")
        try:
            args.only("cells")
            cells = args.get("cells")
            entered = ShareValueTable.parse(cells).cells()
            if not entered:
                cells.fail('no cell given, e.g. {"7": {"2nd": 5}}')
        except SnapshotError as exc:
            raise IllegalActionError(
                str(exc), rule=SHARE_VALUES_RULE, section=FINAL_SCORING
            ) from exc
        table = state.share_values.fill(entered, path=cells.path)
        if table == state.share_values:
            raise IllegalActionError(
                msg("every cell given is already known with that value"),
                rule=msg("the board table is filled once"),
                section=FINAL_SCORING,
            )
        return replace(state, share_values=table)

    def _expect(
        self,
        state: MiniExpressState,
        action: Action,
        kinds: tuple[str, ...],
        who: int | None,
        *,
        phase: Text,
        rule: Text,
        section: Text,
    ) -> None:
        if action.kind not in kinds:
            raise IllegalActionError(
                msg(
                    "{what} is not a move now ({phase}); expected: {expected}",
                    what=kind_words(action.kind),
                    phase=phase,
                    expected=join_texts([kind_words(k) for k in kinds], ", "),
                ),
                rule=rule,
                section=section,
            )
        if who is not None and action.player != who:
            raise IllegalActionError(
                msg("it is {player}'s turn", player=state.players[who].name),
                rule=msg("players take turns clockwise from the start player"),
                section=PLAY,
            )

    def _draft(self, state: MiniExpressState, action: Action, args: Field) -> MiniExpressState:
        who = next_drafter(state)
        self._expect(
            state,
            action,
            ("draft_share",),
            who,
            phase=msg("the starting share draft"),
            rule=msg("the starting shares are drafted before the first turn"),
            section=SETUP,
        )
        args.only("company")
        return draft_share(state, who if who is not None else 0, args.get("company").str(COMPANIES))

    def _automa_setup(
        self, state: MiniExpressState, action: Action, args: Field
    ) -> MiniExpressState:
        self._expect(
            state,
            action,
            ("automa_setup_draw",),
            state.automa_index,
            phase=msg("the Mašinfíra's starting shares"),
            rule=msg("the Mašinfíra draws its starting shares before the first turn"),
            section=SOLO_SETUP,
        )
        args.only("token")
        state = setup_draw(state, parse_draw(args.get("token")))
        assert state.automa is not None
        if len(state.automa.drawn) == AUTOMA_SETUP_DRAWS:
            return finish_automa_setup(state)
        return state

    def _play(self, state: MiniExpressState, action: Action, args: Field) -> MiniExpressState:
        who = state.current_player
        is_automa = state.players[who].is_automa
        kinds = ("automa_turn",) if is_automa else ("take_share", "build", "no_second_action")
        self._expect(
            state,
            action,
            kinds,
            who,
            phase=msg("play", context="phase"),
            rule=msg("the Mašinfíra's turn is played from its tokens")
            if is_automa
            else msg("on your turn: take a share or build track"),
            section=AUTOMA_TURN if is_automa else PLAY,
        )
        if action.kind == "automa_turn":
            args.only("draws", "city_number", "build")
            draws = [parse_draw(d) for d in args.get("draws").list()]
            city = args.get("city_number", None)
            city_number = None if city.value is None else city.int(lo=1, hi=99)
            report = args.get("build") if args.has("build") else None
            after = automa_turn(state, draws, city_number, report)
            company = None
        elif action.kind == "take_share":
            args.only("company")
            company = args.get("company").str(COMPANIES)
            self._check_two_experienced_company(state, company)
            after = take_share(state, who, company)
        elif action.kind == "no_second_action":
            args.only()
            return self._no_second_action(state, who)
        else:
            report_ = _build_report(action, args)
            company = report_.company
            self._check_two_experienced_company(state, company)
            after = build(state, who, report_)
        return self._end_of_action(state, after, company)

    def _no_second_action(self, state: MiniExpressState, who: int) -> MiniExpressState:
        """HRA PRO 2 ZKUŠENÉ HRÁČE, Průběh hry pro 2 zkušené hráče: the two actions of a turn
        are for two different companies (A.) and nobody may end the game with the second
        action (B.). The rulebook does not say what a player does when no second action is
        left (no other company has a train on its train field to build with, and every share
        they could take would end the game or costs more influence than they have). The turn
        is not skipped ("Není možné vynechat tah", PRŮBĚH HRY): its first action was played,
        and rule B forbids the only moves left, so the turn ends after that one action."""
        second = len(state.actions_this_turn) == 1 and state.turns_taken > 0
        if state.variant != TWO_EXPERIENCED_VARIANT or not second:
            raise IllegalActionError(
                msg("only a second action of a turn can be left out"),
                rule=msg("on your turn: take a share or build track"),
                section=TWO_EXPERIENCED if state.variant == TWO_EXPERIENCED_VARIANT else PLAY,
            )
        for c in COMPANIES:
            if c in state.actions_this_turn:
                continue
            if state.company(c).trains_on_field > 0:
                raise IllegalActionError(
                    msg(
                        "{company} has trains on its train field: build track with them",
                        company=company_name(c),
                    ),
                    rule=msg("a second action is left out only when none is possible"),
                    section=TWO_EXPERIENCED,
                )
            try:
                self._end_of_action(state, take_share(state, who, c), c)
            except IllegalActionError:
                continue
            raise IllegalActionError(
                msg("a {company} share can still be taken", company=company_name(c)),
                rule=msg("a second action is left out only when none is possible"),
                section=TWO_EXPERIENCED,
            )
        return replace(state, actions_this_turn=(), turns_taken=state.turns_taken + 1)

    # -- turns and the game end ----------------------------------------------------------------
    def _check_two_experienced_company(self, state: MiniExpressState, company: str) -> None:
        if state.variant == TWO_EXPERIENCED_VARIANT and company in state.actions_this_turn:
            raise IllegalActionError(
                msg("{company} was already used this turn", company=company_name(company)),
                rule=msg("the two actions of a turn are for two different companies"),
                section=TWO_EXPERIENCED,
            )

    def _end_of_action(
        self, before: MiniExpressState, state: MiniExpressState, company: str | None
    ) -> MiniExpressState:
        if state.variant == TWO_EXPERIENCED_VARIANT:
            return self._two_experienced_end(before, state, company)
        turn = state.turns_taken
        if (
            state.variant == SOLO
            and state.players[state.current_player].is_automa
            and state.level_at >= LEVELS.index("turista")
            and state.automa is not None
            and state.automa.city_number == TURISTA_LAST_CITY
        ):
            # Nastavení obtížnosti, Turista: the game ends at once when the city pointer
            # reaches city 32
            return replace(
                state,
                turns_taken=turn + 1,
                phase=OVER,
                ended_reason=f"the automa's city pointer reached city {TURISTA_LAST_CITY}",
            )
        triggered = state.end_triggered_at
        if triggered is None and state.exhausted_count >= 2:
            # KONEC HRY: two companies' share offers exhausted at the end of a turn
            triggered = turn
        state = evolve(state, turns_taken=turn + 1, end_triggered_at=triggered)
        if triggered is not None and state.turns_taken % len(state.players) == 0:
            # everyone has had the same number of turns: the player right of the start player
            # (the automa, when it plays) takes the last turn (KONEC HRY; Konec sólové hry)
            return replace(
                state,
                phase=OVER,
                ended_reason="two companies exhausted, equal turns played",
            )
        return state

    def _two_experienced_end(
        self, before: MiniExpressState, state: MiniExpressState, company: str | None
    ) -> MiniExpressState:
        """HRA PRO 2 ZKUŠENÉ HRÁČE: the start player's first turn is 1 action, then 2 actions a
        turn; the game ends at once when one company is exhausted, but never by a player's
        second action."""
        assert company is not None
        used = (*before.actions_this_turn, company)
        if state.exhausted_count >= 1:
            if len(before.actions_this_turn) == 1:
                raise IllegalActionError(
                    msg(
                        "this second action would end the game (a company's shares would be "
                        "exhausted)"
                    ),
                    rule=msg("nobody may end the game with the second action of a turn"),
                    section=TWO_EXPERIENCED,
                )
            return replace(
                state,
                actions_this_turn=used,
                phase=OVER,
                ended_reason="a company's share offer is exhausted",
            )
        per_turn = 1 if state.turns_taken == 0 else 2
        if len(used) == per_turn:
            return replace(state, actions_this_turn=(), turns_taken=state.turns_taken + 1)
        return replace(state, actions_this_turn=used)

    # -- scans ---------------------------------------------------------------------------------
    def interpret(
        self, state: MiniExpressState, player: int | None, component: str
    ) -> Action | Prompt:
        for c in COMPANIES:
            if component == f"share-{c}":
                if state.phase == DRAFT:
                    who = next_drafter(state) if player is None else player
                    return Action("draft_share", who, {"company": c})
                who = state.current_player if player is None else player
                return Action("take_share", who, {"company": c})
        raise UnknownComponentError(f"Mini Express has no component {component!r}")

    # -- what the table can enter now ----------------------------------------------------------
    def choices(self, state: MiniExpressState, viewer: int | None = None) -> tuple[Choice, ...]:
        """The choices tree (see ``choices.py`` beside this module)."""
        from companion.games.mini_express.choices import choices

        return choices(state, viewer)

    # -- checks --------------------------------------------------------------------------------
    def problems(self, state: MiniExpressState) -> tuple[Problem, ...]:
        return notation.problems(state)

    def is_over(self, state: MiniExpressState) -> bool:
        return state.phase == OVER

    def public_view(self, state: MiniExpressState) -> PublicView:
        """What the table sees (``companion.core.public``): every screen renders this."""
        from companion.games.mini_express.public import public_view

        return public_view(self, state)

    def status(self, state: MiniExpressState) -> TurnStatus:
        if state.phase == OVER:
            needed = self.needed_share_values(state)
            waiting: Text = (
                msg(
                    "{cells} from the board table, for the final scoring",
                    cells=join_texts([cell_words(c) for c in needed], "; "),
                )
                if needed
                else ""
            )
            return TurnStatus(phase=OVER, waiting_for=waiting, round=None)
        if state.phase == DRAFT:
            who = next_drafter(state)
            assert who is not None
            return TurnStatus(
                (who,),
                DRAFT,
                msg("{player} to pick a starting share", player=state.players[who].name),
            )
        index = state.automa_index
        if state.phase == AUTOMA_SETUP:
            assert index is not None
            return TurnStatus(
                (index,), AUTOMA_SETUP, msg("the Mašinfíra's token for its starting share")
            )
        who = state.current_player
        name = state.players[who].name
        if state.players[who].is_automa:
            assert state.automa is not None
            waiting = msg(
                "the Mašinfíra's token (company pointer on {company}); 0–2 trains on the chosen "
                "company's field: it takes a share; 3–5: it builds. {guidance}",
                company=chosen_company(state.automa),
                guidance=build_guidance(),
            )
        elif state.variant == TWO_EXPERIENCED_VARIANT:
            per_turn = 1 if state.turns_taken == 0 else 2
            waiting = msg(
                "{player}: action {n} of {total}",
                player=name,
                n=len(state.actions_this_turn) + 1,
                total=per_turn,
            )
        else:
            waiting = msg("{player}: take a share or build track", player=name)
        if state.end_triggered_at is not None:
            waiting = msg(
                "{waiting} (the game end is triggered: finishing the round)", waiting=waiting
            )
        rounds = state.turns_taken // len(state.players) + 1
        return TurnStatus((who,), PLAY_PHASE, waiting, rounds)

    # -- scoring -------------------------------------------------------------------------------
    def _holdings(self, state: MiniExpressState) -> list[Holding]:
        return [
            Holding(p.name, state.seat_from_start(i), p.shares, p.influence, p.is_automa)
            for i, p in enumerate(state.players)
        ]

    def _scoring(self, state: MiniExpressState) -> Scoring:
        return score_holdings(
            state.variant,
            state.level,
            state.share_values,
            [c.track_length for c in state.companies],
            self._holdings(state),
        )

    def needed_share_values(self, state: MiniExpressState) -> tuple[Cell, ...]:
        """The board-table cells the scoring needs now (as if the game ended now) that the
        table does not know yet, in table order."""
        return self._scoring(state).missing

    def score(self, state: MiniExpressState) -> ScoreSheet:
        """The final scoring as if the game ended now (the final score once it is over).
        Cells missing from the board table score 0, are named in the notes, and leave the
        winners open."""
        result = self._scoring(state)
        if state.phase != OVER:
            return replace(result.sheet, winners=())
        return result.sheet

    def score_snapshot(self, data: Any) -> ScoreSheet:
        """Score the contract's snapshot (or a full table snapshot)."""
        doc = Field(data)
        if doc.has("phase"):
            state = self.from_json(data)
            variant, level, table = state.variant, state.level, state.share_values
            lengths = [c.track_length for c in state.companies]
            holdings = self._holdings(state)
        else:
            variant, level, table, lengths, holdings = notation.parse_scoring_snapshot(doc)
        result = score_holdings(variant, level, table, lengths, holdings)
        if result.missing:
            raise MissingShareValueError(result.missing)
        return result.sheet

    # -- notation ------------------------------------------------------------------------------
    def to_json(self, state: MiniExpressState) -> JsonObject:
        return notation.to_json(state)

    def from_json(self, data: Any) -> MiniExpressState:
        return notation.from_json(data)


GAME = MiniExpress()

__all__ = ["GAME", "MiniExpress", "MissingShareValueError"]
