"""Untrusted snapshots and action arguments: anything is either read or refused with a
SnapshotError / IllegalActionError naming the field or rule — never another exception."""

from __future__ import annotations

import copy
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.core import Action, IllegalActionError, PlayerSpec, SnapshotError
from companion.games.ticket_to_ride_europe.rules import GAME

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 60)
    | st.sampled_from(
        ["", "paris", "paris-wien", "paris-bruxelles:red", "red", "locomotive", "dieppe-london"]
    ),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                ["name", "routes", "stations", "tickets", "table", "cards", "red", "x"]
            ),
            inner,
            max_size=4,
        )
    ),
    max_leaves=12,
)


def live_snapshot() -> dict[str, Any]:
    state = GAME.setup([PlayerSpec("A"), PlayerSpec("B")], {})
    state = GAME.apply(
        state, Action("reveal_face_up", None, {"cards": ["red", "blue", "green", "white", "red"]})
    )
    return GAME.to_json(state)


def mutate(doc: Any, rng: random.Random, value: Any) -> Any:
    """Replace one randomly chosen place in ``doc`` by ``value``."""
    doc = copy.deepcopy(doc)
    places: list[tuple[Any, Any]] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, child in node.items():
                places.append((node, key))
                walk(child)
        elif isinstance(node, list):
            for i, child in enumerate(node):
                places.append((node, i))
                walk(child)

    walk(doc)
    parent, key = rng.choice(places)
    parent[key] = value
    return doc


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32), json_values)
def test_a_mutated_snapshot_is_read_or_refused_with_a_field(seed: int, value: Any) -> None:
    rng = random.Random(seed)
    for base in (
        live_snapshot(),
        {
            "game": "ticket-to-ride-europe",
            "format": 1,
            "players": [
                {
                    "name": "R",
                    "routes": ["paris-bruxelles:red"],
                    "stations": ["wien"],
                    "tickets": ["paris-wien"],
                },
                {"name": "B", "routes": ["dieppe-london"], "stations": [], "tickets": []},
            ],
        },
    ):
        data = mutate(base, rng, value)
        try:
            GAME.score_snapshot(data)
        except SnapshotError as error:
            assert str(error)
        try:
            GAME.from_json(data)
        except SnapshotError as error:
            assert str(error)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(
        [
            "claim_route",
            "build_station",
            "keep_ticket",
            "take_face_up",
            "reveal_face_up",
            "reveal_tunnel",
            "pay_tunnel",
            "draw_blind",
            "done_tickets",
            "draw_tickets",
        ]
    ),
    st.dictionaries(
        st.sampled_from(["route", "cards", "city", "ticket", "card", "hand"]),
        json_values,
        max_size=3,
    ),
    st.one_of(st.none(), st.integers(-1, 5)),
)
def test_any_action_arguments_are_applied_or_refused_by_name(
    kind: str, args: dict[str, Any], player: int | None
) -> None:
    state = GAME.from_json(live_snapshot())
    for step in (
        Action("keep_ticket", 0, {"ticket": "paris-wien"}),
        Action("keep_ticket", 0, {"ticket": "cadiz-stockholm"}),
        Action("done_tickets", 0),
        Action("keep_ticket", 1, {"ticket": "berlin-roma"}),
        Action("keep_ticket", 1, {"ticket": "lisboa-danzig"}),
        Action("done_tickets", 1),
    ):
        state = GAME.apply(state, step)
    try:
        GAME.apply(state, Action(kind, player, args))
    except (SnapshotError, IllegalActionError) as error:
        assert str(error)
