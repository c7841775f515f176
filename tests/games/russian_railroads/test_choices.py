"""The choices tree: every leaf it offers, ``apply`` accepts; random playouts through it reach
the end of the game on legal boards only (seed 000, "POPIS JEDNOHO TAHU HRÁČE": a turn is one
action space, its action in full)."""

from __future__ import annotations

import random

import pytest

from companion.core import Action, PlayerSpec
from companion.core.choices import check_tree, leaves, node_at, random_leaf
from companion.games.russian_railroads import GAME, RussianRailroadsState
from tests.games.russian_railroads.helpers import act, new_game, with_board

TS, SP, KV = "trans_siberian", "st_petersburg", "kiev"


def playout(seed: int, players: int, *, validate: bool = False) -> RussianRailroadsState:
    rng = random.Random(seed)
    names = ["Anna", "Boris", "Cleo", "Dana"][:players]
    state = GAME.setup([PlayerSpec(n) for n in names], {})
    for _ in range(2000):
        if GAME.is_over(state):
            return state
        tree = GAME.choices(state)
        picked = random_leaf(tree, rng)
        assert picked is not None, f"seed {seed}: nothing offered while {GAME.status(state)}"
        path, leaf = picked
        assert leaf.action is not None
        state = GAME.apply(state, leaf.action)  # every offered leaf is accepted
        assert GAME.problems(state) == (), f"seed {seed}, after {path}: an illegal board"
        if validate:  # the snapshot validator reads every reached board back unchanged
            assert GAME.from_json(GAME.to_json(state)) == state, path
    raise AssertionError(f"seed {seed}: the game did not end in 2000 entries")


# Twenty games of each player count: each board after each entry is checked legal. The 200-game
# count (2,837 engineer actions) is bench/bench_rr_playouts.py's, run on demand: here it took
# two minutes of the suite's ten, for board states the first sixty already reach.
PLAYOUTS = 60


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_random_playouts_through_the_tree_end_the_game_on_legal_boards() -> None:
    for seed in range(PLAYOUTS):
        state = playout(seed, 2 + seed % 3)
        assert GAME.is_over(state)
        assert GAME.from_json(GAME.to_json(state)) == state


def test_a_few_playouts_for_every_player_count() -> None:
    for seed, players in ((1, 2), (2, 3), (3, 4)):
        assert GAME.is_over(playout(seed, players, validate=True))


def test_random_playouts_use_the_engineers_by_taps() -> None:
    """Issue 47: through the tree alone, random games name the face-up engineers, hire them,
    use the public and own engineer spaces and repeat an action (seed 000, "INŽENÝŘI",
    "DESTIČKY INŽENÝRŮ"); every leaf is accepted. The 200-game count runs as
    ``bench/bench_rr_playouts.py``."""
    kinds = []
    for seed in range(6):
        rng = random.Random(seed)
        state = GAME.setup(
            [PlayerSpec(n) for n in ["Anna", "Boris", "Cleo", "Dana"][: 2 + seed % 3]], {}
        )
        used: set[str] = set()
        while not GAME.is_over(state):
            picked = random_leaf(GAME.choices(state), rng)
            assert picked is not None
            action = picked[1].action
            assert action is not None
            space = str(action.args.get("space", ""))
            first = state.pending[0] if state.pending else None
            if first is not None and first.kind == "space" and "repeat" in first.grants:
                used.add("repeat")  # the repeat engineer's (or a factory's) repeat
            elif action.kind == "hire_engineer":
                used.add("hire")
            elif action.kind == "take_space" and space.startswith("own_engineer_"):
                used.add("own")
            elif action.kind == "take_space" and space.startswith("engineer_"):
                used.add("public")
            state = GAME.apply(state, action)
        kinds.append(used)
    assert sum(bool(k) for k in kinds) >= 5  # engineers in most games
    assert all(any(kind in k for k in kinds) for kind in ("hire", "own", "public", "repeat"))


def test_the_first_turn_offers_free_spaces_payments_and_pass_with_plain_labels() -> None:
    s = new_game(4)
    tree = GAME.choices(s)
    check_tree(tree, deep=False)
    keys = [c.key for c in tree]
    assert "space-black_3" in keys and keys[-1] == "pass"
    # Red is on turn order position 1: never under their own marker
    assert "space-turn_order_1" not in keys and "space-turn_order_2" in keys
    # no grey rails yet: the grey spaces are not offered
    assert "space-grey_2" not in keys
    black = node_at(tree, "space-black_3")
    assert black.label.render() == "Red: 3 black steps — 2 workers"
    payments = [c.label.render() for c in black.expand()]
    assert payments == ["Red: pay with 2 workers", "Red: pay with 1 worker, 1 coin"]


def test_after_taking_a_space_the_tree_offers_how_to_spend_it() -> None:
    s = act(new_game(4), "take_space", 0, space="black_3", workers=2)
    tree = GAME.choices(s)
    assert [c.key for c in tree] == ["grant-0"]
    splits = [leaf.label.render() for _, leaf in leaves(tree)]
    # 3 black steps split over the three tracks in every way the board allows
    assert "Red: Trans-Siberian Railway: 3 black steps" in splits
    assert (
        "Red: Trans-Siberian Railway: 1 black step, Moscow – St. Petersburg: 1 black step, "
        "Moscow – Kiev: 1 black step" in splits
    )
    assert len(splits) == 10
    for _, leaf in leaves(tree):
        assert leaf.action is not None
        GAME.apply(s, leaf.action)


def test_spaces_and_builds_show_the_rail_colours_they_move() -> None:
    """A page draws each rail's colour beside the words (the steps are "with a rail" of that
    colour, seed 000): a space for black steps is black, one for black or grey both, one for
    any rail none; a build one swatch for each colour it moves."""
    cards = GAME.choices(GAME.setup([PlayerSpec("Anna"), PlayerSpec("Boris")], {}))
    assert [c.swatches for c in cards] == [("black",)] * 3 + [()] * 3  # the starting cards
    tree = GAME.choices(new_game(4))
    swatches = {c.key: c.swatches for c in tree}
    assert swatches["space-black_3"] == ("black",)
    assert swatches["space-black_or_grey"] == ("black", "grey")
    assert swatches["space-any_2"] == () and swatches["space-coins"] == ()
    s = act(new_game(4), "take_space", 0, space="black_3", workers=2)
    assert {leaf.swatches for _, leaf in leaves(GAME.choices(s))} == {("black",)}


def test_an_occupied_space_and_an_unaffordable_one_are_not_offered() -> None:
    s = act(new_game(4), "take_space", 0, space="coins", workers=1)
    s = act(s, "take_space", 1, space="industry_black", workers=2)
    s = act(s, "build", 1, moves=[{"track": KV, "colour": "black", "steps": 1}])
    s = act(s, "industry", 1, steps=1)
    s = with_board(s, 2, workers_used=5, coins=0)
    keys = [c.key for c in GAME.choices(s) if not c.key.startswith("engineer-tile-")]
    assert keys == ["pass"]  # Yellow has no worker and no coin left (naming a tile is no move)
    s = act(s, "pass", 2)
    keys = [c.key for c in GAME.choices(s)]
    assert "space-coins" not in keys and "space-industry_black" not in keys
    assert "space-black_or_grey" in keys  # the reusable space


def test_the_tree_offers_the_owed_decisions_and_nothing_else() -> None:
    s = GAME.setup([PlayerSpec(n) for n in ("Red", "Blue", "Yellow", "Green")], {})
    tree = GAME.choices(s)
    assert {c.player for c in tree} == {3}  # the 4th player drafts first
    labels = [c.label.render() for c in tree]
    assert "Green: the starting card “1 black step” on the line to Kiev" in labels
    for choice in tree:
        assert choice.action is not None
        GAME.apply(s, choice.action)


def test_the_labels_are_sentences_not_ids() -> None:
    state = playout(11, 4)
    assert GAME.is_over(state)
    rng = random.Random(5)
    s = new_game(3)
    for _ in range(60):
        tree = GAME.choices(s)
        for choice in tree:
            text = choice.label.render()
            assert "_" not in text, text
        picked = random_leaf(tree, rng)
        assert picked is not None and picked[1].action is not None
        s = GAME.apply(s, picked[1].action)


def test_the_pass_leaf_is_an_action_apply_accepts() -> None:
    s = new_game(2)
    passing = node_at(GAME.choices(s), "pass")
    assert passing.action == Action("pass", 0)
