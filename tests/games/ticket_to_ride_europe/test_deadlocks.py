"""Turns that must end (issue 48): the card-drawing states where the engine used to wait for a
card that could not come, or wiped the face-up cards for ever. Rulebook "LÍZNUTÍ KARET VAGÓNŮ"
(and "LOKOMOTIVY"); every state is then played to the end through the choices tree, every
offered leaf accepted."""

from __future__ import annotations

import random
from typing import Any

import pytest

from companion.core import IllegalActionError
from companion.core.choices import check_tree, leaves
from companion.games.ticket_to_ride_europe import cards as tc
from companion.games.ticket_to_ride_europe.choices import choices
from companion.games.ticket_to_ride_europe.rules import GAME, TtrState
from tests.games.table_leaf import table_leaf
from tests.games.ticket_to_ride_europe.test_table import act, edit, started

LOCO = "locomotive"


def play_to_the_end(state: TtrState, seed: int, limit: int = 3000) -> int:
    """Random leaves of the tree (each player's own view when it is theirs) until the game is
    over; every leaf offered is accepted and the tree is never empty before the end."""
    rng = random.Random(seed)
    for step in range(limit):
        if GAME.is_over(state) and not state.face_up_due:
            return step
        active = GAME.status(state).active_players
        tree = choices(state, rng.choice(active) if active else None)
        check_tree(tree, deep=False)
        picked = table_leaf(state, tree, rng)
        assert picked is not None, f"step {step}: nothing to enter, the game is not over"
        assert picked[1].action is not None
        state = GAME.apply(state, picked[1].action)  # raises (fails) when refused
        assert GAME.problems(state) == ()
    raise AssertionError(f"no end after {limit} steps")


def every_leaf_is_accepted(state: TtrState) -> int:
    tree = choices(state, state.turn)
    check_tree(tree)
    found = list(leaves(tree))
    for _, leaf in found:
        assert leaf.action is not None
        GAME.apply(state, leaf.action)
    return len(found)


def fifth_locomotive() -> TtrState:
    """Four locomotives and a red face up (the wipe cannot help: nothing else is left to turn),
    one card in the deck, no discards. P0 takes the red; its replacement is the fifth
    locomotive and the deck and the discards are empty."""
    state = edit(started(), face_up=[LOCO, LOCO, "red", LOCO, LOCO], deck=1, discard={})
    state = act(state, "take_face_up", 0, card="red")
    assert state.cards_drawn == 1 and state.face_up_due == 1
    return act(state, "reveal_face_up", cards=[LOCO])


def test_with_no_card_left_to_draw_the_turn_ends_after_the_first_card() -> None:
    """LÍZNUTÍ KARET VAGÓNŮ: "Pokud nastane nepravděpodobná situace, že je balíček dolízaný a
    žádné odhozené karty nejsou k dispozici …, hráč nemá možnost líznout si další karty
    vagonů." Five locomotives face up cannot be the second card (LOKOMOTIVY), the deck and the
    discards are empty: the player cannot draw more, and the turn ends with the one card."""
    state = fifth_locomotive()
    assert state.face_up == (LOCO,) * 5 and state.deck == 0 and state.discard == tc.NONE
    assert state.turn == 1 and state.cards_drawn == 0
    assert state.players[0].known[tc.INDEX["red"]] == 1
    # the next player's tree is not empty: a face-up locomotive (the only card of a turn),
    # a route, tickets or a station
    assert every_leaf_is_accepted(state) > 0
    kinds = {leaf.action.kind for _, leaf in leaves(choices(state, 1)) if leaf.action}
    assert {"take_face_up", "claim_route"} <= kinds and "draw_blind" not in kinds


def ten_cards_six_locomotives() -> TtrState:
    """Ten train cards left outside the hands (five face up, five in the deck), six of them
    locomotives, three in each five. P0 takes a red; the replacement is the third face-up
    locomotive, so the five are wiped and the deck's five turned: three locomotives again."""
    state = edit(started(face_up=[LOCO, LOCO, "red", "blue", "green"]), deck=6, discard={})
    state = act(state, "take_face_up", 0, card="red")
    state = act(state, "reveal_face_up", cards=[LOCO])
    assert state.face_up == (None,) * 5 and state.face_up_due == 5  # the first wipe
    return act(state, "reveal_face_up", cards=[LOCO, LOCO, LOCO, "white", "black"])


def test_wipes_that_would_only_swap_two_fives_stop() -> None:
    """LÍZNUTÍ KARET VAGÓNŮ: three face-up locomotives → the five are "nahrazeno pěti novými
    kartami". The rulebook is silent on a wipe that cannot help; our reading: once the deck
    is the first five reshuffled (known to the table, two of them not locomotives), five new
    cards would show three locomotives again, for ever — so the second five stay and the turn
    goes on. (The engine used to swap the two fives for ever: 200 reveals, 40 wipes.)"""
    state = ten_cards_six_locomotives()
    assert state.face_up == (LOCO, LOCO, LOCO, "white", "black")
    assert state.face_up_due == 0
    assert state.deck == 5 and state.deck_pool == tc.cards_of([LOCO] * 3 + ["blue", "green"])
    # P0 takes the second card: a face-up white (a locomotive cannot be the second card)
    assert every_leaf_is_accepted(state) > 0
    state = act(state, "take_face_up", 0, card="white")
    assert state.turn == 1 and state.players[0].hand == 6  # two cards: the turn is over
    assert state.face_up_due == 1  # the white's replacement, from the reshuffled five
    state = act(state, "reveal_face_up", cards=["blue"])
    assert state.face_up == (LOCO, LOCO, LOCO, "blue", "black") and state.face_up_due == 0


def test_a_wipe_that_can_help_still_happens() -> None:
    """The reading above stops only a wipe certain to repeat: with other cards in the deck the
    five are wiped, as the rulebook says."""
    state = edit(started(face_up=[LOCO, LOCO, "red", "blue", "green"]), deck=20, discard={})
    state = act(state, "take_face_up", 0, card="red")
    state = act(state, "reveal_face_up", cards=[LOCO])
    assert state.face_up == (None,) * 5 and state.face_up_due == 5


def test_the_deadlock_states_play_to_the_end_through_the_tree() -> None:
    """Both states, played on through the tree with random choices, reach the end of the game
    with every offered leaf accepted."""
    for seed in range(2):
        assert play_to_the_end(fifth_locomotive(), seed) > 0
        assert play_to_the_end(ten_cards_six_locomotives(), seed) > 0


def nothing_to_draw(**hands: Any) -> TtrState:
    """No train card face up, in the deck or in the discards (the other player holds them),
    no destination ticket left; P0 holds ``hands`` (default: no card) and it is P0's turn."""
    mine = hands or {"cards": 0, "known": {}}
    return edit(started(), face_up=[None] * 5, deck=0, discard={}, tickets_deck=0, hands=[mine])


def test_a_player_who_can_draw_nothing_and_pay_for_nothing_passes() -> None:
    """LÍZNUTÍ KARET VAGÓNŮ: with no train card to draw a player "musí tedy obsadit trať,
    líznout si kartu cílové stanice nebo postavit nádraží". The rulebook is silent when the
    hand pays for no route and no station and no ticket is left; our reading: the turn passes
    (the tree used to offer nothing at all here)."""
    state = nothing_to_draw()
    assert [c.key for c in choices(state, 0)] == ["pass"]
    assert every_leaf_is_accepted(state) == 1
    after = act(state, "pass_turn", 0)
    assert after.turn == 1 and after.phase == "play" and after.passes == 1
    assert GAME.from_json(GAME.to_json(after)) == after
    # P1 holds every other card, unseen: the table cannot tell, so P1 may claim or pass
    assert {"claim", "station", "pass"} <= {c.key for c in choices(after, 1)}
    # a move that is not a pass starts the count again
    claimed = act(after, "claim_route", 1, route="danzig-warszawa", cards={"black": 2})
    assert claimed.passes == 0


def test_a_pass_is_refused_while_a_move_is_possible() -> None:
    """The pass is for a turn with no move: a card or a ticket to draw, or cards the table saw
    the player take that pay for a station (STAVBA NÁDRAŽÍ: the first costs one card), refuse
    it."""
    with pytest.raises(IllegalActionError, match="train card can still be drawn"):
        act(started(), "pass_turn", 0)
    with pytest.raises(IllegalActionError, match="tickets can still be drawn"):
        act(edit(nothing_to_draw(), tickets_deck=2), "pass_turn", 0)
    seen_red = nothing_to_draw(cards=1, known={"red": 1})
    with pytest.raises(IllegalActionError, match="pay for"):
        act(seen_red, "pass_turn", 0)
    assert "pass" not in {c.key for c in choices(seen_red, 0)}
    # one card the table did not see: only the player knows whether it pays for a station
    unseen = nothing_to_draw(cards=1, known={})
    assert {"station", "pass"} <= {c.key for c in choices(unseen, 0)}


def test_when_every_player_passes_in_a_row_the_game_ends() -> None:
    """A pass changes nothing: passes all round would repeat for ever. Our reading (KONEC HRY
    is silent): when every player has passed in a row, nobody can move any more and the game
    ends, then is scored as usual."""
    state = act(nothing_to_draw(), "pass_turn", 0)
    over = act(state, "pass_turn", 1)
    assert over.phase == "over" and GAME.is_over(over)
    assert choices(over, 0) == ()


def test_a_table_with_nothing_to_draw_plays_to_the_end_through_the_tree() -> None:
    for seed in range(2):
        assert play_to_the_end(nothing_to_draw(), seed) > 0
