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


def test_a_private_refusal_names_its_player_and_keeps_rule_and_section() -> None:
    from companion.core.errors import IllegalActionError
    from companion.core.privacy import PRIVATE_REFUSAL, PrivateRefusalError, action_is_private

    refusal = PrivateRefusalError(
        "Karel holds no special card that could be a task", 3, rule="a rule", section="Krok 4"
    )
    assert isinstance(refusal, IllegalActionError) and refusal.player == 3
    assert str(refusal) == (
        "Karel holds no special card that could be a task — rule: a rule — rulebook: Krok 4"
    )
    assert "Karel" not in PRIVATE_REFUSAL and "refused" in PRIVATE_REFUSAL
    assert action_is_private({"kind": "speculate"}, KINDS)
    assert not action_is_private({"kind": "roll"}, KINDS) and not action_is_private(None, KINDS)


def test_ticket_to_ride_keeps_tickets_and_the_declared_hand_private() -> None:
    ttr = find_game("ticket-to-ride-europe")
    assert private_actions(ttr) == frozenset({"keep_ticket", "declare_hand"})
    assert has_private_view(ttr)
