"""The club hub under a club night's load: N simulated tables publishing into a real Mosquitto
(the club broker, started here on a free 127.0.0.1 port), ``trackside hub`` subscribed to it as
its own process. Reports the hub's CPU (share of one core), its peak RSS, and the state lag
(a table's ``updated_at`` to the hub handling that state) p50/p99, from the hub's ``/api/hub``.

Each table applies an event every ``--interval`` seconds on average (exponential spacing) and
publishes, as a real table does, its retained state (padded to a real snapshot's size: Russian
Railroads up to 27 KB, Ticket to Ride ≈ 9 KB, measured on the recorded game night) and the
event (with ``db`` and ``seq``). Every ``--game-events`` events a game ends; the simulated table
answers the hub's resend request with that result, so the hub stores results as it would.

The broker runs the shipped club config (hardware/deploy/mosquitto-club.conf and its ACL),
each simulated table logging in as itself. ``--hostile`` adds one more table login gone rogue,
in its own process, publishing at full speed (QoS 0) what costs the hub most: states just under
the 512 KiB bound, JSON nested too deeply to parse, answers with more results than a table
sends, events skipping numbers (each makes the hub ask), and forgeries under the other tables'
ids (refused by the broker). Reported: its messages/s, and the hub's CPU and the honest tables'
lag meanwhile.

Run from the checkout root:  PYTHONPATH=. python bench/bench_hub.py [--tables 50]
[--interval 10] [--seconds 60] [--hostile]; ``--interval 1`` is ten times a game night's pace.
Not part of the test suite.
"""

from __future__ import annotations

import argparse
import getpass
import heapq
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion

DEPLOY = Path(__file__).resolve().parents[1] / "hardware" / "deploy"
ROGUE = "table-rogue"

CLK = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_port(port: int, timeout_s: float = 30) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"nothing listens on {port}")


def cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


class SimTable:
    def __init__(self, name: str, rng: random.Random) -> None:
        self.name = name
        self.db = f"sim-{name}"
        self.game_id = 1
        self.seq = 1
        self.rng = rng
        self.pad = "x" * rng.choice([8_000, 15_000, 27_000])
        self.players = [("Ana", "red"), ("Petr", "blue"), ("Lucía", "yellow"), ("Jan", "green")]
        self.totals = [0, 0, 0, 0]
        self.results: list[dict[str, Any]] = []

    def step(self, game_events: int) -> list[tuple[str, str, bool]]:
        """(topic, payload, retained) for one applied event."""
        self.seq += 1
        ended = self.seq >= game_events
        if not ended:
            self.totals[self.seq % 4] += self.rng.randint(0, 6)
        state = {
            "schema": 1,
            "game": "russian-railroads",
            "game_id": self.game_id,
            "seq": self.seq,
            "title": "Russian Railroads",
            "over": ended,
            "players": [
                {"index": i, "name": n, "colour": c, "seat": i + 1, "total": t}
                for i, ((n, c), t) in enumerate(zip(self.players, self.totals, strict=True))
            ],
            "winners": [],
            "status": {
                "round": 1 + self.seq // 10,
                "active_players": [self.seq % 4],
                "waiting_for": None,
            },
            "table": {"blob": self.pad},
            "updated_at": time.time(),
        }
        kind = "game_ended" if ended else "action_applied"
        event = {
            "schema": 1,
            "seq": self.seq,
            "db": self.db,
            "event": {"game_id": self.game_id, "type": kind},
        }
        out = [
            (f"trackside/{self.name}/state", json.dumps(state), True),
            (f"trackside/{self.name}/event", json.dumps(event), False),
        ]
        if ended:
            best = max(self.totals)
            self.results.append(
                {
                    "game_id": self.game_id,
                    "game": "russian-railroads",
                    "started_at": time.time() - 60,
                    "ended_at": time.time(),
                    "players": [
                        {"name": n, "total": t}
                        for (n, _), t in zip(self.players, self.totals, strict=True)
                    ],
                    "winners": [
                        n for (n, _), t in zip(self.players, self.totals, strict=True) if t == best
                    ],
                }
            )
            self.game_id += 1
            self.seq = 1  # the next game's game_started
            self.totals = [0, 0, 0, 0]
            start = {
                "schema": 1,
                "seq": 1,
                "db": self.db,
                "event": {"game_id": self.game_id, "type": "game_started"},
            }
            out.append((f"trackside/{self.name}/event", json.dumps(start), False))
        return out


def hostile(port: int, seconds: float, victim: str, counter: Path, mode: str) -> None:
    """The rogue table (its own process): publishes as fast as paho lets it, round robin;
    ``small``: without the near-512-KiB states (a message-rate flood, not a byte flood).
    ``TRACKSIDE_BENCH_ROGUE_NICE``: its nice value (19: it gets the CPU only when the hub and
    the broker leave some, as if it ran on its own machine rather than on the hub's cores)."""
    os.nice(int(os.environ.get("TRACKSIDE_BENCH_ROGUE_NICE", "0")))
    client = paho.Client(CallbackAPIVersion.VERSION2, client_id=ROGUE)
    client.username_pw_set(ROGUE, f"pw-{ROGUE}")
    client.max_queued_messages_set(200)
    client.connect("127.0.0.1", port)
    client.loop_start()
    players = [{"name": f"P{i:02d}" + "x" * 60, "total": i, "colour": "red"} for i in range(12)]
    big = {"schema": 1, "game": "tiny-race", "game_id": 1, "seq": 1, "players": players}
    big["status"] = {"active_players": [0]}
    big["table"] = {"blob": "y" * 500_000}
    result = {
        "game_id": 1,
        "game": "tiny-race",
        "ended_at": time.time(),
        "players": [{"name": f"n{i}", "total": i} for i in range(12)],
        "winners": ["n0"],
    }
    results = [{**result, "game_id": g} for g in range(1, 52)]
    mine = f"trackside/{ROGUE}"
    payloads = [
        (f"{mine}/state", json.dumps(big)),  # no updated_at: the lag measured is the others'
        (f"{mine}/event", "[" * 60_000),
        (f"{mine}/resend", json.dumps({"schema": 1, "done": True, "results": results})),
        (f"{mine}/event", ""),  # an event skipping numbers (filled in below)
        (f"trackside/{victim}/state", json.dumps(big)),
    ]
    if mode == "small":
        payloads = [(t, p) for t, p in payloads if not t.endswith("/state")]
        payloads.append((f"trackside/{victim}/event", "{}"))
    sent, seq, end = 0, 10, time.monotonic() + seconds
    while time.monotonic() < end:
        for topic, fixed in payloads:
            payload = fixed
            if not fixed:
                seq += 10
                event = {"game_id": 1, "type": "action_applied"}
                payload = json.dumps({"schema": 1, "seq": seq, "db": "rogue", "event": event})
            if client.publish(topic, payload, qos=0).rc == paho.MQTT_ERR_SUCCESS:
                sent += 1
            else:
                time.sleep(0.001)  # paho's queue is full: as fast as it drains
    counter.write_text(str(sent))
    client.loop_stop()
    client.disconnect()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument(
        "--interval",
        type=float,
        default=10.0,
        help="mean seconds between events per table (game night ≈ 10)",
    )
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--game-events", type=int, default=20)
    parser.add_argument(
        "--hostile",
        choices=("big", "small"),
        help="add a rogue table at full speed (small: no near-512-KiB states)",
    )
    parser.add_argument("--hostile-client", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.hostile_client:
        port_s, seconds_s, victim, counter, mode = args.hostile_client
        hostile(int(port_s), float(seconds_s), victim, Path(counter), mode)
        return

    tmp = Path(tempfile.mkdtemp(prefix="bench-hub-"))
    port, web = free_port(), free_port()
    names = [f"table-{i:02d}" for i in range(args.tables)]
    passwd, acl = tmp / "club.passwd", tmp / "club.acl"
    passwd.touch(mode=0o600)
    for user in ["hub", ROGUE, *names]:
        subprocess.run(["mosquitto_passwd", "-b", str(passwd), user, f"pw-{user}"], check=True)
    acl.write_text((DEPLOY / "mosquitto-club.acl").read_text())
    acl.chmod(0o600)
    conf = tmp / "mosquitto.conf"
    conf.write_text(
        (DEPLOY / "mosquitto-club.conf")
        .read_text()
        .replace("listener 1883\n", f"listener {port} 127.0.0.1\n")
        .replace("/etc/mosquitto/club.passwd", str(passwd))
        .replace("/etc/mosquitto/club.acl", str(acl))
        + f"\npersistence false\nuser {getpass.getuser()}\n"
    )
    broker = subprocess.Popen(["mosquitto", "-c", str(conf)], stderr=subprocess.DEVNULL)
    wait_port(port)
    (tmp / "hub.toml").write_text(
        f'[hub]\nhost = "127.0.0.1"\nport = {web}\ndatabase = "{tmp / "hub.sqlite3"}"\n'
        f"tables = {json.dumps([*names, ROGUE])}\n"
        f'[mqtt]\nhost = "127.0.0.1"\nport = {port}\nusername = "hub"\npassword = "pw-hub"\n'
    )
    hub = subprocess.Popen(
        [sys.executable, "-m", "companion.service.cli", "hub", "--config", str(tmp / "hub.toml")],
        stdout=subprocess.DEVNULL,
        stderr=(tmp / "hub.log").open("w"),
    )
    try:
        wait_port(web)
        rng = random.Random(50)
        tables = {name: SimTable(name, rng) for name in names}
        lock = threading.Lock()

        def on_request(c: paho.Client, _: Any, message: paho.MQTTMessage) -> None:
            name = message.topic.split("/")[1]
            request = json.loads(message.payload)
            table = tables[name]
            with lock:
                results = [r for r in table.results if r["game_id"] >= request["results_from"]]
            reply = {
                "schema": 1,
                "request_id": request["request_id"],
                "db": table.db,
                "part": 0,
                "done": True,
                "events": [],
                "results": results,
            }
            c.publish(f"trackside/{name}/resend", json.dumps(reply), qos=1)

        clients: dict[str, paho.Client] = {}
        for name in tables:  # each table logs in as itself, as its bridge does
            client = clients[name] = paho.Client(CallbackAPIVersion.VERSION2, client_id=name)
            client.username_pw_set(name, f"pw-{name}")
            client.max_inflight_messages_set(1000)
            client.max_queued_messages_set(0)
            client.on_message = on_request
            client.connect("127.0.0.1", port)
            client.subscribe(f"trackside/{name}/request", qos=1)
            client.loop_start()
            client.publish(f"trackside/{name}/status", "online", qos=1, retain=True)
        rogue: subprocess.Popen[bytes] | None = None
        counter = tmp / "hostile-sent"
        if args.hostile:
            rogue = subprocess.Popen(
                [
                    sys.executable,
                    __file__,
                    "--hostile-client",
                    str(port),
                    str(args.seconds),
                    names[0],
                    str(counter),
                    args.hostile,
                ]
            )

        due = [(time.monotonic() + rng.expovariate(1 / args.interval), name) for name in tables]
        heapq.heapify(due)
        start_cpu, start = cpu_s(hub.pid), time.monotonic()
        broker_cpu = cpu_s(broker.pid)
        end = start + args.seconds
        sent = 0
        peak_rss = rss_mb(hub.pid)
        next_sample = start + 1
        while True:
            at, name = due[0]
            now = time.monotonic()
            if at > end:
                break
            if at > now:
                time.sleep(min(at - now, 0.05))
                if time.monotonic() >= next_sample:
                    peak_rss = max(peak_rss, rss_mb(hub.pid))
                    next_sample += 1
                continue
            heapq.heapreplace(due, (at + rng.expovariate(1 / args.interval), name))
            with lock:
                messages = tables[name].step(args.game_events)
            for topic, payload, retain in messages:
                clients[name].publish(topic, payload, qos=1, retain=retain)
                sent += 1
        time.sleep(max(0.0, end - time.monotonic()))
        cpu = cpu_s(hub.pid) - start_cpu
        broker_cpu = cpu_s(broker.pid) - broker_cpu
        elapsed = time.monotonic() - start
        if rogue is not None:
            rogue.wait(60)
        time.sleep(3)  # let the hub catch up and answer requests
        peak_rss = max(peak_rss, rss_mb(hub.pid))
        with urllib.request.urlopen(f"http://127.0.0.1:{web}/api/hub", timeout=10) as r:
            stats = json.load(r)
        with urllib.request.urlopen(f"http://127.0.0.1:{web}/api/results", timeout=30) as r:
            stored = len(json.load(r)["results"])
        ended = sum(len(t.results) for t in tables.values())
        t0 = time.perf_counter()
        with urllib.request.urlopen(f"http://127.0.0.1:{web}/", timeout=30) as r:
            r.read()
        wall_ms = (time.perf_counter() - t0) * 1000
        for client in clients.values():
            client.loop_stop()
            client.disconnect()
        if rogue is not None:
            hostile_sent = int(counter.read_text())
            print(
                f"hostile table: {hostile_sent} messages in {args.seconds:g} s "
                f"({hostile_sent / args.seconds:.0f}/s, one in five a forgery for {names[0]})"
            )
        print(
            f"{args.tables} tables, an event every {args.interval:g} s each, {args.seconds:g} s: "
            f"{sent} messages ({sent / args.seconds:.0f}/s)\n"
            f"hub CPU {100 * cpu / elapsed:.1f}% of one core, peak RSS {peak_rss:.0f} MB; "
            f"broker CPU {100 * broker_cpu / elapsed:.1f}%\n"
            f"state lag p50 {1000 * (stats['state_lag_s']['p50'] or 0):.1f} ms, "
            f"p99 {1000 * (stats['state_lag_s']['p99'] or 0):.1f} ms "
            f"({stats['state_lag_s']['samples']} samples)\n"
            f"games ended {ended}, results stored {stored}, requests {stats['requests_sent']}, "
            f"refused {stats['refused']}; wall screen page {wall_ms:.0f} ms\n"
            f"busiest: {stats.get('busiest', [])[:2]}"
        )
    finally:
        hub.terminate()
        hub.wait(15)
        broker.terminate()
        broker.wait(15)


if __name__ == "__main__":
    main()
