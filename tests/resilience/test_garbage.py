"""Garbage at every boundary of the running service — serial bytes on a reader's port, MQTT
payloads on the topics the service listens to and on its own, HTTP bodies and form fields on
POST /api/input, snapshot files for `trackside score` — is refused with a clear message; the
service keeps running and the next good input is recorded and applied as usual."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from companion.games import game_names
from tests.firmware_bridge.frame_fixtures import rdm6300_frame
from tests.firmware_bridge.ptys import PtyDevice

from .conftest import DIE_UIDS, Broker, Running, ServiceFactory, Subscriber, wait_until

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]
ROOT = Path(__file__).resolve().parents[2]


def advance(player: int, steps: int) -> dict[str, Any]:
    return {
        "kind": "action",
        "payload": {"action": {"kind": "advance", "player": player, "args": {"steps": steps}}},
    }


def test_serial_garbage_on_a_reader_is_counted_and_the_next_card_is_one_scan(
    run_service: ServiceFactory, tmp_path: Path
) -> None:
    device = PtyDevice(tmp_path / "usb-rdm6300-seat1").plug()
    try:
        running = run_service(
            {
                "readers": [
                    {"name": "red-seat", "protocol": "rdm6300", "port": str(device.link), "seat": 1}
                ]
            }
        )
        wait_until(lambda: running.device("red-seat").get("state") == "connected", what="reader")
        running.start_tiny_race()
        rng = random.Random(9)
        garbage = [
            bytes(rng.randrange(256) for _ in range(4096)),  # line noise
            b"\x02" + b"F" * 5000,  # a frame that never ends
            rdm6300_frame(DIE_UIDS[1], checksum=0x00),  # a bad checksum
            b"\x02ZZZZZZZZZZ00\x03",  # not hex
            b"\x03\x03\x02\x02\x00\x00\xff\xfe",
            rdm6300_frame(DIE_UIDS[1])[:7] + b"\x02",  # cut short by the next start byte
        ]
        for chunk in garbage:
            device.write(chunk)
            time.sleep(0.05)
        wait_until(lambda: running.device("red-seat").get("frames_bad", 0) >= 3, what="bad frames")
        assert running.totals() == [0, 0]
        for _ in range(3):  # the die, held on the reader: repeated frames
            device.write(rdm6300_frame(DIE_UIDS[2]))
            time.sleep(0.05)
        wait_until(lambda: running.totals() == [2, 0], what="the good scan")
        time.sleep(1.0)
        assert running.scans("red-seat") == [DIE_UIDS[2]]
        assert running.device("red-seat")["state"] in ("connected", "error")
        assert running.service.devices["red-seat"].status().connections == 1  # never dropped
    finally:
        device.unplug()


def test_mqtt_garbage_on_our_topics_changes_nothing(
    run_service: ServiceFactory, broker: Broker, subscribe: Any
) -> None:
    table = "garbage"
    vandal: Subscriber = subscribe([])
    running: Running = run_service(
        {
            "mqtt": {
                "host": broker.host,
                "port": broker.port,
                "table_id": table,
                "wled": ["strip"],
                "ha_discovery": True,
                "ha_lights": [
                    {
                        "command_topic": "seat1/light/set",
                        "seat": 1,
                        "availability_topic": "seat1/status",
                    }
                ],
                "reconnect_max_s": 2,
            },
            "readers": [{"name": "red-seat", "protocol": "virtual", "seat": 1}],
        }
    )
    wait_until(lambda: running.device("mqtt").get("state") == "connected", what="MQTT up")
    running.start_tiny_race()
    nasty = [
        b"",
        b"\xff\xfe\x00garbage",
        b"online\x00",
        b"{" * 10_000,
        json.dumps({"state": "online", "on": [1e308, None]}).encode(),
        os.urandom(256 * 1024),
        "online 🚂".encode(),
    ]
    topics = [
        "wled/strip/status",
        "seat1/status",
        "homeassistant/status",
        f"trackside/{table}/state",
        f"trackside/{table}/event",
        f"trackside/{table}/status",
        f"trackside/{table}/input",
    ]
    for topic in topics:
        for payload in nasty:
            vandal.client.publish(topic, payload, qos=1, retain=False).wait_for_publish(30)
    # a dashboard that subscribes later must not see garbage as the table's retained state
    vandal.client.publish(
        f"trackside/{table}/state", b"\x00junk", qos=1, retain=True
    ).wait_for_publish(30)
    # (the test's own subscriber reads text: it comes after the binary garbage)
    dashboard: Subscriber = subscribe([f"trackside/{table}/#"])
    running.service.scan("red-seat", DIE_UIDS[3])
    running.service.wait_idle()
    assert running.totals() == [3, 0]

    def state_ok() -> bool:
        message = dashboard.last(f"trackside/{table}/state")
        if message is None:
            return False
        try:
            return [p["total"] for p in json.loads(message.payload)["players"]] == [3, 0]
        except ValueError:
            return False

    wait_until(state_ok, what="the real state after the garbage")
    late: Subscriber = subscribe([f"trackside/{table}/state"])
    wait_until(lambda: late.last(f"trackside/{table}/state") is not None, what="retained state")
    assert json.loads(late.on(f"trackside/{table}/state")[-1].payload)["players"][0]["total"] == 3
    assert running.device("mqtt")["state"] == "connected"
    # MQTT garbage never became an input: the game's start and the one scan, nothing else
    assert [kind for _, kind, _, _ in running.inputs()] == ["command", "tag_present"]


def test_http_garbage_on_post_api_input_is_refused_with_the_field_named(
    run_service: ServiceFactory,
) -> None:
    running = run_service()
    running.start_tiny_race()
    recorded = len(running.inputs())
    refused_before_the_engine: list[tuple[bytes | dict[str, Any] | list[Any], str, str]] = [
        (b"{not json", "body", "expected a JSON object"),
        (b"\xff\xfe\x00\x01", "body", "expected a JSON object"),
        (b"", "body", "expected a JSON object"),
        ([1, 2, 3], "body", "expected a JSON object"),
        (b'"advance"', "body", "expected a JSON object"),
        (b"null", "body", "expected a JSON object"),
        ({}, "kind", "None is not 'action' or 'command'"),
        ({"kind": "scan"}, "kind", "'scan' is not 'action' or 'command'"),
        ({"kind": ["action"]}, "kind", "['action'] is not 'action' or 'command'"),
        ({"kind": "action", "seat": "abc", "payload": {}}, "body.seat", "expected a seat number"),
        ({"kind": "action", "seat": -1, "payload": {}}, "body.seat", "expected a seat number"),
        ({"kind": "action", "seat": True, "payload": {}}, "body.seat", ""),
        ({"kind": "action", "payload": "advance 3"}, "body.payload", ""),
        ({"kind": "command", "payload": []}, "body.payload", ""),
    ]
    for body, field, message in refused_before_the_engine:
        status, answer = running.post(body)
        assert status == 400, (body, status, answer)
        assert answer["field"] == field, (body, answer)
        assert message in answer["error"], (body, answer)
    # form fields instead of JSON (what a plain HTML form would send)
    status, answer = running.post(
        b"pin=471108&kind=action&payload=advance",
        content_type="application/x-www-form-urlencoded",
        pin=None,
    )
    assert (status, answer["field"]) == (400, "body")
    status, answer = running.post(
        b"pin=0000&kind=action", content_type="application/x-www-form-urlencoded", pin=None
    )
    assert (status, answer["field"]) == (401, "pin")
    assert len(running.inputs()) == recorded  # none of it reached the database

    # well-formed JSON the game refuses: recorded as refused inputs, the game unchanged
    refused_by_the_game = [
        advance(0, 99),
        advance(7, 1),
        b'{"kind":"action","payload":{"action":{"kind":"advance","player":0,"args":{"steps":NaN}}}}',
        b'{"kind":"action","payload":{"action":{"kind":"advance","player":0,"args":{"steps":1e999}}}}',
        {"kind": "action", "payload": {"action": {"kind": "teleport", "player": 0, "args": {}}}},
        {"kind": "command", "payload": {"command": "start_game", "game": "../../etc/passwd"}},
        {"kind": "command", "payload": {"command": "rm -rf /"}},
        # SQLite cannot hold these: refused whole, not an internal error
        {"kind": "action", "seat": 10**30, "payload": advance(0, 1)["payload"]},
        b'{"kind":"command","payload":{"command":"enrol","uid":"\\ud800","component":"die-1"}}',
    ]
    for body in refused_by_the_game:
        status, answer = running.post(body)
        assert status == 409, (body, status, answer)
        assert answer["outcome"] == "rejected"
        assert "internal error" not in answer["message"], (body, answer)
    assert running.totals() == [0, 0]
    assert running.state()["status"]["store_error"] is None

    # and the table plays on
    status, answer = running.post(advance(0, 3))
    assert (status, answer["outcome"]) == (200, "applied")
    assert running.totals() == [3, 0]


GARBAGE_SNAPSHOTS: list[tuple[bytes, str]] = [
    (b"", "not valid JSON"),
    (b"\x00\x01\x02\xff", "not UTF-8 text"),
    (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    (b"[]", "the snapshot must be a JSON object"),
    (b'{"game": 5}', "unknown game 5"),
    (b'{"game": "monopoly"}', "unknown game 'monopoly'"),
    (b'{"players": []}', "game: missing"),
]


@pytest.mark.parametrize(("content", "message"), GARBAGE_SNAPSHOTS)
def test_a_garbage_snapshot_file_is_one_clear_line_and_exit_2(
    tmp_path: Path, content: bytes, message: str
) -> None:
    snapshot = tmp_path / "snapshot.json"
    snapshot.write_bytes(content)
    result = subprocess.run(
        [sys.executable, "-m", "companion.service.cli", "score", str(snapshot)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("trackside: error: "), result.stderr
    assert message in lines[0]


@pytest.mark.parametrize("game", game_names())
def test_every_game_refuses_a_garbage_snapshot_naming_a_field(tmp_path: Path, game: str) -> None:
    rng = random.Random(game)
    for n, extra in enumerate(
        [
            {},
            {"format": "one"},
            {"format": 1, "players": "x"},
            {"format": 1, "players": [rng.random()]},
        ]
    ):
        snapshot = tmp_path / f"{n}.json"
        snapshot.write_text(json.dumps({"game": game, **extra}))
        result = subprocess.run(
            [sys.executable, "-m", "companion.service.cli", "score", str(snapshot)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert result.returncode == 2, (extra, result.stdout)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("trackside: error: "), result.stderr
        assert ": " in lines[0].removeprefix("trackside: error: ")  # "<field path>: <reason>"
