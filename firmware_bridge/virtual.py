"""Virtual twins of readers, so the whole service runs with no hardware.

- :class:`VirtualReader` (``protocol = "virtual"``): tests and the table page inject scans.
- :class:`ReplayReader` (``protocol = "replay"``): plays a recorded observation log
  (``docs/formats/recording.md``) at its recorded pace times a speed factor. Each observation
  carries ``ref = "<prefix>#<line index>"``; after a restart the reader resumes after the last
  index the service recorded, so nothing is played twice and nothing is skipped.
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

log = logging.getLogger(__name__)

Sink = Callable[[Observation], None]
RECORDING_FORMAT = "trackside-recording"
RECORDING_VERSION = 1


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
    """Parse a recording: a header line, then one ``{"at_s": …, "observation": {…}}`` per
    line. Errors name the line."""
    lines = path.read_text(encoding="utf-8").splitlines()
    if not lines:
        raise SnapshotError(f"{path}:1", "empty recording")
    try:
        header = json.loads(lines[0])
    except json.JSONDecodeError as exc:
        raise SnapshotError(f"{path}:1", f"not JSON: {exc}") from None
    if not isinstance(header, dict) or header.get("format") != RECORDING_FORMAT:
        raise SnapshotError(f"{path}:1", f"expected a header with format {RECORDING_FORMAT!r}")
    if header.get("version") != RECORDING_VERSION:
        raise SnapshotError(f"{path}:1.version", f"expected {RECORDING_VERSION}")
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
        obs = Observation.from_json(item.get("observation"), f"{where}.observation")
        inputs.append(RecordedInput(float(at), obs))
    return header, inputs


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
