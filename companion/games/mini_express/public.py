"""Mini Express's public view (``companion.core.public``): each player's shares (all
companies together; the table of companies shows them one by one)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion.core.public import Moment, PublicView, build

if TYPE_CHECKING:
    from companion.games.mini_express.rules import MiniExpress
    from companion.games.mini_express.state import MiniExpressState


def public_view(game: MiniExpress, state: MiniExpressState) -> PublicView:
    counts = [(("shares", sum(p.shares)),) for p in state.players]
    over = game.is_over(state)
    moments: list[Moment] = []
    if state.end_triggered_at is not None and not over:
        moments.append(Moment("last_round", "last-round"))
    if over:
        moments.append(Moment("game_over", "game-over"))
    return build(game.score(state), game.status(state).waiting_for, counts, moments, over=over)
