"""Each player's private view (/me) over HTTP: claiming a seat with a PIN, wrong PINs and the
shared rate limit, CSRF, one player's view refused to another, the session ending with the game
or a reset PIN, and the private actions sent from the page."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion import games
from companion.service.config import parse_settings
from companion.service.runtime import Trackside
from web.guard import PIN_FAILURES_ALLOWED

from .conftest import PIN, start_payload
from .private_table import (
    ANN_PIN,
    BEN_PIN,
    api,
    at_speculation,
    claim,
    count,
    csrf_of,
    send,
    signed_in_table,
)


def test_a_player_picks_their_name_sets_a_pin_and_sees_their_own_cards(
    service: Trackside,
) -> None:
    at_speculation(service)
    ann = service.app.test_client()
    pick = ann.get("/me").get_data(as_text=True)
    for i, name in enumerate(("Ann", "Ben", "Cat")):
        assert f'href="/me/{i}"' in pick and name in pick
    assert "needs a seat code" in pick and "enter your PIN" not in pick
    form = ann.get("/me/0").get_data(as_text=True)
    assert "choose a PIN (4 to 8 digits)" in form and 'name="pin_again"' in form
    assert 'name="code"' in form
    page = claim(ann, 0, ANN_PIN)
    assert "Ann set a private PIN" in page and "only you see this" in page
    assert count(page, "cattle") == 4 and "Your special cards: 2" in page
    assert "Speculation: food" in page and 'name="give_cattle"' in page
    assert service.player_pin_hash(1, 0) is not None
    # another device: the name now asks for the PIN that was set
    other = service.app.test_client()
    assert "enter your PIN" in other.get("/me").get_data(as_text=True)
    assert "Enter your PIN to see your cards" in other.get("/me/0").get_data(as_text=True)
    page = claim(other, 0, ANN_PIN)
    assert count(page, "cattle") == 4


def test_the_pin_set_on_the_page_reaches_the_database_only_hashed(
    service: Trackside, tmp_path: Path
) -> None:
    at_speculation(service)
    claim(service.app.test_client(), 0, ANN_PIN)
    stored = service.player_pin_hash(1, 0)
    assert stored is not None and stored.startswith("scrypt$")
    service.wait_idle()
    database = service.settings.database.path
    files = [p for p in database.parent.iterdir() if p.name.startswith(database.name)]
    assert files
    for path in files:
        assert ANN_PIN.encode() not in path.read_bytes(), path
    assert any(stored.encode() in p.read_bytes() for p in files)


def test_a_pin_is_4_to_8_digits_typed_twice(service: Trackside) -> None:
    at_speculation(service)
    client = service.app.test_client()
    for pin, again, said in (
        ("123", None, "The PIN must be 4 to 8 digits (0–9)."),
        ("123456789", None, "The PIN must be 4 to 8 digits (0–9)."),
        ("12a4", None, "The PIN must be 4 to 8 digits (0–9)."),
        ("١٢٣٤", None, "The PIN must be 4 to 8 digits (0–9)."),  # Arabic-Indic digits
        ("1234", "1243", "The two PINs differ"),
    ):
        page = claim(client, 1, pin, again)
        assert said in page
        assert service.player_pin_hash(1, 1) is None
    assert "only you see this" not in client.get("/me").get_data(as_text=True)


def test_a_wrong_pin_is_refused_and_counts_toward_the_table_pin_limit(service: Trackside) -> None:
    at_speculation(service)
    claim(service.app.test_client(), 1, BEN_PIN)
    guesser = service.app.test_client()
    for _ in range(PIN_FAILURES_ALLOWED):
        page = claim(guesser, 1, "0000")
        assert "Wrong PIN." in page and "only you see this" not in page
    page = claim(guesser, 1, BEN_PIN)  # even the right PIN waits now
    assert "Too many wrong PINs" in page and "only you see this" not in page
    table = service.app.test_client()
    login = table.get("/table").get_data(as_text=True)
    table.post("/table/login", data={"csrf": csrf_of(login), "pin": PIN})
    assert "Too many wrong PINs" in table.get("/table").get_data(as_text=True)
    # and the API's table PIN too: one limit per address
    response = table.post("/api/input", json=start_payload(), headers={"X-Trackside-Pin": PIN})
    assert response.status_code == 429


def test_every_form_needs_its_csrf_token(service: Trackside) -> None:
    at_speculation(service)
    client = service.app.test_client()
    response = client.post("/me/0", data={"game_id": "1", "pin": ANN_PIN, "pin_again": ANN_PIN})
    assert response.status_code == 400 and "CSRF check failed" in response.get_data(as_text=True)
    assert service.player_pin_hash(1, 0) is None
    claim(client, 0, ANN_PIN)
    for path in ("/me/act/speculate", "/me/lock", "/me/reset/0"):
        response = client.post(path, data={"give_cattle": "4"})
        assert response.status_code == 400, path
    assert "Speculation: food" in client.get("/me").get_data(as_text=True)  # nothing was sent


def test_one_players_view_is_refused_to_another(service: Trackside) -> None:
    at_speculation(service)
    claim(service.app.test_client(), 1, BEN_PIN)
    ann = service.app.test_client()
    claim(ann, 0, ANN_PIN)
    # Ben's name asks for Ben's PIN; Ann's does not open it
    assert "Enter your PIN" in ann.get("/me/1").get_data(as_text=True)
    page = claim(ann, 1, ANN_PIN)
    assert "Wrong PIN." in page
    # Ann is still Ann: her page, her partial, and a form cannot act for Ben
    assert '<h1><span class="seat-dot"></span>Ann' in ann.get("/me").get_data(as_text=True)
    assert "Ben <small>" not in ann.get("/me/partial").get_data(as_text=True)
    page = send(ann, "speculate", give_cattle="2", player="1")
    assert "You traded 2 cattle" in page
    table = service.private_view(1, 1)
    assert table is not None and table["speculation"]["my_offer"] is None  # Ben has not answered
    mine = service.private_view(1, 0)
    assert mine is not None and mine["speculation"]["my_offer"]["goods"]["cattle"] == 2


def test_a_new_game_ends_the_private_session(service: Trackside) -> None:
    client = at_speculation(service)
    ann = service.app.test_client()
    claim(ann, 0, ANN_PIN)
    assert api(client, {"kind": "command", "payload": {"command": "end_game"}})["outcome"] == (
        "applied"
    )
    page = ann.get("/me").get_data(as_text=True)
    assert "That game is over or another one is on the table" in page
    assert ann.get("/me/partial").status_code == 401
    assert "No game with hidden cards is running" in page and "only you see this" not in page
    at_speculation_again = api(
        client,
        {
            "kind": "command",
            "payload": {
                "command": "start_game",
                "game": "trains-and-stations",
                "players": [{"name": n} for n in ("Ann", "Ben", "Cat")],
            },
        },
    )
    assert at_speculation_again["game_id"] == 2
    page = ann.get("/me").get_data(as_text=True)
    assert (
        "who are you?" in page and "needs a seat code" in page and "only you see this" not in page
    )
    # a PIN form opened for the old game is refused for the new one
    form = ann.get("/me/0").get_data(as_text=True)
    assert 'name="game_id" value="2"' in form
    response = ann.post(
        "/me/0", data={"csrf": csrf_of(form), "game_id": "1", "pin": ANN_PIN, "pin_again": ANN_PIN}
    )
    assert response.status_code == 303
    assert "Another game is on the table now" in ann.get("/me").get_data(as_text=True)
    assert service.player_pin_hash(2, 0) is None


def test_the_table_page_lists_the_pins_and_a_reset_ends_that_players_session(
    service: Trackside,
) -> None:
    at_speculation(service)
    ann = service.app.test_client()
    claim(ann, 0, ANN_PIN)
    table = signed_in_table(service)
    page = table.get("/table").get_data(as_text=True)
    section = page[page.index('id="private-pins"') :]
    assert 'Ann</span>\n      <span class="pin-state set">PIN set' in section
    assert 'Ben</span>\n      <span class="pin-state">not claimed yet' in section
    assert "/me/reset/0" in section and "/me/reset/1" not in section
    # nobody without the table PIN may reset
    outsider = service.app.test_client()
    outsider_page = outsider.get("/me/1").get_data(as_text=True)
    response = outsider.post("/me/reset/0", data={"csrf": csrf_of(outsider_page)})
    assert response.status_code == 303 and service.player_pin_hash(1, 0) is not None
    response = table.post("/me/reset/0", data={"csrf": csrf_of(page)})
    assert response.status_code == 303
    assert "Ann&#39;s private PIN was reset" in table.get("/table").get_data(as_text=True)
    assert service.player_pin_hash(1, 0) is None
    page = ann.get("/me").get_data(as_text=True)
    assert "Your PIN was reset" in page and "only you see this" not in page
    # a reset seat is claimed again only with a new code from the table
    page = claim(ann, 0, "2468", code="")
    assert "That seat code is not valid" in page and service.player_pin_hash(1, 0) is None
    page = claim(ann, 0, "2468")
    assert count(page, "cattle") == 4


def test_the_page_sends_the_players_private_actions_as_that_player(service: Trackside) -> None:
    at_speculation(service)
    ben = service.app.test_client()
    claim(ben, 1, BEN_PIN)
    page = send(ben, "report_special_goods", card_0_a="silver", card_0_b="gold")
    assert "Showing two goods" in page and "silver + gold" in page
    page = send(ben, "report_special_goods", card_0_a="silver", card_0_b="")
    assert "Not sent — card 0 b: pick one of" in page
    page = send(ben, "speculate", give_cattle="2", pair_0="1")
    assert "You traded 2 cattle, the silver + gold special card." in page
    view = service.private_view(1, 1)
    assert view is not None
    assert view["speculation"]["my_offer"] == {
        "goods": {"workers": 0, "coal": 0, "silver": 0, "food": 0, "cattle": 2, "gold": 0},
        "special_goods": [["silver", "gold"]],
    }
    page = send(ben, "speculate")  # a second answer is refused by the rules, said to Ben
    assert "Refused:" in page and "Ben has already answered" in page
    inputs = service.store.inputs(4)  # PIN, report, speculate, the refused second answer
    assert {i["source"] for i in inputs} == {"private:Ben"}
    response = ben.post("/me/act/roll", data={"csrf": csrf_of(page)})
    assert response.status_code == 404
    partial = ben.get("/me/partial")
    assert partial.status_code == 200 and partial.headers["X-View-Key"]
    assert "Waiting for the others to answer" in partial.get_data(as_text=True)


def test_the_cards_come_only_from_the_pin_checked_routes(service: Trackside) -> None:
    at_speculation(service)
    ann = service.app.test_client()
    claim(ann, 0, ANN_PIN)
    page = send(ann, "report_special_goods", card_0_a="coal", card_0_b="gold")
    assert "coal + gold" in page  # Ann's own page shows it…
    state = ann.get("/api/state").get_json()  # …the public routes do not, whoever asks
    assert all("goods" not in p for p in state["table"]["players"])
    assert "coal + gold" not in ann.get("/partials/scoreboard").get_data(as_text=True)
    with ann.get("/api/events", buffered=False) as stream:
        chunk = next(iter(stream.response))  # the first message: the whole snapshot
    first = next(line for line in chunk.splitlines() if line.startswith(b"data:"))
    snapshot = json.loads(first[len(b"data:") :])
    assert all("goods" not in p for p in snapshot["table"]["players"])
    assert 'coal", "gold' not in json.dumps(snapshot)
    locked = ann.post("/me/lock", data={"csrf": csrf_of(ann.get("/me").get_data(as_text=True))})
    assert locked.status_code == 303
    assert ann.get("/me/partial").status_code == 401
    page = ann.get("/me").get_data(as_text=True)
    assert "Locked: your cards are hidden again." in page and "coal + gold" not in page


def test_private_pages_are_never_cached(service: Trackside) -> None:
    at_speculation(service)
    ann = service.app.test_client()
    claim(ann, 0, ANN_PIN)
    for path in ("/me", "/me/partial", "/me/1"):
        assert ann.get(path).headers["Cache-Control"] == "no-store", path


def test_a_trusted_screen_still_needs_the_players_pin(tmp_path: Path) -> None:
    settings = parse_settings(
        {"web": {"pin": PIN, "trusted_subnets": ["127.0.0.1/32"]}}, data_dir=tmp_path
    )
    service = Trackside(settings)
    service.start(web=False)
    try:
        at_speculation(service)
        tv = service.app.test_client()
        assert "Start a game" not in tv.get("/table").get_data(as_text=True)  # trusted: signed in
        page = tv.get("/me").get_data(as_text=True)
        assert "who are you?" in page and "only you see this" not in page
        assert tv.get("/me/partial").status_code == 401
    finally:
        service.stop()


def test_a_game_without_hidden_cards_offers_no_private_view(service: Trackside) -> None:
    service.app.config["SHOW_HIDDEN_GAMES"] = True
    client = service.app.test_client()
    assert api(client, start_payload())["outcome"] == "applied"
    page = client.get("/me").get_data(as_text=True)
    assert "No game with hidden cards is running" in page and "Tiny Race" in page
    assert "/me/0" not in page
    assert client.get("/me/0").status_code == 303
    assert "Your hidden cards" not in client.get("/").get_data(as_text=True)


@pytest.fixture
def secret_race(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, object]]:
    """The test-only Secret Race offered by the registry; yields its start command."""
    monkeypatch.setitem(games._GAME_MODULES, "secret-race", "tests.web.secret_race")
    games.find_game.cache_clear()
    try:
        yield {**start_payload()["payload"], "game": "secret-race"}  # type: ignore[dict-item]
    finally:
        games.find_game.cache_clear()


def test_any_game_with_a_private_view_gets_the_page_and_the_redaction(
    service: Trackside, secret_race: dict[str, object]
) -> None:
    start = secret_race
    client = service.app.test_client()
    assert api(client, {"kind": "command", "payload": start})["outcome"] == "applied"
    advance = {
        "kind": "action",
        "payload": {"action": {"kind": "advance", "player": 0, "args": {"steps": 2}}},
    }
    assert api(client, advance)["outcome"] == "applied"
    red = service.app.test_client()
    page = claim(red, 0, "4321")
    assert "<dt>position</dt><dd>2</dd>" in page and "<dt>name</dt><dd>Red</dd>" in page
    assert 'action="/me/act/note"' in page
    page = send(red, "note", args='{"text": "bluffing"}')
    assert "Red: note text=bluffing" in page  # told in full to Red
    page = send(red, "note", args="[1]")
    assert "Not sent — args: expected a JSON object" in page
    board = client.get("/partials/scoreboard").get_data(as_text=True)
    assert "Red: note (private)" in board and "bluffing" not in board
    table = signed_in_table(service).get("/table").get_data(as_text=True)
    assert "Red: note (private)" in table and "bluffing" not in table
    assert "bluffing" not in client.get("/api/games/1/export").get_data(as_text=True)


def test_a_player_still_sees_their_page_when_the_rules_end_the_game(
    service: Trackside, secret_race: dict[str, object]
) -> None:
    """The move that ends the game files it at once (the rules end it): a player signed in on
    their phone keeps their page, now with the result and their own total, and no form for a
    secret move (there is none left to make); the next game signs them out."""
    start = secret_race
    client = service.app.test_client()
    assert api(client, {"kind": "command", "payload": start})["outcome"] == "applied"
    red = service.app.test_client()
    page = claim(red, 0, "4321")
    assert 'action="/me/act/note"' in page and 'id="final"' not in page

    def advance(player: int, steps: int) -> None:
        move = {"kind": "advance", "player": player, "args": {"steps": steps}}
        body = {"kind": "action", "payload": {"action": move}}
        assert api(client, body)["outcome"] == "applied"

    for player, steps in ((0, 3), (1, 1)) * 4:
        advance(player, steps)
        if service.latest()[1]["over"]:
            break
    snapshot = service.latest()[1]
    assert snapshot["over"] and snapshot["winners"] == ["Red"]
    assert snapshot["game_id"] not in snapshot["status"]["unfinished_games"]  # filed
    page = red.get("/me").get_data(as_text=True)
    assert "That game is over" not in page and "only you see this" in page
    final = page[page.index('id="final"') :]
    total = snapshot["players"][0]["total"]
    assert "Game over — Red wins." in final and f"You scored {total} points." in final
    assert 'action="/me/act/' not in page  # no secret move is left to make
    assert red.get("/me/partial").status_code == 200
    # another game on the table: the sign-in ends
    assert api(client, {"kind": "command", "payload": start})["outcome"] == "applied"
    page = red.get("/me").get_data(as_text=True)
    assert "That game is over or another one is on the table" in page
    assert red.get("/me/partial").status_code == 401


def test_a_filed_game_no_longer_points_to_the_phones_for_secret_moves(
    service: Trackside,
) -> None:
    """While a game runs, the table page says which moves go on the players' own phones; once
    it is filed (here abandoned) there are none left to enter, and the line goes."""
    client = at_speculation(service)
    table = signed_in_table(service)
    line = "each player enters these on their own phone"
    assert line in table.get("/table").get_data(as_text=True)
    end = {"command": "end_game", "reason": "abandoned"}
    assert api(client, {"kind": "command", "payload": end})["outcome"] == "applied"
    assert line not in table.get("/table").get_data(as_text=True)


def test_the_shared_table_screen_does_not_take_private_actions(service: Trackside) -> None:
    """Typed on the table page, a speculation would be read by everyone at the table: the
    page does not offer it, points to /me, and refuses a crafted post without sending it."""
    at_speculation(service)
    table = signed_in_table(service)
    page = table.get("/table").get_data(as_text=True)
    enter = page[page.index('id="enter"') : page.index('id="any-action"')]
    assert 'data-path="speculate' not in enter and "Trade nothing" not in enter
    assert "report special goods, speculate: each player enters these on their own phone" in (enter)
    inputs_before = len(service.store.inputs(1000))
    for op in ("action", "correct"):
        response = table.post(
            f"/table/{op}",
            data={
                "csrf": csrf_of(page),
                "kind": "speculate",
                "player": "0",
                "args": '{"goods": {"cattle": 2}}',
                "target_seq": "1",
            },
        )
        assert response.status_code == 303
        after = table.get("/table").get_data(as_text=True)
        assert "Not sent — kind: speculate is a player&#39;s private action" in after
    assert len(service.store.inputs(1000)) == inputs_before
