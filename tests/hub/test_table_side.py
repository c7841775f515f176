"""The table's side of the club hub: resend answers come from the event log, show only what
the table shows everyone, and a request is bounded before it is parsed."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.service.club import (
    EMPTY_IDENTITY,
    ClubResponder,
    DatabaseIdentity,
    answer_request,
    bridge_config,
    database_identity,
)
from companion.service.config import parse_settings
from companion.service.engine import Engine
from companion.service.export import export_game
from companion.service.store import EventStore
from firmware_bridge.mqtt import MAX_REQUEST_BYTES, HubRequests
from tests.service.conftest import action, command, start_tiny
from tests.service.test_private_inputs import at_speculation, private_action

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[EventStore]:
    s = EventStore(tmp_path / "db" / "trackside.sqlite3")
    yield s
    s.close()


@pytest.fixture
def engine(store: EventStore) -> Engine:
    return Engine(store)


def finish_tiny(engine: Engine) -> None:
    """A Tiny Race to 3: Ann throws a 3 and wins; the rules end the game as finished."""
    assert engine.handle(action("advance", 0, steps=3)).outcome == "applied"
    session = engine.session()
    assert session is not None and session.ended == "finished"


def test_events_since_a_sequence_number_and_the_finished_games_results(
    engine: Engine, store: EventStore
) -> None:
    assert database_identity(store) == EMPTY_IDENTITY
    engine.handle(start_tiny(target=3))
    finish_tiny(engine)
    engine.handle(start_tiny(target=3))  # a second game, still running
    replies = answer_request(store, {"request_id": "r1", "since": {"game_id": 1, "seq": 1}})
    assert len(replies) == 1 and replies[0]["done"] is True
    reply = replies[0]
    assert reply["request_id"] == "r1"
    assert reply["db"] == database_identity(store) != EMPTY_IDENTITY
    assert reply["last_game"] == 2 and reply["open_games"] == [2]
    assert [(e["event"]["game_id"], e["seq"]) for e in reply["events"]] == [(1, 2), (1, 3), (2, 1)]
    # the results: finished games only, exactly as the export scores them
    export = json.loads(export_game(store, 1, "json")[1])
    assert reply["results"] == [
        {
            "game_id": 1,
            "game": "tiny-race",
            "started_at": export["started_at"],
            "ended_at": export["ended_at"],
            "players": [
                {"name": p["name"], "total": p["total"]} for p in export["score"]["players"]
            ],
            "winners": export["score"]["winners"],
        }
    ]
    # results_from skips what the hub already has
    later = answer_request(store, {"since": {"game_id": 2, "seq": 1}, "results_from": 2})
    assert later[0]["events"] == [] and later[0]["results"] == []


def test_a_long_answer_comes_in_parts(engine: Engine, store: EventStore) -> None:
    engine.handle(start_tiny(target=100))
    for i in range(10):
        assert engine.handle(action("advance", i % 2, steps=1)).outcome == "applied"
    for _ in range(100):  # undo and redo are events in the log too
        assert engine.handle(command({"command": "undo"})).outcome == "applied"
        assert engine.handle(command({"command": "redo"})).outcome == "applied"
    replies = answer_request(store, {"since": {"game_id": 0, "seq": 0}})
    assert len(replies) == 2
    assert [r["done"] for r in replies] == [False, True]
    seqs = [e["seq"] for r in replies for e in r["events"]]
    assert seqs == list(range(1, len(seqs) + 1)) and len(seqs) > 200


@pytest.mark.parametrize(
    ("request_doc", "field"),
    [
        ({"since": "yesterday"}, "since"),
        ({"since": {"game_id": -1, "seq": 0}}, "since"),
        ({"since": {"game_id": 1, "seq": True}}, "since"),
        ({"results_from": "all"}, "results_from"),
    ],
)
def test_a_malformed_request_gets_an_error_naming_the_field(
    store: EventStore, request_doc: dict[str, Any], field: str
) -> None:
    (reply,) = answer_request(store, request_doc)
    assert reply["done"] is True and reply["error"].startswith(field)
    assert "events" not in reply


def test_a_private_action_is_resent_without_its_arguments_until_the_end(
    engine: Engine, store: EventStore
) -> None:
    at_speculation(engine)
    engine.handle(private_action("speculate", 0, goods={"cattle": 4}))
    text = json.dumps(answer_request(store, {}))
    assert '"private": true' in text
    assert "cattle" not in text


def test_the_responder_reads_its_own_connection_and_never_raises(tmp_path: Path) -> None:
    missing = ClubResponder(tmp_path / "nothing.sqlite3")
    (reply,) = missing({})
    assert reply["error"].startswith("database:")


def test_the_identity_is_remembered_once_the_first_game_is_there(
    engine: Engine, store: EventStore
) -> None:
    identity = DatabaseIdentity(store)
    assert identity() == EMPTY_IDENTITY
    engine.handle(start_tiny(target=3))
    first = identity()
    assert first != EMPTY_IDENTITY and identity() == first == database_identity(store)


class FakeBridge:
    request_topic = "trackside/t1/request"
    resend_topic = "trackside/t1/resend"


def test_requests_are_bounded_before_parsing_and_never_raise(
    caplog: pytest.LogCaptureFixture,
) -> None:
    requests = HubRequests(FakeBridge())  # type: ignore[arg-type]
    requests.handler = lambda request: []
    caplog.set_level(logging.WARNING)
    requests.received(b"{" * (MAX_REQUEST_BYTES + 1))
    requests.received(b"\xff\xfe")
    requests.received(b"[1, 2]")
    assert requests.rejected == 3
    assert "more than 2048" in caplog.text and "not JSON" in caplog.text
    assert "not a JSON object" in caplog.text
    for _ in range(10):
        requests.received(b"{}")
    assert requests.rejected == 3 + 10 - 4  # four wait; the flood beyond is dropped, logged


def test_the_bridge_config_carries_the_tables_topics_out_and_requests_in() -> None:
    settings = parse_settings(
        {
            "mqtt": {"host": "127.0.0.1", "table_id": "table-3"},
            "club": {"host": "club.local", "username": "table-3", "password": "s3cret"},
        }
    )
    text = bridge_config(
        settings, (ROOT / "hardware/deploy/mosquitto-club-bridge.conf").read_text()
    )
    lines = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert "address club.local:1883" in lines
    assert "cleansession false" in lines and "notifications true" in lines
    assert "remote_username table-3" in lines and "remote_password s3cret" in lines
    topics = [line for line in lines if line.startswith("topic ")]
    assert topics == [
        f"topic {kind} out 1 trackside/table-3/ trackside/table-3/"
        for kind in ("status", "state", "event", "resend")
    ] + ["topic request in 1 trackside/table-3/ trackside/table-3/"]
    assert "@" not in text


def test_the_club_section_is_checked() -> None:
    with pytest.raises(Exception, match=r"club.*needs an \[mqtt\] section"):
        parse_settings({"club": {"host": "club.local"}})
    with pytest.raises(Exception, match=r"club\.password.*without a username"):
        parse_settings({"mqtt": {"host": "h"}, "club": {"host": "c", "password": "x"}})
    tls = parse_settings({"mqtt": {"host": "h"}, "club": {"host": "c", "tls": True}})
    assert tls.club is not None and tls.club.port == 8883
