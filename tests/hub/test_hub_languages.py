"""The hub's pages in the four languages (issue 51): a screen's ``?lang=``, its browser's
languages, or the hub's ``[hub] language``; every text of the wall, a table's page and the
league in Czech, Slovak and Spanish, and a player's name never becomes markup."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.hub.store import HubStore
from companion.hub.web import create_hub_app
from tests.hub.scenes import club_night

WALL = {
    "cs": ["Na tahu: <b>Lucía</b>", "Ticho — naposledy před 15 min", "Konec hry — vyhrál(a)"],
    "sk": ["Na ťahu: <b>Lucía</b>", "Ticho — naposledy pred 15 min", "Koniec hry — vyhral(a)"],
    "es": ["Turno: <b>Lucía</b>", "En silencio — última señal hace 15 min", "Partida terminada"],
    "en": ["Turn: <b>Lucía</b>", "Quiet — last heard 15 min ago", "Game over — Juan Carlos won"],
}
LEAGUE = {
    "cs": ["Liga", "Dohrané hry", "Hráč", "Dnes večer"],
    "sk": ["Liga", "Dohrané hry", "Hráč", "Poradie podľa výhier"],
    "es": ["Liga", "Partidas terminadas", "Jugador", "Esta noche"],
    "en": ["League", "Finished games", "Player", "Tonight"],
}

TABLE = {
    "cs": "Dohrané hry u tohoto stolu",
    "sk": "Dohrané hry pri tomto stole",
    "es": "Partidas terminadas en esta mesa",
    "en": "Finished games at this table",
}


@pytest.fixture
def store(tmp_path: Path) -> Iterator[HubStore]:
    s = HubStore(tmp_path / "hub.sqlite3")
    yield s
    s.close()


@pytest.mark.parametrize("lang", ["cs", "sk", "es", "en"])
def test_the_wall_the_table_page_and_the_league_in_each_language(
    store: HubStore, lang: str
) -> None:
    client = create_hub_app(club_night(store, now=time.time())).test_client()
    wall = client.get(f"/?lang={lang}").get_data(as_text=True)
    assert f'<html lang="{lang}">' in wall
    for text in WALL[lang]:
        assert text in wall, (lang, text)
    if lang != "en":
        assert "Turn:" not in wall and "last heard" not in wall and "Game over" not in wall
    league = client.get("/league?period=night", headers={"Cookie": f"lang={lang}"})
    for text in LEAGUE[lang]:
        assert text in league.get_data(as_text=True), (lang, text)
    table = client.get(f"/t/stul-3?lang={lang}").get_data(as_text=True)
    assert TABLE[lang] in table


def test_the_browsers_language_then_the_hubs_own_default(store: HubStore) -> None:
    hub = club_night(store, now=time.time())
    english = create_hub_app(hub).test_client()
    assert "Na ťahu" in english.get("/", headers={"Accept-Language": "sk-SK,sk;q=0.9"}).text
    czech = create_hub_app(hub, language="cs").test_client()
    assert "Na tahu: <b>Lucía</b>" in czech.get("/").text
    assert "Turno" in czech.get("/", headers={"Accept-Language": "es"}).text


def test_a_players_name_stays_text_in_every_language(store: HubStore) -> None:
    hub = club_night(store, now=time.time())
    state = {
        "schema": 1,
        "game": "tiny-race",
        "game_id": 1,
        "seq": 1,
        "players": [{"name": "<script>x</script>", "total": 1, "colour": "red"}],
        "status": {"active_players": [0]},
    }
    hub.handle("trackside/stul-9/state", json.dumps(state).encode())
    client = create_hub_app(hub).test_client()
    for lang in ("cs", "sk", "es", "en"):
        page = client.get(f"/?lang={lang}").text
        assert "<script>x</script>" not in page
        assert "&lt;script&gt;x&lt;/script&gt;" in page
