"""Write the demo's recorded game night from the games' golden playthroughs.

    .venv/bin/python scripts/make_demo_recording.py

Each golden playthrough (tests/games/golden/<game>.json, checked by hand) becomes what a real
table would have produced: the table page starting the game, a seat reader's tag_present and
tag_removed for each component scan (the tags pre-enrolled, as a box is after "tap to enrol"),
and the phone's action entries for what no reader can see, at a table's pace (seeded, so the
file is reproducible). Refused moves stay in: people make mistakes, and the demo shows them.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

from companion.games import find_game

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "games" / "golden"
OUT = ROOT / "companion" / "service" / "recordings"
NIGHT = ("russian-railroads", "ticket-to-ride-europe")


def uid_for(game: str, component: str) -> str:
    """A stable 10-hex-digit uid, like the 125 kHz cards the seat readers read."""
    return hashlib.sha1(f"{game}/{component}".encode()).hexdigest()[:10].upper()


def seat_reader(player: dict[str, Any]) -> str:
    return f"{player.get('colour') or 'seat'}-seat"


def game_lines(name: str, rng: random.Random, t: float) -> tuple[list[dict[str, Any]], float]:
    golden = json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))
    players = golden["players"]
    lines: list[dict[str, Any]] = []

    def add(dt: float, observation: dict[str, Any]) -> None:
        nonlocal t
        t += dt
        lines.append({"at_s": round(t, 2), "observation": observation})

    add(
        5.0,
        {
            "source": "table-page",
            "kind": "command",
            "payload": {
                "command": "start_game",
                "game": name,
                "players": players,
                "options": golden.get("options", {}),
            },
        },
    )
    for step in golden["steps"]:
        if "scan" in step:
            scan = step["scan"]
            uid = uid_for(name, scan["component"])
            if scan.get("player") is None:  # e.g. a card turned face up: the table's own reader
                reader: dict[str, Any] = {"source": "table-reader", "seat": None}
            else:
                player = players[scan["player"]]
                reader = {"source": seat_reader(player), "seat": player.get("seat")}
            add(rng.uniform(15, 45), {**reader, "kind": "tag_present", "payload": {"uid": uid}})
            add(rng.uniform(0.8, 2.0), {**reader, "kind": "tag_removed", "payload": {"uid": uid}})
        else:
            action = step["action"]
            who = action.get("player")
            seat = players[who].get("seat") if who is not None else None
            quick = action["kind"] in ("pass", "draw_card", "draw_cards")
            add(
                rng.uniform(6, 15) if quick else rng.uniform(20, 60),
                {
                    "source": "table-page",
                    "kind": "action",
                    "seat": seat,
                    "payload": {"action": action},
                },
            )
    add(30.0, {"source": "table-page", "kind": "command", "payload": {"command": "end_game"}})
    return lines, t + 120.0  # a break before the next game


def main() -> None:
    rng = random.Random(2026)
    enrol = []
    body: list[dict[str, Any]] = []
    t = 0.0
    played = []
    for name in NIGHT:
        if not (GOLDEN / f"{name}.json").is_file():
            continue
        game = find_game(name)
        enrol += [
            {"uid": uid_for(name, c.id), "game": name, "component": c.id} for c in game.components
        ]
        lines, t = game_lines(name, rng, t)
        body += lines
        played.append(game.title)
    header = {
        "format": "trackside-recording",
        "version": 1,
        "title": "Game night: " + ", then ".join(played),
        "note": "made by scripts/make_demo_recording.py from the golden playthroughs",
        "enrol": enrol,
    }
    out = OUT / "game-night.jsonl"
    out.write_text(
        "\n".join(json.dumps(x, ensure_ascii=False) for x in [header, *body]) + "\n",
        encoding="utf-8",
    )
    print(
        f"{out}: {len(body)} inputs over {t / 60:.0f} minutes of table time, {len(enrol)} tags enrolled"
    )


if __name__ == "__main__":
    main()
