"""The camera's question on the table page (Debian's Chromium at 390×844 and 1920×1080): the
camera reads the face-up row but is not sure of one card; the page shows the reading with a
"?" where that card lies and one button per kind of card, each with its colour beside its name,
and one tap fills the row."""

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
        # each answer shows its card's colour beside its word (a rainbow for the locomotive)
        drawn = page.eval_on_selector_all(
            "#enter button.choice .swatch",
            "els => els.map(e => [getComputedStyle(e).backgroundColor,"
            " getComputedStyle(e).backgroundImage, e.getBoundingClientRect().width])",
        )
        assert len(drawn) == 9
        assert drawn[0][0] == "rgb(123, 63, 168)" and drawn[3][0] == "rgb(242, 193, 46)"
        assert drawn[8][1].startswith("linear-gradient") and min(w for *_, w in drawn) >= 20
        assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]
        page.screenshot(path=str(ARTIFACTS / f"camera-question-{name}.png"), full_page=True)
        if size is PHONE:
            version_before = service.latest()[0]
            page.locator("#enter button.choice", has_text="yellow").first.click()
            # the tap's answer is drawn in place: the page shows the table after the answer
            # (the question was already off the top level once it was opened: waiting for
            # that raced the tap's own request)
            page.wait_for_function(
                "v => parseInt(document.getElementById('live-meta').dataset.version, 10) > v",
                arg=version_before,
            )
            expect(page.locator("#enter .choice", has_text=question)).to_have_count(0)
        page.close()
    session = service.engine.session()
    assert session is not None
    assert session.state.face_up == ("red", "yellow", "green", "white", "black")  # type: ignore[attr-defined]


def _act(kind: str, player: int | None = None, **args: object) -> Observation:
    action: dict[str, object] = {"kind": kind, "args": args}
    if player is not None:
        action["player"] = player
    payload = {"action": action}
    return Observation.from_json({"source": "table-page", "kind": "action", "payload": payload})


@pytest.mark.slow
def test_cards_and_routes_are_shown_in_their_colours_on_the_table_page(
    service: Trackside, browser: Browser
) -> None:
    """Entering a turn by taps: the face-up cards to take, the routes to claim and the payments
    for one each show their colours beside their names, on a phone and on a TV-size screen."""
    ARTIFACTS.mkdir(exist_ok=True)
    players = [{"name": "Jana", "colour": "red"}, {"name": "Petr", "colour": "blue"}]
    start = {"command": "start_game", "game": "ticket-to-ride-europe", "players": players}
    service.submit_and_wait(
        Observation.from_json({"source": "table-page", "kind": "command", "payload": start}), 5
    )
    row = ["red", "blue", "locomotive", "purple", "white"]
    tickets = (("paris-wien", "edinburgh-athina"), ("berlin-roma", "brest-petrograd"))
    for observation in (
        _act("reveal_face_up", cards=row),
        *(_act("keep_ticket", p, ticket=t) for p, kept in enumerate(tickets) for t in kept),
        _act("done_tickets", 0),
        _act("done_tickets", 1),
    ):
        assert service.submit_and_wait(observation, 5)["outcome"] == "applied"
    base = f"http://127.0.0.1:{service.web_port}"
    for size, name in ((TV, "1920x1080"), (PHONE, "390x844")):
        page = browser.new_page(viewport=size)
        sign_in(page, base)
        page.goto(f"{base}/table?at=draw#enter")
        taken = page.locator("#enter .choice")
        expect(taken.first).to_be_visible()
        swatched = page.eval_on_selector_all(
            "#enter .choice", "els => els.map(e => e.querySelectorAll('.swatch').length)"
        )
        assert swatched[:5] == [1, 1, 1, 1, 1] and swatched[5] == 0  # the deck has no colour
        page.screenshot(path=str(ARTIFACTS / f"table-colours-draw-{name}.png"), full_page=True)
        page.goto(f"{base}/table?at=claim/amsterdam#enter")  # the routes from Amsterdam
        expect(page.locator("#enter .choice .swatch").first).to_be_visible()
        page.screenshot(path=str(ARTIFACTS / f"table-colours-routes-{name}.png"))
        page.goto(f"{base}/table?at=claim/amsterdam/amsterdam-essen#enter")
        payments = page.locator("#enter button.choice")
        expect(payments.first).to_be_visible()
        two = page.locator("#enter button.choice", has_text="+").first
        expect(two.locator(".swatch")).to_have_count(2)
        assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]
        page.screenshot(path=str(ARTIFACTS / f"table-colours-pay-{name}.png"), full_page=True)
        page.close()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("game", "at", "first"),
    [("russian-railroads", "", "black"), ("mini-express", "draft", "orange")],
)
def test_rails_and_companies_are_shown_in_their_colours(
    service: Trackside, browser: Browser, game: str, at: str, first: str
) -> None:
    """Russian Railroads' spaces show the rail colours their steps are for, Mini Express's
    companies their components' colours, on a phone and on a TV-size screen."""
    from web.app import SWATCH_CSS

    ARTIFACTS.mkdir(exist_ok=True)
    names = [("Jana", "red"), ("Petr", "blue"), ("Eva", "green")]
    # two at Russian Railroads: its starting cards (three or four players) come first
    players = [
        {"name": n, "colour": c} for n, c in names[: 2 if game == "russian-railroads" else 3]
    ]
    start = {"command": "start_game", "game": game, "players": players}
    service.submit_and_wait(
        Observation.from_json({"source": "table-page", "kind": "command", "payload": start}), 5
    )
    base = f"http://127.0.0.1:{service.web_port}"
    for size, name in ((TV, "1920x1080"), (PHONE, "390x844")):
        page = browser.new_page(viewport=size)
        sign_in(page, base)
        page.goto(f"{base}/table?at={at}#enter" if at else f"{base}/table#enter")
        swatch = page.locator("#enter .choice .swatch").first
        expect(swatch).to_be_visible()
        assert swatch.get_attribute("style") == f"background: {SWATCH_CSS[first]}"
        assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]
        page.screenshot(path=str(ARTIFACTS / f"table-colours-{game}-{name}.png"), full_page=True)
        page.close()
