"""Server-side time of the pages added for the board table and the private views (on demand).

    .venv/bin/python bench/bench_pages.py [--runs 200]

A Trackside in this process (engine thread, a real SQLite file in a temporary folder, PIN set),
a 3-player Trains & Stations game with Ann's private PIN set, requests through Flask's test
client (no network): median and p95 per page, and the cost of hashing one private PIN (scrypt).
A Raspberry Pi 4 is roughly 3–4× slower per core than the machine this reports on.
"""

from __future__ import annotations

import argparse
import re
import statistics
import tempfile
import time
from pathlib import Path

from companion.core.observation import Observation
from companion.service.config import parse_settings
from companion.service.runtime import Trackside
from web.private import hash_pin

PIN = "471108"


def csrf(page: str) -> str:
    match = re.search(r'name="csrf" value="([^"]+)"', page)
    assert match, page[:500]
    return match.group(1)


def timed(call: object, runs: int) -> tuple[float, float]:
    assert callable(call)
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        response = call()
        samples.append((time.perf_counter() - start) * 1000)
        assert response.status_code == 200, response.status_code
    samples.sort()
    return statistics.median(samples), samples[int(0.95 * (len(samples) - 1))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        settings = parse_settings(
            {"web": {"host": "127.0.0.1", "port": 0, "pin": PIN}}, data_dir=Path(folder)
        )
        service = Trackside(settings)
        service.start(web=False)
        try:
            players = [{"name": n} for n in ("Ann", "Ben", "Cat")]
            start = {"command": "start_game", "game": "trains-and-stations", "players": players}
            service.submit_and_wait(
                Observation.from_json({"source": "bench", "kind": "command", "payload": start}),
                10.0,
            )
            table = service.app.test_client()
            page = table.get("/table").get_data(as_text=True)
            table.post("/table/login", data={"csrf": csrf(page), "pin": PIN, "who": "bench"})
            ann = service.app.test_client()
            form = ann.get("/me/0").get_data(as_text=True)
            game_id = re.search(r'name="game_id" value="(\d+)"', form)
            assert game_id
            ann.post(
                "/me/0",
                data={
                    "csrf": csrf(form),
                    "game_id": game_id.group(1),
                    "pin": "2468",
                    "pin_again": "2468",
                },
            )
            assert "only you see this" in ann.get("/me").get_data(as_text=True)
            assert "Start a game" not in table.get("/table").get_data(as_text=True)
            pages = {
                "/ (scoreboard)": lambda: table.get("/"),
                "/table": lambda: table.get("/table"),
                "/me (Ann's view)": lambda: ann.get("/me"),
                "/me/partial (live refresh)": lambda: ann.get("/me/partial"),
                "/table/board-table/mini-express": lambda: table.get(
                    "/table/board-table/mini-express"
                ),
                "/api/board-tables/mini-express": lambda: table.get(
                    "/api/board-tables/mini-express"
                ),
            }
            print(f"{args.runs} requests each (ms): median / p95")
            for name, call in pages.items():
                median, p95 = timed(call, args.runs)
                print(f"  {name:36} {median:6.2f} / {p95:6.2f}")
            hashes = []
            for _ in range(10):
                start_s = time.perf_counter()
                hash_pin("2468")
                hashes.append((time.perf_counter() - start_s) * 1000)
            print(f"  hashing one private PIN (scrypt)     {statistics.median(hashes):6.1f} median")
        finally:
            service.stop()


if __name__ == "__main__":
    main()
