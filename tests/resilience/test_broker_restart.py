"""The Wi-Fi's Mosquitto reboots mid-game: the table keeps playing (scans are applied and
recorded while the broker is away), the scoreboard shows MQTT as disconnected, and within
seconds of the broker's return the retained state, the online status and the WLED frame are
current again. A real Mosquitto on 127.0.0.1; the service runs in this process."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from firmware_bridge.leds import scene
from tests.firmware_bridge.wled_emulator import EmulatedStrip

from .conftest import DIE_UIDS, Broker, Running, ServiceFactory, Subscriber, scan, wait_until

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]

SEATS, LEDS = 4, 10
TABLE = "resilience"
CURRENT_WITHIN_S = 15.0  # bound for the test; the measured time is printed


def mqtt_config(broker: Broker) -> dict[str, Any]:
    return {
        "mqtt": {
            "host": broker.host,
            "port": broker.port,
            "table_id": TABLE,
            "reconnect_min_s": 1,
            "reconnect_max_s": 2,
            "wled": ["strip"],
            "seats": SEATS,
            "leds_per_seat": LEDS,
        },
        "readers": [
            {"name": "red-seat", "protocol": "virtual", "seat": 1},
            {"name": "blue-seat", "protocol": "virtual", "seat": 2},
        ],
    }


def mqtt_totals(dashboard: Subscriber) -> list[int] | None:
    message = dashboard.last(f"trackside/{TABLE}/state")
    if message is None:
        return None
    return [p["total"] for p in json.loads(message.payload)["players"]]


def strip_matches_state(strip: Subscriber, dashboard: Subscriber) -> bool:
    message = dashboard.last(f"trackside/{TABLE}/state")
    frames = strip.on("wled/strip/api")
    if message is None or not frames:
        return False
    emulated = EmulatedStrip(SEATS * LEDS)
    for frame in frames:
        emulated.apply(frame.payload)
    wanted = scene(json.loads(message.payload), seats=SEATS, leds_per_seat=LEDS, now_s=time.time())
    return emulated.on and tuple(emulated.pixels) == wanted.pixels


def test_the_table_plays_on_through_a_broker_restart_and_mqtt_catches_up(
    run_service: ServiceFactory,
    broker: Broker,
    subscribe: Any,
) -> None:
    dashboard: Subscriber = subscribe([f"trackside/{TABLE}/#"])
    strip: Subscriber = subscribe(["wled/strip/api"], status_topic="wled/strip/status")
    running: Running = run_service(mqtt_config(broker))
    wait_until(lambda: running.device("mqtt").get("state") == "connected", what="MQTT up")
    running.start_tiny_race()
    scan(running, "red-seat", DIE_UIDS[2])
    wait_until(lambda: mqtt_totals(dashboard) == [2, 0], what="the first state on MQTT")
    wait_until(lambda: strip_matches_state(strip, dashboard), what="the first LED frame")

    broker.stop()
    wait_until(
        lambda: running.device("mqtt").get("state") in ("disconnected", "connecting"),
        what="the scoreboard to show MQTT down",
    )
    # the table plays on: both seats scan, both scans are applied and on the scoreboard
    scan(running, "blue-seat", DIE_UIDS[3])
    scan(running, "red-seat", DIE_UIDS[1])
    assert running.totals() == [3, 3]
    assert running.scans() == [DIE_UIDS[2], DIE_UIDS[3], DIE_UIDS[1]]
    assert running.device("mqtt")["last_error"]
    dashboard.clear()
    strip.clear()

    broker.start()
    back = time.monotonic()
    wait_until(
        lambda: (
            (m := dashboard.last(f"trackside/{TABLE}/status")) is not None and m.payload == "online"
        ),
        timeout_s=CURRENT_WITHIN_S,
        what="online again",
    )
    wait_until(
        lambda: mqtt_totals(dashboard) == [3, 3],
        timeout_s=CURRENT_WITHIN_S,
        what="the state played while the broker was away",
    )
    state_after = time.monotonic() - back
    wait_until(
        lambda: strip_matches_state(strip, dashboard),
        timeout_s=CURRENT_WITHIN_S,
        what="the whole LED frame again",
    )
    leds_after = time.monotonic() - back
    print(f"broker back → state current in {state_after:.2f} s, LED frame in {leds_after:.2f} s")
    assert json.loads(strip.on("wled/strip/api")[0].payload) == {"on": True, "tt": 0}
    wait_until(
        lambda: running.device("mqtt").get("state") == "connected", what="scoreboard: MQTT up"
    )

    # and it goes on as before: the next scan reaches MQTT and the LEDs
    scan(running, "blue-seat", DIE_UIDS[2])
    wait_until(lambda: mqtt_totals(dashboard) == [3, 5], what="the next scan on MQTT")
    wait_until(lambda: strip_matches_state(strip, dashboard), what="the next LED frame")
