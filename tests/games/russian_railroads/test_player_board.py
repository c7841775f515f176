"""Player board scenarios: rails, the special spaces that fire by themselves, locomotives with
the displacement chain, factories, industry, doublers (seed 000)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from companion.core.errors import IllegalActionError
from companion.core.i18n import translations
from companion.games.russian_railroads import GAME
from tests.games.russian_railroads.helpers import (
    act,
    board_of,
    moves,
    new_game,
    rails,
    refused,
    with_board,
)

TS, SP, KV = "trans_siberian", "st_petersburg", "kiev"


# --- rails ("ZÁSADY STAVBY KOLEJÍ") --------------------------------------------------------


def test_black_steps_can_be_split_over_tracks() -> None:
    s = act(new_game(), "build", 0, moves=moves((TS, "black", 2), (KV, "black", 1)))
    assert board_of(s, 0).rail(TS, "black") == 3
    assert board_of(s, 0).rail(KV, "black") == 2


def test_black_reaching_trans_siberian_2_brings_grey_for_every_track() -> None:
    s = new_game()
    refused(s, "build", 0, "no grey rails yet", moves=moves((TS, "grey", 1)))
    s = act(s, "build", 0, moves=moves((TS, "black", 1), (TS, "grey", 1)))
    assert "grey" in board_of(s, 0).colours
    assert board_of(s, 0).rail(TS, "grey") == 1


def test_grey_can_never_reach_the_black_rail() -> None:
    s = act(new_game(), "build", 0, moves=moves((TS, "black", 2)))
    s = act(s, "build", 0, moves=moves((TS, "grey", 2)))
    assert board_of(s, 0).rail(TS, "grey") == 2
    refused(s, "build", 0, "never reaches or passes", moves=moves((TS, "grey", 1)))
    # on St. Petersburg black is still on 1: grey cannot even start
    refused(s, "build", 0, "never reaches or passes", moves=moves((SP, "grey", 1)))


def test_colours_not_allowed_on_a_track_are_refused() -> None:
    s = with_board(new_game(), 0, colours=frozenset({"black", "grey", "brown", "natural", "white"}))
    refused(
        s,
        "build",
        0,
        "Kiev takes only these rails: black, grey, brown",
        moves=moves((KV, "natural", 1)),
    )
    refused(s, "build", 0, "St. Petersburg takes only these rails", moves=moves((SP, "white", 1)))


def test_black_stops_at_the_end_of_the_track_and_the_terminus_pays_10_once() -> None:
    s = act(new_game(), "build", 0, moves=moves((KV, "black", 8)))
    assert board_of(s, 0).rail(KV, "black") == 9
    assert GAME.score(s).player("Red").points("terminus") == 10
    refused(s, "build", 0, "end of the line to Kiev", moves=moves((KV, "black", 1)))


def test_a_refused_move_in_the_middle_of_an_action_leaves_the_state_unchanged() -> None:
    s = new_game()
    refused(s, "build", 0, "never reaches", moves=moves((TS, "black", 1), (KV, "grey", 1)))


def test_trans_siberian_15_brings_white_and_two_white_steps_lost_without_room() -> None:
    s = with_board(
        new_game(),
        0,
        rails=rails(ts=(14, 13, 12, 2)),
        colours=frozenset({"black", "grey", "brown", "natural"}),
        fired=frozenset({"rails:2", "rails:6", "rails:10"}),
    )
    s = act(s, "build", 0, moves=moves((TS, "black", 1)))
    b = board_of(s, 0)
    assert "white" in b.colours
    assert b.rail(TS, "white") == 1  # natural on 2: room for one white step, the other is lost
    assert GAME.score(s).player("Red").points("terminus") == 10


def test_trans_siberian_15_white_steps_use_the_room_there_is() -> None:
    s = with_board(
        new_game(),
        0,
        rails=rails(ts=(14, 13, 12, 6)),
        colours=frozenset({"black", "grey", "brown", "natural"}),
        fired=frozenset({"rails:2", "rails:6", "rails:10"}),
    )
    s = act(s, "build", 0, moves=moves((TS, "black", 1)))
    assert board_of(s, 0).rail(TS, "white") == 2


def test_new_rails_at_6_and_10_come_once_each() -> None:
    s = act(new_game(), "build", 0, moves=moves((TS, "black", 9)))
    b = board_of(s, 0)
    assert {"grey", "brown", "natural"} <= b.colours
    assert {"rails:2", "rails:6", "rails:10"} <= b.fired


# --- extra workers, token spaces -----------------------------------------------------------


def test_black_on_kiev_7_gives_a_worker() -> None:
    s = act(new_game(), "build", 0, moves=moves((KV, "black", 6)))
    assert board_of(s, 0).extra_workers == 1
    assert board_of(s, 0).workers(4) == 6


def test_brown_on_trans_siberian_3_needs_a_locomotive_reaching_it() -> None:
    s = with_board(
        new_game(),
        0,
        rails=rails(ts=(8, 5, 2)),
        colours=frozenset({"black", "grey", "brown"}),
        fired=frozenset({"rails:2", "rails:6"}),
    )
    s = act(s, "build", 0, moves=moves((TS, "brown", 1)))
    assert board_of(s, 0).extra_workers == 0  # locomotive level 1 reaches space 1 only
    s = act(s, "take_locomotive", 0, placements=[{"track": TS}])  # level 2: reach 3
    assert board_of(s, 0).extra_workers == 1
    assert "worker:ts3" in board_of(s, 0).fired


def test_st_petersburg_4_with_black_and_locomotive_asks_for_a_token() -> None:
    s = act(new_game(), "take_locomotive", 0, placements=[{"track": SP}])  # level 2
    s = act(s, "build", 0, moves=moves((SP, "black", 3)))
    assert not s.pending  # the locomotive reaches 2 only
    s = replace(s, locomotive_supply=(0, 0, 0, 4, 4, 4, 4, 4, 4))
    s = act(s, "take_locomotive", 0, placements=[{"track": SP, "replace": 2}, {"track": KV}])
    assert [(p.kind, p.source) for p in s.pending] == [("token", "st_petersburg:4")]
    refused(s, "build", 1, "waiting for Red", moves=moves((TS, "black", 1)))
    s = act(s, "use_token", 0, token="revaluation")
    assert board_of(s, 0).revaluation
    assert board_of(s, 0).tokens_used == ("revaluation",)
    # the space fired once: more black steps do not fire it again
    s = act(s, "build", 0, moves=moves((SP, "black", 0 + 1)))
    assert not s.pending


def test_a_token_is_used_once_a_game_and_a_token_space_can_be_declined() -> None:
    s = with_board(
        new_game(),
        0,
        rails=rails(sp=(3,), ts=(12,)),
        locomotives=((9, 4), (6,), ()),
        tokens_used=("revaluation",),
        fired=frozenset({"rails:2", "rails:6", "rails:10"}),
        colours=frozenset({"black", "grey", "brown", "natural"}),
    )
    s = act(s, "build", 0, moves=moves((SP, "black", 1)))
    refused(s, "use_token", 0, "already used the “.” token: the revaluation", token="revaluation")
    s = act(s, "decline", 0)
    assert "st_petersburg:4" in board_of(s, 0).token_spaces
    s = act(s, "build", 0, moves=moves((TS, "black", 1)))
    assert s.pending[0].source == "trans_siberian:13"


def test_three_doublers_token_places_up_to_eight() -> None:
    s = with_board(new_game(), 0, rails=rails(sp=(3,)), locomotives=((1,), (5,), ()), doublers=6)
    s = replace(s, doubler_supply=14)
    s = act(s, "build", 0, moves=moves((SP, "black", 1)))
    s = act(s, "use_token", 0, token="three_doublers")
    assert board_of(s, 0).doublers == 8
    assert s.doubler_supply == 12


def test_the_second_industry_marker_and_the_kiev_medal_tokens() -> None:
    s = with_board(
        new_game(),
        0,
        rails=rails(sp=(5,)),
        locomotives=((1,), (6,), ()),
        industry=(2,),
        token_spaces=("st_petersburg:4",),
    )
    s = act(s, "build", 0, moves=moves((SP, "black", 1)))
    s = act(s, "use_token", 0, token="second_industry_marker")
    assert board_of(s, 0).industry == (2, 0)
    s = act(s, "industry", 0, steps=1, marker=2)
    refused(s, "industry", 0, "never share", steps=1, marker=2)
    s = act(s, "industry", 0, steps=2, marker=2)
    assert board_of(s, 0).industry == (2, 3)


def test_the_industry_token_space_is_declared_by_the_table_while_unknown() -> None:
    s = act(new_game(), "take_space", 0, space="industry_1", workers=1)
    s = act(s, "industry", 0, steps=1)
    s = act(s, "use_token", 0, token="industry_five", space="industry")
    assert "industry" in board_of(s, 0).token_spaces
    s = act(s, "decline", 0)  # the token's "up to 5" industry steps, not taken
    refused(s, "use_token", 0, "already used", token="four_steps", space="industry")


def test_a_known_industry_token_space_fires_by_itself() -> None:
    s = new_game(board={"industry_token_space": 3})
    s = act(s, "industry", 0, steps=3)
    assert [(p.kind, p.source) for p in s.pending] == [("token", "industry")]


# --- locomotives ("ZVÝŠENÍ VÝKONU LOKOMOTIVY") --------------------------------------------


def test_players_take_the_lowest_level_in_the_supply() -> None:
    s = new_game()
    refused(
        s,
        "take_locomotive",
        0,
        "lowest in the supply is level 2",
        level=3,
        placements=[{"track": SP}],
    )
    s = act(s, "take_locomotive", 0, placements=[{"track": SP}])
    assert board_of(s, 0).locos(SP) == (2,)
    assert s.locomotive_supply[1] == 3


def test_rulebook_chain_example_green_replaces_and_moves_the_old_locomotive() -> None:
    """Seed 000, "ZVÝŠENÍ VÝKONU LOKOMOTIVY": Green has 3 and 1 at the Trans-Siberian, takes a
    4, replaces the 1 and puts it at Kiev (empty)."""
    s = with_board(new_game(), 3, locomotives=((3, 1), (), ()))
    s = replace(s, locomotive_supply=(0, 0, 0, 3, 4, 4, 4, 4, 4), current=3)
    s = act(s, "take_locomotive", 3, placements=[{"track": TS, "replace": 1}, {"track": KV}])
    assert board_of(s, 3).locomotives == ((4, 3), (), (1,))


def test_rulebook_chain_example_the_last_locomotive_turns_into_a_factory() -> None:
    """Later Green puts a 4 at St. Petersburg over a 2; the 2 replaces the 1 at Kiev; the 1
    fits nowhere and returns to the supply as a factory."""
    s = with_board(new_game(), 3, locomotives=((4, 3), (2,), (1,)))
    s = replace(s, locomotive_supply=(0, 0, 0, 3, 4, 4, 4, 4, 4), current=3)
    s = act(s, "take_locomotive", 3, placements=[{"track": SP}, {"track": KV}])
    assert board_of(s, 3).locomotives == ((4, 3), (4,), (2,))
    assert s.returned_factories == (1,)


def test_a_locomotive_only_replaces_a_weaker_one() -> None:
    s = with_board(new_game(), 0, locomotives=((3, 2), (5,), (2,)))
    s = replace(s, locomotive_supply=(0, 0, 0, 0, 4, 4, 4, 4, 4))
    refused(s, "take_locomotive", 0, "cannot replace level 5", placements=[{"track": SP}])
    refused(s, "take_locomotive", 0, "say which one", placements=[{"track": TS}])


def test_the_chain_may_stop_only_when_no_locomotive_space_is_free() -> None:
    s = with_board(new_game(), 0, locomotives=((3, 2), (), (2,)))
    s = replace(s, locomotive_supply=(0, 0, 0, 0, 4, 4, 4, 4, 4))
    refused(
        s,
        "take_locomotive",
        0,
        "must take the free space",
        placements=[{"track": TS, "replace": 2}, {"factory": True}],
    )
    refused(
        s, "take_locomotive", 0, "still needs a place", placements=[{"track": TS, "replace": 2}]
    )
    full = with_board(s, 0, locomotives=((3, 2), (4,), (2,)))
    # optional stop: the 2 could replace nothing weaker… but the 3 could replace Kiev's 2
    stopped = act(
        full, "take_locomotive", 0, placements=[{"track": TS, "replace": 3}, {"factory": True}]
    )
    assert stopped.returned_factories == (3,)
    chained = act(
        full,
        "take_locomotive",
        0,
        placements=[{"track": TS, "replace": 3}, {"track": KV}, {"factory": True}],
    )
    assert board_of(chained, 0).locomotives == ((5, 2), (4,), (3,))
    assert chained.returned_factories == (2,)


def test_the_new_locomotive_itself_cannot_go_to_the_supply() -> None:
    s = new_game()
    refused(s, "take_locomotive", 0, "build a factory instead", placements=[{"factory": True}])
    refused(s, "take_locomotive", 0, "say where", placements=[])


# --- factories and industry ----------------------------------------------------------------


def test_factories_fill_slots_left_to_right_and_replace_only_when_full() -> None:
    s = act(new_game(), "build_factory", 0)
    assert board_of(s, 0).factories == (2,)
    refused(s, "build_factory", 0, "still free", replace_slot=1)
    s = with_board(s, 0, factories=(2, 3, 4, 5, 6))
    s = replace(s, locomotive_supply=(0, 3, 3, 3, 3, 3, 4, 4, 4))
    refused(s, "build_factory", 0, "all five factory slots are full")
    s = act(s, "build_factory", 0, replace_slot=2)
    assert board_of(s, 0).factories == (2, 2, 4, 5, 6)
    assert s.returned_factories == (3,)
    s = act(s, "build_factory", 1, **{"from": "returned", "level": 3})
    assert board_of(s, 1).factories == (3,)
    assert s.returned_factories == ()


def test_an_empty_factory_gap_blocks_the_industry_marker() -> None:
    s = act(new_game(), "industry", 0, steps=4)
    refused(s, "industry", 0, "factory slot 1 is empty", steps=1)
    refused(new_game(), "industry", 0, "factory slot 1 is empty", steps=5)


def test_a_factory_space_fires_its_function_which_the_table_names_once_per_level() -> None:
    """Seed 000, "POSTUP PŘI DOSAŽENÍ POLE LEŽÍCÍHO NA ŽETONU TOVÁRNY" (its example: Yellow's
    industry +2, the first step onto a factory): the factory acts at once, then the marker
    moves on to the second space."""
    s = with_board(new_game(), 0, factories=(2,), industry=(4,), coins=1)
    s = act(s, "industry", 0, steps=2)
    assert board_of(s, 0).industry == (5,)
    assert [(p.kind, p.level) for p in s.pending] == [("factory", 2), ("industry_rest", 1)]
    s = act(s, "factory_function", 0, function="coin")
    assert board_of(s, 0).coins == 2
    assert board_of(s, 0).industry == (6,) and s.pending == ()
    assert s.factory_functions == ((2, "coin"),)
    t = with_board(s, 1, factories=(2,), industry=(4,))
    t = act(t, "industry", 1, steps=1)
    refused(t, "factory_function", 1, "show “a coin”", function="two_doublers")


def test_factory_functions_that_act_by_themselves() -> None:
    s = with_board(
        new_game(),
        0,
        factories=(2, 3, 4),
        industry=(4,),
        locomotives=((6, 2), (5,), ()),
    )
    s = act(s, "industry", 0, steps=1)
    s = act(s, "factory_function", 0, function="best_two_locomotives_points")
    assert GAME.score(s).player("Red").points("actions") == 11
    s = act(s, "industry", 0, steps=2)
    s = act(s, "factory_function", 0, function="industry_step")
    assert board_of(s, 0).industry == (8,)
    s = act(s, "industry", 0, steps=1)
    s = act(s, "factory_function", 0, function="bonus_card_or_10")
    s = act(s, "bonus_card", 0, points_instead=True)
    assert GAME.score(s).player("Red").points("bonus_cards") == 10


def test_doublers_at_most_eight() -> None:
    s = new_game()
    for _ in range(8):
        s = act(s, "doublers", 0, count=1)
    refused(s, "doublers", 0, "at most 8 doublers", count=1)
    assert s.doubler_supply == 12


def test_a_refusal_reads_in_the_players_language_with_their_rulebooks_section() -> None:
    """Issue 17: a refusal is a message, rendered per reader; the rule citation is the section
    title of the reader's rulebook (Czech seed 000's heading, Spanish seed 004's own words)."""
    s = with_board(new_game(), 0, colours=frozenset({"black", "grey", "brown", "natural", "white"}))
    with pytest.raises(IllegalActionError) as info:
        act(s, "build", 0, moves=moves((KV, "natural", 1)))
    czech = info.value.render(translations("cs"))
    assert czech.startswith("kolejnice (bezbarvá) na trati do Kyjeva")
    assert "ZÁSADY STAVBY KOLEJÍ" in czech and "černá, šedá, hnědá" in czech
    spanish = info.value.render(translations("es"))
    assert spanish.startswith("una vía de color natural en la línea a Kiev")
    assert "Reglas para construir vías" in spanish
    slovak = info.value.render(translations("sk"))
    assert "ZÁSADY STAVBY KOLEJÍ (české pravidlá)" in slovak and "bezfarebná" in slovak
    assert str(info.value).startswith("a natural rail on the line to Kiev")
