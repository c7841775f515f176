"""Engineers, doublers and the black worker as the rulebook says (issue 47, points 1–5): each
scenario names its section of seed 000 (the Czech rulebook)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from companion.core import Action, IllegalActionError
from companion.core.choices import leaves, node_at
from companion.games.russian_railroads import GAME, RussianRailroadsState
from companion.games.russian_railroads.state import Engineer, Pending
from tests.games.russian_railroads.helpers import board_of, moves, new_game, with_board

TS, SP, KV = "trans_siberian", "st_petersburg", "kiev"
ROW = ["two_any", "black_grey", "grey_brown", "industry_two", "doubler_3points", "two_black",
       "industry_black"]  # fmt: skip


def act(state: RussianRailroadsState, kind: str, player: int, **args: Any) -> RussianRailroadsState:
    return GAME.apply(state, Action(kind, player, args))


def refused(state: RussianRailroadsState, kind: str, player: int, match: str, **args: Any) -> None:
    before = GAME.to_json(state)
    with pytest.raises(IllegalActionError, match=match) as info:
        act(state, kind, player, **args)
    assert info.value.rule and info.value.section, "every refusal names the rule and section"
    assert GAME.to_json(state) == before


def all_pass(state: RussianRailroadsState) -> RussianRailroadsState:
    start = state.round
    while state.round == start:
        who = GAME.expected(state)
        assert who is not None
        state = act(state, "pass", who)
    return state


# --- 1. the public engineer spaces (setup step 9) ------------------------------------------


def test_only_the_two_variable_action_spaces_are_public_engineer_spaces() -> None:
    """Seed 000, setup step 9 and "INŽENÝŘI NA HERNÍM PLÁNU PŘED PROMĚNLIVÝMI AKČNÍMI POLI":
    the B tiles before the variable action spaces lie face down and can be neither hired nor
    used; the engineer on the hiring space is hired, not used as a public space."""
    s = new_game(4, engineer_row=ROW)
    refused(s, "take_space", 0, "not on an engineer action space", space="engineer_industry_two",
            workers=1)  # fmt: skip
    refused(s, "take_space", 0, "not on an engineer action space",
            space="engineer_industry_black", workers=1)  # fmt: skip
    s = act(s, "take_space", 0, space="hire_engineer", coins=1)
    s = act(s, "hire_engineer", 0, number=6)
    assert board_of(s, 0).engineers == (Engineer(6, "industry_black"),)
    # the tiles move right: the right variable space's engineer is on the hiring space now,
    # the face-down tile before the left one turns face up there
    s = all_pass(s)
    assert s.round == 2 and s.engineer_row == tuple(ROW[:-1])
    refused(s, "take_space", 0, "not on an engineer action space", space="engineer_two_black",
            workers=1)  # fmt: skip
    s = act(s, "take_space", 0, space="engineer_industry_two", workers=1)
    assert s.pending[0].grants == ("industry:2",)


def test_three_players_leave_the_leftmost_place_empty() -> None:
    """Seed 000, "HRA VE TŘECH HRÁČÍCH": 6 engineers (3 A, 3 B), the leftmost place empty — the
    two variable action spaces are still the two before the hiring space."""
    row = ROW[1:]
    s = new_game(3, engineer_row=row)
    refused(s, "take_space", 0, "not on an engineer action space", space="engineer_industry_two",
            workers=1)  # fmt: skip
    s = act(s, "take_space", 0, space="engineer_two_black", workers=1)
    assert s.pending[0].grants == ("steps:black:2",)


# --- 2. the default setup: nothing is public until the table names it ----------------------


def test_by_default_the_face_up_engineers_are_named_by_the_table_before_use() -> None:
    """Seed 000 setup step 9: what lies face up is what may be used — never any of the 15."""
    s = new_game(4)
    # issue 47 point 2: no engineer lies named on a variable action space yet, so none of the
    # 15 is a public space (checked first: the code before the fix took six different ones)
    for ability in ("two_any", "two_black", "industry_two"):
        refused(s, "take_space", 0, "not on an engineer action space",
                space=f"engineer_{ability}", workers=1)  # fmt: skip
    assert s.engineer_row == ("",) * 7
    s = act(s, "engineer_tile", 2, place="left", engineer="two_any")  # anyone says it
    assert s.engineer_row[4] == "two_any" and GAME.expected(s) == 0  # no move: still Red's turn
    refused(s, "engineer_tile", 0, "already named", place="left", engineer="two_black")
    refused(s, "engineer_tile", 0, "already on the table", place="right", engineer="two_any")
    tree = GAME.choices(s)
    keys = [c.key for c in tree]
    assert "space-engineer_two_any" in keys and "engineer-tile-right" in keys
    assert "engineer-tile-left" not in keys
    s = act(s, "take_space", 0, space="engineer_two_any", workers=1)
    assert s.pending[0].source == "engineer_two_any"


# --- 3. doublers: one a marked space, from the supply, the action in full --------------------


def test_the_doubler_space_needs_a_free_marked_space_and_a_doubler_in_the_supply() -> None:
    """Seed 000, "ŽETONY ZDVOJNÁSOBENÍ" (eight spaces, 20 doublers) and "POPIS JEDNOHO TAHU
    HRÁČE" (the action at once and in full)."""
    s = with_board(new_game(4), 0, doublers=8)
    refused(s, "take_space", 0, "cannot be done in full", space="doubler", workers=1)
    s2 = act(s, "take_space", 0, space="coins", workers=1)
    s2 = replace_supply(s2, 0)
    refused(s2, "take_space", 1, "cannot be done in full", space="doubler", workers=1)
    assert act(new_game(4), "take_space", 0, space="doubler", workers=1).doubler_supply == 19


def replace_supply(state: RussianRailroadsState, left: int) -> RussianRailroadsState:
    return replace(state, doubler_supply=left)


def test_the_doubler_and_3_points_engineer_pays_no_points_without_its_doubler() -> None:
    """Seed 000, "VYUŽITÍ INŽENÝRŮ NA PROMĚNLIVÝCH AKČNÍCH POLÍCH" (the doubler + 3 points
    example) in full on the public space; one's own engineer may be used partly ("A
    INŽENÝŘI")."""
    row = ["two_any", "black_grey", "grey_brown", "industry_two", "doubler_3points", "two_black",
           "industry_black"]  # fmt: skip
    s = with_board(new_game(4, engineer_row=row), 0, doublers=8)
    refused(s, "take_space", 0, "cannot be done in full", space="engineer_doubler_3points",
            workers=1)  # fmt: skip
    own = with_board(new_game(4), 0, doublers=8, engineers=(Engineer(3, "doubler_3points"),))
    own = act(own, "take_space", 0, space="own_engineer_3", workers=1)
    assert board_of(own, 0).doublers == 8
    assert GAME.score(own).player("Red").points("actions") == 3


# --- 4. the black worker ---------------------------------------------------------------------


def test_a_repeat_of_an_action_done_with_the_black_worker_may_take_the_extra_step_again() -> None:
    """Seed 000, "DESTIČKY INŽENÝRŮ" footnote: repeating an action first done with the black
    worker gives the extra black step again (the conditions met on the repeat)."""
    s = with_board(new_game(4), 0, black_worker=True, extra_workers=1,
                   engineers=(Engineer(5, "repeat_action"),))  # fmt: skip
    s = act(s, "take_space", 0, space="black_or_grey", workers=1, black_worker=True)
    s = act(s, "build", 0, moves=moves((KV, "black", 2)))
    for p in (1, 2, 3):
        s = act(s, "pass", p)
    s = act(s, "take_space", 0, space="own_engineer_5", workers=1)
    s = act(s, "take_space", 0, space="black_or_grey")
    s = act(s, "build", 0, moves=moves((KV, "black", 2)))
    assert board_of(s, 0).rail(KV, "black") == 5 and s.pending == ()


def test_a_turn_order_worker_is_the_black_worker_only_if_it_stood_there() -> None:
    """Seed 000, "KARTY ?" (the black worker) and "DALŠÍ VYUŽITÍ DĚLNÍKŮ …": the worker moved
    after the round is the one on the turn order space."""
    s = new_game(4)
    s = act(s, "take_space", 0, space="coins", workers=1)
    s = act(s, "take_space", 1, space="turn_order_1", workers=1)
    for p in (2, 3, 0, 1):
        s = act(s, "pass", p)
    assert s.pending[0].kind == "turn_order_move"
    refused(s, "take_space", 1, "not the black worker", space="black_or_grey", black_worker=True)
    # with the black worker on the turn order space, the extra step comes along
    t = with_board(new_game(4), 1, black_worker=True, extra_workers=1)
    t = act(t, "take_space", 0, space="coins", workers=1)
    t = act(t, "take_space", 1, space="turn_order_1", workers=1, black_worker=True)
    for p in (2, 3, 0, 1):
        t = act(t, "pass", p)
    t = act(t, "take_space", 1, space="black_or_grey", black_worker=True)
    t = act(t, "build", 1, moves=moves((KV, "black", 2)))
    assert board_of(t, 1).rail(KV, "black") == 3


def test_the_black_worker_moved_from_the_turn_order_space_brings_its_extra_step_by_taps() -> None:
    """Seed 000, "KARTY ?" (the black worker: "kdykoliv použijete černého dělníka na akčním
    poli … o 1 krok černou kolejnicí navíc") and "DALŠÍ VYUŽITÍ DĚLNÍKŮ UMÍSTĚNÝCH NA AKČNÍ POLE
    LIŠTY POŘADÍ NA TAHU": the worker moved is the black one, so the tree moves it as such."""
    t = with_board(new_game(4), 1, black_worker=True, extra_workers=1)
    t = act(t, "take_space", 0, space="coins", workers=1)
    t = act(t, "take_space", 1, space="turn_order_1", workers=1, black_worker=True)
    for p in (2, 3, 0, 1):
        t = act(t, "pass", p)
    assert t.pending[0].kind == "turn_order_move"
    moved = node_at(GAME.choices(t), "space-black_or_grey").action
    assert moved == Action("take_space", 1, {"space": "black_or_grey", "black_worker": True})
    # the same move entered without the word: still the black worker that moves
    said = GAME.apply(t, Action("take_space", 1, {"space": "black_or_grey"}))
    t = GAME.apply(t, moved)
    assert said == t
    offered = [leaf.action for _, leaf in leaves(GAME.choices(t))]
    assert Action("build", 1, {"moves": moves((KV, "black", 2))}) in offered
    # a plain worker on the turn order space moves as a plain worker
    u = act(new_game(4), "take_space", 0, space="coins", workers=1)
    u = act(u, "take_space", 1, space="turn_order_1", workers=1)
    for p in (2, 3, 0, 1):
        u = act(u, "pass", p)
    plain = node_at(GAME.choices(u), "space-black_or_grey").action
    assert plain == Action("take_space", 1, {"space": "black_or_grey"})


ROW_REPEAT = ["two_any", "black_grey", "grey_brown", "industry_two", "repeat_action",
              "two_black", "industry_black"]  # fmt: skip


def test_the_public_repeat_engineer_repeats_only_an_action_it_can_do_in_full() -> None:
    """Seed 000, "VYUŽITÍ INŽENÝRŮ NA PROMĚNLIVÝCH AKČNÍCH POLÍCH" (a variable action space is
    like the board's), "POPIS JEDNOHO TAHU HRÁČE" (the action at once and in full) and
    "DESTIČKY INŽENÝRŮ" (the repeat): on the public space the repeated action is done in full;
    one's own repeat engineer may be used partly ("A INŽENÝŘI")."""
    s = with_board(new_game(4, engineer_row=ROW_REPEAT), 0, doublers=7, extra_workers=1)
    s = act(s, "take_space", 0, space="doubler", workers=1)
    assert board_of(s, 0).doublers == 8
    for p in (1, 2, 3):
        s = act(s, "pass", p)
    # the only action to repeat is a doubler, and all eight spaces are full
    refused(s, "take_space", 0, "cannot be done in full", space="engineer_repeat_action",
            workers=1)  # fmt: skip
    keys = [c.key for c in GAME.choices(s)]
    assert "space-engineer_repeat_action" not in keys and "space-coins" in keys
    # with a second action to repeat, the space is taken and only that one is offered
    t = act(s, "take_space", 0, space="coins", workers=1)
    t = act(t, "take_space", 0, space="engineer_repeat_action", workers=1)
    refused(t, "take_space", 0, "cannot be done in full", space="doubler")
    refused(t, "decline", 0, "still owed")  # the repeat is owed: the coins can be taken
    # repeating the repeat itself is no action of its own: the repeat names the action
    refused(t, "take_space", 0, "not the repeat engineer", space="engineer_repeat_action")
    offered = [leaf.action for _, leaf in leaves(GAME.choices(t))]
    assert offered == [Action("take_space", 0, {"space": "coins"})]
    t = act(t, "take_space", 0, space="coins")
    assert board_of(t, 0).coins == 5 and t.pending == ()
    # one's own repeat engineer may take the doubler that cannot be placed (partly: nothing)
    own = with_board(s, 0, engineers=(Engineer(5, "repeat_action"),))
    own = act(own, "take_space", 0, space="own_engineer_5", workers=1)
    own = act(own, "take_space", 0, space="doubler")
    assert board_of(own, 0).doublers == 8 and own.pending == ()


# --- 5. the "?" card engineer ----------------------------------------------------------------


def test_the_question_card_engineer_is_named_and_its_space_can_be_used() -> None:
    """Seed 000, "KARTY ?": the engineer without a letter and the coin, "both at once, already
    in this round"; its action space is printed on the tile ("A INŽENÝŘI")."""
    s = with_board(new_game(4), 0, rails=((1, 0, 0, 0, 0), (3, 0, 0, 0, 0), (1, 0, 0, 0, 0)),
                   locomotives=((1,), (5,), ()))  # fmt: skip
    s = act(s, "take_space", 0, space="black_3", workers=2)
    s = act(s, "build", 0, moves=moves((SP, "black", 1), (KV, "black", 2)))
    s = act(s, "use_token", 0, token="question_card")
    # issue 47 point 5: the engine takes the tile by its name (refused before the fix) ...
    s_named = act(s, "question_card", 0, card="engineer_and_coin", ability="two_black", number=15)
    # ... and the tree offers it by name, then the printed number
    tree = GAME.choices(s)
    engineer = node_at(tree, "question-card-engineer/engineer-two_black")
    assert len(engineer.expand()) == 15
    s = s_named
    assert board_of(s, 0).engineers == (Engineer(15, "two_black"),)
    s = act(s, "decline", 0)  # no final bonus card
    s = act(s, "pass", 1)
    for p in (2, 3):
        s = act(s, "pass", p)
    s = act(s, "take_space", 0, space="own_engineer_15", workers=1)
    s = act(s, "build", 0, moves=moves((TS, "black", 2)))
    assert board_of(s, 0).rail(TS, "black") == 3


def test_hiring_names_the_tile_and_reads_its_number_in_two_taps() -> None:
    """Seed 000, "VYUŽITÍ SCHOPNOSTÍ INŽENÝRŮ": the rightmost engineer, one coin; the tree
    asks which tile it is, then (unless the owner set it) the number printed on it."""
    s = act(new_game(4), "take_space", 0, space="hire_engineer", coins=1)
    grant = GAME.choices(s)[0]
    assert len(grant.expand()) == 15  # any tile not yet seen
    numbers = node_at(GAME.choices(s), f"{grant.key}/engineer-grey_5points")
    leaf = numbers.expand()[2]
    assert leaf.action is not None
    s = GAME.apply(s, leaf.action)
    assert board_of(s, 0).engineers == (Engineer(3, "grey_5points"),)
    assert s.engineer_row[-1] == "grey_5points"
    # the owner set the number: one tap
    t = new_game(4, board={"engineer_number_two_any": 11}, engineer_row=["", *ROW[1:-1], "two_any"])
    t = act(t, "take_space", 0, space="hire_engineer", coins=1)
    only = [leaf for _, leaf in leaves(GAME.choices(t))]
    assert [
        leaf.action for leaf in only if leaf.action and leaf.action.kind == "hire_engineer"
    ] == [Action("hire_engineer", 0, {"ability": "two_any"})]


# --- 9. figures the rulebook's own examples settle ---------------------------------------------


def test_the_settled_worker_counts_are_confirmed_and_carry_no_unverified_note() -> None:
    """Seed 000, "DALŠÍ VYUŽITÍ DĚLNÍKŮ UMÍSTĚNÝCH NA AKČNÍ POLE LIŠTY POŘADÍ NA TAHU" (the turn
    order worker — one — does one brown step) and "VYUŽITÍ INŽENÝRŮ NA PROMĚNLIVÝCH AKČNÍCH
    POLÍCH" (one worker on the doubler + 3 points engineer); the other engineers stay marked."""
    s = new_game(4, engineer_row=ROW)
    assert s.board.figure("space_workers_brown_1").confirmed
    assert not s.board.figure("space_workers_brown_2").confirmed
    assert not s.board.figure("space_workers_engineer").confirmed
    s = act(s, "take_space", 0, space="engineer_doubler_3points", workers=1)
    assert "space_workers_engineer" not in s.figures_used
    s = act(s, "take_space", 1, space="engineer_two_black", workers=1)
    assert "space_workers_engineer" in s.figures_used  # still unconfirmed for the others
    brown = with_board(new_game(4), 0, colours=frozenset({"black", "grey", "brown"}),
                       rails=((7, 3, 1, 0, 0), (1, 0, 0, 0, 0), (1, 0, 0, 0, 0)),
                       fired=frozenset({"rails:2", "rails:6"}))  # fmt: skip
    brown = act(brown, "take_space", 0, space="brown_1", workers=1)
    assert "space_workers_brown_1" not in brown.figures_used


# --- 6. a colour gained in the middle of an action is usable at once ---------------------------

ROW_6 = ["industry_two", "doubler_3points", "grey_brown", "two_black", "black_grey", "two_any",
         "industry_black"]  # fmt: skip


def test_one_black_and_one_grey_at_the_start_black_unlocks_grey_for_the_same_action() -> None:
    """Seed 000, "BUDOVÁNÍ KOLEJÍ DALŠÍCH BAREV" (grey from the moment black reaches
    Trans-Siberian 2) and "DESTIČKY INŽENÝRŮ" (the order of the steps is the player's)."""
    s = new_game(4, engineer_row=ROW_6)
    s = act(s, "take_space", 0, space="engineer_black_grey", workers=1)
    tree = GAME.choices(s)
    assert [c.key for c in tree] == ["grant-0"]  # black first: grey comes with it
    black = [leaf.action for _, leaf in leaves(tree)]
    assert Action("build", 0, {"moves": moves((TS, "black", 1))}) in black
    s = act(s, "build", 0, moves=moves((TS, "black", 1)))
    assert "grey" in board_of(s, 0).colours
    grey = [leaf.action for _, leaf in leaves(GAME.choices(s))]
    assert Action("build", 0, {"moves": moves((TS, "grey", 1))}) in grey
    s = act(s, "build", 0, moves=moves((TS, "grey", 1)))
    assert board_of(s, 0).rail(TS, "grey") == 1 and s.pending == ()


def test_two_steps_with_any_rails_may_be_black_then_the_grey_it_unlocks() -> None:
    """Seed 000, "BUDOVÁNÍ KOLEJÍ DALŠÍCH BAREV": the tree offers black to Trans-Siberian 2
    and then a grey step in the same action."""
    s = new_game(4, engineer_row=ROW_6)
    s = act(s, "take_space", 0, space="engineer_two_any", workers=1)
    offered = [leaf.action for _, leaf in leaves(GAME.choices(s))]
    both = Action("build", 0, {"moves": moves((TS, "black", 1), (TS, "grey", 1))})
    assert both in offered
    s = GAME.apply(s, both)
    assert board_of(s, 0).rail(TS, "grey") == 1 and board_of(s, 0).rail(TS, "black") == 2


# --- 7. industry through a factory: the factory acts, then the marker moves on -----------------


def test_industry_plus_3_through_a_factory_that_builds_the_next_factory() -> None:
    """Seed 000, "POSTUP PŘI DOSAŽENÍ POLE LEŽÍCÍHO NA ŽETONU TOVÁRNY": the factory's action at
    once, then the marker goes on — through the slot that action has just filled; where the
    action builds nothing, the marker goes as far as the board allows."""
    s = with_board(new_game(4), 0, factories=(1,), industry=(4,))
    # industry +3 as the last round tile gives it: from 4, space 5 is the factory, 7 the slot
    # after the empty gap
    s = replace(s, pending=(Pending("space", 0, "industry_3", grants=("industry:3",)),))
    s = act(s, "industry", 0, steps=3)
    assert board_of(s, 0).industry == (5,) and s.pending[0].kind == "factory"
    built = act(s, "factory_function", 0, function="locomotive_or_factory")
    built = act(built, "build_factory", 0, **{"from": "supply"})
    assert board_of(built, 0).factories == (1, 2) and board_of(built, 0).industry == (7,)
    assert built.pending[0].kind == "factory" and built.pending[0].level == 2  # it acts in turn
    # a known factory that builds nothing: the gap stays closed, no move through it
    coin = replace(s, pending=(), factory_functions=((1, "coin"),))
    coin = replace(coin, pending=(Pending("space", 0, "industry_3", grants=("industry:3",)),))
    with pytest.raises(IllegalActionError, match="factory slot 2 is empty"):
        act(coin, "industry", 0, steps=3)
    # the factory's action used otherwise: the steps beyond the empty slot are lost
    taken = act(s, "factory_function", 0, function="locomotive_or_factory")
    taken = act(taken, "take_locomotive", 0, placements=[{"track": SP}])
    assert board_of(taken, 0).industry == (6,) and taken.pending == ()


# --- 8. by taps: the 4-steps token as steps, engineers in random playouts ----------------------


def test_the_four_steps_token_is_entered_colour_then_track_and_how_many() -> None:
    """Seed 000, "ŽETONY" (up to 4 steps with any rails, split freely): a colour, then the
    track and how many, as often as steps are left; what is left may be left."""
    s = with_board(new_game(4), 0, rails=((12, 5, 3, 1, 0), (1, 0, 0, 0, 0), (3, 0, 0, 0, 0)),
                   colours=frozenset({"black", "grey", "brown", "natural"}),
                   fired=frozenset({"rails:2", "rails:6", "rails:10"}),
                   locomotives=((9, 9), (5,), ()))  # fmt: skip
    s = act(s, "take_space", 0, space="black_or_grey", workers=1)
    s = act(s, "build", 0, moves=moves((TS, "black", 1)))
    s = act(s, "use_token", 0, token="four_steps")
    tree = GAME.choices(s)
    assert [c.key for c in tree] == ["grant-0", "stop"]
    colours = [c.key for c in tree[0].expand()]
    assert colours == ["colour-black", "colour-grey", "colour-brown", "colour-natural"]
    grey = node_at(tree, "grant-0/colour-grey").expand()
    assert 0 < len(grey) <= 12 and all(c.is_leaf for c in grey)
    s = act(s, "build", 0, moves=moves((TS, "grey", 2)))
    assert s.pending[0].grants == (
        "steps:any:2:upto:staged",
    )  # two steps still to use, or to leave
    s = act(s, "build", 0, moves=moves((KV, "black", 1)))
    assert s.pending[0].grants == ("steps:any:1:upto:staged",)
    s = act(s, "decline", 0)
    assert s.pending == () and board_of(s, 0).rail(TS, "grey") == 7


def test_naming_a_tile_reads_as_a_sentence_in_the_history() -> None:
    from companion.core.messages import render_text

    said = GAME.describe(
        Action("engineer_tile", 1, {"place": "left", "engineer": "two_black"}), ["Red", "Blue"]
    )
    assert (
        render_text(said)
        == "Blue: the engineer on the left engineer action space is “2 black steps”"
    )


def test_one_factory_on_the_way_fills_one_slot_at_most() -> None:
    """Seed 000, "VÝZNAM VÝŘEZŮ PRO TOVÁRNY": an empty slot is neither entered nor jumped — a
    factory passed on the way may fill the next slot, not two."""
    s = with_board(new_game(4), 0, factories=(1,), industry=(4,))
    five = replace(s, pending=(Pending("space", 0, "token industry_five",
                                       grants=("industry:5:upto",)),))  # fmt: skip
    with pytest.raises(IllegalActionError, match="factory slot 3 is empty"):
        act(five, "industry", 0, steps=5)
    four = act(five, "industry", 0, steps=4)
    assert board_of(four, 0).industry == (5,) and four.pending[1].kind == "industry_rest"


def test_a_marker_stopped_on_a_factory_may_pass_the_other_markers_space() -> None:
    """Seed 000, "ŽETONY" (the second industry marker: never on the other one's space) holds where
    a move ends;
    on the way the marker stops on the factory while it acts ("POSTUP PŘI DOSAŽENÍ POLE
    LEŽÍCÍHO NA ŽETONU TOVÁRNY"), even where the other marker stands."""
    s = with_board(new_game(4), 0, factories=(1,), industry=(5, 3))
    s = replace(s, pending=(Pending("space", 0, "industry_3", grants=("industry:3",)),))
    s = act(s, "industry", 0, steps=3, marker=2)
    assert board_of(s, 0).industry == (5, 5)
    assert "industry_shared" not in {p.code for p in GAME.problems(s)}
    s = act(s, "factory_function", 0, function="coin")
    assert board_of(s, 0).industry == (5, 6)
    assert "industry_shared" not in {p.code for p in GAME.problems(s)}
