"""Write the demo's recorded game night from the games' golden playthroughs.

    .venv/bin/python scripts/make_demo_recording.py

Each golden playthrough (tests/games/golden/<game>.json, checked by hand) becomes what a real
table would have produced: the table page starting the game, a seat reader's raw RDM6300 bytes
for each component scan (the frame repeated while the card lies on the reader, now and then
split across two USB reads, as a USB-serial adapter delivers it; the replay runs them through
the real frame parser and presence model, so the tag_present / tag_removed come from there; the
tags pre-enrolled, as a box is after "tap to enrol"), and the phone's action entries for what
no reader can see, at a table's pace (seeded, so the file is reproducible). Refused moves stay
in: people make mistakes, and the demo shows them.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

from companion.games import find_game
from firmware_bridge.frames import encode_rdm6300

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "games" / "golden"
OUT = ROOT / "companion" / "service" / "recordings"
# A game whose golden playthrough is not a whole game has a whole one here (same format), e.g.
# Ticket to Ride from scripts/make_ttr_night.py.
SOURCES = OUT / "sources"


def source_for(name: str) -> Path:
    """The playthrough the night plays for ``name``: a complete one from sources/ if there is
    one, else the golden playthrough."""
    whole = SOURCES / f"{name}.json"
    return whole if whole.is_file() else GOLDEN / f"{name}.json"


NIGHT = ("russian-railroads", "ticket-to-ride-europe")


def uid_for(game: str, component: str) -> str:
    """A stable 10-hex-digit uid, like the 125 kHz cards the seat readers read."""
    return hashlib.sha1(f"{game}/{component}".encode()).hexdigest()[:10].upper()


def seat_reader(player: dict[str, Any]) -> str:
    return f"{player.get('colour') or 'seat'}-seat"


def card_on_reader(source: str, uid: str, rng: random.Random) -> list[tuple[float, dict[str, Any]]]:
    """The raw lines of one card laid on a reader: (delay, raw) pairs. An RDM6300 repeats its
    frame about every 0.1 s while the card is in the field; the USB adapter sometimes hands
    a frame over in two reads."""
    frame = encode_rdm6300(uid)
    out: list[tuple[float, dict[str, Any]]] = []
    for n in range(rng.randint(3, 8)):
        delay = 0.0 if n == 0 else rng.uniform(0.08, 0.12)
        if rng.random() < 0.2:
            cut = rng.randint(1, len(frame) - 1)
            out.append((delay, {"source": source, "hex": frame[:cut].hex()}))
            out.append((0.004, {"source": source, "hex": frame[cut:].hex()}))
        else:
            out.append((delay, {"source": source, "hex": frame.hex()}))
    return out


def game_lines(
    name: str, rng: random.Random, t: float, readers: dict[str, int | None]
) -> tuple[list[dict[str, Any]], float]:
    golden = json.loads(source_for(name).read_text(encoding="utf-8"))
    players = golden["players"]
    lines: list[dict[str, Any]] = []

    def add(dt: float, observation: dict[str, Any]) -> None:
        nonlocal t
        t += dt
        lines.append({"at_s": round(t, 3), "observation": observation})

    def add_raw(dt: float, raw: dict[str, Any]) -> None:
        nonlocal t
        t += dt
        lines.append({"at_s": round(t, 3), "raw": raw})

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
                source, seat = "table-reader", None
            else:
                player = players[scan["player"]]
                source, seat = seat_reader(player), player.get("seat")
            if readers.setdefault(source, seat) != seat:
                raise SystemExit(f"{source} sits at seat {readers[source]} and {seat}")
            pause = rng.uniform(2, 5) if source == "table-reader" else rng.uniform(15, 45)
            for n, (delay, raw) in enumerate(card_on_reader(source, uid, rng)):
                add_raw(pause if n == 0 else delay, raw)
        else:
            action = step["action"]
            who = action.get("player")
            seat = players[who].get("seat") if who is not None else None
            quick = action["kind"] in (
                "pass",
                "draw_blind",
                "take_face_up",
                "reveal_tunnel",
                "done_tickets",
            )
            add(
                rng.uniform(6, 15) if quick else rng.uniform(20, 60),
                {
                    "source": "table-page",
                    "kind": "action",
                    "seat": seat,
                    "payload": {"action": action},
                },
            )
    # no end_game: the last move ends the game by its rules (the engine files it)
    return lines, t + 120.0  # a break before the next game


def main() -> None:
    rng = random.Random(2026)
    enrol = []
    body: list[dict[str, Any]] = []
    readers: dict[str, int | None] = {}
    t = 0.0
    played = []
    for name in NIGHT:
        if not source_for(name).is_file():
            continue
        game = find_game(name)
        enrol += [
            {"uid": uid_for(name, c.id), "game": name, "component": c.id} for c in game.components
        ]
        lines, t = game_lines(name, rng, t, readers)
        body += lines
        played.append(game.title)
    header = {
        "format": "trackside-recording",
        "version": 2,
        "title": "Game night: " + ", then ".join(played),
        "note": "made by scripts/make_demo_recording.py from the golden playthroughs",
        "readers": [
            {"source": source, "protocol": "rdm6300", "seat": seat}
            for source, seat in readers.items()
        ],
        "enrol": enrol,
    }
    out = OUT / "game-night.jsonl"
    out.write_text(
        "\n".join(json.dumps(x, ensure_ascii=False) for x in [header, *body]) + "\n",
        encoding="utf-8",
    )
    raw = sum(1 for line in body if "raw" in line)
    print(
        f"{out}: {len(body)} lines ({raw} of raw RDM6300 bytes from {len(readers)} readers) over "
        f"{t / 60:.0f} minutes of table time, {len(enrol)} tags enrolled"
    )


if __name__ == "__main__":
    main()
