"""Tables for the Mini Express scenarios."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from companion.core import Action, PlayerSpec
from companion.games import find_game
from companion.games.mini_express import MiniExpress, MiniExpressState

NAMES = ("Ann", "Ben", "Cat", "Dan", "Eva")

COMPANIES = ("leather", "lumber", "steel", "cotton")


@pytest.fixture
def game() -> MiniExpress:
    found = find_game("mini-express")
    assert isinstance(found, MiniExpress)
    return found


# starting pairs that satisfy both draft restrictions, in pick order per seat
PAIRS = (
    ("lumber", "steel"),
    ("leather", "cotton"),
    ("lumber", "leather"),
    ("steel", "cotton"),
    ("lumber", "cotton"),
)


class Table:
    """Helpers for building scenarios (the fixture ``table``)."""

    def __init__(self, game: MiniExpress) -> None:
        self.game = game

    def act(
        self, state: MiniExpressState, kind: str, player: int | None, **args: Any
    ) -> MiniExpressState:
        return self.game.apply(state, Action(kind, player, args))

    def new(self, players: int = 4, **options: Any) -> MiniExpressState:
        """A table right after setup (before the draft)."""
        return self.game.setup([PlayerSpec(n) for n in NAMES[:players]], options)

    def playing(self, players: int = 4, **options: Any) -> MiniExpressState:
        """A standard game after the draft: seat i starts with PAIRS[i]."""
        state = self.new(players, **options)
        start = options.get("start_player", 0)
        seats = [(start + i) % players for i in range(players)]
        order = [*seats, *reversed(seats)]
        picks = {i: list(PAIRS[i]) for i in range(players)}
        for seat in order:
            state = self.act(state, "draft_share", seat, company=picks[seat].pop(0))
        assert state.phase == "play"
        return state

    @staticmethod
    def company(state: MiniExpressState, name: str, **changes: Any) -> MiniExpressState:
        return state.with_company(name, replace(state.company(name), **changes))

    @staticmethod
    def influence(state: MiniExpressState, player: int, **values: int) -> MiniExpressState:
        p = state.players[player]
        infl = list(p.influence)
        for company, v in values.items():
            infl[COMPANIES.index(company)] = v
        return state.with_player(player, replace(p, influence=tuple(infl)))

    @staticmethod
    def shares(state: MiniExpressState, player: int, **values: int) -> MiniExpressState:
        p = state.players[player]
        held = list(p.shares)
        for company, v in values.items():
            held[COMPANIES.index(company)] = v
        return state.with_player(player, replace(p, shares=tuple(held)))


@pytest.fixture
def table(game: MiniExpress) -> Table:
    return Table(game)
