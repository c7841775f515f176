"""A snapshot in one reader's words (``render_json``): its short path for JSON's own types
gives exactly what the long way (each message read back as a ``Message``, then rendered)
gives, on every snapshot of the golden games in every language, and on the odd cases."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from companion.core.i18n import translations
from companion.core.messages import is_message_json, msg, plural, render_json, render_text
from companion.service.engine import Engine
from companion.service.store import EventStore

from .test_snapshot_cues import play_golden

GOLDEN = Path(__file__).resolve().parents[1] / "games" / "golden"


def long_way(value: Any, tr: Any) -> Any:
    if is_message_json(value):
        return render_text(value, tr)
    if isinstance(value, Mapping):
        return {k: long_way(v, tr) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [long_way(v, tr) for v in value]
    return value


@pytest.mark.parametrize("game", sorted(p.stem for p in GOLDEN.glob("*.json")))
def test_every_golden_snapshot_reads_the_same_in_every_language(
    game: str, store: EventStore
) -> None:
    snapshots = play_golden(Engine(store), game)
    for lang in ("en", "cs", "sk", "es"):
        tr = translations(lang)
        for snap in snapshots[:: max(1, len(snapshots) // 40)] + snapshots[-1:]:
            assert render_json(snap, tr) == long_way(snap, tr)


def test_the_odd_cases_go_the_long_way_with_the_same_result() -> None:
    cs = translations("cs")
    cases: list[Any] = [
        {"id": "{n} items", "params": {"n": True}},  # a bool is not a number here
        {"id": "{x}", "params": {"x": 1.5}},  # nor a float
        {"id": "{x}", "params": [1]},  # params that are not an object
        {"id": 3},  # not a message: kept as it is
        {"id": "a", "other": 1},  # a game's own object with an "id"
        plural("{n} card", "{n} cards", "n", n=msg("three")).to_json(),  # a count in words
        plural("{n} card", "{n} cards", "n", n=2, context="x").to_json(),
        ({"id": "round {n}", "params": {"n": 3}},),  # a tuple holding a message
    ]
    for case in cases:
        assert render_json(case, cs) == long_way(case, cs), case
    broken = {"id": "Tunnel {route}", "params": {}}  # a field the params do not carry
    with pytest.raises(KeyError):
        long_way(broken, cs)
    with pytest.raises(KeyError):
        render_json(broken, cs)
    assert render_json(json.loads('{"a": [{"id": "last round"}]}'), cs) == {
        "a": [render_text(msg("last round"), cs)]
    }
