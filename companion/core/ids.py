"""Typed ids. Plain strings and ints at run time; distinct types for mypy."""

from __future__ import annotations

from typing import NewType

GameId = NewType("GameId", int)
"""Row id of a game in the event store."""

GameName = NewType("GameName", str)
"""A registered game's id, e.g. ``"russian-railroads"``."""

ReaderId = NewType("ReaderId", str)
"""The configured name of a device (``"red-seat"``, ``"camera"``, ``"table-page"``)."""

Seat = NewType("Seat", int)
"""A physical seat at the table, 1-based, as wired (one reader per seat)."""

PlayerIndex = NewType("PlayerIndex", int)
"""A player's 0-based index in the game's player list."""

ComponentId = NewType("ComponentId", str)
"""A game component, e.g. ``"engineer-12"``, ``"ticket:paris-wien"``."""

TagUid = NewType("TagUid", str)
"""What a reader read: an RFID uid (upper-case hex) or a barcode's text."""
