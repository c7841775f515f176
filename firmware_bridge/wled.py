"""WLED over MQTT: LED frames as WLED JSON API state on ``wled/<id>/api`` (or the group topic).

A WLED device with MQTT enabled subscribes to ``<device topic>/api`` and ``<group topic>/api``
and applies a JSON payload as a ``/json/state`` request (``wled00/mqtt.cpp``). We paint with
per-LED control (``seg.i`` on segment 0, hex colours, ``[start, stop, "RRGGBB"]`` ranges). What
WLED's ``json.cpp`` does with that, and what follows for us:

- ``seg.i`` on a segment that is not frozen freezes it *and clears it to black first*; turning
  the light on from off (``bri`` 0 to more) unfreezes every segment. So a strip someone toggled
  off and on (Home Assistant, the WLED app, its button) runs its effect again, and a frame that
  carried only the changed LEDs would leave the rest of the table dark. Every frame is therefore
  sent **whole** (in runs of one colour, so a table of seat zones is a handful of entries), and
  the device's brightness topic ``<device topic>/g`` is watched: a change there gets the whole
  frame again at once, even when the scene itself did not change.
- ``"tt": 0`` (a one-off transition time of zero) rides on every payload, so turning on does not
  fade in and nothing cross-fades; ``seg.i`` stops transitions by itself, the ``on`` does not.
- the first frame (and after any reconnect) starts with ``{"on": true, "tt": 0}`` on its own
  (WLED's docs: turning the light on and setting LEDs in one request may not work); a light the
  user turned off later is left off;
- payloads are split so no message carries more than ``MAX_COLOURS_PER_MESSAGE`` colours
  (WLED's docs advise chunks of about 256 for its JSON buffer); only the first chunk of a frame
  can clear, the rest land on the frozen segment;
- WLED publishes ``<device topic>/status`` = ``online`` (retained, with ``offline`` as its
  last will); when a device comes back online it gets the whole frame again with the ``on``.
- ``wled/all`` is refused as a group topic: it is every WLED's factory group topic, so every
  strip in the house would take the table's pattern.

The payload building is pure (:func:`wled_messages`); :class:`WledDriver` only keeps what each
target was last sent and hands payloads to a ``publish`` callable (the MQTT bridge's client).
``tests/firmware_bridge/wled_emulator.py`` applies the payloads by ``json.cpp``'s rules.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

from firmware_bridge.leds import Frame, Run, changes

MAX_COLOURS_PER_MESSAGE = 256
SEGMENT_ID = 0
TURN_ON: dict[str, object] = {"on": True, "tt": 0}
FACTORY_GROUP_TOPIC = "wled/all"

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
            messages.append({"tt": 0, "seg": {"id": segment, "i": entries}})
            entries, colours = [], 0
        if run.stop - run.start == 1:
            entries += [run.start, f"{run.colour:06X}"]
        else:
            entries += [run.start, run.stop, f"{run.colour:06X}"]
        colours += 1
    if entries:
        messages.append({"tt": 0, "seg": {"id": segment, "i": entries}})
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
            _check_length("wled device topic", device_topic(device))
        if group_topic is not None:
            _check_topic_part("wled group topic", group_topic, allow_slash=True)
            _check_length("wled group topic", group_topic)
            if group_topic == FACTORY_GROUP_TOPIC:
                raise ValueError(
                    f"wled group topic {group_topic!r} is every WLED's factory group topic: every"
                    " strip in the house would show the table; set a group topic of the table's"
                    " own (e.g. wled/trackside-table-1) on its WLEDs (Config → Sync Interfaces →"
                    " MQTT → Group Topic), or list the devices in mqtt.wled instead"
                )
            for device in devices:
                # WLED matches an incoming topic against its device topic by prefix first
                # (wled00/mqtt.cpp, onMqttMessage: strncmp over the device topic's length):
                # with device wled/table and group wled/table-1, a group frame on
                # wled/table-1/api is taken as the device's "-1/api" and dropped.
                if group_topic.startswith(device_topic(device)):
                    raise ValueError(
                        f"wled device topic {device_topic(device)!r} is the start of the group"
                        f" topic {group_topic!r}: WLED would take the group's frames as its own"
                        " topic's and drop them; give the device or the group another name"
                    )
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
        self._brightness: dict[str, str] = {}
        self._needs_full: set[str] = set()
        self._repaint: set[str] = set()

    @property
    def status_topics(self) -> tuple[str, ...]:
        """The topics to subscribe to for :meth:`on_message`: each device's ``status`` and its
        brightness ``g``."""
        return tuple(f"{device_topic(d)}/{leaf}" for d in self.devices for leaf in ("status", "g"))

    def device_for_status_topic(self, topic: str) -> str | None:
        for device in self.devices:
            if topic in (f"{device_topic(device)}/status", f"{device_topic(device)}/g"):
                return device
        return None

    def on_message(self, topic: str, payload: str, *, retained: bool) -> bool:
        """A message on one of :attr:`status_topics`; True when the device is repainted whole
        on the next :meth:`show`."""
        device = self.device_for_status_topic(topic)
        if device is None:
            return False
        if topic.endswith("/g"):
            return self.on_brightness(device, payload, retained=retained)
        return self.on_status(device, payload, retained=retained)

    def on_brightness(self, device: str, payload: str, *, retained: bool) -> bool:
        """The device's ``g`` (brightness 0–255, published on every state change): a change
        means someone turned it off, on or dimmer elsewhere — turning on unfreezes the segment
        and restarts its effect — so the device is repainted whole (it stays off if off)."""
        previous = self._brightness.get(device)
        self._brightness[device] = payload
        if previous is None or previous == payload:
            return False
        self._repaint.add(device)
        return True

    def resync(self) -> None:
        """Everything is sent whole next time (after our own reconnect to the broker)."""
        self._last.clear()
        self._device_status.clear()
        self._brightness.clear()
        self._needs_full.clear()
        self._repaint.clear()

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
        """Send ``frame`` whole to every target whose last frame differs (or that needs a
        repaint); the ``on`` first to a target that has not had one since (re)connecting."""
        repaint = self._repaint
        self._repaint = set()
        for target in self._targets:
            old = self._last.get(target, None)
            forced = self.group_topic is None and target[len("wled/") : -len("/api")] in repaint
            if old == frame and not forced:
                continue
            self._send(target, frame, turn_on=target not in self._last)
        for device in sorted(self._needs_full):
            # Group mode: a device that came back gets the whole frame on its own topic; the
            # others keep receiving frames on the group topic.
            self._send(f"{device_topic(device)}/api", frame, turn_on=True, remember=False)
        if self.group_topic is not None:
            for device in sorted(repaint - self._needs_full):
                self._send(f"{device_topic(device)}/api", frame, turn_on=False, remember=False)
        self._needs_full.clear()

    def _send(self, topic: str, frame: Frame, *, turn_on: bool, remember: bool = True) -> None:
        payloads = [TURN_ON] if turn_on else []
        payloads += wled_messages(changes(None, frame))
        delivered = all([self._publish(topic, _dumps(p)) for p in payloads])
        if remember:
            if delivered:
                self._last[topic] = frame
            else:
                # Not on the wire: the next frame goes again, with the "on" first.
                self._last.pop(topic, None)


WLED_MAX_TOPIC_CHARS = 32
"""WLED keeps its device and group topics in 33-byte buffers (``MQTT_MAX_TOPIC_LEN`` 32 in
wled00/const.h): its settings page cuts a longer one, and the strip then listens elsewhere."""


def _check_length(what: str, topic: str) -> None:
    size = len(topic.encode("utf-8"))
    if size > WLED_MAX_TOPIC_CHARS:
        raise ValueError(
            f"{what} {topic!r} is {size} characters; WLED keeps at most {WLED_MAX_TOPIC_CHARS}"
            " (it would cut it and listen on another topic)"
        )


def _check_topic_part(what: str, value: str, *, allow_slash: bool = False) -> None:
    bad = "+#" if allow_slash else "+#/"
    # no control character either: the broker's ACL is written from these (one per line)
    control = any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in value)
    if (
        not value
        or control
        or any(ch in value for ch in bad)
        or value.startswith("/")
        or value.endswith("/")
    ):
        raise ValueError(f"{what} {value!r} is not a usable MQTT topic part")
