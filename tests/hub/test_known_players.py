"""The table page offers the club hub's known players (issue 21: "the table page can pick a
known player"): a real hub app on loopback, a real table service pointed at it by [club] hub_url."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from werkzeug.serving import make_server

from companion.core.errors import ConfigError
from companion.hub.store import HubStore
from companion.hub.web import create_hub_app
from companion.service.config import parse_settings
from companion.service.known_players import MAX_ANSWER_BYTES, KnownPlayers, parse_players
from companion.service.runtime import Trackside
from tests.hub.scenes import club_night
from tests.web.conftest import PIN
from tests.web.test_table import signed_in


@pytest.fixture
def hub_url(tmp_path: Path) -> Iterator[str]:
    store = HubStore(tmp_path / "hub.sqlite3")
    hub = club_night(store, now=time.time())
    server = make_server("127.0.0.1", 0, create_hub_app(hub), threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
        store.close()


def test_the_table_page_offers_the_hubs_players(tmp_path: Path, hub_url: str) -> None:
    settings = parse_settings(
        {
            "web": {"host": "127.0.0.1", "port": 0, "pin": PIN},
            "mqtt": {"host": "127.0.0.1", "port": 1},
            "club": {"host": "club.local", "hub_url": hub_url},
        },
        data_dir=tmp_path,
    )
    service = Trackside(settings)
    try:
        assert service.known_players is not None
        service.known_players.refresh()
        names = service.known_player_names()
        assert names, "the hub's players"
        client = signed_in(service, "Eva")
        page = client.get("/table").get_data(as_text=True)
        assert 'list="known-players"' in page
        for name in names:
            assert f'<option value="{name}">' in page
    finally:
        service.stop()


def test_a_hub_that_is_away_costs_nothing_but_the_suggestions() -> None:
    calls: list[str] = []

    def away(url: str) -> bytes:
        calls.append(url)
        raise OSError("connection refused")

    now = [0.0]
    players = KnownPlayers("http://hub.local:8090/", fetch=away, clock=lambda: now[0])
    players.refresh()
    assert players.names() == [] and players.failures == 1
    assert calls == ["http://hub.local:8090/api/players"]


def test_answers_are_bounded_and_checked_before_they_are_used() -> None:
    good = b'{"players": [{"name": "Ani\\u010dka", "code": "K7QA", "games": 3}, {"name": "Petr"}]}'
    assert parse_players(good) == ["Anička", "Petr"]
    with pytest.raises(ValueError, match="bytes; at most"):
        parse_players(b" " * (MAX_ANSWER_BYTES + 1))
    with pytest.raises(ValueError, match="not JSON"):
        parse_players(b"[" * 100_000)
    with pytest.raises(ValueError, match="no 'players'"):
        parse_players(b'{"tables": []}')
    # names the page could not take (too long, not text) are left out, not shortened
    assert parse_players(b'{"players": [{"name": "' + b"x" * 40 + b'"}, {"name": 7}]}') == []


def test_a_hub_url_must_be_an_address(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"club\.hub_url: expected the hub's address"):
        parse_settings(
            {"mqtt": {"host": "h"}, "club": {"host": "c", "hub_url": "hub.local; rm -rf /"}},
            data_dir=tmp_path,
        )
