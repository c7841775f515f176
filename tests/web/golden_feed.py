"""Golden playthroughs (tests/games/golden) fed to a running Trackside as the table enters
them: a scan at the player's seat, or an action from the table page."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from companion.core import Observation, ObservationKind
from companion.service.config import parse_settings
from companion.service.runtime import Trackside


def running_table(data_dir: Path) -> Iterator[Trackside]:
    """A started Trackside with the table PIN and no readers (a module fixture's body)."""
    settings = parse_settings(
        {"web": {"host": "127.0.0.1", "port": 0, "pin": "471108"}, "readers": []},
        data_dir=data_dir,
    )
    svc = Trackside(settings)
    svc.start()
    yield svc
    svc.stop()


def submit(service: Trackside, kind: ObservationKind, payload: dict[str, Any]) -> str:
    outcome = service.submit_and_wait(Observation("table-page", kind, payload), 10)  # type: ignore[arg-type]
    return str(outcome.get("outcome"))


def feed(service: Trackside, game: str, step: dict[str, Any]) -> None:
    """One golden step."""
    if "scan" in step:
        player = step["scan"].get("player")
        obs = Observation(
            "seat-reader",  # type: ignore[arg-type]
            ObservationKind.TAG_PRESENT,
            {"uid": f"TS:{game}:{step['scan']['component']}"},
            None if player is None else player + 1,  # type: ignore[arg-type]
        )
        service.submit_and_wait(obs, 10)
    else:
        submit(service, ObservationKind.ACTION, {"action": step["action"]})
