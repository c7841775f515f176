"""companion.core.privacy: which inputs are private and what others see of them."""

from __future__ import annotations

from companion.core.privacy import (
    has_private_view,
    private_actions,
    private_kind,
    public_message,
    redact_event,
)
from companion.games import find_game

TS = find_game("trains-and-stations")
KINDS = private_actions(TS)


def test_games_declare_their_private_actions_and_views() -> None:
    assert private_actions(TS) == frozenset({"speculate", "report_special_goods"})
    assert has_private_view(TS)
    tiny = find_game("tiny-race")
    assert private_actions(tiny) == frozenset() and not has_private_view(tiny)


def test_a_private_kind_is_found_in_an_action_or_a_correction() -> None:
    speculate = {"kind": "speculate", "player": 0, "args": {"goods": {"cattle": 4}}}
    assert private_kind({"action": speculate}, KINDS) == "speculate"
    correct = {"command": "correct", "target_seq": 9, "action": speculate}
    assert private_kind(correct, KINDS) == "speculate"
    assert private_kind({"action": {"kind": "roll"}}, KINDS) is None
    assert private_kind({"action": "speculate"}, KINDS) is None
    assert private_kind({"action": speculate}, frozenset()) is None
    assert private_kind(["not", "a", "payload"], KINDS) is None


def test_a_redacted_event_keeps_who_and_what_kind_but_no_arguments() -> None:
    event = {
        "type": "action_applied",
        "action": {"kind": "speculate", "player": 1, "args": {"goods": {"cattle": 4}}},
    }
    assert redact_event(event, KINDS) == {
        "type": "action_applied",
        "action": {"kind": "speculate", "player": 1},
        "private": True,
    }
    roll = {"type": "action_applied", "action": {"kind": "roll", "player": 0, "args": {"d": 1}}}
    assert redact_event(roll, KINDS) is roll
    started = {"type": "game_started", "game": "trains-and-stations"}
    assert redact_event(started, KINDS) is started


def test_the_public_message_names_the_player_and_the_kind_only() -> None:
    assert public_message("Ann", "speculate", "applied") == "Ann: speculate (private)"
    refused = public_message("Ann", "report_special_goods", "rejected")
    assert refused.startswith("Ann: report special goods (private) — refused")
