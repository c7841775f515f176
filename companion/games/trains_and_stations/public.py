"""Trains & Stations's public view (``companion.core.public``): victory points, coins, tasks
done, buildings left, dice on the board. Goods and special cards are secret and not counted
here."""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion.core.public import Moment, PublicView, build

if TYPE_CHECKING:
    from companion.games.trains_and_stations.rules import TrainsAndStations
    from companion.games.trains_and_stations.state import TSState


def public_view(game: TrainsAndStations, state: TSState) -> PublicView:
    counts = [
        (
            ("vp", p.vp),
            ("coins", p.coins),
            ("tasks", len(p.tasks)),
            ("buildings", sum(n for _, n in p.buildings_left)),
            ("dice", p.dice_on_board),
        )
        for p in state.players
    ]
    over = game.is_over(state)
    moments: list[Moment] = []
    if state.final_round and not over:
        moments.append(Moment("last_round", "last-round"))
    if over:
        moments.append(Moment("game_over", "game-over"))
    return build(game.score(state), game.status(state).waiting_for, counts, moments, over=over)
