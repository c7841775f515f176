"""The table page offers each game's actions from its notation document (web/forms.py ACTIONS):
the lists stay in step with the documents' "Actions" sections and with the games."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from companion.games.mini_express.rules import ACTIONS as MINI_EXPRESS_ACTIONS
from web import forms

DOCS = Path(__file__).resolve().parents[2] / "docs" / "formats"


def documented_actions(game: str) -> set[str]:
    """The kinds in the first column of the "Actions" section's table (``a`` / ``b`` rows
    name several)."""
    text = (DOCS / f"{game}.md").read_text(encoding="utf-8")
    heading = re.search(r"^(#+) .*Actions.*$", text, re.M)
    assert heading, f"{game}.md has no Actions section"
    rest = text[heading.end() :]
    end = re.search(rf"^#{{1,{len(heading.group(1))}}} ", rest, re.M)
    section = rest[: end.start()] if end else rest
    kinds: set[str] = set()
    for row in re.findall(r"^\|([^|\n]+)\|", section, re.M):
        kinds.update(re.findall(r"`(\w+)`", row))
    return kinds


@pytest.mark.parametrize("game", [g for g in forms.ACTIONS if (DOCS / f"{g}.md").exists()])
def test_the_page_offers_exactly_the_documented_actions(game: str) -> None:
    assert {a.kind for a in forms.ACTIONS[game]} == documented_actions(game)


def test_mini_express_offers_every_action_the_game_takes() -> None:
    assert tuple(a.kind for a in forms.ACTIONS["mini-express"]) == MINI_EXPRESS_ACTIONS
