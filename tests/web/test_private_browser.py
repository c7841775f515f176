"""Two players' private views in real browsers (Debian's Chromium through Playwright): each sets
a PIN on their own phone, sees only their own cards, and the speculation opens, is answered and
settles live; the scoreboard shows none of it. Screenshots of the private page at phone and TV
size go to test-artifacts/."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from companion.core import Observation
from companion.service.runtime import Trackside
from tests.games.trains_and_stations.playthroughs import START, TO_SPECULATION, action_input

from .conftest import ARTIFACTS, PIN
from .private_table import ANN_PIN, BEN_PIN

PHONE = {"width": 360, "height": 740}
TV = {"width": 1920, "height": 1080}


def submit(service: Trackside, body: dict[str, object], source: str = "table-page") -> None:
    outcome = service.submit_and_wait(Observation.from_json({"source": source, **body}), 10)
    assert outcome["outcome"] == "applied", outcome


def seat_code(table: Page, base: str, name: str) -> str:
    """The scorekeeper's phone (table PIN) gives ``name`` a seat code; the code it shows."""
    if "/table" not in table.url:
        table.goto(f"{base}/table")
        table.get_by_label("PIN").fill(PIN)
        table.get_by_role("button", name="Enter").click()
    table.goto(f"{base}/table#private-pins")
    table.get_by_role("button", name=f"Give {name} a seat code").click()
    row = table.locator("#private-pins li", has_text=name)
    expect(row.locator("svg")).to_be_visible()
    return row.locator(".seat-code").inner_text()


def sign_up(page: Page, base: str, name: str, pin: str, table: Page) -> None:
    code = seat_code(table, base, name)
    page.goto(f"{base}/me")
    page.get_by_role("link", name=name).click()
    page.get_by_label("Seat code from the table").fill(code)
    page.get_by_label("New PIN").fill(pin)
    page.get_by_label("Same PIN again").fill(pin)
    page.get_by_role("button", name="Set PIN and show my cards").click()
    expect(page.locator(".who-bar h1")).to_contain_text(name)
    expect(page.locator("#live")).to_have_text("live", timeout=10_000)


def cattle(page: Page) -> str:
    return page.locator('#holdings [data-good="cattle"]').inner_text()


def no_sideways_scroll(page: Page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


@pytest.mark.slow
def test_two_players_answer_a_speculation_from_their_phones(
    service: Trackside, browser: Browser
) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    base = f"http://127.0.0.1:{service.web_port}"
    submit(service, {"kind": "command", "payload": START})
    for kind, player, args in TO_SPECULATION[:-1]:  # all but Cat's end of turn
        submit(service, action_input(kind, player, args))
    ann_phone = browser.new_context(viewport=PHONE)
    ben_phone = browser.new_context(viewport=PHONE)
    tv = browser.new_context(viewport=TV)
    try:
        ann, ben, board = ann_phone.new_page(), ben_phone.new_page(), tv.new_page()
        keeper = browser.new_context(viewport=PHONE).new_page()
        sign_up(ann, base, "Ann", ANN_PIN, keeper)
        keeper.screenshot(path=str(ARTIFACTS / "private-seat-code-360x740.png"), full_page=True)
        sign_up(ben, base, "Ben", BEN_PIN, keeper)
        assert cattle(ann) == "4" and cattle(ben) == "3"
        expect(ann.locator("#speculate")).to_have_count(0)

        # Cat ends her turn at the table: the food speculation opens on both phones, live
        submit(service, action_input(*TO_SPECULATION[-1]))
        expect(ann.locator("#speculate h2")).to_have_text("Speculation: food", timeout=10_000)
        expect(ben.locator("#speculate h2")).to_have_text("Speculation: food", timeout=10_000)
        no_sideways_scroll(ann)
        ann.screenshot(path=str(ARTIFACTS / "private-speculation-360x740.png"), full_page=True)

        # Ann starts filling in her trade; Ben reports a two-goods special card meanwhile
        ann.locator('input[name="give_cattle"]').fill("4")
        expect(ann.locator(".trade-sum")).to_have_text("4 cards → 2 food")
        ben.locator('select[name="card_0_a"]').select_option("silver")
        ben.locator('select[name="card_0_b"]').select_option("gold")
        ben.get_by_role("button", name="Save my special cards").click()
        expect(ben.locator("#specials")).to_contain_text("silver + gold")
        # …and trades it with 2 cattle for 2 food
        ben.locator('input[name="give_cattle"]').fill("2")
        ben.locator('input[name="pair_0"]').check()
        expect(ben.locator(".trade-sum")).to_have_text("4 cards → 2 food")
        ben.get_by_role("button", name="Trade", exact=True).click()
        expect(ben.locator("#speculate")).to_contain_text(
            "You traded 2 cattle, the silver + gold special card."
        )
        # Ann's half-filled form is kept; she is told the table changed
        expect(ann.locator("#stale")).to_be_visible(timeout=10_000)
        expect(ann.locator('input[name="give_cattle"]')).to_have_value("4")
        ann.get_by_role("button", name="Trade", exact=True).click()
        expect(ann.locator("#speculate")).to_contain_text("You traded 4 cattle.")
        expect(ann.locator(".private-head")).to_contain_text("waiting for Cat to speculate")

        # each phone shows only its own player's cards
        assert "silver + gold" not in ann.content()
        assert ben.locator(".who-bar h1").inner_text().startswith("Ben")

        # the scoreboard: who did what kind of thing, never what
        board.goto(f"{base}/")
        expect(board.locator("#live")).to_have_text("live", timeout=10_000)
        recent = board.locator(".recent")
        expect(recent).to_contain_text("Ann: speculate (private)")
        expect(recent).to_contain_text("Ben: report special goods (private)")
        text = board.locator("body").inner_text()
        for secret in ("silver", "4 cattle", "4×cattle", "2×cattle"):
            assert secret not in text, secret

        # Cat trades nothing at the table: the trade settles and both phones update, live
        submit(service, action_input("speculate", 2, {}), "private:Cat")
        expect(ann.locator('#holdings [data-good="food"]')).to_have_text("2", timeout=10_000)
        expect(ann.locator('#holdings [data-good="cattle"]')).to_have_text("0")
        expect(ben.locator('#holdings [data-good="food"]')).to_have_text("2", timeout=10_000)
        expect(ben.locator('#holdings [data-good="cattle"]')).to_have_text("1")
        expect(ben.locator("#specials h2")).to_have_text("Your special cards: 2")
        expect(ann.locator("#speculate")).to_have_count(0)
        no_sideways_scroll(ann)
        no_sideways_scroll(ben)
        ann.screenshot(path=str(ARTIFACTS / "private-view-360x740.png"), full_page=True)
        ben.screenshot(path=str(ARTIFACTS / "private-ben-360x740.png"), full_page=True)
        ann.set_viewport_size(TV)
        ann.screenshot(path=str(ARTIFACTS / "private-view-1920x1080.png"), full_page=True)
        board.screenshot(path=str(ARTIFACTS / "private-scoreboard-1920x1080.png"), full_page=True)
        text = board.locator("body").inner_text()
        assert "silver" not in text and "4 cattle" not in text

        # the table page lists who has a PIN; resetting Ben's sends his phone back to the start
        table = tv.new_page()
        table.goto(f"{base}/table")
        table.get_by_label("PIN", exact=True).fill(PIN)
        table.get_by_role("button", name="Enter").click()
        pins = table.locator("#private-pins")
        expect(pins.locator("li", has_text="Ann")).to_contain_text("PIN set")
        expect(pins.locator("li", has_text="Cat")).to_contain_text("not claimed yet")
        pins.screenshot(path=str(ARTIFACTS / "private-pins-table-1920.png"))
        table.set_viewport_size(PHONE)
        no_sideways_scroll(table)
        pins.screenshot(path=str(ARTIFACTS / "private-pins-table-360.png"))
        # a reset asks once: the first tap says what the second does, the second does it
        reset = pins.get_by_role("button", name="Reset the PIN of Ben")
        reset.click()
        expect(reset).to_have_text("Reset Ben’s PIN? Tap again")
        expect(pins.locator("li", has_text="Ben")).to_contain_text("PIN set")
        reset.click()
        expect(table.locator(".flash.ok")).to_contain_text("Ben's private PIN was reset")
        expect(ben.locator(".flash.info")).to_contain_text("Your PIN was reset", timeout=10_000)
        expect(ben.locator("#holdings")).to_have_count(0)

        # the PIN screen at phone size, and the lock button
        ann.set_viewport_size(PHONE)
        ann.get_by_role("button", name="Lock").click()
        expect(ann.locator(".flash.ok")).to_contain_text("Locked")
        ann.get_by_role("link", name="Ann").click()
        expect(ann.get_by_label("Your PIN")).to_be_visible()
        no_sideways_scroll(ann)
        ann.screenshot(path=str(ARTIFACTS / "private-pin-360x740.png"), full_page=True)
        ann.goto(f"{base}/me")
        no_sideways_scroll(ann)
        ann.screenshot(path=str(ARTIFACTS / "private-pick-360x740.png"), full_page=True)
    finally:
        ann_phone.close()
        ben_phone.close()
        tv.close()
