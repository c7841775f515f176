"""The hub's pages and JSON: the wall screen with eight tables on a 1080p TV and on a phone,
a table's page, the league and its CSV."""

from __future__ import annotations

import csv
import io
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask.testing import FlaskClient
from playwright.sync_api import Browser
from werkzeug.serving import make_server

from companion.hub.store import HubStore
from companion.hub.web import create_hub_app
from tests.hub.scenes import QUIET, TABLES, club_night

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[HubStore]:
    s = HubStore(tmp_path / "hub.sqlite3")
    yield s
    s.close()


@pytest.fixture
def client(store: HubStore) -> FlaskClient:
    import time

    hub = club_night(store, now=time.time())
    return create_hub_app(hub, night_hours=12).test_client()


def test_the_tables_json_follows_the_contract(client: FlaskClient) -> None:
    tables = client.get("/api/tables").get_json()["tables"]
    assert [t["table_id"] for t in tables] == sorted(t[0] for t in TABLES)
    first = tables[0]
    for key in (
        "table_id",
        "online",
        "last_seen_s",
        "game",
        "game_id",
        "seq",
        "over",
        "players",
        "waiting_for",
    ):
        assert key in first
    assert first["players"][0] == {"name": "Jana", "total": 142, "colour": "red"}
    quiet = next(t for t in tables if t["table_id"] == QUIET)
    assert quiet["quiet"] is True and quiet["online"] is True


def test_the_wall_marks_the_quiet_table_and_whose_turn(client: FlaskClient) -> None:
    html = client.get("/").get_data(as_text=True)
    assert html.count('class="card') == 8
    assert "Quiet — last heard 15 min ago" in html
    assert "Turn: <b>Lucía</b>" in html
    assert "Game over — Juan Carlos won" in html


def test_the_league_links_a_player_across_tables_and_exports_csv(client: FlaskClient) -> None:
    league = client.get("/api/league?period=night").get_json()
    eva = [p for p in league["players"] if p["name"].strip().lower() == "eva"]
    assert len(eva) == 1 and eva[0]["games"] == 2 and eva[0]["wins"] == 1
    assert league["players"][0]["rank"] == 1
    rows = list(
        csv.reader(io.StringIO(client.get("/league.csv?period=season").get_data(as_text=True)))
    )
    assert rows[0] == ["rank", "player", "code", "games", "wins", "points", "normalised_per_game"]
    assert len(rows) == 1 + len(league["players"])
    results = list(
        csv.reader(io.StringIO(client.get("/results.csv?period=season").get_data(as_text=True)))
    )
    assert len(results) == 1 + 12  # one row per player per game
    assert client.get("/league?period=forever").status_code == 400
    assert client.get("/t/nobody").status_code == 404


@pytest.mark.slow
@pytest.mark.parametrize(("width", "height"), [(1920, 1080), (390, 844)])
def test_the_wall_screen_in_a_browser(
    store: HubStore, browser: Browser, width: int, height: int
) -> None:
    import time

    hub = club_night(store, now=time.time())
    server = make_server("127.0.0.1", 0, create_hub_app(hub), threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_port}"
    ARTIFACTS.mkdir(exist_ok=True)
    try:
        page = browser.new_page(viewport={"width": width, "height": height})
        try:
            page.goto(base + "/")
            page.wait_for_selector(".card")
            page.screenshot(path=str(ARTIFACTS / f"hub-wall-{width}.png"), full_page=True)
            scroll = page.evaluate("document.documentElement.scrollWidth")
            assert scroll <= width, f"sideways scrolling at {width} px"
            boxes = [c.bounding_box() for c in page.query_selector_all(".card")]
            assert len(boxes) == 8
            if width >= 1920:  # all eight tables on one TV screen, none cut off
                assert all(b is not None and b["y"] + b["height"] <= height for b in boxes)
            page.goto(base + "/league?period=night")
            page.screenshot(path=str(ARTIFACTS / f"hub-league-{width}.png"), full_page=True)
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            page.goto(base + "/t/stul-1")
            page.screenshot(path=str(ARTIFACTS / f"hub-table-{width}.png"), full_page=True)
            assert page.evaluate("document.documentElement.scrollWidth") <= width
        finally:
            page.close()
    finally:
        server.shutdown()
        server.server_close()


def test_a_player_code_links_another_spelling(store: HubStore) -> None:
    import time

    from companion.hub.store import CODE_ALPHABET

    hub = club_night(store, now=time.time())
    client = create_hub_app(hub).test_client()
    players = client.get("/api/players").get_json()["players"]
    codes = {p["name"]: p["code"] for p in players}
    assert len(set(codes.values())) == len(codes)  # one code each
    eva = codes["Eva"]
    assert len(eva) == 4 and set(eva) <= set(CODE_ALPHABET)
    # Eva plays at another table as "Evička #<code>": her games count as one player's
    hub.store.add_result(
        "stul-7",
        "db-x",
        {
            "game_id": 9,
            "game": "tiny-race",
            "started_at": time.time() - 60,
            "ended_at": time.time(),
            "players": [
                {"name": f"Evička #{eva.lower()}", "total": 10},
                {"name": "Red", "total": 4},
            ],
            "winners": [f"Evička #{eva.lower()}"],
        },
    )
    league = client.get("/api/league?period=season").get_json()["players"]
    (row,) = [p for p in league if p["code"] == eva]
    assert row["games"] == 3 and row["wins"] == 2
    assert row["name"] == "Eva"  # the spelling used most
