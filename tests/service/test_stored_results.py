"""Issue 18 row 14: the history pages read each finished game's stored result instead of
replaying every game per request (40 games cost 70–110 ms a request, 11 requests/s).

A real SQLite file: the result is written in the same transaction as the ``game_ended`` event,
survives a restart, is dropped when the game is reopened, and a schema-2 file gains the column.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from companion.service import export
from companion.service.engine import Engine
from companion.service.export import game_summaries
from companion.service.store import MIGRATIONS, SCHEMA_VERSION, EventStore

from .conftest import action, command, start_tiny


def _play_to_the_end(engine: Engine) -> dict[str, int]:
    """A finished Tiny Race; the totals the scoreboard showed at its end."""
    engine.handle(start_tiny(target=5))
    engine.handle(action("advance", 0, steps=3))
    engine.handle(action("advance", 1, steps=1))
    engine.handle(action("advance", 0, steps=2))  # the rules end the game with this move
    session = engine.session()
    assert session is not None and session.ended == "finished"
    # the host's "end the game" after that changes nothing: the game is filed already
    assert engine.handle(command({"command": "end_game", "reason": "finished"})).outcome == (
        "logged"
    )
    return {p["name"]: p["total"] for p in engine.latest()[1]["players"]}


def test_a_finished_game_keeps_its_result_and_history_does_not_replay_it(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = EventStore(db_path)
    shown = _play_to_the_end(Engine(store))
    store.close()

    store = EventStore(db_path)  # a restart: nothing cached in this process
    (record,) = store.games()
    assert record.result is not None
    assert record.result["totals"] == shown
    assert record.result["winners"] == ["Red"]
    assert record.result["sheet"]["game"] == "tiny-race"  # type: ignore[index]
    assert record.result["table"] is not None  # the final table, for the history's picture

    def no_replay(*_: object) -> None:
        raise AssertionError("a finished game was replayed for the history page")

    monkeypatch.setattr(export, "_replay", no_replay)
    (summary,) = game_summaries(store, {})
    assert summary["totals"] == shown
    assert summary["winners"] == ["Red"]
    assert summary["end_reason"] == "finished"
    store.close()


def test_reopening_a_game_drops_its_result(db_path: Path) -> None:
    store = EventStore(db_path)
    engine = Engine(store)
    shown = _play_to_the_end(engine)
    assert engine.handle(command({"command": "reopen_game", "game_id": 1})).outcome == "applied"
    (record,) = store.games()
    assert record.ended_at is None and record.result is None
    # unfinished: replayed (and cached) as before
    (summary,) = game_summaries(store, {})
    assert summary["totals"] == shown
    store.close()


def test_a_schema_2_file_gains_the_result_column_and_keeps_its_games(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    conn = sqlite3.connect(path)
    for script in MIGRATIONS[:2]:
        conn.executescript(script)
    conn.execute("PRAGMA application_id=0x54524B53")
    conn.execute("PRAGMA user_version=2")
    conn.execute(
        "INSERT INTO games (game, players, started_at, ended_at, end_reason)"
        " VALUES ('tiny-race', '[\"Red\"]', 1, 2, 'abandoned')"
    )
    conn.commit()
    conn.close()
    store = EventStore(path)
    assert store._conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 3
    (record,) = store.games()
    assert record.game == "tiny-race" and record.result is None  # ended before: replayed
    store.close()
