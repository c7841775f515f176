"""The scoreboard's pictures from real snapshots: the Russian Railroads chart follows the
golden game round by round; the Ticket to Ride map puts claims, stations and (at the end) the
longest paths where the board has them."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from companion.core import Observation, ObservationKind
from companion.games.ticket_to_ride_europe.board import ROUTE_BY_ID
from companion.games.ticket_to_ride_europe.final import longest_trail
from companion.service.catalogue import CATALOGUE
from companion.service.engine import Engine
from companion.service.store import EventStore
from web.boards import rr_boards, rr_chart, rr_round_totals, ttr_map

TTR_BOARD = CATALOGUE.data("ticket-to-ride-europe")

GOLDEN = Path(__file__).resolve().parents[1] / "games" / "golden"


def played(tmp_path: Path, game: str) -> dict[str, Any]:
    golden = json.loads((GOLDEN / f"{game}.json").read_text())
    store = EventStore(tmp_path / "db.sqlite3")
    engine = Engine(store)
    start = {"command": "start_game", "game": game, "players": golden["players"]}
    engine.handle(
        Observation(
            "test",  # type: ignore[arg-type]
            ObservationKind.COMMAND,
            {**start, "options": golden["options"]},
        )
    )
    for step in golden["steps"]:
        if "scan" in step:
            player = step["scan"].get("player")
            obs = Observation(
                "reader",  # type: ignore[arg-type]
                ObservationKind.TAG_PRESENT,
                {"uid": f"TS:{game}:{step['scan']['component']}"},
                None if player is None else player + 1,  # type: ignore[arg-type]
            )
        else:
            obs = Observation("test", ObservationKind.ACTION, {"action": step["action"]})  # type: ignore[arg-type]
        engine.handle(obs)
    _, snapshot = engine.latest()
    store.close()
    return snapshot


def test_russian_railroads_chart_follows_the_golden_game_round_by_round(tmp_path: Path) -> None:
    snapshot = played(tmp_path, "russian-railroads")
    chart = rr_chart(snapshot)
    assert chart is not None
    values = {s.name: s.values for s in chart.series}
    # the golden game's totals after each round's last pass (its "totals" after the round
    # ends), then the final scoring
    assert values["Red"] == (0, 6, 20, 37, 65, 102, 143, 208, 208)
    assert values["Yellow"] == (0, 9, 21, 41, 69, 98, 140, 186, 186)
    assert [label for _, label in chart.x_labels] == [
        "start", "R1", "R2", "R3", "R4", "R5", "R6", "R7", "final",
    ]  # fmt: skip
    # every end label readable: at least 30 units apart
    ys = sorted(s.label_y for s in chart.series)
    assert all(b - a >= 30 for a, b in itertools.pairwise(ys))


def test_round_totals_ignore_points_between_roundings() -> None:
    points = [
        {"category": "pass", "points": 2, "why": "round 1: passed from position 2"},
        {"category": "kiev", "points": 1, "why": "round 1: reach 1"},
        {"category": "actions", "points": 3, "why": "engineer points"},
        {"category": "kiev", "points": 2, "why": "round 2: reach 2"},
    ]
    assert rr_round_totals(points) == {1: 3, 2: 8}


def test_ticket_to_ride_map_shows_claims_stations_and_longest_paths(tmp_path: Path) -> None:
    snapshot = played(tmp_path, "ticket-to-ride-europe")
    board = ttr_map(snapshot, TTR_BOARD)
    assert board is not None and len(board.routes) == 101 and len(board.cities) == 47
    claimed = {(r.owner, r.label.split(" (")[0], r.colour) for r in board.routes if r.owner}
    assert claimed == {
        ("Red", "Bruxelles–Paris", "red"),
        ("Red", "Amsterdam–Bruxelles", "red"),
        ("Blue", "München–Venezia", "blue"),
    }
    assert [(s.owner, s.city) for s in board.stations] == [("Red", "Frankfurt")]
    assert board.paths == ()  # only at the end of the game
    # the longest paths are the game's (its public view's picture), drawn once it is over
    trails = [
        dict(
            zip(("length", "cities"), longest_trail([ROUTE_BY_ID[r] for r in routes]), strict=True)
        )
        for routes in snapshot["view"]["picture"]["routes"]
    ]
    view = {**snapshot["view"], "picture": {**snapshot["view"]["picture"], "trails": trails}}
    ended = ttr_map({**snapshot, "over": True, "view": view}, TTR_BOARD)
    assert ended is not None
    assert {(p.owner, p.length) for p in ended.paths} == {("Red", 3), ("Blue", 2)}


def test_no_picture_for_other_games_or_no_game() -> None:
    assert rr_chart({"game": None}) is None and ttr_map({"game": None}) is None
    assert ttr_map({"game": "ticket-to-ride-europe", "table": {"players": "?"}}, TTR_BOARD) is None


def test_russian_railroads_boards_show_rails_reach_doublers_and_industry(tmp_path: Path) -> None:
    snapshot = played(tmp_path, "russian-railroads")
    boards = rr_boards(snapshot, CATALOGUE.data("russian-railroads"))
    assert boards is not None and [b.name for b in boards] == ["Red", "Blue", "Yellow", "Green"]
    red = boards[0]
    ts, stp, kiev = red.tracks
    assert (ts.length, stp.length, kiev.length) == (15, 9, 9)
    # Red's Trans-Siberian at the end: white to 2, natural 3, brown 4, grey 5, black past 6;
    # the locomotives 8 + 4 reach space 12, four doublers lie over spaces 1–4
    assert [c.rail for c in ts.cells[:7]] == [
        "white", "white", "natural", "brown", "grey", "black", "black",
    ]  # fmt: skip
    assert ts.locomotives == (8, 4) and ts.reach == 12
    assert [c.space for c in ts.cells if c.in_reach] == list(range(1, 13))
    assert [c.space for c in ts.cells if c.doubled] == [1, 2, 3, 4]
    assert [c.doubled for c in stp.cells] == [False] * 9  # doublers lie on the Trans-Siberian only
    assert [s.step for s in red.industry if s.marker] == [4]
    assert red.engineers == 1
    blue = boards[1]
    assert blue.factories == 5 and all(s.built for s in blue.industry if s.gap)
    # the reach is the game's (its public view), never added up here: a view that says
    # otherwise is drawn as it says, and a snapshot without it draws no boards
    said = snapshot["view"]["picture"]["reach"]
    assert said[0] == [12, 7, 3]
    other = {
        **snapshot["view"],
        "picture": {**snapshot["view"]["picture"], "reach": [[5, 0, 0]] * 4},
    }
    redrawn = rr_boards({**snapshot, "view": other}, CATALOGUE.data("russian-railroads"))
    assert redrawn is not None and redrawn[0].tracks[0].reach == 5
    old = {
        **snapshot["view"],
        "picture": {"round_totals": snapshot["view"]["picture"]["round_totals"]},
    }
    assert rr_boards({**snapshot, "view": old}, CATALOGUE.data("russian-railroads")) is None
    assert rr_boards(snapshot, {}) is None  # no board figures: no picture


def test_the_chart_ends_at_the_running_totals_mid_round(tmp_path: Path) -> None:
    """Between two scorings the standings move on: the chart's last point is the total now,
    so its labels never disagree with the headline numbers."""
    snapshot = played(tmp_path, "russian-railroads")
    boards = snapshot["table"]["players"]
    mid = {
        **snapshot,
        "over": False,
        "players": [{**p, "total": p["total"] + 7} for p in snapshot["players"]],
        "table": {**snapshot["table"], "players": boards},
    }
    chart = rr_chart(mid)
    assert chart is not None
    assert chart.x_labels[-1][1] == "now"
    assert [s.values[-1] for s in chart.series] == [p["total"] for p in mid["players"]]
