"""The engine's side of the private views: a player's PIN is set and reset as an input carrying
only its hash, and a private action (a secret trade, a hidden card report) reaches no public
surface with its arguments before the game is over: not the scoreboard's recent inputs, not an
LED cue, not the published event, not the export."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from companion.core import Observation, ObservationKind
from companion.core.messages import render_text
from companion.service.engine import Engine, Publication
from companion.service.export import export_game
from companion.service.store import EventStore, InputOutcome
from tests.games.trains_and_stations.playthroughs import START, TO_SPECULATION
from web.private import hash_pin, pin_matches

from .conftest import action, command, start_tiny

CLEAR_PIN = "90817263"


def private_action(
    kind: str, player: int | None, seat: int | None = None, **args: object
) -> Observation:
    act: dict[str, object] = {"kind": kind, "args": args}
    if player is not None:
        act["player"] = player
    # sent from that player's own private page (``private:<name>``), which hears the full reason
    name = ("Ann", "Ben", "Cat")[player if player is not None else (seat or 1) - 1]
    return Observation(f"private:{name}", ObservationKind.ACTION, {"action": act}, seat)  # type: ignore[arg-type]


def at_speculation(engine: Engine) -> None:
    assert engine.handle(command(START)).outcome == "applied"
    for kind, player, args in TO_SPECULATION:
        outcome = engine.handle(action(kind, player, **args))
        assert outcome.outcome == "applied", outcome.message


def set_pin(player: int, pin_hash: str | None, **extra: object) -> Observation:
    return command({"command": "set_player_pin", "player": player, "pin_hash": pin_hash, **extra})


def issue_code(engine: Engine, player: int) -> str:
    """The table issues ``player`` a seat code: only its answer carries it."""
    issued = engine.handle(command({"command": "issue_seat_code", "player": player}))
    assert issued.outcome == "seat_code" and issued.reply is not None, issued
    code = str(issued.reply["code"])
    assert code not in issued.message and code not in json.dumps(engine.latest()[1])
    return code


def claim_seat(engine: Engine, player: int, pin_hash: str, **extra: object) -> InputOutcome:
    """A seat claimed as the contract says: the table issues a code, the seat sets its PIN."""
    code = issue_code(engine, player)
    payload = {"command": "claim_seat", "player": player, "code": code, "pin_hash": pin_hash}
    return engine.handle(command({**payload, **extra}))


def recent_messages(engine: Engine) -> list[str]:
    _, snapshot = engine.latest()
    return [render_text(r["message"]) for r in snapshot["status"]["recent"]]  # type: ignore[index, union-attr]


def test_a_players_pin_is_recorded_as_its_salted_hash_and_never_in_clear(
    engine: Engine, store: EventStore, db_path: Path
) -> None:
    at_speculation(engine)
    pin_hash = hash_pin(CLEAR_PIN)
    outcome = claim_seat(engine, 0, pin_hash, game_id=1)
    assert (outcome.outcome, outcome.message) == (
        "pin_set",
        "Ann set a private PIN with the table's seat code",
    )
    assert store.player_pin_hash(1, 0) == pin_hash and store.player_pin_hash(1, 1) is None
    assert pin_matches(CLEAR_PIN, pin_hash) and not pin_matches("90817264", pin_hash)
    newest, issued = store.inputs(2)  # the inputs are kept, as every input is: the code is not
    assert newest["payload"]["pin_hash"] == pin_hash and newest["outcome"] == "pin_set"
    assert newest["payload"]["code"] == "…" and issued["outcome"] == "seat_code"
    # the clear PIN is nowhere in the database: not in the write-ahead log while the service
    # runs, not in the file once it is checkpointed, not in any table
    wal = db_path.with_name(db_path.name + "-wal")
    assert pin_hash.encode() in wal.read_bytes()
    assert CLEAR_PIN.encode() not in wal.read_bytes()
    store.close()
    assert pin_hash.encode() in db_path.read_bytes()
    assert CLEAR_PIN.encode() not in db_path.read_bytes()
    with sqlite3.connect(db_path) as conn:
        dump = "\n".join(conn.iterdump())
    assert pin_hash in dump and CLEAR_PIN not in dump


def test_the_first_pin_wins_and_only_a_reset_clears_it(engine: Engine, store: EventStore) -> None:
    at_speculation(engine)
    first, second = hash_pin("1111"), hash_pin("2222")
    assert claim_seat(engine, 1, first).outcome == "pin_set"
    refused = engine.handle(command({"command": "issue_seat_code", "player": 1}))
    assert refused.outcome == "rejected"
    assert "Ben has a private PIN already; reset it first" in refused.message
    assert store.player_pin_hash(1, 1) == first
    reset = engine.handle(set_pin(1, None))
    assert (reset.outcome, reset.message) == ("pin_reset", "Ben's private PIN was reset")
    assert store.player_pin_hash(1, 1) is None
    again = engine.handle(set_pin(1, None))
    assert again.outcome == "rejected" and "Ben has no private PIN to reset" in again.message
    assert claim_seat(engine, 1, second).outcome == "pin_set"
    assert store.player_pin_hash(1, 1) == second


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        ({"player": 0, "pin_hash": CLEAR_PIN}, "pin_hash: expected a salted hash"),
        ({"player": 0, "pin_hash": "scrypt$x", "code": "AAAAAAAA"}, "not Ann's seat code"),
        ({"player": 0, "pin_hash": "scrypt$x", "code": ""}, "not Ann's seat code"),
        ({"player": 0, "pin_hash": int(CLEAR_PIN)}, "never the PIN itself"),
        ({"player": 3, "pin_hash": "scrypt$x"}, "player"),
        ({"player": 0, "pin_hash": "scrypt$x", "game_id": 2}, "game 1 is on the table now"),
        ({"player": 0, "pin_hash": "scrypt$x", "pin": "1234"}, "pin"),
        ({"player": 0, "pin_hash": "scrypt$" + "0" * 500}, "never the PIN itself"),
    ],
)
def test_a_bad_pin_command_is_refused_naming_the_field(
    engine: Engine, store: EventStore, payload: dict[str, object], reason: str
) -> None:
    at_speculation(engine)
    code = issue_code(engine, 0)
    outcome = engine.handle(command({"command": "claim_seat", "code": code, **payload}))
    assert outcome.outcome == "rejected" and reason in outcome.message
    assert all(store.player_pin_hash(1, p) is None for p in range(3))
    assert CLEAR_PIN not in outcome.message and CLEAR_PIN not in json.dumps(engine.latest()[1])


def test_pins_need_a_running_game_with_private_views(engine: Engine) -> None:
    outcome = engine.handle(set_pin(0, hash_pin("1234")))
    assert outcome.outcome == "rejected" and "no game is running" in outcome.message
    engine.handle(start_tiny())
    outcome = engine.handle(set_pin(0, hash_pin("1234")))
    assert outcome.outcome == "rejected"
    assert "has no private views to protect" in outcome.message


def test_a_private_action_is_told_in_full_to_its_sender_and_as_private_to_everyone_else(
    engine: Engine,
) -> None:
    at_speculation(engine)
    told = engine.handle(private_action("report_special_goods", 1, cards=[["silver", "gold"]]))
    assert told.outcome == "applied" and "silver" in told.message
    told = engine.handle(private_action("speculate", 0, goods={"cattle": 4}))
    assert told.outcome == "applied" and "4× cattle" in told.message
    refused = engine.handle(private_action("speculate", 1, goods={"cattle": 9}))
    assert refused.outcome == "rejected" and "Ben holds 3 cattle, not 9" in refused.message
    assert recent_messages(engine)[-3:] == [
        "Ben: report special goods (private)",
        "Ann: speculate (private)",
        "Ben: speculate (private) — refused; the sender was told why",
    ]
    _, snapshot = engine.latest()
    public = json.dumps(snapshot)
    for secret in (
        "silver,gold",
        "silver + gold",
        "4×cattle",
        "4× cattle",
        "holds 3 cattle",
        "not 9",
    ):
        assert secret not in public
    table = snapshot["table"]
    assert all("goods" not in p for p in table["players"])  # type: ignore[index, union-attr, operator]


def test_a_refused_private_input_at_a_seat_blinks_without_saying_why(engine: Engine) -> None:
    at_speculation(engine)
    engine.handle(private_action("speculate", None, seat=2, goods={"cattle": 9}))
    _, snapshot = engine.latest()
    cue = snapshot["cues"][-1]  # type: ignore[index]
    assert cue["kind"] == "error" and cue["seat"] == 2  # type: ignore[index]
    assert cue["message"] == "Ben: speculate (private) — refused; the sender was told why"  # type: ignore[index]
    assert "not 9" not in json.dumps(snapshot)


def test_a_correction_to_a_private_action_is_private_too(engine: Engine) -> None:
    at_speculation(engine)
    engine.handle(private_action("report_special_goods", 2, cards=[["coal", "gold"]]))
    seq = engine.latest()[1]["seq"]
    fix = {"kind": "report_special_goods", "player": 2, "args": {"cards": [["food", "gold"]]}}
    outcome = engine.handle(command({"command": "correct", "target_seq": seq, "action": fix}))
    assert outcome.outcome == "applied"
    assert recent_messages(engine)[-1] == f"#{seq} → Cat: report special goods (private)"
    assert "food,gold" not in json.dumps(engine.latest()[1])


def test_after_a_restart_the_recent_inputs_stay_private(db_path: Path) -> None:
    store = EventStore(db_path)
    engine = Engine(store)
    at_speculation(engine)
    engine.handle(private_action("speculate", 0, goods={"cattle": 4}))
    engine.handle(private_action("speculate", 1, goods={"cattle": 9}))
    store.close()
    store = EventStore(db_path)
    try:
        resumed = Engine(store)
        assert recent_messages(resumed)[-2:] == [
            "Ann: speculate (private)",
            "Ben: speculate (private) — refused; the sender was told why",
        ]
        assert "4×cattle" not in json.dumps(resumed.latest()[1])
        assert "4× cattle" not in json.dumps(resumed.latest()[1])
    finally:
        store.close()


def test_the_published_event_of_a_private_action_has_no_arguments(engine: Engine) -> None:
    seen: list[Publication] = []
    engine.subscribe(seen.append)
    at_speculation(engine)
    engine.handle(private_action("speculate", 0, goods={"cattle": 4}))
    last = seen[-1]
    assert last.event == {
        "type": "action_applied",
        "action": {"kind": "speculate", "player": 0},
        "private": True,
    }
    # the log itself keeps everything (the event store is the truth)
    assert last.entry is not None and "cattle" in json.dumps(last.entry.event.action.to_json())  # type: ignore[union-attr]
    public_events = [p.event for p in seen if p.event is not None]
    assert any(
        e["action"] == {"kind": "end_turn", "player": 2} for e in public_events if "action" in e
    )  # type: ignore[comparison-overlap]


def test_the_export_hides_private_arguments_and_holdings_until_the_end(
    engine: Engine, store: EventStore
) -> None:
    at_speculation(engine)
    engine.handle(private_action("speculate", 0, goods={"cattle": 4}))
    engine.handle(private_action("report_special_goods", 1, cards=[["silver", "gold"]]))
    _, body = export_game(store, 1, "json")
    record = json.loads(body)
    private = [e for e in record["events"] if e.get("private")]
    assert [e["action"] for e in private] == [
        {"kind": "speculate", "player": 0},
        {"kind": "report_special_goods", "player": 1},
    ]
    assert "goods" not in record["snapshot"]["players"][0]
    assert record["snapshot"]["speculation"] == {"goods": "food", "answered": [True, False, False]}
    assert "silver" not in json.dumps(record["events"])
    # abandoned is not over (issue 52): reopen_game plays it on, so its record stays redacted
    engine.handle(command({"command": "end_game", "reason": "abandoned"}))
    abandoned = export_game(store, 1, "json")[1]
    record = json.loads(abandoned)
    assert [e["action"] for e in record["events"] if e.get("private")] == [
        {"kind": "speculate", "player": 0},
        {"kind": "report_special_goods", "player": 1},
    ]
    assert "silver" not in json.dumps(record["events"])
    assert "goods" not in record["snapshot"]["players"][0]
    assert "special_goods" not in record["snapshot"]["players"][1]
    assert engine.handle(command({"command": "reopen_game"})).outcome == "applied"
    record = json.loads(export_game(store, 1, "json")[1])
    assert "silver" not in json.dumps(record["events"])
