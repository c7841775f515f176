"""The table page's guards and forms over HTTP (Flask's test client on the running service):
the PIN and the session, CSRF, trusted subnets, corrections in the log, clear errors."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from companion.service.config import parse_settings
from companion.service.runtime import Trackside

from .conftest import PIN


def csrf(client: FlaskClient) -> str:
    page = client.get("/table").get_data(as_text=True)
    match = re.search(r'name="csrf" value="([^"]+)"', page)
    assert match, page
    return match.group(1)


def signed_in(service: Trackside, who: str = "Dana") -> FlaskClient:
    client = service.app.test_client()
    response = client.post("/table/login", data={"csrf": csrf(client), "pin": PIN, "who": who})
    assert response.status_code == 303
    return client


def post(client: FlaskClient, op: str, **fields: str) -> str:
    response = client.post(f"/table/{op}", data={"csrf": csrf(client), **fields})
    assert response.status_code == 303, response.get_data(as_text=True)
    return client.get("/table").get_data(as_text=True)


def start_tiny(client: FlaskClient) -> str:
    return post(
        client,
        "start",
        game="tiny-race",
        name_0="Red",
        colour_0="red",
        seat_0="1",
        name_1="Blue",
        colour_1="blue",
        seat_1="2",
    )


def test_a_form_without_its_csrf_token_is_refused_plainly(service: Trackside) -> None:
    client = signed_in(service)
    response = client.post("/table/undo", data={})
    page = response.get_data(as_text=True)
    assert response.status_code == 400
    assert "CSRF check failed" in page and "Traceback" not in page
    other = service.app.test_client()  # a token from another session does not count
    response = client.post("/table/undo", data={"csrf": csrf(other)})
    assert response.status_code == 400


def test_a_correction_is_appended_with_who_and_when(service: Trackside) -> None:
    service.app.config["SHOW_HIDDEN_GAMES"] = True
    client = signed_in(service, "Dana")
    start_tiny(client)
    post(client, "action", kind="advance", player="0", args='{"steps": 3}')
    page = post(client, "correct", target_seq="2", kind="advance", player="0", args='{"steps": 1}')
    _, snapshot = service.latest()
    assert [p["total"] for p in snapshot["players"]] == [1, 0]
    assert "correct #2 → Red: advance — steps: 1" in page
    assert re.search(r"#3</span> <time>\d\d:\d\d:\d\d</time> <span class=\"by\">Dana", page)
    # the original entry stays in the log
    assert "#2</span>" in page and "Red: advance — steps: 3" in page


def test_refusals_and_bad_fields_are_messages_not_errors(service: Trackside) -> None:
    service.app.config["SHOW_HIDDEN_GAMES"] = True
    client = signed_in(service)
    page = post(client, "start", game="no-such-game", name_0="Red")
    assert "Not sent — game: &#39;no-such-game&#39; is not one of" in page
    page = post(client, "start", game="tiny-race")
    assert "Not sent — name 0: at least one player needs a name" in page
    start_tiny(client)
    page = post(client, "prompt", option="0")
    assert "Not sent — option: there is no question to answer now" in page
    page = post(client, "action", kind="fly", args="{}")
    assert "Refused: Tiny Race has no such move — rule: the only move is to advance" in page
    page = post(client, "action", kind="advance", player="1", args='{"steps": 1}')
    assert "Refused: " in page and "seat order" in page
    assert service.app.test_client().get("/history/99").status_code == 404


def test_without_a_pin_in_the_config_the_table_page_changes_nothing(tmp_path: Path) -> None:
    settings = parse_settings({"web": {"host": "127.0.0.1", "port": 0}}, data_dir=tmp_path)
    svc = Trackside(settings)
    try:
        client = svc.app.test_client()
        page = client.get("/table").get_data(as_text=True)
        assert "Changes from the page are off" in page and 'name="pin"' not in page
        response = client.post("/table/login", data={"pin": "1234"})
        assert response.status_code == 400  # there is no form to post, so no token either
    finally:
        svc.stop()


@pytest.mark.parametrize(("subnet", "trusted"), [("127.0.0.1/32", True), ("10.0.0.0/29", False)])
def test_trusted_subnets_skip_the_pin(tmp_path: Path, subnet: str, trusted: bool) -> None:
    settings = parse_settings(
        {"web": {"host": "127.0.0.1", "port": 0, "pin": PIN, "trusted_subnets": [subnet]}},
        data_dir=tmp_path,
    )
    svc = Trackside(settings)
    try:
        client = svc.app.test_client()  # requests come from 127.0.0.1
        page = client.get("/table").get_data(as_text=True)
        assert ("Trusted screen" in page) is trusted
        assert ('name="pin"' in page) is not trusted
    finally:
        svc.stop()
