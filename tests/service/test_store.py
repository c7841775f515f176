"""The event store: a real SQLite file, WAL, refusals of foreign and newer files."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from companion.core import (
    Action,
    ActionApplied,
    CorruptDatabaseError,
    EnrolmentError,
    GameStarted,
    LogEntry,
    Observation,
    ObservationKind,
    PlayerSpec,
    SchemaTooNewError,
    StoreError,
)
from companion.service.store import SCHEMA_VERSION, EventStore, InputOutcome


def obs(uid: str = "04A1", ref: str = "") -> Observation:
    return Observation("red-seat", ObservationKind.TAG_PRESENT, {"uid": uid}, 1, ref=ref)  # type: ignore[arg-type]


def test_new_database_is_wal_full_sync_and_versioned(store: EventStore, db_path: Path) -> None:
    conn = sqlite3.connect(db_path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert store._conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    conn.close()


def test_record_game_and_events_survive_reopen(store: EventStore, db_path: Path) -> None:
    started = LogEntry(1, GameStarted("tiny-race", (PlayerSpec("Red"),)), "table-page", 1.0)
    _, game_id = store.record(
        obs(), InputOutcome("applied"), new_game=("tiny-race", ("Red",)), entry=started
    )
    assert game_id is not None
    entry = LogEntry(2, ActionApplied(Action("advance", 0, {"steps": 2})), "red-seat", 2.0)
    store.record(obs(), InputOutcome("applied", game_id=game_id), entry=entry)
    store.close()
    again = EventStore(db_path)
    assert again.entries(game_id) == [started, entry]
    assert [g.id for g in again.unfinished_games()] == [game_id]
    assert [i["outcome"] for i in again.inputs()] == ["applied", "applied"]
    again.close()


def test_duplicate_seq_is_refused_and_nothing_is_half_written(store: EventStore) -> None:
    started = LogEntry(1, GameStarted("tiny-race", (PlayerSpec("Red"),)))
    _, game_id = store.record(
        obs(), InputOutcome("applied"), new_game=("tiny-race", ("Red",)), entry=started
    )
    with pytest.raises(StoreError, match=r"UNIQUE|PRIMARY"):
        store.record(obs("dup"), InputOutcome("applied", game_id=game_id), entry=started)
    # the input of the failed transaction is not in the raw log either
    assert [i["payload"]["uid"] for i in store.inputs()] == ["04A1"]


def test_tag_enrolled_twice_names_both_bindings(store: EventStore) -> None:
    store.enrol("04A1", "tiny-race", "die-1")
    with pytest.raises(
        EnrolmentError, match=r"'04A1' is already enrolled as tiny-race 'die-1'.*'die-2'"
    ):
        store.enrol("04A1", "tiny-race", "die-2")
    assert store.tag("04A1") is not None and store.tag("04A1").component == "die-1"  # type: ignore[union-attr]


def test_replay_resume_index(store: EventStore) -> None:
    assert store.last_ref_index("replay:night.jsonl") == -1
    for i in (0, 1, 2):
        store.record(obs(ref=f"replay:night.jsonl#{i}"), InputOutcome("logged"))
    store.record(obs(ref="replay:other.jsonl#9"), InputOutcome("logged"))
    assert store.last_ref_index("replay:night.jsonl") == 2


def test_foreign_sqlite_file_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE recipes (name TEXT)")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    with pytest.raises(CorruptDatabaseError, match="not a Trackside database"):
        EventStore(path)
    assert path.read_bytes() == before
    assert not (tmp_path / "other.sqlite3-wal").exists()


def test_garbage_file_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "garbage.sqlite3"
    path.write_bytes(b"this is not a database at all" * 100)
    before = path.read_bytes()
    with pytest.raises(CorruptDatabaseError, match="not a Trackside database"):
        EventStore(path)
    assert path.read_bytes() == before


def test_newer_schema_is_refused_not_overwritten(store: EventStore, db_path: Path) -> None:
    store._conn.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    store.close()
    before = db_path.read_bytes()
    with pytest.raises(SchemaTooNewError, match="newer Trackside"):
        EventStore(db_path)
    assert db_path.read_bytes() == before


def test_a_schema_1_file_is_migrated_and_keeps_its_games(tmp_path: Path) -> None:
    """A database from the first release (schema 1) gains the saved-options and player-PIN
    tables on the next start; its games are untouched."""
    from companion.service.store import MIGRATIONS

    path = tmp_path / "old.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript(MIGRATIONS[0])
    conn.execute("PRAGMA application_id=0x54524B53")
    conn.execute("PRAGMA user_version=1")
    conn.execute(
        "INSERT INTO games (game, players, started_at) VALUES ('tiny-race', '[\"Red\"]', 1)"
    )
    conn.commit()
    conn.close()
    store = EventStore(path)
    assert [g.game for g in store.games()] == ["tiny-race"]
    assert store._conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 3
    assert store.game_defaults("mini-express") == {}
    store.close()


def test_saved_defaults_and_player_pins_are_written_with_their_input(store: EventStore) -> None:
    table = {"share_values": {"3": {"1st": 4}}}
    input_id, _ = store.record(
        obs(), InputOutcome("applied", "saved"), defaults=("mini-express", table)
    )
    assert store.game_defaults("mini-express") == table
    assert store.game_defaults("tiny-race") == {}
    started = LogEntry(1, GameStarted("tiny-race", (PlayerSpec("Red"),)))
    _, game_id = store.record(
        obs(), InputOutcome("applied"), new_game=("tiny-race", ("Red",)), entry=started
    )
    assert game_id is not None
    store.record(obs(), InputOutcome("applied"), player_pin=(game_id, 0, "hash-1"))
    assert store.player_pin_hash(game_id, 0) == "hash-1"
    assert store.player_pin_hash(game_id, 1) is None
    store.record(obs(), InputOutcome("applied"), player_pin=(game_id, 0, None))
    assert store.player_pin_hash(game_id, 0) is None
    # a refused write leaves the saved options as they were
    with pytest.raises(StoreError):
        store.record(obs(), InputOutcome("applied"), defaults=("x", {}), entry=started)
    assert store.game_defaults("x") == {}
    assert input_id > 0
