"""Virtual twins of readers, so the whole service runs with no hardware.

- :class:`VirtualReader` (``protocol = "virtual"``): tests and the table page inject scans.
- :class:`ReplayReader` (``protocol = "replay"``): plays a recorded observation log
  (``docs/formats/recording.md``) at its recorded pace times a speed factor. Each observation
  carries ``ref = "<prefix>#<index>"``; after a restart the reader resumes after the last
  index the service recorded, so nothing is played twice and nothing is skipped.

A version 2 recording may also carry a seat reader's raw bytes (``"raw"`` lines, e.g. RDM6300
frames as hex). They go through the reader's real frame parser and presence model
(:mod:`firmware_bridge.rawlog`, the same code a live serial reader runs) on the recording's own
clock, so the observations — and so the indexes a restart resumes from — are the same on every
replay at any speed.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.core.errors import SnapshotError
from companion.core.ids import ReaderId, Seat
from companion.core.jsonvalue import JsonObject
from companion.core.observation import Observation, ObservationKind
from firmware_bridge.rawlog import _Replay
from firmware_bridge.readers import ReaderConfig

log = logging.getLogger(__name__)

Sink = Callable[[Observation], None]
RECORDING_FORMAT = "trackside-recording"
RECORDING_VERSION = 2
RECORDING_VERSIONS = (1, 2)
RAW_PROTOCOLS = ("rdm6300", "id12la", "line")
"""Readers whose bytes alone say what they read (a PN532 is a conversation: record its
observations instead)."""


@dataclass(slots=True)
class DeviceStatus:
    """``searching | connected | error | finished`` and what goes with it."""

    state: str = "searching"
    last_error: str = ""
    observations: int = 0
    bad: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> JsonObject:
        data: JsonObject = {
            "state": self.state,
            "last_error": self.last_error,
            "observations": self.observations,
            "bad": self.bad,
        }
        data.update(self.extra)
        return data


class VirtualReader:
    """A reader that reads what it is told: ``reader.scan("04A1B2C3D4")``."""

    def __init__(self, name: str, sink: Sink, seat: int | None = None) -> None:
        self.name = name
        self.seat = seat
        self._sink = sink
        self._status = DeviceStatus(state="connected", extra={"protocol": "virtual"})

    def start(self) -> None:
        self._status.state = "connected"

    def stop(self, timeout_s: float = 1.0) -> None:
        self._status.state = "stopped"

    def status(self) -> JsonObject:
        return self._status.to_json()

    def scan(
        self, uid: str | None = None, *, text: str | None = None, removed: bool = False
    ) -> Observation:
        if (uid is None) == (text is None):
            raise ValueError("scan() takes a uid or a text")
        if text is not None:
            obs = Observation(
                ReaderId(self.name), ObservationKind.TEXT, {"text": text}, self._seat()
            )
        else:
            kind = ObservationKind.TAG_REMOVED if removed else ObservationKind.TAG_PRESENT
            obs = Observation(ReaderId(self.name), kind, {"uid": uid}, self._seat())
        self._status.observations += 1
        self._sink(obs)
        return obs

    def _seat(self) -> Seat | None:
        return None if self.seat is None else Seat(self.seat)


@dataclass(frozen=True, slots=True)
class RecordedInput:
    at_s: float
    observation: Observation


def read_recording(path: Path) -> tuple[JsonObject, list[RecordedInput]]:
    """Parse a recording: a header line, then one ``{"at_s": …, "observation": {…}}`` or (version
    2) ``{"at_s": …, "raw": {"source": …, "hex": …}}`` per line. Raw bytes become the
    observations their reader would have made. Errors name the line and field."""
    lines = path.read_text(encoding="utf-8").splitlines()
    if not lines:
        raise SnapshotError(f"{path}:1", "empty recording")
    try:
        header = json.loads(lines[0])
    except json.JSONDecodeError as exc:
        raise SnapshotError(f"{path}:1", f"not JSON: {exc}") from None
    if not isinstance(header, dict) or header.get("format") != RECORDING_FORMAT:
        raise SnapshotError(f"{path}:1", f"expected a header with format {RECORDING_FORMAT!r}")
    if header.get("version") not in RECORDING_VERSIONS:
        raise SnapshotError(
            f"{path}:1.version", f"expected one of {', '.join(map(str, RECORDING_VERSIONS))}"
        )
    raw = _RawReaders(_raw_readers(header, f"{path.name}:1"))
    inputs: list[RecordedInput] = []
    last = 0.0
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        where = f"{path.name}:{number}"
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise SnapshotError(where, f"not JSON: {exc}") from None
        if not isinstance(item, dict):
            raise SnapshotError(where, "expected an object")
        at = item.get("at_s")
        if not isinstance(at, int | float) or isinstance(at, bool) or at < last:
            raise SnapshotError(f"{where}.at_s", f"expected a time ≥ {last}, got {at!r}")
        last = float(at)
        inputs += raw.until(last)
        if "raw" in item:
            source, data = _raw_line(item["raw"], f"{where}.raw", raw)
            inputs += raw.receive(source, data, last)
        else:
            obs = Observation.from_json(item.get("observation"), f"{where}.observation")
            inputs.append(RecordedInput(float(at), obs))
    inputs += raw.finish()
    return header, inputs


def _raw_readers(header: dict[str, Any], where: str) -> dict[str, ReaderConfig]:
    entries = header.get("readers", [])
    if entries and header.get("version") == 1:
        raise SnapshotError(f"{where}.readers", "raw readers need a version 2 recording")
    if not isinstance(entries, list):
        raise SnapshotError(f"{where}.readers", "expected a list of readers")
    readers: dict[str, ReaderConfig] = {}
    for index, entry in enumerate(entries):
        at = f"{where}.readers[{index}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("source"), str):
            raise SnapshotError(at, 'expected {"source": …, "protocol": …, "seat": …}')
        unknown = set(entry) - {"source", "protocol", "seat", "removal_timeout_s"}
        if unknown:
            raise SnapshotError(f"{at}.{sorted(unknown)[0]}", "unknown field")
        if entry.get("protocol") not in RAW_PROTOCOLS:
            raise SnapshotError(
                f"{at}.protocol",
                f"{entry.get('protocol')!r} is not one of {', '.join(RAW_PROTOCOLS)}",
            )
        seat = entry.get("seat")
        if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool) or seat < 1):
            raise SnapshotError(f"{at}.seat", f"expected a seat number ≥ 1, got {seat!r}")
        timeout = entry.get("removal_timeout_s", 0.5)
        if not isinstance(timeout, int | float) or isinstance(timeout, bool) or timeout <= 0:
            raise SnapshotError(f"{at}.removal_timeout_s", f"expected seconds > 0, got {timeout!r}")
        if entry["source"] in readers:
            raise SnapshotError(f"{at}.source", f"{entry['source']!r} is listed twice")
        readers[entry["source"]] = ReaderConfig(
            entry["source"],
            entry["protocol"],
            "recording",
            seat=seat,
            removal_timeout_s=float(timeout),
        )
    return readers


def _raw_line(value: object, where: str, raw: _RawReaders) -> tuple[str, bytes]:
    if not isinstance(value, dict) or set(value) != {"source", "hex"}:
        raise SnapshotError(where, 'expected {"source": …, "hex": …}')
    source = value["source"]
    if source not in raw.readers:
        known = ", ".join(raw.readers) or "none: list them in the header's readers"
        raise SnapshotError(f"{where}.source", f"{source!r} is not a raw reader ({known})")
    try:
        data = bytes.fromhex(value["hex"])
    except (TypeError, ValueError):
        raise SnapshotError(f"{where}.hex", f"not hex bytes: {value['hex']!r}") from None
    return source, data


class _RawReaders:
    """Each raw reader's parser and presence model, on the recording's clock."""

    TICK_S = 0.05

    def __init__(self, configs: dict[str, ReaderConfig]) -> None:
        self.readers = {name: _Replay(config, self.TICK_S) for name, config in configs.items()}
        self._now: float | None = None
        for replay in self.readers.values():
            replay.open(0.0)

    def _busy(self, replay: _Replay) -> bool:
        partial = replay.passive is not None and replay.passive.parser.has_partial
        return bool(replay.maker.tracker.present) or partial

    def until(self, end: float) -> list[RecordedInput]:
        """Time passes to ``end``: removals and cut-off frames, at the times they happen."""
        out: list[Observation] = []
        if self._now is not None:
            for replay in self.readers.values():
                if self._busy(replay):  # an idle reader has nothing to say: skip the ticks
                    settle = replay.config.removal_timeout_s + 0.2 + 2 * self.TICK_S
                    out += replay.advance(self._now, min(end, self._now + settle))
        self._now = end
        out.sort(key=lambda o: o.monotonic_s)
        return [RecordedInput(o.monotonic_s, o) for o in out]

    def receive(self, source: str, data: bytes, now: float) -> list[RecordedInput]:
        return [RecordedInput(now, o) for o in self.readers[source].receive(data, now)]

    def finish(self) -> list[RecordedInput]:
        """The end of the recording: what is still on a reader is taken off."""
        if self._now is None:
            return []
        return self.until(
            self._now
            + max((r.config.removal_timeout_s for r in self.readers.values()), default=0)
            + 1.0
        )


class ReplayReader:
    """Plays a recording into ``sink`` on its own thread."""

    def __init__(
        self,
        name: str,
        path: Path,
        sink: Sink,
        *,
        speed: float = 1.0,
        resume_after: Callable[[str], int] | None = None,
        sleep: Callable[[float], bool] | None = None,
    ) -> None:
        self.name = name
        self.path = Path(path)
        self.speed = speed
        self.ref_prefix = f"replay:{self.path.name}"
        self._sink = sink
        self._resume_after = resume_after
        self._stop = threading.Event()
        self._sleep = sleep or self._stop.wait
        self._thread: threading.Thread | None = None
        self._status = DeviceStatus(extra={"protocol": "replay", "file": self.path.name})
        self.header, self.inputs = read_recording(self.path)
        self._status.extra["total"] = len(self.inputs)

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._run, name=f"replay-{self.name}", daemon=True
            )
            self._thread.start()

    def stop(self, timeout_s: float = 2.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout_s)

    def join(self, timeout_s: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout_s)

    def status(self) -> JsonObject:
        return self._status.to_json()

    def pending(self) -> Iterator[tuple[int, RecordedInput]]:
        first = 0 if self._resume_after is None else self._resume_after(self.ref_prefix) + 1
        for index in range(first, len(self.inputs)):
            yield index, self.inputs[index]

    def _run(self) -> None:
        self._status.state = "connected"
        previous: float | None = None
        for index, recorded in self.pending():
            if previous is not None:
                wait = (recorded.at_s - previous) / self.speed
                if wait > 0 and self._sleep(wait):
                    self._status.state = "stopped"
                    return
            if self._stop.is_set():
                self._status.state = "stopped"
                return
            previous = recorded.at_s
            o = recorded.observation
            self._sink(
                Observation(
                    source=o.source,
                    kind=o.kind,
                    payload=o.payload,
                    seat=o.seat,
                    ref=f"{self.ref_prefix}#{index}",
                )
            )
            self._status.observations += 1
            self._status.extra["position"] = index + 1
        self._status.state = "finished"
