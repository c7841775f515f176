"""Krok 5 (exhaustion, upgrade, speculation), Konec hry and the public / private views
(seed 003_4080579fd62f6692.txt)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from companion.core import IllegalActionError, SnapshotError
from companion.core.messages import render_text
from companion.games.trains_and_stations import GAME, TSState, private_json, public_json
from tests.games.trains_and_stations.helpers import act, at_deliver, give, table


def exhausted(state: TSState, *goods: str) -> TSState:
    """The table with these goods decks emptied into nobody's hands (traded away)."""
    for g in goods:
        k = state.left(g)
        state = replace(
            state,
            goods_left=tuple((x, 0 if x == g else n) for x, n in state.goods_left),
            goods_removed=tuple((x, n + k if x == g else n) for x, n in state.goods_removed),
        )
    return state


def in_play(state: TSState, building: str, goods: str) -> TSState:
    decks = tuple((b, goods if b == building else g) for b, g in state.decks)
    return replace(state, decks=decks, goods_in_play=(*state.goods_in_play, goods))


def erik_sara_bohous() -> TSState:
    return at_deliver(table("Erik", "Sára", "Bohouš"))


# -- Krok 5: Vyčerpání zboží a vylepšování -------------------------------------------------------
def test_the_rulebook_ranch_example_food_taken_so_gold() -> None:
    # All cattle are gone from the ranch; the scheme says food next, but food is already on
    # the hotel, so the ranch gets gold.
    state = exhausted(in_play(erik_sara_bohous(), "hotel", "food"), "cattle")
    after = act(state, "end_turn", 0)
    assert after.deck("ranch") == "gold"
    assert after.speculation is not None and after.speculation.goods == "gold"
    assert after.turn.player == 0  # the turn passes once everyone has speculated


def test_the_ranch_upgrades_to_food() -> None:
    after = act(exhausted(erik_sara_bohous(), "cattle"), "end_turn", 0)
    assert after.deck("ranch") == "food"
    assert after.goods_in_play[-1] == "food"


def test_the_active_player_chooses_silver_or_food_for_the_hotel() -> None:
    state = exhausted(erik_sara_bohous(), "workers")
    with pytest.raises(IllegalActionError, match="the active player chooses"):
        act(state, "end_turn", 0)
    assert act(state, "end_turn", 0, hotel_to="silver").deck("hotel") == "silver"
    with pytest.raises(SnapshotError, match=r"args\.hotel_to: 'gold' is not one of food, silver"):
        act(state, "end_turn", 0, hotel_to="gold")
    # once silver or food is exhausted on the hotel it upgrades to gold
    silver = exhausted(in_play(erik_sara_bohous(), "hotel", "silver"), "silver")
    assert act(silver, "end_turn", 0).deck("hotel") == "gold"


def test_the_mine_scheme_is_reported_once_by_the_table() -> None:
    state = exhausted(erik_sara_bohous(), "coal")
    with pytest.raises(IllegalActionError, match="printed on the board, not in the rulebook"):
        act(state, "end_turn", 0)
    after = act(state, "end_turn", 0, printed_next="silver")
    assert after.deck("mine") == "silver" and after.options.mine_next == "silver"
    known = exhausted(table("Erik", "Sára", "Bohouš", mine_next="silver"), "coal")
    with pytest.raises(SnapshotError, match="this table reported 'silver' before"):
        act(at_deliver(known), "end_turn", 0, printed_next="food")


def test_only_one_exhausted_deck_is_upgraded_per_turn_and_the_active_player_picks() -> None:
    state = exhausted(erik_sara_bohous(), "cattle", "coal")
    with pytest.raises(IllegalActionError, match="picks one to upgrade"):
        act(state, "end_turn", 0)
    after = act(state, "end_turn", 0, upgrade="ranch")
    assert after.deck("ranch") == "food" and after.deck("mine") == "coal"


def test_after_gold_a_building_produces_nothing_more() -> None:
    state = in_play(in_play(erik_sara_bohous(), "ranch", "food"), "hotel", "gold")
    after = act(exhausted(state, "food"), "end_turn", 0)
    assert after.deck("ranch") is None
    assert after.speculation is None and after.turn.player == 1


def test_no_upgrade_without_an_exhausted_deck() -> None:
    with pytest.raises(SnapshotError, match="no goods deck on a building is exhausted"):
        act(erik_sara_bohous(), "end_turn", 0, upgrade="ranch")


# -- Spekulace při vylepšování -------------------------------------------------------------------
def test_the_rulebook_speculation_example() -> None:
    # Food has just come to the ranch. Erik 6 cattle, Sára 3, Bohouš 1. Erik trades 4 cattle
    # and 2 workers for 3 food; Bohouš 1 cattle and 1 coal for 1 food; Sára keeps her cattle
    # and trades 2 workers and 2 coal for 2 food. Cattle: Bohouš 0, Erik 2, Sára 3.
    state = erik_sara_bohous()
    state = give(state, 0, goods={"cattle": 6, "workers": 2})
    state = give(state, 1, goods={"cattle": 3, "workers": 2, "coal": 2})
    state = give(state, 2, goods={"cattle": 1, "coal": 1})
    state = replace(
        state, goods_left=tuple((g, 0 if g == "cattle" else k) for g, k in state.goods_left)
    )
    state = replace(state, goods_removed=(*state.goods_removed[:4], ("cattle", 0), ("gold", 0)))
    state = act(state, "end_turn", 0)
    assert state.speculation is not None and state.speculation.goods == "food"
    with pytest.raises(IllegalActionError, match="every player answers the speculation"):
        act(state, "roll", 1, dice=["coin"] * 5)
    state = act(state, "speculate", 0, goods={"cattle": 4, "workers": 2})
    status = GAME.status(state)
    assert status.phase == "speculation" and status.active_players == (1, 2)
    assert render_text(status.waiting_for) == "Sára, Bohouš to speculate on food"
    assert public_json(state)["speculation"] == {"goods": "food", "answered": [True, False, False]}
    with pytest.raises(IllegalActionError, match="already answered"):
        act(state, "speculate", 0, goods={})
    state = act(state, "speculate", 2, goods={"cattle": 1, "coal": 1})
    state = act(state, "speculate", 1, goods={"workers": 2, "coal": 2})
    assert state.speculation is None and state.turn.player == 1
    assert [p.good("cattle") for p in state.players] == [2, 3, 0]
    assert [p.good("food") for p in state.players] == [3, 2, 1]
    assert state.left("food") == 4
    assert dict(state.goods_removed)["cattle"] == 5
    assert GAME.problems(state) == ()


def test_speculation_is_two_for_one_with_cards_the_player_holds() -> None:
    state = act(exhausted(erik_sara_bohous(), "cattle"), "end_turn", 0)
    with pytest.raises(SnapshotError, match="Erik holds 0 coal, not 1"):
        act(state, "speculate", 0, goods={"coal": 1})
    rich = give(state, 0, goods={"coal": 3})
    with pytest.raises(SnapshotError, match="3 cards: the trade is 2 for 1"):
        act(rich, "speculate", 0, goods={"coal": 3})
    with pytest.raises(SnapshotError, match="reported no such two-goods special card"):
        act(rich, "speculate", 0, special_goods=[["coal", "gold"]])


def test_a_two_goods_special_card_trades_as_two_goods() -> None:
    state = act(exhausted(erik_sara_bohous(), "cattle"), "end_turn", 0)
    state = act(state, "report_special_goods", 1, cards=[["coal", "gold"]])
    state = act(state, "speculate", 1, special_goods=[["coal", "gold"]])
    state = act(state, "speculate", 0, goods={})
    state = act(state, "speculate", 2, goods={})
    sara = state.players[1]
    assert sara.good("food") == 1 and sara.special_cards == 1 and sara.special_goods == ()
    assert state.special_removed == 1


def test_a_short_deck_is_shared_by_the_active_player_and_the_rest_paid_in_vp() -> None:
    state = exhausted(erik_sara_bohous(), "cattle")
    state = replace(
        state, goods_left=tuple((g, 1 if g == "food" else k) for g, k in state.goods_left)
    )
    state = replace(
        state, goods_removed=tuple((g, 9 if g == "food" else k) for g, k in state.goods_removed)
    )
    state = give(state, 1, goods={"coal": 2})
    state = give(state, 2, goods={"coal": 4})
    state = act(state, "end_turn", 0)
    state = act(state, "speculate", 0, goods={})
    state = act(state, "speculate", 1, goods={"coal": 2})
    state = act(state, "speculate", 2, goods={"coal": 4})
    assert state.speculation is not None  # 3 food wanted, 1 left: Erik decides
    assert render_text(GAME.status(state).waiting_for) == "Erik to share out the short food deck"
    with pytest.raises(IllegalActionError, match="the active player decides"):
        act(state, "allocate_speculation", 1, cards=[0, 1, 0])
    with pytest.raises(SnapshotError, match="share out exactly the 1 food"):
        act(state, "allocate_speculation", 0, cards=[0, 0, 0])
    state = act(state, "allocate_speculation", 0, cards=[0, 0, 1])
    assert [p.good("food") for p in state.players] == [0, 0, 1]
    # Sára traded 2 cards and got none: 1 VP; Bohouš traded 4 and got 1 of 2: 1 VP
    assert [p.vp for p in state.players] == [3, 4, 4]
    assert GAME.problems(state) == ()


# -- Konec hry -----------------------------------------------------------------------------------
def test_the_last_round_runs_up_to_the_conductor() -> None:
    # Sára (player 1) empties the VP supply; Bohouš plays a last turn; the game ends before
    # the conductor's (Erik's) turn, so everyone played the same number of turns.
    state = table("Erik", "Sára", "Bohouš")
    state = give(state, 1, dice_on_board=2)
    state = replace(state, vp_supply=2, turn=replace(state.turn, player=1, phase="deliver"))
    state = act(
        state,
        "deliver",
        1,
        cities=[{"name": "Boise", "bonus": "die"}, {"name": "Reno", "bonus": "die"}],
        dice=[0, 2, 0],
    )
    assert state.final_round
    state = act(state, "end_turn", 1)
    assert not GAME.is_over(state) and state.turn.player == 2
    assert "last round" in render_text(GAME.status(state).waiting_for)
    state = act(state, "roll", 2, dice=["coin"] * 5)
    state = act(state, "resolve", 2, coins=1)
    state = act(state, "end_turn", 2)
    assert GAME.is_over(state)
    with pytest.raises(IllegalActionError, match="the game is over"):
        act(state, "roll", 0, dice=["coin"] * 5)
    sheet = GAME.score(state)
    assert sheet.winners == ("Sára",)
    assert sheet.player("Sára").total == 3 + 2
    # at the scoring, Bohouš reveals a special card he kept: gold + coal (9 + 6 monopolies)
    state = act(state, "report_special_goods", 2, cards=[["gold", "coal"]])
    sheet = GAME.score(state)
    assert sheet.player("Bohouš").total == 3 + 9 + 6
    assert sheet.winners == ("Bohouš",)


def test_the_final_score_adds_monopolies_and_breaks_ties_on_gold() -> None:
    state = table("Erik", "Sára", "Bohouš")
    state = give(state, 0, goods={"cattle": 2})
    state = give(state, 1, goods={"coal": 1})
    state = act(state, "report_special_goods", 2, cards=[["cattle", "gold"]])
    running = GAME.score(state)
    assert running.winners == () and running.totals == (3, 3, 3)
    assert "hidden" in render_text(running.notes[0])
    final = GAME.score(replace(state, over=True, final_round=True))
    # Erik cattle 6; Sára coal 6; Bohouš gold 9 (special card: 1 cattle, 1 gold)
    assert final.totals == (9, 9, 12)
    assert final.winners == ("Bohouš",)


# -- views ---------------------------------------------------------------------------------------
def test_the_scoreboard_never_sees_goods_or_special_cards_before_the_end() -> None:
    state = give(table("Erik", "Sára", "Bohouš"), 1, goods={"gold": 2})
    state = act(state, "report_special_goods", 1, cards=[["coal", "food"]])
    public = public_json(state)
    assert GAME.public_json(state) == public  # what the service's scoreboard publishes
    for p in public["players"]:  # type: ignore[union-attr]
        assert not {"goods", "special_goods", "special_cards"} & set(p)  # type: ignore[arg-type]
    assert public["hidden"] == [
        "players[].goods",
        "players[].special_goods",
        "players[].special_cards",
    ]
    mine = private_json(state, 1)
    players = mine["players"]
    assert isinstance(players, list)
    assert players[1]["goods"]["gold"] == 2  # type: ignore[index,call-overload]
    assert players[1]["special_goods"] == [["coal", "food"]]  # type: ignore[index,call-overload]
    assert "goods" not in players[0]  # type: ignore[operator]
    ended = replace(state, over=True, final_round=True)
    assert public_json(ended)["players"] == GAME.to_json(ended)["players"]


def test_the_full_snapshot_round_trips_and_a_bad_one_names_the_field() -> None:
    state = give(table("Erik", "Sára", "Bohouš"), 1, goods={"gold": 2}, dice_kept=("hotel",))
    data = json.loads(json.dumps(GAME.to_json(state)))
    assert GAME.from_json(data) == state
    data["players"][1]["task_points"] = 5
    with pytest.raises(SnapshotError, match=r"players\[1\]\.task_points: the completed task"):
        GAME.from_json(data)
    data = json.loads(json.dumps(GAME.to_json(state)))
    data["stations"] = [{"name": "Reno", "capacity": 4, "buildings": []}]
    with pytest.raises(SnapshotError, match=r"stations\[0\]\.capacity: a station has 2 or 3"):
        GAME.from_json(data)


def test_a_full_snapshot_is_scored_as_at_the_end() -> None:
    state = give(table("Erik", "Sára", "Bohouš"), 1, goods={"gold": 2})
    sheet = GAME.score_snapshot(json.loads(json.dumps(GAME.to_json(state))))
    assert sheet.totals == (3, 12, 3) and sheet.winners == ("Sára",)


def test_an_impossible_table_lists_its_problems() -> None:
    state = table("Erik", "Sára", "Bohouš")
    bad = state.with_player(
        0,
        replace(
            state.players[0],
            goods=(
                ("workers", 0),
                ("coal", 1),
                ("silver", 0),
                ("food", 0),
                ("cattle", 0),
                ("gold", 0),
            ),
        ),
    )
    codes = {p.code for p in GAME.problems(bad)}
    assert codes == {"goods_count"}
    bad = replace(state, special_deck=5)
    assert {p.code for p in GAME.problems(bad)} == {"special_count"}


def test_printed_codes_end_the_turn_or_withdraw_and_unknown_ones_are_named() -> None:
    from companion.core import Action, UnknownComponentError

    state = table("Erik", "Sára", "Bohouš")
    assert GAME.interpret(state, None, "end-turn") == Action("end_turn", 0)
    assert GAME.interpret(state, 2, "withdraw") == Action("withdraw", 2)
    with pytest.raises(UnknownComponentError, match="no component 'die-7'"):
        GAME.interpret(state, 0, "die-7")
    assert render_text(GAME.status(state).waiting_for) == "Erik to roll (or take their dice back)"
