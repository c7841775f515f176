"""The conformance test every registered game passes (OpenSpiel style).

Each game ships a golden playthrough in ``tests/games/golden/<game>.json``: players, options,
steps (an action or a scan, then either the totals after it or the refusal it must meet) and the
final result, checked by hand. The machinery here is the same for every game.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from companion.core import Action, Game, IllegalActionError, PlayerSpec, ScoreSheet
from companion.core.jsonvalue import dumps
from companion.games import find_game, game_names

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


def play(game: Game[Any], golden: dict[str, Any]) -> list[str]:
    """Replay the golden steps; return a transcript of canonical snapshots."""
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
        check_sheet(game, sheet, state)
        assert list(sheet.totals) == step["totals"], f"step {n}: totals"
        assert game.problems(state) == (), f"step {n}: a legal play produced problems"
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


@pytest.mark.parametrize("name", ALL)
def test_golden_playthrough_replays_deterministically(name: str) -> None:
    game = find_game(name)
    golden = load_golden(name)
    assert any("refused" in s for s in golden["steps"]), "the golden file must show a refusal"
    assert play(game, golden) == play(game, golden)


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
