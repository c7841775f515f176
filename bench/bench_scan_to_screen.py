"""Scan → screen and scan → lights, end to end through the running service.

A whole Trackside (engine thread, SQLite on disk, Flask on a free port, the MQTT bridge with a
WLED strip configured) runs against a real Mosquitto started here on a free 127.0.0.1 port. A
client holds ``GET /api/events`` open and a subscriber listens on ``wled/strip/api``. Each scan
advances the tiny test race by one (a die tag; the reader has no seat, so the player to move
advances and the turn passes, which repaints two LED zones). We time, from the scan:

(a) the ``event: state`` message carrying the new ``seq`` at the SSE client;
(b) the first WLED message at the subscriber.

Scan sources: ``virtual`` (``VirtualReader.scan``: the service's own software path) and
``pty`` (RDM6300 frames written into a pseudo-terminal that a real ``rdm6300`` serial reader
from ``firmware_bridge.readers`` is reading; two cards alternate, so each frame is a new
presence). A pty has no baud rate: on a real 9600-baud wire add ~14.6 ms for the 14 bytes.

The scoreboard stream sends at most four messages a second (bursts coalesce to the latest), so
scans are paced ``--gap`` seconds apart (default 0.26 s): each scan is timed from a quiet
table, as at a game night. A new race starts (untimed) every 90 scans, before anyone reaches
the target.

Run from the checkout root:
  PYTHONPATH=. python bench/bench_scan_to_screen.py [--n 1000] [--source virtual|pty|both]
Not part of the test suite.
"""

from __future__ import annotations

import argparse
import getpass
import http.client
import json
import os
import socket
import statistics
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion

from companion.core import Observation, ObservationKind
from companion.service.config import parse_settings
from companion.service.runtime import Trackside
from firmware_bridge.frames import encode_rdm6300

CARDS = ("0F002A7F8A", "1A00C3B2D4")  # two RDM6300 cards, both enrolled as the die showing 1
RACE_LENGTH = 90  # scans per race (two players, target 100: nobody finishes)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


class Arrivals:
    """Timestamps of SSE snapshots (by seq) and WLED messages, from the listener threads."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.sse: dict[tuple[int, int], float] = {}
        """(game id, seq) → when the first message showing it arrived (seq restarts per game)."""
        self.wled: list[float] = []

    def wait(self, predicate: Callable[[], bool], what: str, timeout_s: float = 10) -> None:
        with self.cond:
            if not self.cond.wait_for(predicate, timeout_s):
                raise SystemExit(f"timed out waiting for {what}")


def listen_sse(port: int, arrivals: Arrivals, stop: threading.Event) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", "/api/events", headers={"Accept": "text/event-stream"})
    response = conn.getresponse()
    data = ""
    while not stop.is_set():
        raw = response.fp.readline()
        if not raw:
            return
        line = raw.decode().rstrip("\n")
        if line.startswith("data: "):
            data = line[6:]
        elif line == "" and data:
            now = time.perf_counter()
            snapshot = json.loads(data)
            key = (snapshot.get("game_id") or 0, snapshot.get("seq") or 0)
            with arrivals.cond:
                arrivals.sse.setdefault(key, now)
                arrivals.cond.notify_all()
            data = ""


def start_broker(port: int, tmp: Path) -> subprocess.Popen[bytes]:
    conf = tmp / "mosquitto.conf"
    conf.write_text(
        f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n"
        f"user {getpass.getuser()}\nset_tcp_nodelay true\n"
    )
    broker = subprocess.Popen(
        ["mosquitto", "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    for _ in range(300):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return broker
        except OSError:
            time.sleep(0.05)
    raise SystemExit("mosquitto did not start")


def new_race(service: Trackside) -> None:
    _, snap = service.latest()
    if snap.get("game") and snap["game_id"] in snap["status"]["unfinished_games"]:
        end = Observation("bench", ObservationKind.COMMAND, {"command": "end_game"})  # type: ignore[arg-type]
        service.submit_and_wait(end, 10)
    start = {
        "command": "start_game",
        "game": "tiny-race",
        "players": [{"name": "Red", "colour": "red"}, {"name": "Blue", "colour": "blue"}],
        "options": {"target": 100},
    }
    outcome = service.submit_and_wait(
        Observation("bench", ObservationKind.COMMAND, start),  # type: ignore[arg-type]
        10,
    )
    assert outcome["outcome"] == "applied", outcome


def run(source: str, n: int, gap_s: float, broker_port: int, tmp: Path) -> None:
    master = None
    readers: list[dict[str, Any]] = [{"name": "table", "protocol": "virtual"}]
    if source == "pty":
        master, slave = os.openpty()
        link = tmp / f"reader-{time.monotonic_ns()}"
        link.symlink_to(os.ttyname(slave))
        os.close(slave)
        readers = [{"name": "table", "protocol": "rdm6300", "port": str(link)}]
    data_dir = tmp / f"data-{source}"
    settings = parse_settings(
        {
            "web": {"host": "127.0.0.1", "port": 0, "pin": "471108"},
            "readers": readers,
            "mqtt": {
                "host": "127.0.0.1",
                "port": broker_port,
                "table_id": "bench",
                "wled": ["strip"],
                "seats": 2,
                "leds_per_seat": 30,
            },
        },
        data_dir=data_dir,
    )
    service = Trackside(settings)
    service.store.enrol("04D1E5000001", "tiny-race", "die-1")
    for card in CARDS:
        service.store.enrol(card, "tiny-race", "die-1")
    service.start()
    arrivals = Arrivals()

    def on_message(client: paho.Client, userdata: object, msg: paho.MQTTMessage) -> None:
        now = time.perf_counter()
        with arrivals.cond:
            arrivals.wled.append(now)
            arrivals.cond.notify_all()

    watcher = paho.Client(CallbackAPIVersion.VERSION2, client_id=f"bench-{source}")
    watcher.on_message = on_message
    watcher.connect("127.0.0.1", broker_port)
    watcher.subscribe([("wled/strip/api", 0)])
    watcher.loop_start()
    stop = threading.Event()
    try:
        deadline = time.monotonic() + 30
        while service.mqtt is not None and not service.mqtt.status().connected:
            if time.monotonic() > deadline:
                raise SystemExit("the bridge never connected")
            time.sleep(0.01)
        if source == "pty":
            while service.devices["table"].status().state != "connected":
                time.sleep(0.01)
        assert service.web_port is not None
        threading.Thread(
            target=listen_sse, args=(service.web_port, arrivals, stop), daemon=True
        ).start()
        to_sse: list[float] = []
        to_wled: list[float] = []
        for i in range(n):
            if i % RACE_LENGTH == 0:
                new_race(service)
                time.sleep(max(gap_s, 0.5))  # let the stream and the strip settle
            service.wait_idle()
            _, before = service.latest()
            with arrivals.cond:
                frames = len(arrivals.wled)
            began = time.perf_counter()
            if master is not None:
                os.write(master, encode_rdm6300(CARDS[i % 2]))
            else:
                service.scan("table", "04D1E5000001")
            target = (before["game_id"], before["seq"] + 1)
            arrivals.wait(lambda: target in arrivals.sse, f"SSE seq {target} (scan {i})")  # noqa: B023
            arrivals.wait(lambda: len(arrivals.wled) > frames, f"WLED frame (scan {i})")  # noqa: B023
            with arrivals.cond:
                to_sse.append((arrivals.sse[target] - began) * 1e3)
                to_wled.append((arrivals.wled[frames] - began) * 1e3)
            time.sleep(gap_s)
    finally:
        stop.set()
        watcher.disconnect()
        watcher.loop_stop()
        service.stop()
        if master is not None:
            os.close(master)
    for name, samples in (("SSE message at client", to_sse), ("WLED message at broker", to_wled)):
        print(
            f"{source:7s} scan → {name:24s} n={len(samples)}"
            f"  p50 {statistics.median(samples):6.2f} ms  p99 {percentile(samples, 0.99):6.2f} ms"
            f"  max {max(samples):6.2f} ms"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--source", choices=("virtual", "pty", "both"), default="both")
    parser.add_argument("--gap", type=float, default=0.26, help="seconds between scans")
    args = parser.parse_args()
    sources = ("virtual", "pty") if args.source == "both" else (args.source,)
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        broker = start_broker(port, tmp)
        try:
            for source in sources:
                run(source, args.n, args.gap, port, tmp)
        finally:
            broker.terminate()
            broker.wait(timeout=30)


if __name__ == "__main__":
    main()
