"""Writes tests/games/golden/russian-railroads.json from the scripted 4-player game below, and
checks the totals after every round against the hand-computed ones (run on demand:
``PYTHONPATH=. python tests/games/russian_railroads/make_golden.py``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from companion.core import Action, IllegalActionError, PlayerSpec
from companion.games import find_game

TS, SP, KV = "trans_siberian", "st_petersburg", "kiev"
R, B, Y, G = 0, 1, 2, 3

COMMENT = [
    "A whole 4-player game (7 rounds), every round score checked by hand.",
    "Unverified figures in use (the sheet says so): pass points 0/2/3/4 by turn order position,",
    "industry values 1,2,3,5 | f1 | 10 | f2 | 15 …; owner-set: engineer 'two_black' is number 13.",
    "Draft 4th→2nd: Green coin, Yellow industry step (→1), Blue doubler (1).",
    "R1 (R B Y G) Red TS black 3 (→4, grey), grey 2; Blue loco 2→Kiev; Yellow industry →2; Green Kiev black 2 (→3), loco 2→SP.",
    "  score: Red TS reach 1 grey =1 | Blue Kiev reach 2, black 1: star 1 =1, pass 2 | Yellow industry 2, pass 3 | Green 0, pass 4 → [1,3,5,4]",
    "R2 Red loco 2→TS (2,1) reach 3, hires 5; Blue Kiev black 2 (→3); Yellow factory (level 2) + industry 2 (→4); Green turn order space 1, after the round moves: industry 1.",
    "  score: Red grey 1–2 =2 | Blue stars 1+2 =3, pass 2 | Yellow industry 4 =5, pass 3 | Green industry 1 =1, pass 4 → [3,8,13,9]; new order G R B Y",
    "R3 Green TS black 1; Red TS black 2 (→6, brown), grey 2 (→4); Blue doubler; Yellow industry →5 = factory 1 (level 2 says: coin).",
    "  score: Green industry 1 | Red grey 1–3 =3, pass 2 | Blue 3, pass 3 | Yellow factory space =5, pass 4 → [8,14,22,10]",
    "R4 Green loco 3→Kiev; Red TS brown 3 (brown + loco at 3: a worker); Blue loco 3→SP; Yellow factory (level 3), industry 2 (→7 = factory 2, level 3 says: two doublers).",
    "  score: Green stars 1+2+3 =6 + industry 1 | Red brown 1–3 =6, pass 2 | Blue 3, pass 3 | Yellow 10, pass 4 → [16,20,36,17]",
    "R5 Green Kiev black 4 (→7: a worker); Red loco 3 replaces TS 1, the 1 goes to Kiev; Blue hires 13 (scan); Red TS grey 1 (→5).",
    "  score: Green 6+1 | Red brown 1–3 6 + grey 4–5 2 + Kiev star 1 =9, pass 2 | Blue 3, pass 3 | Yellow 10, pass 4 → [27,26,50,24]",
    "R6 Green 2 doublers; Red TS black 3 (→9); Blue loco 4→TS (4,1); Yellow industry →8.",
    "  score: Green 7 | Red 9, pass 2 | Blue TS black only 0 + 3, pass 3 | Yellow 15, pass 4 → [38,32,69,31]",
    "R7 (last: turn order refused) Green industry 3 (→4); Red hires 9.",
    "  score: Green 6+5 | Red 9+2 | Blue 3+3 | Yellow 15+4 → [49,38,88,42]",
    "Final: no bonus cards; engineers Red 2 (5, 9) → 40, Blue 1 (13) → 20 → [89,58,88,42], Red wins.",
]

ROUND_TOTALS = {
    1: [1, 3, 5, 4],
    2: [3, 8, 13, 9],
    3: [8, 14, 22, 10],
    4: [16, 20, 36, 17],
    5: [27, 26, 50, 24],
    6: [38, 32, 69, 31],
    7: [89, 58, 88, 42],
}


def a(kind: str, player: int, **args: Any) -> dict[str, Any]:
    action: dict[str, Any] = {"kind": kind, "player": player}
    if args:
        action["args"] = args
    return {"action": action}


def build(player: int, track: str, colour: str, steps: int) -> dict[str, Any]:
    return a("build", player, moves=[{"track": track, "colour": colour, "steps": steps}])


def scan(player: int, component: str) -> dict[str, Any]:
    return {"scan": {"player": player, "component": component}}


def refuse(step: dict[str, Any], match: str) -> dict[str, Any]:
    return {**step, "refused": match}


def passes(*players: int) -> list[dict[str, Any]]:
    return [a("pass", p) for p in players]


STEPS: list[dict[str, Any]] = [
    refuse(build(R, KV, "black", 1), "decision owed"),
    scan(G, "start:coin"),
    a("starting_bonus", Y, card="industry_step"),
    scan(B, "start:doubler"),
    # round 1: R B Y G
    build(R, TS, "black", 3),
    a("take_locomotive", B, placements=[{"track": KV}]),
    a("industry", Y, steps=1),
    refuse(build(G, KV, "white", 1), "Kiev allows black, grey, brown only"),
    build(G, KV, "black", 2),
    refuse(build(R, TS, "grey", 4), "never reaches or passes"),
    build(R, TS, "grey", 2),
    *passes(B, Y),
    a("take_locomotive", G, placements=[{"track": SP}]),
    *passes(R, G),
    # round 2: R B Y G
    a("take_locomotive", R, placements=[{"track": TS}]),
    build(B, KV, "black", 2),
    a("build_factory", Y),
    a("turn_order", G, space=1),
    a("hire_engineer", R, number=5),
    refuse(a("hire_engineer", B, number=2), "already hired"),
    a("pass", B),
    a("industry", Y, steps=2),
    *passes(G, R, Y),
    refuse(a("industry", R, steps=1), "waiting for Green"),
    a("industry", G, steps=1),
    a("pass", G),
    # round 3: G R B Y
    build(G, TS, "black", 1),
    build(R, TS, "black", 2),
    a("doublers", B, count=1),
    a("industry", Y, steps=1),
    refuse(a("factory_function", Y, function="spaceship"), "function"),
    a("factory_function", Y, function="coin"),
    a("pass", G),
    build(R, TS, "grey", 2),
    *passes(B, Y, R),
    # round 4: G R B Y
    a("take_locomotive", G, placements=[{"track": KV}]),
    build(R, TS, "brown", 3),
    a("take_locomotive", B, placements=[{"track": SP}]),
    a("build_factory", Y),
    *passes(G, R, B),
    a("industry", Y, steps=2),
    a("factory_function", Y, function="two_doublers"),
    a("pass", Y),
    # round 5: G R B Y
    build(G, KV, "black", 4),
    refuse(
        a("take_locomotive", R, placements=[{"track": TS, "replace": 1}, {"factory": True}]),
        "must take the free space",
    ),
    a("take_locomotive", R, placements=[{"track": TS, "replace": 1}, {"track": KV}]),
    scan(B, "engineer:two_black"),
    a("pass", Y),
    a("pass", G),
    build(R, TS, "grey", 1),
    *passes(B, R),
    # round 6: G R B Y
    a("doublers", G, count=2),
    build(R, TS, "black", 3),
    a("take_locomotive", B, placements=[{"track": TS}]),
    a("industry", Y, steps=1),
    *passes(G, R, B, Y),
    # round 7 (last): G R B Y
    refuse(a("turn_order", G, space=1), "last round"),
    a("industry", G, steps=3),
    a("hire_engineer", R, number=9),
    *passes(B, Y, G, R),
    refuse(a("pass", R), "game is over"),
]


def main() -> None:
    game = find_game("russian-railroads")
    players = [
        {"name": "Red", "colour": "red", "seat": 1},
        {"name": "Blue", "colour": "blue", "seat": 2},
        {"name": "Yellow", "colour": "yellow", "seat": 3},
        {"name": "Green", "colour": "green", "seat": 4},
    ]
    options = {"board": {"engineer_number_two_black": 13}}
    state = game.setup([PlayerSpec(p["name"], p["colour"], p["seat"]) for p in players], options)
    out = []
    for n, step in enumerate(STEPS):
        if "scan" in step:
            result = game.interpret(state, step["scan"]["player"], step["scan"]["component"])
            assert isinstance(result, Action), (n, result)
            action = result
        else:
            action = Action.from_json(step["action"])
        if "refused" in step:
            try:
                game.apply(state, action)
            except IllegalActionError as exc:
                assert step["refused"] in str(exc), (n, str(exc))
            else:
                raise AssertionError(f"step {n} was not refused")
            out.append(step)
            continue
        before = state.round
        state = game.apply(state, action)
        totals = list(game.score(state).totals)
        if state.round != before or game.is_over(state):
            assert totals == ROUND_TOTALS[before], (before, totals, ROUND_TOTALS[before])
        out.append({**step, "totals": totals})
    assert game.is_over(state)
    sheet = game.score(state)
    data = {
        "game": "russian-railroads",
        "comment": COMMENT,
        "players": players,
        "options": options,
        "steps": out,
        "final": {"over": True, "winners": list(sheet.winners), "totals": list(sheet.totals)},
    }
    path = Path(__file__).parents[1] / "golden" / "russian-railroads.json"
    lines = ",\n    ".join(json.dumps(s, ensure_ascii=False) for s in out)
    text = json.dumps({**data, "steps": ["@"]}, ensure_ascii=False, indent=2)
    text = text.replace('[\n    "@"\n  ]', "[\n    " + lines + "\n  ]")
    path.write_text(text + "\n", encoding="utf-8")
    print("wrote", path, sheet.totals, sheet.winners)


if __name__ == "__main__":
    main()
