"""The conformance test every registered game passes (OpenSpiel style).

Each game ships a golden playthrough in ``tests/games/golden/<game>.json``: players, options,
steps (an action or a scan, then either the totals after it or the refusal it must meet) and the
final result, checked by hand. The machinery here is the same for every game.
"""

from __future__ import annotations

import json
import os
import random
import re
from pathlib import Path
from typing import Any

import pytest

from companion.core import Action, Game, IllegalActionError, PlayerSpec, ScoreSheet
from companion.core.choices import check_tree, leaves, random_leaf
from companion.core.i18n import LANGUAGES, translations
from companion.core.jsonvalue import dumps
from companion.core.privacy import private_actions
from companion.core.public import COUNT_KINDS, MOMENT_KINDS
from companion.games import find_game, game_names
from tests.games.table_leaf import table_leaf

GOLDEN = Path(__file__).parent / "golden"
ALL = game_names(include_hidden=True)


def load_golden(name: str) -> dict[str, Any]:
    path = GOLDEN / f"{name}.json"
    assert path.exists(), f"{name} has no golden playthrough at {path}"
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    assert data["game"] == name
    return data


def setup(game: Game[Any], golden: dict[str, Any]) -> Any:
    players = [PlayerSpec(p["name"], p.get("colour", ""), p.get("seat")) for p in golden["players"]]
    return game.setup(players, golden.get("options", {}))


def check_sheet(game: Game[Any], sheet: ScoreSheet, state: Any) -> None:
    data = sheet.to_json()
    assert data["game"] == game.name
    for player in data["players"]:  # type: ignore[union-attr]
        assert player["total"] == sum(line["points"] for line in player["lines"])
    # a score sheet is JSON and survives a round trip unchanged
    assert json.loads(json.dumps(data)) == data
    assert len(sheet.players) == len(game.to_json(state).get("players", sheet.players))


def check_public_view(game: Game[Any], state: Any) -> None:
    """The public view every screen renders agrees with the game's own sheet: the same totals,
    every line of a player in exactly one category, each column of the sheet summing to the
    player's total; counts and moments are kinds the screens word; it is JSON."""
    view = game.public_view(state)
    sheet = game.score(state)
    assert [p.total for p in view.players] == list(sheet.totals)
    assert [p.name for p in view.players] == [p.name for p in sheet.players]
    assert [p.index for p in view.players] == list(range(len(sheet.players)))
    for index, player in enumerate(sheet.players):
        assert sum(c.points(index) for c in view.sheet) == player.total
        assert sum(len(c.lines[index]) for c in view.sheet) == len(player.lines)
        for category in view.sheet:
            mine = [line.points for line in player.lines if line.category == category.id]
            assert [item.points for item in category.lines[index]] == mine
    assert len({c.id for c in view.sheet}) == len(view.sheet)
    for p in view.players:
        assert {kind for kind, _ in p.counts} <= COUNT_KINDS, p.counts
        assert all(n >= 0 for _, n in p.counts), p.counts
    assert {m.kind for m in view.moments} <= MOMENT_KINDS
    assert len({m.key for m in view.moments}) == len(view.moments)
    for m in view.moments:
        assert len(m.lines) in (0, len(sheet.players)), m
        assert [len(x) for x in m.lines] == [len(x) for x in m.categories], m
        assert {c for ids in m.categories for c in ids} <= {c.id for c in view.sheet}, m
    assert view.over is game.is_over(state)
    assert list(view.winners) == list(sheet.winners)
    data = view.to_json()
    assert json.loads(json.dumps(data)) == data


def play(game: Game[Any], golden: dict[str, Any], checked: bool = True) -> list[str]:
    """Replay the golden steps; return a transcript of canonical snapshots. ``checked``: every
    state's sheet, problems, public view and snapshot round trip checked too (a second replay
    for determinism compares transcripts and totals only: the checks ran on the first)."""
    state = setup(game, golden)
    transcript = [dumps(game.to_json(state))]
    for n, step in enumerate(golden["steps"]):
        if "scan" in step:
            scan = step["scan"]
            result = game.interpret(state, scan.get("player"), scan["component"])
            assert isinstance(result, Action), f"step {n}: scan gave a prompt {result!r}"
            action = result
        else:
            action = Action.from_json(step["action"])
        before = dumps(game.to_json(state))
        if "refused" in step:
            with pytest.raises(IllegalActionError, match=step["refused"]):
                game.apply(state, action)
            assert dumps(game.to_json(state)) == before, f"step {n}: a refusal changed the state"
            continue
        state = game.apply(state, action)
        sheet = game.score(state)
        assert list(sheet.totals) == step["totals"], f"step {n}: totals"
        if checked:
            check_sheet(game, sheet, state)
            assert game.problems(state) == (), f"step {n}: a legal play produced problems"
            check_public_view(game, state)
            # every state survives the snapshot round trip
            assert game.to_json(game.from_json(game.to_json(state))) == game.to_json(state)
        transcript.append(dumps(game.to_json(state)))
    final = golden["final"]
    assert game.is_over(state) is final["over"]
    sheet = game.score(state)
    assert list(sheet.winners) == final["winners"]
    assert list(sheet.totals) == final["totals"]
    return transcript


@pytest.mark.parametrize("name", ALL)
def test_registry_finds_game(name: str) -> None:
    game = find_game(name)
    assert game.name == name
    assert isinstance(game, Game)
    assert game.min_players <= game.max_players
    assert len({c.id for c in game.components}) == len(game.components)


@pytest.mark.parametrize("name", ALL)
def test_setup_round_trips_through_json(name: str) -> None:
    game = find_game(name)
    state = setup(game, load_golden(name))
    snapshot = game.to_json(state)
    assert snapshot["game"] == name and snapshot["format"] >= 1  # type: ignore[operator]
    assert game.from_json(json.loads(json.dumps(snapshot))) == state
    assert game.problems(state) == ()
    check_sheet(game, game.score(state), state)
    check_public_view(game, state)


@pytest.mark.parametrize("name", ALL)
def test_golden_playthrough_replays_deterministically(name: str) -> None:
    game = find_game(name)
    golden = load_golden(name)
    assert any("refused" in s for s in golden["steps"]), "the golden file must show a refusal"
    assert play(game, golden) == play(game, golden, checked=False)


@pytest.mark.parametrize("name", ALL)
def test_malformed_snapshot_names_a_field(name: str) -> None:
    from companion.core import SnapshotError

    game = find_game(name)
    for bad in ({}, {"game": name}, {"game": name, "format": 1, "players": "x"}, [], None):
        with pytest.raises(SnapshotError) as info:
            game.from_json(bad)
        assert str(info.value)


@pytest.mark.parametrize("name", ALL)
def test_unknown_action_is_refused(name: str) -> None:
    game = find_game(name)
    state = setup(game, load_golden(name))
    with pytest.raises(IllegalActionError):
        game.apply(state, Action("no-such-action", 0))


# -- the choices tree: every offered input is accepted, and playouts reach the end ------------
WITH_CHOICES = [n for n in ALL if callable(getattr(find_game(n), "choices", None))]
PLAYERS = {"mini-express": 3, "tiny-race": 3, "ticket-to-ride-europe": 3, "trains-and-stations": 3}
# Playouts per game: each Ticket to Ride or Mini Express game is a few hundred steps with a tree
# built at each; TRACKSIDE_PLAYOUTS=200 runs the full count on demand.
PLAYOUTS = {"tiny-race": 200}
DEFAULT_PLAYOUTS = int(os.environ.get("TRACKSIDE_PLAYOUTS", "8"))
SECRET_KINDS = {"ticket-to-ride-europe": frozenset({"keep_ticket"})}
"""Actions the table's tree (viewer None) must never offer beyond the game's
``private_actions``: which tickets a player keeps is secret ("LÍZNUTÍ KARET CÍLOVÝCH STANIC")."""
MAX_STEPS = 5000


TRANSLATIONS = [translations(lang) for lang in LANGUAGES]
NOTATION = re.compile(r"[_={}]|\(s\)")
"""A developer's ``_`` or ``=``, a format field left over, "card(s)"."""


def _secret(game: Game[Any]) -> frozenset[str]:
    return private_actions(game) | SECRET_KINDS.get(game.name, frozenset())


def _playout(game: Game[Any], seed: int) -> int:
    rng = random.Random(seed)
    n = PLAYERS.get(game.name, game.min_players)
    state = game.setup([PlayerSpec(f"P{i}") for i in range(n)], {})
    secret = _secret(game)
    choose = game.choices  # type: ignore[attr-defined]
    for step in range(MAX_STEPS):
        table = choose(state)
        check_tree(table, deep=False)
        for node in table:
            # the table's view never offers a secret action (checked on the nodes a phone
            # shows first and on every leaf of the path taken below)
            assert node.action is None or node.action.kind not in secret, (seed, step, node)
        if game.is_over(state) and not table:
            return step
        active = game.status(state).active_players
        viewer = rng.choice(active) if active else None
        tree = choose(state, viewer)
        picked = table_leaf(state, tree, rng)
        assert picked is not None, f"seed {seed} step {step}: nothing to enter, game not over"
        path, leaf = picked
        assert leaf.action is not None
        describe = getattr(game, "describe", None)
        if describe is not None:  # the move in words, in every language: never notation
            for tr in TRANSLATIONS:
                text = describe(leaf.action, [f"P{i}" for i in range(n)]).render(tr)
                assert not NOTATION.search(text), (seed, step, text)
        if viewer is not None and leaf.action.kind in secret:
            assert leaf.action.player == viewer, (seed, step, path)
        elif leaf.action.kind in secret:
            pytest.fail(f"seed {seed} step {step}: {path} offers a secret action to the table")
        try:
            state = game.apply(state, leaf.action)
        except IllegalActionError as exc:
            pytest.fail(f"seed {seed} step {step}: the tree offered {path}, apply refused: {exc}")
        assert game.problems(state) == (), f"seed {seed} step {step}: {path} made problems"
        check_public_view(game, state)
    pytest.fail(f"seed {seed}: no end after {MAX_STEPS} steps")


@pytest.mark.slow
@pytest.mark.timeout(120 + 15 * DEFAULT_PLAYOUTS)  # a hang guard, not a speed target
@pytest.mark.parametrize("name", WITH_CHOICES)
def test_random_playouts_through_the_tree_are_accepted_and_end(name: str) -> None:
    game = find_game(name)
    count = PLAYOUTS.get(name, DEFAULT_PLAYOUTS)
    steps = [_playout(game, seed) for seed in range(count)]
    assert len(steps) == count and all(s > 0 for s in steps)


@pytest.mark.timeout(600)  # Mini Express: ~190,000 leaves (a hang guard)
@pytest.mark.parametrize("name", WITH_CHOICES)
def test_every_leaf_of_the_first_trees_is_accepted(name: str) -> None:
    """The whole tree, every branch expanded, for the first states of a playout."""
    game = find_game(name)
    rng = random.Random(7)
    n = PLAYERS.get(name, game.min_players)
    state = game.setup([PlayerSpec(f"P{i}") for i in range(n)], {})
    for _ in range(30):
        active = game.status(state).active_players
        viewer = active[0] if active else None
        tree = game.choices(state, viewer)  # type: ignore[attr-defined]
        check_tree(tree)
        for path, leaf in leaves(tree):
            assert leaf.action is not None
            game.apply(state, leaf.action)  # raises (fails the test) when refused
            assert path
        picked = random_leaf(tree, rng)
        if picked is None:
            break
        state = game.apply(state, picked[1].action)
