"""Fixtures for the service: a real SQLite file per test, an engine without its thread."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.core import Observation, ObservationKind
from companion.service.engine import Engine
from companion.service.store import EventStore

RED_BLUE = [
    {"name": "Red", "colour": "red", "seat": 1},
    {"name": "Blue", "colour": "blue", "seat": 2},
]


def command(payload: dict[str, object], seat: int | None = None) -> Observation:
    return Observation("table-page", ObservationKind.COMMAND, payload, seat)  # type: ignore[arg-type]


def action(
    kind: str, player: int | None = None, seat: int | None = None, **args: object
) -> Observation:
    act: dict[str, object] = {"kind": kind, "args": args}
    if player is not None:
        act["player"] = player
    return Observation("table-page", ObservationKind.ACTION, {"action": act}, seat)  # type: ignore[arg-type]


def start_tiny(target: int = 10) -> Observation:
    return command(
        {
            "command": "start_game",
            "game": "tiny-race",
            "players": RED_BLUE,
            "options": {"target": target},
        }
    )


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "db" / "trackside.sqlite3"


@pytest.fixture
def store(db_path: Path) -> Iterator[EventStore]:
    s = EventStore(db_path)
    yield s
    s.close()


@pytest.fixture
def engine(store: EventStore) -> Engine:
    return Engine(store)
