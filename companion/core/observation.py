"""What a device saw: the one record every reader, camera and page produces."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from companion.core.errors import SnapshotError
from companion.core.ids import ReaderId, Seat
from companion.core.jsonvalue import FrozenJson, JsonObject, freeze, thaw


class ObservationKind(StrEnum):
    """What kind of thing a device reports."""

    TAG_PRESENT = "tag_present"  # an RFID tag or marker came into view: payload {"uid": …}
    TAG_REMOVED = "tag_removed"  # it left (or timed out): payload {"uid": …}
    TEXT = "text"  # a barcode or a line reader: payload {"text": …}
    CARDS = "cards"  # the camera read train cards: payload {"colours": [...]}
    ACTION = "action"  # the table page (or a script) entered a game action directly
    COMMAND = "command"  # the table page: start a game, undo, redo, correct, end
    ERROR = "error"  # a rejected frame, for the record: payload {"message": …}


@dataclass(frozen=True, slots=True)
class Observation:
    """One input from the edge, before any interpretation.

    ``monotonic_s`` orders and times inputs within one run (never goes back);
    ``wall_time_s`` is the Unix time, for people and for the log.
    """

    source: ReaderId
    kind: ObservationKind
    payload: FrozenJson = field(default_factory=lambda: freeze({}))
    seat: Seat | None = None
    monotonic_s: float = field(default_factory=time.monotonic)
    wall_time_s: float = field(default_factory=time.time)
    ref: str = ""
    """Where the device got it, for tracing and resuming: e.g. ``"demo.jsonl#17"`` for a
    replayed line, a frame number for the camera. Empty when there is nothing to say."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", ObservationKind(self.kind))
        object.__setattr__(self, "payload", freeze(self.payload))

    @property
    def tag(self) -> str | None:
        """The uid or text this observation carries, if any."""
        for key in ("uid", "text"):
            value = self.payload.get(key) if isinstance(self.payload, Mapping) else None
            if isinstance(value, str):
                return value
        return None

    def to_json(self) -> JsonObject:
        return {
            "source": self.source,
            "kind": self.kind.value,
            "payload": thaw(self.payload),
            "seat": self.seat,
            "monotonic_s": self.monotonic_s,
            "wall_time_s": self.wall_time_s,
            "ref": self.ref,
        }

    @classmethod
    def from_json(cls, data: Any, path: str = "observation") -> Observation:
        if not isinstance(data, Mapping):
            raise SnapshotError(path, f"expected an object, got {data!r}")
        try:
            kind = ObservationKind(str(data.get("kind")))
        except ValueError:
            known = ", ".join(k.value for k in ObservationKind)
            raise SnapshotError(
                f"{path}.kind", f"{data.get('kind')!r} is not one of {known}"
            ) from None
        source = data.get("source")
        if not isinstance(source, str) or not source:
            raise SnapshotError(f"{path}.source", f"expected a reader name, got {source!r}")
        seat = data.get("seat")
        if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool) or seat < 1):
            raise SnapshotError(f"{path}.seat", f"expected a seat number ≥ 1, got {seat!r}")
        payload = data.get("payload", {})
        if not isinstance(payload, Mapping):
            raise SnapshotError(f"{path}.payload", f"expected an object, got {payload!r}")
        now_m, now_w = time.monotonic(), time.time()
        mono = data.get("monotonic_s", now_m)
        wall = data.get("wall_time_s", now_w)
        for name, value in (("monotonic_s", mono), ("wall_time_s", wall)):
            if not isinstance(value, int | float) or isinstance(value, bool):
                raise SnapshotError(f"{path}.{name}", f"expected a number, got {value!r}")
        ref = data.get("ref", "")
        if not isinstance(ref, str):
            raise SnapshotError(f"{path}.ref", f"expected text, got {ref!r}")
        return cls(
            ref=ref,
            source=ReaderId(source),
            kind=kind,
            payload=freeze(payload),
            seat=None if seat is None else Seat(seat),
            monotonic_s=float(mono),
            wall_time_s=float(wall),
        )
