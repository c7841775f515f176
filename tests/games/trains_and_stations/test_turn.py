"""A Trains & Stations turn as the table reports it (seed 003_4080579fd62f6692.txt: Příprava,
Krok 1–3, Stávka!). The rulebook's worked examples are scenarios here."""

from __future__ import annotations

from dataclasses import replace

import pytest

from companion.core import IllegalActionError, PlayerSpec, SnapshotError
from companion.games.trains_and_stations import GAME, TSState
from companion.games.trains_and_stations.state import Station
from tests.games.trains_and_stations.helpers import act, give, table


# -- Příprava -----------------------------------------------------------------------------------
@pytest.mark.parametrize(("players", "total"), [(5, 80), (4, 70), (3, 60)])
def test_the_vp_supply_depends_on_the_player_count(players: int, total: int) -> None:
    state = table(*"ABCDE"[:players])
    assert state.vp_total == total
    # every player takes three 1-VP cards from the board's supply
    assert state.vp_supply == total - 3 * players
    assert all(p.vp == 3 and p.coins == 3 and p.special_cards == 2 for p in state.players)
    assert state.special_deck == 20 - 2 * players  # 3 dealt, 2 kept, 1 returned
    assert dict(state.decks) == {"ranch": "cattle", "mine": "coal", "hotel": "workers"}
    assert state.bonus_supply == 10


@pytest.mark.parametrize("players", [2, 6])
def test_trains_and_stations_is_for_three_to_five_players(players: int) -> None:
    with pytest.raises(IllegalActionError, match="3 to 5 players"):
        table(*"ABCDEF"[:players])


def test_the_conductor_plays_first_and_a_typo_in_the_options_is_refused() -> None:
    assert table("A", "B", "C", conductor=2).turn.player == 2
    with pytest.raises(SnapshotError, match=r"options\.stations: unknown field"):
        GAME.setup([PlayerSpec("A"), PlayerSpec("B"), PlayerSpec("C")], {"stations": 9})


# -- Krok 1: Sběr kostek -------------------------------------------------------------------------
def test_a_player_rolls_up_to_five_of_the_dice_not_on_the_board() -> None:
    state = give(table("Erik", "Sára", "Bohouš"), 0, dice_on_board=4)
    with pytest.raises(IllegalActionError, match="take up to 5 of your dice"):
        act(state, "roll", 0, dice=["coin"] * 5)
    rolled = act(state, "roll", 0, dice=["coin", "coin", "hotel", "mine"])
    assert rolled.turn.dice == ("coin", "coin", "hotel", "mine")


def test_with_fewer_than_five_own_dice_bonus_dice_make_up_five() -> None:
    state = give(table("Erik", "Sára", "Bohouš"), 0, dice_on_board=5, bonus_dice=3)
    with pytest.raises(IllegalActionError, match="take bonus dice to play at least 5"):
        act(state, "roll", 0, dice=["coin"] * 3, bonus=["coin"])
    rolled = act(state, "roll", 0, dice=["coin"] * 3, bonus=["train", "mine"])
    assert rolled.turn.bonus == ("train", "mine")
    with pytest.raises(IllegalActionError, match="only bonus dice you have won"):
        act(give(state, 0, dice_on_board=0), "roll", 0, dice=["coin"] * 5, bonus=["coin"] * 4)


def test_when_the_bonus_supply_is_empty_all_bonus_dice_are_rolled() -> None:
    state = table("Erik", "Sára", "Bohouš")
    state = give(give(state, 0, bonus_dice=2), 1, bonus_dice=8)
    assert state.bonus_supply == 0
    with pytest.raises(IllegalActionError, match="roll all your bonus dice"):
        act(state, "roll", 0, dice=["coin"] * 5, bonus=["coin"])
    act(state, "roll", 0, dice=["coin"] * 5, bonus=["coin", "train"])


def test_with_five_dice_on_the_board_a_player_may_take_them_back_and_skip_the_turn() -> None:
    state = give(table("Erik", "Sára", "Bohouš"), 0, dice_on_board=4)
    with pytest.raises(IllegalActionError, match="5 or more of your dice"):
        act(state, "withdraw", 0)
    state = act(give(state, 0, dice_on_board=6), "withdraw", 0)
    assert state.players[0].dice_on_board == 0
    with pytest.raises(IllegalActionError, match="roll"):
        act(state, "roll", 0, dice=["coin"] * 5)
    assert act(state, "end_turn", 0).turn.player == 1


# -- Krok 2: Hod kostkami, Stávka! ---------------------------------------------------------------
def test_the_rulebook_strike_example() -> None:
    # Erik kept a ranch die and does not roll it; the others show locked, hotel, hotel, coin.
    # He pays a coin and rerolls the coin and the ranch — two more locked trains: strike.
    state = give(table("Erik", "Bohouš", "Sára"), 0, dice_kept=("ranch",), vp=7)
    state = act(state, "roll", 0, dice=["ranch", "locked", "hotel", "hotel", "coin"])
    assert state.players[0].dice_kept == ()
    supply = state.vp_supply
    state = act(state, "reroll", 0, dice=["locked", "locked", "hotel", "hotel", "locked"])
    assert state.players[0].coins == 2
    assert state.turn.struck
    assert state.players[0].vp == 4  # lost 3 VP
    assert state.vp_supply == supply + 3  # option strike_vp: back to the supply
    with pytest.raises(IllegalActionError, match="a strike ends rerolling"):
        act(state, "reroll", 0, dice=["locked", "locked", "hotel", "hotel", "locked"])


def test_a_strike_with_fewer_than_three_vp_loses_them_all() -> None:
    state = give(table("Erik", "Bohouš", "Sára", strike_vp="box"), 0, vp=2)
    supply = state.vp_supply
    state = act(state, "roll", 0, dice=["locked", "locked", "coin", "coin", "coin"], bonus=[])
    assert not state.turn.struck
    state = act(state, "reroll", 0, dice=["locked", "locked", "locked", "coin", "coin"])
    assert state.players[0].vp == 0
    assert state.vp_supply == supply  # option strike_vp="box": the cards leave the game


def test_a_reroll_costs_a_coin_and_never_rerolls_a_locked_train() -> None:
    state = act(table("Erik", "Bohouš", "Sára"), "roll", 0, dice=["locked", *["coin"] * 4])
    with pytest.raises(IllegalActionError, match="locked trains cannot be rerolled"):
        act(state, "reroll", 0, dice=["train", *["coin"] * 4])
    with pytest.raises(IllegalActionError, match="a reroll costs 1 coin"):
        act(give(state, 0, coins=0), "reroll", 0, dice=["locked", *["train"] * 4])
    with pytest.raises(IllegalActionError, match="not the number of dice"):
        act(state, "reroll", 0, dice=["locked", "coin"])


def test_only_the_active_player_rolls() -> None:
    with pytest.raises(IllegalActionError, match="it is Erik's turn"):
        act(table("Erik", "Bohouš", "Sára"), "roll", 1, dice=["coin"] * 5)


# -- Krok 3: Vyhodnocení kostek ------------------------------------------------------------------
def test_every_train_and_locked_train_goes_on_the_board() -> None:
    state = table("Erik", "Bohouš", "Sára")
    state = give(state, 0, bonus_dice=2)
    state = act(state, "roll", 0, dice=["train", "locked", "coin", "mine", "mine"])
    state = replace(state, turn=replace(state.turn, bonus=("train", "coin")))
    state = act(state, "resolve", 0)
    assert state.players[0].dice_on_board == 2
    assert state.bonus_on_board == 1
    assert state.players[0].bonus_dice == 0  # the rolled bonus coin went back to the supply
    assert state.bonus_supply == 9
    assert state.turn.phase == "deliver"


def test_coin_dice_pay_two_coins_each_up_to_five() -> None:
    state = act(table("Erik", "Bohouš", "Sára"), "roll", 0, dice=["coin"] * 3 + ["mine"] * 2)
    assert act(state, "resolve", 0, coins=1).players[0].coins == 5
    assert act(state, "resolve", 0, coins=3).players[0].coins == 5  # never more than 5
    with pytest.raises(IllegalActionError, match="each die is used once"):
        act(state, "resolve", 0, coins=2, keep=["coin", "coin"])


def test_kept_dice_are_own_building_or_coin_dice_and_count_first_next_turn() -> None:
    # The rulebook: Erik rolled only 2 hotels, kept them, and starts his next turn with them
    # plus 3 more dice.
    state = table("Erik", "Bohouš", "Sára")
    state = act(state, "roll", 0, dice=["hotel", "hotel", "coin", "mine", "ranch"])
    state = act(state, "resolve", 0, keep=["hotel", "hotel"])
    assert state.players[0].dice_kept == ("hotel", "hotel")
    with pytest.raises(SnapshotError, match=r"args\.keep\[0\]: 'train' is not one of"):
        act(
            act(table("E", "B", "S"), "roll", 0, dice=["train"] * 5),
            "resolve",
            0,
            keep=["train"],
        )


def test_bonus_dice_cannot_be_kept() -> None:
    state = give(table("Erik", "Bohouš", "Sára"), 0, bonus_dice=1)
    state = act(state, "roll", 0, dice=["coin"] * 5, bonus=["hotel"])
    with pytest.raises(IllegalActionError, match="never bonus dice"):
        act(state, "resolve", 0, keep=["hotel"])


def test_three_equal_building_dice_build_one_building_at_a_station() -> None:
    state = act(table("Erik", "Bohouš", "Sára"), "roll", 0, dice=["hotel"] * 3 + ["coin"] * 2)
    built = act(
        state, "resolve", 0, build=[{"building": "hotel", "station": "Denver", "capacity": 2}]
    )
    assert built.stations[0].name == "Denver"
    assert built.stations[0].buildings == ((0, "hotel"),)
    assert built.players[0].buildings("hotel") == 2
    with pytest.raises(IllegalActionError, match="each die is used once"):
        act(state, "resolve", 0, build=[{"building": "mine", "station": "Denver", "capacity": 2}])
    with pytest.raises(SnapshotError, match="report its building spaces"):
        act(state, "resolve", 0, build=[{"building": "hotel", "station": "Denver"}])


def test_with_no_matching_building_left_nothing_is_built() -> None:
    state = give(
        table("Erik", "Bohouš", "Sára"), 0, buildings_left=(("ranch", 3), ("mine", 3), ("hotel", 0))
    )
    state = act(state, "roll", 0, dice=["hotel"] * 3 + ["coin"] * 2)
    with pytest.raises(IllegalActionError, match="no hotel left"):
        act(state, "resolve", 0, build=[{"building": "hotel", "station": "Reno", "capacity": 3}])


def with_stations(*stations: tuple[str, int, int], **options: object) -> TSState:
    """A table where Bohouš built ``count`` ranches at each (name, capacity, count)."""
    state = table("Erik", "Bohouš", "Sára", **options)
    built = tuple(Station(n, cap, ((1, "ranch"),) * k) for n, cap, k in stations)
    total = sum(k for _, _, k in stations)
    state = replace(state, stations=built)
    return give(state, 1, buildings_left=(("ranch", 3 - total), ("mine", 3), ("hotel", 3)))


def test_a_station_holds_no_more_buildings_than_its_spaces() -> None:
    # "V San Antoniu mohou být 2 budovy"
    state = with_stations(("San Antonio", 2, 2), ("Denver", 3, 2))
    state = act(state, "roll", 0, dice=["mine"] * 3 + ["coin"] * 2)
    with pytest.raises(IllegalActionError, match="San Antonio is full"):
        act(state, "resolve", 0, build=[{"building": "mine", "station": "San Antonio"}])
    with pytest.raises(SnapshotError, match="San Antonio has 2 building spaces, not 3"):
        act(
            state,
            "resolve",
            0,
            build=[{"building": "mine", "station": "San Antonio", "capacity": 3}],
        )
    act(state, "resolve", 0, build=[{"building": "mine", "station": "Denver"}])


def test_buildings_go_up_evenly() -> None:
    # "Hráči nemohou ve stanici postavit druhou budovu, dokud všechny stanice nemají jednu."
    state = with_stations(("Denver", 3, 1), ("Omaha", 2, 0))
    state = act(state, "roll", 0, dice=["mine"] * 3 + ["coin"] * 2)
    with pytest.raises(IllegalActionError, match="have fewer than 1: Omaha"):
        act(state, "resolve", 0, build=[{"building": "mine", "station": "Denver"}])
    act(state, "resolve", 0, build=[{"building": "mine", "station": "Omaha"}])


def test_with_the_station_count_known_every_station_needs_a_building_first() -> None:
    state = with_stations(("Denver", 3, 1), station_count=2)
    state = act(state, "roll", 0, dice=["mine"] * 3 + ["coin"] * 2)
    with pytest.raises(IllegalActionError, match="only 1 of 2 stations have a building"):
        act(state, "resolve", 0, build=[{"building": "mine", "station": "Denver"}])
    state = act(state, "resolve", 0, build=[{"building": "mine", "station": "Reno", "capacity": 2}])
    assert len(state.stations) == 2
    full = with_stations(("Denver", 3, 1), ("Reno", 2, 1), station_count=2)
    full = act(full, "roll", 0, dice=["mine"] * 3 + ["coin"] * 2)
    with pytest.raises(IllegalActionError, match="the board has 2 stations"):
        act(full, "resolve", 0, build=[{"building": "mine", "station": "Boise", "capacity": 2}])


def test_two_sets_of_three_build_two_buildings() -> None:
    state = give(table("Erik", "Bohouš", "Sára"), 0, bonus_dice=1)
    state = act(state, "roll", 0, dice=["ranch"] * 3 + ["mine"] * 2, bonus=["mine"])
    state = act(
        state,
        "resolve",
        0,
        build=[
            {"building": "ranch", "station": "Denver", "capacity": 3},
            {"building": "mine", "station": "Omaha", "capacity": 2},
        ],
    )
    assert [s.buildings for s in state.stations] == [((0, "ranch"),), ((0, "mine"),)]
