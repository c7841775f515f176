"""Writes tests/games/golden/russian-railroads.json: a complete 4-player game played on the
action board by the scripted seats of ``strategy.py`` (Red: Trans-Siberian rush, Blue:
industry, Yellow: Kiev and St. Petersburg, Green: engineers), every entry a leaf of the choices
tree; cards and tokens the table scans go in as scans. Two refusals show what the table may not
do. Run on demand: ``PYTHONPATH=. python tests/games/russian_railroads/make_golden.py``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from companion.core import Action, IllegalActionError, PlayerSpec
from companion.core.jsonvalue import thaw
from companion.games import find_game
from tests.games.russian_railroads.strategy import choose

PLAYERS = [
    {"name": "Red", "colour": "red", "seat": 1},
    {"name": "Blue", "colour": "blue", "seat": 2},
    {"name": "Yellow", "colour": "yellow", "seat": 3},
    {"name": "Green", "colour": "green", "seat": 4},
]
ENGINEER_ROW = [
    "two_any",
    "black_grey",
    "any_3points",
    "black_3points",
    "industry_two",
    "any_black",
    "two_black",
]
OPTIONS: dict[str, Any] = {"engineer_row": ENGINEER_ROW}
COMMENT = [
    "A whole 4-player game (7 rounds) on the action board: every turn one action space, paid",
    "with the player's own workers, temporary workers and coins, its action spent in full.",
    "Seats (tests/games/russian_railroads/strategy.py): Red rushes the Trans-Siberian, Blue",
    "builds industry, Yellow builds Kiev and St. Petersburg, Green hires engineers.",
    "Unverified figures in use (the sheet says so): pass points 0/2/3/4, industry values",
    "1,2,3,5 | f1 | 10 | f2 | 15 …; the factory functions are what the table said.",
    "Regenerate: PYTHONPATH=. python tests/games/russian_railroads/make_golden.py",
]
SCANNED = {
    "starting_bonus": "start:{card}",
    "bonus_card": "bonus:{card}",
    "use_token": "token:{token}",
}


def as_step(game: Any, state: Any, action: Action) -> dict[str, Any]:
    """A scan when the table would scan that card or token (and it reads back the same)."""
    template = SCANNED.get(action.kind)
    args = thaw(action.args)
    if (
        template is not None
        and isinstance(args, dict)
        and set(args) == {template[template.index("{") + 1 : -1]}
    ):
        component = template.format(**args)
        try:
            if game.interpret(state, action.player, component) == action:
                return {"scan": {"player": action.player, "component": component}}
        except IllegalActionError:
            pass
    return {"action": action.to_json()}


def main() -> None:
    game = find_game("russian-railroads")
    state = game.setup([PlayerSpec(p["name"], p["colour"], p["seat"]) for p in PLAYERS], OPTIONS)
    out: list[dict[str, Any]] = [
        # the draft comes first; then a bare effect is not a turn
        {"action": {"kind": "take_space", "player": 0, "args": {"space": "black_3", "workers": 2}},
         "refused": "decision owed"},
    ]  # fmt: skip
    refused_bare = refused_taken = False
    while not game.is_over(state):
        action = choose(state)
        if action.kind == "take_space" and not state.pending and state.phase == "play":
            if not refused_bare:
                bare = Action("build", action.player, {"moves": [
                    {"track": "trans_siberian", "colour": "black", "steps": 3}]})  # fmt: skip
                try:
                    game.apply(state, bare)
                except IllegalActionError:
                    out.append({"action": bare.to_json(), "refused": "without an action space"})
                    refused_bare = True
            elif not refused_taken and state.occupied and state.round == 2:
                taken = Action(
                    "take_space", action.player, {"space": state.occupied[0], "workers": 1}
                )
                try:
                    game.apply(state, taken)
                except IllegalActionError as exc:
                    if "taken this round" in str(exc):
                        out.append({"action": taken.to_json(), "refused": "taken this round"})
                        refused_taken = True
        step = as_step(game, state, action)
        state = game.apply(state, action)
        out.append({**step, "totals": list(game.score(state).totals)})
    sheet = game.score(state)
    data = {
        "game": "russian-railroads",
        "comment": COMMENT,
        "players": PLAYERS,
        "options": OPTIONS,
        "steps": ["@"],
        "final": {"over": True, "winners": list(sheet.winners), "totals": list(sheet.totals)},
    }
    path = Path(__file__).parents[1] / "golden" / "russian-railroads.json"
    lines = ",\n    ".join(json.dumps(s, ensure_ascii=False) for s in out)
    text = json.dumps(data, ensure_ascii=False, indent=2)
    text = text.replace('[\n    "@"\n  ]', "[\n    " + lines + "\n  ]")
    path.write_text(text + "\n", encoding="utf-8")
    print("wrote", path, len(out), "steps", sheet.totals, sheet.winners)


if __name__ == "__main__":
    main()
