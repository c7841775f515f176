"""The table, history and scoreboard pages in a real browser (Debian's Chromium): the PIN
guards every change, a game is played through the table page to its final sheet, Ticket to
Ride is claimed by taps on the choices tree, and every page is photographed at TV and phone size
(``test-artifacts/``) for a human to look at."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from companion.core import Observation, ObservationKind
from companion.service.runtime import Trackside

from .conftest import ARTIFACTS, PIN
from .golden_feed import feed
from .live import live_click

GOLDEN = Path(__file__).resolve().parents[1] / "games" / "golden"
TV = {"width": 1920, "height": 1080}
PHONE = {"width": 360, "height": 740}


def shoot(page: Page, name: str) -> None:
    """Screenshots at 1920x1080 and 360x740; on the phone nothing may be wider than the
    screen (no sideways scrolling)."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.set_viewport_size(TV)
    page.screenshot(path=str(ARTIFACTS / f"{name}-1920x1080.png"), full_page=True)
    page.set_viewport_size(PHONE)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"{name} is {width} px wide on a phone"
    page.screenshot(path=str(ARTIFACTS / f"{name}-360x740.png"), full_page=True)
    page.set_viewport_size(TV)


def sign_in(page: Page, base: str, who: str = "Ann") -> None:
    page.goto(f"{base}/table")
    page.fill("input[name=pin]", PIN)
    page.fill("input[name=who]", who)
    page.click("main form button[type=submit]")
    expect(page.locator(".who")).to_contain_text(f"Signed in as {who}")


def golden_steps(service: Trackside, game: str, upto: int) -> None:
    """Play the golden playthrough's first ``upto`` steps through the service (as the readers
    and other pages would), so the browser picks up a table mid-game."""
    golden = json.loads((GOLDEN / f"{game}.json").read_text())
    start = {"command": "start_game", "game": game, "players": golden["players"]}
    start["options"] = golden["options"]
    submit(service, ObservationKind.COMMAND, start)
    for step in golden["steps"][:upto]:
        feed(service, game, step)


def submit(service: Trackside, kind: ObservationKind, payload: dict[str, Any]) -> None:
    service.submit_and_wait(Observation("test", kind, payload), 10)  # type: ignore[arg-type]


@pytest.mark.slow
def test_table_page_refuses_changes_without_the_pin(service: Trackside, browser: Browser) -> None:
    base = f"http://127.0.0.1:{service.web_port}"
    page = browser.new_page(viewport=TV)
    page.goto(f"{base}/table")
    # no PIN yet: only the PIN form, no game forms
    expect(page.locator("input[name=pin]")).to_be_visible()
    expect(page.locator("#start")).to_have_count(0)
    shoot(page, "table-pin")
    # a wrong PIN is refused, and nothing starts
    page.fill("input[name=pin]", "0000")
    page.click("main form button[type=submit]")
    expect(page.locator(".flash.error")).to_have_text("Wrong PIN.")
    # a forged form (no session, no CSRF token) is refused with a clear page, no stack trace
    response = page.request.post(
        f"{base}/table/start", form={"game": "tiny-race", "name_0": "Mallory"}
    )
    assert response.status == 400
    assert "CSRF check failed" in response.text() and "Traceback" not in response.text()
    # a signed-out browser with a valid CSRF token (from the PIN page) is still refused
    token = page.locator("input[name=csrf]").first.get_attribute("value")
    response = page.request.post(
        f"{base}/table/start",
        form={"csrf": token or "", "game": "tiny-race", "name_0": "Mallory"},
    )
    assert response.ok and "Enter the table PIN first." in response.text()
    # the JSON API wants the PIN too
    api = page.request.post(f"{base}/api/input", data={"kind": "command", "payload": {}})
    assert api.status == 401
    _, snapshot = service.latest()
    assert snapshot["game"] is None
    # five wrong PINs in a minute and even the right one waits
    for _ in range(5):
        page.fill("input[name=pin]", "9999")
        page.click("main form button[type=submit]")
    page.fill("input[name=pin]", PIN)
    page.click("main form button[type=submit]")
    expect(page.locator(".flash.error")).to_contain_text("Too many wrong PINs")
    page.close()


@pytest.mark.slow
def test_tiny_race_played_through_the_table_page(service: Trackside, browser: Browser) -> None:
    service.app.config["SHOW_HIDDEN_GAMES"] = True  # the test-only game is offered
    base = f"http://127.0.0.1:{service.web_port}"
    page = browser.new_page(viewport=TV)
    sign_in(page, base, "Ann")
    shoot(page, "table-start")
    # start: game, players, colours, seats, options
    page.select_option("select[name=game]", "tiny-race")
    page.fill("input[name=name_0]", "Red")
    page.fill("input[name=name_1]", "Blue")
    page.select_option("select[name=colour_1]", "blue")
    page.click("#start summary")
    page.fill("#start textarea[name=options]", '{"target": 5}')
    with page.expect_navigation(timeout=30_000):  # a whole-page post
        page.click("#start button[type=submit]")
    expect(page.locator(".flash.ok")).to_have_text("Tiny Race (test game) started")

    def tap(path: str) -> None:
        live_click(page, f'#enter .choice[data-path="{path}"]')

    def advance(steps: int) -> None:
        tap("advance")  # the active player's turn is at the top of the tree
        tap(f"advance/{steps}")

    def raw(kind: str, args: str) -> None:
        if not page.locator("#any-action").evaluate("d => d.open"):
            page.click("#any-action summary")
        page.fill("#any-action input[name=kind]", kind)
        page.fill("#any-action textarea[name=args]", args)
        # a whole-page post: wait for the answer's page (a loaded machine takes seconds)
        with page.expect_navigation(timeout=30_000):
            page.click("#any-action button[type=submit]")

    advance(3)  # Red
    expect(page.locator(".flash.ok")).to_have_text("Red: advance steps=3")
    advance(2)  # Blue
    # the tree offers 1–3 only; a refused move typed in the advanced form shows the rule and
    # changes nothing
    expect(page.locator('#enter .choice[data-path="advance"]')).to_have_text("Red: advance")
    raw("advance", '{"steps": 7}')
    expect(page.locator(".flash.error")).to_contain_text("Refused:")
    # bad JSON never reaches the engine
    raw("advance", "{steps: 1")
    expect(page.locator(".flash.error")).to_contain_text("Not sent — args: not JSON")
    advance(1)  # Red, a mistake: undo it (appended to the log, with who and when)
    tap("table-undo")
    expect(page.locator(".flash.ok")).to_have_text("Undone: Red: advance steps=1")
    expect(page.locator("#log li").first).to_contain_text("#5")
    expect(page.locator("#log li").first).to_contain_text("Ann")
    expect(page.locator("#log li").first).to_contain_text("undo #4")
    tap("table-redo")
    tap("table-undo")
    shoot(page, "table-tiny-race")
    # Red rolls a die nobody has enrolled: the page asks for it, by its UID
    service.scan("red-seat", "04D1E5000099")
    service.wait_idle()
    # the page follows by itself (an unknown tag loads it whole once: the enrol form appears)
    # players read no tag id; the enrol form is filled with it for the table
    expect(page.locator("#prompt")).to_contain_text("unknown tag — enrol it on the table page")
    expect(page.locator("#prompt")).not_to_contain_text("04D1E5000099")
    expect(page.locator("#enrol input[name=uid]")).to_have_value("04D1E5000099")
    page.fill("#enrol input[name=component]", "die-2")
    page.click("#enrol button[type=submit]")
    expect(page.locator(".flash.ok")).to_have_text("04D1E5000099 → tiny-race die-2")
    service.scan("red-seat", "04D1E5000099")  # the same die again: now Red advances 2
    # Red reaches 5: the race is over by its rules, and that move files it as finished (no
    # tap for it); the page follows by itself and is ready for the next game
    service.wait_idle()
    expect(page.locator("#game .waiting")).to_contain_text("winner: Red")
    expect(page.locator("#log li").first).to_contain_text("the rules")
    expect(page.locator("#log li").first).to_contain_text("game ended: final scoring")
    expect(page.locator("#start")).to_be_visible()
    shoot(page, "table-tiny-race-over")
    page.goto(f"{base}/history")
    expect(page.locator(".game-row").first).to_contain_text("Red 10")
    expect(page.locator(".game-row").first).to_contain_text("Blue 2")
    shoot(page, "history")
    page.click(".game-row .title >> nth=0")
    red = page.locator(".player", has_text="Red")
    expect(red.locator(".total")).to_have_text("10")
    expect(red.locator(".lines li", has_text="distance")).to_contain_text("5")
    expect(red.locator(".lines li", has_text="finish")).to_contain_text("5")
    expect(page.locator(".player", has_text="Blue").locator(".total")).to_have_text("2")
    link = page.locator("text=Open in BG Stats").get_attribute("href") or ""
    assert link.startswith("https://app.bgstatsapp.com/createPlay.html?data=")
    expect(page.locator(".qr svg")).to_be_visible()
    shoot(page, "history-game")
    csv = page.request.get(f"{base}/api/games/1/export?format=csv").text()
    assert "1,tiny-race,Red,total,10," in csv
    page.close()


@pytest.mark.slow
def test_ticket_to_ride_claims_and_tunnel_by_taps(service: Trackside, browser: Browser) -> None:
    golden_steps(service, "ticket-to-ride-europe", 18)  # up to Red's first claim
    base = f"http://127.0.0.1:{service.web_port}"
    page = browser.new_page(viewport=TV)
    sign_in(page, base, "Ben")

    def tap(path: str) -> None:
        live_click(page, f'#enter .choice[data-path="{path}"]')

    # Red claims Paris–Bruxelles (the red one of the double) with a red card and a locomotive:
    # four taps, the claim, a city, the route, the cards
    tap("claim")
    tap("claim/paris")
    tap("claim/paris/bruxelles-paris-red")
    tap("claim/paris/bruxelles-paris-red/1red+1locomotive")
    expect(page.locator(".flash.ok")).to_contain_text(
        "Red claims Bruxelles – Paris (red) with 1× red, 1× locomotive"
    )
    expect(page.locator(".mini-players li", has_text="Red")).to_contain_text("2")
    # Blue's München–Venezia tunnel: red cards are never offered for a blue route
    tap("claim")
    tap("claim/venezia")
    tap("claim/venezia/munchen-venezia")
    expect(
        page.locator('#enter .choice[data-path="claim/venezia/munchen-venezia/2red"]')
    ).to_have_count(0)
    tap("claim/venezia/munchen-venezia/2blue")
    # the table turns three cards on the readers: blue, green, locomotive → two more owed
    for card in ("blue", "green", "locomotive"):
        obs = Observation(
            "table-reader",  # type: ignore[arg-type]
            ObservationKind.TAG_PRESENT,
            {"uid": f"TS:ticket-to-ride-europe:card:{card}"},
        )
        service.submit_and_wait(obs, 10)
    # the table page follows the readers by itself (no reload): what is owed is on offer
    expect(page.locator('#enter .choice[data-path="pay-1blue+1locomotive"]')).to_be_visible()
    shoot(page, "table-ttr-tunnel")
    tap("pay-1blue+1locomotive")
    expect(page.locator(".mini-players li", has_text="Blue")).to_contain_text("2")
    # Red's next turn: a blind draw, two taps
    tap("draw")
    tap("draw/blind")
    expect(page.locator(".flash.ok")).to_contain_text("Red draws a train card from the deck")
    # the scoreboard's map shows both claims in the players' colours
    page.goto(f"{base}/")
    expect(page.locator(".map line.claimed")).to_have_count(2)
    shoot(page, "scoreboard-ttr")
    page.close()


@pytest.mark.slow
def test_russian_railroads_rail_steps_and_the_round_chart(
    service: Trackside, browser: Browser
) -> None:
    golden = json.loads((GOLDEN / "russian-railroads.json").read_text())
    first_build = next(
        i
        for i, s in enumerate(golden["steps"])
        if s.get("action", {}).get("kind") == "build" and "refused" not in s
    )
    golden_steps(service, "russian-railroads", first_build)
    step = golden["steps"][first_build]
    base = f"http://127.0.0.1:{service.web_port}"
    page = browser.new_page(viewport=TV)
    sign_in(page, base, "Cleo")
    # the golden game's first build, entered through the advanced form until Russian
    # Railroads has its choices tree (the action-board issue)
    page.click("#any-action summary")
    page.fill("#any-action input[name=kind]", "build")
    page.select_option("#any-action select[name=player]", str(step["action"]["player"]))
    page.fill("#any-action textarea[name=args]", json.dumps(step["action"]["args"]))
    page.click("#any-action button[type=submit]")
    builder = golden["players"][step["action"]["player"]]["name"]
    expect(page.locator(".flash.ok")).to_contain_text(f"{builder} builds 1 black rail on the")
    shoot(page, "table-russian-railroads")
    # the rest of the golden game through the service; the chart shows every round
    for later in golden["steps"][first_build + 1 :]:
        if "action" in later:
            submit(service, ObservationKind.ACTION, {"action": later["action"]})
        else:
            player = later["scan"].get("player")
            service.submit_and_wait(
                Observation(
                    "seat-reader",  # type: ignore[arg-type]
                    ObservationKind.TAG_PRESENT,
                    {"uid": f"TS:russian-railroads:{later['scan']['component']}"},
                    None if player is None else player + 1,  # type: ignore[arg-type]
                ),
                10,
            )
    _, snapshot = service.latest()
    assert [p["total"] for p in snapshot["players"]] == golden["final"]["totals"]
    # the TV is another screen (the table page loads itself whole as the rules end the game:
    # navigating it away at that moment would race its own reload)
    tv = browser.new_page(viewport=TV)
    tv.goto(f"{base}/")
    expect(tv.locator(".chart polyline.series")).to_have_count(4)
    expect(tv.locator(".chart .end-label").first).to_have_text(
        f"Red {golden['final']['totals'][0]}"
    )
    shoot(tv, "scoreboard-russian-railroads")
    tv.close()
    page.close()
