"""What a game says of its views holds: outside the nodes a view adds for its own player
(``own_view_choices``; none for ``choices_by_viewer = False``), every player's tree and the
table's are the same, node for node, two levels deep.

The table's corrections rely on it (``companion.service.table_choices``): a move entered in one
player's view is found at the same place in another's without walking the tree there, and a
move under another player's own node is not looked for at all."""

from __future__ import annotations

import random
from typing import Any

import pytest

from companion.core import Game, PlayerSpec
from companion.core.choices import Choice
from companion.games import find_game, game_names
from companion.service.table_choices import own_view_choices
from tests.games.table_leaf import table_leaf

PLAYERS = {"ticket-to-ride-europe": 3, "trains-and-stations": 3, "mini-express": 3}
SAYS = [n for n in game_names(include_hidden=True) if own_view_choices(find_game(n)) is not None]


def _node(choice: Choice) -> tuple[Any, ...]:
    return (
        choice.key,
        choice.label.to_json() if hasattr(choice.label, "to_json") else choice.label,
        choice.player,
        choice.action,
        None if choice.command is None else dict(choice.command),
        choice.is_leaf,
    )


def _shown(tree: tuple[Choice, ...], depth: int) -> list[Any]:
    """The nodes two levels deep, as a phone shows them."""
    found: list[Any] = []
    for choice in tree:
        found.append(_node(choice))
        if depth > 1 and not choice.is_leaf:
            found.append(_shown(choice.expand(), depth - 1))
    return found


def test_the_games_that_say_so() -> None:
    assert set(SAYS) >= {
        "ticket-to-ride-europe",
        "trains-and-stations",
        "mini-express",
        "russian-railroads",
    }


@pytest.mark.parametrize("name", SAYS)
def test_every_view_is_the_same_outside_its_own_nodes(name: str) -> None:
    game: Game[Any] = find_game(name)
    own = own_view_choices(game)
    assert own is not None
    n = PLAYERS.get(name, game.min_players)
    rng = random.Random(7)
    state = game.setup([PlayerSpec(f"P{i}") for i in range(n)], {})
    choose = game.choices  # type: ignore[attr-defined]
    seen_own = 0
    for step in range(400):
        if game.is_over(state):
            break
        table = tuple(choose(state))
        assert not [c.key for c in table if c.key in own], (step, "the table has no own nodes")
        shared = _shown(table, 2)
        for viewer in range(n):
            tree = tuple(choose(state, viewer))
            mine = [c for c in tree if c.key in own]
            seen_own += len(mine)
            for c in mine:
                assert c.player == viewer, (step, viewer, c.key, "another player's own node")
            rest = tuple(c for c in tree if c.key not in own)
            assert _shown(rest, 2) == shared, (step, viewer)
        active = game.status(state).active_players
        picked = table_leaf(state, choose(state, rng.choice(active) if active else None), rng)
        assert picked is not None and picked[1].action is not None, step
        state = game.apply(state, picked[1].action)
    if own:
        assert seen_own, "a playout that never met a view's own node checks nothing of them"
