"""The camera's question on the table page (Debian's Chromium at 390×844 and 1920×1080): the
camera reads the face-up row but is not sure of one card; the page shows the reading with a
"?" where that card lies and one button per kind of card, and one tap fills the row."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from companion.core import Observation
from companion.service.runtime import Trackside

from .conftest import ARTIFACTS
from .test_table_browser import PHONE, sign_in

TV = {"width": 1920, "height": 1080}
READING = ["red", "unsure", "green", "white", "black"]


@pytest.mark.slow
def test_a_card_the_camera_is_not_sure_of_is_one_tap_on_the_phone(
    service: Trackside, browser: Browser
) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    players = [{"name": "Jana", "colour": "red"}, {"name": "Petr", "colour": "blue"}]
    start = {"command": "start_game", "game": "ticket-to-ride-europe", "players": players}
    service.submit_and_wait(
        Observation.from_json({"source": "table-page", "kind": "command", "payload": start}), 5
    )
    outcome = service.submit_and_wait(
        Observation.from_json(
            {"source": "camera", "kind": "cards", "payload": {"colours": READING}}
        ),
        5,
    )
    assert outcome["outcome"] == "prompt"
    base = f"http://127.0.0.1:{service.web_port}"
    question = "The camera read red, ?, green, white, black: which card is the “?”?"
    tv = browser.new_page(viewport=TV)  # the scoreboard asks too: the reveal is public
    tv.goto(f"{base}/")
    expect(tv.get_by_text(f"Trackside asks: {question}")).to_be_visible()
    tv.screenshot(path=str(ARTIFACTS / "camera-asks-scoreboard-1920x1080.png"))
    tv.close()
    for size, name in ((TV, "1920x1080"), (PHONE, "390x844")):
        page = browser.new_page(viewport=size)
        sign_in(page, base)
        asked = page.locator("#enter .choice", has_text=question)
        expect(asked).to_be_visible()
        page.screenshot(path=str(ARTIFACTS / f"camera-asks-{name}.png"), full_page=True)
        asked.click()
        colours = page.locator("#enter button.choice")
        expect(colours.first).to_be_visible()
        labels = [label.strip() for label in colours.all_inner_texts()]
        assert labels[:9] == [
            "purple", "white", "blue", "yellow", "orange", "black", "red", "green", "locomotive"
        ]  # fmt: skip
        assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]
        page.screenshot(path=str(ARTIFACTS / f"camera-question-{name}.png"), full_page=True)
        if size is PHONE:
            page.locator("#enter button.choice", has_text="yellow").first.click()
            page.wait_for_load_state("domcontentloaded")
            expect(page.locator("#enter .choice", has_text=question)).to_have_count(0)
        page.close()
    session = service.engine.session()
    assert session is not None
    assert session.state.face_up == ("red", "yellow", "green", "white", "black")  # type: ignore[attr-defined]
