"""The scoreboard in a real browser (Debian's Chromium through Playwright): it updates live
after a scan on a seat reader, and screenshots at TV and phone size are saved for a look."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from companion.core import Observation
from companion.service.runtime import Trackside

from .conftest import ARTIFACTS, start_payload


@pytest.mark.slow
def test_scoreboard_updates_live_after_a_scan(service: Trackside, browser: Browser) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    service.submit_and_wait(Observation.from_json({"source": "table-page", **start_payload()}), 5)
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    page.goto(f"http://127.0.0.1:{service.web_port}/")
    expect(page.locator("#live")).to_have_text("live", timeout=10_000)
    red_total = page.locator(".player", has_text="Red").locator(".total")
    expect(red_total).to_have_text("0")
    service.scan("red-seat", "04D1E5000002")
    expect(red_total).to_have_text("2", timeout=10_000)
    expect(page.locator(".waiting")).to_contain_text("Blue to advance")
    page.screenshot(path=str(ARTIFACTS / "scoreboard-1920x1080.png"), full_page=True)
    phone = browser.new_page(viewport={"width": 360, "height": 740})
    phone.goto(f"http://127.0.0.1:{service.web_port}/")
    expect(phone.locator(".player", has_text="Red").locator(".total")).to_have_text("2")
    # usable on a phone: nothing wider than the screen
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 360
    phone.screenshot(path=str(ARTIFACTS / "scoreboard-360x740.png"), full_page=True)
    page.close()
    phone.close()
