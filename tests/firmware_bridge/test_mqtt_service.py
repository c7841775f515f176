"""The running service on a real Mosquitto: a scan at a seat reader becomes the retained state
and a QoS 1 event, with its sequence number, for anyone subscribed."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from companion.core import Observation
from companion.service.config import parse_settings
from companion.service.runtime import Trackside

from .conftest import Broker, Subscriber


def test_scan_reaches_mqtt_state_and_event(
    tmp_path: Path,
    broker: Broker,
    subscribe: Callable[..., Subscriber],
    eventually: Callable[..., None],
) -> None:
    settings = parse_settings(
        {
            "web": {"enabled": False},
            "mqtt": {"host": broker.host, "port": broker.port, "table_id": "test-table"},
            "readers": [{"name": "red-seat", "protocol": "virtual", "seat": 1}],
        },
        data_dir=tmp_path,
    )
    service = Trackside(settings)
    service.store.enrol("04D1E5000003", "tiny-race", "die-3")
    sub = subscribe(["trackside/test-table/#"])
    service.start()
    try:
        eventually(
            lambda: (
                (m := sub.last("trackside/test-table/status")) is not None and m.payload == "online"
            ),
            what="online",
        )
        players = [
            {"name": "Red", "colour": "red", "seat": 1},
            {"name": "Blue", "colour": "blue", "seat": 2},
        ]
        start = {"command": "start_game", "game": "tiny-race", "players": players}
        service.submit_and_wait(
            Observation.from_json({"source": "table-page", "kind": "command", "payload": start}), 5
        )
        service.scan("red-seat", "04D1E5000003")

        def red_total() -> int | None:
            m = sub.last("trackside/test-table/state")
            if m is None:
                return None
            state = json.loads(m.payload)
            return state["players"][0]["total"] if state["players"] else None

        eventually(lambda: red_total() == 3, what="Red's 3 in the retained state")
        eventually(lambda: len(sub.on("trackside/test-table/event")) >= 2, what="two events")
        events = [json.loads(m.payload) for m in sub.on("trackside/test-table/event")]
        assert [e["seq"] for e in events[:2]] == [1, 2]
        assert events[1]["event"]["type"] == "action_applied"
        assert all(m.qos == 1 for m in sub.on("trackside/test-table/event"))
        # a late subscriber gets the current state, retained
        late = subscribe(["trackside/test-table/state"])
        eventually(
            lambda: (m := late.last("trackside/test-table/state")) is not None and m.retain,
            what="retained state",
        )
    finally:
        service.stop()


def test_seat_pad_scans_over_mqtt_reach_the_engine(
    tmp_path: Path,
    broker: Broker,
    subscribe: Callable[..., Subscriber],
    eventually: Callable[..., None],
) -> None:
    settings = parse_settings(
        {
            "web": {"enabled": False},
            "mqtt": {
                "host": broker.host,
                "port": broker.port,
                "table_id": "pads",
                "seat_pads": True,
                "pads": {"pad-red": 1},
            },
        },
        data_dir=tmp_path,
    )
    service = Trackside(settings)
    service.store.enrol("74103794", "tiny-race", "die-2")
    service.start()
    pad = subscribe([])
    try:
        players = [
            {"name": "Red", "colour": "red", "seat": 1},
            {"name": "Blue", "colour": "blue", "seat": 2},
        ]
        start = {"command": "start_game", "game": "tiny-race", "players": players}
        service.submit_and_wait(
            Observation.from_json({"source": "table-page", "kind": "command", "payload": start}), 5
        )
        eventually(
            lambda: (
                service.mqtt is not None and service.mqtt.status().to_json()["state"] == "connected"
            ),
            what="bridge up",
        )
        # what the ESPHome pad publishes (docs/protocols/seat-pads.md)
        pad.publish(
            "trackside/pads/pads/pad-red/tag",
            '{"uid": "74-10-37-94", "event": "present", "seat": 1}',
        )
        eventually(
            lambda: service.latest()[1]["players"][0]["total"] == 2, what="Red's scan applied"
        )
        pad.publish("trackside/pads/pads/pad-red/tag", "not json")
        eventually(
            lambda: service.mqtt is not None and service.mqtt.pad_messages_rejected == 1,
            what="garbage counted",
        )
        service.wait_idle()
        recent = service.latest()[1]["status"]["recent"]
        assert recent[-1]["kind"] == "error" and "not JSON" in recent[-1]["message"]
        assert recent[-2]["source"] == "pad-red" and recent[-2]["outcome"] == "applied"
    finally:
        service.stop()
