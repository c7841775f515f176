"""The TV tells a moment of the public view once (issue 45, DESIGN.md "Screens show"): a
Ticket to Ride tunnel's verdict, in the game's own words, green when the tunnel is claimed at
once and amber when cards are owed; and the last round's start. The page follows the table
live (no reload between inputs); a banner goes after a few seconds, a later update does not
bring it back, nor does opening the page again in the same tab."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from companion.core import Observation, ObservationKind
from companion.core.choices import random_leaf
from companion.core.i18n import translations
from companion.core.messages import render_text
from companion.service.runtime import Trackside

from .conftest import ARTIFACTS
from .golden_feed import feed, running_table, submit

GOLDEN = Path(__file__).resolve().parents[1] / "games" / "golden" / "ticket-to-ride-europe.json"


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Trackside]:
    yield from running_table(tmp_path_factory.mktemp("announce"))


def moments(service: Trackside, kind: str) -> list[dict[str, Any]]:
    view = service.latest()[1]["view"]
    return [m for m in view["moments"] if m["kind"] == kind] if view else []


def follow(page: Page, service: Trackside) -> None:
    """The page's own live update has drawn the newest version."""
    page.wait_for_function(
        "v => document.getElementById('board').dataset.version === String(v)",
        arg=service.latest()[0],
        timeout=15_000,
    )


def test_a_tunnel_verdict_and_the_last_round_are_told_once_on_the_tv(
    table: Trackside, browser: Browser
) -> None:
    record = json.loads(GOLDEN.read_text(encoding="utf-8"))
    start = {
        "command": "start_game",
        "game": "ticket-to-ride-europe",
        "players": record["players"],
        "options": record.get("options", {}),
    }
    table.submit_and_wait(Observation("table-page", ObservationKind.COMMAND, start), 10)  # type: ignore[arg-type]
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    page = context.new_page()
    page.clock.install()
    page.goto(f"http://127.0.0.1:{table.web_port}/?lang=cs")
    page.wait_for_selector("#board .headline")
    told: dict[str, int] = {}
    for step in record["steps"]:
        feed(table, "ticket-to-ride-europe", step)
        tunnel = moments(table, "tunnel")
        if tunnel and tunnel[0]["key"] not in told:
            follow(page, table)
            [moment] = tunnel
            banner = page.locator(f'.announce[data-kind="tunnel"][data-key$="-{moment["key"]}"]')
            assert banner.is_visible()
            words = render_text(moment["text"], translations("cs"))
            assert banner.inner_text() == words and words.startswith("Tunel ")
            tone = "good" if moment["extra_cards"] == 0 else "warn"
            assert tone in (banner.get_attribute("class") or "")
            told[moment["key"]] = moment["extra_cards"]
            shot = ARTIFACTS / f"ttr-tunnel-{tone}-1920x1080.png"
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(shot))
            page.set_viewport_size({"width": 390, "height": 844})  # the same banner on a phone
            assert banner.is_visible()
            page.screenshot(path=str(ARTIFACTS / f"ttr-tunnel-{tone}-390x844.png"))
            page.set_viewport_size({"width": 1920, "height": 1080})
            page.clock.run_for(9_000)
            assert not banner.is_visible()
    assert told, "the golden game turned no tunnel"
    # the game played on by the tree (random leaves) until its last round begins
    rng = random.Random(5)
    for _ in range(2000):
        if moments(table, "last_round"):
            break
        session = table.engine.session()
        assert session is not None
        active = session.game.status(session.state).active_players
        viewer = rng.choice(active) if active else None
        picked = random_leaf(session.game.choices(session.state, viewer), rng)
        assert picked is not None and picked[1].action is not None
        payload = {"action": picked[1].action.to_json()}
        assert submit(table, ObservationKind.ACTION, payload) == "applied"
    assert moments(table, "last_round")
    # a tunnel already told is not told again by a later update
    follow(page, table)
    for key in told:
        assert not page.locator(f'.announce[data-key$="-{key}"]:not([hidden])').count()
    last = page.locator('.announce[data-kind="last_round"]')
    assert last.is_visible() and last.inner_text() == "Začalo poslední kolo"
    # once gone, it stays gone through the game's further updates and a page opened again
    page.clock.run_for(9_000)
    assert not last.is_visible()
    for _ in range(3):
        session = table.engine.session()
        assert session is not None
        active = session.game.status(session.state).active_players
        picked = random_leaf(session.game.choices(session.state, active[0]), rng)
        assert picked is not None and picked[1].action is not None
        submit(table, ObservationKind.ACTION, {"action": picked[1].action.to_json()})
    follow(page, table)
    assert not last.is_visible()
    page.reload()
    page.wait_for_selector("#board .headline")
    assert not last.is_visible()
    context.close()
