"""One protocol session per open port: what to write, how to read, what the bytes mean. Pure.

A passive session (RDM6300, ID-12LA, line readers) never writes: we never write to a port
nobody configured, and these readers need nothing from us. The PN532 session writes only the
driver's frames. Both report partial frames cut off by a silent gap (``frame_gap_s``) as
rejected, so a truncated frame is counted instead of waiting forever.
"""

from __future__ import annotations

from firmware_bridge.frames import (
    FrameParser,
    Id12laParser,
    LineParser,
    ParsedEvent,
    Rdm6300Parser,
)
from firmware_bridge.pn532 import Pn532Driver

SERIAL_PROTOCOLS = ("rdm6300", "id12la", "pn532", "line")


class PassiveSession:
    """A reader that only talks: bytes in, events out."""

    def __init__(self, parser: FrameParser, *, frame_gap_s: float = 0.2) -> None:
        self.parser = parser
        self.frame_gap_s = frame_gap_s
        self._last_byte_at = 0.0
        self.problem = ""

    @property
    def frames_ok(self) -> int:
        return self.parser.frames_ok

    @property
    def frames_bad(self) -> int:
        return self.parser.frames_bad

    def begin(self, now: float) -> bytes:
        self._last_byte_at = now
        return b""

    def feed(self, data: bytes, now: float) -> tuple[list[ParsedEvent], bytes]:
        self._last_byte_at = now
        return self.parser.feed(data), b""

    def tick(self, now: float) -> tuple[list[ParsedEvent], bytes]:
        if self.parser.has_partial and now - self._last_byte_at >= self.frame_gap_s:
            return self.parser.flush(), b""
        return [], b""


class Pn532Session:
    """The PN532 driver behind the same interface."""

    def __init__(self, driver: Pn532Driver | None = None) -> None:
        self.driver = driver or Pn532Driver()

    @property
    def frames_ok(self) -> int:
        return self.driver.frames_ok

    @property
    def frames_bad(self) -> int:
        return self.driver.frames_bad

    @property
    def problem(self) -> str:
        return self.driver.problem

    def begin(self, now: float) -> bytes:
        return self.driver.begin(now)

    def feed(self, data: bytes, now: float) -> tuple[list[ParsedEvent], bytes]:
        return self.driver.feed(data, now)

    def tick(self, now: float) -> tuple[list[ParsedEvent], bytes]:
        return self.driver.tick(now)


Session = PassiveSession | Pn532Session


def new_session(protocol: str) -> Session:
    """A fresh session for one of :data:`SERIAL_PROTOCOLS` (a new one per connection)."""
    if protocol == "rdm6300":
        return PassiveSession(Rdm6300Parser())
    if protocol == "id12la":
        return PassiveSession(Id12laParser())
    if protocol == "line":
        return PassiveSession(LineParser())
    if protocol == "pn532":
        return Pn532Session()
    raise ValueError(f"unknown serial protocol {protocol!r}; known: {', '.join(SERIAL_PROTOCOLS)}")
