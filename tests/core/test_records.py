"""Observations, actions, errors and score sheets."""

from __future__ import annotations

import pytest

from companion.core import (
    Action,
    IllegalActionError,
    Observation,
    ObservationKind,
    PlayerScore,
    ScoreLine,
    SnapshotError,
    highest,
)
from companion.core.snapshot import Field


def test_observation_round_trip_and_tag() -> None:
    obs = Observation("red-seat", ObservationKind.TAG_PRESENT, {"uid": "04A1"}, seat=1, ref="x#1")  # type: ignore[arg-type]
    again = Observation.from_json(obs.to_json())
    assert again == obs and again.tag == "04A1"


@pytest.mark.parametrize(
    ("data", "path"),
    [
        ({"source": "r", "kind": "bogus"}, "observation.kind"),
        ({"source": "", "kind": "text"}, "observation.source"),
        ({"source": "r", "kind": "text", "seat": 0}, "observation.seat"),
        ({"source": "r", "kind": "text", "payload": []}, "observation.payload"),
    ],
)
def test_bad_observation_names_the_field(data: object, path: str) -> None:
    with pytest.raises(SnapshotError) as info:
        Observation.from_json(data)
    assert info.value.path == path


def test_action_is_frozen_data() -> None:
    action = Action("claim", 1, {"cards": ["red", "red"]})
    assert action.args["cards"] == ("red", "red")
    with pytest.raises(TypeError):
        action.args["cards"] = ()  # type: ignore[index]
    assert Action.from_json(action.to_json()) == action
    with pytest.raises(SnapshotError, match=r"action\.extra: unknown field"):
        Action.from_json({"kind": "x", "extra": 1})


def test_illegal_action_names_rule_and_section() -> None:
    err = IllegalActionError(
        "Kiev white rail", rule="Kiev allows black, grey, brown", section="PRŮBĚH HRY"
    )
    assert isinstance(err, ValueError)
    assert "rule: Kiev allows black, grey, brown" in str(err) and "rulebook: PRŮBĚH HRY" in str(err)


def test_score_total_is_sum_of_lines_and_ties_share() -> None:
    a = PlayerScore("A", (ScoreLine("x", 3), ScoreLine("y", 4)))
    b = PlayerScore("B", (ScoreLine("x", 7),))
    assert a.total == 7 and a.points("x") == 3
    assert highest([(a.name, (a.total,)), (b.name, (b.total,))]) == ("A", "B")
    assert highest([(a.name, (a.total, 1)), (b.name, (b.total, 0))]) == ("A",)


def test_field_paths() -> None:
    doc = Field({"players": [{"rails": {"kiev": {"white": 3}}}]})
    white = doc.get("players").list()[0].get("rails").get("kiev").get("white")
    assert white.path == "players[0].rails.kiev.white"
    with pytest.raises(
        SnapshotError, match=r"players\[0\]\.rails\.kiev\.white: 3 is above the maximum 2"
    ):
        white.int(hi=2)
