"""Helpers for Russian Railroads scenarios."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from companion.core import Action, IllegalActionError, PlayerSpec
from companion.games.russian_railroads import GAME, PlayerBoard, RussianRailroadsState
from companion.games.russian_railroads.state import Pending

NAMES = ("Red", "Blue", "Yellow", "Green")


def new_game(players: int = 4, **options: Any) -> RussianRailroadsState:
    options.setdefault("starting_bonus", False)
    return GAME.setup([PlayerSpec(n) for n in NAMES[:players]], options)


# Board-rule scenarios enter bare effects: the helper stands in for an action space that gives
# enough (the turn-is-one-space rules have their own scenarios in test_action_board.py).
BOARD_TEST_GRANTS = {
    "build": "steps:any:15:upto",
    "take_locomotive": "locomotive_or_factory:upto",
    "build_factory": "locomotive_or_factory:upto",
    "industry": "industry:14:upto",
    "doublers": "four_repeat",
    "hire_engineer": "hire",
}
BOARD_TEST_SOURCE = "board rule scenario"


def act(state: RussianRailroadsState, kind: str, player: int, **args: Any) -> RussianRailroadsState:
    if kind not in BOARD_TEST_GRANTS or (
        state.pending and state.pending[0].kind == "space" and state.pending[0].player == player
    ):
        return GAME.apply(state, Action(kind, player, args))
    if state.pending:  # a decision is owed: the effect must be refused as before
        return GAME.apply(state, Action(kind, player, args))
    stand_in = Pending("space", player, BOARD_TEST_SOURCE, grants=(BOARD_TEST_GRANTS[kind],))
    after = GAME.apply(replace(state, pending=(stand_in,)), Action(kind, player, args))
    return replace(
        after,
        pending=tuple(
            p for p in after.pending if not (p.kind == "space" and p.source == BOARD_TEST_SOURCE)
        ),
    )


def refused(state: RussianRailroadsState, kind: str, player: int, match: str, **args: Any) -> None:
    """The action is refused with a message matching ``match`` and the state is unchanged."""
    before = GAME.to_json(state)
    with pytest.raises(IllegalActionError, match=match) as info:
        act(state, kind, player, **args)
    assert info.value.rule, "every refusal names the rule"
    assert GAME.to_json(state) == before


def with_board(state: RussianRailroadsState, player: int, **fields: Any) -> RussianRailroadsState:
    boards = list(state.players)
    boards[player] = replace(boards[player], **fields)
    return replace(state, players=tuple(boards))


def rails(
    ts: tuple[int, ...] = (1,), sp: tuple[int, ...] = (1,), kv: tuple[int, ...] = (1,)
) -> tuple[tuple[int, ...], ...]:
    def pad(values: tuple[int, ...]) -> tuple[int, ...]:
        return (*values, *(0,) * (5 - len(values)))

    return (pad(ts), pad(sp), pad(kv))


def moves(*triples: tuple[str, str, int]) -> list[dict[str, Any]]:
    return [{"track": t, "colour": c, "steps": n} for t, c, n in triples]


def board_of(state: RussianRailroadsState, player: int) -> PlayerBoard:
    return state.players[player]


def apply_effect(state: RussianRailroadsState, action: Action) -> RussianRailroadsState:
    """Apply an effect the interpreter offers as if an action space gave it."""
    return act(state, action.kind, action.player, **dict(action.args))
