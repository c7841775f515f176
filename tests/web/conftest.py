"""A running Trackside (engine thread, web server on a free port, virtual seat readers) over a
real SQLite file: what the pages and the browser tests talk to."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.service.config import parse_settings
from companion.service.runtime import Trackside

PIN = "471108"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Trackside]:
    settings = parse_settings(
        {
            "web": {"host": "127.0.0.1", "port": 0, "pin": PIN},
            "readers": [
                {"name": "red-seat", "protocol": "virtual", "seat": 1},
                {"name": "blue-seat", "protocol": "virtual", "seat": 2},
            ],
        },
        data_dir=tmp_path,
    )
    svc = Trackside(settings)
    svc.store.enrol("04D1E5000002", "tiny-race", "die-2")
    svc.start()
    yield svc
    svc.stop()


def start_payload() -> dict[str, object]:
    return {
        "kind": "command",
        "payload": {
            "command": "start_game",
            "game": "tiny-race",
            "players": [
                {"name": "Red", "colour": "red", "seat": 1},
                {"name": "Blue", "colour": "blue", "seat": 2},
            ],
        },
    }
