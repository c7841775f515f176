"""Seasons (issue 51): ``[hub] seasons`` names each season and its first day; the league's
"season" is the one running, the earlier ones stay to look back at (the archive), each with its
own league, results and CSV."""

from __future__ import annotations

import datetime as dt
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from companion.hub.config import HubConfigError, parse_hub_settings
from companion.hub.store import HubStore
from companion.hub.tables import Hub
from companion.hub.web import create_hub_app

TODAY = dt.date.today()
DAY = 86400.0


def settings(seasons: str) -> Any:
    return parse_hub_settings(
        tomllib.loads(f'[hub]\nseasons = {seasons}\n[mqtt]\nhost = "club.local"\n')
    )


@pytest.fixture
def store(tmp_path: Path) -> Iterator[HubStore]:
    s = HubStore(tmp_path / "hub.sqlite3")
    yield s
    s.close()


def result(game_id: int, ended_days_ago: float, winner: str) -> dict[str, Any]:
    ended = time.time() - ended_days_ago * DAY
    return {
        "game_id": game_id,
        "game": "tiny-race",
        "started_at": ended - 600,
        "ended_at": ended,
        "players": [{"name": winner, "total": 9}, {"name": "Petr", "total": 4}],
        "winners": [winner],
    }


@pytest.fixture
def client(store: HubStore) -> FlaskClient:
    spring, autumn = TODAY - dt.timedelta(days=60), TODAY - dt.timedelta(days=10)
    hub_settings = settings(
        f'[{{name = "Spring", start = {spring}}}, {{name = "Autumn", start = {autumn}}}]'
    )
    store.add_result("t1", "db", result(1, 90, "Before"))  # before the first season
    store.add_result("t1", "db", result(2, 30, "Ana"))  # Spring
    store.add_result("t1", "db", result(3, 1, "Jana"))  # Autumn, the season running
    return create_hub_app(Hub(store), seasons=hub_settings.seasons).test_client()


def names(client: FlaskClient, query: str) -> list[str]:
    data = client.get(f"/api/league?{query}").get_json()
    return [p["name"] for p in data["players"] if p["wins"]]


def test_the_season_is_the_one_running_and_earlier_ones_stay_in_the_archive(
    client: FlaskClient,
) -> None:
    current = client.get("/api/league?period=season").get_json()
    assert current["season"] == {
        "number": 2,
        "name": "Autumn",
        "start": (TODAY - dt.timedelta(days=10)).isoformat(),
        "end": None,
    }
    assert names(client, "period=season") == ["Jana"]
    spring = client.get("/api/league?period=season&season=1").get_json()
    assert spring["season"]["name"] == "Spring"
    assert spring["season"]["end"] == (TODAY - dt.timedelta(days=10)).isoformat()
    assert names(client, "period=season&season=1") == ["Ana"]
    # the page names the season and links every season
    page = client.get("/league?period=season").get_data(as_text=True)
    assert "<small>Autumn</small>" in page
    assert "period=season&amp;season=1" in page and ">Spring</a>" in page
    # each season's CSV holds that season's games only
    csv = client.get("/results.csv?period=season&season=1")
    assert "season-1" in csv.headers["Content-Disposition"]
    assert "Ana" in csv.get_data(as_text=True) and "Jana" not in csv.get_data(as_text=True)
    assert client.get("/api/league?period=season&season=3").status_code == 400
    assert client.get("/api/league?period=season&season=x").status_code == 400


def test_without_seasons_the_season_is_every_result(store: HubStore) -> None:
    store.add_result("t1", "db", result(1, 400, "Ana"))
    store.add_result("t1", "db", result(2, 1, "Jana"))
    client = create_hub_app(Hub(store)).test_client()
    assert sorted(names(client, "period=season")) == ["Ana", "Jana"]
    assert "season" not in client.get("/api/league?period=season").get_json()


@pytest.mark.parametrize(
    ("seasons", "reason"),
    [
        ('[{name = "A", start = 2026-09-01}, {name = "B", start = 2026-01-01}]', "is not after"),
        (
            '[{name = "A", start = 2026-09-01}, {name = "A", start = 2027-01-01}]',
            "already a season",
        ),
        ('[{name = "A", start = "September"}]', "hub.seasons[0].start: 'September' is not a date"),
        ('[{name = "", start = 2026-09-01}]', "hub.seasons[0].name"),
        ('[{name = "A", start = 2026-09-01, end = 2027-01-01}]', "hub.seasons[0]: expected"),
    ],
)
def test_a_bad_season_stops_the_hub_naming_it(seasons: str, reason: str) -> None:
    with pytest.raises(HubConfigError, match=reason.replace("[", r"\[").replace("]", r"\]")):
        settings(seasons)
