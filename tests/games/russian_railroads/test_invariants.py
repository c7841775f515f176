"""Property tests: any sequence of effects the engine accepts keeps every board invariant
(colour order, at most 8 doublers, industry gaps, locomotive and doubler counts), a refused
effect changes nothing, and scoring never throws."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.core import Action, IllegalActionError, PlayerSpec
from companion.games.russian_railroads import GAME, RussianRailroadsState
from companion.games.russian_railroads.board_data import (
    BONUS_CARDS,
    COLOURS,
    DEFAULT_BOARD,
    FACTORY_FUNCTIONS,
    QUESTION_CARDS,
    STARTING_BONUS_CARDS,
    TOKENS,
    TRACKS,
)
from companion.games.russian_railroads.contract import score_contract_snapshot
from companion.games.russian_railroads.interpret import placement_options

KINDS = (
    "build",
    "build",
    "build",
    "take_locomotive",
    "build_factory",
    "industry",
    "industry",
    "doublers",
    "pass",
    "turn_order",
    "hire_engineer",
    "use_token",
    "decline",
    "factory_function",
    "bonus_card",
    "question_card",
    "starting_bonus",
    "place_workers",
    "take_temporary_workers",
)


def draw_action(data: st.DataObject, state: RussianRailroadsState) -> Action:
    status = GAME.status(state)
    players = len(state.players)
    player = (
        status.active_players[0]
        if status.active_players and data.draw(st.integers(0, 9)) > 0
        else data.draw(st.integers(0, players - 1))
    )
    pending = state.pending[0].kind if state.pending else None
    kind_choices = KINDS
    if pending == "factory":
        kind_choices = ("factory_function",)
    elif pending == "token":
        kind_choices = ("use_token", "decline")
    elif pending == "question_card":
        kind_choices = ("question_card",)
    elif pending == "bonus_card":
        kind_choices = ("bonus_card", "decline")
    elif pending == "starting_bonus":
        kind_choices = ("starting_bonus",)
    kind = data.draw(st.sampled_from(kind_choices))
    args: dict[str, Any] = {}
    board = state.players[player]
    if kind == "build":
        args["moves"] = [
            {
                "track": data.draw(st.sampled_from(TRACKS)),
                "colour": data.draw(st.sampled_from(COLOURS[:4])),
                "steps": data.draw(st.integers(1, 4)),
            }
            for _ in range(data.draw(st.integers(1, 2)))
        ]
    elif kind == "take_locomotive" or (kind == "question_card" and data.draw(st.booleans())):
        lowest = next((lv for lv, n in enumerate(state.locomotive_supply, 1) if n), 9)
        options = placement_options(board, 9 if kind == "question_card" else lowest)
        if options:
            args["placements"] = data.draw(st.sampled_from(options))
        if kind == "question_card":
            args["card"] = "locomotive_9"
    elif kind == "build_factory":
        if state.returned_factories and data.draw(st.booleans()):
            args = {
                "from": "returned",
                "level": data.draw(st.sampled_from(state.returned_factories)),
            }
        if len(board.factories) == 5:
            args["replace_slot"] = data.draw(st.integers(1, 5))
    elif kind == "industry":
        args = {"steps": data.draw(st.integers(1, 3)), "marker": data.draw(st.integers(1, 2))}
    elif kind == "doublers":
        args = {"count": data.draw(st.integers(1, 3))}
    elif kind == "turn_order":
        args = {"space": data.draw(st.integers(1, 2))}
    elif kind == "hire_engineer":
        args = {"number": data.draw(st.integers(1, 15))}
    elif kind == "use_token":
        args = {"token": data.draw(st.sampled_from(TOKENS))}
    elif kind == "factory_function":
        args = {"function": data.draw(st.sampled_from(FACTORY_FUNCTIONS))}
    elif kind == "bonus_card":
        args = (
            {"points_instead": True}
            if data.draw(st.booleans())
            else {"card": data.draw(st.sampled_from(BONUS_CARDS))}
        )
    elif kind == "question_card":
        args = {
            "card": data.draw(st.sampled_from(QUESTION_CARDS)),
            "number": data.draw(st.integers(1, 15)),
        }
    elif kind == "starting_bonus":
        args = {"card": data.draw(st.sampled_from(STARTING_BONUS_CARDS)), "track": "kiev"}
    elif kind == "place_workers":
        args = {"workers": data.draw(st.integers(0, 2)), "coins": data.draw(st.integers(0, 1))}
    return Action(kind, player, args)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data(), players=st.integers(2, 4))
def test_legal_effects_keep_the_board_invariants(data: st.DataObject, players: int) -> None:
    state = GAME.setup([PlayerSpec(f"P{i}") for i in range(players)], {})
    for _ in range(data.draw(st.integers(10, 120))):
        if GAME.is_over(state):
            break
        action = draw_action(data, state)
        before = GAME.to_json(state)
        try:
            state = GAME.apply(state, action)
        except IllegalActionError:
            assert GAME.to_json(state) == before
            continue
        assert GAME.problems(state) == (), (action, GAME.problems(state))
        for board in state.players:
            assert board.doublers <= 8
        sheet = GAME.score(state)
        assert all(p.total >= 0 for p in sheet.players)
    assert GAME.from_json(GAME.to_json(state)) == state


@settings(max_examples=100, deadline=None)
@given(
    ts=st.lists(st.integers(0, 15), min_size=5, max_size=5),
    locos=st.lists(st.integers(1, 9), max_size=2),
    doublers=st.integers(0, 8),
    revaluation=st.booleans(),
    factories=st.integers(0, 5),
    industry=st.integers(0, 14),
)
def test_scoring_any_valid_board_never_throws(
    *,
    ts: list[int],
    locos: list[int],
    doublers: int,
    revaluation: bool,
    factories: int,
    industry: int,
) -> None:
    # make the rails a valid descending chain: black ≥ 1, each later colour strictly behind
    rails: dict[str, int] = {}
    ahead = 16
    for colour, drawn in zip(COLOURS, sorted(ts, reverse=True), strict=True):
        pos = min(drawn, ahead - 1)
        if colour == "black":
            pos = max(pos, 1)
        if pos <= 0:
            break
        rails[colour] = pos
        ahead = pos
    # a colour only once black has reached its Trans-Siberian space (2, 6, 10, 15)
    unlock = {"grey": 2, "brown": 6, "natural": 10, "white": 15}
    rails = {c: p for c, p in rails.items() if rails["black"] >= unlock.get(c, 0)}
    if locos.count(1) > 1:  # one level-1 locomotive, the start one
        locos = [1, 2]
    industry = min(industry, 4 + 2 * factories)
    snapshot = {
        "game": "russian-railroads",
        "format": 1,
        "scoring": "final",
        "players": [
            {
                "name": "A",
                "rails": {"trans_siberian": rails},
                "locomotives": {"trans_siberian": locos},
                "doublers": doublers,
                "revaluation": revaluation,
                "factories": factories,
                "industry": [industry],
                "engineers": [],
                "bonus_cards": list(BONUS_CARDS[:8]),
                "extra_workers": 3,
                "tokens_used": 4,
            }
        ],
    }
    sheet = score_contract_snapshot(snapshot, DEFAULT_BOARD)
    player = sheet.players[0]
    assert player.total == sum(line.points for line in player.lines)
    assert player.points("trans_siberian") >= 0
