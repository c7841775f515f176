"""``GET /api/choices`` (../shared/contracts/choices.md): the tree over HTTP, inputs that are
accepted as they are, stale choices refused, unknown paths answered 404 naming the path, the
end of a game confirmed and "finished" refused while the rules say the game goes on."""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient

from companion.core import Action, PlayerSpec
from companion.core.events import (
    ActionApplied,
    GameEnded,
    GameReopened,
    GameStarted,
    LogEntry,
    event_from_json,
    event_to_json,
)
from companion.core.session import TableSession
from companion.games import find_game
from companion.service.runtime import Trackside

from .conftest import PIN, start_payload
from .private_table import ANN_PIN, at_speculation, claim, csrf_of, signed_in_table

TABLE = {"X-Trackside-Pin": PIN}
PLAYER_PIN = "X-Trackside-Player-Pin"


def get(client: FlaskClient, at: str = "", **params: str) -> Any:
    query = {"at": at, **params} if at else params
    response = client.get("/api/choices", query_string=query, headers=TABLE)
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def send(client: FlaskClient, body: dict[str, Any]) -> Any:
    return client.post("/api/input", json=body, headers=TABLE).get_json()


def by_key(nodes: list[dict[str, Any]], key: str) -> dict[str, Any]:
    return next(n for n in nodes if n["key"] == key)


def test_no_game_no_choices_and_the_pin_is_needed(service: Trackside) -> None:
    client = service.app.test_client()
    assert client.get("/api/choices").status_code == 401
    data = get(client)
    assert data["choices"] == [] and data["game"] is None
    missing = client.get("/api/choices?at=advance", headers=TABLE)
    assert missing.status_code == 404 and "advance" in missing.get_json()["error"]


def test_a_turn_by_choices_only_and_every_input_is_accepted_unchanged(
    service: Trackside,
) -> None:
    client = service.app.test_client()
    send(client, start_payload())
    top = get(client)
    assert top["game"] == "tiny-race" and top["seq"] == 1 and top["lang"] == "en"
    advance = by_key(top["choices"], "advance")
    assert advance == {"key": "advance", "label": "Red: advance", "player": 0, "more": True}
    assert [n["key"] for n in top["choices"]] == ["advance", "table-end"]
    steps = get(client, "advance")["choices"]
    assert [n["label"] for n in steps] == ["1 space", "2 spaces", "3 spaces"]
    outcome = send(client, by_key(steps, "2")["input"])
    assert outcome["outcome"] == "applied"
    # the active player moved on: the tree follows, and undo names what it undoes
    after = get(client)
    assert by_key(after["choices"], "advance")["label"] == "Blue: advance"
    undo = by_key(after["choices"], "table-undo")
    assert undo["label"] == "Undo: Red: advance steps=2" and "input" in undo
    assert send(client, undo["input"])["outcome"] == "applied"
    assert by_key(get(client)["choices"], "advance")["label"] == "Red: advance"
    redo = by_key(get(client)["choices"], "table-redo")
    assert send(client, redo["input"])["outcome"] == "applied"


def test_a_stale_choice_is_refused_with_the_reason_and_changes_nothing(
    service: Trackside,
) -> None:
    client = service.app.test_client()
    send(client, start_payload())
    old = get(client, "advance")["choices"]
    assert send(client, by_key(old, "1")["input"])["outcome"] == "applied"
    before = client.get("/api/state").get_json()
    stale = client.post("/api/input", json=by_key(old, "3")["input"], headers=TABLE)
    assert stale.status_code == 409
    message = stale.get_json()["message"]
    assert "the table moved on" in message and "nothing was changed" in message
    after = client.get("/api/state").get_json()
    assert after["players"] == before["players"] and after["seq"] == before["seq"]


def test_unknown_paths_answer_404_naming_the_path(service: Trackside) -> None:
    client = service.app.test_client()
    send(client, start_payload())
    for path in ("claim", "advance/9", "advance/2/more"):
        response = client.get("/api/choices", query_string={"at": path}, headers=TABLE)
        assert response.status_code == 404, path
        assert repr(path) in response.get_json()["error"]
        assert response.get_json()["field"] == "at"


def test_corrections_offer_the_same_guided_choices_for_a_log_line(service: Trackside) -> None:
    client = service.app.test_client()
    send(client, start_payload())
    send(client, by_key(get(client, "advance")["choices"], "1")["input"])
    send(client, by_key(get(client, "advance")["choices"], "2")["input"])
    lines = get(client, "table-correct")["choices"]
    assert [n["label"] for n in lines] == ["#3 Blue: advance steps=2", "#2 Red: advance steps=1"]
    first = get(client, "table-correct/seq-2")["choices"]
    assert [n["key"] for n in first] == ["advance"]
    fixes = get(client, "table-correct/seq-2/advance")["choices"]
    fix = by_key(fixes, "3")["input"]
    assert fix["payload"]["command"] == "correct" and fix["payload"]["target_seq"] == 2
    assert send(client, fix)["outcome"] == "applied"
    state = client.get("/api/state").get_json()
    assert [p["position"] for p in state["table"]["players"]] == [3, 2]


def test_ending_says_what_happens_and_finished_waits_for_the_rules(service: Trackside) -> None:
    client = service.app.test_client()
    send(client, start_payload())
    ends = get(client, "table-end")["choices"]
    assert [n["key"] for n in ends] == ["abandoned"]
    assert "not over by the rules" in ends[0]["label"] and "no winner" in ends[0]["label"]
    early = send(
        client, {"kind": "command", "payload": {"command": "end_game", "reason": "finished"}}
    )
    assert early["outcome"] == "rejected" and "not over by its rules" in early["message"]
    assert "Red to advance" in early["message"]
    # play to the end (target 10, three spaces a turn): the move that ends it by the rules
    # files it as finished by itself (the table's own input, from the rules)
    while "advance" in [n["key"] for n in get(client)["choices"]]:
        send(client, by_key(get(client, "advance")["choices"], "3")["input"])
    after = get(client)["choices"]
    assert [n["key"] for n in after] == ["table-reopen"]
    assert "filed as finished" in after[0]["label"]
    assert service.store.games()[0].ended_at is not None
    # a second screen's "end the game" after that is kept and changes nothing
    again = send(client, {"kind": "command", "payload": {"command": "end_game"}})
    assert again["outcome"] == "logged" and "already over" in again["message"]
    # reopened to put something right, the table ends it itself: both ends are offered
    assert send(client, after[0]["input"])["outcome"] == "applied"
    ends = get(client, "table-end")["choices"]
    assert [n["key"] for n in ends] == ["finished", "abandoned"]
    assert "final scoring" in ends[0]["label"]
    assert send(client, ends[0]["input"])["outcome"] == "applied"
    assert [n["key"] for n in get(client)["choices"]] == ["table-reopen"]


def test_an_ended_game_can_be_reopened_as_an_event(service: Trackside) -> None:
    client = service.app.test_client()
    send(client, start_payload())
    send(client, by_key(get(client, "advance")["choices"], "2")["input"])
    abandon = by_key(get(client, "table-end")["choices"], "abandoned")
    assert send(client, abandon["input"])["outcome"] == "applied"
    top = get(client)["choices"]
    assert [n["key"] for n in top] == ["table-reopen"]
    assert "filed as abandoned" in top[0]["label"]
    assert send(client, top[0]["input"])["outcome"] == "applied"
    # play goes on where it stopped; the end and the reopening stay in the log
    assert by_key(get(client)["choices"], "advance")["label"] == "Blue: advance"
    kinds = [type(e.event).__name__ for e in service.store.entries(1)]
    assert kinds[-2:] == ["GameEnded", "GameReopened"]
    assert [g.id for g in service.store.unfinished_games()] == [1]


def test_a_reopened_game_replays_from_its_log() -> None:
    """After a restart the log is folded again: the end and the reopening both apply."""
    game = find_game("tiny-race")
    players = (PlayerSpec("Red"), PlayerSpec("Blue"))
    entries = [
        LogEntry(1, GameStarted("tiny-race", players)),
        LogEntry(2, ActionApplied(Action("advance", 0, {"steps": 2}))),
        LogEntry(3, GameEnded("abandoned")),
        LogEntry(4, GameReopened()),
        LogEntry(5, ActionApplied(Action("advance", 1, {"steps": 3}))),
    ]
    session = TableSession.replay(game, entries)
    assert session.ended is None and session.state.positions == (2, 3)
    assert event_from_json(event_to_json(GameReopened())) == GameReopened()


def test_secret_choices_only_with_the_players_own_pin(service: Trackside) -> None:
    """A Trains & Stations speculation is secret: the table's tree never offers it; the player's
    own PIN adds it, and the input it gives is accepted."""
    table = at_speculation(service)
    top = get(table)["choices"]
    assert not any(n["key"] == "speculate" for n in top)
    claim(service.app.test_client(), 0, ANN_PIN)
    wrong = table.get(
        "/api/choices", query_string={"player": "0"}, headers={**TABLE, PLAYER_PIN: "0000"}
    )
    assert wrong.status_code == 401 and wrong.get_json()["field"] == "player"
    mine = table.get(
        "/api/choices", query_string={"player": "0"}, headers={**TABLE, PLAYER_PIN: ANN_PIN}
    )
    assert mine.status_code == 200
    speculate = by_key(mine.get_json()["choices"], "speculate")
    assert speculate["player"] == 0 and speculate["label"].endswith("speculate (secret)")
    trades = table.get(
        "/api/choices",
        query_string={"player": "0", "at": "speculate"},
        headers={**TABLE, PLAYER_PIN: ANN_PIN},
    ).get_json()["choices"]
    assert trades[0]["label"] == "Trade nothing"
    assert send(table, trades[0]["input"])["outcome"] == "applied"


def test_the_table_page_refuses_a_stale_tap_and_changes_nothing(service: Trackside) -> None:
    service.app.config["SHOW_HIDDEN_GAMES"] = True
    client = signed_in_table(service)
    send(client, start_payload())
    page = client.get("/table?at=advance").get_data(as_text=True)
    assert 'data-path="advance/3"' in page
    form = {"csrf": csrf_of(page), "path": "advance/3", "seq": "1"}
    assert client.post("/table/choose", data=form).status_code == 303
    before = service.latest()[1]["seq"]
    again = client.post("/table/choose", data=form, follow_redirects=True)
    assert "The table moved on" in again.get_data(as_text=True)
    assert service.latest()[1]["seq"] == before
    gone = client.post("/table/choose", data={**form, "seq": "2", "path": "advance/9"})
    assert gone.status_code == 303
    assert service.latest()[1]["seq"] == before


def test_a_game_with_private_views_keeps_secret_choices_off_the_shared_screen(
    service: Trackside,
) -> None:
    """Trains & Stations players trade on their own page behind their PIN (/me): the table
    page offers no "pass the phone" view that would list a player's goods."""
    at_speculation(service)
    table = signed_in_table(service)
    page = table.get("/table").get_data(as_text=True)
    assert "secret choices" not in page
    passed = table.get("/table?viewer=0").get_data(as_text=True)
    assert "Only <b>" not in passed and "Trade nothing" not in passed


def test_a_card_colour_choice_carries_its_swatch_and_every_swatch_can_be_drawn(
    service: Trackside,
) -> None:
    """``swatches`` (docs/formats/api.md): the colours a page draws beside a choice's words,
    only where the game gave them; every name a game may give has a colour on the page."""
    from companion.core.swatches import SWATCHES
    from web.app import SWATCH_CSS

    assert set(SWATCH_CSS) == SWATCHES
    client = service.app.test_client()
    players = [{"name": "Jana", "colour": "red"}, {"name": "Petr", "colour": "blue"}]
    start = {"command": "start_game", "game": "ticket-to-ride-europe", "players": players}
    assert send(client, {"kind": "command", "payload": start})["outcome"] == "applied"
    turn = get(client, "face-up")["choices"]
    assert [(n["label"], n.get("swatches")) for n in turn][::4] == [
        ("purple", ["purple"]),
        ("orange", ["orange"]),
        ("locomotive", ["rainbow"]),
    ]
    assert all("swatches" not in n for n in get(client)["choices"])  # steps without a colour
    assert send(client, by_key(turn, "purple")["input"])["outcome"] == "applied"
    # correcting that card offers the same colours
    fixes = get(client, "table-correct/seq-2/face-up")["choices"]
    assert by_key(fixes, "green")["swatches"] == ["green"]
    assert by_key(fixes, "green")["input"]["payload"]["command"] == "correct"


def test_cities_and_routes_are_listed_as_their_readers_sort_them(service: Trackside) -> None:
    """Issue 46: the claim lists cities, then their routes, by the words shown, in the reader's
    language (ICU collation): Czech has Ř after R and Č after C, wherever the game's own
    order (its internal names) would put them."""
    import icu

    from .golden_feed import PLAYERS, past_tickets

    client = service.app.test_client()
    payload = {"command": "start_game", "game": "ticket-to-ride-europe", "players": PLAYERS}
    assert send(client, {"kind": "command", "payload": payload})["outcome"] == "applied"
    past_tickets(service)
    for lang in ("cs", "es", "en"):
        order = icu.Collator.createInstance(icu.Locale(lang)).getSortKey
        cities = get(client, "claim", lang=lang)["choices"]
        labels = [c["label"] for c in cities]
        assert labels == sorted(labels, key=order), lang
        assert len(labels) > 1, labels
        routes = get(client, f"claim/{cities[0]['key']}", lang=lang)["choices"]
        names = [r["label"] for r in routes]
        assert names == sorted(names, key=order), lang
    # the table page lists them the same way
    table = signed_in_table(service)
    page = table.get("/table?at=claim&lang=cs").get_data(as_text=True)
    cs = icu.Collator.createInstance(icu.Locale("cs")).getSortKey
    shown = [c["label"] for c in get(client, "claim", lang="cs")["choices"]]
    positions = [page.index(f">{name}<") for name in shown]
    assert positions == sorted(positions)
    assert shown == sorted(shown, key=cs)
