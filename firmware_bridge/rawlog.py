"""Replaying a reader's raw log (``raw_log =`` in its config) into observations. Pure.

The log holds what the reader received, byte for byte, with monotonic times (see
:class:`firmware_bridge.readers.RawLog`). Replaying feeds those bytes, at their recorded times,
through the same parsers and presence model the live reader uses, so a table problem seen once
can be turned into a test, or its observations fed to the engine again. For a PN532 the
chip's answers are in the log; its target lists are read directly (the commands we wrote are
skipped, and the driver's timing is not re-enacted).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from companion.core import Observation, ObservationKind
from firmware_bridge.frames import FrameRejected, ParsedEvent, TagSeen
from firmware_bridge.pn532 import Pn532FrameParser, Response, parse_target_list
from firmware_bridge.readers import ObservationMaker, ReaderConfig
from firmware_bridge.sessions import PassiveSession, new_session


@dataclass(frozen=True, slots=True)
class RawRecord:
    """One line of a raw log."""

    monotonic_s: float
    rx: bytes = b""
    event: str = ""


def read_raw_log(lines: Iterable[str]) -> Iterator[RawRecord | str]:
    """Records of a raw log, or a message (``"line 3: …"``) for each line that is not one."""
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            mono = float(data["m"])
            rx = bytes.fromhex(data.get("rx", ""))
            event = str(data.get("event", ""))
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            yield f"line {number}: not a raw log record ({error!r})"
            continue
        yield RawRecord(mono, rx, event)


class _Pn532Answers:
    """Target lists in a PN532's answers, whatever command sequence produced them."""

    def __init__(self) -> None:
        self.parser = Pn532FrameParser()

    def feed(self, data: bytes) -> list[ParsedEvent]:
        events: list[ParsedEvent] = []
        for frame in self.parser.feed(data):
            if isinstance(frame, FrameRejected):
                events.append(frame)
            elif isinstance(frame, Response) and frame.command == 0x4B:
                uids = parse_target_list(frame.data)
                if isinstance(uids, str):
                    events.append(FrameRejected(f"pn532: {uids}"))
                else:
                    events.extend(TagSeen(uid) for uid in uids)
        return events


class _Replay:
    def __init__(self, config: ReaderConfig, tick_s: float) -> None:
        self.config = config
        self.tick_s = tick_s
        self.maker = ObservationMaker(config)
        self.passive: PassiveSession | None = None
        self.pn532: _Pn532Answers | None = None

    def open(self, now: float) -> None:
        if self.config.protocol == "pn532":
            self.pn532 = _Pn532Answers()
        else:
            session = new_session(self.config.protocol)
            assert isinstance(session, PassiveSession)
            session.begin(now)
            self.passive = session
        self.maker.tracker.resume(now)

    def close(self) -> None:
        self.passive = None
        self.pn532 = None

    def receive(self, data: bytes, now: float) -> list[Observation]:
        if self.passive is not None:
            events, _ = self.passive.feed(data, now)
        elif self.pn532 is not None:
            events = self.pn532.feed(data)
        else:
            events = []
        return self.maker.from_events(events, now)

    def advance(self, start: float, end: float) -> Iterator[Observation]:
        """Time passes from ``start`` to ``end``: cut-off frames and removals, as live."""
        now = start
        while now < end:
            now = min(end, now + self.tick_s)
            if self.passive is not None:
                events, _ = self.passive.tick(now)
                yield from self.maker.from_events(events, now)
            if self.passive is not None or self.pn532 is not None:
                yield from self.maker.tick(now)


def replay_raw_log(
    config: ReaderConfig, lines: Iterable[str], *, tick_s: float = 0.05
) -> Iterator[Observation]:
    """The observations the reader would have made from the logged bytes, in order.

    Observations carry the log's monotonic times; time advances between records in ``tick_s``
    steps so removals and cut-off frames happen when they did live. A line of the log that is
    not a record becomes an ``error`` observation.
    """
    replay = _Replay(config, tick_s)
    now: float | None = None
    for record in read_raw_log(lines):
        if isinstance(record, str):
            message = {"message": f"raw log {record}"}
            yield replay.maker.make(ObservationKind.ERROR, message, now or 0.0)
            continue
        if now is not None:
            yield from replay.advance(now, record.monotonic_s)
        now = record.monotonic_s
        if record.event == "open":
            replay.open(now)
        elif record.event == "close":
            replay.close()
        elif record.rx:
            yield from replay.receive(record.rx, now)
    if now is not None:
        yield from replay.advance(now, now + config.removal_timeout_s + tick_s)
