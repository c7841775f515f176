"""Mini Express speed, run on demand: ``PYTHONPATH=. python bench/mini_express_bench.py``.

Measures the final scoring of a 5-player contract snapshot, one full apply of a build and of a
take-share, and the snapshot round trip. Not part of the test suite (no timing is asserted).
"""

from __future__ import annotations

import json
import timeit
from dataclasses import replace
from typing import Any

from companion.core import Action, PlayerSpec
from companion.games import find_game

GAME = find_game("mini-express")
COMPANIES = ("leather", "lumber", "steel", "cotton")
# FICTIONAL figures for timing only (the printed table is not public)
TABLE = {str(n): {"1st": n + 3, "2nd": n + 2, "other": n + 1} for n in range(16)}
TABLE.update({"12": {"1st": 15, "2nd": 14, "other": 4}, "5": {"1st": 8, "2nd": 7, "other": 2}})
TABLE.update({"7": {"1st": 10, "2nd": 5, "other": 8}, "9": {"1st": 8, "2nd": 11, "other": 10}})


def snapshot() -> dict[str, Any]:
    return {
        "game": "mini-express",
        "format": 1,
        "variant": "standard",
        "share_values": TABLE,
        "companies": {c: {"track_length": 3 * i + 2} for i, c in enumerate(COMPANIES)},
        "players": [
            {
                "name": f"P{i}",
                "seat_from_start": i,
                "shares": {c: (i + j) % 3 for j, c in enumerate(COMPANIES)},
                "influence": {c: (i * 3 + j) % 7 for j, c in enumerate(COMPANIES)},
            }
            for i in range(5)
        ],
    }


def playing() -> Any:
    """A 5-player game right after the draft (each seat's pair picked in snake order)."""
    state = GAME.setup([PlayerSpec(f"P{i}") for i in range(5)], {})
    picks = {
        0: ["lumber", "steel"],
        1: ["leather", "cotton"],
        2: ["lumber", "leather"],
        3: ["steel", "cotton"],
        4: ["lumber", "cotton"],
    }
    for seat in [0, 1, 2, 3, 4, 4, 3, 2, 1, 0]:
        state = GAME.apply(state, Action("draft_share", seat, {"company": picks[seat].pop(0)}))
    return state


def report(name: str, stmt: Any, number: int) -> None:
    best = min(timeit.repeat(stmt, number=number, repeat=5)) / number
    print(f"{name:<40} {best * 1e6:9.1f} µs")


def main() -> None:
    data = snapshot()
    state = playing()
    build = Action(
        "build",
        0,
        {
            "company": "steel",
            "trains": 3,
            "landscape": 2,
            "compensated": {"lumber": 1},
            "demand": ["steel", "wild"],
            "wild_company": "cotton",
            "city_full": True,
        },
    )
    share_state = state.with_company("cotton", replace(state.company("cotton"), trains_on_field=0))
    share = Action("take_share", 0, {"company": "cotton"})
    doc = json.dumps(GAME.to_json(state))
    report("score_snapshot (5 players, contract)", lambda: GAME.score_snapshot(data), 2000)
    report("apply build", lambda: GAME.apply(state, build), 2000)
    report("apply take_share", lambda: GAME.apply(share_state, share), 2000)
    report("score(state) running", lambda: GAME.score(state), 2000)
    report("to_json + from_json", lambda: GAME.from_json(json.loads(doc)), 2000)


if __name__ == "__main__":
    main()
