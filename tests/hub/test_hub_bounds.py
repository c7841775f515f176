"""Every field a table sends the hub is bounded and checked (issue 51): times within a sane
window of the hub's clock, no NaN or Infinity, names per message and in total, colours from the
fixed set, deep JSON refused with one throttled log line, sizes bounded before parsing; the
hub's CSV escaped by the table export's own function; a table answers requests at a bounded
rate. One test per bound."""

from __future__ import annotations

import csv
import io
import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import companion.hub.store as hub_store
from companion.core import spreadsheet
from companion.hub import web as hub_web
from companion.hub.store import HubStore
from companion.hub.tables import MAX_BYTES, RESULTS_PER_ANSWER, Hub
from companion.hub.web import PLAYERS_LISTED, create_hub_app
from companion.service import export
from firmware_bridge.mqtt import REQUEST_BURST, REQUEST_EVERY_S, HubRequests

NOW = time.time()
TEN_YEARS = 10 * 365 * 86400.0


@pytest.fixture
def store(tmp_path: Path) -> Iterator[HubStore]:
    s = HubStore(tmp_path / "hub.sqlite3")
    yield s
    s.close()


@pytest.fixture
def hub(store: HubStore) -> Hub:
    return Hub(store, tables=("t1", "t2"))


def result(game_id: int, names: tuple[str, ...] = ("Ana", "Petr"), **fields: Any) -> dict[str, Any]:
    return {
        "game_id": game_id,
        "game": "tiny-race",
        "started_at": NOW - 600,
        "ended_at": NOW - 60,
        "players": [{"name": n, "total": 10 - i} for i, n in enumerate(names)],
        "winners": [names[0]],
        **fields,
    }


def answer(hub: Hub, table: str = "t1", raw: bytes | None = None, **body: Any) -> bytes:
    """The table's answer to the hub's pending request (the hub asks when it comes online)."""
    hub.handle(f"trackside/{table}/status", b"offline", now=NOW)
    (request,) = hub.handle(f"trackside/{table}/status", b"online", now=NOW)
    rid = json.loads(request[1])["request_id"]
    if raw is not None:
        return raw.replace(b"@RID@", rid.encode())
    return json.dumps({"schema": 1, "request_id": rid, "db": "db-a", "done": True, **body}).encode()


def state(**fields: Any) -> bytes:
    doc = {
        "schema": 1,
        "game": "tiny-race",
        "game_id": 1,
        "seq": 0,
        "players": [{"name": "Ana", "total": 3, "colour": "red"}],
        "status": {"active_players": [0], "round": 1, "waiting_for": "Ana's throw"},
        "updated_at": NOW,
    }
    return json.dumps({**doc, **fields}).encode()


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"ended_at": NOW + TEN_YEARS}, "results[].ended_at: "),
        ({"ended_at": NOW + 2 * 3600}, "h ahead of the hub's clock"),
        ({"ended_at": 86400.0}, "before 2020 (the table's clock is not set)"),
        ({"started_at": NOW + TEN_YEARS}, "results[].started_at: "),
        ({"started_at": NOW, "ended_at": NOW - 60}, "is after ended_at"),
    ],
)
def test_a_result_dated_outside_a_sane_window_of_the_hubs_clock_is_refused(
    hub: Hub, store: HubStore, caplog: pytest.LogCaptureFixture, fields: Any, reason: str
) -> None:
    caplog.set_level(logging.WARNING)
    hub.handle("trackside/t1/resend", answer(hub, results=[result(1, **fields)]), now=NOW)
    assert store.results() == []
    assert reason in caplog.text
    # a result within the window (a table's clock a few minutes ahead) is kept
    ok = result(2, ended_at=NOW + 300)
    hub.handle("trackside/t1/resend", answer(hub, results=[ok]), now=NOW)
    assert [r["game_id"] for r in store.results()] == [2]


@pytest.mark.parametrize("constant", [b"Infinity", b"-Infinity", b"NaN"])
def test_infinity_and_nan_are_refused_and_the_csv_keeps_working(
    hub: Hub, store: HubStore, caplog: pytest.LogCaptureFixture, constant: bytes
) -> None:
    caplog.set_level(logging.WARNING)
    raw = json.dumps({"schema": 1, "request_id": "@RID@", "db": "db-a", "done": True})
    good = json.dumps(result(1)).replace(f"{NOW - 60}", "@END@")
    payload = raw[:-1] + f', "results": [{good}]}}'
    hub.handle("trackside/t1/resend", answer(hub, raw=payload.encode()).replace(b"@END@", constant))
    assert store.results() == []
    assert f"resend: not JSON: {constant.decode()} is not a number" in caplog.text
    bad_state = state(updated_at=0).replace(b'"updated_at": 0', b'"updated_at": ' + constant)
    hub.handle("trackside/t1/state", bad_state, now=NOW)
    assert hub.tables["t1"].state is None
    client = create_hub_app(hub).test_client()
    assert client.get("/results.csv?period=season").status_code == 200


def test_a_state_dated_ten_years_ahead_is_refused_and_one_a_little_ahead_still_goes_quiet(
    hub: Hub, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    hub.handle("trackside/t1/state", state(updated_at=NOW + TEN_YEARS), now=NOW)
    assert hub.tables["t1"].state is None
    assert "state: updated_at: " in caplog.text and "ahead of the hub's clock" in caplog.text
    hub.handle("trackside/t1/state", state(updated_at=NOW + 1800), now=NOW)
    (view,) = [v for v in hub.views(NOW + 600) if v["table_id"] == "t1"]
    assert view["quiet"] is True  # 10 min after the hub heard it, whatever its clock says


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"players": [{"name": f"P{i}", "total": i} for i in range(13)]}, "players: expected"),
        ({"players": [{"name": "x" * 65, "total": 1}]}, "players[].name: expected text"),
        ({"players": [{"name": "Ana", "total": 1e300}]}, "players[].total: "),
        ({"title": "t" * 121}, "title: expected text of at most 120"),
        ({"status": {"waiting_for": "w" * 201}}, "waiting_for: expected text of at most 200"),
        ({"winners": ["Mallory"]}, "winners: expected names of the players"),
        ({"status": {"active_players": [7]}}, "status.active_players"),
    ],
)
def test_a_state_with_too_many_or_too_long_names_is_refused_naming_the_field(
    hub: Hub, caplog: pytest.LogCaptureFixture, fields: Any, reason: str
) -> None:
    caplog.set_level(logging.WARNING)
    hub.handle("trackside/t1/state", state(**fields), now=NOW)
    assert hub.tables["t1"].state is None
    assert reason in caplog.text


def test_a_states_texts_may_be_messages_still_to_render(hub: Hub) -> None:
    waiting = {"id": "{name}'s throw", "params": {"name": "Ana"}}
    hub.handle("trackside/t1/state", state(status={"waiting_for": waiting}), now=NOW)
    (view,) = [v for v in hub.views(NOW) if v["table_id"] == "t1"]
    assert view["waiting_for"] == "Ana's throw"


def test_an_answer_with_more_results_than_a_table_sends_is_refused_before_storing(
    hub: Hub, store: HubStore, caplog: pytest.LogCaptureFixture
) -> None:
    """The attack: one message with 500 results × 12 new names (it stalled the hub for 26 s)."""
    caplog.set_level(logging.WARNING)
    flood = [result(g, tuple(f"n{g}-{i}" for i in range(12))) for g in range(1, 501)]
    payload = answer(hub, results=flood)
    assert len(payload) < MAX_BYTES["resend"]  # it fits the size bound, and still
    hub.handle("trackside/t1/resend", payload, now=NOW)
    assert store.results() == [] and store.player_codes() == {}
    assert f"results: expected a list of at most {RESULTS_PER_ANSWER}" in caplog.text
    # a full legitimate part (50 results, 600 new names) is stored in one transaction
    part = flood[:RESULTS_PER_ANSWER]
    hub.handle("trackside/t1/resend", answer(hub, results=part), now=NOW)
    assert len(store.results()) == RESULTS_PER_ANSWER
    assert len(store.player_codes()) == 12 * RESULTS_PER_ANSWER


def test_player_codes_in_total_and_the_players_list_are_bounded(
    store: HubStore, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    monkeypatch.setattr(hub_store, "MAX_PLAYER_CODES", 30)
    for g in range(1, 26):  # 25 games × 12 new names = 300 players
        added, errors = store.add_results(
            "t1", "db-a", [result(g, tuple(f"n{g}-{i}" for i in range(12)))], NOW
        )
        assert (added, errors) == (1, [])
    assert len(store.player_codes()) == 30
    assert caplog.text.count("player codes issued, the most there are") == 1
    players = create_hub_app(Hub(store)).test_client().get("/api/players").get_json()["players"]
    assert len(players) == PLAYERS_LISTED == 200  # what a table takes (200 names, 256 KiB)


def test_a_colour_outside_the_fixed_set_never_reaches_the_wall_screens_css(hub: Hub) -> None:
    evil = "red; background: url(https://evil.example/x.png)"
    players = [
        {"name": "Ana", "total": 3, "colour": evil},
        {"name": "Petr", "total": 2, "colour": "blue"},
    ]
    hub.handle("trackside/t1/state", state(players=players), now=NOW)
    (view,) = [v for v in hub.views(NOW) if v["table_id"] == "t1"]
    assert [p["colour"] for p in view["players"]] == [None, "blue"]
    page = create_hub_app(hub).test_client().get("/").get_data(as_text=True)
    assert "evil.example" not in page
    assert "--seat: #555" in page and "--seat: #1e63c4" in page


def test_deep_json_is_refused_with_a_throttled_log_line_and_no_traceback(
    hub: Hub, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    deep = b"[" * 60_000  # under the event bound, nested past what Python parses
    assert len(deep) < MAX_BYTES["event"]
    for _ in range(50):
        assert hub.handle("trackside/t1/event", deep, now=NOW) == []
    assert hub.refused == 50
    assert caplog.text.count("event: not JSON: nested too deeply") == 10  # then every 100th
    assert "Traceback" not in caplog.text
    assert all(r.exc_info is None for r in caplog.records)
    # the operator sees which table floods
    assert hub.stats()["busiest"][0] == {"table_id": "t1", "messages": 50, "refused": 50}


def test_an_oversized_answer_is_refused_before_parsing(
    hub: Hub, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    big = b'{"schema": 1' + b" " * MAX_BYTES["resend"] + b"}"
    hub.handle("trackside/t1/resend", big, now=NOW)
    assert f"more than {MAX_BYTES['resend']}" in caplog.text


def test_the_hubs_csv_escapes_formulas_with_the_table_exports_own_function(
    store: HubStore,
) -> None:
    assert hub_web.csv_cell is export.csv_cell is spreadsheet.csv_cell  # one function
    store.add_result("t1", "db-a", result(1, ('=HYPERLINK("http://x","y")', "+Petr")), NOW)
    client = create_hub_app(Hub(store)).test_client()
    for url in ("/results.csv?period=season", "/league.csv?period=season"):
        rows = list(csv.reader(io.StringIO(client.get(url).get_data(as_text=True))))
        names = [cell for row in rows for cell in row if "HYPERLINK" in cell or "Petr" in cell]
        assert names and all(cell.startswith("'") for cell in names), (url, rows)


class Bridge:
    """The two topic names :class:`HubRequests` logs with (its MQTT bridge's)."""

    request_topic = "trackside/t1/request"
    resend_topic = "trackside/t1/resend"


def test_a_table_answers_requests_at_a_bounded_rate(caplog: pytest.LogCaptureFixture) -> None:
    """50 requests at once (682 KB of answers before): a burst is answered, then one per
    interval; the rest are dropped and logged (first ten, then every hundredth)."""
    caplog.set_level(logging.WARNING)
    clock = [0.0]
    requests = HubRequests(Bridge(), clock=lambda: clock[0])  # type: ignore[arg-type]
    requests.handler = lambda request: []
    taken = 0
    for _ in range(50):
        before = requests.rejected
        requests.received(b'{"schema": 1}')
        taken += requests.rejected == before
        with requests._wake:  # the worker (not started here) would take them one by one
            requests._pending.clear()
    assert taken == REQUEST_BURST and requests.rejected == 50 - REQUEST_BURST
    assert caplog.text.count("refused") == 10
    clock[0] += REQUEST_EVERY_S  # one more after the interval
    requests.received(b'{"schema": 1}')
    assert requests.rejected == 50 - REQUEST_BURST
    requests.received(b'{"schema": 1}')
    assert requests.rejected == 50 - REQUEST_BURST + 1
