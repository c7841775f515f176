"""The demo is a real game night: its recording replays through the engine (tag registry,
seat readers, interpreters, rules) to exactly the golden playthroughs' final results."""

from __future__ import annotations

import json
import time
import urllib.request
from pathlib import Path

import pytest

from companion.core import Observation
from companion.service.demo import default_recording, start_demo
from companion.service.engine import Engine
from companion.service.store import EventStore
from firmware_bridge.virtual import read_recording

GOLDEN = Path(__file__).resolve().parents[1] / "games" / "golden"
WHOLE = Path(__file__).resolve().parents[2] / "companion" / "service" / "recordings" / "sources"


def final_of(game: str) -> dict[str, object]:
    """The expected result: the complete playthrough the night plays, else the golden one."""
    path = WHOLE / f"{game}.json"
    if not path.is_file():
        path = GOLDEN / f"{game}.json"
    final: dict[str, object] = json.loads(path.read_text())["final"]
    return final


def test_demo_night_replays_to_the_golden_results(tmp_path: Path) -> None:
    header, inputs = read_recording(default_recording())
    store = EventStore(tmp_path / "night.sqlite3")
    for tag in header["enrol"]:  # type: ignore[union-attr]
        store.enrol(tag["uid"], tag["game"], tag["component"])  # type: ignore[index]
    engine = Engine(store)
    finals: dict[str, dict[str, object]] = {}
    for item in inputs:
        o = item.observation
        outcome = engine.handle(Observation(o.source, o.kind, o.payload, o.seat))
        assert outcome.outcome in ("applied", "rejected", "logged"), outcome
        _, snap = engine.latest()
        if snap["over"] and snap["game"]:
            finals[str(snap["game"])] = snap
    assert set(finals) == {"russian-railroads", "ticket-to-ride-europe"}, "both games end"
    for game, snap in finals.items():
        golden = final_of(game)
        players = snap["players"]
        assert isinstance(players, list)
        assert [p["total"] for p in players] == golden["totals"], game
        assert snap["winners"] == golden["winners"], game
    assert all(g.ended_at is not None for g in store.games())
    store.close()


@pytest.mark.slow
def test_demo_serves_a_live_scoreboard() -> None:
    service, url = start_demo(port=0, speed=2000)
    try:
        deadline = time.monotonic() + 60
        state: dict[str, object] = {}
        while time.monotonic() < deadline:
            with urllib.request.urlopen(url + "api/state", timeout=5) as r:
                state = json.load(r)
            if state["game"] is not None:
                break
            time.sleep(0.1)
        assert state["game"] is not None and state["players"]
        with urllib.request.urlopen(url, timeout=5) as r:
            assert "Trackside" in r.read().decode()
    finally:
        service.stop()
