"""The scoreboard's standings and sheet (``web.scoreboard``) rank every player the game scores,
as its public view gives them: a solo Mini Express game scores the Mašinfíra, who holds no
seat, and a solo player wants to see whether they beat it (Závěrečné bodování sólové hry:
"V případě remízy vyhrává Mašinfíra")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from flask import Flask

from companion.core import Action, PlayerSpec
from companion.games import find_game
from companion.service.catalogue import CATALOGUE
from web import games as web_games
from web.scoreboard import player_name, sheet_rows, standings

GOLDEN = Path(__file__).resolve().parents[2] / "tests" / "games" / "golden"


def solo_snapshot() -> tuple[dict[str, Any], Any]:
    """The golden solo game (Turista) at its end, as the engine publishes it: the seats in
    ``players`` (the player alone), the game's public view in ``view``."""
    record = json.loads((GOLDEN / "mini-express.json").read_text(encoding="utf-8"))
    game = find_game("mini-express")
    specs = [PlayerSpec(p["name"], p.get("colour", ""), p.get("seat")) for p in record["players"]]
    state = game.setup(specs, record["options"])
    for step in record["steps"]:
        if "refused" in step:
            continue
        if "scan" in step:
            action = game.interpret(state, step["scan"].get("player"), step["scan"]["component"])
            assert isinstance(action, Action), step
        else:
            action = Action.from_json(step["action"])
        state = game.apply(state, action)
    view = game.public_view(state)
    sheet = game.score(state)
    seats = [
        {"index": i, "name": s.name, "colour": s.colour, "seat": s.seat, "total": p.total}
        for i, (s, p) in enumerate(zip(specs, sheet.players, strict=False))
    ]
    snapshot = {"game": "mini-express", "players": seats, "view": view.to_json(), "status": {}}
    return snapshot, view


def test_the_solo_automa_is_ranked_with_its_total_counts_and_sheet_column() -> None:
    snapshot, view = solo_snapshot()
    assert len(snapshot["players"]) == 1 and len(view.players) == 2  # the Mašinfíra: no seat
    ranked = standings(snapshot)
    assert sorted(s.index for s in ranked) == [0, 1]
    for shown in ranked:
        p = view.players[shown.index]
        assert (shown.name, shown.total, shown.stats) == (p.name, p.total, p.counts)
        assert shown.winner == (p.name in view.winners)
        assert shown.rank == 1 + sum(q.total > p.total for q in view.players)
    automa = next(s for s in ranked if s.index == 1)
    assert automa.seat is None and automa.colour == ""
    assert sum(line.points for line in automa.lines) == automa.total
    rows = sheet_rows(snapshot, ranked)
    for column, shown in enumerate(ranked):
        assert sum(r.cells[column] or 0 for r in rows) == shown.total


def test_the_automa_is_named_as_the_rulebook_names_it() -> None:
    """On a screen the notation's "automa" reads as the Czech rulebook's Mašinfíra ("SÓLOVÁ
    HRA"), in the standings, the sheet's columns and the winners' line."""
    snapshot, view = solo_snapshot()
    app = Flask(__name__)
    app.extensions[web_games.KEY] = CATALOGUE
    with app.test_request_context("/"):
        ranked = standings(snapshot)
        names = {s.index: s.name for s in ranked}
        assert names[1] == "Mašinfíra" and names[0] == view.players[0].name
        assert player_name("mini-express", "Tomáš") == "Tomáš"
        assert player_name("ticket-to-ride-europe", "automa") == "automa"
