"""The MQTT bridge against a real Mosquitto: what a dashboard, a WLED strip or Home Assistant
on the same broker actually receives, including across broker restarts and a crashed bridge."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from firmware_bridge.ha_light import HaLightConfig, light_command
from firmware_bridge.leds import scene
from firmware_bridge.mqtt import MqttBridge, MqttConfig
from tests.firmware_bridge.conftest import WAIT_S, Broker, Subscriber, wait_until
from tests.firmware_bridge.wled_emulator import EmulatedStrip

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
SEATS, LEDS = 4, 60
Subscribe = Callable[..., Subscriber]


def table(active: int = 0) -> dict[str, Any]:
    return {
        "schema": 1,
        "game": "russian-railroads",
        "players": [
            {"name": "Ann", "colour": "red", "seat": 1, "total": 12},
            {"name": "Ben", "colour": "blue", "seat": 2, "total": 9},
            {"name": "Cy", "colour": "green", "seat": 3, "total": 20},
        ],
        "status": {"active_players": [active], "phase": "work", "waiting_for": "", "round": 2},
    }


def config(broker: Broker, **more: Any) -> MqttConfig:
    return MqttConfig(
        host=broker.host, port=broker.port, table_id="table-1", reconnect_max_s=2, **more
    )


def connected(bridge: MqttBridge) -> Callable[[], bool]:
    return lambda: bridge.status().connected


def strip_of(sub: Subscriber, topic: str, after: int = 0) -> EmulatedStrip:
    strip = EmulatedStrip(SEATS * LEDS)
    for message in sub.on(topic)[after:]:
        strip.apply(message.payload)
    return strip


def expected(state: dict[str, Any]) -> tuple[int, ...]:
    return scene(state, seats=SEATS, leds_per_seat=LEDS, now_s=time.time()).pixels


def test_state_and_status_are_retained_for_whoever_subscribes_later(
    broker: Broker, subscribe: Subscribe
) -> None:
    bridge = MqttBridge(config(broker))
    bridge.publish_state(table())  # before start: kept and sent on connecting
    bridge.start()
    try:
        wait_until(connected(bridge), what="the bridge to connect")
        late = subscribe(["trackside/table-1/#"])
        wait_until(lambda: late.last("trackside/table-1/state") is not None, what="state")
        wait_until(lambda: late.last("trackside/table-1/status") is not None, what="status")
        state = late.last("trackside/table-1/state")
        status = late.last("trackside/table-1/status")
        assert state is not None and state.retain and json.loads(state.payload) == table()
        assert status is not None and status.retain and status.payload == "online"

        bridge.publish_state(table(active=1))
        wait_until(
            lambda: (
                (m := late.last("trackside/table-1/state")) is not None
                and json.loads(m.payload) == table(active=1)
            ),
            what="the new state",
        )
        assert bridge.status().to_json()["state"] == "connected"
    finally:
        bridge.stop()
    after = subscribe(["trackside/table-1/status"])
    wait_until(lambda: after.last("trackside/table-1/status") is not None, what="status")
    last = after.last("trackside/table-1/status")
    assert last is not None and last.payload == "offline"  # a clean stop says so itself
    assert bridge.status().state == "stopped"


def test_each_applied_event_arrives_once_with_its_sequence_number(
    broker: Broker, subscribe: Subscribe
) -> None:
    sub = subscribe(["trackside/table-1/event"])
    bridge = MqttBridge(config(broker))
    bridge.start()
    try:
        wait_until(connected(bridge), what="the bridge to connect")
        for seq in (2, 3, 4):
            bridge.publish_event(seq, {"type": "action_applied", "action": {"kind": "move"}})
        wait_until(lambda: len(sub.on("trackside/table-1/event")) == 3, what="three events")
        received = sub.on("trackside/table-1/event")
        assert [json.loads(m.payload)["seq"] for m in received] == [2, 3, 4]
        assert json.loads(received[0].payload) == {
            "schema": 1,
            "seq": 2,
            "event": {"type": "action_applied", "action": {"kind": "move"}},
        }
        assert all(m.qos == 1 and not m.retain for m in received)
    finally:
        bridge.stop()


def test_a_bridge_started_with_no_broker_neither_blocks_nor_raises_and_catches_up(
    tmp_path: Path,
) -> None:
    later = Broker(tmp_path)  # its port is chosen, nothing listens on it yet
    bridge = MqttBridge(MqttConfig(host="127.0.0.1", port=later.port, table_id="t2"))
    began = time.monotonic()
    bridge.start()
    bridge.publish_state(table())
    bridge.publish_event(7, {"type": "game_started"})
    # Generous bound (shared machine): connecting never happens on the caller's thread.
    assert time.monotonic() - began < 5.0, "start/publish must not wait for the network"
    try:
        wait_until(
            lambda: (bridge.status().last_error or "").startswith("cannot connect to 127.0.0.1"),
            what="the connection error to be reported",
        )
        assert not bridge.status().connected
        assert "refused" in (bridge.status().last_error or "").lower()
        later.start()
        wait_until(connected(bridge), what="the bridge to find the broker")
        watcher = Subscriber(later, ["trackside/t2/#"])
        try:
            wait_until(
                lambda: (
                    (m := watcher.last("trackside/t2/state")) is not None
                    and json.loads(m.payload) == table()
                ),
                what="the state kept while the broker was away",
            )
            status = watcher.last("trackside/t2/status")
            assert status is not None and status.payload == "online"
        finally:
            watcher.close()
    finally:
        bridge.stop()
        later.stop()


def test_the_last_will_says_offline_when_the_bridge_process_is_killed(
    broker: Broker, subscribe: Subscribe, tmp_path: Path
) -> None:
    script = tmp_path / "bridge.py"
    script.write_text(
        "import sys, time\n"
        "from firmware_bridge.mqtt import MqttBridge, MqttConfig\n"
        f"bridge = MqttBridge(MqttConfig(host='127.0.0.1', port={broker.port},"
        " table_id='doomed', keepalive_s=5))\n"
        "bridge.start()\n"
        "while not bridge.status().connected:\n"
        "    time.sleep(0.05)\n"
        "print('connected', flush=True)\n"
        "time.sleep(600)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE, env=env, cwd=ROOT
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == b"connected"
        sub = subscribe(["trackside/doomed/status"])
        wait_until(
            lambda: (
                (m := sub.last("trackside/doomed/status")) is not None and m.payload == "online"
            ),
            what="online",
        )
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=WAIT_S)
        wait_until(
            lambda: (
                (m := sub.last("trackside/doomed/status")) is not None and m.payload == "offline"
            ),
            what="the last will",
        )
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(timeout=WAIT_S)
        if child.stdout is not None:
            child.stdout.close()
    # The will is retained: a dashboard opened now also sees the table is gone.
    late = subscribe(["trackside/doomed/status"])
    wait_until(lambda: late.last("trackside/doomed/status") is not None, what="retained will")
    last = late.last("trackside/doomed/status")
    assert last is not None and last.retain and last.payload == "offline"


def test_wled_gets_the_on_then_whole_frames(broker: Broker, subscribe: Subscribe) -> None:
    sub = subscribe(["wled/#"])
    bridge = MqttBridge(config(broker, wled=("strip",), seats=SEATS, leds_per_seat=LEDS))
    bridge.start()
    try:
        wait_until(connected(bridge), what="the bridge to connect")
        bridge.publish_state(table(active=0))
        wait_until(
            lambda: tuple(strip_of(sub, "wled/strip/api").pixels) == expected(table(active=0)),
            what="the first frame on the strip",
        )
        first = sub.on("wled/strip/api")
        assert json.loads(first[0].payload) == {"on": True, "tt": 0}
        body = json.loads(first[1].payload)
        assert set(body) == {"tt", "seg"} and body["seg"]["id"] == 0
        # Three players, one dark seat: four runs, written as ranges.
        assert body["seg"]["i"][:3] == [0, 60, "FF0000"]
        assert len(body["seg"]["i"]) == 12

        count = len(first)
        bridge.publish_state(table(active=1))  # the turn passes from seat 1 to seat 2
        wait_until(
            lambda: tuple(strip_of(sub, "wled/strip/api").pixels) == expected(table(active=1)),
            what="the turn to move on the strip",
        )
        changes = [json.loads(m.payload) for m in sub.on("wled/strip/api")[count:]]
        # the whole frame again (a strip toggled elsewhere would otherwise be left half dark)
        assert changes == [
            {
                "tt": 0,
                "seg": {
                    "id": 0,
                    "i": [
                        0,
                        60,
                        "400000",
                        60,
                        120,
                        "0000FF",
                        120,
                        180,
                        "004000",
                        180,
                        240,
                        "000000",
                    ],
                },
            }
        ]
    finally:
        bridge.stop()


def test_a_wled_that_reboots_is_repainted_whole(broker: Broker, subscribe: Subscribe) -> None:
    sub = subscribe(["wled/strip/api"])
    device = subscribe([])  # plays the WLED device's own status messages
    device.publish("wled/strip/status", "online", retain=True)
    bridge = MqttBridge(config(broker, wled=("strip",), seats=SEATS, leds_per_seat=LEDS))
    bridge.start()
    try:
        wait_until(connected(bridge), what="the bridge to connect")
        bridge.publish_state(table())
        wait_until(lambda: len(sub.on("wled/strip/api")) == 2, what="the first frame")
        device.publish("wled/strip/status", "offline", retain=True)  # its last will
        device.publish("wled/strip/status", "online", retain=True)  # back after a reboot
        wait_until(lambda: len(sub.on("wled/strip/api")) == 4, what="the repaint")
        assert json.loads(sub.on("wled/strip/api")[2].payload) == {"on": True, "tt": 0}
        assert tuple(strip_of(sub, "wled/strip/api", after=2).pixels) == expected(table())
    finally:
        bridge.stop()


def test_a_wled_toggled_off_and_on_elsewhere_gets_the_table_back(
    broker: Broker, subscribe: Subscribe
) -> None:
    # A WLED that publishes its brightness on <device>/g after every change, as mqtt.cpp does;
    # turning it on unfreezes its segment (json.cpp), so its effect would stay on the table.
    device = subscribe(["wled/strip/api"])
    strip = EmulatedStrip(SEATS * LEDS, on=True, frozen=False)
    applied: list[int] = []

    def pump() -> None:
        for message in device.on("wled/strip/api")[len(applied) :]:
            strip.apply(message.payload)
            applied.append(1)
            device.publish("wled/strip/g", str(strip.bri))

    bridge = MqttBridge(config(broker, wled=("strip",), seats=SEATS, leds_per_seat=LEDS))
    bridge.start()
    try:
        wait_until(connected(bridge), what="the bridge to connect")
        bridge.publish_state(table())

        def shows_table() -> bool:
            pump()
            return tuple(strip.pixels) == expected(table())

        wait_until(shows_table, what="the first frame")
        strip.toggle()
        device.publish("wled/strip/g", str(strip.bri))
        strip.toggle()  # on again: its effect runs
        device.publish("wled/strip/g", str(strip.bri))
        assert tuple(strip.pixels) != expected(table())
        wait_until(shows_table, what="the repaint after the toggle, with no new snapshot")
    finally:
        bridge.stop()


def test_a_blink_keeps_blinking_without_new_snapshots(broker: Broker, subscribe: Subscribe) -> None:
    sub = subscribe(["wled/trackside-t1/api"])
    bridge = MqttBridge(
        config(
            broker, wled=("strip",), wled_group="wled/trackside-t1", seats=SEATS, leds_per_seat=LEDS
        )
    )
    bridge.start()
    try:
        wait_until(connected(bridge), what="the bridge to connect")
        state = table()
        state["cues"] = [{"kind": "unknown_tag", "seat": 3, "at_s": time.time(), "duration_s": 60}]
        bridge.publish_state(state)

        def seat3_colours() -> set[int]:
            seen = set()
            strip = EmulatedStrip(SEATS * LEDS)
            for message in sub.on("wled/trackside-t1/api"):
                strip.apply(message.payload)
                seen.add(strip.pixels[2 * LEDS])
            return seen

        wait_until(lambda: {0xFF0000, 0x000000} <= seat3_colours(), what="red, dark, red…")
    finally:
        bridge.stop()


def test_everything_is_sent_again_after_the_broker_restarts(
    broker: Broker, subscribe: Subscribe
) -> None:
    dashboard = subscribe(["trackside/table-1/#"])
    # Stand-ins for the devices: they reconnect by themselves, in their own time, and say
    # "online" (retained, "offline" as their will) each time, as WLED and ESPHome do.
    strip = subscribe(["wled/strip/api"], status_topic="wled/strip/status")
    lamp = subscribe(["seat1/light/command"], status_topic="seat1/status")
    bridge = MqttBridge(
        config(
            broker,
            wled=("strip",),
            ha_lights=(HaLightConfig("seat1/light/command", 1, "seat1/status"),),
            seats=SEATS,
            leds_per_seat=LEDS,
        )
    )
    bridge.start()
    try:
        wait_until(connected(bridge), what="the bridge to connect")
        bridge.publish_state(table())
        wait_until(lambda: len(strip.on("wled/strip/api")) == 2, what="the first frame")
        wait_until(lambda: len(lamp.on("seat1/light/command")) == 1, what="the seat light")
        before = (dashboard.connections, strip.connections, lamp.connections)

        broker.stop()  # no persistence: retained messages are gone with it
        wait_until(lambda: not bridge.status().connected, what="the bridge to notice")
        assert bridge.status().state == "disconnected"
        # "connection lost: …", or already "cannot connect to …" from a first retry.
        assert (bridge.status().last_error or "").startswith(("connection lost", "cannot connect"))
        bridge.publish_state(table(active=2))  # played on while the broker was away
        for sub in (dashboard, strip, lamp):
            sub.clear()
        broker.start()

        wait_until(connected(bridge), what="the bridge to reconnect")
        wait_until(
            lambda: all(
                now > then
                for now, then in zip(
                    (dashboard.connections, strip.connections, lamp.connections),
                    before,
                    strict=True,
                )
            ),
            what="the dashboard and both devices to reconnect",
        )
        wait_until(
            lambda: (
                (m := dashboard.last("trackside/table-1/state")) is not None
                and json.loads(m.payload) == table(active=2)
            ),
            what="the latest state",
        )
        wait_until(
            lambda: (
                (m := dashboard.last("trackside/table-1/status")) is not None
                and m.payload == "online"
            ),
            what="online again",
        )
        wait_until(
            lambda: tuple(strip_of(strip, "wled/strip/api").pixels) == expected(table(active=2)),
            what="the whole frame on the strip again",
        )
        # The strip is switched on again. (Whether it sees the bridge's own reconnect burst or
        # only the repaint its "online" triggers depends on who resubscribes first; either way
        # a whole frame starts with {"on": true}.)
        wait_until(
            lambda: (
                {"on": True, "tt": 0} in [json.loads(m.payload) for m in strip.on("wled/strip/api")]
            ),
            what="the strip switched on again",
        )
        wait_until(
            lambda: (
                (m := lamp.last("seat1/light/command")) is not None
                and json.loads(m.payload) == light_command(0x400000)
            ),
            what="the seat light again",
        )
    finally:
        bridge.stop()


def test_home_assistant_discovers_the_table_and_a_score_per_player(
    broker: Broker, subscribe: Subscribe
) -> None:
    sub = subscribe(["homeassistant/#"])
    bridge = MqttBridge(config(broker, ha_discovery=True))
    bridge.start()
    try:
        wait_until(connected(bridge), what="the bridge to connect")
        bridge.publish_state(table())
        prefix = "homeassistant/sensor/trackside_table_1"
        wait_until(
            lambda: (
                (m := sub.last(f"{prefix}/player_3_score/config")) is not None and m.payload != ""
            ),
            what="Cy's score sensor",
        )
        cy = json.loads(sub.last(f"{prefix}/player_3_score/config").payload)  # type: ignore[union-attr]
        assert cy["name"] == "Cy score"
        assert cy["state_topic"] == "trackside/table-1/state"
        assert cy["availability_topic"] == "trackside/table-1/status"
        assert "p[2].get('total')" in cy["value_template"]
        status = json.loads(sub.last(f"{prefix}/status/config").payload)  # type: ignore[union-attr]
        assert status["unique_id"] == "trackside_table_1_status"
        event = sub.last("homeassistant/event/trackside_table_1/table_event/config")
        tag = sub.last("homeassistant/tag/trackside_table_1/table_tags/config")
        assert event is not None and json.loads(event.payload)["event_types"] == [
            "round_end",
            "tunnel",
            "last_round",
            "game_over",
        ]
        assert tag is not None and json.loads(tag.payload)["topic"] == "trackside/table-1/ha/tag"

        # a round ends and a spare tag is held at seat 2: one event, one scan, each once
        ha = subscribe(["trackside/table-1/ha/#"])
        now = time.time()
        ended = table()
        ended["cues"] = [
            {"kind": "round_end", "round": 2, "at_s": now},
            {"kind": "unknown_tag", "seat": 2, "uid": "04SPARE77", "at_s": now},
        ]
        bridge.publish_state(ended)
        bridge.publish_state(ended)
        wait_until(lambda: len(ha.on("trackside/table-1/ha/tag")) == 1, what="the tag scan")
        wait_until(lambda: len(ha.on("trackside/table-1/ha/event")) == 1, what="the event")
        assert json.loads(ha.on("trackside/table-1/ha/event")[0].payload) == {
            "event_type": "round_end",
            "game": "russian-railroads",
            "round": 2,
        }
        assert json.loads(ha.on("trackside/table-1/ha/tag")[0].payload) == {
            "uid": "04SPARE77",
            "seat": 2,
        }

        # Home Assistant restarts and says so: it is told about the table again.
        sub.clear()
        sub.publish("homeassistant/status", "online")
        wait_until(
            lambda: sub.last(f"{prefix}/player_3_score/config") is not None,
            what="discovery sent again",
        )

        two = table()
        two["players"] = two["players"][:2]
        bridge.publish_state(two)  # a new game with two players: Cy's sensor goes
        wait_until(
            lambda: (
                (m := sub.last(f"{prefix}/player_3_score/config")) is not None and m.payload == ""
            ),
            what="the third sensor removed",
        )
    finally:
        bridge.stop()


def test_wrong_credentials_are_reported_not_raised(tmp_path: Path) -> None:
    passwords = tmp_path / "passwords"
    subprocess.run(
        ["mosquitto_passwd", "-c", "-b", str(passwords), "table", "s3cret"],
        check=True,
        capture_output=True,
    )
    guarded = Broker(tmp_path, password_file=passwords)
    guarded.start()
    try:
        wrong = MqttBridge(
            MqttConfig(
                host="127.0.0.1",
                port=guarded.port,
                table_id="t",
                username="table",
                password="guess",
                client_id="wrong",
            )
        )
        wrong.start()
        try:
            wait_until(
                lambda: "refused" in (wrong.status().last_error or ""),
                what="the refusal to be reported",
            )
            assert not wrong.status().connected
        finally:
            wrong.stop()
        right = MqttBridge(
            MqttConfig(
                host="127.0.0.1",
                port=guarded.port,
                table_id="t",
                username="table",
                password="s3cret",
                client_id="right",
            )
        )
        right.start()
        try:
            wait_until(connected(right), what="the bridge with the right password")
        finally:
            right.stop()
    finally:
        guarded.stop()


def make_certificates(directory: Path) -> tuple[Path, Path, Path]:
    """A throw-away CA and a server certificate for 127.0.0.1 (openssl CLI, EC keys: fast)."""
    ca, ca_key = directory / "ca.pem", directory / "ca.key"
    cert, key, csr = directory / "server.pem", directory / "server.key", directory / "server.csr"
    ext = directory / "san.ext"
    ext.write_text("subjectAltName=IP:127.0.0.1\n")
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    for command in (
        [
            "openssl",
            "req",
            "-x509",
            *ec,
            "-keyout",
            ca_key,
            "-out",
            ca,
            "-days",
            "2",
            "-subj",
            "/CN=Trackside test CA",
        ],
        ["openssl", "req", *ec, "-keyout", key, "-out", csr, "-subj", "/CN=127.0.0.1"],
        [
            "openssl",
            "x509",
            "-req",
            "-in",
            csr,
            "-CA",
            ca,
            "-CAkey",
            ca_key,
            "-CAcreateserial",
            "-out",
            cert,
            "-days",
            "2",
            "-extfile",
            ext,
        ],
    ):
        subprocess.run([str(c) for c in command], check=True, capture_output=True)
    return ca, cert, key


def test_tls_with_the_tables_own_ca_and_a_clear_error_without_it(tmp_path: Path) -> None:
    ca, cert, key = make_certificates(tmp_path)
    secure = Broker(tmp_path, tls_files=(ca, cert, key))
    secure.start()
    try:
        trusting = MqttBridge(
            MqttConfig(
                host="127.0.0.1",
                port=secure.port,
                table_id="tls",
                tls=True,
                ca_file=str(ca),
                client_id="trusting",
            )
        )
        trusting.start()
        try:
            wait_until(connected(trusting), what="a TLS connection with our CA")
            assert trusting.status().last_error is None
        finally:
            trusting.stop()
        # Without our CA the system store does not know the broker's certificate.
        doubting = MqttBridge(
            MqttConfig(
                host="127.0.0.1", port=secure.port, table_id="tls", tls=True, client_id="doubting"
            )
        )
        doubting.start()
        try:
            wait_until(
                lambda: "certificate verify failed" in (doubting.status().last_error or ""),
                what="the certificate error to be reported",
            )
            assert not doubting.status().connected
        finally:
            doubting.stop()
    finally:
        secure.stop()


def test_events_beyond_the_queue_while_the_broker_is_away_are_counted_as_dropped(
    tmp_path: Path,
) -> None:
    later = Broker(tmp_path)
    bridge = MqttBridge(
        MqttConfig(host="127.0.0.1", port=later.port, table_id="q", max_queued_events=3)
    )
    bridge.start()
    try:
        for seq in range(1, 6):
            bridge.publish_event(seq, {"type": "action_applied"})
        assert bridge.status().dropped_events == 2
        later.start()
        watcher = Subscriber(later, ["trackside/q/event", "trackside/q/status"])
        try:
            wait_until(connected(bridge), what="the bridge to connect")
            # The first three were kept and are delivered once the broker is there.
            wait_until(
                lambda: (
                    [json.loads(m.payload)["seq"] for m in watcher.on("trackside/q/event")]
                    == [1, 2, 3]
                ),
                what="the queued events",
            )
            # A full queue does not crowd out what every connect sends.
            wait_until(
                lambda: (
                    (m := watcher.last("trackside/q/status")) is not None and m.payload == "online"
                ),
                what="online behind the queued events",
            )
        finally:
            watcher.close()
    finally:
        bridge.stop()
        later.stop()


def test_after_a_reconnect_the_whole_frame_follows_the_device_status_subscription(
    broker: Broker, subscribe: Subscribe
) -> None:
    """The race a landing CI once lost: after a broker restart, a WLED that resubscribed after
    the bridge's whole frame, but said "online" before the bridge's status subscription, got
    no frame (its "online" arrived as a retained message, which is only noted) and stayed
    dark. The frame must follow the status subscription on the wire; the subscription is
    slowed down here so that the old order would send the frame first every time."""
    strip = subscribe(["wled/strip/api"], status_topic="wled/strip/status")
    bridge = MqttBridge(config(broker, wled=("strip",), seats=SEATS, leds_per_seat=LEDS))
    order: list[str] = []
    client = bridge._client  # the bridge's own paho client, wrapped to see what goes out
    real_subscribe, real_publish = client.subscribe, client.publish

    def slow_subscribe(topic: Any, *args: Any, **kwargs: Any) -> Any:
        time.sleep(0.5)
        order.append("subscribe")
        return real_subscribe(topic, *args, **kwargs)

    def noted_publish(topic: str, *args: Any, **kwargs: Any) -> Any:
        if topic == "wled/strip/api":
            order.append("frame")
        return real_publish(topic, *args, **kwargs)

    client.subscribe = slow_subscribe  # type: ignore[method-assign]
    client.publish = noted_publish  # type: ignore[method-assign]
    bridge.start()
    try:
        wait_until(connected(bridge), what="the bridge to connect")
        bridge.publish_state(table())
        wait_until(lambda: "frame" in order, what="the first frame")
        broker.stop()
        wait_until(lambda: not bridge.status().connected, what="the bridge to notice")
        order.clear()
        strip.clear()
        broker.start()
        wait_until(
            lambda: tuple(strip_of(strip, "wled/strip/api").pixels) == expected(table()),
            what="the whole frame on the strip again",
        )
        assert order.index("subscribe") < order.index("frame"), order
    finally:
        bridge.stop()


def test_a_state_published_while_connecting_keeps_its_player_sensors(
    broker: Broker, subscribe: Subscribe
) -> None:
    """Another race a loaded machine lost: the connect announces discovery from the state it
    saw (none yet); a state with three players arriving meanwhile announced their sensors,
    and the connect's announcement, published after it, removed them again. The connect's
    announcement is slowed down here so that it is overtaken every time."""
    sub = subscribe(["homeassistant/#", "trackside/table-1/state"])
    bridge = MqttBridge(config(broker, ha_discovery=True))
    client = bridge._client
    real_publish = client.publish
    slowed: list[str] = []

    def publish(topic: str, *args: Any, **kwargs: Any) -> Any:
        ours = topic.startswith("homeassistant/") and threading.current_thread() is not main
        if ours and not slowed:
            slowed.append(topic)
            time.sleep(0.5)  # the connect's announcement, overtaken by the state below
        return real_publish(topic, *args, **kwargs)

    main = threading.current_thread()
    client.publish = publish  # type: ignore[method-assign]
    bridge.start()
    try:
        wait_until(connected(bridge), what="the bridge to connect")
        bridge.publish_state(table())
        wait_until(lambda: bool(slowed), what="the connect's announcement")
        prefix = "homeassistant/sensor/trackside_table_1"
        wait_until(
            lambda: (
                sub.last(f"{prefix}/status/config") is not None
                and len(sub.on(f"{prefix}/status/config")) >= 2
            ),
            what="both announcements",
        )
        time.sleep(0.5)  # anything still on its way
        cy = sub.last(f"{prefix}/player_3_score/config")
        assert cy is not None and cy.payload != "", "Cy's sensor was removed"
        state = sub.last("trackside/table-1/state")
        assert state is not None and json.loads(state.payload) == table()
    finally:
        bridge.stop()
