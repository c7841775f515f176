"""The table page carries the last few moves, the whole log is its own paged view: the page a
scorekeeper taps on costs the same at the last turn of a long game as at the first
(../shared/DESIGN.md, "Every screen is live": "A page's cost does not grow with the length of
the game"), and the paged log hides a private action's arguments as the export does."""

from __future__ import annotations

import re

from flask.testing import FlaskClient

from companion.service.runtime import Trackside
from web.app import LOG_PAGE_ROWS, RECENT_LOG_ROWS

from .private_table import api, signed_in_table
from .test_private_audit import secret_moves

ROW = re.compile(r'<span class="seq">#(\d+)</span>')


def log_seqs(page: str) -> list[int]:
    section = page[page.index('id="log"') :]
    return [int(n) for n in ROW.findall(section)]


def advance(client: FlaskClient, player: int) -> None:
    body = {
        "kind": "action",
        "payload": {"action": {"kind": "advance", "player": player, "args": {"steps": 1}}},
    }
    assert api(client, body)["outcome"] == "applied"


def test_the_table_page_shows_the_last_moves_and_pages_through_the_whole_log(
    service: Trackside,
) -> None:
    service.app.config["SHOW_HIDDEN_GAMES"] = True
    client = service.app.test_client()
    start = {
        "command": "start_game",
        "game": "tiny-race",
        "players": [{"name": "Red"}, {"name": "Blue"}],
        "options": {"target": 100},
    }
    assert api(client, {"kind": "command", "payload": start})["outcome"] == "applied"
    table = signed_in_table(service)
    for n in range(10):
        advance(client, n % 2)
    early = table.get("/table").get_data(as_text=True)
    for n in range(LOG_PAGE_ROWS * 2 + 20):
        advance(client, n % 2)
    late = table.get("/table").get_data(as_text=True)
    last = 1 + 10 + LOG_PAGE_ROWS * 2 + 20  # the start, then every move
    # the newest moves, newest first, and no more of them late in the game than early on
    assert log_seqs(late) == list(range(last, last - RECENT_LOG_ROWS, -1))
    assert len(log_seqs(early)) == len(log_seqs(late)) == RECENT_LOG_ROWS
    assert abs(len(late) - len(early)) < 200, (len(early), len(late))
    assert "Red: advance" in late or "Blue: advance" in late
    # the whole log: every entry exactly once, newest first, a page at a time
    seen: list[int] = []
    url = None
    page = table.get(late[late.index('id="log"') :].split('href="', 1)[1].split('"', 1)[0])
    while True:
        text = page.get_data(as_text=True)
        assert page.status_code == 200
        rows = log_seqs(text)
        assert 0 < len(rows) <= LOG_PAGE_ROWS
        seen += rows
        older = re.search(r'href="([^"]*before=\d+)"', text)
        if older is None:
            break
        url = older.group(1).replace("&amp;", "&")
        page = table.get(url)
    assert seen == list(range(last, 0, -1))
    assert url is not None  # it took more than one page
    assert "game started: Red, Blue" in text


def test_the_paged_log_needs_the_table_pin(service: Trackside) -> None:
    response = service.app.test_client().get("/table/log")
    assert response.status_code == 303 and response.headers["Location"].endswith("/table")


def test_the_paged_log_keeps_a_private_trade_private_until_the_end(service: Trackside) -> None:
    client = secret_moves(service)
    table = signed_in_table(service)
    for page in (table.get("/table/log"), table.get("/table")):
        text = page.get_data(as_text=True)
        assert "Ann: speculate (private)" in text
        assert "cattle" not in text[text.index('id="log"') :]
    ended = api(
        client, {"kind": "command", "payload": {"command": "end_game", "reason": "abandoned"}}
    )
    assert ended["outcome"] == "applied"
    # abandoned is not over by the rules (it can be reopened): still private (issue 52)
    text = table.get("/table/log").get_data(as_text=True)
    assert "Ann: speculate (private)" in text
    assert "cattle" not in text[text.index('id="log"') :]
