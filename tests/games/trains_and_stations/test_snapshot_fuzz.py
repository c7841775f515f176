"""``trackside score`` reads untrusted JSON: whatever arrives is either scored or refused with
a field path, never a crash (hypothesis)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.core import SnapshotError
from companion.games import find_game
from companion.games.trains_and_stations.data import GOODS

GAME = find_game("trains-and-stations")

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 12) | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
goods = st.fixed_dictionaries({}, optional={g: st.integers(0, 2) for g in GOODS})
player = st.fixed_dictionaries(
    {
        "name": st.sampled_from(["Erik", "Sára", "Bohouš", "Karel", "Eva"]),
        "vp": st.integers(0, 60),
        "task_points": st.integers(0, 30),
        "goods": goods,
    },
    optional={
        "special_goods": st.lists(
            st.lists(st.sampled_from(GOODS), min_size=2, max_size=2), max_size=2
        )
    },
)
snapshots = st.fixed_dictionaries(
    {
        "game": st.just("trains-and-stations"),
        "format": st.just(1),
        "players": st.lists(player, min_size=3, max_size=5, unique_by=lambda p: p["name"]),
    }
)


def mutate(doc: dict[str, Any], where: int, value: Any) -> dict[str, Any]:
    """Replace one field somewhere in the document with an arbitrary JSON value."""
    players = doc["players"]
    target = players[where % len(players)]
    key = sorted(target)[where % len(target)]
    target[key] = value
    return doc


@settings(max_examples=60, deadline=None)
@given(snapshots)
def test_every_well_formed_snapshot_scores_and_totals_add_up(doc: dict[str, Any]) -> None:
    sheet = GAME.score_snapshot(doc)
    for p, raw in zip(sheet.players, doc["players"], strict=True):
        assert p.total == raw["vp"] + raw["task_points"] + p.points("monopolies")
    assert sheet.winners
    best = max(sheet.totals)
    assert all(sheet.player(w).total == best for w in sheet.winners)


@settings(max_examples=60, deadline=None)
@given(snapshots, st.integers(0, 20), json_values)
def test_a_damaged_snapshot_scores_or_names_a_field(
    doc: dict[str, Any], where: int, value: Any
) -> None:
    damaged = mutate(doc, where, value)
    try:
        GAME.score_snapshot(damaged)
    except SnapshotError as exc:
        assert exc.path.startswith("players")


@settings(max_examples=60, deadline=None)
@given(json_values)
def test_any_json_at_all_is_scored_or_refused(value: Any) -> None:
    try:
        GAME.score_snapshot(value)
    except SnapshotError as exc:
        assert str(exc)
