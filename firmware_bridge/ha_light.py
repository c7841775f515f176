"""A generic Home Assistant MQTT JSON light (the ``schema: json`` light; ESPHome's MQTT lights
speak it): one colour per light, so each light stands for one seat's zone, or the whole table.

Command payload (what ESPHome and Home Assistant's JSON schema accept)::

    {"state": "ON", "color_mode": "rgb", "color": {"r": 255, "g": 0, "b": 0},
     "brightness": 64, "transition": 0}

The colour is sent at full scale and the dimming as ``brightness`` (ESPHome normalises the
colour anyway); a dark zone is ``{"state": "OFF", "transition": 0}``. ``transition: 0`` so a
blink is a blink, not a slow fade. A light is only sent a command when its colour changes, and
again whole after a reconnect: ours to the broker, or the light's own (its availability topic,
e.g. ESPHome's ``<node>/status``, going to ``online``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from firmware_bridge.leds import OFF, Colour, Frame, table_colour, zone_colour

Publish = Callable[[str, str], bool]


@dataclass(frozen=True, slots=True)
class HaLightConfig:
    """``seat`` None: the light stands for the whole table."""

    command_topic: str
    seat: int | None = None
    availability_topic: str | None = None


def light_command(colour: Colour) -> dict[str, object]:
    """The JSON-schema command that shows ``colour``."""
    if colour == OFF:
        return {"state": "OFF", "transition": 0}
    r, g, b = (colour >> 16) & 0xFF, (colour >> 8) & 0xFF, colour & 0xFF
    peak = max(r, g, b)
    return {
        "state": "ON",
        "color_mode": "rgb",
        "color": {
            "r": round(r * 255 / peak),
            "g": round(g * 255 / peak),
            "b": round(b * 255 / peak),
        },
        "brightness": peak,
        "transition": 0,
    }


class HaLightDriver:
    """Drives single-colour JSON lights from frames. Used from one thread (the LED worker)."""

    def __init__(
        self, publish: Publish, lights: Sequence[HaLightConfig], *, leds_per_seat: int
    ) -> None:
        self._publish = publish
        self.lights = tuple(lights)
        self._leds_per_seat = leds_per_seat
        self._last: dict[int, Colour] = {}
        self._availability: dict[int, str] = {}

    @property
    def status_topics(self) -> tuple[str, ...]:
        return tuple(light.availability_topic for light in self.lights if light.availability_topic)

    def resync(self) -> None:
        self._last.clear()
        self._availability.clear()

    def on_status(self, topic: str, payload: str, *, retained: bool) -> bool:
        """An availability message; True when a light came back (it gets its colour again).
        The retained message seen on subscribing is only noted, as for WLED."""
        came_back = False
        for index, light in enumerate(self.lights):
            if light.availability_topic != topic:
                continue
            previous = self._availability.get(index)
            self._availability[index] = payload
            if payload == "online" and previous != "online" and not (retained and previous is None):
                self._last.pop(index, None)
                came_back = True
        return came_back

    def show(self, frame: Frame) -> None:
        for index, light in enumerate(self.lights):
            if light.seat is None:
                colour = table_colour(frame)
            else:
                colour = zone_colour(frame, light.seat, self._leds_per_seat)
            if self._last.get(index) == colour:
                continue
            payload = json.dumps(light_command(colour), separators=(",", ":"))
            if self._publish(light.command_topic, payload):
                self._last[index] = colour
            else:
                self._last.pop(index, None)
