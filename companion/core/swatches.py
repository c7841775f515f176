"""The colours a choice or a question's answer may show beside its words (a swatch).

Games name them; pages draw them. A name outside :data:`SWATCHES` is a game's bug, refused where
the choice is built, so no page ever meets a colour it cannot draw.
"""

from __future__ import annotations

from collections.abc import Sequence

SWATCHES: frozenset[str] = frozenset(
    (
        *("purple", "white", "blue", "yellow", "orange", "black", "red", "green", "grey"),
        *("brown", "natural", "rainbow"),
    )
)
"""The colours a choice may show as swatches: the colours of the games' cards, routes, rails and
companies (``natural``: Russian Railroads' unpainted wooden rail), and ``rainbow`` for a card of
every colour (a Ticket to Ride locomotive). Pages draw each one."""


def check_swatches(swatches: Sequence[str], where: str) -> None:
    """A :class:`ValueError` naming ``where`` and the first swatch not in :data:`SWATCHES`."""
    for name in swatches:
        if name not in SWATCHES:
            raise ValueError(f"{where}: swatch {name!r} is not one of {sorted(SWATCHES)}")
