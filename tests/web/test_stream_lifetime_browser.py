"""Issue 52, point 7, in a real browser (Debian's Chromium through Playwright): every event
stream ends after its lifetime, and the pages' EventSource reconnects by itself; moves made
while a page was between streams still reach it (the new stream's first message carries the
version, and the page fetches what it shows when that differs)."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import Browser, Request, expect

from companion.core import Observation
from companion.service.runtime import Trackside

from .conftest import PIN, start_payload


@pytest.mark.slow
def test_pages_catch_up_across_their_streams_lifetimes(
    service: Trackside, browser: Browser
) -> None:
    service.app.config["SSE_LIFETIME_S"] = 1.0  # and 2 s to reconnect: mostly between streams
    service.submit_and_wait(Observation.from_json({"source": "table-page", **start_payload()}), 5)
    base = f"http://127.0.0.1:{service.web_port}"
    streams: list[str] = []

    def opened(request: Request) -> None:
        if "/api/events" in request.url:
            streams.append(request.url)

    scoreboard = browser.new_page()
    scoreboard.on("request", opened)
    scoreboard.goto(f"{base}/")
    table = browser.new_page()
    table.on("request", opened)
    table.goto(f"{base}/table")
    table.get_by_label("PIN").fill(PIN)
    table.get_by_role("button", name="Enter").click()
    expect(scoreboard.locator("#live")).to_have_text("live", timeout=10_000)
    red = scoreboard.locator(".player", has_text="Red").locator(".total")
    blue = scoreboard.locator(".player", has_text="Blue").locator(".total")
    for turn in range(8):  # Red and Blue advance 1 each turn, 0.7 s apart
        move = {"action": {"kind": "advance", "player": turn % 2, "args": {"steps": 1}}}
        body = {"source": "table-page", "kind": "action", "payload": move}
        assert service.submit_and_wait(Observation.from_json(body), 5)["outcome"] == "applied"
        time.sleep(0.7)
    expect(red).to_have_text("4", timeout=10_000)
    expect(blue).to_have_text("4", timeout=10_000)
    version = str(service.latest()[0])
    expect(table.locator("#live-meta")).to_have_attribute("data-version", version, timeout=10_000)
    assert len(streams) >= 6, streams  # each page reconnected more than once
    scoreboard.close()
    table.close()
