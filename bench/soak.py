"""Soak: a running `trackside run` under six RDM6300 seat readers scanning 20 cards a second
each, with a browser-like SSE client and an MQTT subscriber attached (on demand, never in the
test suite).

    .venv/bin/python bench/soak.py [--minutes 30] [--readers 6] [--rate 20] [--report FILE]

What runs: a private Mosquitto on 127.0.0.1; the service as a subprocess (its own config: six
`rdm6300` readers on pseudo-terminals behind stable symlinks, MQTT with a WLED strip, the web
server); a Tiny Race game started from the table page. Every reader gets a new card every
1/rate s (a real RDM6300 frame with a unique uid: reader number + sequence), so each scan is a
`tag_present` (and the previous card's `tag_removed`): 2 × readers × rate inputs a second, each
one an fsync'd SQLite transaction. Once a second the player whose turn it is moves, alternately
from the table page (POST /api/input) and by laying the enrolled die on their seat reader among
its flood of other cards; a move changes the active player and so the seat LEDs.

Reported:
- start-up time (spawn → first /api/state answer) and RSS at idle;
- RSS of the service every 10 s, and at the end;
- dropped and duplicated scans: after a clean stop, every uid written to a reader must be in
  the database exactly once as a tag_present of that reader (must be 0 and 0);
- scan → screen latency: pty write → the SSE frame whose `recent` list first shows the uid
  (the page coalesces to at most 4 frames a second and `recent` holds the last 12 inputs, so at
  this rate only part of the scans are ever on screen: the count is reported);
- scan → MQTT state latency the same way on `trackside/<table>/state`;
- move → screen (SSE) and move → LED (the first WLED frame on `wled/strip/api` after it)
  latency, for the table page's moves (POST) and for die scans on a seat reader (pty write);
- the engine's backlog at the end (inputs still queued when the writers stopped).
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion

from firmware_bridge.frames import encode_rdm6300

ROOT = Path(__file__).resolve().parent.parent
PIN = "471108"
TABLE = "soak"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def ms(values: list[float]) -> str:
    if not values:
        return "n/a (none observed)"
    return (
        f"p50 {percentile(values, 0.5) * 1000:.0f} ms, p99 {percentile(values, 0.99) * 1000:.0f} ms,"
        f" max {max(values) * 1000:.0f} ms (n={len(values)})"
    )


class Seat:
    """A pseudo-terminal behind a stable symlink, like /dev/serial/by-id/… for a USB reader."""

    def __init__(self, folder: Path, number: int) -> None:
        self.number = number
        self.master, slave = os.openpty()
        self.link = folder / f"usb-rdm6300-seat{number}"
        self.link.symlink_to(os.ttyname(slave))
        os.close(slave)
        self.written: list[str] = []
        self.sent_at: dict[str, float] = {}
        self.die_sent: list[float] = []
        self.lock = threading.Lock()

    def scan(self) -> None:
        uid = f"{self.number:02X}{len(self.written):08X}"
        with self.lock:
            self.sent_at[uid] = time.time()
            os.write(self.master, encode_rdm6300(uid))
        self.written.append(uid)

    def scan_die(self) -> None:
        with self.lock:
            self.die_sent.append(time.time())
            os.write(self.master, encode_rdm6300(DIE))

    def drain(self) -> None:
        """The service never writes to an RDM6300; keep the pty's other side empty anyway."""
        with contextlib.suppress(BlockingIOError, OSError):
            os.set_blocking(self.master, False)
            while os.read(self.master, 4096):
                pass


class Watcher:
    """First time each uid shows up in a `recent` list, per channel."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.first_seen: dict[str, dict[str, float]] = {"sse": {}, "mqtt": {}}
        self.led_frames: list[float] = []
        self.sse_versions: list[tuple[float, Any, int]] = []
        """(received at, game id, event seq) of every SSE frame."""
        self.sse_errors = 0

    def saw(self, channel: str, snapshot: dict[str, Any], now: float) -> None:
        seen = self.first_seen[channel]
        with self.lock:
            for item in (snapshot.get("status") or {}).get("recent") or []:
                what = item.get("what") or ""
                if what and what not in seen:
                    seen[what] = now
            if channel == "sse":
                self.sse_versions.append(
                    (now, snapshot.get("game_id"), int(snapshot.get("seq") or 0))
                )


def sse_client(port: int, watcher: Watcher, stop: threading.Event) -> None:
    while not stop.is_set():
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            conn.request("GET", "/api/events", headers={"Accept": "text/event-stream"})
            response = conn.getresponse()
            data: list[str] = []
            while not stop.is_set():
                raw = response.readline()
                if not raw:
                    break
                line = raw.decode("utf-8").rstrip("\n")
                if line.startswith("data: "):
                    data.append(line[6:])
                elif not line and data:
                    now = time.time()
                    watcher.saw("sse", json.loads("\n".join(data)), now)
                    data = []
            conn.close()
        except (OSError, http.client.HTTPException, ValueError):
            watcher.sse_errors += 1
            stop.wait(0.5)


def mqtt_subscriber(port: int, watcher: Watcher) -> paho.Client:
    client = paho.Client(CallbackAPIVersion.VERSION2, client_id="soak-subscriber")

    def on_connect(c: paho.Client, *_: Any) -> None:
        c.subscribe([(f"trackside/{TABLE}/state", 0), ("wled/strip/api", 0)])

    def on_message(c: paho.Client, userdata: Any, message: paho.MQTTMessage) -> None:
        now = time.time()
        if message.topic == "wled/strip/api":
            with watcher.lock:
                watcher.led_frames.append(now)
        else:
            with contextlib.suppress(ValueError):
                watcher.saw("mqtt", json.loads(message.payload), now)

    client.on_connect = on_connect
    client.on_message = on_message
    client.connect("127.0.0.1", port)
    client.loop_start()
    return client


def post(port: int, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/input",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "X-Trackside-Pin": PIN},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as error:
        with error:
            return error.code, json.loads(error.read() or b"{}")


PLAYERS = [
    {"name": "Red", "colour": "red", "seat": 1},
    {"name": "Blue", "colour": "blue", "seat": 2},
]
START = {
    "kind": "command",
    "payload": {
        "command": "start_game",
        "game": "tiny-race",
        "players": PLAYERS,
        "options": {"target": 100},  # the longest race: about 200 moves
    },
}


DIE = "D1E0000001"  # enrolled as Tiny Race's die 1: a scan of it moves the seat's player


def table_moves(
    port: int,
    watcher: Watcher,
    stop: threading.Event,
    seats: list[Seat],
    *,
    moves: list[tuple[float, int, int]],
    die_scans: list[tuple[float, int, int]],
) -> None:
    """Once a second, the player whose turn it is moves: alternately from the table page (POST
    /api/input) and by laying die 1 on their seat's RDM6300 (among that reader's flood of other
    cards). Records (sent at, game id, event seq) to find each move on screen and on the LEDs;
    a new game every 150 moves (Tiny Race ends at 100)."""
    turn = 0
    n = 0
    while not stop.wait(1.0):
        n += 1
        if n % 150 == 0:
            post(port, {"kind": "command", "payload": {"command": "end_game"}})
            post(port, START)
            turn = 0
            continue
        sent = time.time()
        if n % 2:
            body = {
                "kind": "action",
                "payload": {"action": {"kind": "advance", "player": turn, "args": {"steps": 1}}},
            }
            status, answer = post(port, body)
            if status == 200:
                moves.append((sent, int(answer["game_id"]), int(answer["seq"])))
                turn = 1 - turn
            else:  # the race is won: the next one
                post(port, {"kind": "command", "payload": {"command": "end_game"}})
                post(port, START)
                turn = 0
            continue
        with watcher.lock:
            _, game_id, seq = watcher.sse_versions[-1]
        seats[turn].scan_die()
        deadline = time.time() + 3.0
        while time.time() < deadline and not stop.is_set():
            with watcher.lock:
                _, gid, now_seq = watcher.sse_versions[-1]
            if gid == game_id and now_seq > seq:
                die_scans.append((seats[turn].die_sent[-1], int(gid), seq + 1))
                turn = 1 - turn
                break
            time.sleep(0.01)


@contextlib.contextmanager
def mosquitto(folder: Path) -> Iterator[int]:
    port = free_port()
    config = folder / "mosquitto.conf"
    config.write_text(
        f"listener {port} 127.0.0.1\npersistence false\nallow_anonymous true\n"
        f"log_dest none\nuser {os.environ.get('USER') or 'root'}\n"
    )
    binary = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    proc = subprocess.Popen([binary, "-c", str(config)], stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                break
            time.sleep(0.05)
        yield port
    finally:
        proc.terminate()
        proc.wait(10)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--readers", type=int, default=6)
    parser.add_argument("--rate", type=float, default=20.0, help="scans a second per reader")
    parser.add_argument("--report", help="also write the report (JSON) here")
    args = parser.parse_args()

    folder = Path(tempfile.mkdtemp(prefix="trackside-soak-"))
    seats = [Seat(folder, n) for n in range(1, args.readers + 1)]
    web_port = free_port()
    db = folder / "db" / "trackside.sqlite3"
    with mosquitto(folder) as mqtt_port:
        readers = "".join(
            f'[[readers]]\nname = "seat-{s.number}"\nprotocol = "rdm6300"\n'
            f'port = "{s.link}"\nseat = {s.number}\n'
            for s in seats
        )
        config = folder / "trackside.toml"
        config.write_text(
            f'[web]\nhost = "127.0.0.1"\nport = {web_port}\npin = "{PIN}"\n'
            f'[database]\npath = "{db}"\n'
            f'[mqtt]\nhost = "127.0.0.1"\nport = {mqtt_port}\ntable_id = "{TABLE}"\n'
            f'wled = ["strip"]\nseats = {max(2, args.readers)}\nleds_per_seat = 30\n' + readers
        )
        spawned = time.monotonic()
        service = subprocess.Popen(
            [sys.executable, "-m", "companion.service.cli", "run", "--config", str(config)],
            cwd=ROOT,
            env={**os.environ, "TRACKSIDE_DATA": str(folder)},
            stdout=subprocess.DEVNULL,
            stderr=(folder / "service.log").open("wb"),
        )
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{web_port}/api/state", timeout=1):
                    break
            except OSError:
                if service.poll() is not None:
                    print((folder / "service.log").read_text(), file=sys.stderr)
                    return 1
                time.sleep(0.02)
        startup_s = time.monotonic() - spawned
        time.sleep(2.0)
        idle_rss = rss_mib(service.pid)
        print(f"start-up {startup_s:.2f} s, RSS at idle {idle_rss:.1f} MiB", flush=True)

        watcher = Watcher()
        stop = threading.Event()
        threading.Thread(target=sse_client, args=(web_port, watcher, stop), daemon=True).start()
        subscriber = mqtt_subscriber(mqtt_port, watcher)
        enrol = {"command": "enrol", "uid": DIE, "component": "die-1", "game": "tiny-race"}
        post(web_port, {"kind": "command", "payload": enrol})
        post(web_port, START)
        moves: list[tuple[float, int, int]] = []
        die_scans: list[tuple[float, int, int]] = []
        mover = threading.Thread(
            target=table_moves,
            args=(web_port, watcher, stop, seats[:2]),
            kwargs={"moves": moves, "die_scans": die_scans},
            daemon=True,
        )
        mover.start()

        rss: list[tuple[float, float]] = [(0.0, idle_rss)]
        period = 1.0 / args.rate
        began = time.monotonic()
        end = began + args.minutes * 60
        tick = 0
        next_rss = began + 10
        while (now := time.monotonic()) < end:
            target = began + tick * period
            if target > now:
                time.sleep(target - now)
            for seat in seats:
                seat.scan()
            tick += 1
            if time.monotonic() >= next_rss:
                rss.append((time.monotonic() - began, rss_mib(service.pid)))
                print(f"  {rss[-1][0]:6.0f} s  RSS {rss[-1][1]:6.1f} MiB", flush=True)
                next_rss += 10
                for seat in seats:
                    seat.drain()
        written_s = time.monotonic() - began
        # let the last scans through (and the last cards' removal), then stop cleanly
        settle_deadline = time.monotonic() + 120
        expected = sum(len(s.written) for s in seats)
        while time.monotonic() < settle_deadline:
            conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
            done = conn.execute("SELECT count(*) FROM inputs WHERE kind = 'tag_present'").fetchone()
            conn.close()
            if done[0] >= expected:
                break
            time.sleep(0.5)
        backlog_s = time.monotonic() - began - written_s
        time.sleep(2.0)
        final_rss = rss_mib(service.pid)
        stop.set()
        service.send_signal(signal.SIGTERM)
        service.wait(30)
        subscriber.loop_stop()
        subscriber.disconnect()

    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    rows = conn.execute(
        "SELECT source, payload FROM inputs WHERE kind = 'tag_present' ORDER BY id"
    ).fetchall()
    conn.close()
    recorded: dict[str, list[str]] = {}
    die_recorded: dict[str, int] = {}
    for source, payload in rows:
        uid = json.loads(payload)["uid"]
        if uid == DIE:
            die_recorded[source] = die_recorded.get(source, 0) + 1
        else:
            recorded.setdefault(source, []).append(uid)
    dropped = duplicated = out_of_order = 0
    for seat in seats:
        extra = die_recorded.get(f"seat-{seat.number}", 0) - len(seat.die_sent)
        dropped += max(0, -extra)
        duplicated += max(0, extra)
        got = recorded.get(f"seat-{seat.number}", [])
        dropped += len(set(seat.written) - set(got))
        duplicated += len(got) - len(set(got))
        out_of_order += int(got != seat.written and set(got) == set(seat.written))

    sent = {uid: at for seat in seats for uid, at in seat.sent_at.items()}
    sse = [t - sent[u] for u, t in watcher.first_seen["sse"].items() if u in sent]
    mqtt = [t - sent[u] for u, t in watcher.first_seen["mqtt"].items() if u in sent]

    def on_screen_and_leds(
        inputs: list[tuple[float, int, int]],
    ) -> tuple[list[float], list[float]]:
        screen: list[float] = []
        leds: list[float] = []
        for sent_at, game_id, seq in inputs:
            shown = [
                t
                for t, gid, at_seq in watcher.sse_versions
                if t >= sent_at and gid == game_id and at_seq >= seq
            ]
            if shown:
                screen.append(min(shown) - sent_at)
            frames = [t for t in watcher.led_frames if t >= sent_at]
            if frames and frames[0] - sent_at < 1.0:
                leds.append(frames[0] - sent_at)
        return screen, leds

    move_sse, move_led = on_screen_and_leds(moves)
    die_sse, die_led = on_screen_and_leds(die_scans)
    total = sum(len(s.written) for s in seats)
    report = {
        "minutes": args.minutes,
        "readers": args.readers,
        "rate_per_reader": args.rate,
        "scans_written": total,
        "achieved_scans_per_s": round(total / written_s, 1),
        "startup_s": round(startup_s, 2),
        "rss_mib_idle": round(idle_rss, 1),
        "rss_mib_end": round(final_rss, 1),
        "rss_mib_over_time": [(round(t), round(m, 1)) for t, m in rss],
        "dropped": dropped,
        "duplicated": duplicated,
        "readers_out_of_order": out_of_order,
        "backlog_after_writers_stopped_s": round(backlog_s, 1),
        "scan_to_screen": ms(sse),
        "scan_to_mqtt_state": ms(mqtt),
        "move_to_screen": ms(move_sse),
        "move_to_led": ms(move_led),
        "die_scan_to_screen": ms(die_sse),
        "die_scan_to_led": ms(die_led),
        "die_scans": sum(len(seat.die_sent) for seat in seats),
        "sse_reconnects": watcher.sse_errors,
    }
    print(json.dumps(report, indent=1))
    if args.report:
        Path(args.report).write_text(json.dumps(report, indent=1) + "\n")
    shutil.rmtree(folder, ignore_errors=True)
    return 0 if dropped == duplicated == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
