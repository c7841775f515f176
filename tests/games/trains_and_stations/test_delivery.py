"""Krok 4: Doručení! as the table reports it (seed 003_4080579fd62f6692.txt), with the
rulebook's Seattle–Los Angeles–Billings, coal and Seattle–Detroit examples."""

from __future__ import annotations

from dataclasses import replace

import pytest

from companion.core import IllegalActionError, SnapshotError
from companion.core.i18n import translations
from companion.core.privacy import PrivateRefusalError
from companion.games.trains_and_stations import TSState
from companion.games.trains_and_stations.state import Station
from tests.games.trains_and_stations.helpers import act, at_deliver, city, give, table

SLB = [city("Seattle", "special"), city("Los Angeles", "die"), city("Billings", "vp")]


def erik_bohous_sara_karel() -> TSState:
    state = table("Erik", "Bohouš", "Sára", "Karel")
    state = give(state, 0, dice_on_board=3)
    state = give(state, 1, dice_on_board=3)
    return at_deliver(replace(state, bonus_on_board=2))


def test_the_rulebook_delivery_seattle_los_angeles_billings() -> None:
    # Erik and Bohouš both have trains on the route: 3 VP each (one per city). They tie for
    # the majority; Erik, the active player, decides in his own favour and takes all three
    # cities' bonuses (a special card, a bonus die, 1 VP). Sára and Karel get nothing.
    state = erik_bohous_sara_karel()
    with pytest.raises(IllegalActionError, match="the active player decides who wins"):
        act(state, "deliver", 0, cities=SLB, dice=[3, 3, 0, 0], bonus_dice=2)
    after = act(state, "deliver", 0, cities=SLB, dice=[3, 3, 0, 0], bonus_dice=2, majority=0)
    erik, bohous, sara, karel = after.players
    assert (erik.vp, bohous.vp, sara.vp, karel.vp) == (3 + 3 + 1, 3 + 3, 3, 3)
    assert erik.special_cards == 3 and erik.bonus_dice == 1
    assert after.special_deck == state.special_deck - 1
    # 5) the dice go back: the players' to their supplies, the white ones to the common supply
    assert (erik.dice_on_board, bohous.dice_on_board, after.bonus_on_board) == (0, 0, 0)
    assert after.bonus_supply == 9
    assert after.turn.deliveries == (("Seattle", "Los Angeles", "Billings"),)


def test_the_active_player_may_give_a_tied_majority_to_another_player() -> None:
    state = erik_bohous_sara_karel()
    after = act(state, "deliver", 0, cities=SLB, dice=[3, 3, 0, 0], majority=1)
    assert after.players[1].vp == 3 + 3 + 1
    with pytest.raises(SnapshotError, match="Sára is not among the tied players"):
        act(state, "deliver", 0, cities=SLB, dice=[3, 3, 0, 0], majority=2)


def test_bonus_dice_count_for_nobody() -> None:
    state = erik_bohous_sara_karel()
    after = act(state, "deliver", 0, cities=SLB, dice=[1, 2, 0, 0], bonus_dice=2)
    assert after.players[1].vp == 3 + 3 + 1  # Bohouš: 2 trains beat Erik's 1 plus 2 white
    only_white = act(state, "deliver", 0, cities=SLB, dice=[0, 0, 0, 0], bonus_dice=2)
    assert [p.vp for p in only_white.players] == [3, 3, 3, 3]  # no completion VP, no majority


def test_a_majority_bonus_with_nothing_left_gives_nothing() -> None:
    state = replace(erik_bohous_sara_karel(), special_deck=0)
    state = give(state, 2, bonus_dice=8)  # 8 held + 2 on the board: the supply is empty
    after = act(state, "deliver", 0, cities=SLB, dice=[3, 1, 0, 0], bonus_dice=0)
    assert after.players[0].special_cards == 2 and after.players[0].bonus_dice == 0
    assert after.players[0].vp == 3 + 3 + 1


def test_a_route_cannot_hold_more_dice_than_a_player_has_on_the_board() -> None:
    state = erik_bohous_sara_karel()
    with pytest.raises(SnapshotError, match=r"args.dice\[2\]: Sára has 0 dice on the board"):
        act(state, "deliver", 0, cities=SLB, dice=[3, 3, 1, 0], majority=0)
    with pytest.raises(SnapshotError, match="two or more cities"):
        act(state, "deliver", 0, cities=[city("Seattle")], dice=[1, 0, 0, 0])


def coal_town(coal_left: int) -> TSState:
    state = erik_bohous_sara_karel()
    mines = tuple((i, "mine") for i in range(2)), tuple((i, "mine") for i in range(2, 4))
    state = replace(
        state,
        stations=(Station("Denver", 2, mines[0]), Station("Omaha", 2, mines[1])),
        goods_left=tuple((g, coal_left if g == "coal" else k) for g, k in state.goods_left),
    )
    for i in range(4):
        state = give(state, i, buildings_left=(("ranch", 3), ("mine", 2), ("hotel", 3)))
    return state


def test_the_rulebook_coal_example_the_active_player_orders_the_payout() -> None:
    # Erik, Bohouš, Sára and Karel each have a mine (coal) in the joined stations; 3 coal
    # cards are left, so Erik gives one to everybody but Karel, who gets 1 VP instead.
    state = coal_town(3)
    cities = [city("Denver"), city("Omaha")]
    with pytest.raises(IllegalActionError, match="the active player decides who is paid first"):
        act(state, "deliver", 0, cities=cities, dice=[1, 0, 0, 0])
    after = act(state, "deliver", 0, cities=cities, dice=[1, 0, 0, 0], goods_order=[0, 1, 2, 3])
    assert [p.good("coal") for p in after.players] == [1, 1, 1, 0]
    assert after.players[3].vp == 3 + 1
    assert after.left("coal") == 0


def test_an_empty_deck_pays_one_vp_per_building_and_a_closed_one_nothing() -> None:
    state = coal_town(0)
    cities = [city("Denver"), city("Omaha")]
    after = act(state, "deliver", 0, cities=cities, dice=[0, 0, 0, 0], bonus_dice=1)
    assert [p.vp for p in after.players] == [4, 4, 4, 4]
    closed = replace(state, decks=(("ranch", "cattle"), ("mine", None), ("hotel", "workers")))
    after = act(closed, "deliver", 0, cities=cities, dice=[0, 0, 0, 0], bonus_dice=1)
    assert [p.vp for p in after.players] == [3, 3, 3, 3]


def test_the_rulebook_task_example_seattle_detroit_through_billings() -> None:
    # Erik completes Seattle–Los Angeles–Billings and Billings–Detroit. Sára has no train on
    # either route, yet lays her Seattle–Detroit task card.
    state = erik_bohous_sara_karel()
    with pytest.raises(IllegalActionError, match="no delivery this turn yet"):
        act(state, "complete_task", 2, cities=["Seattle", "Detroit"], points=12)
    state = act(state, "deliver", 0, cities=SLB, dice=[2, 1, 0, 0])
    with pytest.raises(IllegalActionError, match="not joined by this turn's deliveries"):
        act(state, "complete_task", 2, cities=["Seattle", "Detroit"], points=12)
    state = act(state, "deliver", 0, cities=[city("Billings"), city("Detroit")], dice=[1, 0, 0, 0])
    state = act(state, "complete_task", 2, cities=["Seattle", "Detroit"], points=12)
    sara = state.players[2]
    assert sara.task_points == 12 and sara.special_cards == 1 and sara.vp == 3
    # a second identical card waits for a later turn
    with pytest.raises(IllegalActionError, match="only one is laid per delivery"):
        act(state, "complete_task", 2, cities=["Detroit", "Seattle"], points=12)
    # a forgotten task waits for the next delivery that joins its cities
    state = act(state, "end_turn", 0)
    with pytest.raises(IllegalActionError, match="no delivery this turn yet"):
        act(state, "complete_task", 3, cities=["Seattle", "Billings"], points=5)


def test_a_task_needs_a_special_card_that_is_not_a_two_goods_card() -> None:
    state = erik_bohous_sara_karel()
    state = act(state, "deliver", 0, cities=SLB, dice=[2, 1, 0, 0])
    state = act(state, "report_special_goods", 3, cards=[["coal", "gold"], ["cattle", "food"]])
    with pytest.raises(IllegalActionError, match="no special card that could be a task") as refused:
        act(state, "complete_task", 3, cities=["Seattle", "Billings"], points=5)
    # the reason reads Karel's face-down special cards ("Veřejná informace"): the engine tells
    # it only to him (companion.core.privacy)
    assert isinstance(refused.value, PrivateRefusalError) and refused.value.player == 3


def test_running_out_of_vp_starts_the_last_round() -> None:
    state = replace(erik_bohous_sara_karel(), vp_supply=4)
    after = act(state, "deliver", 0, cities=SLB, dice=[3, 1, 0, 0])
    assert after.vp_supply == 0 and after.final_round
    # VP are still paid from the cards not used at setup
    assert after.players[0].vp == 3 + 3 + 1 and after.players[1].vp == 3 + 3


def test_a_delivery_needs_a_route_filled_by_this_turns_placement() -> None:
    """Krok 4: Doručení!: "Pokud dojde k zaplnění všech polí trasy mezi dvěma nebo více městy
    kostkami, proběhne Doručení." Only this turn's placement can fill a route, so a delivery
    needs one of the train dice the active player placed this turn on it (their own, or a bonus
    die)."""
    state = table("Ann", "Ben", "Cat")
    state = act(state, "roll", 0, dice=["train", "train", "train", "train", "coin"])
    state = act(state, "resolve", 0, coins=1)
    assert state.turn.placed == (4, 0)
    denver_omaha = [city("Denver"), city("Omaha")]
    state = act(state, "deliver", 0, cities=denver_omaha, dice=[2, 0, 0])
    assert state.turn.placed == (3, 0) and state.players[0].dice_on_board == 2
    state = act(state, "end_turn", 0)
    # Ben rolls no train: whatever is reported delivered, no route was filled in his turn
    ben = act(state, "roll", 1, dice=["coin", "coin", "ranch", "ranch", "mine"])
    ben = act(ben, "resolve", 1, coins=2)
    assert ben.turn.placed == (0, 0)
    with pytest.raises(IllegalActionError, match="no route was filled this turn") as refused:
        act(ben, "deliver", 1, cities=denver_omaha, dice=[1, 0, 0])
    assert "Krok 4: Doručení!" in refused.value.render(translations("cs"))  # the Czech rulebook
    # Cat places one train: a route without it on was not filled by her; with it, it was
    cat = act(act(ben, "end_turn", 1), "roll", 2, dice=["train", "coin", "coin", "mine", "mine"])
    cat = act(cat, "resolve", 2, coins=2)
    seattle_billings = [city("Seattle"), city("Billings")]
    with pytest.raises(IllegalActionError, match="no route was filled this turn"):
        act(cat, "deliver", 2, cities=seattle_billings, dice=[1, 0, 0])
    cat = act(cat, "deliver", 2, cities=seattle_billings, dice=[1, 0, 1], majority=2)
    assert cat.turn.placed == (0, 0)
    with pytest.raises(IllegalActionError, match="no route was filled this turn"):
        act(cat, "deliver", 2, cities=[city("Chicago"), city("Detroit")], dice=[1, 0, 0])
