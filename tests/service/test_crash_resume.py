"""SIGKILL mid-replay, then start again: every acknowledged event is there, no input is played
twice, and the game ends exactly as an uninterrupted replay does. A real subprocess, a real
SQLite file, the real replay reader."""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from companion.core.jsonvalue import dumps
from companion.core.observation import Observation
from companion.service.engine import Engine
from companion.service.store import EventStore
from firmware_bridge.virtual import read_recording

DIE_UIDS = {n: f"04D1E500000{n}" for n in (1, 2, 3)}


def make_recording(path: Path, moves: int = 60) -> None:
    """A long Tiny Race night: two seats scanning dice, some out of turn (refused)."""
    rng = random.Random(7)
    header = {
        "format": "trackside-recording",
        "version": 1,
        "title": "crash test night",
        "enrol": [
            {"uid": uid, "game": "tiny-race", "component": f"die-{n}"}
            for n, uid in DIE_UIDS.items()
        ],
    }
    lines: list[dict[str, Any]] = [header]
    t = 0.0
    players = [
        {"name": "Red", "colour": "red", "seat": 1},
        {"name": "Blue", "colour": "blue", "seat": 2},
    ]
    start = {
        "command": "start_game",
        "game": "tiny-race",
        "players": players,
        "options": {"target": 100},
    }
    lines.append(
        {"at_s": t, "observation": {"source": "table-page", "kind": "command", "payload": start}}
    )
    turn = 1
    for _ in range(moves):
        t += 1.0
        seat = turn if rng.random() > 0.15 else 3 - turn  # now and then someone scans out of turn
        uid = DIE_UIDS[rng.randint(1, 3)]
        lines.append(
            {
                "at_s": t,
                "observation": {
                    "source": f"seat-{seat}",
                    "kind": "tag_present",
                    "payload": {"uid": uid},
                    "seat": seat,
                },
            }
        )
        if seat == turn:
            turn = 3 - turn
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def write_config(tmp: Path, recording: Path, port: int) -> Path:
    config = tmp / "trackside.toml"
    config.write_text(
        f"""
[web]
host = "127.0.0.1"
port = {port}

[database]
path = "{tmp / "db" / "trackside.sqlite3"}"

[[readers]]
name = "night"
protocol = "replay"
port = "{recording}"
speed = 40
"""
    )
    return config


def state(port: int) -> dict[str, Any] | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=2) as r:
            data: dict[str, Any] = json.load(r)
            return data
    except OSError:
        return None


def start(config: Path, tmp: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "TRACKSIDE_DATA": str(tmp)}
    return subprocess.Popen(
        [sys.executable, "-m", "companion.service.cli", "run", "--config", str(config)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def wait_until(predicate: Any, timeout_s: float) -> Any:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"not reached within {timeout_s} s")


def wait_replay_finished(port: int, reader: str, timeout_s: float) -> None:
    """Until the service says its replay reader has played the whole recording."""
    wait_until(
        lambda: (
            (s := state(port)) and s["status"]["devices"].get(reader, {}).get("state") == "finished"
        ),
        timeout_s,
    )


def replayed_refs(store: EventStore) -> list[str]:
    """The refs of every replayed input in the raw log, in order (each must appear once)."""
    return [r[0] for r in store._conn.execute("SELECT ref FROM inputs WHERE ref != '' ORDER BY id")]


def uninterrupted(recording: Path, tmp: Path) -> list[str]:
    """The reference: the same recording fed straight into an engine, no crash."""
    header, inputs = read_recording(recording)
    store = EventStore(tmp / "reference.sqlite3")
    for tag in header["enrol"]:  # type: ignore[union-attr]
        store.enrol(tag["uid"], tag["game"], tag["component"])  # type: ignore[index]
    engine = Engine(store)
    for item in inputs:
        o = item.observation
        engine.handle(Observation(o.source, o.kind, o.payload, o.seat))
    events = [dumps(e.event.__class__.__name__) + dumps(str(e.event)) for e in store.entries(1)]
    store.close()
    return events


@pytest.mark.slow
@pytest.mark.parametrize("kill_after_seq", [3, 17, 31])
def test_sigkill_mid_replay_then_resume(tmp_path: Path, kill_after_seq: int) -> None:
    recording = tmp_path / "night.jsonl"
    make_recording(recording)
    port = free_port()
    config = write_config(tmp_path, recording, port)
    db = tmp_path / "db" / "trackside.sqlite3"
    # the table had these tags enrolled before the night
    store = EventStore(db)
    for n, uid in DIE_UIDS.items():
        store.enrol(uid, "tiny-race", f"die-{n}")
    store.close()

    proc = start(config, tmp_path)
    try:
        acknowledged = wait_until(
            lambda: (s := state(port)) and s["seq"] >= kill_after_seq and s, 60
        )
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
    acked_seq = acknowledged["seq"]
    conn = sqlite3.connect(db)
    seqs = [r[0] for r in conn.execute("SELECT seq FROM events WHERE game_id = 1 ORDER BY seq")]
    conn.close()
    assert seqs[:acked_seq] == list(range(1, acked_seq + 1)), "an acknowledged event is missing"

    proc = start(config, tmp_path)
    try:
        # the restarted service resumes the game and the replay where they stopped
        first = wait_until(lambda: state(port), 30)
        assert first["seq"] >= acked_seq
        assert first["table"] is not None
        total = len(read_recording(recording)[1])
        wait_replay_finished(port, "night", 90)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(15)
    store = EventStore(db)
    try:
        refs = replayed_refs(store)
        assert len(refs) == len(set(refs)) == total, "an input was lost or played twice"
        events = [dumps(e.event.__class__.__name__) + dumps(str(e.event)) for e in store.entries(1)]
    finally:
        store.close()
    assert events == uninterrupted(recording, tmp_path)
