"""The scoreboard's cost for the largest state of each game (on demand).

    .venv/bin/python bench/bench_scoreboard.py [--runs 100] [--no-browser]

A Trackside in this process (engine thread, a real SQLite file in a temporary folder), each
game played from its recording to its largest state: Russian Railroads' golden game to its end
(4 players, 7 rounds), the demo night's 4-player Ticket to Ride to its end, Mini Express and
Trains & Stations as far as their golden games go. Per game, through Flask's test client (no
network), median and p99 in ms of:

- ``page``: ``GET /`` (the whole scoreboard, as a TV loads it);
- ``sse``: one live update as the server does it for each screen: the snapshot rendered in the
  reader's language (a new version each time, so the per-version cache never answers),
  its change key and its JSON for the event stream, then ``GET /partials/scoreboard`` (the
  fragment the page fetches on that event, served from memory once drawn); and apart, the
  board drawn for a new version (``draw_board``), once per version, language and address
  for all the screens (each Russian Railroads player's board is drawn once as it stands and
  kept: a move redraws one; the bench shows both), and the first screen's sum;

then in Debian's Chromium (one page at 1920×1080): the page's own JS handling of one update
(``scoreboardRender``: the new fragment in place and the viewer's panel and player re-applied),
median and max over the runs. A Raspberry Pi 4 is roughly 3–4× slower per core.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion.core import Observation, ObservationKind  # noqa: E402
from companion.core.i18n import translations  # noqa: E402
from companion.core.messages import render_json  # noqa: E402
from companion.service.config import parse_settings  # noqa: E402
from companion.service.runtime import Trackside  # noqa: E402
from web.app import _change_key, _rr_board, draw_board  # noqa: E402

GOLDEN = ROOT / "tests" / "games" / "golden"
GAMES = (
    ("russian-railroads", GOLDEN / "russian-railroads.json"),
    (
        "ticket-to-ride-europe",
        ROOT / "companion" / "service" / "recordings" / "sources" / "ticket-to-ride-europe.json",
    ),
    ("mini-express", GOLDEN / "mini-express.json"),
    ("trains-and-stations", GOLDEN / "trains-and-stations.json"),
)


def play(service: Trackside, game: str, record: dict[str, Any]) -> None:
    start = {"command": "start_game", "game": game, "players": record["players"]}
    service.submit_and_wait(
        Observation(
            "table-page",  # type: ignore[arg-type]
            ObservationKind.COMMAND,
            {**start, "options": record["options"]},
        ),
        10,
    )
    for step in record["steps"]:
        if "scan" in step:
            player = step["scan"].get("player")
            obs = Observation(
                "seat-reader",  # type: ignore[arg-type]
                ObservationKind.TAG_PRESENT,
                {"uid": f"TS:{game}:{step['scan']['component']}"},
                None if player is None else player + 1,  # type: ignore[arg-type]
            )
        else:
            obs = Observation(
                "table-page",  # type: ignore[arg-type]
                ObservationKind.ACTION,
                {"action": step["action"]},
            )
        service.submit_and_wait(obs, 10)


def stats(samples: list[float]) -> str:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return f"median {statistics.median(ordered):6.2f} ms  p99 {p99:6.2f} ms"


def bench_server(service: Trackside, runs: int) -> tuple[list[float], list[float]]:
    client = service.app.test_client()
    page = []
    for _ in range(runs):
        start = time.perf_counter()
        response = client.get("/")
        page.append((time.perf_counter() - start) * 1000)
        assert response.status_code == 200
    _, raw = service.latest()
    tr = translations("en")
    sse = []
    parts: dict[str, list[float]] = {"render": [], "partial": [], "draw": [], "drawn": []}
    version, snapshot = service.latest()
    with service.app.test_request_context("/partials/scoreboard"):
        for _ in range(runs):  # the board drawn for a new version (the cache cannot answer)
            start = time.perf_counter()
            draw_board(service, version, snapshot)
            parts["draw"].append((time.perf_counter() - start) * 1000)
        for _ in range(runs):  # and with every Russian Railroads player's board drawn anew
            _rr_board.cache_clear()
            start = time.perf_counter()
            draw_board(service, version, snapshot)
            parts["drawn"].append((time.perf_counter() - start) * 1000)
    for _ in range(runs):
        start = time.perf_counter()
        rendered = render_json(raw, tr)  # a new version: the wrapper's cache cannot answer
        _change_key(rendered)
        # the pages' stream is ?light=1: the message is the version, not the snapshot's JSON
        json.dumps({"version": 1})
        middle = time.perf_counter()
        response = client.get("/partials/scoreboard")
        end = time.perf_counter()
        sse.append((end - start) * 1000)
        parts["render"].append((middle - start) * 1000)
        parts["partial"].append((end - middle) * 1000)
        assert response.status_code == 200
    print(
        f"  (of which the snapshot in words {statistics.median(parts['render']):.2f} ms, "
        f"the partial {statistics.median(parts['partial']):.2f} ms, served from memory; "
        f"the board drawn once per version for every screen: "
        f"{stats(parts['draw'])}; with every player's board drawn anew (a move redraws one): "
        f"{stats(parts['drawn'])})"
    )
    first = [
        r + p + d for r, p, d in zip(parts["render"], parts["partial"], parts["draw"], strict=True)
    ]
    print(f"  the first screen of a version (words + board + partial): {stats(first)}")
    return page, sse


def bench_browser(service: Trackside, runs: int) -> tuple[float, float]:
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    base = f"http://127.0.0.1:{service.web_port}"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1920, "height": 1080})
        page.goto(base + "/")
        page.wait_for_function("typeof window.scoreboardRender === 'function'")
        html = service.app.test_client().get("/partials/scoreboard").get_data(as_text=True)
        samples = page.evaluate(
            """([html, runs]) => {
                 const out = [];
                 for (let i = 0; i < runs; i++) {
                   const start = performance.now();
                   window.scoreboardRender(html, String(1000 + i));
                   document.body.offsetHeight;  // the style and layout it causes, counted too
                   out.push(performance.now() - start);
                 }
                 return out;
               }""",
            [html, runs],
        )
        browser.close()
    return statistics.median(samples), max(samples)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--no-browser", action="store_true")
    args = parser.parse_args()
    for game, path in GAMES:
        record = json.loads(path.read_text())
        with tempfile.TemporaryDirectory() as folder:
            settings = parse_settings(
                {"web": {"host": "127.0.0.1", "port": 0, "pin": "471108"}, "readers": []},
                data_dir=Path(folder),
            )
            service = Trackside(settings)
            service.start()
            try:
                play(service, game, record)
                _, snapshot = service.latest()
                size = len(json.dumps(snapshot))
                page, sse = bench_server(service, args.runs)
                print(f"{game}: snapshot {size / 1024:.0f} KiB, {len(record['steps'])} steps")
                print(f"  page (GET /)          {stats(page)}")
                print(f"  one SSE update        {stats(sse)}")
                if not args.no_browser:
                    median, worst = bench_browser(service, min(args.runs, 50))
                    print(f"  JS update in Chromium median {median:6.2f} ms  max {worst:6.2f} ms")
            finally:
                service.stop()


if __name__ == "__main__":
    main()
