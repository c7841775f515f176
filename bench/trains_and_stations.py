"""Trains & Stations timings (run on demand: ``PYTHONPATH=. python bench/trains_and_stations.py``).

Measures scoring a 5-player contract snapshot (``trackside score``), one full turn of actions
(roll, resolve with a building, a delivery, end turn) and the public view the scoreboard sends.
"""

from __future__ import annotations

import timeit
from typing import Any

from companion.core import Action, PlayerSpec
from companion.games import find_game
from companion.games.trains_and_stations import public_json

GAME = find_game("trains-and-stations")
NAMES = ["Erik", "Sára", "Bohouš", "Karel", "Eva"]
SNAPSHOT: dict[str, Any] = {
    "game": "trains-and-stations",
    "format": 1,
    "players": [
        {
            "name": n,
            "vp": 20 + i,
            "task_points": 3 * i,
            "goods": {
                "workers": i % 3,
                "coal": 2,
                "silver": 1,
                "food": i % 2,
                "cattle": 1,
                "gold": i % 2,
            },
            "special_goods": [["cattle", "coal"]] if i == 2 else [],
        }
        for i, n in enumerate(NAMES)
    ],
}


def one_turn() -> Any:
    state = GAME.setup([PlayerSpec(n) for n in NAMES], {})
    for kind, player, args in (
        ("roll", 0, {"dice": ["train", "train", "ranch", "ranch", "ranch"]}),
        ("resolve", 0, {"build": [{"building": "ranch", "station": "Denver", "capacity": 3}]}),
        ("end_turn", 0, {}),
        ("roll", 1, {"dice": ["train", "train", "train", "coin", "coin"]}),
        ("resolve", 1, {"coins": 2}),
        (
            "deliver",
            1,
            {
                "cities": [{"name": "Denver", "bonus": "vp"}, {"name": "Omaha", "bonus": "die"}],
                "dice": [2, 3, 0, 0, 0],
            },
        ),
        ("end_turn", 1, {}),
    ):
        state = GAME.apply(state, Action(kind, player, args))
    return state


def main() -> None:
    state = one_turn()
    for label, fn, number in (
        ("score_snapshot (5 players, contract)", lambda: GAME.score_snapshot(SNAPSHOT), 2000),
        ("setup + 7 actions (two turns, a delivery)", one_turn, 500),
        ("public_json", lambda: public_json(state), 2000),
        ("from_json(to_json(state))", lambda: GAME.from_json(GAME.to_json(state)), 1000),
    ):
        best = min(timeit.repeat(fn, number=number, repeat=3)) / number
        print(f"{label:45s} {best * 1e6:9.1f} µs")


if __name__ == "__main__":
    main()
