"""Tapping the live table page in Chromium (web/static/table.js): a tap's answer is drawn in
place, so a test waits for that answer (the page counts them in ``data-answered``), not for a
page load; a tap that changes the page's frame (a game started or ended) loads it whole."""

from __future__ import annotations

from playwright.sync_api import Page


def live_click(page: Page, selector: str) -> None:
    """Tap ``selector`` on the table page and wait until the page shows the answer."""
    before = page.evaluate(
        "() => { window.__tapping = true;"
        " const box = document.getElementById('live-table');"
        " return box ? (box.dataset.answered || '0') : null; }"
    )
    page.locator(selector).first.click()
    if before is None:  # not the live table page: a plain form or link
        page.wait_for_load_state("domcontentloaded")
        return
    page.wait_for_function(
        """n => { const box = document.getElementById('live-table');
                  return !window.__tapping || !box || (box.dataset.answered || '0') !== n; }""",
        arg=before,
    )
    page.wait_for_load_state("domcontentloaded")
