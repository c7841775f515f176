"""Turns, passing, the round end, turn order, the drafts and cards, the final scoring."""

from __future__ import annotations

from dataclasses import replace

import pytest

from companion.core import IllegalActionError, PlayerSpec, Prompt, SnapshotError
from companion.core.messages import render_text
from companion.games.russian_railroads import GAME
from companion.games.russian_railroads.rules import new_turn_order
from tests.games.russian_railroads.helpers import (
    act,
    board_of,
    moves,
    new_game,
    refused,
    with_board,
)

TS, SP, KV = "trans_siberian", "st_petersburg", "kiev"


def all_pass(s, order=None):  # type: ignore[no-untyped-def]
    for p in order if order is not None else s.turn_order:
        if p not in s.passed:
            s = act(s, "pass", p)
    return s


def test_setup_counts_follow_the_player_count() -> None:
    four = new_game(4)
    assert four.rounds == 7
    assert four.locomotive_supply == (0, 4, 4, 4, 4, 4, 4, 4, 4)
    assert board_of(four, 0).coins == 1
    assert board_of(four, 0).workers(4) == 5
    three = new_game(3)
    assert three.rounds == 6
    assert three.locomotive_supply == (0, 3, 3, 3, 3, 3, 3, 3, 3)
    two = new_game(2)
    assert two.locomotive_supply == (0, 2, 2, 2, 2, 2, 2, 2, 2)
    assert board_of(two, 0).coins == 2
    assert board_of(two, 0).workers(2) == 6
    with pytest.raises(IllegalActionError, match="2 to 4 players"):
        GAME.setup([PlayerSpec("Solo")], {})


def test_players_act_in_turn_order_and_a_passed_player_is_out() -> None:
    s = new_game(3, turn_order=[2, 0, 1])
    refused(s, "take_space", 0, "it is Yellow's turn", space="black_3", workers=2)
    s = act(s, "take_space", 2, space="black_3", workers=2)
    s = act(s, "build", 2, moves=moves((TS, "black", 3)))
    # one action per turn: Yellow's turn is over
    refused(s, "take_space", 2, "one action per turn", space="industry_1", workers=1)
    s = act(s, "pass", 0)
    refused(s, "take_space", 0, "has passed", space="industry_1", workers=1)
    refused(s, "take_space", 2, "it is Blue's turn", space="industry_1", workers=1)


def test_pass_points_come_from_the_turn_order_card_and_are_marked_unverified() -> None:
    s = all_pass(new_game(4))
    sheet = GAME.score(s)
    assert [p.points("pass") for p in sheet.players] == [0, 2, 3, 4]
    assert any("pass points" in render_text(n) for n in sheet.notes)
    assert s.round == 2
    assert s.passed == frozenset()


def test_the_round_end_scores_every_board_and_keeps_the_lines() -> None:
    s = with_board(
        new_game(4),
        0,
        rails=((9, 7, 3, 0, 0), (1, 0, 0, 0, 0), (4, 0, 0, 0, 0)),
        colours=frozenset({"black", "grey", "brown"}),
        fired=frozenset({"rails:2", "rails:6"}),
        locomotives=((6, 2), (), (2,)),
        doublers=1,
        factories=(2,),
        industry=(5,),
    )
    s = all_pass(s)
    red = GAME.score(s).player("Red")
    assert [red.points(c) for c in (TS, SP, KV, "industry")] == [12, 0, 3, 5]
    assert "brown 1–3 ×2, doubler on 1 → 8" in render_text(red.lines[0].note)


def test_new_turn_order_claimants_move_up_the_others_keep_their_order() -> None:
    s = new_game(4)  # Red, Blue, Yellow, Green
    s = replace(s, turn_order_claims=(3, 2))
    assert new_turn_order(s) == (3, 2, 0, 1)
    s = replace(s, turn_order_claims=(None, 3))
    assert new_turn_order(s) == (0, 3, 1, 2)


def test_special_case_the_first_player_on_space_2_with_space_1_empty_changes_nothing() -> None:
    s = replace(new_game(4), turn_order_claims=(None, 0))
    assert new_turn_order(s) == (0, 1, 2, 3)


def test_turn_order_space_rules() -> None:
    s = new_game(4)
    refused(s, "take_space", 0, "already on turn order space 1", space="turn_order_1", workers=1)
    s = act(s, "take_space", 0, space="turn_order_2", workers=1)
    refused(s, "take_space", 1, "taken this round", space="turn_order_2", workers=1)
    s = act(s, "pass", 1)
    s = act(s, "pass", 2)
    s = act(s, "pass", 3)
    refused(s, "take_space", 0, "already has a worker", space="turn_order_1", workers=1)


def test_two_players_may_take_the_space_under_their_own_marker() -> None:
    s = act(new_game(2), "take_space", 0, space="turn_order_1", workers=1)
    assert s.turn_order_claims == (0, None)
    refused(
        new_game(2), "take_space", 0, "not on the board with 2", space="turn_order_2", workers=1
    )


def test_after_the_round_the_turn_order_workers_take_one_more_action_space_2_first() -> None:
    s = act(new_game(4), "take_space", 0, space="turn_order_2", workers=1)
    s = act(s, "take_space", 1, space="turn_order_1", workers=1)
    s = all_pass(s, [2, 3, 0, 1])
    assert s.phase == "after_round"
    assert s.turn_order == (1, 0, 2, 3)
    assert [p.player for p in s.pending] == [0, 1]
    refused(s, "take_space", 1, "waiting for Red", space="industry_1", workers=1)
    # Seed 000, DALŠÍ VYUŽITÍ DĚLNÍKŮ …: only a one-worker space, no coins or more workers
    refused(s, "take_space", 0, "only to a one-worker space", space="black_3", workers=2)
    refused(s, "take_space", 0, "only to a one-worker space", space="any_2", coins=1)
    s = act(s, "take_space", 0, space="black_or_grey")
    s = act(s, "build", 0, moves=moves((TS, "black", 1)))
    s = act(s, "take_space", 1, space="industry_1")
    s = act(s, "industry", 1, steps=1)
    assert s.round == 2 and s.phase == "play"
    assert s.current == 1
    assert GAME.score(s).player("Blue").points("industry") == 1


def test_the_last_round_has_no_turn_order_space_and_the_game_ends_with_final_scoring() -> None:
    s = new_game(2)
    for _ in range(5):
        s = all_pass(s)
    assert s.round == 6 == s.rounds
    refused(s, "take_space", 0, "not available in round 6", space="turn_order_1", workers=1)
    s = act(s, "take_space", 0, space="coins", workers=1)
    s = act(s, "pass", 1)
    s = act(s, "take_space", 0, space="hire_engineer", coins=1)
    s = act(s, "hire_engineer", 0, number=7, ability="two_black")
    s = all_pass(s, [0])
    assert GAME.is_over(s)
    sheet = GAME.score(s)
    assert sheet.player("Red").points("engineers") == 40
    # 2 players: passing from position 2 is worth 2 points, six times
    assert sheet.player("Blue").points("pass") == 12
    assert sheet.winners == ("Red",)
    refused(s, "pass", 0, "game is over")


def test_one_engineer_a_round_and_each_tile_once() -> None:
    s = act(new_game(4), "hire_engineer", 0, number=12, ability="two_black")
    refused(s, "hire_engineer", 1, "already hired", number=3, ability="two_any")
    s = all_pass(s)
    refused(s, "hire_engineer", 0, "engineer 12 is already hired", number=12, ability="two_any")
    s = act(s, "hire_engineer", 0, number=3, ability="two_any")
    assert [e.number for e in board_of(s, 0).engineers] == [12, 3]


def test_starting_bonus_draft_runs_4th_to_2nd() -> None:
    s = GAME.setup([PlayerSpec(n) for n in ("A", "B", "C", "D")], {"turn_order": [1, 0, 3, 2]})
    assert s.phase == "draft"
    assert [p.player for p in s.pending] == [2, 3, 0]
    refused(s, "starting_bonus", 3, "waiting for C", card="coin")
    s = act(s, "starting_bonus", 2, card="black_step", track=KV)
    s = act(s, "starting_bonus", 3, card="doubler")
    refused(s, "starting_bonus", 0, "taken", card="doubler")
    s = act(s, "starting_bonus", 0, card="industry_step")
    assert s.phase == "play" and s.current == 1
    assert board_of(s, 2).rail(KV, "black") == 2
    assert board_of(s, 3).doublers == 1
    assert board_of(s, 0).industry == (1,)
    assert s.starting_bonus_cards == ("coin",)
    refused(s, "starting_bonus", 1, "no such decision", card="coin")


def test_the_question_card_token_then_a_card_then_a_bonus_card() -> None:
    s = with_board(
        new_game(4),
        0,
        rails=((1, 0, 0, 0, 0), (3, 0, 0, 0, 0), (1, 0, 0, 0, 0)),
        locomotives=((1,), (5,), ()),
    )
    s = act(s, "build", 0, moves=moves((SP, "black", 1)))
    s = act(s, "use_token", 0, token="question_card")
    assert s.pending[0].kind == "question_card"
    s = act(s, "question_card", 0, card="black_worker")
    assert board_of(s, 0).black_worker and board_of(s, 0).extra_workers == 1
    assert s.pending[0].kind == "bonus_card"
    s = act(s, "bonus_card", 0, card="locomotives")
    assert board_of(s, 0).bonus_cards == ("locomotives",)
    assert s.bonus_deck == 7
    assert "black_worker" not in s.question_cards


def test_the_level_9_question_card_places_the_locomotive_with_its_chain() -> None:
    s = with_board(
        new_game(4),
        0,
        rails=((1, 0, 0, 0, 0), (3, 0, 0, 0, 0), (1, 0, 0, 0, 0)),
        locomotives=((1,), (5,), ()),
    )
    s = act(s, "build", 0, moves=moves((SP, "black", 1)))
    s = act(s, "use_token", 0, token="question_card")
    s = act(s, "question_card", 0, card="locomotive_9", placements=[{"track": SP}, {"track": KV}])
    assert board_of(s, 0).locomotives == ((1,), (9,), (5,))
    s = act(s, "decline", 0)
    assert not s.pending


def test_the_engineer_question_card_hires_outside_the_round_limit_and_gives_a_coin() -> None:
    s = act(new_game(4), "hire_engineer", 0, number=4, ability="two_any")
    s = with_board(
        s,
        0,
        rails=((1, 0, 0, 0, 0), (3, 0, 0, 0, 0), (1, 0, 0, 0, 0)),
        locomotives=((1,), (5,), ()),
    )
    s = act(s, "build", 0, moves=moves((SP, "black", 1)))
    s = act(s, "use_token", 0, token="question_card")
    s = act(s, "question_card", 0, card="engineer_and_coin", number=15, ability="two_black")
    assert [e.number for e in board_of(s, 0).engineers] == [4, 15]
    assert board_of(s, 0).coins == 2


def test_workers_coins_and_temporary_workers_are_counted() -> None:
    s = new_game(2)
    s = act(s, "take_space", 0, space="locomotive_and_factory", workers=3)
    s = act(s, "take_locomotive", 0, placements=[{"track": SP}])
    s = act(s, "build_factory", 0)
    s = act(s, "take_space", 1, space="coins", workers=1)
    refused(s, "take_space", 0, "needs 2 workers; Red placed 4", space="black_3", workers=4)
    s = act(s, "take_space", 0, space="temporary", workers=1)
    s = act(s, "pass", 1)
    refused(s, "take_space", 0, "taken this round", space="temporary", workers=1)
    s = act(s, "take_space", 0, space="industry_2", temporary=2)
    s = act(s, "industry", 0, steps=2)
    refused(s, "take_space", 0, "has 0 temporary", space="industry_1", temporary=1)
    assert board_of(s, 0).workers_used == 4 and board_of(s, 0).temporary_used == 2
    s = all_pass(s, [0])
    assert board_of(s, 0).workers_used == 0 and board_of(s, 0).temporary == 0


def test_unknown_actions_and_bad_arguments_are_refused() -> None:
    s = new_game(4)
    refused(s, "teleport", 0, "no such move")
    refused(s, "build", 0, "args.moves", moves="three black")
    refused(
        s,
        "build",
        0,
        r"args.moves\[0\].colour",
        moves=[{"track": TS, "colour": "pink", "steps": 1}],
    )
    refused(s, "build", 9, "names no player at the table")
    refused(s, "decline", 0, "no such decision")


def test_a_full_snapshot_round_trips_and_scores_through_score_snapshot() -> None:
    s = act(new_game(4), "build", 0, moves=moves((TS, "black", 5)))
    data = GAME.to_json(s)
    assert GAME.from_json(data) == s
    assert GAME.score_snapshot(data) == GAME.score(s)


def test_the_status_says_who_owes_which_decision_with_every_answer() -> None:
    s = GAME.setup([PlayerSpec(n) for n in ("A", "B", "C")], {})
    status = GAME.status(s)
    assert status.active_players == (2,)
    assert status.prompt is not None
    assert len(status.prompt.options) == 6  # black step ×3 tracks, industry, doubler, coin
    for option in status.prompt.options:
        GAME.apply(s, option)
    s = with_board(new_game(4), 0, factories=(2,), industry=(4,))
    s = act(s, "industry", 0, steps=1)
    prompt = GAME.status(s).prompt
    assert prompt is not None and len(prompt.options) == 9
    s = act(s, "factory_function", 0, function="coin")
    assert "Red to act or pass" in render_text(GAME.status(s).waiting_for)


def test_the_engineer_row_moves_right_and_the_hiring_space_empties_each_round() -> None:
    row = [
        "two_any",
        "black_grey",
        "any_3points",
        "black_3points",
        "industry_two",
        "any_black",
        "grey_brown",
    ]
    s = new_game(4, engineer_row=row)
    refused(s, "hire_engineer", 0, "only the rightmost", number=3, ability="two_any")
    s = act(s, "hire_engineer", 0, number=3)
    assert board_of(s, 0).engineers[0].ability == "grey_brown"
    s = all_pass(s)
    assert s.engineer_row == tuple(row[:-1])
    s = all_pass(s)  # nobody hires 'any_black': it leaves the game
    assert s.engineer_row == tuple(row[:-2])
    assert isinstance(GAME.interpret(s, 0, "engineer:two_any"), Prompt)
    with pytest.raises(SnapshotError, match="7 engineers"):
        new_game(4, engineer_row=row[:3])


def test_round_end_applies_st_petersburg_doubling_kiev_stars_and_the_medal() -> None:
    s = with_board(
        new_game(2),
        0,
        rails=((3, 2, 0, 0, 0), (9, 7, 2, 0, 0), (6, 5, 0, 0, 0)),
        colours=frozenset({"black", "grey", "brown"}),
        fired=frozenset({"rails:2", "rails:6"}),
        locomotives=((1,), (7,), (5,)),
        kiev_medal=True,
    )
    s = all_pass(s)
    red = GAME.score(s).player("Red")
    # St. Petersburg: brown 1–2 = 4, grey 3–7 = 5 → 9, ×2 = 18
    assert red.points(SP) == 18
    # Kiev: grey 1–5 = 5, stars 1+2+3+4 = 10, medal 20
    assert red.points(KV) == 35
    assert red.points(TS) == 1
    notes = [render_text(n) for n in GAME.score(s).notes]
    assert any("Kiev space 4" in n for n in notes)
