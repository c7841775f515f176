"""The web package holds no game knowledge: what a game can do comes from the game's choices
tree, rendered by one generic panel (issue 13). Nothing in ``web`` imports a game module for its
forms, and the advanced raw form passes any action to the game, which names what is wrong."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from web import forms

WEB = Path(__file__).resolve().parents[2] / "web"


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return found


@pytest.mark.parametrize("name", ["forms.py", "app.py"])
def test_the_table_page_imports_no_game_module(name: str) -> None:
    games = {m for m in imported_modules(WEB / name) if m.startswith("companion.games.")}
    assert games == set(), f"web/{name} imports {sorted(games)}"


def test_the_advanced_form_passes_any_kind_to_the_game_and_refuses_private_ones() -> None:
    action = forms.generic_action({"kind": "fly", "player": "1", "args": '{"to": "x"}'}, 2)
    assert action == {"kind": "fly", "player": 1, "args": {"to": "x"}}
    with pytest.raises(forms.FormError, match="own page"):
        forms.generic_action({"kind": "speculate", "args": "{}"}, 3, frozenset({"speculate"}))
    with pytest.raises(forms.FormError, match="not JSON"):
        forms.generic_action({"kind": "advance", "args": "{steps: 1"}, 2)
