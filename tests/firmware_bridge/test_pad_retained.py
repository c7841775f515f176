"""Issue 52, point 8: a seat pad's retained tag message is not a scan. The running service on
a real Mosquitto, restarted while the broker keeps the message."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from companion.core import Observation
from companion.service.config import parse_settings
from companion.service.runtime import Trackside

from .conftest import Broker, Subscriber


def test_a_retained_pad_scan_is_not_entered_again_after_a_restart(
    tmp_path: Path,
    broker: Broker,
    subscribe: Callable[..., Subscriber],
    eventually: Callable[..., None],
) -> None:
    """Issue 52, point 8: a pad that retains its tag messages (or anyone publishing one with
    the flag) had the broker hand the scan to the service again after each restart, entered as
    a new scan. Live, it is entered once; retained copies are ignored and counted."""
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
    pad = subscribe([])

    def started() -> Trackside:
        service = Trackside(settings)
        service.start()
        eventually(
            lambda: service.mqtt is not None and service.mqtt._ready, what="subscribed to pads"
        )
        return service

    def pad_inputs(service: Trackside) -> list[str]:
        return [i["source"] for i in service.store.inputs(50) if i["kind"] == "tag_present"]

    service = started()
    try:
        service.store.enrol("74103794", "tiny-race", "die-2")
        service.store.enrol("74103795", "tiny-race", "die-1")
        players = [
            {"name": "Red", "colour": "red", "seat": 1},
            {"name": "Blue", "colour": "blue", "seat": 2},
        ]
        start = {"command": "start_game", "game": "tiny-race", "players": players}
        service.submit_and_wait(
            Observation.from_json({"source": "table-page", "kind": "command", "payload": start}), 5
        )
        scan = '{"uid": "74-10-37-94", "event": "present"}'
        pad.publish("trackside/pads/pads/pad-red/tag", scan, retain=True)
        eventually(lambda: service.latest()[1]["players"][0]["total"] == 2, what="Red's scan")
        service.wait_idle()
        assert pad_inputs(service) == ["pad-red"]
    finally:
        service.stop()
    service = started()  # the broker hands the retained scan to the new subscription
    try:
        # a live scan after it on the same connection: once it is in, the retained one was seen
        pad.publish("trackside/pads/pads/pad-blue/tag", '{"uid": "74103795"}')
        eventually(lambda: service.latest()[1]["players"][1]["total"] == 1, what="Blue's scan")
        service.wait_idle()
        assert pad_inputs(service) == ["pad-blue", "pad-red"]
        assert service.mqtt is not None and service.mqtt.pad_messages_retained == 1
        assert service.latest()[1]["players"][0]["total"] == 2
    finally:
        service.stop()
