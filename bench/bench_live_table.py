"""The live table through a whole 3-player Ticket to Ride game by taps (on demand; issue 46).

    .venv/bin/python bench/bench_live_table.py [--seed 5]

A Trackside in this process (engine thread, web server on a free port, a real SQLite file in a
temporary folder) and Debian's Chromium with four screens: the host's phone (390×844) taps
every move on the table page, a tablet on the table page (1280×800), the TV (1920×1080) and
Jana's phone on ``/me`` follow. The tickets at the start are entered through the tree (the
bench is about the game's taps). Reported, with this machine's figures:

- ``GET /table`` (the whole page, as a reload or a new device loads it), timed in the host's
  page after every 10th move: median in the first and the last sixth of the game, and the page's
  size at the end;
- a tap → all four screens showing the move, as the driver sees it and in the pages' own
  clocks (the host's tap event to the last screen's redraw): from the tap on the host's phone until the host
  shows its answer and the tablet, the TV and ``/me`` show the new version (median, p95, max),
  with ``--pace`` seconds between moves (0.5 s: a quick table; the event stream sends a burst
  of three changes at once, then at most four a second).

A Raspberry Pi 4 is roughly 3–4× slower per core.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import Page, sync_playwright  # noqa: E402

from companion.core import Observation, ObservationKind  # noqa: E402
from companion.core.choices import leaves  # noqa: E402
from companion.service.config import parse_settings  # noqa: E402
from companion.service.runtime import Trackside  # noqa: E402

PIN = "471108"
PLAYER_PIN = "2468"
PLAYERS = [
    {"name": "Jana", "colour": "red", "seat": 1},
    {"name": "Petr", "colour": "blue", "seat": 2},
    {"name": "Kateřina", "colour": "green", "seat": 3},
]
PREFER = ("claim", "pay-", "draw", "face-up", "tunnel-card", "keep", "done-")
AVOID = ("tickets", "station", "withdraw", "table-")
SHOWN = """() => {
  const m = document.getElementById('live-meta');
  if (m) return m.dataset.version;
  const b = document.getElementById('board');
  if (b) return b.dataset.version;
  const v = document.getElementById('private-view');
  return v ? v.dataset.version : null;
}"""


def send(service: Trackside, kind: ObservationKind, payload: dict[str, Any]) -> str:
    outcome = service.submit_and_wait(Observation("bench", kind, payload), 10)  # type: ignore[arg-type]
    return str(outcome.get("outcome"))


def past_tickets(service: Trackside) -> None:
    rng = random.Random(3)
    for _ in range(200):
        built = service.choices(None)
        assert built is not None
        if any(c.key == "draw" for c in built[3]):
            return
        session = service.engine.session()
        assert session is not None
        active = session.game.status(session.state).active_players
        mine = service.choices(active[0] if active else None)
        assert mine is not None
        options = [c for _p, c in leaves(mine[3]) if c.action is not None]
        keep = [c for c in options if c.action is not None and c.action.kind != "draw_tickets"]
        pick = rng.choice(keep or options)
        assert pick.action is not None
        payload = {"action": pick.action.to_json(), "seq": mine[0]}
        assert send(service, ObservationKind.ACTION, payload) == "applied"


def sign_in(page: Page, base: str, who: str) -> None:
    page.goto(f"{base}/table")
    page.fill("input[name=pin]", PIN)
    page.fill("input[name=who]", who)
    page.click("main form button[type=submit]")
    page.wait_for_selector("#live-table")


def choices(page: Page) -> list[str]:
    return [
        str(p)
        for p in page.eval_on_selector_all(
            "#enter .choice", "els => els.map(e => e.dataset.path || '')"
        )
    ]


def pick(paths: list[str], rng: random.Random) -> str | None:
    usable = [p for p in paths if not any(p.rsplit("/", 1)[-1].startswith(a) for a in AVOID)]
    usable = usable or [p for p in paths if not p.startswith("table-")]
    for key in PREFER:
        hits = [p for p in usable if p.rsplit("/", 1)[-1].startswith(key)]
        if hits:
            return rng.choice(hits)
    return rng.choice(usable) if usable else None


def tap(page: Page, path: str) -> None:
    before = page.evaluate(
        "() => { window.__tapping = true;"
        " return document.getElementById('live-table').dataset.answered || '0'; }"
    )
    page.locator(f'#enter .choice[data-path="{path}"]').first.click()
    page.wait_for_function(
        "n => !window.__tapping"
        " || (document.getElementById('live-table').dataset.answered || '0') !== n",
        arg=before,
    )


def page_load(page: Page) -> tuple[float, int]:
    """GET /table from the host's page: (ms, bytes)."""
    got = page.evaluate(
        """async () => { const t = performance.now();
                         const r = await fetch('/table', {cache: 'no-store'});
                         const text = await r.text();
                         return [performance.now() - t, new Blob([text]).size]; }"""
    )
    return float(got[0]), int(got[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument(
        "--pace",
        type=float,
        default=0.5,
        help="seconds between moves (a quick table; 0: as fast as Chromium taps, which runs "
        "into the event stream's rate limit of four updates a second after a burst of three)",
    )
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as pw:
        settings = parse_settings(
            {"web": {"host": "127.0.0.1", "port": 0, "pin": PIN}, "readers": []},
            data_dir=Path(folder),
        )
        service = Trackside(settings)
        service.start()
        browser = pw.chromium.launch(
            executable_path=shutil.which("chromium") or "/usr/bin/chromium",
            args=["--no-sandbox", "--disable-gpu", "--no-first-run"],
        )
        try:
            base = f"http://127.0.0.1:{service.web_port}"
            start = {"command": "start_game", "game": "ticket-to-ride-europe", "players": PLAYERS}
            assert send(service, ObservationKind.COMMAND, start) == "applied"
            past_tickets(service)
            host = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
            tablet = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
            tv = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
            jana = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
            sign_in(host, base, "Host")
            sign_in(tablet, base, "Tablet")
            tv.goto(f"{base}/")
            tv.wait_for_selector("#board .headline")
            # Jana's phone: a seat code from the table, then her own PIN
            host.goto(f"{base}/table#private-pins")
            host.locator('button[aria-label="Give Jana a seat code"]').click()
            code = host.locator('.seat-code[data-player="0"]').inner_text().strip()
            jana.goto(f"{base}/me/0?code={code}")
            jana.fill("input[name=pin]", PLAYER_PIN)
            if jana.locator("input[name=pin_again]").count():
                jana.fill("input[name=pin_again]", PLAYER_PIN)
            jana.click("main form button[type=submit]")
            jana.wait_for_selector("#private-view")
            host.goto(f"{base}/table")
            host.wait_for_selector("#live-table")
            screens = (tablet, tv, jana)
            loads: list[tuple[int, float, int]] = []
            lags: list[float] = []
            seen: list[float] = []
            moves = 0
            session = service.engine.session()
            assert session is not None
            while not session.game.is_over(session.state) and moves < 3000:
                time.sleep(args.pace)
                path = pick(choices(host), rng)
                if path is None:
                    break
                began = time.perf_counter()
                while True:  # one move: taps down the tree to a leaf
                    leaf = host.locator(f'#enter button.choice[data-path="{path}"]').count() > 0
                    tap(host, path)
                    if leaf:
                        break
                    nxt = pick([p for p in choices(host) if p.startswith(path + "/")], rng)
                    if nxt is None:
                        break
                    began = time.perf_counter()  # the lag is the leaf's: from its tap
                    path = nxt
                ended = service.engine.session()
                if ended is not None and ended.is_ended:
                    # the last move ended the game by its rules: the table pages load whole
                    # (a new game's form) and /me signs its player out: not a live update
                    moves += 1
                    break
                version = service.latest()[0]
                for screen in screens:
                    screen.wait_for_function(
                        f"v => {{ const s = ({SHOWN})(); return s !== null && parseInt(s, 10) >= v; }}",
                        arg=version,
                    )
                lags.append((time.perf_counter() - began) * 1000)
                # the same in the pages' own clocks: from the tap's event on the host to the
                # last screen showing the version (no test driver in between)
                tapped = host.evaluate("() => window.tappedAt || 0")
                shown = [
                    s.evaluate(
                        "v => { const t = window.shownAt || {}; const k = Object.keys(t)"
                        ".map(Number).filter(n => n >= v); return k.length ? t[Math.min(...k)] : 0; }",
                        version,
                    )
                    for s in (host, *screens)
                ]
                if tapped and all(shown):
                    seen.append(max(shown) - tapped)
                moves += 1
                if moves % 10 == 0:
                    ms, size = page_load(host)
                    loads.append((moves, ms, size))
                session = service.engine.session()
                assert session is not None
            ms, size = page_load(host)
            loads.append((moves, ms, size))
            session = service.engine.session()
            assert session is not None
            sixth = max(1, len(loads) // 6)
            first = statistics.median(m for _n, m, _s in loads[:sixth])
            last = statistics.median(m for _n, m, _s in loads[-sixth:])
            lags.sort()
            print(
                f"Ticket to Ride, 3 players: {moves} moves by taps, game over: "
                f"{session.game.is_over(session.state)}"
            )
            print(
                f"GET /table: first sixth median {first:.1f} ms, last sixth {last:.1f} ms "
                f"(ratio {last / first:.2f}); page at the end {size / 1024:.1f} KiB, "
                f"largest {max(s for _n, _m, s in loads) / 1024:.1f} KiB"
            )
            print(
                f"tap → four screens: median {statistics.median(lags):.0f} ms, "
                f"p95 {lags[int(0.95 * (len(lags) - 1))]:.0f} ms, max {lags[-1]:.0f} ms"
            )
            seen.sort()
            print(
                f"  the same in the pages' own clocks (tap event → the last screen drawn, "
                f"{len(seen)} moves): median {statistics.median(seen):.0f} ms, "
                f"p95 {seen[int(0.95 * (len(seen) - 1))]:.0f} ms, max {seen[-1]:.0f} ms"
            )
            print(
                "  (the first figure adds the driver: Playwright's click and one polling "
                "round per screen)"
            )
        finally:
            browser.close()
            service.stop()


if __name__ == "__main__":
    main()
