"""Tiny Race's public view (``companion.core.public``): each player's space on the track."""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion.core.public import Moment, PublicView, build

if TYPE_CHECKING:
    from companion.games.tiny_race.rules import TinyRace, TinyRaceState


def public_view(game: TinyRace, state: TinyRaceState) -> PublicView:
    counts = [(("position", pos),) for pos in state.positions]
    over = game.is_over(state)
    moments = (Moment("game_over", "game-over"),) if over else ()
    return build(game.score(state), game.status(state).waiting_for, counts, moments, over=over)
