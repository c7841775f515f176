"""WLED over MQTT: LED frames as WLED JSON API state on ``wled/<id>/api`` (or the group topic).

A WLED device with MQTT enabled subscribes to ``<device topic>/api`` and ``<group topic>/api``
and applies a JSON payload as a ``/json/state`` request. We paint with per-LED control
(``seg.i`` on segment 0, hex colours, ``[start, stop, "RRGGBB"]`` ranges), which freezes the
segment's effect so the LEDs show exactly our frame:

- the first frame (and after any reconnect) is sent whole: ``{"on": true}`` first (WLED's
  docs: turning the light on and setting LEDs in the same request may not work), then the
  frame in runs;
- after that only the LEDs that changed;
- payloads are split so no message carries more than ``MAX_COLOURS_PER_MESSAGE`` colours
  (WLED's docs advise chunks of about 256 for its JSON buffer);
- WLED publishes ``<device topic>/status`` = ``online`` (retained, with ``offline`` as its
  last will); when a device comes back online it gets the whole frame again, since a rebooted
  WLED has forgotten per-LED colours.

The payload building is pure (:func:`wled_messages`); :class:`WledDriver` only keeps what each
target was last sent and hands payloads to a ``publish`` callable (the MQTT bridge's client).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

from firmware_bridge.leds import Frame, Run, changes

MAX_COLOURS_PER_MESSAGE = 256
SEGMENT_ID = 0
TURN_ON: dict[str, object] = {"on": True}

Publish = Callable[[str, str], bool]
"""``publish(topic, payload)``: True when the message was handed to a live connection."""


def device_topic(device: str) -> str:
    return f"wled/{device}"


def wled_messages(
    runs: Sequence[Run], *, segment: int = SEGMENT_ID, max_colours: int = MAX_COLOURS_PER_MESSAGE
) -> list[dict[str, object]]:
    """The ``seg.i`` payloads that paint ``runs``: ``[index, "RRGGBB"]`` for a single LED,
    ``[start, stop, "RRGGBB"]`` for a longer run, at most ``max_colours`` colours each."""
    if max_colours < 1:
        raise ValueError(f"max_colours must be at least 1, got {max_colours}")
    messages: list[dict[str, object]] = []
    entries: list[object] = []
    colours = 0
    for run in runs:
        if colours == max_colours:
            messages.append({"seg": {"id": segment, "i": entries}})
            entries, colours = [], 0
        if run.stop - run.start == 1:
            entries += [run.start, f"{run.colour:06X}"]
        else:
            entries += [run.start, run.stop, f"{run.colour:06X}"]
        colours += 1
    if entries:
        messages.append({"seg": {"id": segment, "i": entries}})
    return messages


def _dumps(payload: dict[str, object]) -> str:
    return json.dumps(payload, separators=(",", ":"))


class WledDriver:
    """Paints frames on WLED devices. Used from one thread (the bridge's LED worker)."""

    def __init__(
        self, publish: Publish, devices: Sequence[str] = (), group_topic: str | None = None
    ) -> None:
        for device in devices:
            _check_topic_part("wled device id", device)
        if group_topic is not None:
            _check_topic_part("wled group topic", group_topic, allow_slash=True)
        self._publish = publish
        self.devices = tuple(devices)
        self.group_topic = group_topic
        # Frames go to the group topic when there is one, else to each device's own topic.
        if group_topic is not None:
            self._targets: tuple[str, ...] = (f"{group_topic}/api",)
        else:
            self._targets = tuple(f"{device_topic(d)}/api" for d in self.devices)
        self._last: dict[str, Frame] = {}
        self._device_status: dict[str, str] = {}
        self._needs_full: set[str] = set()

    @property
    def status_topics(self) -> tuple[str, ...]:
        """The topics to subscribe to for :meth:`on_status`."""
        return tuple(f"{device_topic(d)}/status" for d in self.devices)

    def device_for_status_topic(self, topic: str) -> str | None:
        for device in self.devices:
            if topic == f"{device_topic(device)}/status":
                return device
        return None

    def resync(self) -> None:
        """Everything is sent whole next time (after our own reconnect to the broker)."""
        self._last.clear()
        self._device_status.clear()
        self._needs_full.clear()

    def on_status(self, device: str, payload: str, *, retained: bool) -> bool:
        """A device's ``status`` message. True when it means the device came back and gets
        the whole frame on the next :meth:`show`.

        WLED re-publishes ``online`` with every state change, so only a change to ``online``
        counts; the retained message the broker hands us on subscribing is only noted (we
        send everything whole after our own connect anyway)."""
        previous = self._device_status.get(device)
        self._device_status[device] = payload
        if payload != "online" or previous == "online" or (retained and previous is None):
            return False
        if self.group_topic is None:
            self._last.pop(f"{device_topic(device)}/api", None)
        else:
            self._needs_full.add(device)
        return True

    def show(self, frame: Frame) -> None:
        """Send ``frame``: whole to targets that have not seen one, else only the changes."""
        for target in self._targets:
            self._send(target, self._last.get(target), frame)
        for device in sorted(self._needs_full):
            # Group mode: a device that came back gets the whole frame on its own topic; the
            # others keep receiving changes on the group topic.
            self._send(f"{device_topic(device)}/api", None, frame, remember=False)
        self._needs_full.clear()

    def _send(self, topic: str, old: Frame | None, frame: Frame, *, remember: bool = True) -> None:
        runs = changes(old, frame)
        if not runs:
            return
        payloads = [TURN_ON] if old is None else []
        payloads += wled_messages(runs)
        delivered = all([self._publish(topic, _dumps(p)) for p in payloads])
        if remember:
            if delivered:
                self._last[topic] = frame
            else:
                # Not on the wire: the next frame goes whole, so nothing is left half-painted.
                self._last.pop(topic, None)


def _check_topic_part(what: str, value: str, *, allow_slash: bool = False) -> None:
    bad = "+#\x00" if allow_slash else "+#/\x00"
    if not value or any(ch in value for ch in bad) or value.startswith("/") or value.endswith("/"):
        raise ValueError(f"{what} {value!r} is not a usable MQTT topic part")
