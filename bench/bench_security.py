"""Issue 18's bench: the production web server (waitress) under many live pages, the scoreboard's
request rate, and what the PIN limits cost.

1. SSE: the service runs as its own process (``trackside run`` under ``prlimit --nofile=1024``,
   like a Pi's default) with ``threads`` sized for the run; N clients (50/200/500 by default, each
   from its own 127.x address, as phones on a Wi-Fi are) hold ``GET /api/events`` open, read by
   one selector thread here. Each "scan" is one Tiny Race move entered through ``/api/input``
   (the engine → snapshot → stream path a tag scan takes after the reader); we time, from just
   before the POST, the ``event: state`` carrying the new version at *every* client, and report
   p50/p99 over all deliveries and the service's RSS. Moves are paced 0.6 s apart (the stream
   sends at most four a second).
2. The scoreboard (``GET /``): requests per second from 4 keep-alive clients for 5 s.
3. The PIN limits: the cost per attempt of ``PinLimiter.check`` (counted before the compare),
   and of a wrong private PIN (scrypt) with and without the hashing slot.

Run from the checkout root:  PYTHONPATH=. python bench/bench_security.py [--clients 50,200,500]
Not part of the test suite.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import selectors
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

PIN = "471108"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_service(tmp: Path, threads: int) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    config = tmp / "trackside.toml"
    config.write_text(
        f'[web]\nhost = "127.0.0.1"\nport = {port}\npin = "{PIN}"\nthreads = {threads}\n'
        f"max_connections = 900\n"
        f'[database]\npath = "{tmp / "db.sqlite3"}"\n'
    )
    prlimit = shutil.which("prlimit")
    command = [sys.executable, "-m", "companion.service.cli", "run", "--config", str(config)]
    if prlimit:
        command = [prlimit, "--nofile=1024:1024", *command]
    proc = subprocess.Popen(
        command,
        env={**os.environ, "TRACKSIDE_DATA": str(tmp)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if request(port, "GET", "/api/state")[0] == 200:
                return proc, port
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("the service did not start")


def request(port: int, method: str, path: str, body: object = None) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        headers = {"X-Trackside-Pin": PIN, "Content-Type": "application/json"}
        conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def service_pid(proc: subprocess.Popen[bytes]) -> int:
    """The Python process (prlimit execs it, so it is the same pid)."""
    return proc.pid


class Streams:
    """N event-stream clients, read by one selector thread; records when each sees a version."""

    def __init__(self, port: int, n: int) -> None:
        self.selector = selectors.DefaultSelector()
        self.seen: dict[int, dict[int, float]] = {}  # client → version → arrival
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.buffers: dict[int, bytes] = {}
        for i in range(n):
            s = socket.socket()
            s.bind((f"127.2.{i // 200}.{i % 200 + 1}", 0))
            s.connect(("127.0.0.1", port))
            s.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            s.setblocking(False)
            self.selector.register(s, selectors.EVENT_READ, i)
            self.seen[i] = {}
            self.buffers[i] = b""
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self) -> None:
        while not self.stop.is_set():
            for key, _ in self.selector.select(0.2):
                i = key.data
                try:
                    data = key.fileobj.recv(262144)  # type: ignore[union-attr]
                except BlockingIOError:
                    continue
                now = time.monotonic()
                if not data:
                    self.selector.unregister(key.fileobj)
                    continue
                buf = self.buffers[i] + data
                while b"\n\n" in buf:
                    message, buf = buf.split(b"\n\n", 1)
                    if b"event: state" in message or b"event: snapshot" in message:
                        for line in message.split(b"\n"):
                            if line.startswith(b"id: "):
                                with self.lock:
                                    self.seen[i].setdefault(int(line[4:]), now)
                self.buffers[i] = buf[-300_000:]

    def connected(self) -> int:
        with self.lock:
            return sum(1 for v in self.seen.values() if v)

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)
        for key in list(self.selector.get_map().values()):
            key.fileobj.close()  # type: ignore[union-attr]


def sse_run(n: int, moves: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        proc, port = start_service(Path(tmp), threads=n + 16)
        try:
            start = {
                "kind": "command",
                "payload": {
                    "command": "start_game",
                    "game": "tiny-race",
                    "players": [{"name": "Red"}, {"name": "Blue"}],
                    "options": {"target": 100},
                },
            }
            status, body = request(port, "POST", "/api/input", start)
            assert status == 200, body
            streams = Streams(port, n)
            deadline = time.monotonic() + 60
            while streams.connected() < n and time.monotonic() < deadline:
                time.sleep(0.1)
            held = streams.connected()
            latencies: list[float] = []
            for m in range(moves):
                move = {
                    "kind": "action",
                    "payload": {
                        "action": {"kind": "advance", "player": m % 2, "args": {"steps": 1}}
                    },
                }
                t0 = time.monotonic()
                status, body = request(port, "POST", "/api/input", move)
                assert status == 200, body
                time.sleep(0.6)
                with streams.lock:
                    for seen in streams.seen.values():
                        arrivals = [t for t in seen.values() if t >= t0]
                        if arrivals:
                            latencies.append(min(arrivals) - t0)
            rss = rss_mib(service_pid(proc))
            status_ok = request(port, "GET", "/")[0] == 200
            streams.close()
        finally:
            proc.terminate()
            proc.wait(15)
    latencies.sort()
    return {
        "clients": n,
        "held": held,
        "deliveries": len(latencies),
        "expected": n * moves,
        "p50_ms": 1000 * statistics.median(latencies) if latencies else float("nan"),
        "p99_ms": 1000 * latencies[int(0.99 * (len(latencies) - 1))] if latencies else float("nan"),
        "rss_mib": rss,
        "scoreboard_ok": float(status_ok),
    }


def scoreboard_rate(seconds: float = 5.0) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        proc, port = start_service(Path(tmp), threads=64)
        try:
            count = [0]
            lock = threading.Lock()
            stop = time.monotonic() + seconds

            def worker() -> None:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                while time.monotonic() < stop:
                    conn.request("GET", "/")
                    conn.getresponse().read()
                    with lock:
                        count[0] += 1
                conn.close()

            threads = [threading.Thread(target=worker) for _ in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            return count[0] / seconds
        finally:
            proc.terminate()
            proc.wait(15)


def pin_costs() -> dict[str, float]:
    from web.guard import PinLimiter
    from web.private import hash_pin, pin_matches

    limiter = PinLimiter()
    n = 20000
    t0 = time.perf_counter()
    for _ in range(n):
        limiter.check("10.0.0.1", lambda: True)  # counted, compared, taken back
    check_us = (time.perf_counter() - t0) / n * 1e6
    t0 = time.perf_counter()
    for i in range(n):
        limiter.refusal(f"10.0.{i % 250}.{i % 200}")
    refusal_us = (time.perf_counter() - t0) / n * 1e6
    stored = hash_pin("2468")
    t0 = time.perf_counter()
    for _ in range(10):
        pin_matches("1357", stored)
    scrypt_ms = (time.perf_counter() - t0) / 10 * 1000
    t0 = time.perf_counter()
    for _ in range(10):
        with limiter.hash_slot():
            pin_matches("1357", stored)
    slot_ms = (time.perf_counter() - t0) / 10 * 1000
    return {
        "check_us": check_us,
        "refusal_us": refusal_us,
        "scrypt_ms": scrypt_ms,
        "scrypt_in_slot_ms": slot_ms,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", default="50,200,500")
    parser.add_argument("--moves", type=int, default=20)
    args = parser.parse_args()
    print("SSE: clients held, scan → every client (ms), service RSS")
    for n in (int(x) for x in args.clients.split(",")):
        r = sse_run(n, args.moves)
        print(
            f"  {r['clients']:4d} clients: held {r['held']}, deliveries {r['deliveries']}/"
            f"{r['expected']}, p50 {r['p50_ms']:.1f} ms, p99 {r['p99_ms']:.1f} ms, "
            f"RSS {r['rss_mib']:.0f} MiB, scoreboard answered: {bool(r['scoreboard_ok'])}"
        )
    print(f"scoreboard GET /: {scoreboard_rate():.0f} requests/s (4 keep-alive clients)")
    costs = pin_costs()
    print(
        f"PIN limit: check {costs['check_us']:.1f} µs per attempt, refusal lookup "
        f"{costs['refusal_us']:.1f} µs; a private PIN's scrypt {costs['scrypt_ms']:.1f} ms "
        f"({costs['scrypt_in_slot_ms']:.1f} ms inside a hashing slot)"
    )


if __name__ == "__main__":
    main()
