"""The table, rule by rule (seed 001, Czech sections named in each test's docstring)."""

from __future__ import annotations

import json
from fractions import Fraction
from itertools import combinations
from typing import Any

import pytest

from companion.core import (
    Action,
    IllegalActionError,
    PlayerSpec,
    Prompt,
    SnapshotError,
    UnknownComponentError,
)
from companion.core.i18n import translations
from companion.core.messages import render_text
from companion.core.snapshot import Field
from companion.games import find_game
from companion.games.ticket_to_ride_europe import cards as tc
from companion.games.ticket_to_ride_europe.names import colour_name
from companion.games.ticket_to_ride_europe.rules import GAME, TtrState, tunnel_odds

FACE_UP = ["red", "blue", "green", "yellow", "white"]


def act(state: TtrState, kind: str, player: int | None = None, **args: Any) -> TtrState:
    return GAME.apply(state, Action(kind, player, args))


def refused(state: TtrState, match: str, kind: str, player: int | None = None, **args: Any) -> None:
    with pytest.raises(IllegalActionError, match=match):
        act(state, kind, player, **args)


def started(n: int = 2, face_up: list[str] | None = None) -> TtrState:
    """A table after setup: five cards face up, each player kept two tickets."""
    state = GAME.setup([PlayerSpec(f"P{i}") for i in range(n)], {})
    state = act(state, "reveal_face_up", cards=face_up or FACE_UP)
    regular = ["paris-wien", "berlin-roma", "madrid-dieppe", "london-wien", "essen-kyiv"]
    longs = ["edinburgh-athina", "brest-petrograd", "lisboa-danzig", "palermo-moskva"]
    for i in range(n):
        state = act(state, "keep_ticket", i, ticket=regular[i])
        state = act(state, "keep_ticket", i, ticket=longs[i])
        state = act(state, "done_tickets", i)
    assert state.phase == "play"
    return state


def edit(state: TtrState, **table: Any) -> TtrState:
    """The same table with some snapshot fields changed (through the documented notation)."""
    data = GAME.to_json(state)
    players = table.pop("players", None)
    hands = table.pop("hands", None)
    data["table"].update(table)  # type: ignore[union-attr]
    if players is not None:
        for p, changes in zip(data["players"], players, strict=False):  # type: ignore[arg-type]
            p.update(changes)
    if hands is not None:
        for h, changes in zip(data["table"]["hands"], hands, strict=False):  # type: ignore[index,call-overload]
            h.update(changes)
    # every one of the 110 cards is somewhere (OBSAH BALENÍ; from_json checks it): the cards an
    # edit moved out of sight go to (or come from) the deck, or when the deck was set, the last
    # player's hand
    t: Any = data["table"]
    tunnel = t["tunnel"] or {"played": {}, "revealed": []}
    counted = (
        t["deck"]
        + sum(t["discard"].values())
        + sum(1 for c in t["face_up"] if c is not None)
        + sum(h["cards"] for h in t["hands"])
        + sum(tunnel["played"].values())
        + len(tunnel["revealed"])
    )
    balance = "hands" if "deck" in table else "deck"
    if balance == "deck":
        t["deck"] += 110 - counted
    else:
        t["hands"][-1]["cards"] += 110 - counted
    return GAME.from_json(data)


# -- set-up -----------------------------------------------------------------------------------
def test_setup_deals_four_cards_each_and_three_regular_tickets_each() -> None:
    """PŘÍPRAVA HRY."""
    state = GAME.setup([PlayerSpec("A"), PlayerSpec("B"), PlayerSpec("C")], {})
    assert state.deck == 110 - 12
    assert state.tickets_deck == 40 - 9
    assert all(p.hand == 4 and p.trains == 45 for p in state.players)
    assert state.face_up_due == 5
    assert str(GAME.status(state).waiting_for) == "5 cards from the deck to be turned face up"


def test_setup_takes_two_to_five_players() -> None:
    with pytest.raises(IllegalActionError, match="the game is for 2 to 5 players"):
        GAME.setup([PlayerSpec("A")], {})
    with pytest.raises(IllegalActionError, match="the game is for 2 to 5 players"):
        GAME.setup([PlayerSpec(str(i)) for i in range(6)], {})


def test_each_player_keeps_at_least_two_tickets_one_long_and_three_regular_at_most() -> None:
    """ZAČÁTEK HRY: keep at least two of the four dealt (one long, three regular)."""
    state = GAME.setup([PlayerSpec("A"), PlayerSpec("B")], {})
    state = act(state, "keep_ticket", 0, ticket="cadiz-stockholm")
    refused(state, "keep at least two", "done_tickets", 0)
    refused(state, "one long ticket each", "keep_ticket", 0, ticket="lisboa-danzig")
    for t in ("paris-wien", "berlin-roma", "madrid-dieppe"):
        state = act(state, "keep_ticket", 0, ticket=t)
    refused(state, "three regular tickets each", "keep_ticket", 0, ticket="essen-kyiv")
    refused(state, "already among A's tickets", "keep_ticket", 0, ticket="paris-wien")
    # another player's ticket is theirs to know (LÍZNUTÍ KARET CÍLOVÝCH STANIC: "neukazují
    # ostatním"): not refused while hidden; a ticket entered twice shows once the game is over
    assert act(state, "keep_ticket", 1, ticket="paris-wien").players[1].tickets == ("paris-wien",)
    state = act(state, "done_tickets", 0)
    assert state.players[0].ready and len(state.players[0].tickets) == 4
    refused(state, "already chosen", "done_tickets", 0)


def test_play_starts_when_tickets_are_chosen_and_five_cards_lie_face_up() -> None:
    state = GAME.setup([PlayerSpec("A"), PlayerSpec("B")], {})
    for i in range(2):
        state = act(state, "keep_ticket", i, ticket=["paris-wien", "berlin-roma"][i])
        state = act(state, "keep_ticket", i, ticket=["cadiz-stockholm", "lisboa-danzig"][i])
        state = act(state, "done_tickets", i)
    assert state.phase == "setup"
    refused(state, "kept tickets and five cards", "draw_blind", 0)
    state = act(state, "reveal_face_up", cards=FACE_UP)
    assert state.phase == "play" and state.deck == 110 - 8 - 5


# -- drawing train cards ----------------------------------------------------------------------
def test_two_cards_a_turn_and_a_taken_face_up_card_is_replaced_at_once() -> None:
    """LÍZNUTÍ KARET VAGÓNŮ."""
    state = started()
    state = act(state, "take_face_up", 0, card="red")
    assert state.face_up.count(None) == 1 and state.face_up_due == 1
    refused(state, "face up first", "draw_blind", 0)
    state = act(state, "reveal_face_up", cards=["black"])
    state = act(state, "draw_blind", 0)
    assert state.turn == 1
    assert state.players[0].hand == 6
    assert state.players[0].known == tc.cards_of(["red"])
    refused(state, "P1's turn", "draw_blind", 0)


def test_a_face_up_locomotive_is_the_only_card_of_the_turn() -> None:
    """LOKOMOTIVY: taken first, it ends the turn; it cannot be taken as the second card."""
    state = started(face_up=["red", "locomotive", "green", "yellow", "white"])
    after = act(state, "take_face_up", 0, card="locomotive")
    assert after.turn == 1
    state = act(state, "draw_blind", 0)
    refused(state, "cannot be taken as the second card", "take_face_up", 0, card="locomotive")


def test_a_locomotive_turned_as_the_replacement_cannot_be_the_second_card() -> None:
    state = started()
    state = act(state, "take_face_up", 0, card="red")
    state = act(state, "reveal_face_up", cards=["locomotive"])
    refused(state, "second card", "take_face_up", 0, card="locomotive")
    state = act(state, "take_face_up", 0, card="blue")
    assert state.turn == 1


def test_a_blind_locomotive_counts_as_one_card() -> None:
    state = started()
    state = act(state, "draw_blind", 0)
    assert state.turn == 0 and state.cards_drawn == 1
    state = act(state, "draw_blind", 0)
    assert state.turn == 1 and state.players[0].hand == 6


def test_three_face_up_locomotives_replace_all_five() -> None:
    """LÍZNUTÍ KARET VAGÓNŮ: three locomotives face up → all five discarded, five new."""
    state = started(face_up=["locomotive", "locomotive", "red", "blue", "green"])
    state = act(state, "take_face_up", 0, card="red")
    state = act(state, "reveal_face_up", cards=["locomotive"])
    assert state.face_up == (None,) * 5
    assert state.face_up_due == 5
    assert state.discard == tc.cards_of(["locomotive"] * 3 + ["blue", "green"])
    state = act(state, "reveal_face_up", cards=["white", "white", "black", "orange", "purple"])
    assert state.face_up_due == 0
    state = act(state, "take_face_up", 0, card="white")
    assert state.turn == 1


def test_the_discards_are_reshuffled_when_the_deck_runs_out() -> None:
    state = edit(started(), deck=0, discard={"red": 3, "blue": 1})
    state = act(state, "draw_blind", 0)
    assert state.deck == 3
    assert state.deck_pool == tc.cards_of(["red"] * 3 + ["blue"])
    assert state.discard == tc.NONE


def test_no_train_card_can_be_drawn_when_deck_and_discards_are_empty() -> None:
    state = edit(started(), deck=0, discard={})
    refused(state, "no train cards can be drawn", "draw_blind", 0)
    # the face-up cards may still be taken; what is not replaced stays empty
    state = act(state, "take_face_up", 0, card="red")
    assert state.face_up_due == 0 and None in state.face_up
    state = act(state, "take_face_up", 0, card="blue")
    # once cards are discarded again, the empty slots are filled from them
    state = act(state, "claim_route", 1, route="danzig-warszawa", cards={"black": 2})
    assert state.face_up_due == 2 and state.discard == tc.cards_of(["black", "black"])
    refused(state, "face up first", "draw_blind", 0)
    state = act(state, "reveal_face_up", cards=["black", "black"])
    assert state.face_up.count(None) == 0 and state.deck == 0


def test_a_card_the_table_has_already_seen_twelve_times_cannot_be_turned() -> None:
    state = edit(started(), discard={"red": 11})  # plus the red face up
    state = act(state, "take_face_up", 0, card="blue")
    with pytest.raises(IllegalActionError, match="all 12 of them are already on the table"):
        act(state, "reveal_face_up", cards=["red"])


# -- claiming routes --------------------------------------------------------------------------
@pytest.mark.parametrize(
    "cards",
    [
        {"yellow": 3},
        {"yellow": 2, "locomotive": 1},
        {"yellow": 1, "locomotive": 2},
        {"locomotive": 3},
    ],
)
def test_rulebook_example_1_a_yellow_route_of_three(cards: dict[str, int]) -> None:
    """OBSAZOVÁNÍ TRATÍ, příklad 1: Amsterdam–Essen is yellow, three spaces."""
    state = edit(started(), hands=[{"cards": 5}])
    state = act(state, "claim_route", 0, route="amsterdam-essen", cards=cards)
    assert state.players[0].routes == ("amsterdam-essen",)
    assert GAME.score(state).players[0].points("routes") == 4
    assert state.discard == tc.parse_cards(Field(cards))
    assert state.turn == 1


@pytest.mark.parametrize("cards", [{"red": 2}, {"yellow": 1, "locomotive": 1}, {"locomotive": 2}])
def test_rulebook_example_2_a_grey_route_of_two(cards: dict[str, int]) -> None:
    """OBSAZOVÁNÍ TRATÍ, příklad 2: any one colour on a grey route (Danzig–Warszawa, 2)."""
    state = act(started(), "claim_route", 0, route="warszawa-danzig", cards=cards)
    assert state.players[0].routes == ("danzig-warszawa",)


def test_claims_with_the_wrong_cards_are_refused() -> None:
    state = started()
    refused(
        state,
        "yellow cards cannot pay",
        "claim_route",
        0,
        route="amsterdam-frankfurt",
        cards={"yellow": 2},
    )
    refused(
        state, "one colour", "claim_route", 0, route="danzig-warszawa", cards={"red": 1, "blue": 1}
    )
    refused(state, "needs 2 card", "claim_route", 0, route="danzig-warszawa", cards={"red": 3})
    short = edit(state, hands=[{"cards": 2}])
    refused(
        short,
        "P0 holds 2 train cards, 3 are needed",
        "claim_route",
        0,
        route="amsterdam-essen",
        cards={"yellow": 3},
    )


def test_a_route_is_claimed_once() -> None:
    state = act(started(), "claim_route", 0, route="danzig-warszawa", cards={"red": 2})
    refused(
        state, "already claimed by P0", "claim_route", 1, route="warszawa-danzig", cards={"red": 2}
    )


def test_ferries_need_a_locomotive_for_each_locomotive_symbol() -> None:
    """TRAJEKTY: Dieppe–London 2 (1 locomotive), Palermo–Smyrna 6 (2 locomotives)."""
    state = started()
    refused(state, "needs 1 locomotive", "claim_route", 0, route="dieppe-london", cards={"red": 2})
    state = act(state, "claim_route", 0, route="dieppe-london", cards={"red": 1, "locomotive": 1})
    assert state.players[0].routes == ("dieppe-london-1",)
    big = edit(state, hands=[{}, {"cards": 6}])
    refused(
        big,
        "needs 2 locomotive",
        "claim_route",
        1,
        route="palermo-smyrna",
        cards={"blue": 5, "locomotive": 1},
    )
    big = act(big, "claim_route", 1, route="palermo-smyrna", cards={"blue": 4, "locomotive": 2})
    assert GAME.score(big).players[1].points("routes") == 15


def test_one_player_never_claims_both_routes_of_a_double_route() -> None:
    """DVOJITÉ TRATĚ."""
    state = started(n=4)
    state = act(state, "claim_route", 0, route="bruxelles-paris:red", cards={"red": 2})
    for p in (1, 2, 3):
        state = act(state, "draw_blind", p)
        state = act(state, "draw_blind", p)
    refused(
        state,
        "both routes of a double route",
        "claim_route",
        0,
        route="paris-bruxelles",
        cards={"yellow": 2},
    )
    # with four players another player may take the other route
    state = act(state, "draw_blind", 0)
    state = act(state, "draw_blind", 0)
    state = act(state, "claim_route", 1, route="paris-bruxelles", cards={"yellow": 2})
    assert state.players[1].routes == ("bruxelles-paris-1",)


@pytest.mark.parametrize("n", [2, 3])
def test_with_two_or_three_players_only_one_route_of_a_double_route_is_used(n: int) -> None:
    """DŮLEŽITÁ POZNÁMKA (after TUNELY)."""
    state = act(started(n=n), "claim_route", 0, route="bruxelles-paris:red", cards={"red": 2})
    refused(
        state,
        "only one route of a double route",
        "claim_route",
        1,
        route="bruxelles-paris:yellow",
        cards={"yellow": 2},
    )


def test_a_double_route_of_two_colours_needs_its_colour_when_the_cards_do_not_say() -> None:
    state = started(n=4)
    with pytest.raises(
        IllegalActionError,
        match=r"Say which of the two routes: Bruxelles – Paris \(yellow\) or Bruxelles – Paris \(red\)",
    ):
        act(state, "claim_route", 0, route="paris-bruxelles", cards={"locomotive": 2})
    state = act(state, "claim_route", 0, route="paris-bruxelles", cards={"red": 2})
    assert state.players[0].routes == ("bruxelles-paris-2",)


def test_a_route_needs_enough_trains_left() -> None:
    routes = ["petrograd-stockholm", "budapest-kyiv", "palermo-smyrna", "berlin-danzig"]
    routes += ["berlin-warszawa:purple", "edinburgh-london:orange", "pamplona-paris:blue"]
    routes += ["athina-brindisi", "danzig-warszawa"]  # 42 trains placed, 3 left
    state = edit(started(), players=[{"routes": routes}], hands=[{"cards": 10}])
    assert state.players[0].trains == 3
    refused(
        state,
        "needs 4 trains; P0 has 3 trains left",
        "claim_route",
        0,
        route="kharkov-moskva",
        cards={"locomotive": 4},
    )


# -- tunnels ----------------------------------------------------------------------------------
def tunnel_table(route: str, cards: dict[str, int], n: int = 2) -> TtrState:
    return act(started(n), "claim_route", 0, route=route, cards=cards)


def test_rulebook_tunnel_example_1_a_red_card_turned_needs_one_more_red() -> None:
    """TUNELY, příklad 1: 2 red played, 1 red among the three turned → 1 red more."""
    state = tunnel_table("sarajevo-sofia", {"red": 2})
    assert state.tunnel is not None and state.turn == 0
    state = act(state, "reveal_tunnel", cards=["red", "blue", "yellow"])
    assert state.tunnel is not None and state.tunnel.extra == 1
    refused(state, "red cards or locomotives", "pay_tunnel", 0, cards={"blue": 1})
    state = act(state, "pay_tunnel", 0, cards={"red": 1})
    assert state.players[0].routes == ("sarajevo-sofia",)
    assert state.discard == tc.cards_of(["red"] * 4 + ["blue", "yellow"])
    assert state.players[0].hand == 1 and state.turn == 1


def test_rulebook_tunnel_example_2_a_turned_locomotive_matches_green() -> None:
    """TUNELY, příklad 2: 2 green played, 1 locomotive turned → 1 green (or locomotive) more."""
    state = tunnel_table("venezia-zurich", {"green": 2})
    state = act(state, "reveal_tunnel", cards=["locomotive", "red", "white"])
    assert state.tunnel is not None and state.tunnel.extra == 1
    state = act(state, "pay_tunnel", 0, cards={"locomotive": 1})
    assert state.players[0].routes == ("venezia-zurich",)


def test_rulebook_tunnel_example_3_locomotives_only_meet_locomotives() -> None:
    """TUNELY, příklad 3: 2 locomotives played, 1 locomotive turned → 1 locomotive more;
    turned colours cost nothing."""
    state = tunnel_table("munchen-venezia", {"locomotive": 2})
    state = act(state, "reveal_tunnel", cards=["locomotive", "blue", "blue"])
    assert state.tunnel is not None and state.tunnel.extra == 1
    refused(state, "must be locomotives", "pay_tunnel", 0, cards={"blue": 1})
    state = act(state, "pay_tunnel", 0, cards={"locomotive": 1})
    assert state.players[0].routes == ("munchen-venezia",)


def test_no_matching_card_turned_claims_the_tunnel_at_once() -> None:
    state = tunnel_table("munchen-venezia", {"blue": 2})
    state = act(state, "reveal_tunnel", cards=["red"])
    state = act(state, "reveal_tunnel", cards=["green", "white"])
    assert state.tunnel is None and state.players[0].routes == ("munchen-venezia",)
    assert state.turn == 1


def test_withdrawing_from_a_tunnel_takes_the_cards_back_and_ends_the_turn() -> None:
    state = tunnel_table("munchen-venezia", {"blue": 2})
    state = act(state, "reveal_tunnel", cards=["blue", "blue", "locomotive"])
    refused(state, "3 more card", "pay_tunnel", 0, cards={"blue": 2})
    state = act(state, "withdraw_tunnel", 0)
    assert state.players[0].routes == () and state.players[0].hand == 4
    assert state.players[0].known == tc.cards_of(["blue", "blue"])
    assert state.discard == tc.cards_of(["blue", "blue", "locomotive"])
    assert state.turn == 1


def test_with_fewer_than_three_cards_left_only_those_are_turned() -> None:
    state = edit(started(), deck=1, discard={})
    state = act(state, "claim_route", 0, route="munchen-venezia", cards={"blue": 2})
    assert state.tunnel is not None and state.tunnel.reveal == 1
    refused(state, "1 card", "reveal_tunnel", cards=["blue", "blue"])


def test_with_no_card_left_the_tunnel_is_claimed_without_risk() -> None:
    state = edit(started(), deck=0, discard={})
    state = act(state, "claim_route", 0, route="munchen-venezia", cards={"blue": 2})
    assert state.tunnel is None and state.players[0].routes == ("munchen-venezia",)


def brute_odds(pool: tuple[int, ...], draws: int, match: set[str]) -> list[Fraction]:
    cards = [kind for kind, n in zip(tc.KINDS, pool, strict=True) for _ in range(n)]
    counts = [0] * 4
    subsets = list(combinations(range(len(cards)), draws))
    for subset in subsets:
        counts[sum(1 for i in subset if cards[i] in match)] += 1
    return [Fraction(c, len(subsets)) for c in counts]


def test_tunnel_odds_are_exact_fractions_from_what_the_table_has_seen() -> None:
    state = tunnel_table("munchen-venezia", {"blue": 2})
    odds = tunnel_odds(state)
    # unseen: 110 − 5 face up (red, blue, green, yellow, white) − 2 blue laid = 103 cards,
    # of them 12 − 1 − 2 = 9 blue and 14 locomotives match
    unseen = tc.sub(tc.FULL_DECK, tc.cards_of([*FACE_UP, "blue", "blue"]))
    assert sum(unseen) == 103
    assert list(odds) == brute_odds(unseen, 3, {"blue", "locomotive"})
    assert sum(odds) == 1
    assert "no extra card: " in str(GAME.status(state).waiting_for)


def test_tunnel_odds_use_the_declared_hand_and_the_reshuffled_deck() -> None:
    state = edit(started(), hands=[{"cards": 6}])
    declared = act(state, "claim_route", 0, route="munchen-venezia", cards={"blue": 2})
    declared = act(declared, "declare_hand", 0, cards={"blue": 2, "locomotive": 2})
    unseen = tc.sub(tc.FULL_DECK, tc.cards_of([*FACE_UP] + ["blue"] * 4 + ["locomotive"] * 2))
    assert list(tunnel_odds(declared)) == brute_odds(unseen, 3, {"blue", "locomotive"})
    # after a reshuffle the deck is what the discards were: 2 blue, 2 red, 4 cards
    small = edit(started(), deck=4, deck_pool={"blue": 2, "red": 2}, discard={})
    small = act(small, "claim_route", 0, route="munchen-venezia", cards={"blue": 2})
    assert tunnel_odds(small) == (Fraction(0), Fraction(1, 2), Fraction(1, 2), Fraction(0))


def test_tunnel_odds_when_the_discards_must_fill_the_reveal() -> None:
    # one card in the deck (any unseen card), then the two discarded greens
    state = edit(started(), deck=1, discard={"green": 2})
    state = act(state, "claim_route", 0, route="venezia-zurich", cards={"green": 2})
    odds = tunnel_odds(state)
    assert odds[0] == odds[1] == 0
    assert odds[2] + odds[3] == 1
    state = act(state, "reveal_tunnel", cards=["red", "green", "green"])
    assert state.tunnel is not None and state.tunnel.extra == 2


def test_the_declared_hand_must_match_the_cards_held() -> None:
    state = act(started(), "claim_route", 0, route="munchen-venezia", cards={"blue": 2})
    with pytest.raises(IllegalActionError, match="The cards told add up to 1, but P0 holds"):
        act(state, "declare_hand", 0, cards={"red": 1})


def test_a_hand_is_never_declared_inside_the_public_claim() -> None:
    """Cards in hand lie face down: a hand declared with the claim would be in the public log,
    so claim_route refuses it and names declare_hand (private, the claimant's page)."""
    with pytest.raises(
        IllegalActionError, match="told on the player's own page, never with the claim"
    ):
        act(
            started(), "claim_route", 0, route="munchen-venezia", cards={"blue": 2}, hand={"red": 1}
        )


# -- destination tickets ----------------------------------------------------------------------
def test_drawing_tickets_keeps_one_to_three_and_returns_the_rest_under_the_deck() -> None:
    """LÍZNUTÍ KARET CÍLOVÝCH STANIC."""
    state = started()
    before = state.tickets_deck
    state = act(state, "draw_tickets", 0)
    assert state.tickets_deck == before - 3
    refused(state, "keep at least one", "done_tickets", 0)
    refused(state, "only regular tickets", "keep_ticket", 0, ticket="cadiz-stockholm")
    state = act(state, "keep_ticket", 0, ticket="zurich-budapest")
    state = act(state, "done_tickets", 0)
    assert state.tickets_deck == before - 1
    assert "zurich-budapest" in state.players[0].tickets and state.turn == 1


def test_at_most_three_tickets_are_kept_and_a_short_deck_offers_fewer() -> None:
    state = edit(started(), tickets_deck=2)
    state = act(state, "draw_tickets", 0)
    state = act(state, "keep_ticket", 0, ticket="zurich-budapest")
    state = act(state, "keep_ticket", 0, ticket="kyiv-sochi")
    refused(state, "Only 2 tickets were drawn", "keep_ticket", 0, ticket="athina-angora")
    empty = edit(started(), tickets_deck=0)
    refused(empty, "No destination tickets are left", "draw_tickets", 0)


# -- stations ---------------------------------------------------------------------------------
def test_stations_cost_one_two_three_cards_of_one_colour() -> None:
    """STAVBA NÁDRAŽÍ."""
    state = edit(started(n=2), hands=[{"cards": 10}, {"cards": 10}])
    refused(state, "needs 1 card", "build_station", 0, city="paris", cards={"red": 2})
    state = act(state, "build_station", 0, city="paris", cards={"red": 1})
    refused(state, "one station per city", "build_station", 1, city="paris", cards={"red": 1})
    state = act(state, "build_station", 1, city="wien", cards={"locomotive": 1})
    refused(state, "one colour", "build_station", 0, city="roma", cards={"red": 1, "blue": 1})
    state = act(state, "build_station", 0, city="roma", cards={"blue": 1, "locomotive": 1})
    state = act(state, "draw_blind", 1)
    state = act(state, "draw_blind", 1)
    state = act(state, "build_station", 0, city="madrid", cards={"black": 3})
    state = act(state, "draw_blind", 1)
    state = act(state, "draw_blind", 1)
    refused(state, "all 3 stations", "build_station", 0, city="lisboa", cards={"black": 1})
    assert state.players[0].stations == ("paris", "roma", "madrid")
    assert state.players[0].hand == 10 - 6


# -- the end ----------------------------------------------------------------------------------
def test_two_trains_or_fewer_at_the_end_of_a_turn_give_everyone_one_more_turn() -> None:
    """KONEC HRY."""
    routes = ["petrograd-stockholm", "budapest-kyiv", "palermo-smyrna", "berlin-danzig"]
    routes += ["berlin-warszawa:purple", "edinburgh-london:orange", "pamplona-paris:blue"]
    routes += ["athina-brindisi"]  # 40 trains
    state = edit(started(), players=[{"routes": routes}], hands=[{"cards": 10}])
    state = act(state, "claim_route", 0, route="marseille-paris", cards={"locomotive": 4})
    assert state.players[0].trains == 1 and state.final_turns == 2
    assert "last round" in str(GAME.status(state).waiting_for)
    state = act(state, "draw_blind", 1)
    state = act(state, "draw_blind", 1)
    assert not GAME.is_over(state) and state.final_turns == 1
    state = act(state, "build_station", 0, city="wien", cards={"red": 1})
    assert GAME.is_over(state)
    refused(state, "The game is over", "draw_blind", 1)
    sheet = GAME.score(state)
    assert {line.category for line in sheet.players[0].lines} >= {
        "routes",
        "tickets_completed",
        "tickets_failed",
        "unused_stations",
        "european_express",
    }
    assert sheet.winners


def test_the_running_score_is_route_points_only() -> None:
    state = act(started(), "claim_route", 0, route="danzig-warszawa", cards={"red": 2})
    sheet = GAME.score(state)
    assert sheet.totals == (2, 0) and sheet.winners == ()


# -- scans ------------------------------------------------------------------------------------
def test_scans_become_the_same_actions_as_the_page() -> None:
    state = started()
    assert GAME.interpret(state, 0, "ticket:paris-wien") == Action(
        "keep_ticket", 0, {"ticket": "paris-wien"}
    )
    assert GAME.interpret(state, None, "card:red") == Action("take_face_up", 0, {"card": "red"})
    blind = GAME.interpret(state, 0, "card:black")
    assert isinstance(blind, Prompt) and blind.options == (Action("draw_blind", 0),)
    tunnel = tunnel_table("munchen-venezia", {"blue": 2})
    assert GAME.interpret(tunnel, None, "card:green") == Action(
        "reveal_tunnel", None, {"cards": ["green"]}
    )


def test_a_route_scan_asks_which_cards_pay_and_every_option_is_legal() -> None:
    state = edit(started(), hands=[{"cards": 8}])
    prompt = GAME.interpret(state, 0, "route:dieppe-london")
    assert isinstance(prompt, Prompt) and prompt.options
    for option in prompt.options:
        after = GAME.apply(state, option)
        assert after.players[0].routes == ("dieppe-london-1",)
    station = GAME.interpret(state, 0, "station:paris")
    assert isinstance(station, Prompt) and len(station.options) == 9
    for option in station.options:
        assert GAME.apply(state, option).players[0].stations == ("paris",)
    full = edit(state, players=[{"stations": ["roma", "wien", "madrid"]}])
    done = GAME.interpret(full, 0, "station:paris")
    assert isinstance(done, Prompt) and done.options == () and "all 3" in str(done.question)


def test_every_component_is_listed_and_unknown_ones_are_refused() -> None:
    ids = {c.id for c in find_game("ticket-to-ride-europe").components}
    assert len([i for i in ids if i.startswith("ticket:")]) == 46
    assert len([i for i in ids if i.startswith("station:")]) == 47
    assert len([i for i in ids if i.startswith("card:")]) == 9
    assert "route:bruxelles-paris:red" in ids and "route:dieppe-london" in ids
    with pytest.raises(UnknownComponentError):
        GAME.interpret(started(), 0, "route:paris-atlantis")


# -- snapshots --------------------------------------------------------------------------------
def test_a_table_snapshot_round_trips_and_scores_with_trackside_score() -> None:
    state = tunnel_table("munchen-venezia", {"blue": 2})
    data = GAME.to_json(state)
    assert GAME.from_json(data) == state
    sheet = GAME.score_snapshot(data)
    assert len(sheet.players) == 2


def test_problems_name_an_impossible_table() -> None:
    state = edit(started(), discard={"red": 12})
    assert [p.code for p in GAME.problems(state)] == ["too_many_cards"]


def test_odds_after_some_cards_are_turned_count_what_is_already_owed() -> None:
    state = edit(started(), deck=4, deck_pool={"blue": 2, "red": 2}, discard={})
    state = act(state, "claim_route", 0, route="munchen-venezia", cards={"blue": 2})
    state = act(state, "reveal_tunnel", cards=["blue"])
    # one blue owed; two more from {blue, red, red}: P(one more blue) = 2/3
    assert tunnel_odds(state) == (Fraction(0), Fraction(1, 3), Fraction(2, 3), Fraction(0))


def test_a_declared_hand_the_table_knows_is_impossible_is_refused() -> None:
    state = edit(started(), discard={"red": 11}, hands=[{"cards": 6}])  # the 12th red is face up
    state = act(state, "claim_route", 0, route="munchen-venezia", cards={"blue": 2})
    with pytest.raises(IllegalActionError, match=r"1× red told, but only 0 of them"):
        act(state, "declare_hand", 0, cards={"red": 1, "green": 3})


def test_the_page_offers_every_way_to_pay_a_tunnel_or_to_withdraw() -> None:
    state = tunnel_table("venezia-zurich", {"green": 2})
    state = act(state, "reveal_tunnel", cards=["green", "locomotive", "red"])
    prompt = GAME.status(state).prompt
    assert prompt is not None
    kinds = [(o.kind, o.args.get("cards")) for o in prompt.options]
    assert kinds[-1] == ("withdraw_tunnel", None)
    assert len(prompt.options) == 4  # 2 green, 1 green + 1 loco, 2 locos, withdraw
    rich = edit(state, hands=[{"cards": 4}])
    for option in prompt.options:
        after = GAME.apply(rich, option)
        assert after.tunnel is None and after.turn == 1


def test_the_twin_grey_ferries_read_back_into_the_same_table() -> None:
    """Dieppe–London is written the same for both routes; the snapshot still round-trips."""
    state = act(started(n=4), "draw_blind", 0)
    state = act(state, "draw_blind", 0)
    state = act(state, "claim_route", 1, route="dieppe-london", cards={"locomotive": 2})
    state = act(state, "draw_blind", 2)
    state = act(state, "draw_blind", 2)
    state = act(state, "draw_blind", 3)
    state = act(state, "draw_blind", 3)
    state = act(state, "claim_route", 0, route="london-dieppe", cards={"red": 1, "locomotive": 1})
    assert GAME.from_json(GAME.to_json(state)) == state
    assert state.players[0].routes == ("dieppe-london-1",)
    assert state.players[1].routes == ("dieppe-london-2",)


# -- the camera's cards ("TUNELY", "LÍZNUTÍ KARET VAGÓNŮ") ---------------------------------------
def test_camera_cards_fill_the_face_up_row_at_setup() -> None:
    from companion.core import Action, Prompt
    from companion.core.game import PlayerSpec
    from companion.games import find_game

    game = find_game("ticket-to-ride-europe")
    state = game.setup([PlayerSpec("Red"), PlayerSpec("Blue")], {})
    assert state.face_up_due == 5
    action = game.interpret_cards(state, ["red", "blue", "green", "white", "black"])  # type: ignore[attr-defined]
    assert action == Action(
        "reveal_face_up", None, {"cards": ["red", "blue", "green", "white", "black"]}
    )
    assert isinstance(game.interpret_cards(state, ["red", "unsure"]), Prompt)  # type: ignore[attr-defined]
    too_many = game.interpret_cards(state, ["red"] * 6)  # type: ignore[attr-defined]
    assert isinstance(too_many, Prompt) and "6 cards" in str(too_many.question)


def test_camera_reads_the_tunnel_reveal_of_rulebook_example_1() -> None:
    """TUNELY, příklad 1 through the camera: the three turned cards arrive as one reading."""
    from companion.core import Prompt
    from companion.games import find_game

    game = find_game("ticket-to-ride-europe")
    state = tunnel_table("sarajevo-sofia", {"red": 2})
    assert isinstance(game.interpret_cards(state, ["red", "blue"]), Prompt)  # type: ignore[attr-defined]
    action = game.interpret_cards(state, ["red", "blue", "yellow"])  # type: ignore[attr-defined]
    state = game.apply(state, action)
    assert state.tunnel is not None and state.tunnel.extra == 1


def test_the_public_view_keeps_destination_tickets_secret_until_the_end() -> None:
    """Tickets are secret in play ("PRŮBĚH HRY"); the scoreboard and MQTT show only how many."""
    from companion.games import find_game

    game = find_game("ticket-to-ride-europe")
    state = started()
    held = [len(p.tickets) for p in state.players]
    assert all(held)
    public = game.public_json(state)  # type: ignore[attr-defined]
    assert [p["tickets"] for p in public["players"]] == [[], []]
    assert [p["tickets_held"] for p in public["players"]] == held
    text = json.dumps(public)
    for player in state.players:
        for ticket in player.tickets:
            assert ticket not in text


# -- issue 15: the rule gaps found at the table -----------------------------------------------
def test_the_discards_are_shuffled_as_soon_as_the_deck_runs_out_not_at_the_next_draw() -> None:
    """LÍZNUTÍ KARET VAGÓNŮ: "Jakmile je balíček karet dolízan, odhozené karty se zamíchají a
    vytvoří se z nich nový balíček." The last card leaves the deck → the four red discards are
    the new deck at once; the two blue cards discarded afterwards stay in the discards, so a
    tunnel turned from the new deck can only show red (odds 1 for no extra card) and a blue
    card turned from it is refused."""
    state = edit(started(), deck=2, discard={"red": 4}, hands=[{"cards": 8}])
    state = act(state, "draw_blind", 0)
    state = act(state, "draw_blind", 0)  # the last card: the deck is empty now
    assert state.deck == 4 and state.deck_pool == tc.cards_of(["red"] * 4)
    assert state.discard == tc.NONE
    state = act(state, "claim_route", 1, route="berlin-essen", cards={"blue": 2})
    assert state.discard == tc.cards_of(["blue", "blue"]) and state.deck == 4
    state = act(state, "claim_route", 0, route="munchen-venezia", cards={"blue": 2})
    assert tunnel_odds(state) == (Fraction(1), Fraction(0), Fraction(0), Fraction(0))
    assert "no extra card: 100 %" in str(GAME.status(state).waiting_for)
    refused(state, "the reshuffled deck had none left", "reveal_tunnel", cards=["blue"])
    state = act(state, "reveal_tunnel", cards=["red", "red", "red"])
    assert state.tunnel is None and "munchen-venezia" in state.players[0].routes


def test_a_payment_with_cards_the_table_knows_are_elsewhere_is_refused() -> None:
    """OBSAZOVÁNÍ TRATÍ: a route is paid from the hand; OBSAH BALENÍ: 12 cards of each colour.
    Eleven greens are discarded and one lies face up: no green can be in P0's hand."""
    state = edit(started(), discard={"green": 11})
    refused(
        state,
        "P0 cannot pay 2× green: of the 12 green cards the table has seen 12 elsewhere.*holds at most 0",
        "claim_route",
        0,
        route="essen-frankfurt",
        cards={"green": 2},
    )
    assert GAME.apply(state, Action("draw_blind", 0)).players[0].hand == 5  # nothing changed
    # a tunnel's extra cards are checked the same way
    tunnel = edit(started(), discard={"blue": 9}, hands=[{"cards": 8}])
    tunnel = act(tunnel, "claim_route", 0, route="munchen-venezia", cards={"blue": 2})
    tunnel = act(tunnel, "reveal_tunnel", cards=["locomotive", "red", "red"])
    refused(tunnel, "cannot pay 1× blue", "pay_tunnel", 0, cards={"blue": 1})
    paid = act(tunnel, "pay_tunnel", 0, cards={"locomotive": 1})
    assert "munchen-venezia" in paid.players[0].routes


def test_a_snapshot_whose_train_cards_do_not_add_up_to_110_is_refused() -> None:
    """OBSAH BALENÍ: "110 karet vagonů: 12 od každého druhu a 14 lokomotiv"."""
    data = GAME.to_json(started())
    data["table"]["deck"] -= 1  # type: ignore[index,operator]
    with pytest.raises(SnapshotError, match=r"table: the train cards add up to 109 \(deck "):
        GAME.from_json(data)
    data["table"]["deck"] += 2  # type: ignore[index,operator]
    with pytest.raises(SnapshotError, match="add up to 111"):
        GAME.from_json(data)


def test_tickets_are_private_each_player_sees_their_own() -> None:
    """LÍZNUTÍ KARET CÍLOVÝCH STANIC: "Karty cílových stanic hráči neukazují ostatním až do
    závěrečného sčítání bodů." keep_ticket is a private action; the private view shows the
    viewer's own tickets only; a ticket already entered names no holder."""
    assert "keep_ticket" in GAME.private_actions
    state = started()
    mine = GAME.private_json(state, 0)
    players: Any = mine["players"]
    assert mine["viewer"] == 0
    assert players[0]["tickets"] == ["paris-wien", "edinburgh-athina"]
    assert players[1]["tickets"] == [] and players[1]["tickets_held"] == 2
    public: Any = GAME.public_json(state)
    assert all(p["tickets"] == [] for p in public["players"])
    drawn = act(act(state, "draw_tickets", 0), "keep_ticket", 0, ticket="madrid-dieppe")
    view: Any = GAME.private_json(drawn, 0)
    assert view["table"]["ticket_draw"]["kept"] == ["madrid-dieppe"]
    other: Any = GAME.private_json(drawn, 1)
    assert other["table"]["ticket_draw"]["kept"] == []
    assert "madrid-dieppe" not in json.dumps(other) and "madrid-dieppe" not in json.dumps(
        GAME.public_json(drawn)
    )


def test_the_claimants_declared_hand_sharpens_only_their_own_odds() -> None:
    """TUNELY: the odds of extra cards. Cards in hand are face down: the claimant declares the
    rest of their hand privately (declare_hand) and sees their exact odds; everyone else sees
    the onlookers' odds (the hand may be in the deck as far as they know), and no surface but
    the claimant's shows the hand."""
    assert "declare_hand" in GAME.private_actions
    state = edit(started(), hands=[{"cards": 6}])
    state = act(state, "claim_route", 0, route="munchen-venezia", cards={"blue": 2})
    onlookers = tunnel_odds(state)
    state = act(state, "declare_hand", 0, cards={"blue": 2, "locomotive": 2})
    unseen = tc.sub(tc.FULL_DECK, tc.cards_of([*FACE_UP] + ["blue"] * 4 + ["locomotive"] * 2))
    assert list(tunnel_odds(state)) == brute_odds(unseen, 3, {"blue", "locomotive"})
    assert tunnel_odds(state, with_hand=False) == onlookers != tunnel_odds(state)
    public: Any = GAME.public_json(state)
    assert public["table"]["tunnel"]["declared"] is None
    exact = [f"{p.numerator}/{p.denominator}" for p in onlookers]
    assert public["table"]["tunnel"]["odds"]["exact"] == exact
    assert public["table"]["tunnel"]["odds"]["percent"] == ["46 %", "41 %", "11 %", "1 %"]
    waiting = str(GAME.status(state).waiting_for)
    assert (
        "no extra card: 46 %, 1 extra card: 41 %, 2 extra cards: 11 %, 3 extra cards: 1 %"
        in waiting
    )
    mine: Any = GAME.private_json(state, 0)
    assert mine["table"]["tunnel"]["declared"] == {"blue": 2, "locomotive": 2}
    assert mine["table"]["tunnel"]["odds"]["exact"] != exact
    assert mine["players"][0]["your_tunnel_odds"].startswith("no extra card: ")
    odds_cs = render_text(mine["players"][0]["your_tunnel_odds_message"], translations("cs"))
    assert odds_cs.startswith("žádná karta navíc: ")
    other: Any = GAME.private_json(state, 1)
    assert other["table"]["tunnel"]["declared"] is None
    assert other["table"]["tunnel"]["odds"]["exact"] == exact


def test_a_declared_hand_is_checked_against_what_the_table_has_seen() -> None:
    """TUNELY / OBSAH BALENÍ: the declared hand holds what the table saw go into it (a red
    taken face up) and no more of a kind than exists unseen; only the claimant declares, and
    only before the first card is turned."""
    state = act(started(), "take_face_up", 0, card="red")
    state = act(state, "reveal_face_up", cards=["black"])
    state = act(state, "take_face_up", 0, card="black")
    state = act(state, "reveal_face_up", cards=["orange"])
    state = act(state, "draw_blind", 1)
    state = act(state, "draw_blind", 1)
    state = act(state, "claim_route", 0, route="munchen-venezia", cards={"blue": 2})
    with pytest.raises(IllegalActionError, match=r"0× red told, but the table saw 1 of them"):
        act(state, "declare_hand", 0, cards={"black": 1, "white": 3})
    with pytest.raises(IllegalActionError, match="add up to 2, but P0 holds 4 cards after"):
        act(state, "declare_hand", 0, cards={"red": 1, "black": 1})
    refused(
        state, "tunnel München – Venezia \\(blue\\) is P0's", "declare_hand", 1, cards={"red": 1}
    )
    ok = act(state, "declare_hand", 0, cards={"red": 1, "black": 1, "white": 2})
    turned = act(ok, "reveal_tunnel", cards=["red"])
    refused(
        turned,
        "before its first card is turned|waits for its first card",
        "declare_hand",
        0,
        cards={"red": 1, "black": 1, "white": 2},
    )


@pytest.mark.parametrize(
    ("p", "shown"),
    [
        (Fraction(0), "0 %"),
        (Fraction(1), "100 %"),
        (Fraction(1, 1000), "<1 %"),
        (Fraction(999, 1000), ">99 %"),
        (Fraction(1, 2), "50 %"),
        (Fraction(82160, 176851), "46 %"),
        (Fraction(1, 8), "13 %"),
    ],
)
def test_odds_are_shown_as_percentages_rounded_for_people(p: Fraction, shown: str) -> None:
    from companion.games.ticket_to_ride_europe.rules import percent

    assert percent(p) == shown


def test_a_wipe_with_an_empty_deck_and_no_reshuffle_reads_the_deck_as_the_table_knows_it() -> None:
    """LÍZNUTÍ KARET VAGÓNŮ (three face-up locomotives → all five discarded) with our documented
    reading for a wipe that cannot help: the last card left the deck while the discards were
    empty, so the deck "as far as the table knows it" is empty; the five cards that could be
    turned next are these five, two of them not locomotives — a wipe would turn three
    locomotives again for ever, so the five stay."""
    state = edit(
        started(face_up=["locomotive", "locomotive", "red", "blue", "green"]),
        deck=1,
        discard={},
    )
    state = act(state, "take_face_up", 0, card="red")
    state = act(state, "reveal_face_up", cards=["locomotive"])
    assert state.deck == 0 and state.discard == tc.NONE
    assert state.face_up.count("locomotive") == 3 and state.face_up_due == 0
    # with a reshuffled deck that holds other cards, the wipe happens as the rulebook says
    other = edit(
        started(face_up=["locomotive", "locomotive", "red", "blue", "green"]),
        deck=1,
        discard={"white": 6},
    )
    other = act(other, "take_face_up", 0, card="red")
    assert other.deck == 1
    other = act(other, "reveal_face_up", cards=["locomotive"])
    assert other.face_up == (None,) * 5 and other.face_up_due == 5


def test_an_unsure_camera_reading_names_the_cards_it_did_read() -> None:
    """A card the camera is not sure of is never guessed (TUNELY: the turned cards decide the
    extra cards): the question names the cards read, so the players see which card it missed,
    in their language; for one such card its answers are the reveal with each kind of card in
    its place, and one tap applies it as if the camera had read it."""
    from companion.core import Action, Prompt
    from companion.games import find_game

    game = find_game("ticket-to-ride-europe")
    state = tunnel_table("sarajevo-sofia", {"red": 2})
    before = GAME.to_json(state)
    prompt = game.interpret_cards(state, ["red", "unsure", "red"])  # type: ignore[attr-defined]
    assert isinstance(prompt, Prompt)
    assert render_text(prompt.question) == ("The camera read red, ?, red: which card is the “?”?")
    assert render_text(prompt.question, translations("cs")) == (
        "Kamera přečetla červená, ?, červená: která karta je „?“?"
    )
    assert GAME.to_json(state) == before  # nothing applied
    assert [list(o.args["cards"]) for o in prompt.options] == [
        ["red", kind, "red"] for kind in tc.KINDS
    ]
    assert [render_text(label) for label in prompt.labels] == [
        render_text(colour_name(kind)) for kind in tc.KINDS
    ]
    assert prompt.to_json()["labels"][3] == {"id": "yellow", "context": "card colour"}
    assert prompt.swatches == (*tc.COLOURS, "rainbow")  # each answer drawn in its colour
    assert prompt.to_json()["swatches"][-1] == "rainbow"
    yellow = next(o for o in prompt.options if o.args["cards"][1] == "yellow")
    read = game.interpret_cards(state, ["red", "yellow", "red"])  # type: ignore[attr-defined]
    assert yellow == read == Action("reveal_tunnel", None, {"cards": ["red", "yellow", "red"]})
    after = game.apply(state, yellow)
    assert after.tunnel is not None and after.tunnel.extra == 2  # the two reds match the red paid

    two = game.interpret_cards(state, ["unsure", "blue", "unsure"])  # type: ignore[attr-defined]
    assert not two.options
    assert render_text(two.question) == (
        "The camera read ?, blue, ?, but is not sure of the 2 cards marked “?”: enter them "
        "on the table page."
    )
    assert render_text(two.question, translations("sk")) == (
        "Kamera prečítala ?, modrá, ?, ale 2 kartami označenými „?“ si nie je istá: zadajte "
        "ich na stránke stola."
    )

    setup = game.setup([PlayerSpec("Red"), PlayerSpec("Blue")], {})
    alone = game.interpret_cards(setup, ["unsure"])  # type: ignore[attr-defined]
    assert render_text(alone.question) == "The camera is not sure of the card: which is it?"
    assert len(alone.options) == len(tc.KINDS)
    none = game.interpret_cards(setup, ["unsure", "unsure"])  # type: ignore[attr-defined]
    assert render_text(none.question, translations("es")) == (
        "La cámara no está segura de ninguna de las 2 cartas: introdúcelas en la página de la mesa."
    )
    idle = game.apply(setup, game.interpret_cards(setup, ["red", "blue", "green", "white", "red"]))  # type: ignore[attr-defined]
    assert idle.face_up_due == 0
    late = game.interpret_cards(idle, ["red", "unsure"])  # type: ignore[attr-defined]
    assert not late.options and render_text(late.question) == (
        "The camera saw 1× red, but no tunnel or face-up card is waiting."
    )


def test_the_table_tree_shows_each_card_and_route_in_its_colour() -> None:
    """A player finds purple faster by its colour than by its word: every choice that names a
    card's or a route's colour carries that colour as a swatch (a rainbow for a locomotive, the
    rulebook's card of every colour), and a payment one swatch for each kind of card it holds."""
    from companion.core.choices import children_at, node_at
    from companion.games.ticket_to_ride_europe.board import ROUTES
    from companion.games.ticket_to_ride_europe.choices import choices
    from companion.games.ticket_to_ride_europe.final import route_ref

    setup = GAME.setup([PlayerSpec("Red"), PlayerSpec("Blue")], {})
    turn = children_at(choices(setup), "face-up")
    assert [(c.key, c.swatches) for c in turn] == [
        (k, ("rainbow",) if k == "locomotive" else (k,)) for k in tc.KINDS
    ]
    state = started(face_up=["red", "blue", "green", "locomotive", "white"])
    face_up = children_at(choices(state), "draw")
    assert [c.swatches for c in face_up] == [
        ("red",), ("blue",), ("green",), ("rainbow",), ("white",), ()
    ]  # fmt: skip
    assert face_up[-1].key == "blind"  # the deck has no colour
    cities = children_at(choices(state), "claim")
    claim = [route for city in cities for route in city.expand()]
    plain = next(
        r
        for r in ROUTES
        if r.colour == "grey" and r.length == 2 and not r.tunnel and not r.ferry_locomotives
    )
    grey = next(c for c in claim if c.key == route_ref(plain).replace(":", "-"))
    assert grey.swatches == ("grey",)
    assert {c.swatches for c in claim} >= {(k,) for k in tc.COLOURS}
    pays = node_at(choices(state), f"claim/{plain.a}/{grey.key}").expand()
    assert ("purple", "rainbow") in {c.swatches for c in pays}
    mixed = next(c for c in pays if c.swatches == ("purple", "rainbow"))
    assert mixed.action is not None and dict(mixed.action.args["cards"]) == {
        "purple": 1,
        "locomotive": 1,
    }
    assert mixed.to_json()["swatches"] == ["purple", "rainbow"]


def test_a_swatch_no_page_can_draw_is_refused_where_the_choice_is_made() -> None:
    from companion.core import Prompt
    from companion.core.choices import Choice
    from companion.core.messages import msg

    with pytest.raises(ValueError, match="swatch 'locomotive' is not one of"):
        Choice(
            "x", msg("locomotive"), None, action=Action("draw_blind", 0), swatches=("locomotive",)
        )
    with pytest.raises(ValueError, match="1 swatches for 2 options"):
        Prompt("?", None, (Action("a"), Action("b")), (), ("red",))
    assert "swatches" not in Prompt("?", None, (Action("a"),)).to_json()
    assert "swatches" not in Choice("x", msg("x"), None, action=Action("a")).to_json()


def test_a_hand_the_table_has_seen_whole_pays_only_with_those_cards() -> None:
    """OBSAZOVÁNÍ TRATÍ: a route is paid with cards from the hand. P0 holds 2 cards and the
    table saw both go in (two reds taken face up): 2 blue cannot be in that hand, however many
    blue cards are unseen. The reason reads only what everyone saw (the hand's size, the cards
    taken face up), so it may be shown to everyone; the tree offers no such payment either."""
    from companion.core.choices import leaves
    from companion.games.ticket_to_ride_europe.choices import choices

    state = edit(started(face_up=["red", "red", "green", "yellow", "white"]), hands=[{"cards": 0}])
    state = act(state, "take_face_up", 0, card="red")
    state = act(state, "reveal_face_up", cards=["black"])
    state = act(state, "take_face_up", 0, card="red")
    state = act(state, "reveal_face_up", cards=["black"])
    state = act(state, "draw_blind", 1)
    state = act(state, "draw_blind", 1)
    assert state.players[0].hand == 2 and state.players[0].known == tc.cards_of(["red"] * 2)
    refused(
        state,
        "P0 cannot pay 2× blue: of the 2 cards in P0's hand the table saw 2× red go in, so "
        "only 0 other cards can be in it",
        "claim_route",
        0,
        route="berlin-essen",
        cards={"blue": 2},
    )
    refused(state, "only 0 other cards", "claim_route", 0, route="berlin-essen",
            cards={"blue": 1, "locomotive": 1})  # fmt: skip
    # STAVBA NÁDRAŽÍ: a station is paid from the hand too
    refused(state, "only 0 other cards", "build_station", 0, city="berlin", cards={"blue": 1})
    # what the table saw go in pays: 2 red for a grey route of two
    paid = act(state, "claim_route", 0, route="danzig-warszawa", cards={"red": 2})
    assert paid.players[0].hand == 0
    # the tree offers exactly the payments the engine takes: red only
    offered = [leaf.action for _, leaf in leaves(choices(state)) if leaf.action is not None]
    pays = [dict(a.arg("cards")) for a in offered if a.kind in ("claim_route", "build_station")]
    assert pays and all(set(p) == {"red"} for p in pays)
    # one red seen, one card unknown: 1 red + 1 locomotive may be held, 2 blue may not
    half = edit(state, hands=[{"cards": 2, "known": {"red": 1}}])
    claimed = act(
        half, "claim_route", 0, route="danzig-warszawa", cards={"red": 1, "locomotive": 1}
    )
    assert claimed.players[0].routes == ("danzig-warszawa",)
    refused(half, "only 1 other card", "claim_route", 0, route="berlin-essen", cards={"blue": 2})


def test_a_route_is_claimed_by_its_city_first_then_the_route() -> None:
    """ "OBSAZOVÁNÍ TRATÍ": some ninety routes are no list to scroll: the claim lists the cities
    the routes the hand can pay for touch, each city its routes (a route under both its
    cities, with the same payments), and screens list both by name in the reader's language."""
    from companion.core.choices import node_at
    from companion.games.ticket_to_ride_europe.board import ROUTES
    from companion.games.ticket_to_ride_europe.choices import choices
    from companion.games.ticket_to_ride_europe.final import route_ref

    state = started(face_up=["red", "blue", "green", "locomotive", "white"])
    claim = node_at(choices(state), "claim")
    assert claim.by_name
    cities = claim.expand()
    assert all(c.by_name and c.player == claim.player for c in cities)
    under: dict[str, set[str]] = {}
    for city in cities:
        for route in city.expand():
            under.setdefault(route.key, set()).add(city.key)
    by_key = {route_ref(r).replace(":", "-"): r for r in ROUTES}
    assert under
    for key, found in under.items():
        route = by_key[key]
        assert found == {route.a, route.b}, key
        # the same payments whichever city it was found under
        a = [c.action for c in node_at(choices(state), f"claim/{route.a}/{key}").expand()]
        b = [c.action for c in node_at(choices(state), f"claim/{route.b}/{key}").expand()]
        assert a == b and a
