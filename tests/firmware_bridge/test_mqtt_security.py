"""Issue 18 rows 4, 5 and 6 against a real Mosquitto: a seat pad topic is no way to kill the
bridge, bloat the database or move for a player. Loopback only, bounded in time."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import paho.mqtt.client as paho
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from companion.core import Observation
from companion.core.errors import ConfigError
from companion.service.config import parse_settings
from companion.service.runtime import Trackside
from companion.service.store import MAX_STORED_PAYLOAD
from firmware_bridge.mqtt import MAX_PAD_PAYLOAD, MqttConfig, install_client_id

from .conftest import Broker, Subscriber, wait_until

pytestmark = [pytest.mark.slow, pytest.mark.timeout(90)]
TOPIC = "trackside/pads/pads/{}/tag"
RED_SCAN = '{"uid": "74-10-37-94", "event": "present"}'


@pytest.fixture
def table(tmp_path: Path, broker: Broker) -> Iterator[Trackside]:
    settings = parse_settings(
        {
            "web": {"enabled": False},
            "mqtt": {
                "host": broker.host,
                "port": broker.port,
                "table_id": "pads",
                "seat_pads": True,
                "pads": {"pad-red": 1, "pad-blue": 2},
            },
        },
        data_dir=tmp_path,
    )
    service = Trackside(settings)
    service.store.enrol("74103794", "tiny-race", "die-2")
    service.start()
    players = [
        {"name": "Red", "colour": "red", "seat": 1},
        {"name": "Blue", "colour": "blue", "seat": 2},
    ]
    start = {"command": "start_game", "game": "tiny-race", "players": players}
    service.submit_and_wait(
        Observation.from_json({"source": "table-page", "kind": "command", "payload": start}), 5
    )
    wait_until(
        lambda: service.mqtt is not None and service.mqtt.status().connected, what="bridge up"
    )
    try:
        yield service
    finally:
        service.stop()


def totals(service: Trackside) -> list[int]:
    return [p["total"] for p in service.latest()[1]["players"]]


def db_bytes(service: Trackside) -> int:
    path = service.settings.database.path
    return sum(p.stat().st_size for p in path.parent.iterdir() if p.name.startswith(path.name))


def test_row4_deep_json_on_a_pad_topic_does_not_kill_the_bridge(
    table: Trackside, subscribe: Callable[..., Subscriber]
) -> None:
    pad = subscribe([])
    assert table.mqtt is not None
    for payload in ("[" * 100_000, '{"uid": ' + "[" * 900 + "]" * 900 + "}"):
        pad.publish(TOPIC.format("pad-red"), payload)
    wait_until(lambda: table.mqtt is not None and table.mqtt.pad_messages_rejected >= 2)
    # the bridge still hears the pads: a real scan after the attack is applied
    pad.publish(TOPIC.format("pad-red"), RED_SCAN)
    wait_until(lambda: totals(table) == [2, 0], what="Red's scan after the attack")
    assert table.mqtt.status().connected
    table.wait_idle()
    messages = [r["message"] for r in table.latest()[1]["status"]["recent"]]
    assert any(f"is {100_000} bytes" in m or "at most" in m for m in messages), messages


def test_row4_a_dead_network_thread_is_restarted_and_reported(
    table: Trackside, subscribe: Callable[..., Subscriber], monkeypatch: pytest.MonkeyPatch
) -> None:
    bridge = table.mqtt
    assert bridge is not None
    thread = bridge._client._thread
    assert thread is not None
    # paho's thread ends (as an exception escaping a callback ended it before the fix); the
    # service's status poll must notice, within its second, before anyone reads the chip
    monkeypatch.setattr(table, "_poll_devices", lambda: None)
    bridge._client._thread_terminate = True
    thread.join(10)
    assert not thread.is_alive()
    pad = subscribe([])
    status = bridge.status()  # what the status chip polls every second
    assert not status.connected and "restarted" in (status.last_error or "")
    wait_until(lambda: bridge.status().connected, what="the bridge back")
    pad.publish(TOPIC.format("pad-red"), RED_SCAN)
    wait_until(lambda: totals(table)[0] >= 2, what="a scan after the restart")
    assert bridge.network_restarts == 1


def test_row5_a_huge_uid_is_refused_with_a_short_message_and_stored_small(
    table: Trackside, subscribe: Callable[..., Subscriber]
) -> None:
    pad = subscribe([])
    before = db_bytes(table)
    big = json.dumps({"uid": "A" * 2_000_000, "event": "present"})
    long_uid = json.dumps({"uid": "AB" * 400, "event": "present"})  # under the byte limit
    for payload in (big, long_uid):
        pad.publish(TOPIC.format("pad-red"), payload)
    wait_until(lambda: table.mqtt is not None and table.mqtt.pad_messages_rejected >= 2)
    table.wait_idle()
    state = json.dumps(table.latest()[1])
    assert len(state) < 50_000
    assert "A" * 100 not in state and "AB" * 50 not in state
    messages = [r["message"] for r in table.latest()[1]["status"]["recent"]]
    assert any(
        f"is {len(big)} bytes; a tag event is at most {MAX_PAD_PAYLOAD}" in m for m in messages
    )
    assert any("uid is 800 characters; a tag's uid is at most 64" in m for m in messages)
    assert db_bytes(table) - before < 200_000


def test_row5_stored_raw_input_is_capped_per_message(tmp_path: Path) -> None:
    from companion.service.engine import Engine
    from companion.service.store import EventStore

    store = EventStore(tmp_path / "t.sqlite3")
    engine = Engine(store)
    huge = Observation.from_json(
        {"source": "api", "kind": "tag_present", "payload": {"uid": "F" * 3_000_000}}
    )
    engine.handle(huge)
    store.close()
    conn = sqlite3.connect(tmp_path / "t.sqlite3")
    (payload,) = conn.execute("SELECT payload FROM inputs").fetchone()
    (message,) = conn.execute("SELECT message FROM outcomes").fetchone()
    conn.close()
    kept = json.loads(payload)
    assert kept["truncated"] is True and kept["bytes"] > MAX_STORED_PAYLOAD
    assert len(payload) < 1000 and len(message) < 1100


def test_row6_a_stranger_cannot_move_for_a_player(
    table: Trackside, subscribe: Callable[..., Subscriber]
) -> None:
    stranger = subscribe([])
    # a pad id the table does not know, claiming Red's seat: not heard, not stored
    for _ in range(50):
        stranger.publish(TOPIC.format("evil"), '{"uid": "74-10-37-94", "seat": 1}')
    assert table.mqtt is not None
    wait_until(lambda: table.mqtt is not None and table.mqtt.pad_messages_unknown >= 50)
    table.wait_idle()
    assert totals(table) == [0, 0]
    # Red's pad saying "seat 2" scans for Red (whose turn it is): the configured seat wins
    stranger.publish(TOPIC.format("pad-red"), '{"uid": "74-10-37-94", "seat": 2}')
    wait_until(lambda: totals(table) == [2, 0], what="the scan at Red's seat")


def test_row6_garbage_from_a_pad_is_kept_bounded_and_does_not_delay_a_scan(
    table: Trackside, subscribe: Callable[..., Subscriber]
) -> None:
    flood = subscribe([])
    for i in range(2000):
        flood.client.publish(TOPIC.format("pad-blue"), f"garbage {i}", qos=0)
    pad = subscribe([])
    sent = time.monotonic()
    pad.publish(TOPIC.format("pad-red"), RED_SCAN)
    wait_until(lambda: totals(table)[0] == 2, what="Red's scan during a flood")
    delay = time.monotonic() - sent
    assert delay < 2.0, delay
    # A broker may drop part of a QoS 0 flood to a busy subscriber (Mosquitto queues 1,000
    # messages a client): wait until what did arrive has all been heard, then account for it.
    mqtt = table.mqtt
    assert mqtt is not None
    heard = -1
    while heard != mqtt.pad_messages_rejected:
        heard = mqtt.pad_messages_rejected
        time.sleep(0.5)
    table.wait_idle()
    conn = sqlite3.connect(f"file:{table.settings.database.path}?mode=ro", uri=True)
    (errors,) = conn.execute("SELECT COUNT(*) FROM inputs WHERE kind = 'error'").fetchone()
    conn.close()
    assert heard >= 500, heard  # the flood did reach the table
    assert errors < 100, errors  # a handful kept, the rest counted, every one accounted for:
    assert mqtt.pad_refusals_dropped + errors == heard, (mqtt.pad_refusals_dropped, errors, heard)


def test_row6_the_client_id_cannot_be_guessed_from_the_table_id() -> None:
    one = install_client_id("table-1")
    assert one.startswith("trackside-table-1-") and len(one) == len("trackside-table-1-") + 8
    assert one != "trackside-table-1"
    config = MqttConfig(host="localhost", table_id="table-1")
    assert config.client_id is None  # the default: install_client_id


def test_row6_seat_pads_need_their_ids(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"mqtt\.pads: seat_pads = true needs the pads"):
        parse_settings({"mqtt": {"host": "h", "seat_pads": True}}, data_dir=tmp_path)
    with pytest.raises(ConfigError, match=r"mqtt\.pads\.p: seat 0 is not 1–16"):
        parse_settings(
            {"mqtt": {"host": "h", "seat_pads": True, "pads": {"p": 0}}}, data_dir=tmp_path
        )


def test_row6_the_service_client_id_is_not_knocked_off(table: Trackside, broker: Broker) -> None:
    """Connecting as ``trackside-<table>`` (the old default) no longer takes over the service's
    session; with the installer's broker config (use_username_as_clientid) nobody can."""
    intruder = paho.Client(CallbackAPIVersion.VERSION2, client_id="trackside-pads")
    intruder.connect(broker.host, broker.port)
    intruder.loop_start()
    try:
        time.sleep(1.5)
        assert table.mqtt is not None and table.mqtt.status().connected
    finally:
        intruder.disconnect()
        intruder.loop_stop()
