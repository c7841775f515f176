"""The hub's input: every table message is checked; bad ones are refused with a log line that
names the table and the reason, never crash the hub and never add or double a result; gaps and
a table's new database are re-synchronised by asking the table."""

from __future__ import annotations

import json
import logging
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.hub.store import HubStore
from companion.hub.tables import MAX_BYTES, Hub

NOW = 1_800_000_000.0


@pytest.fixture
def store(tmp_path: Path) -> Iterator[HubStore]:
    s = HubStore(tmp_path / "hub.sqlite3")
    yield s
    s.close()


@pytest.fixture
def hub(store: HubStore) -> Hub:
    return Hub(store, tables=("t1", "t2"))


def event(seq: int, game_id: int = 1, db: str = "db-a", kind: str = "action_applied") -> bytes:
    return json.dumps(
        {"schema": 1, "seq": seq, "db": db, "event": {"game_id": game_id, "type": kind}}
    ).encode()


def result(game_id: int, totals: tuple[int, int] = (10, 7)) -> dict[str, Any]:
    return {
        "game_id": game_id,
        "game": "tiny-race",
        "started_at": NOW - 600,
        "ended_at": NOW,
        "players": [{"name": "Ana", "total": totals[0]}, {"name": "Petr", "total": totals[1]}],
        "winners": ["Ana"],
    }


def reply(request: tuple[str, str], db: str = "db-a", **body: Any) -> bytes:
    rid = json.loads(request[1])["request_id"]
    return json.dumps({"schema": 1, "request_id": rid, "db": db, "done": True, **body}).encode()


def test_a_message_from_an_unknown_table_is_refused_and_logged(
    hub: Hub, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    assert hub.handle("trackside/intruder/event", event(1), now=NOW) == []
    assert hub.handle("trackside/intruder/state", b"{}", now=NOW) == []
    assert "intruder" not in hub.tables
    assert "message from table intruder refused (1 so far): not one of [hub] tables" in caplog.text
    assert hub.refused == 2
    # the first ten refusals per table are logged, then every hundredth: no log flood
    for _ in range(298):
        hub.handle("trackside/intruder/event", event(1), now=NOW)
    assert caplog.text.count("intruder refused") == 10 + 3


@pytest.mark.parametrize(
    ("topic", "payload", "reason"),
    [
        ("trackside/t1/state", b"\xff\xfe", "state: not JSON"),
        ("trackside/t1/state", b"[1]", "state: not a JSON object"),
        ("trackside/t1/state", b'{"schema": 2, "players": []}', "state: schema 2 is not 1"),
        ("trackside/t1/state", b'{"schema": 1, "players": 3}', "state: players: expected a list"),
        ("trackside/t1/event", b'{"schema": 1, "seq": 0, "event": {}}', "event: seq: 0 is not"),
        ("trackside/t1/event", b'{"schema": 1, "seq": 1}', "event: 'event'"),
        ("trackside/t1/event", b'{"seq": 1, "event": {"game_id": "x"}}', "event.game_id"),
        ("trackside/t1/status", b"maybe", "status: 'maybe' is neither online nor offline"),
        ("trackside/t1/state", b"{" + b" " * MAX_BYTES["state"] + b"}", "state: 524290 bytes"),
        ("trackside/bad+id/state", b"{}", "'bad+id' is not a table id"),
    ],
)
def test_a_malformed_or_oversized_message_is_refused_naming_why(
    store: HubStore, topic: str, payload: bytes, reason: str, caplog: pytest.LogCaptureFixture
) -> None:
    hub = Hub(store)
    caplog.set_level(logging.WARNING)
    assert hub.handle(topic, payload, now=NOW) == []
    assert reason in caplog.text
    assert store.results() == []


def test_random_bytes_on_every_topic_never_crash_the_hub(hub: Hub, store: HubStore) -> None:
    rng = random.Random(21)
    kinds = ["status", "state", "event", "resend", "bridge", "request", "x"]
    samples = [b"", b"{}", b"null", b'{"schema":1}', event(3), b'{"events": [1, {"seq": 2}]}']
    for _ in range(3000):
        topic = f"trackside/{rng.choice(['t1', 't2', '', 'x/y'])}/{rng.choice(kinds)}"
        base = rng.choice(samples)
        noise = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 40)))
        payload = base[: rng.randrange(len(base) + 1)] + noise if rng.random() < 0.7 else base
        hub.handle(topic, payload, now=NOW)
        hub.tick(NOW + rng.random() * 100)
    assert store.results() == []
    hub.views(NOW)


def test_a_gap_asks_the_table_to_resend_and_the_answer_fills_it(hub: Hub) -> None:
    assert hub.handle("trackside/t1/event", event(1), now=NOW) == []
    assert hub.handle("trackside/t1/event", event(2), now=NOW) == []
    (request,) = hub.handle("trackside/t1/event", event(5), now=NOW)
    topic, body = request
    assert topic == "trackside/t1/request"
    assert json.loads(body)["since"] == {"game_id": 1, "seq": 2}
    # one request at a time: another gap waits for the answer
    assert hub.handle("trackside/t1/event", event(7), now=NOW) == []
    missing = [{"seq": s, "event": {"game_id": 1, "type": "action_applied"}} for s in (3, 4, 5, 6)]
    again = hub.handle("trackside/t1/resend", reply(request, events=missing), now=NOW)
    assert again == []  # 3..7 are now all there
    assert hub.tables["t1"].positions == {1: 7}
    # a duplicate (QoS 1 is at least once) changes nothing
    assert hub.handle("trackside/t1/event", event(4), now=NOW) == []
    assert hub.tables["t1"].positions == {1: 7}


def test_a_lost_request_is_sent_again(hub: Hub) -> None:
    hub.handle("trackside/t1/event", event(1), now=NOW)
    (first,) = hub.handle("trackside/t1/event", event(3), now=NOW)
    assert hub.tick(NOW + 5) == []
    (second,) = hub.tick(NOW + 20)
    assert json.loads(second[1])["since"] == json.loads(first[1])["since"]


def test_a_result_is_stored_once_whatever_repeats_it(hub: Hub, store: HubStore) -> None:
    (request,) = hub.handle("trackside/t1/status", b"online", now=NOW)
    assert json.loads(request[1])["results_from"] == 1
    hub.handle("trackside/t1/resend", reply(request, results=[result(1)]), now=NOW)
    for _ in range(3):  # the same answer again, as a late duplicate and in a new answer
        hub.handle("trackside/t1/resend", reply(request, results=[result(1)]), now=NOW)
    assert len(store.results()) == 1
    # the next request only asks for what the hub lacks
    hub.handle("trackside/t1/status", b"offline", now=NOW)
    (again,) = hub.handle("trackside/t1/status", b"online", now=NOW)
    assert json.loads(again[1])["results_from"] == 2


def test_a_result_that_does_not_add_up_is_refused(
    hub: Hub, store: HubStore, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    (request,) = hub.handle("trackside/t1/status", b"online", now=NOW)
    bad = [
        {**result(1), "winners": ["Zoe"]},
        {**result(2), "players": [{"name": "Ana", "total": "lots"}]},
        {**result(3), "game_id": 0},
    ]
    hub.handle("trackside/t1/resend", reply(request, results=bad), now=NOW)
    assert store.results() == []
    assert "results[].winners" in caplog.text and "results[].players[].total" in caplog.text
    assert "results[].game_id" in caplog.text


def test_sequence_numbers_going_back_on_a_new_database_resynchronise_without_double_counting(
    hub: Hub, store: HubStore, caplog: pytest.LogCaptureFixture
) -> None:
    (request,) = hub.handle("trackside/t1/status", b"online", now=NOW)
    hub.handle("trackside/t1/resend", reply(request, results=[result(1)]), now=NOW)
    for seq in range(1, 6):
        hub.handle("trackside/t1/event", event(seq, game_id=2), now=NOW)
    caplog.set_level(logging.WARNING)
    # the table's SD card was replaced: game 1 again, from seq 1, on another database
    requests = hub.handle("trackside/t1/event", event(1, game_id=1, db="db-b"), now=NOW)
    assert "table t1 is on a new database (db-b, was db-a)" in caplog.text
    (request,) = requests
    hub.handle(
        "trackside/t1/resend", reply(request, db="db-b", results=[result(1, (3, 9))]), now=NOW
    )
    stored = store.results()
    assert [(r["db"], r["game_id"]) for r in stored] == [("db-a", 1), ("db-b", 1)]
    assert hub.tables["t1"].positions == {1: 1}
    assert hub.tables["t1"].resets == 1


def test_a_state_ahead_of_its_events_asks_for_them_after_a_grace(hub: Hub) -> None:
    state = {
        "schema": 1,
        "game": "tiny-race",
        "game_id": 1,
        "seq": 4,
        "players": [],
        "status": {},
        "updated_at": NOW,
    }
    hub.handle("trackside/t1/event", event(1), now=NOW)
    assert hub.handle("trackside/t1/state", json.dumps(state).encode(), now=NOW) == []
    assert hub.tick(NOW + 1) == []
    (request,) = hub.tick(NOW + 5)
    assert json.loads(request[1])["since"] == {"game_id": 1, "seq": 1}


def test_a_state_published_just_before_its_event_asks_for_nothing(hub: Hub) -> None:
    """A table publishes the new state, then its event: no request for that."""
    state = {
        "schema": 1,
        "game": "tiny-race",
        "game_id": 1,
        "seq": 2,
        "players": [],
        "status": {},
        "updated_at": NOW,
    }
    hub.handle("trackside/t1/event", event(1), now=NOW)
    hub.handle("trackside/t1/state", json.dumps(state).encode(), now=NOW)
    hub.handle("trackside/t1/event", event(2), now=NOW + 0.01)
    assert hub.tick(NOW + 5) == []


def test_the_wall_view_keeps_only_the_public_fields_and_marks_a_quiet_table(hub: Hub) -> None:
    state = {
        "schema": 1,
        "game": "tiny-race",
        "game_id": 1,
        "seq": 3,
        "over": False,
        "players": [
            {"name": "Ana", "total": 4, "colour": "red", "lines": [{"x": 1}]},
            {"name": "Petr", "total": 2, "colour": "blue"},
        ],
        "status": {
            "round": 2,
            "active_players": [1],
            "waiting_for": "Petr's throw",
            "devices": {"x": 1},
        },
        "table": {"secret": "not for the hub"},
        "updated_at": NOW,
    }
    hub.handle("trackside/t1/state", json.dumps(state).encode(), now=NOW)
    (view,) = [v for v in hub.views(NOW + 1) if v["table_id"] == "t1"]
    assert view["turn"] == ["Petr"] and view["round"] == 2 and not view["quiet"]
    assert "not for the hub" not in json.dumps(hub.tables["t1"].state)
    (later,) = [v for v in hub.views(NOW + 600) if v["table_id"] == "t1"]
    assert later["quiet"] is True


def test_a_gap_the_table_cannot_fill_is_logged_and_passed_without_asking_for_ever(
    hub: Hub, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    hub.handle("trackside/t1/event", event(1), now=NOW)
    (request,) = hub.handle("trackside/t1/event", event(4), now=NOW)
    hub.handle("trackside/t1/event", event(5), now=NOW)
    # the table answers, but without events 2 and 3 (its log lost them)
    assert hub.handle("trackside/t1/resend", reply(request, events=[]), now=NOW) == []
    assert "did not resend events 2–3 of game 1; carrying on from 4" in caplog.text
    assert hub.tables["t1"].positions == {1: 5}
    assert hub.handle("trackside/t1/event", event(6), now=NOW) == []


def test_a_tables_first_game_is_not_a_new_database(
    hub: Hub, caplog: pytest.LogCaptureFixture
) -> None:
    """Before its first game a table's database has no identity yet ("empty")."""
    caplog.set_level(logging.WARNING)
    (request,) = hub.handle("trackside/t1/status", b"online", now=NOW)
    hub.handle("trackside/t1/resend", reply(request, db="empty"), now=NOW)
    hub.handle("trackside/t1/event", event(1, db="db-a"), now=NOW)
    assert "new database" not in caplog.text
    assert hub.tables["t1"].db == "db-a" and hub.tables["t1"].resets == 0


def test_an_abandoned_game_is_not_asked_for_again(hub: Hub) -> None:
    """Game 1 was abandoned, game 2 finished, game 3 is running: the next request starts
    after them, so the table does not replay its whole night for every request."""
    for gid in (1, 2, 3):
        hub.handle("trackside/t1/event", event(1, game_id=gid), now=NOW)
    (request,) = hub.handle("trackside/t1/status", b"online", now=NOW)
    assert json.loads(request[1])["results_from"] == 1
    hub.handle(
        "trackside/t1/resend",
        reply(request, results=[result(2)], last_game=3, open_games=[3]),
        now=NOW,
    )
    hub.handle("trackside/t1/status", b"offline", now=NOW)
    (again,) = hub.handle("trackside/t1/status", b"online", now=NOW)
    assert json.loads(again[1])["results_from"] == 3


def test_a_restarted_hub_asks_for_the_games_that_ended_while_it_was_away(
    store: HubStore,
) -> None:
    """The hub had game 1's result; it was away for games 2 and 3; the table is at game 4."""
    store.add_result("t1", "db-a", result(1), now=NOW)
    hub = Hub(store, tables=("t1",))
    state = {
        "schema": 1,
        "game": "tiny-race",
        "game_id": 4,
        "seq": 2,
        "players": [],
        "status": {},
        "updated_at": NOW,
    }
    hub.handle("trackside/t1/state", json.dumps(state).encode(), retained=True, now=NOW)
    (request,) = hub.handle("trackside/t1/status", b"online", retained=True, now=NOW)
    assert json.loads(request[1])["results_from"] == 2


def test_what_a_table_can_make_the_hub_keep_is_bounded(hub: Hub) -> None:
    for gid in range(1, 1000):
        hub.handle("trackside/t1/event", event(5, game_id=gid), now=NOW)
    for seq in range(3, 5000):
        hub.handle("trackside/t1/event", event(seq, game_id=2000), now=NOW)
    table = hub.tables["t1"]
    assert len(table.games_seen) <= 201 and len(table.held) <= 201
    assert sum(len(h) for h in table.held.values()) <= 201 * 2000
    assert len(table.held[2000]) == 2000
