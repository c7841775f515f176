"""A Trains & Stations table at its food speculation, and players claiming their private views
over HTTP (Flask's test client on the running service)."""

from __future__ import annotations

import re

from flask import Flask
from flask.testing import FlaskClient

from companion.service.runtime import Trackside
from tests.games.trains_and_stations.playthroughs import START, TO_SPECULATION, action_input

from .conftest import PIN

TABLE_PIN = {"X-Trackside-Pin": PIN}
ANN_PIN = "90817263"
BEN_PIN = "5521"


def api(client: FlaskClient, body: dict[str, object]) -> dict[str, object]:
    response = client.post("/api/input", json=body, headers=TABLE_PIN)
    data = response.get_json()
    assert isinstance(data, dict), response.get_data(as_text=True)
    return data


def at_speculation(service: Trackside) -> FlaskClient:
    """Start the three-player game and play it to the food speculation via the API."""
    client = service.app.test_client()
    assert api(client, {"kind": "command", "payload": START})["outcome"] == "applied"
    for kind, player, args in TO_SPECULATION:
        outcome = api(client, action_input(kind, player, args))
        assert outcome["outcome"] == "applied", outcome
    return client


def csrf_of(page: str) -> str:
    match = re.search(r'name="csrf" value="([^"]+)"', page)
    assert match, page
    return match.group(1)


def grant_code(app: Flask, player: int) -> str:
    """The table page (signed in with the table PIN) gives ``player`` a seat code: the code
    as the page shows it."""
    table = app.test_client()
    page = table.get("/table").get_data(as_text=True)
    response = table.post("/table/login", data={"csrf": csrf_of(page), "pin": PIN})
    assert response.status_code == 303
    page = table.get("/table").get_data(as_text=True)
    response = table.post(f"/me/code/{player}", data={"csrf": csrf_of(page)})
    assert response.status_code == 303
    page = table.get("/table").get_data(as_text=True)
    code = re.search(rf'class="seat-code" data-player="{player}">([A-Z0-9-]+)<', page)
    assert code, page
    return code.group(1)


def claim(
    client: FlaskClient,
    player: int,
    pin: str,
    again: str | None = None,
    code: str | None = None,
) -> str:
    """Open the PIN form for ``player``, send it (setting the PIN with a seat code the table
    grants, unless ``code`` is given, or entering the PIN), follow on."""
    form = client.get(f"/me/{player}").get_data(as_text=True)
    game_id = re.search(r'name="game_id" value="(\d+)"', form)
    assert game_id, form
    data = {"csrf": csrf_of(form), "game_id": game_id.group(1), "pin": pin}
    if 'name="pin_again"' in form:
        data["pin_again"] = pin if again is None else again
        data["code"] = grant_code(client.application, player) if code is None else code
    response = client.post(f"/me/{player}", data=data)
    assert response.status_code == 303, response.get_data(as_text=True)
    return client.get(str(response.headers["Location"])).get_data(as_text=True)


def send(client: FlaskClient, kind: str, **fields: str) -> str:
    """Send one private action from the signed-in player's page; the page after it."""
    page = client.get("/me").get_data(as_text=True)
    response = client.post(f"/me/act/{kind}", data={"csrf": csrf_of(page), **fields})
    assert response.status_code == 303, response.get_data(as_text=True)
    return client.get("/me").get_data(as_text=True)


def count(page: str, good: str) -> int:
    """The number the private page shows for one goods type."""
    match = re.search(rf'data-good="{good}">(\d+)<', page)
    assert match, page
    return int(match.group(1))


def signed_in_table(service: Trackside) -> FlaskClient:
    client = service.app.test_client()
    page = client.get("/table").get_data(as_text=True)
    response = client.post("/table/login", data={"csrf": csrf_of(page), "pin": PIN, "who": "Dana"})
    assert response.status_code == 303
    return client
