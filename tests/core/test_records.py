"""``evolve``: ``dataclasses.replace`` without ``__init__`` for the games' slotted records."""

from __future__ import annotations

import dataclasses
import random

import pytest

from companion.core.records import evolve
from companion.games import find_game
from tests.service.test_correction_listing import tree_playout


@dataclasses.dataclass(frozen=True, slots=True)
class Plain:
    a: int
    b: tuple[int, ...] = ()


@dataclasses.dataclass(frozen=True, slots=True)
class Checked:
    a: int

    def __post_init__(self) -> None:
        if self.a < 0:
            raise ValueError("negative")


def test_evolve_is_replace_for_a_slotted_record() -> None:
    record = Plain(1, (2, 3))
    assert evolve(record, b=(4,)) == dataclasses.replace(record, b=(4,)) == Plain(1, (4,))
    assert evolve(record) == record and evolve(record) is not record
    with pytest.raises(TypeError, match="'c'"):
        evolve(record, c=1)


def test_a_record_with_its_own_checks_goes_through_them() -> None:
    assert evolve(Checked(1), a=2) == Checked(2)
    with pytest.raises(ValueError, match="negative"):
        evolve(Checked(1), a=-1)


@pytest.mark.parametrize(
    "name", ["ticket-to-ride-europe", "trains-and-stations", "russian-railroads"]
)
def test_every_state_of_a_playout_evolves_as_replace_makes_it(name: str) -> None:
    """The games' states (and the records in them) copied field by field equal what
    ``dataclasses.replace`` makes, along a random playout."""
    rng = random.Random(3)
    game = find_game(name)
    for session in tree_playout(name, 3, 30):
        state = session.state
        field = rng.choice(dataclasses.fields(state))
        value = getattr(state, field.name)
        assert evolve(state, **{field.name: value}) == dataclasses.replace(
            state, **{field.name: value}
        )
        assert game.to_json(evolve(state)) == game.to_json(state)
