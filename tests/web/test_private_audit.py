"""The privacy audit: what players enter on their private pages (a secret trade, which special
cards show two goods) appears on no surface others can see before the game ends — the
scoreboard and its recent inputs, /api/state and the event stream, the table page's log, the
history, the exports — and is all there once the game has ended."""

from __future__ import annotations

import html
import json

import pytest
from flask.testing import FlaskClient

from companion.service.runtime import Trackside
from tests.games.trains_and_stations.playthroughs import TO_THE_END, action_input

from .private_table import (
    ANN_PIN,
    BEN_PIN,
    api,
    at_speculation,
    claim,
    count,
    send,
    signed_in_table,
)

# Ann gives 4 cattle; Ben reports a silver + gold special card and trades it with 2 cattle.
# Every way a surface could print those: describe() "goods=4×cattle", the sender's own line
# "4× cattle", the table log "goods: 4 cattle", JSON, the private page's "silver + gold".
SECRETS = (
    "4 cattle",
    "4×cattle",
    "4× cattle",
    '"cattle": 4',
    '"cattle":4',
    "2 cattle",
    "2×cattle",
    "2× cattle",
    '"cattle": 2',
    "silver, gold",
    "silver,gold",
    '"silver", "gold"',
    '"silver","gold"',
    "silver + gold",
)


def leaks(text: str) -> list[str]:
    return [s for s in SECRETS if s in text]


def secret_moves(service: Trackside) -> FlaskClient:
    """Ann and Ben answer the speculation from their private pages; Cat has not yet."""
    client = at_speculation(service)
    ann, ben = service.app.test_client(), service.app.test_client()
    claim(ann, 0, ANN_PIN)
    claim(ben, 1, BEN_PIN)
    send(ben, "report_special_goods", card_0_a="silver", card_0_b="gold")
    send(ann, "speculate", give_cattle="4")
    page = send(ben, "speculate", give_cattle="2", pair_0="1")
    assert "You traded 2 cattle, the silver + gold special card." in page
    service.wait_idle()
    return client


def public_pages(service: Trackside, client: FlaskClient) -> dict[str, str]:
    pages = {
        path: client.get(path).get_data(as_text=True)
        for path in (
            "/",
            "/partials/scoreboard",
            "/api/state",
            "/history",
            "/history/1",
            "/api/games",
            "/api/games/1/export?format=json",
            "/api/games/1/export?format=csv",
        )
    }
    with client.get("/api/events", buffered=False) as stream:
        pages["/api/events"] = next(iter(stream.response)).decode()
    table = signed_in_table(service)
    pages["/table"] = table.get("/table").get_data(as_text=True)
    pages["/table/log"] = table.get("/table/log").get_data(as_text=True)
    return pages


def test_before_the_end_no_public_surface_shows_a_private_input(service: Trackside) -> None:
    client = secret_moves(service)
    pages = public_pages(service, client)
    for path, text in pages.items():
        assert leaks(text) == [], path
    # what they do show: who did what kind of private thing
    board = pages["/partials/scoreboard"]
    assert "Ann: speculate (private)" in board and "Ben: report special goods (private)" in board
    table = pages["/table"]
    assert "Ann: speculate (private)" in table and "Ben: speculate (private)" in table
    assert "Ben: report special goods (private)" in table
    record = json.loads(pages["/api/games/1/export?format=json"])
    private = [e["action"] for e in record["events"] if e.get("private")]
    assert private == [
        {"kind": "report_special_goods", "player": 1},
        {"kind": "speculate", "player": 0},
        {"kind": "speculate", "player": 1},
    ]
    assert all("goods" not in p for p in record["snapshot"]["players"])
    assert "players[].goods" in record["snapshot"]["hidden"]


def test_a_refused_private_input_says_why_only_to_its_sender(service: Trackside) -> None:
    at_speculation(service)
    ann = service.app.test_client()
    claim(ann, 0, ANN_PIN)
    page = send(ann, "speculate", give_cattle="3")
    assert "Refused:" in page and "3 cards: the trade is 2 for 1" in page
    board = service.app.test_client().get("/partials/scoreboard").get_data(as_text=True)
    assert "Ann: speculate (private) — refused; the sender was told why" in board
    assert "3 cards" not in board and "2 for 1" not in board


@pytest.mark.parametrize("reason", ["abandoned"])
def test_an_abandoned_game_keeps_its_secrets_in_the_log_and_the_export(
    service: Trackside, reason: str
) -> None:
    """An abandoned game is not over: ``reopen_game`` plays it on, so it stays redacted like a
    live one (issue 52: its export used to show every secret)."""
    client = secret_moves(service)
    # the game is not over by its rules, so it cannot be filed as finished (issue 13)
    early = api(
        client, {"kind": "command", "payload": {"command": "end_game", "reason": "finished"}}
    )
    assert early["outcome"] == "rejected" and "not over" in early["message"]
    ended = api(client, {"kind": "command", "payload": {"command": "end_game", "reason": reason}})
    assert ended["outcome"] == "applied"
    table = signed_in_table(service).get("/table").get_data(as_text=True)
    assert "4× cattle" not in table and "silver + gold" not in html.unescape(table)
    record = json.loads(client.get("/api/games/1/export").get_data(as_text=True))
    private = [e["action"] for e in record["events"] if e.get("private")]
    assert {"kind": "speculate", "player": 0} in private
    assert "special_goods" not in record["snapshot"]["players"][1]
    assert "goods" not in record["snapshot"]["players"][0]


def test_once_the_game_is_over_by_the_rules_everything_shows(service: Trackside) -> None:
    client = secret_moves(service)
    ann = service.app.test_client()
    claim(ann, 0, ANN_PIN)
    assert api(client, action_input("speculate", 2, {}))["outcome"] == "applied"
    for kind, player, args in TO_THE_END:
        assert api(client, action_input(kind, player, args))["outcome"] == "applied"
    state = client.get("/api/state").get_json()
    assert state["over"] and "hidden" not in state["table"]
    assert state["table"]["players"][0]["goods"]["food"] == 2  # the scoreboard may show it now
    # the speculation is older than the table page's last moves: the whole log shows it
    table = signed_in_table(service).get("/table/log").get_data(as_text=True)
    assert "Ann offers in the speculation: 4× cattle" in table
    record = json.loads(client.get("/api/games/1/export").get_data(as_text=True))
    assert not any(e.get("private") for e in record["events"])
    # Ann's page still shows her own cards, and the cards kept for scoring can still be told
    # ("Bodování"): now in the open
    page = ann.get("/me").get_data(as_text=True)
    assert count(page, "food") == 2 and "the game is over" in page and 'id="speculate"' not in page
    page = send(ann, "report_special_goods", card_0_a="coal", card_0_b="gold")
    assert "coal + gold" in page
    board = client.get("/partials/scoreboard").get_data(as_text=True)
    # the scoreboard lists the move in words, whole now that the game is over
    assert "Ann's special cards show two goods: coal + gold" in html.unescape(board)
    assert "(private)" not in board


def test_a_correction_that_breaks_a_private_entry_is_explained_only_to_its_player(
    service: Trackside,
) -> None:
    """The engine's privacy rule (issue 15, item 2): correcting Cat's payout so Ann ends with 3
    cattle makes her secret trade of 4 impossible; the table hears only that a private entry was
    refused, Ann's page says why (Spekulace při vylepšování: "tajně")."""
    client = at_speculation(service)
    ann = service.app.test_client()
    claim(ann, 0, ANN_PIN)
    send(ann, "speculate", give_cattle="4")
    payout = action_input(
        "deliver",
        2,
        {
            "cities": [{"name": "Denver", "bonus": "vp"}, {"name": "Omaha", "bonus": "special"}],
            "dice": [0, 0, 2],
            "goods_order": [2, 1, 0],
        },
    )["payload"]["action"]
    told = api(
        client,
        {"kind": "command", "payload": {"command": "correct", "target_seq": 20, "action": payout}},
    )
    assert told["outcome"] == "rejected"
    assert told["message"] == "a private entry was refused; the player it concerns was told why"
    public = client.get("/api/state").get_data(as_text=True)
    public += client.get("/partials/scoreboard").get_data(as_text=True)
    table = signed_in_table(service)
    public += table.get("/table").get_data(as_text=True) + table.get("/table/log").get_data(
        as_text=True
    )
    for secret in ("3 cattle", "not 4", "4×cattle", "speculate goods"):
        assert secret not in public
    page = ann.get("/me").get_data(as_text=True)
    assert "Refused: correction of #20 refused" in page and "Ann holds 3 cattle, not 4" in page
    ben = service.app.test_client()
    claim(ben, 1, BEN_PIN)
    assert "Ann holds" not in ben.get("/me").get_data(as_text=True)
