"""The scoreboard at a TV's and a phone's size, in Debian's Chromium, for each game at several
moments (the start, mid-game, right after a round's scoring, the end or the latest recorded
move): on a TV the standings, the sentence saying what Trackside waits for, the last moves and
the game's picture are all on screen with no scrolling; no text overflows its box anywhere; and
nothing a player reads is a tag id, a bare player index, a file name or unformatted notation.

The games are played through the running service from the recorded playthroughs the other
tests use (tests/games/golden, the demo night's Ticket to Ride game). Screenshots of every state
at every size go to /tmp/shots-w1/ (or $SCOREBOARD_SHOTS) for a person to look at."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from companion.core import Observation, ObservationKind
from companion.service.runtime import Trackside

from .conftest import start_payload
from .golden_feed import feed, running_table, submit

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "games" / "golden"
TTR_NIGHT = ROOT / "companion" / "service" / "recordings" / "sources" / "ticket-to-ride-europe.json"
SHOTS = Path(os.environ.get("SCOREBOARD_SHOTS", "/tmp/shots-w1"))
SIZES = ((1920, 1080), (1280, 720), (390, 844))

# (game, recording, {moment: steps played}); "end" = every step
MOMENTS: tuple[tuple[str, Path, dict[str, int | None]], ...] = (
    (
        "russian-railroads",
        GOLDEN / "russian-railroads.json",
        {"start": 0, "mid-game": 30, "after-round-1": 48, "round-5": 170, "end": None},
    ),
    (
        "ticket-to-ride-europe",
        TTR_NIGHT,
        {"start": 0, "mid-game": 150, "late": 330, "end": None},
    ),
    ("mini-express", GOLDEN / "mini-express.json", {"start": 0, "mid-game": 6, "end": None}),
    (
        "trains-and-stations",
        GOLDEN / "trains-and-stations.json",
        {"start": 0, "after-a-delivery": 7, "latest": None},
    ),
)

# what a player must never read
FORBIDDEN = (
    (re.compile(r"\b(?=[0-9A-F]*[0-9])(?=[0-9A-F]*[A-F])[0-9A-F]{8,}\b"), "a tag id"),
    (re.compile(r"\bseed\b|\.txt\b|\.m\b|\.py\b", re.IGNORECASE), "a file name"),
    (re.compile(r"\b\w+=\S"), "unformatted notation"),
    (re.compile(r"\b[a-z]+_[a-z0-9_]+\b"), "an id with underscores"),
    (re.compile(r"(^|\n|[:(]\s*)\d\s+(tried|claims?|passes|takes)\b"), "a player index"),
)


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Trackside]:
    yield from running_table(tmp_path_factory.mktemp("scoreboard"))


def play(service: Trackside, game: str, steps: list[dict[str, Any]]) -> None:
    for step in steps:
        feed(service, game, step)


CHECK = """() => {
  const out = {scroll: [document.documentElement.scrollWidth, document.documentElement.scrollHeight],
               overflow: [], boxes: {}};
  for (const el of document.querySelectorAll('main *')) {
    if (!el.offsetParent && getComputedStyle(el).position !== 'fixed') continue;
    if (el.closest('svg')) continue;
    const own = Array.from(el.childNodes).some(n => n.nodeType === 3 && n.textContent.trim());
    if (own && el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).display !== 'inline')
      out.overflow.push(el.tagName + '.' + el.className + ': ' + el.textContent.trim().slice(0, 60));
  }
  const box = sel => { const e = document.querySelector(sel); if (!e) return null;
    const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  for (const sel of ['.standings', '#sentence', '.recent', '.rot.shown', '.ranked'])
    out.boxes[sel] = box(sel);
  out.panels = Array.from(document.querySelectorAll('.rot')).map(r => r.dataset.panel);
  out.text = document.querySelector('main').innerText;
  return out;
}"""


def check(page: Page, name: str, width: int, height: int) -> list[str]:
    """What is wrong with the page at this size (empty when nothing)."""
    problems = []
    got = page.evaluate(CHECK)
    tv = width > height
    scroll_w, scroll_h = got["scroll"]
    if scroll_w > width:
        problems.append(f"{name}: {scroll_w} px wide at {width}")
    if tv and scroll_h > height:
        problems.append(f"{name}: the page scrolls ({scroll_h} px tall at {height})")
    for item in got["overflow"]:
        problems.append(f"{name}: text overflows its box: {item}")
    if tv and "no-game" not in name:
        for sel in (".standings", "#sentence", ".recent", ".rot.shown"):
            box = got["boxes"][sel]
            if box is None:
                problems.append(f"{name}: no {sel}")
            elif box[0] < 0 or box[1] < 0 or box[2] > width + 1 or box[3] > height + 1:
                problems.append(f"{name}: {sel} is not all on screen: {box}")
    for pattern, what in FORBIDDEN:
        found = pattern.search(got["text"])
        if found:
            problems.append(f"{name}: {what} in the text: {found.group(0)!r}")
    return problems


def shoot_all(page: Page, base: str, name: str) -> list[str]:
    problems: list[str] = []
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.goto(base + "/")
        page.wait_for_selector("#board .headline")
        panels = page.evaluate(
            "Array.from(document.querySelectorAll('.rot')).map(r => r.dataset.panel)"
        )
        for panel in panels or [""]:
            if panel and width > height:  # each picture the TV rotates through, in turn
                page.click(f".tab[data-panel={panel}]") if len(panels) > 1 else None
            label = f"{name}-{width}x{height}" + (f"-{panel}" if width > height and panel else "")
            problems += check(page, label, width, height)
            page.screenshot(path=str(SHOTS / f"{label}.png"), full_page=width < height)
            if width < height:
                break
    return problems


@pytest.mark.slow
@pytest.mark.timeout(600)  # a hang guard: long under a loaded machine
def test_every_game_fits_a_tv_and_reads_in_plain_words_on_a_phone(
    table: Trackside, browser: Browser
) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    base = f"http://127.0.0.1:{table.web_port}"
    page = browser.new_page()
    problems = shoot_all(page, base, "no-game")
    for game, recording, moments in MOMENTS:
        record = json.loads(recording.read_text())
        start = {"command": "start_game", "game": game, "players": record["players"]}
        submit(table, ObservationKind.COMMAND, {**start, "options": record["options"]})
        played = 0
        for moment, upto in moments.items():
            target = len(record["steps"]) if upto is None else upto
            play(table, game, record["steps"][played:target])
            played = target
            problems += shoot_all(page, base, f"{game}-{moment}")
        # the longest words: the same board in Czech and Spanish at the smaller TV and a phone
        for lang in ("cs", "es"):
            for width, height in SIZES[1:]:
                page.set_viewport_size({"width": width, "height": height})
                page.goto(f"{base}/?lang={lang}")
                page.wait_for_selector("#board .headline")
                label = f"{game}-{lang}-{width}x{height}"
                problems += check(page, label, width, height)
                page.screenshot(path=str(SHOTS / f"{label}.png"), full_page=width < height)
        page.goto(f"{base}/?lang=en")
        # the history keeps the picture
        game_id = table.latest()[1]["game_id"]
        submit(table, ObservationKind.COMMAND, {"command": "end_game"})
        for width, height in SIZES:
            page.set_viewport_size({"width": width, "height": height})
            page.goto(f"{base}/history/{game_id}")
            label = f"{game}-history-{width}x{height}"
            problems += [p for p in check(page, label, width, 10**6) if "on screen" not in p]
            page.screenshot(path=str(SHOTS / f"{label}.png"), full_page=True)
    page.close()
    assert not problems, "\n".join(problems)
    # the history keeps each game's picture: the chart, the map with the longest-route band
    pages = {g["game"]: g["id"] for g in table.games()}
    with_picture = {
        "russian-railroads": ('class="chart"', 'class="rr-boards'),
        "ticket-to-ride-europe": ('class="ttr-map', "European Express"),
    }
    for game, marks in with_picture.items():
        page = browser.new_page()
        page.goto(f"{base}/history/{pages[game]}")
        body = page.content()
        page.close()
        assert all(mark in body for mark in marks), game


def test_the_demo_says_its_pin(capsys: pytest.CaptureFixture[str]) -> None:
    from companion.service.demo import DEMO_PIN, start_demo

    service, url = start_demo(port=0, speed=1)
    service.stop()
    said = capsys.readouterr().out
    assert DEMO_PIN == "000000"
    assert f"{url}table" in said and "PIN is 000000" in said


def test_an_unknown_tag_is_named_in_words_not_by_its_id(service: Trackside) -> None:
    service.submit_and_wait(Observation.from_json({"source": "table-page", **start_payload()}), 5)
    service.scan("red-seat", "CCCA1E2751")
    service.wait_idle()
    board = service.app.test_client().get("/").get_data(as_text=True)
    assert "unknown tag — enrol it on the table page" in board
    assert "CCCA1E2751" not in board
    czech = service.app.test_client().get("/?lang=cs").get_data(as_text=True)
    assert "neznámý štítek — přiřaďte ho na stránce stolu" in czech
