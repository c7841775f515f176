"""The generic board-figures page, Russian Railroads' unconfirmed figures through it: the PIN and
CSRF guard it, a bad value is named and kept as typed, a save reaches the store and the games
that start later, Mini Express keeps its grid form, a game without figures is a 404."""

from __future__ import annotations

import re
from typing import Any

import pytest
from flask.testing import FlaskClient
from playwright.sync_api import Browser, expect

from companion.core import Observation, ObservationKind
from companion.service.runtime import Trackside

from .test_pages import ARTIFACTS, TV, shoot, sign_in
from .test_table import signed_in

URL = "/table/board-figures/russian-railroads"


def token(client: FlaskClient) -> str:
    page = client.get(URL).get_data(as_text=True)
    match = re.search(r'name="csrf" value="([^"]+)"', page)
    assert match, page
    return match.group(1)


def save(client: FlaskClient, **figures: str) -> tuple[int, str]:
    data = {"csrf": token(client), **{f"figure_{k}": v for k, v in figures.items()}}
    response = client.post(URL, data=data)
    if response.status_code == 303:
        return 303, client.get(URL).get_data(as_text=True)
    return response.status_code, response.get_data(as_text=True)


def start_rr(service: Trackside) -> dict[str, Any]:
    payload = {
        "command": "start_game",
        "game": "russian-railroads",
        "players": [{"name": n} for n in ("Ann", "Ben")],
    }
    obs = Observation("test", ObservationKind.COMMAND, payload)  # type: ignore[arg-type]
    outcome = service.submit_and_wait(obs, 10)
    assert outcome["outcome"] == "applied", outcome
    _, snapshot = service.latest()
    table: dict[str, Any] = snapshot["table"]
    return table


def test_the_page_needs_the_pin(service: Trackside) -> None:
    client = service.app.test_client()
    response = client.get(URL)
    assert response.status_code == 303 and response.headers["Location"].endswith("/table")
    signed = signed_in(service)
    assert signed.post(URL, data={}).status_code == 400  # no CSRF token


def test_the_page_lists_every_figure_with_its_source_and_status(service: Trackside) -> None:
    page = signed_in(service).get(URL).get_data(as_text=True)
    assert "Russian Railroads board figures" in page
    assert "workers the action space “3 grey steps” needs" in page
    assert "Kiev space 8 bonus star" in page
    assert 'id="unknown-count"' in page and 'id="owner-count">0<' in page
    # the one-source values are placeholders, never pre-filled (saving must not confirm them)
    assert re.search(r'name="figure_pass_points_2"[^>]*value=""[^>]*placeholder="2"', page)
    assert "SMBEndRoundScoring" not in page and "engineer_number_points" not in page


def test_a_save_reaches_new_games_and_clears_the_unverified_note(service: Trackside) -> None:
    client = signed_in(service)
    status, page = save(client, kiev_bonus_8="5", space_workers_grey_3="2")
    assert status == 303
    assert "board figures saved for new Russian Railroads games: 2 set from the box" in page
    assert 'id="owner-count">2<' in page
    assert re.search(r'name="figure_kiev_bonus_8"[^>]*value="5"', page)
    defaults = service.store.game_defaults("russian-railroads")
    assert defaults["board"] == {"kiev_bonus_8": 5, "space_workers_grey_3": 2}
    table = start_rr(service)
    assert table["board"] == {"kiev_bonus_8": 5, "space_workers_grey_3": 2}
    # an empty input clears the owner's value
    status, page = save(client, kiev_bonus_8="5")
    assert service.store.game_defaults("russian-railroads")["board"] == {"kiev_bonus_8": 5}


def test_a_bad_value_is_named_kept_as_typed_and_nothing_is_saved(service: Trackside) -> None:
    client = signed_in(service)
    status, page = save(client, space_workers_grey_3="9", kiev_bonus_8="5")
    assert status == 400
    assert "Not saved — workers the action space “3 grey steps” needs: expected a whole " in (page)
    assert re.search(r'name="figure_space_workers_grey_3"[^>]*value="9"', page)
    assert "board" not in service.store.game_defaults("russian-railroads")


def test_mini_express_keeps_its_grid_and_other_games_have_no_page(service: Trackside) -> None:
    client = signed_in(service)
    response = client.get("/table/board-figures/mini-express")
    assert response.status_code == 303
    assert response.headers["Location"].endswith("/table/board-table/mini-express")
    assert client.get("/table/board-figures/tiny-race").status_code == 404
    assert client.get("/table/board-figures/no-such-game").status_code == 404
    assert 'id="board-figures-link"' in client.get("/table").get_data(as_text=True)


@pytest.mark.slow
def test_the_owner_fills_figures_in_a_browser(service: Trackside, browser: Browser) -> None:
    base = f"http://127.0.0.1:{service.web_port}"
    page = browser.new_page(viewport=TV)
    sign_in(page, base, "Ann")
    page.click("#board-figures-link a")
    expect(page.locator("h1")).to_have_text("Russian Railroads board figures")
    page.fill("input[name=figure_kiev_bonus_8]", "5")
    page.fill("input[name=figure_space_workers_brown_2]", "2")
    page.click("#board-figures button[type=submit]")
    expect(page.locator(".flash.ok")).to_have_text(
        "board figures saved for new Russian Railroads games: 2 set from the box"
    )
    expect(page.locator("#owner-count")).to_have_text("2")
    shoot(page, "board-figures-russian-railroads")
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.screenshot(path=str(ARTIFACTS / "board-figures-russian-railroads-390x844.png"))
    page.close()
