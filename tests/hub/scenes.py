"""A club night in full swing for the page tests and screenshots: eight tables' public states
(the same JSON a table publishes on ``trackside/<table>/state``) and some finished games."""

from __future__ import annotations

import json
from typing import Any

from companion.hub.store import HubStore
from companion.hub.tables import Hub

NOW = 1_800_000_000.0

TABLES: list[tuple[str, str, int | None, list[tuple[str, str, int]], list[int], str, bool]] = [
    # table, game, round, players (name, colour, total), whose turn, waiting for, over
    (
        "stul-1",
        "russian-railroads",
        5,
        [
            ("Jana", "red", 142),
            ("Petr", "blue", 131),
            ("Lucía", "yellow", 118),
            ("Tomáš", "green", 97),
        ],
        [2],
        "Lucía's action",
        False,
    ),
    (
        "stul-2",
        "ticket-to-ride-europe",
        None,
        [
            ("Ana", "red", 64),
            ("Miguel", "blue", 71),
            ("Zuzana", "green", 58),
            ("Ondřej", "yellow", 49),
            ("Kike", "black", 66),
        ],
        [1],
        "Miguel's turn",
        False,
    ),
    (
        "stul-3",
        "mini-express",
        3,
        [("Eva", "red", 38), ("Marek", "blue", 44), ("Sofía", "yellow", 41)],
        [0],
        "Eva's turn",
        False,
    ),
    (
        "stul-4",
        "trains-and-stations",
        7,
        [("Karel", "red", 27), ("Lenka", "blue", 33)],
        [1],
        "Lenka's turn",
        False,
    ),
    (
        "stul-5",
        "russian-railroads",
        7,
        [("Veronika Dvořáková", "blue", 388), ("Juan Carlos", "red", 402), ("Pavol", "green", 356)],
        [],
        "",
        True,
    ),
    (
        "stul-6",
        "ticket-to-ride-europe",
        None,
        [("Hana", "green", 31), ("Diego", "red", 35)],
        [0],
        "Hana's turn",
        False,
    ),
    (
        "stul-7",
        "tiny-race",
        None,
        [("Red", "red", 6), ("Blue", "blue", 8)],
        [0],
        "Red's throw",
        False,
    ),
    (
        "stul-8",
        "mini-express",
        2,
        [("Igor", "yellow", 12), ("Marta", "red", 19), ("Nina", "blue", 15), ("Oto", "green", 9)],
        [3],
        "Oto's turn",
        False,
    ),
]
QUIET = "stul-6"


def state(
    *,
    game: str,
    rnd: int | None,
    players: list[tuple[str, str, int]],
    turn: list[int],
    waiting: str,
    over: bool,
    at: float,
) -> dict[str, Any]:
    ranked = sorted(players, key=lambda p: -p[2])
    return {
        "schema": 1,
        "game": game,
        "game_id": 3,
        "title": game,
        "seq": 57,
        "over": over,
        "players": [
            {"index": i, "name": n, "colour": c, "seat": i + 1, "total": t, "lines": []}
            for i, (n, c, t) in enumerate(players)
        ],
        "winners": [ranked[0][0]] if over else [],
        "status": {
            "round": rnd,
            "active_players": turn,
            "waiting_for": waiting or None,
            "phase": None,
            "devices": {},
        },
        "table": {},
        "updated_at": at,
    }


def club_night(store: HubStore, now: float = NOW) -> Hub:
    hub = Hub(store)
    for name, game, rnd, players, turn, waiting, over in TABLES:
        at = now - (900 if name == QUIET else 2)
        hub.handle(f"trackside/{name}/status", b"online", now=at)
        payload = json.dumps(
            state(game=game, rnd=rnd, players=players, turn=turn, waiting=waiting, over=over, at=at)
        ).encode()
        hub.handle(f"trackside/{name}/state", payload, now=at)
    results = [
        ("stul-1", 1, "russian-railroads", [("Jana", 401), ("Petr", 377), ("Lucía", 390)]),
        ("stul-2", 1, "ticket-to-ride-europe", [("Ana", 121), ("Miguel", 98), ("Zuzana", 110)]),
        ("stul-3", 1, "mini-express", [("Eva", 52), ("Marek", 61)]),
        ("stul-3", 2, "mini-express", [("eva ", 66), ("Sofía", 48)]),
        ("stul-4", 1, "trains-and-stations", [("Karel", 40), ("Lenka", 36)]),
    ]
    for i, (table, gid, game, scores) in enumerate(results):
        best = max(t for _, t in scores)
        store.add_result(
            table,
            "db-" + table,
            {
                "game_id": gid,
                "game": game,
                "started_at": now - 7200,
                "ended_at": now - 3600 + i * 60,
                "players": [{"name": n, "total": t} for n, t in scores],
                "winners": [n for n, t in scores if t == best],
            },
            now=now,
        )
    return hub
