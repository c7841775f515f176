"""The published snapshot's size and the cost of one live update, Russian Railroads' largest
state (its golden game to the end, 4 players, 7 rounds) — issue 45's "lighter snapshot".

    .venv/bin/python bench/bench_snapshot.py [--runs 200]

Prints the snapshot's JSON size, the size of each top-level field and of each field of the
public table (what to look at when it grows), and one SSE update as the server does it for a
screen (``bench_scoreboard.bench_server``'s ``sse``: rendered in the reader's language, change
key, JSON, then ``GET /partials/scoreboard``), median and p99 in ms.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_scoreboard import bench_server, play, stats  # noqa: E402

from companion.service.config import parse_settings  # noqa: E402
from companion.service.runtime import Trackside  # noqa: E402

GOLDEN = ROOT / "tests" / "games" / "golden" / "russian-railroads.json"


def size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False).encode("utf-8"))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    record = json.loads(GOLDEN.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as folder:
        settings = parse_settings(
            {"web": {"host": "127.0.0.1", "port": 0, "pin": "471108"}, "readers": []},
            data_dir=Path(folder),
        )
        service = Trackside(settings)
        service.start()
        try:
            play(service, "russian-railroads", record)
            _, snapshot = service.latest()
            print(f"russian-railroads snapshot: {size(snapshot) / 1024:.1f} KiB")
            for key, value in sorted(snapshot.items(), key=lambda kv: -size(kv[1])):
                print(f"  {key:<14} {size(value) / 1024:7.1f} KiB")
            table = snapshot.get("table")
            if isinstance(table, dict):
                print("  table:")
                for key, value in sorted(table.items(), key=lambda kv: -size(kv[1]))[:12]:
                    print(f"    {key:<22} {size(value) / 1024:7.1f} KiB")
            _page, sse = bench_server(service, args.runs)
            print(f"  one SSE update  {stats(sse)}")
        finally:
            service.stop()


if __name__ == "__main__":
    main()
