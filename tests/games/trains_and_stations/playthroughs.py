"""Whole-table action sequences for Trains & Stations, for tests that drive the engine, the
pages or the browser (each one also checked on its own by test_playthroughs.py).

``TO_SPECULATION``: three players (Ann, Ben, Cat; Ann the conductor) build six ranches at Denver
and Omaha (3 spaces each, built evenly: "Stavba budov — Úroveň") and deliver between them twice
("Krok 4: Doručení!"): the ten cattle run out during Cat's delivery, so Cat orders the short
payout (goods_order) and her end of turn upgrades the ranch to food, which opens a speculation
("Krok 5: Vyčerpání zboží a vylepšování"; "Spekulace při vylepšování").

At the speculation: Ann holds 4 cattle and 2 special cards; Ben 3 cattle and 3 special cards
(the Omaha majority bonus); Cat 3 cattle and 3 special cards.
"""

from __future__ import annotations

from typing import Any

PLAYERS: list[dict[str, Any]] = [
    {"name": "Ann", "colour": "blue", "seat": 1},
    {"name": "Ben", "colour": "red", "seat": 2},
    {"name": "Cat", "colour": "green", "seat": 3},
]
START: dict[str, Any] = {
    "command": "start_game",
    "game": "trains-and-stations",
    "players": PLAYERS,
}
RANCH_ROLL = ["ranch", "ranch", "ranch", "train", "train"]
DENVER_OMAHA = [{"name": "Denver", "bonus": "vp"}, {"name": "Omaha", "bonus": "special"}]


def _ranch_turn(
    player: int, station: str, capacity: int | None, deliver: dict[str, Any] | None = None
) -> list[tuple[str, int, dict[str, Any]]]:
    build: dict[str, Any] = {"building": "ranch", "station": station}
    if capacity is not None:
        build["capacity"] = capacity
    turn: list[tuple[str, int, dict[str, Any]]] = [
        ("roll", player, {"dice": RANCH_ROLL}),
        ("resolve", player, {"build": [build]}),
    ]
    if deliver is not None:
        turn.append(("deliver", player, deliver))
    turn.append(("end_turn", player, {}))
    return turn


TO_SPECULATION: list[tuple[str, int, dict[str, Any]]] = [
    *_ranch_turn(0, "Denver", 3),
    *_ranch_turn(1, "Omaha", 3),
    *_ranch_turn(2, "Denver", None),
    *_ranch_turn(0, "Omaha", None),
    # Ann 4, Ben 4, Cat 2 trains on Denver–Omaha: Ann and Ben tie, Ben (active) takes the
    # majority; five ranches pay five cattle
    *_ranch_turn(1, "Denver", None, {"cities": DENVER_OMAHA, "dice": [4, 4, 2], "majority": 1}),
    # six ranches, five cattle left: Cat orders the payout, Ben's last ranch pays 1 VP
    *_ranch_turn(
        2, "Omaha", None, {"cities": DENVER_OMAHA, "dice": [0, 0, 2], "goods_order": [2, 0, 1]}
    ),
]
"""From the start to the food speculation (everyone still to answer)."""

HOLDINGS_AT_SPECULATION = {
    "Ann": {"cattle": 4, "special_cards": 2},
    "Ben": {"cattle": 3, "special_cards": 3},
    "Cat": {"cattle": 3, "special_cards": 3},
}


def action_input(kind: str, player: int, args: dict[str, Any]) -> dict[str, Any]:
    """One step as the body of ``POST /api/input``."""
    return {"kind": "action", "payload": {"action": {"kind": kind, "player": player, "args": args}}}


SPECULATION_ANSWERS: list[tuple[str, int, dict[str, Any]]] = [
    ("report_special_goods", 1, {"cards": [["silver", "gold"]]}),
    ("speculate", 0, {"goods": {"cattle": 4}}),
    ("speculate", 1, {"goods": {"cattle": 2}, "special_goods": [["silver", "gold"]]}),
    ("speculate", 2, {}),
]
"""Ben reports a silver + gold special card; Ann trades 4 cattle, Ben 2 cattle and that card,
Cat nothing: 4 of the 10 food go out, the turn passes to Ann."""

TEN_CITIES = [{"name": f"City {i}", "bonus": "vp"} for i in range(10)]


def _train_turn(player: int) -> list[tuple[str, int, dict[str, Any]]]:
    dice = [0, 0, 0]
    dice[player] = 5
    return [
        ("roll", player, {"dice": ["train"] * 5}),
        ("resolve", player, {}),
        ("deliver", player, {"cities": TEN_CITIES, "dice": dice}),
        ("end_turn", player, {}),
    ]


TO_THE_END: list[tuple[str, int, dict[str, Any]]] = [
    *_train_turn(0),
    *_train_turn(1),
    *_train_turn(2),
]
"""After the answers: each player delivers five trains across ten cities (10 VP + the ten
cities' VP bonuses). Ben's delivery empties the VP supply; Cat plays the last turn and the game
ends before the conductor's (Ann's) next one ("Konec hry")."""
