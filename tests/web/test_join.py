"""The join QR code on the scoreboard while no game is on the table: it encodes the table
page's address (decoded here with zxing-cpp, as a phone camera would), and it goes away once a
game starts."""

from __future__ import annotations

import re

import numpy as np
import pytest
import segno
import zxingcpp
from playwright.sync_api import Browser

from companion.core import Observation, ObservationKind
from companion.service.runtime import Trackside

from .conftest import ARTIFACTS, start_payload

JOIN = "http://192.168.1.50:8080/table"


def decode_svg_link(html: str) -> str:
    """The QR's text: the inline SVG is re-made from the same link and both compared, then
    the link itself decoded from a raster of it."""
    found = re.search(r'<section class="join".*?<a href="([^"]+)">', html, re.S)
    assert found is not None, html
    link = found.group(1)
    qr = segno.make_qr(link, error="m")
    assert not qr.is_micro
    assert qr.svg_inline(dark="#000", light="#fff", border=4, omitsize=True) in html
    matrix = np.array([[0 if cell else 255 for cell in row] for row in qr.matrix], np.uint8)
    image = np.kron(np.pad(matrix, 4, constant_values=255), np.ones((8, 8), np.uint8))
    results = zxingcpp.read_barcodes(image)
    assert [r.text for r in results] == [link]
    return link


def test_the_scoreboard_shows_a_join_code_only_without_a_game(
    service: Trackside, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = service.app.test_client()
    # the test service listens on the loopback: no phone could follow that, so no code
    assert 'class="join"' not in client.get("/").get_data(as_text=True)
    # on the LAN the service knows its address (runtime.join_url)
    monkeypatch.setattr(Trackside, "join_url", property(lambda self: JOIN))
    html = client.get("/").get_data(as_text=True)
    assert decode_svg_link(html) == JOIN
    assert 'class="join"' in client.get("/partials/scoreboard").get_data(as_text=True)
    payload = start_payload()["payload"]
    outcome = service.submit_and_wait(
        Observation("test", ObservationKind.COMMAND, payload),  # type: ignore[arg-type]
        10,
    )
    assert outcome["outcome"] == "applied", outcome
    assert 'class="join"' not in client.get("/").get_data(as_text=True)


def test_join_code_screenshots(
    service: Trackside, browser: Browser, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Trackside, "join_url", property(lambda self: JOIN))
    page = browser.new_page()
    base = f"http://127.0.0.1:{service.web_port}"
    ARTIFACTS.mkdir(exist_ok=True)
    for width, height in ((1920, 1080), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.goto(base + "/")
        assert page.locator(".join svg").is_visible()
        page.screenshot(path=str(ARTIFACTS / f"join-{width}x{height}.png"), full_page=True)
        assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.close()
