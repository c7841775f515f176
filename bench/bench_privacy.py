"""What the engine's privacy rule costs per input (run on demand:
``PYTHONPATH=. .venv/bin/python bench/bench_privacy.py``; never part of the test suite).

Measures, on a real SQLite file, the engine's whole handling of (1) an ordinary public action,
(2) a private one (a Ticket to Ride ticket kept: routed, its full message kept for the player),
and (3) a correction refused because a later private entry would no longer hold (Trains &
Stations at its food speculation: the engine re-folds the actions after the corrected one to
find which failed and whose it is) — the only case with extra work.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from companion.core import Observation, ObservationKind
from companion.service.engine import Engine
from companion.service.store import EventStore
from tests.games.trains_and_stations.playthroughs import START, TO_SPECULATION

ROUNDS = 200


def obs(payload: dict[str, Any], kind: ObservationKind = ObservationKind.ACTION) -> Observation:
    return Observation("bench", kind, payload)


def act(kind: str, player: int | None, **args: Any) -> Observation:
    action: dict[str, Any] = {"kind": kind, "args": args}
    if player is not None:
        action["player"] = player
    return obs({"action": action})


def timed(engine: Engine, make: Any, undo: bool) -> list[float]:
    times = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        outcome = engine.handle(make())
        times.append((time.perf_counter() - start) * 1000)
        if undo and outcome.outcome == "applied":
            engine.handle(obs({"command": "undo"}, ObservationKind.COMMAND))
    return times


def report(what: str, times: list[float]) -> None:
    times.sort()
    print(
        f"{what}: median {statistics.median(times):.2f} ms, "
        f"p95 {times[int(len(times) * 0.95)]:.2f} ms ({len(times)} inputs)"
    )


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        engine = Engine(EventStore(Path(tmp) / "bench.sqlite3"))
        players = [{"name": "Jana", "seat": 1}, {"name": "Petr", "seat": 2}]
        start = {"command": "start_game", "game": "ticket-to-ride-europe", "players": players}
        engine.handle(obs(start, ObservationKind.COMMAND))
        cards = ["red", "blue", "green", "yellow", "white"]
        engine.handle(act("reveal_face_up", None, cards=cards))
        report(
            "TTR keep_ticket (private, undone after each)",
            timed(engine, lambda: act("keep_ticket", 0, ticket="berlin-roma"), undo=True),
        )
        report(
            "TTR done_tickets refused (public)",
            timed(engine, lambda: act("done_tickets", 0), undo=False),
        )
        engine.handle(obs({"command": "end_game", "reason": "abandoned"}, ObservationKind.COMMAND))

        engine.handle(obs(START, ObservationKind.COMMAND))
        for kind, player, args in TO_SPECULATION:
            engine.handle(act(kind, player, **args))
        engine.handle(
            Observation(
                "private:Ann",
                ObservationKind.ACTION,
                {"action": {"kind": "speculate", "player": 0, "args": {"goods": {"cattle": 4}}}},
            )
        )
        payout = {
            "cities": [{"name": "Denver", "bonus": "vp"}, {"name": "Omaha", "bonus": "special"}],
            "dice": [0, 0, 2],
            "goods_order": [2, 1, 0],
        }
        wrong = {
            "command": "correct",
            "target_seq": 20,
            "action": {"kind": "deliver", "player": 2, "args": payout},
        }
        report(
            "T&S correction refused by a later private entry (re-fold)",
            timed(engine, lambda: obs(wrong, ObservationKind.COMMAND), undo=False),
        )


if __name__ == "__main__":
    main()
