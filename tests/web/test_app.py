"""The HTTP surface: /, /api/state, /api/events (SSE), /api/input with the PIN, exports."""

from __future__ import annotations

import http.client
import json
import time

from companion.core import Observation
from companion.service.runtime import Trackside

from .conftest import PIN, start_payload


def client(service: Trackside):  # type: ignore[no-untyped-def]
    return service.app.test_client()


def test_state_without_a_game(service: Trackside) -> None:
    data = client(service).get("/api/state").get_json()
    assert data["schema"] == 1 and data["game"] is None and data["players"] == []
    assert data["status"]["devices"] == {} or "red-seat" in data["status"]["devices"]


def test_input_needs_the_pin(service: Trackside) -> None:
    c = client(service)
    assert c.post("/api/input", json=start_payload()).status_code == 401
    assert (
        c.post("/api/input", json=start_payload(), headers={"X-Trackside-Pin": "0000"}).status_code
        == 401
    )
    ok = c.post("/api/input", json=start_payload(), headers={"X-Trackside-Pin": PIN})
    assert ok.status_code == 200 and ok.get_json()["outcome"] == "applied"


def test_wrong_pins_are_rate_limited(service: Trackside) -> None:
    c = client(service)
    codes = [
        c.post("/api/input", json=start_payload(), headers={"X-Trackside-Pin": "9999"}).status_code
        for _ in range(6)
    ]
    assert codes == [401] * 5 + [429]


def test_bad_input_names_the_field(service: Trackside) -> None:
    c = client(service)
    headers = {"X-Trackside-Pin": PIN}
    r = c.post("/api/input", data="nope", headers=headers)
    assert r.status_code == 400 and r.get_json()["field"] == "body"
    r = c.post("/api/input", json={"kind": "shout"}, headers=headers)
    assert r.status_code == 400 and r.get_json()["field"] == "kind"
    r = c.post(
        "/api/input",
        json={"kind": "action", "payload": {"action": {"kind": "advance"}}},
        headers=headers,
    )
    assert r.status_code == 409 and "no game is running" in r.get_json()["message"]


def test_scoreboard_page_shows_players_and_rejections(service: Trackside) -> None:
    c = client(service)
    c.post("/api/input", json=start_payload(), headers={"X-Trackside-Pin": PIN})
    service.scan("blue-seat", "04D1E5000002")  # out of turn: rejected, visibly
    service.wait_idle()
    html = c.get("/").get_data(as_text=True)
    assert "Tiny Race" in html and "Red" in html and "Blue" in html
    # the scoreboard says it was refused and why, in words (issue 16: no notation on the TV)
    assert "Refused:" in html and "it is Red&#39;s turn" in html
    assert "red-seat" in html  # reader status chip


def test_export_endpoints(service: Trackside) -> None:
    c = client(service)
    c.post("/api/input", json=start_payload(), headers={"X-Trackside-Pin": PIN})
    assert c.get("/api/games").get_json()["games"][0]["game"] == "tiny-race"
    r = c.get("/api/games/1/export?format=csv")
    assert r.status_code == 200 and r.mimetype == "text/csv"
    assert c.get("/api/games/1/export?format=xml").status_code == 400
    assert c.get("/api/games/9/export").status_code == 404


def read_event(conn: http.client.HTTPResponse) -> tuple[str, dict[str, object]]:
    name, data = "", ""
    while True:
        line = conn.readline().decode().rstrip("\n")
        if line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: "):
            data = line[6:]
        elif line == "" and data:
            return name, json.loads(data)


def test_sse_snapshot_on_connect_then_changes(service: Trackside) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", service.web_port, timeout=10)
    conn.request("GET", "/api/events")
    response = conn.getresponse()
    assert response.status == 200 and response.getheader("Content-Type", "").startswith(
        "text/event-stream"
    )
    name, first = read_event(response)
    assert name == "snapshot" and first["game"] is None
    service.submit_and_wait(Observation.from_json({"source": "table-page", **start_payload()}), 5)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        name, snap = read_event(response)
        if snap["game"] == "tiny-race":
            break
    assert name == "state" and snap["game"] == "tiny-race"
    service.scan("red-seat", "04D1E5000002")
    while time.monotonic() < deadline:
        name, snap = read_event(response)
        players = snap["players"]
        assert isinstance(players, list)
        if players[0]["total"] == 2:
            break
    assert players[0]["total"] == 2
    conn.close()


def test_sse_bursts_are_rate_limited_to_the_latest_state(service: Trackside) -> None:
    """A burst of changes reaches a client as a few messages (typed, with the snapshot's
    version as the id), the last one the final state."""
    service.submit_and_wait(Observation.from_json({"source": "table-page", **start_payload()}), 5)
    service.scan("red-seat", "04D1E5000002")
    service.wait_idle()
    conn = http.client.HTTPConnection("127.0.0.1", service.web_port, timeout=10)
    conn.request("GET", "/api/events")
    response = conn.getresponse()
    name, first = read_event(response)
    assert name == "snapshot" and first["seq"] == 2
    # The clock starts with the burst: on a loaded machine the engine takes a while over 40
    # changes, and the messages sent meanwhile are within the rate as well.
    started = time.monotonic()
    for i in range(40):  # undo, redo, undo, … : 40 changes as fast as the engine takes them
        command = "undo" if i % 2 == 0 else "redo"
        payload = {"kind": "command", "payload": {"command": command}}
        service.engine.submit(Observation.from_json({"source": "table-page", **payload}))
    service.wait_idle()
    _, final = service.latest()
    received = []
    while True:
        name, snap = read_event(response)
        received.append((name, snap["seq"]))
        if snap["seq"] == final["seq"]:
            break
    elapsed = time.monotonic() - started
    assert {n for n, _ in received} == {"state"}
    # at most a burst of 3, then four a second: far fewer than 40 messages
    assert len(received) <= 3 + int(elapsed / 0.25) + 1 < 40
    conn.close()


def test_sse_device_chip_changes_still_arrive(service: Trackside) -> None:
    """A change that is only a device's status is not urgent, but it is not lost either."""
    conn = http.client.HTTPConnection("127.0.0.1", service.web_port, timeout=10)
    conn.request("GET", "/api/events")
    response = conn.getresponse()
    read_event(response)
    service.engine.report_device("camera", {"state": "connected"})
    deadline = time.monotonic() + 5
    devices: dict[str, object] = {}
    while "camera" not in devices and time.monotonic() < deadline:
        _, snap = read_event(response)
        devices = snap["status"]["devices"]
    assert devices["camera"] == {"state": "connected"}
    conn.close()


def test_deeply_nested_json_is_refused_not_a_500(service: Trackside) -> None:
    body = "[" * 100_000 + "]" * 100_000
    r = client(service).post(
        "/api/input", data=body, content_type="application/json", headers={"X-Trackside-Pin": PIN}
    )
    assert r.status_code == 400 and "nested too deeply" in r.get_json()["error"]
