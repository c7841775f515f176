"""Helpers for Russian Railroads scenarios."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from companion.core import Action, IllegalActionError, PlayerSpec
from companion.games.russian_railroads import GAME, PlayerBoard, RussianRailroadsState

NAMES = ("Red", "Blue", "Yellow", "Green")


def new_game(players: int = 4, **options: Any) -> RussianRailroadsState:
    options.setdefault("starting_bonus", False)
    return GAME.setup([PlayerSpec(n) for n in NAMES[:players]], options)


def act(state: RussianRailroadsState, kind: str, player: int, **args: Any) -> RussianRailroadsState:
    return GAME.apply(state, Action(kind, player, args))


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
