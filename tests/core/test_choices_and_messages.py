"""The choices tree's and the messages' own rules, apart from any game."""

from __future__ import annotations

import gettext
import random

import pytest

from companion.core.actions import Action
from companion.core.choices import (
    Choice,
    ChoicePathError,
    check_tree,
    children_at,
    leaves,
    node_at,
    random_leaf,
)
from companion.core.messages import Message, msg, plural


class _Czech(gettext.NullTranslations):
    """A two-entry catalogue with Czech's three plural forms (1; 2–4; 5+)."""

    def gettext(self, message: str) -> str:
        return {"{player}: pass": "{player}: pas"}.get(message, message)

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        if msgid1 != "{n} engineer":
            return msgid1 if n == 1 else msgid2
        return "{n} inženýr" if n == 1 else "{n} inženýři" if 2 <= n <= 4 else "{n} inženýrů"


def test_a_message_renders_in_english_without_a_catalogue_and_in_czech_with_one() -> None:
    assert msg("{player}: pass", player="Jana").render() == "Jana: pass"
    assert msg("{player}: pass", player="Jana").render(_Czech()) == "Jana: pas"
    forms = [plural("{n} engineer", "{n} engineers", "n", n=k).render(_Czech()) for k in (1, 3, 5)]
    assert forms == ["1 inženýr", "3 inženýři", "5 inženýrů"]
    assert plural("{n} engineer", "{n} engineers", "n", n=1).render() == "1 engineer"


def test_nested_messages_are_translated_too_and_survive_json() -> None:
    inner = msg("Trans-Siberian", context="track")
    outer = msg("{player}: 3 black steps on {track}", player="Petr", track=inner)
    assert outer.render() == "Petr: 3 black steps on Trans-Siberian"
    assert Message.from_json(outer.to_json()) == outer
    again = plural("{n} engineer", "{n} engineers", "n", n=2)
    assert Message.from_json(again.to_json()) == again


def test_a_translation_with_a_wrong_field_falls_back_to_english() -> None:
    class Broken(gettext.NullTranslations):
        def gettext(self, message: str) -> str:
            return "{hrac}: pas"

    assert msg("{player}: pass", player="Jana").render(Broken()) == "Jana: pass"


def _tree() -> tuple[Choice, ...]:
    def routes() -> tuple[Choice, ...]:
        return (
            Choice(
                "paris-wien",
                msg("Paris – Wien"),
                0,
                Action("claim_route", 0, {"route": "paris-wien"}),
            ),
            Choice(
                "berlin-wien",
                msg("Berlin – Wien"),
                0,
                Action("claim_route", 0, {"route": "berlin-wien"}),
            ),
        )

    return (
        Choice("claim", msg("{player}: claim a route", player="Anna"), 0, children=routes),
        Choice("pass", msg("{player}: pass", player="Anna"), 0, Action("pass", 0)),
    )


def test_paths_walk_the_tree_and_name_what_is_missing() -> None:
    tree = _tree()
    assert [c.key for c in children_at(tree, "")] == ["claim", "pass"]
    assert [c.key for c in children_at(tree, "claim")] == ["paris-wien", "berlin-wien"]
    assert node_at(tree, "claim/berlin-wien").action == Action(
        "claim_route", 0, {"route": "berlin-wien"}
    )
    with pytest.raises(ChoicePathError, match=r"no choice 'madrid' under 'claim'"):
        children_at(tree, "claim/madrid")
    with pytest.raises(ChoicePathError, match="at the top"):
        node_at(tree, "draw")
    assert [p for p, _ in leaves(tree)] == ["claim/paris-wien", "claim/berlin-wien", "pass"]


def test_random_leaves_reach_only_leaves() -> None:
    rng = random.Random(7)
    seen = {random_leaf(_tree(), rng)[0] for _ in range(60)}  # type: ignore[index]
    assert seen == {"claim/paris-wien", "claim/berlin-wien", "pass"}
    assert random_leaf((), rng) is None


def test_a_node_is_a_leaf_or_has_children_never_both_or_neither() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        Choice("x", msg("x"), None)
    with pytest.raises(ValueError, match="exactly one"):
        Choice(
            "x",
            msg("x"),
            None,
            Action("pass"),
            children=(Choice("y", msg("y"), None, Action("pass")),),
        )
    with pytest.raises(ValueError, match="without '/'"):
        Choice("a/b", msg("x"), None, Action("pass"))


def test_check_tree_finds_duplicate_keys_and_empty_steps() -> None:
    leaf = Choice("pass", msg("pass"), None, Action("pass"))
    with pytest.raises(ValueError, match="share the key"):
        check_tree((leaf, leaf))
    with pytest.raises(ValueError, match="claim: offered, but nothing legal"):
        check_tree((Choice("claim", msg("claim"), None, children=lambda: ()),))
    check_tree(_tree())
