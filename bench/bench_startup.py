"""Start-up time and resident memory of `trackside run` with virtual devices (on demand).

    .venv/bin/python bench/bench_startup.py [--runs 5]

Start-up = from spawning the process to the first answer of /api/state. RSS = VmRSS of the
process 0.5 s after start-up (idle), and again after a 200-scan burst through the replay
reader. A Raspberry Pi 4 is roughly 3–4× slower per core than the machine this reports on.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def get_state(port: int) -> dict[str, object] | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=1) as r:
            data: dict[str, object] = json.load(r)
            return data
    except OSError:
        return None


def recording(path: Path, scans: int) -> None:
    lines = [
        {
            "format": "trackside-recording",
            "version": 1,
            "enrol": [{"uid": "04D1E5000001", "game": "tiny-race", "component": "die-1"}],
        }
    ]
    players = [{"name": f"P{i}", "seat": i} for i in (1, 2, 3, 4)]
    lines.append(
        {
            "at_s": 0,
            "observation": {
                "source": "table-page",
                "kind": "command",
                "payload": {
                    "command": "start_game",
                    "game": "tiny-race",
                    "players": players,
                    "options": {"target": 100},
                },
            },
        }
    )
    for i in range(scans):
        seat = i % 4 + 1
        lines.append(
            {
                "at_s": 1 + i * 0.01,
                "observation": {
                    "source": f"seat-{seat}",
                    "kind": "tag_present",
                    "seat": seat,
                    "payload": {"uid": "04D1E5000001"},
                },
            }
        )
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")


def run_once(tmp: Path) -> tuple[float, float, float]:
    port = free_port()
    rec = tmp / "burst.jsonl"
    recording(rec, 200)
    config = tmp / "trackside.toml"
    readers = "".join(
        f'\n[[readers]]\nname = "seat-{i}"\nprotocol = "virtual"\nseat = {i}\n'
        for i in (1, 2, 3, 4)
    )
    config.write_text(
        f'[web]\nhost = "127.0.0.1"\nport = {port}\n[database]\npath = "{tmp}/db-{port}.sqlite3"\n'
        f'{readers}\n[[readers]]\nname = "burst"\nprotocol = "replay"\nport = "{rec}"\nspeed = 1\n'
    )
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion.service.cli", "run", "--config", str(config)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        while get_state(port) is None:
            time.sleep(0.005)
        startup = time.perf_counter() - t0
        time.sleep(0.5)  # the burst starts 1 s after the replay's first line
        idle = rss_mib(proc.pid)
        deadline = time.time() + 30
        while time.time() < deadline:
            s = get_state(port)
            if s and s["status"]["devices"].get("burst", {}).get("state") == "finished":  # type: ignore[index,union-attr]
                break
            time.sleep(0.1)
        after = rss_mib(proc.pid)
    finally:
        proc.terminate()
        proc.wait(10)
    return startup, idle, after


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.runs):
            results.append(run_once(Path(tmp)))
    startups = [r[0] * 1000 for r in results]
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    print(
        f"start-up to first /api/state: median {statistics.median(startups):.0f} ms, "
        f"max {max(startups):.0f} ms over {len(startups)} runs"
    )
    print(f"RSS after start-up (idle): median {statistics.median(r[1] for r in results):.1f} MiB")
    print(f"RSS after a 200-scan burst: median {statistics.median(r[2] for r in results):.1f} MiB")


if __name__ == "__main__":
    main()
