"""Issue 18 rows 3 and 7: the real service (``trackside run`` in its own process, held to a Pi's
default 1,024 open files by ``prlimit``) under half-sent requests from many loopback addresses
and under large bodies. The scoreboard keeps answering, live pages keep streaming, and nothing
big is read into memory or spooled to disk."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import resource
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import PIN

pytestmark = [pytest.mark.slow, pytest.mark.timeout(150)]
PRLIMIT = shutil.which("prlimit")
HALF_SENT = 1030


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Service:
    def __init__(self, proc: subprocess.Popen[bytes], port: int, tmp: Path) -> None:
        self.proc, self.port, self.tmp = proc, port, tmp

    def get(self, path: str, timeout: float = 5.0) -> tuple[int, bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.request("GET", path)
            response = conn.getresponse()
            return response.status, response.read()
        finally:
            conn.close()

    def rss_kib(self) -> int:
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        line = next(x for x in status.splitlines() if x.startswith("VmRSS:"))
        return int(line.split()[1])


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Service]:
    assert PRLIMIT, "prlimit (util-linux) is needed"
    port = free_port()
    config = tmp_path / "trackside.toml"
    config.write_text(
        f'[web]\nhost = "127.0.0.1"\nport = {port}\npin = "{PIN}"\n'
        f'[database]\npath = "{tmp_path / "db.sqlite3"}"\n'
    )
    spool = tmp_path / "spool"
    spool.mkdir()
    env = {**os.environ, "TMPDIR": str(spool), "TRACKSIDE_DATA": str(tmp_path)}
    log = open(tmp_path / "service.log", "wb")  # noqa: SIM115 - closed after the process
    proc = subprocess.Popen(
        [
            PRLIMIT,
            "--nofile=1024:1024",
            sys.executable,
            "-m",
            "companion.service.cli",
            "run",
            "--config",
            str(config),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=log,
    )
    svc = Service(proc, port, tmp_path)
    deadline = time.monotonic() + 30
    while True:
        try:
            if svc.get("/api/state", 1.0)[0] == 200:
                break
        except OSError:
            pass
        assert proc.poll() is None and time.monotonic() < deadline, (
            tmp_path / "service.log"
        ).read_text()
        time.sleep(0.2)
    yield svc
    proc.terminate()
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)
    finally:
        log.close()


def sse_reader(port: int, seen: list[float], stop: threading.Event) -> None:
    """A live page: counts the state messages it receives."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=60)
    with sock:
        sock.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        while not stop.is_set():
            try:
                data = sock.recv(65536)
            except TimeoutError:
                continue
            if not data:
                return
            for _ in range(data.count(b"event: state")):
                seen.append(time.monotonic())


def raise_own_file_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 4096 <= hard or hard == resource.RLIM_INFINITY:
        resource.setrlimit(resource.RLIMIT_NOFILE, (4096, hard))


def test_row3_half_sent_requests_from_many_addresses_do_not_stop_the_table(
    service: Service,
) -> None:
    raise_own_file_limit()
    stop = threading.Event()
    seen: list[float] = []
    readers = [
        threading.Thread(target=sse_reader, args=(service.port, seen, stop), daemon=True)
        for _ in range(3)
    ]
    for reader in readers:
        reader.start()
    time.sleep(1.0)
    sockets: list[socket.socket] = []
    started = time.monotonic()
    try:
        for i in range(HALF_SENT):
            s = socket.socket()
            s.bind((f"127.1.{i // 200}.{i % 200 + 1}", 0))
            s.settimeout(5)
            with contextlib.suppress(OSError):
                s.connect(("127.0.0.1", service.port))
                s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            sockets.append(s)
        flood_s = time.monotonic() - started
        # the scoreboard answers now, not when the flood gives up
        t0 = time.monotonic()
        status, body = service.get("/", timeout=10)
        answered_s = time.monotonic() - t0
        assert status == 200 and b"Trackside" in body
        assert answered_s < 3.0, answered_s
        # and the live pages still stream: a change reaches them
        before = len(seen)
        conn = http.client.HTTPConnection("127.0.0.1", service.port, timeout=10)
        start = {
            "kind": "command",
            "payload": {
                "command": "start_game",
                "game": "tiny-race",
                "players": [{"name": "Red"}, {"name": "Blue"}],
            },
        }
        conn.request(
            "POST",
            "/api/input",
            body=json.dumps(start),
            headers={"Content-Type": "application/json", "X-Trackside-Pin": PIN},
        )
        response = conn.getresponse()
        assert response.status == 200, response.read()
        conn.close()
        deadline = time.monotonic() + 10
        while len(seen) < before + 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(seen) >= before + 3, "the live pages stopped streaming"
        assert service.proc.poll() is None
        assert flood_s < 60
    finally:
        stop.set()
        for s in sockets:
            s.close()


def test_row3_a_trickled_request_is_dropped_at_the_deadline(service: Service) -> None:
    s = socket.create_connection(("127.0.0.1", service.port), timeout=30)
    with s:
        s.sendall(b"GET / HTTP/1.1\r\n")
        started = time.monotonic()
        closed = False
        while time.monotonic() - started < 40:
            try:
                s.sendall(b"X: y\r\n")  # a header line every second: never idle, never done
                time.sleep(1.0)
            except OSError:
                closed = True
                break
        assert closed, "a request trickled for 40 s was not dropped"
        assert time.monotonic() - started < 25


def test_row7_large_bodies_are_refused_before_they_are_read(service: Service) -> None:
    rss_before = service.rss_kib()
    for path, ctype in (
        ("/table/login", "application/x-www-form-urlencoded"),
        ("/me/0", "multipart/form-data; boundary=x"),
        ("/api/input", "application/json"),
    ):
        s = socket.create_connection(("127.0.0.1", service.port), timeout=10)
        with s:
            s.sendall(
                f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: {ctype}\r\n"
                f"Content-Length: {200 * 1024 * 1024}\r\n\r\n".encode()
            )
            with contextlib.suppress(OSError):
                s.sendall(b"x" * (1024 * 1024))  # then stall, as the attack did
            reply = s.recv(4096)
            assert reply.startswith(b"HTTP/1.1 413"), (path, reply[:200])
    assert list((service.tmp / "spool").iterdir()) == []  # no temp file was spooled
    assert service.rss_kib() - rss_before < 20 * 1024
    status, _ = service.get("/")
    assert status == 200
