"""Helpers for Trains & Stations scenarios: a table of named players and short actions."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from companion.core import Action, PlayerSpec
from companion.games.trains_and_stations import GAME, TSState
from companion.games.trains_and_stations.state import bump


def table(*names: str, **options: Any) -> TSState:
    return GAME.setup([PlayerSpec(n) for n in names], options)


def act(state: TSState, kind: str, player: int, **args: Any) -> TSState:
    return GAME.apply(state, Action(kind, player, args))


def give(state: TSState, player: int, **changes: Any) -> TSState:
    """The same table with one player's holdings changed (goods by type via ``goods=``)."""
    p = state.players[player]
    goods = changes.pop("goods", None)
    if goods:
        for g, k in goods.items():
            p = replace(p, goods=bump(p.goods, g, k))
            state = replace(state, goods_left=bump(state.goods_left, g, -k))
    return state.with_player(player, replace(p, **changes))


def at_deliver(state: TSState) -> TSState:
    """The active player's turn moved to the delivery step (dice already resolved)."""
    return replace(state, turn=replace(state.turn, phase="deliver"))


def city(name: str, bonus: str = "vp") -> dict[str, str]:
    return {"name": name, "bonus": bonus}
