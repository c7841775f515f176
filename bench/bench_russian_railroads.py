"""How long Trackside takes to score a 4-player Russian Railroads round (run on demand:
``PYTHONPATH=. python bench/bench_russian_railroads.py``; never part of the test suite).

Measures (1) ``score_snapshot`` of a contract snapshot with four late-game boards (what
``trackside score`` does after parsing the file), (2) the engine's round end — the last pass
of a round, which scores all four boards into the running score and prepares the next round,
and (3) one ordinary effect (a rail step) for comparison.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from companion.core import Action, PlayerSpec
from companion.games import find_game

GAME = find_game("russian-railroads")


def late_board(name: str, shift: int) -> dict[str, Any]:
    return {
        "name": name,
        "rails": {
            "trans_siberian": {
                "black": 15,
                "grey": 13 - shift,
                "brown": 11 - shift,
                "natural": 8 - shift,
                "white": 3,
            },
            "st_petersburg": {"black": 9, "grey": 8, "brown": 6, "natural": 2},
            "kiev": {"black": 9, "grey": 7 - shift, "brown": 3},
        },
        "locomotives": {"trans_siberian": [9, 6], "st_petersburg": [8], "kiev": [7]},
        "doublers": 6 - shift,
        "revaluation": shift % 2 == 0,
        "kiev_medal": True,
        "factories": 5,
        "industry": [14, 11],
    }


SNAPSHOT = {
    "game": "russian-railroads",
    "format": 1,
    "scoring": "round",
    "players": [late_board(n, i) for i, n in enumerate(("Red", "Blue", "Yellow", "Green"))],
}


def measure(label: str, fn: Callable[[], object], repeat: int = 2000) -> None:
    for _ in range(50):
        fn()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    samples.sort()
    print(
        f"{label}: median {statistics.median(samples) * 1e6:.0f} µs, "
        f"p95 {samples[int(len(samples) * 0.95)] * 1e6:.0f} µs (n={repeat})"
    )


def main() -> None:
    measure("score_snapshot, 4 late-game boards (round)", lambda: GAME.score_snapshot(SNAPSHOT))
    final = {**SNAPSHOT, "scoring": "final"}
    final["players"] = [
        {**p, "engineers": [i + 1, i + 5], "bonus_cards": [], "extra_workers": 2, "tokens_used": 3}
        for i, p in enumerate(SNAPSHOT["players"])  # type: ignore[arg-type]
    ]
    measure("score_snapshot, 4 late-game boards (final)", lambda: GAME.score_snapshot(final))
    state = GAME.setup(
        [PlayerSpec(n) for n in ("Red", "Blue", "Yellow", "Green")], {"starting_bonus": False}
    )
    parsed = GAME.from_json({**GAME.to_json(state)})
    boards = []
    for i, board in enumerate(parsed.players):
        late = late_board(board.name, i)
        boards.append(
            replace(
                board,
                rails=tuple(
                    tuple(
                        late["rails"][t].get(c, 0)
                        for c in ("black", "grey", "brown", "natural", "white")
                    )
                    for t in ("trans_siberian", "st_petersburg", "kiev")
                ),
                colours=frozenset({"black", "grey", "brown", "natural", "white"}),
                fired=frozenset(
                    {
                        "rails:2",
                        "rails:6",
                        "rails:10",
                        "rails:15",
                        "terminus:kiev",
                        "terminus:st_petersburg",
                        "terminus:trans_siberian",
                        "worker:kiev7",
                        "worker:ts3",
                    }
                ),
                token_spaces=("trans_siberian:13", "st_petersburg:4", "st_petersburg:6"),
            )
        )
    state = replace(state, players=tuple(boards), passed=frozenset({0, 1, 2}), current=3)
    last_pass = Action("pass", 3)
    measure(
        "engine round end (last pass: score 4 boards, next round)",
        lambda: GAME.apply(state, last_pass),
    )
    fresh = GAME.setup(
        [PlayerSpec(n) for n in ("Red", "Blue", "Yellow", "Green")], {"starting_bonus": False}
    )
    take = Action("take_space", 0, {"space": "black_3", "workers": 2})
    measure("take an action space (3 black steps, 2 workers)", lambda: GAME.apply(fresh, take))
    taken = GAME.apply(fresh, take)
    step = Action("build", 0, {"moves": [{"track": "kiev", "colour": "black", "steps": 3}]})
    measure("its effect (3 black steps)", lambda: GAME.apply(taken, step))
    measure("the choices tree's top level (first turn)", lambda: GAME.choices(fresh), 200)
    measure("the ways to spend 3 black steps", lambda: GAME.choices(taken), 200)
    playouts()


def playouts(count: int = 20) -> None:
    """Random playouts through the choices tree (what the conformance test does 200 times)."""
    import random

    from companion.core.choices import random_leaf

    times, entries = [], 0
    for seed in range(count):
        rng = random.Random(seed)
        state = GAME.setup([PlayerSpec(n) for n in ("A", "B", "C", "D")], {})
        start = time.perf_counter()
        while not GAME.is_over(state):
            picked = random_leaf(GAME.choices(state), rng)
            assert picked is not None and picked[1].action is not None
            state = GAME.apply(state, picked[1].action)
            entries += 1
        times.append(time.perf_counter() - start)
    print(
        f"{'random 4-player playout through the tree':58s} median {statistics.median(times):.3f} s"
        f", {entries / count:.0f} entries a game ({count} games)"
    )


if __name__ == "__main__":
    main()
