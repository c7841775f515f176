"""Golden playthroughs (tests/games/golden) fed to a running Trackside as the table enters
them: a scan at the player's seat, or an action from the table page."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from companion.core import Observation, ObservationKind
from companion.core.choices import leaves
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


PLAYERS = [
    {"name": "Jana", "colour": "red", "seat": 1},
    {"name": "Petr", "colour": "blue", "seat": 2},
    {"name": "Kateřina", "colour": "green", "seat": 3},
]
"""Three players of a Ticket to Ride table (tests that start one on a running service)."""


def past_tickets(service: Trackside) -> None:
    """Ticket to Ride's setup (face-up cards, each player's first tickets: secret choices on
    their phones) entered as the tree offers it, until the first player's turn."""
    rng = random.Random(3)
    for _ in range(200):
        built = service.choices(None)
        assert built is not None
        _seq, _game, _gid, tree = built
        if any(c.key == "draw" for c in tree):
            return
        session = service.engine.session()
        assert session is not None
        active = session.game.status(session.state).active_players
        viewer = active[0] if active else None
        mine = service.choices(viewer)
        assert mine is not None
        options = [c for _p, c in leaves(mine[3]) if c.action is not None]
        keep = [c for c in options if c.action is not None and c.action.kind != "draw_tickets"]
        pick = rng.choice(keep or options)
        assert pick.action is not None
        payload: dict[str, Any] = {"action": pick.action.to_json(), "seq": mine[0]}
        assert submit(service, ObservationKind.ACTION, payload) == "applied"
    raise AssertionError("Ticket to Ride's setup did not reach the first turn")
