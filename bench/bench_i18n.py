"""What rendering a page in a language costs (issue 17: "costs nothing measurable").

    .venv/bin/python bench/bench_i18n.py [--runs 300]

A Trackside in this process (engine thread, SQLite in a temporary folder) replays the demo night
to the middle of its Ticket to Ride game (the biggest snapshot: the map, five players' cards),
then the scoreboard (``/``) and the signed-in table page (``/table``) are requested through
Flask's test client (no network), English and Czech interleaved, each ``--runs`` times: median
and p99 per page and language. Every few requests the table moves on (a real input), so the
per-language snapshot cache (``web.i18n.Localised``) sees new versions as at a real table; its
hit rate is reported, and the cost of one rendering of the snapshot (a cache miss) per language.
A Raspberry Pi 4 is roughly 3–4× slower per core than the machine this reports on.
"""

from __future__ import annotations

import argparse
import re
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from companion.core.i18n import translations
from companion.core.messages import render_json
from companion.core.observation import Observation
from companion.service.config import parse_settings
from companion.service.demo import default_recording
from companion.service.runtime import Trackside
from firmware_bridge.virtual import read_recording

PIN = "471108"
HALF_NIGHT = 560
"""Inputs of the demo night replayed before measuring (Ticket to Ride is under way)."""
MOVE_EVERY = 10
"""Requests between two real inputs (each makes a new snapshot version)."""


def p99(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=300)
    args = parser.parse_args()
    header, inputs = read_recording(default_recording())
    with tempfile.TemporaryDirectory() as tmp:
        settings = parse_settings(
            {"web": {"host": "127.0.0.1", "port": 0, "pin": PIN}}, data_dir=Path(tmp)
        )
        svc = Trackside(settings)
        enrol = header["enrol"]
        assert isinstance(enrol, list)
        for tag in enrol:
            svc.store.enrol(tag["uid"], tag["game"], tag["component"])
        svc.start()
        try:
            feed = iter(inputs)

            def step() -> None:
                o = next(feed).observation
                svc.submit_and_wait(Observation(o.source, o.kind, o.payload, o.seat), 10.0)

            for _ in range(HALF_NIGHT):
                step()
            client = svc.app.test_client()
            page = client.get("/table").get_data(as_text=True)
            token = re.search(r'name="csrf" value="([^"]+)"', page)
            assert token
            client.post("/table/login", data={"csrf": token.group(1), "pin": PIN})
            localised: Any = svc.app.extensions["trackside.localised"]
            localised.hits = localised.misses = 0
            samples: dict[tuple[str, str], list[float]] = {}
            for run in range(args.runs):
                if run and run % MOVE_EVERY == 0:
                    step()
                for path in ("/", "/table"):
                    for lang in ("en", "cs"):
                        start = time.perf_counter()
                        response = client.get(path, headers={"Accept-Language": lang})
                        samples.setdefault((path, lang), []).append(
                            (time.perf_counter() - start) * 1000
                        )
                        assert response.status_code == 200
                        assert f'<html lang="{lang}">' in response.get_data(as_text=True)
            print(f"demo night at input {HALF_NIGHT}, {args.runs} runs, a move every {MOVE_EVERY}")
            for (path, lang), got in samples.items():
                print(
                    f"  {path:7} {lang}: median {statistics.median(got):6.2f} ms, "
                    f"p99 {p99(got):6.2f} ms"
                )
            total = localised.hits + localised.misses
            print(
                f"  Localised cache: {localised.hits} hits, {localised.misses} misses "
                f"({100 * localised.hits / total:.1f} % hits)"
            )
            _, snapshot = svc.engine.latest()
            for lang in ("en", "cs"):
                catalogue = translations(lang)
                costs = []
                for _ in range(200):
                    start = time.perf_counter()
                    render_json(snapshot, catalogue)
                    costs.append((time.perf_counter() - start) * 1000)
                print(
                    f"  one snapshot rendering (a miss), {lang}: median {statistics.median(costs):.3f} ms"
                )
        finally:
            svc.stop()


if __name__ == "__main__":
    main()
