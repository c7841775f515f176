"""Network seat pads: ESP32 readers publishing tag events over MQTT. Pure message parsing.

Topic and payload (``docs/protocols/seat-pads.md``; the ESPHome config in
``hardware/firmware/esphome/seat-pad.yaml`` publishes exactly this)::

    trackside/<table_id>/pads/<pad_id>/tag     QoS 1, not retained
    {"uid": "74-10-37-94", "event": "present" | "removed", "seat": 1}

``uid`` is hex in any of the spellings ESPHome and friends use (``74-10-37-94``,
``74:10:37:94``, ``74103794``) and becomes upper-case hex without separators; ``seat`` is
optional (the service's config may give the pad's seat instead). A pad's own status is
``trackside/<table_id>/pads/<pad_id>/status`` (retained ``online``; the last will ``offline``).
The MQTT client that subscribes lives in the service; this module only turns one message into
an observation, or says why it cannot.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

from companion.core import Observation, ObservationKind
from companion.core.ids import ReaderId, Seat
from firmware_bridge.frames import FrameRejected, normalise_uid

MAX_UID_CHARS = 64
"""The longest uid spelling accepted (a 10-byte uid with separators is 29 characters)."""


def _quote(value: object, limit: int = 40) -> str:
    """What a refusal quotes of a refused value: its first ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


def pad_topic_filter(table_id: str) -> str:
    """The MQTT subscription for every pad's tag events at one table."""
    return f"trackside/{table_id}/pads/+/tag"


@dataclass(frozen=True, slots=True)
class PadTag:
    """One tag event from a seat pad."""

    pad: str
    uid: str
    present: bool
    seat: int | None = None

    def to_observation(self, seat: int | None = None, now: float | None = None) -> Observation:
        """The observation, with ``source`` the pad id; a configured ``seat`` wins."""
        chosen = seat if seat is not None else self.seat
        kind = ObservationKind.TAG_PRESENT if self.present else ObservationKind.TAG_REMOVED
        return Observation(
            source=ReaderId(self.pad),
            kind=kind,
            payload={"uid": self.uid},
            seat=None if chosen is None else Seat(chosen),
            monotonic_s=time.monotonic() if now is None else now,
        )


def parse_pad_message(table_id: str, topic: str, payload: bytes) -> PadTag | FrameRejected | None:
    """A pad tag event; a rejection naming what is wrong; None for topics that are not pads'."""
    parts = topic.split("/")
    if len(parts) != 5 or parts[:3] != ["trackside", table_id, "pads"] or parts[4] != "tag":
        return None
    pad = parts[3]
    if not pad:
        return FrameRejected(f"pad: empty pad id in topic {_quote(topic)}")
    try:
        data = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return FrameRejected(f"pad {pad}: payload is not JSON: {payload[:40]!r}")
    except RecursionError:
        return FrameRejected(f"pad {pad}: payload is JSON nested too deeply")
    if not isinstance(data, dict):
        return FrameRejected(f"pad {pad}: payload must be a JSON object, got {_quote(data)}")
    raw_uid = data.get("uid")
    if isinstance(raw_uid, str) and len(raw_uid) > MAX_UID_CHARS:
        return FrameRejected(
            f"pad {pad}: uid is {len(raw_uid)} characters; a tag's uid is at most {MAX_UID_CHARS}"
        )
    uid = normalise_uid(raw_uid) if isinstance(raw_uid, str) else None
    if uid is None:
        return FrameRejected(f"pad {pad}: uid {_quote(raw_uid)} is not hex bytes")
    event = data.get("event", "present")
    if event not in ("present", "removed"):
        return FrameRejected(f"pad {pad}: event {_quote(event)} is not 'present' or 'removed'")
    seat = data.get("seat")
    if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool) or seat < 1):
        return FrameRejected(f"pad {pad}: seat {_quote(seat)} is not a seat number ≥ 1")
    return PadTag(pad=pad, uid=uid, present=event == "present", seat=seat)
