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


SEAT_PALETTE: dict[str, str] = {
    "red": "#d32f2f",
    "blue": "#1e63c4",
    "green": "#2e8b3e",
    "yellow": "#f2c12e",
    "black": "#3a3a3a",
    "white": "#eeeeee",
    "purple": "#7b3fa8",
    "orange": "#ef7d1a",
    "pink": "#e86aa6",
    "brown": "#8d5a35",
    "grey": "#7d8791",
    "gray": "#7d8791",
    "natural": "#d8c49a",
}
"""Seat colours as players name them, in shades that read well on a dark TV page: the table's
pages and the club's wall screen paint the same seat the same way (anything else is grey)."""
