"""The full table snapshot (docs/formats/mini-express.md) and the problems of impossible tables."""

from __future__ import annotations

import json
from typing import Any

import pytest

from companion.core import SnapshotError


def round_trip(game: Any, state: Any) -> Any:
    return game.from_json(json.loads(json.dumps(game.to_json(state))))


@pytest.mark.parametrize(
    "options",
    [
        {"variant": "standard"},
        {"variant": "standard", "map": "usa", "golden_spike": True},
        {"variant": "standard", "map": "europe", "harbours": True},
    ],
)
def test_a_standard_game_survives_the_round_trip(
    table: Any, game: Any, options: dict[str, Any]
) -> None:
    state = table.playing(3, start_player=2, **options)
    state = table.act(
        state, "build", 2, company="steel", trains=2, landscape=1, demand=["steel", "lumber"]
    )
    assert round_trip(game, state) == state


def test_a_solo_game_with_the_automa_survives_the_round_trip(table: Any, game: Any) -> None:
    state = table.new(1, variant="solo:pruvodci")
    state = table.act(state, "draft_share", 0, company="steel")
    assert round_trip(game, state) == state
    state = table.act(state, "draft_share", 0, company="lumber")
    state = table.act(state, "automa_setup_draw", 1, token={"city": 2, "company": 1})
    assert round_trip(game, state) == state
    state = table.act(state, "automa_setup_draw", 1, token={"city": 2, "company": 2})
    assert round_trip(game, state) == state
    assert game.to_json(state)["variant"] == "solo:pruvodci"
    assert game.to_json(state)["players"][1]["name"] == "automa"


def test_a_full_snapshot_scores_like_the_contract(table: Any, game: Any) -> None:
    state = table.playing(4, share_values={"1": {"1st": 1, "2nd": 1, "other": 1}})
    sheet = game.score_snapshot(game.to_json(state))
    assert sheet.totals == game.score(state).totals


def test_a_full_snapshot_missing_cells_is_refused_with_their_names(table: Any, game: Any) -> None:
    state = table.playing(4)
    with pytest.raises(SnapshotError, match=r"^share_values.1.1st missing"):
        game.score_snapshot(game.to_json(state))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda d: d["companies"]["steel"].update(trains_on_field=6),
            "companies.steel.trains_on_field",
        ),
        (lambda d: d.update(phase="lunch"), "phase: 'lunch' is not one of"),
        (
            lambda d: d.update(automa={"company_pointer": "lumber"}),
            "automa: standard has no automa",
        ),
        (lambda d: d["players"][0].update(seat_from_start=1), "seat_from_start"),
        (
            lambda d: d["draft_picks"].append({"player": 9, "company": "steel"}),
            r"draft_picks\[8\].player",
        ),
        (lambda d: d.pop("turns_taken"), "turns_taken: missing"),
    ],
)
def test_malformed_snapshots_name_the_field(
    table: Any, game: Any, change: Any, message: str
) -> None:
    data = game.to_json(table.playing(4))
    change(data)
    with pytest.raises(SnapshotError, match=message):
        game.from_json(data)


def test_a_table_with_too_many_trains_or_shares_is_held_with_its_problems(
    table: Any, game: Any
) -> None:
    state = table.playing(4)
    state = table.company(state, "steel", trains_in_supply=21)
    state = table.shares(state, 0, lumber=9)
    codes = {(p.code, p.where) for p in game.problems(state)}
    assert ("trains_overflow", "companies.steel") in codes
    assert ("shares_overflow", "companies.lumber") in codes


def test_a_company_without_supply_that_is_not_exhausted_is_a_problem(table: Any, game: Any) -> None:
    state = table.company(table.playing(4), "cotton", trains_in_supply=0)
    assert [p.code for p in game.problems(state)] == ["not_exhausted"]
