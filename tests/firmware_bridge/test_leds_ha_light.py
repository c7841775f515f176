"""Home Assistant JSON lights (ESPHome): one colour per seat light, sent only on change."""

from __future__ import annotations

import json

from firmware_bridge.ha_light import HaLightConfig, HaLightDriver, light_command
from firmware_bridge.leds import Frame


class Wire:
    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, object]]] = []

    def __call__(self, topic: str, payload: str) -> bool:
        self.sent.append((topic, json.loads(payload)))
        return True


def test_a_dim_colour_is_sent_at_full_scale_with_a_brightness() -> None:
    assert light_command(0x400000) == {
        "state": "ON",
        "color_mode": "rgb",
        "color": {"r": 255, "g": 0, "b": 0},
        "brightness": 64,
        "transition": 0,
    }
    assert light_command(0x000000) == {"state": "OFF", "transition": 0}


def test_each_seat_light_shows_its_zone_and_is_only_told_when_it_changes() -> None:
    wire = Wire()
    lights = [
        HaLightConfig("seat1/light/ring/command", seat=1, availability_topic="seat1/status"),
        HaLightConfig("seat2/light/ring/command", seat=2),
        HaLightConfig("table/light/lamp/command"),
    ]
    driver = HaLightDriver(wire, lights, leds_per_seat=3)
    assert driver.status_topics == ("seat1/status",)
    red_turn = Frame((0xFF0000,) * 3 + (0x000040,) * 3)
    driver.show(red_turn)
    assert wire.sent == [
        ("seat1/light/ring/command", light_command(0xFF0000)),
        ("seat2/light/ring/command", light_command(0x000040)),
        ("table/light/lamp/command", light_command(0xFF0000)),
    ]
    wire.sent.clear()
    driver.show(red_turn)
    assert wire.sent == []
    # ESPHome node 1 rebooted: its light is told again.
    assert not driver.on_status("seat1/status", "online", retained=True)
    assert not driver.on_status("seat1/status", "offline", retained=False)
    assert driver.on_status("seat1/status", "online", retained=False)
    driver.show(red_turn)
    assert wire.sent == [("seat1/light/ring/command", light_command(0xFF0000))]
