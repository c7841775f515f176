"""A turn is one action space, checked as the rulebook says (seed 000, "POPIS JEDNOHO TAHU
HRÁČE" and the sections of every area); each scenario names its section."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from companion.core import Action, IllegalActionError, Observation, ObservationKind
from companion.core.messages import render_text
from companion.games.russian_railroads import GAME, RussianRailroadsState
from companion.games.russian_railroads.action_board import SPACES, parse_grant
from companion.games.russian_railroads.state import Engineer
from companion.service.engine import Engine
from companion.service.store import EventStore
from tests.games.russian_railroads.helpers import board_of, moves, new_game, with_board

# Raw actions: no stand-in space (tests.games.russian_railroads.helpers.act adds one for the
# board-rule scenarios); here every effect must come from a space taken.


def act(state: RussianRailroadsState, kind: str, player: int, **args: Any) -> RussianRailroadsState:
    return GAME.apply(state, Action(kind, player, args))


def refused(state: RussianRailroadsState, kind: str, player: int, match: str, **args: Any) -> None:
    """Refused naming the rule and its section; the state is unchanged."""
    before = GAME.to_json(state)
    with pytest.raises(IllegalActionError, match=match) as info:
        act(state, kind, player, **args)
    assert info.value.rule, "every refusal names the rule"
    assert GAME.to_json(state) == before


TS, SP, KV = "trans_siberian", "st_petersburg", "kiev"


def test_every_space_has_a_cost_a_gain_a_source_and_its_player_counts() -> None:
    keys = [s.key for s in SPACES]
    assert len(keys) == len(set(keys))
    for space in SPACES:
        assert space.workers + space.coins >= 1, space.key
        assert space.grants and space.source.strip(), space.key
        assert space.players <= {2, 3, 4} and space.players, space.key
        for grant in space.grants:
            parse_grant(grant)
    # the rulebook's own figures are confirmed; the 3–4-player side's others are not
    confirmed = {s.key for s in SPACES if s.confirmed}
    assert {"black_3", "any_2", "black_or_grey", "locomotive_1", "locomotive_2"} <= confirmed
    assert {"locomotive_and_factory", "industry_1", "industry_2", "industry_black"} <= confirmed
    assert {"doubler", "coins", "temporary", "hire_engineer", "turn_order_1"} <= confirmed
    # brown 1 is settled by the example of "DALŠÍ VYUŽITÍ DĚLNÍKŮ UMÍSTĚNÝCH NA AKČNÍ POLE LIŠTY
    # POŘADÍ NA TAHU" (the one turn order worker does one brown step)
    assert "brown_1" in confirmed
    assert {"grey_3", "brown_2", "white_2", "black_2", "industry_3"}.isdisjoint(confirmed)


# --- POPIS JEDNOHO TAHU HRÁČE: free space, exact workers, own supply, one action ---------


def test_the_table_report_one_turn_took_everything_is_refused() -> None:
    """The issue's table report: 3 black steps, then a locomotive, industry +2, 3 doublers and
    11 more black steps in one turn — only the 3 black steps are the space's action."""
    s = act(new_game(4), "take_space", 0, space="black_3", workers=2)
    refused(s, "take_locomotive", 0, "a locomotive is more than or other than what the space "
            "“3 black steps” gives", placements=[{"track": KV}])  # fmt: skip
    refused(s, "take_space", 1, "waiting for Red", space="coins", workers=1)
    refused(s, "build", 0, "more than or other than.*3 black steps", moves=moves((TS, "black", 11)))
    refused(s, "build", 0, "more than or other than", moves=moves((TS, "black", 4)))
    s = act(s, "build", 0, moves=moves((TS, "black", 3)))
    assert board_of(s, 0).rail(TS, "black") == 4
    refused(s, "industry", 0, "without an action space", steps=2)
    refused(s, "doublers", 0, "without an action space", count=3)
    refused(s, "take_space", 0, "one action per turn", space="industry_2", workers=2)


def test_an_occupied_space_is_refused_naming_the_space_and_the_rule() -> None:
    s = act(new_game(4), "take_space", 0, space="coins", workers=1)
    refused(s, "take_space", 1, "the space “2 coins” is taken this round", space="coins", workers=1)


def test_exactly_the_workers_shown_from_the_players_own_supply() -> None:
    s = new_game(4)
    refused(s, "take_space", 0, "needs 2 workers; Red placed 1", space="black_3", workers=1)
    refused(s, "take_space", 0, "needs 2 workers; Red placed 3", space="black_3", workers=3)
    s = with_board(s, 0, workers_used=4)
    refused(s, "take_space", 0, "places 2 worker.* with 1 left", space="black_3", workers=2)
    # a player with no workers and no coins takes nothing (the table report)
    s = with_board(s, 0, workers_used=5, coins=0)
    refused(s, "take_space", 0, "with 0 left", space="black_or_grey", workers=1)
    refused(s, "take_space", 0, "places 1 coin", space="black_or_grey", coins=1)


def test_a_coin_replaces_a_worker_never_the_reverse() -> None:
    """Seed 000, "DALŠÍ AKCE": a coin may stand in for a worker; two coins on the bottom space,
    never two workers."""
    s = with_board(new_game(4), 0, coins=3)
    refused(s, "take_space", 0, "a worker never replaces a coin", space="any_2", workers=2)
    s2 = act(s, "take_space", 0, space="any_2", coins=2)
    assert board_of(s2, 0).coins == 1 and board_of(s2, 0).workers_used == 0
    s3 = act(s, "take_space", 0, space="black_3", workers=1, coins=1)
    assert board_of(s3, 0).coins == 2 and board_of(s3, 0).workers_used == 1


def test_steps_may_be_split_between_tracks_but_the_action_is_done_in_full() -> None:
    """Seed 000, "POSTUP VÝSTAVBY TRATÍ" (Blue's 2 + 1 split) and "akci je třeba provést
    v plném rozsahu"."""
    s = act(new_game(4), "take_space", 0, space="black_3", workers=2)
    refused(s, "build", 0, "more than or other than", moves=moves((TS, "black", 2)))
    refused(s, "decline", 0, "still owed")
    s = act(s, "build", 0, moves=moves((TS, "black", 2), (KV, "black", 1)))
    assert (board_of(s, 0).rail(TS, "black"), board_of(s, 0).rail(KV, "black")) == (3, 2)
    assert s.pending == ()


def test_the_bottom_space_gives_up_to_two_steps_of_any_rails() -> None:
    """Seed 000, "PRVNÍ (NEBO SPODNÍ) AKČNÍ POLE": 1 worker + 1 coin, up to 2 steps."""
    s = with_board(new_game(4), 0, coins=1)
    s = act(s, "take_space", 0, space="any_2", workers=1, coins=1)
    refused(s, "build", 0, "more than or other than", moves=moves((TS, "black", 3)))
    s = act(s, "build", 0, moves=moves((TS, "black", 1), (TS, "grey", 1)))
    assert board_of(s, 0).rail(TS, "grey") == 1
    s2 = act(new_game(4), "take_space", 0, space="any_2", workers=1, coins=1)
    s2 = act(s2, "build", 0, moves=moves((KV, "black", 1)))
    assert s2.pending == ()  # one step is enough: "up to" 2


def test_the_reusable_space_gives_one_black_or_grey_step_to_everyone() -> None:
    """Seed 000: the only space used again, even with someone's worker on it."""
    s = act(new_game(4), "take_space", 0, space="black_or_grey", workers=1)
    refused(s, "build", 0, "more than or other than", moves=moves((TS, "black", 2)))
    s = act(s, "build", 0, moves=moves((TS, "black", 1)))
    s = act(s, "take_space", 1, space="black_or_grey", workers=1)
    s = act(s, "build", 1, moves=moves((KV, "black", 1)))
    s = act(s, "take_space", 2, space="black_or_grey", workers=1)
    refused(s, "build", 2, "more than or other than", moves=moves((KV, "brown", 1)))
    assert "black_or_grey" not in s.occupied


# --- LOKOMOTIVY A TOVÁRNY ----------------------------------------------------------------


def test_the_locomotive_spaces_give_one_locomotive_or_one_factory() -> None:
    s = act(new_game(4), "take_space", 0, space="locomotive_1", workers=1)
    s = act(s, "take_locomotive", 0, placements=[{"track": KV}])
    assert s.pending == ()
    refused(s, "build_factory", 0, "without an action space")
    s = act(s, "take_space", 1, space="locomotive_2", workers=2)
    s = act(s, "build_factory", 1)
    assert board_of(s, 1).factories == (2,)


def test_the_three_worker_space_gives_a_locomotive_and_a_factory_in_either_order() -> None:
    s = act(new_game(4), "take_space", 0, space="locomotive_and_factory", workers=3)
    s = act(s, "build_factory", 0)
    refused(s, "build_factory", 0, "more than or other than")
    s = act(s, "take_locomotive", 0, placements=[{"track": KV}])
    assert board_of(s, 0).factories == (2,) and board_of(s, 0).locos(KV) == (2,)


def test_the_three_worker_space_is_blocked_without_a_locomotive_in_the_supply() -> None:
    s = replace(new_game(4), locomotive_supply=(0,) * 9, returned_factories=(3,))
    refused(
        s,
        "take_space",
        0,
        "needs a locomotive in the supply",
        space="locomotive_and_factory",
        workers=3,
    )
    s = act(s, "take_space", 0, space="locomotive_1", workers=1)  # a returned factory
    s = act(s, "build_factory", 0, **{"from": "returned", "level": 3})
    assert board_of(s, 0).factories == (3,)


# --- PRŮMYSLOVÝ ROZVOJ --------------------------------------------------------------------


def test_the_industry_spaces_1_2_and_1_plus_a_black_step() -> None:
    s = act(new_game(4), "take_space", 0, space="industry_1", workers=1)
    refused(s, "industry", 0, "more than or other than", steps=2)
    s = act(s, "industry", 0, steps=1)
    s = act(s, "take_space", 1, space="industry_2", workers=2)
    refused(s, "industry", 1, "more than or other than", steps=1)
    s = act(s, "industry", 1, steps=2)
    s = act(s, "take_space", 2, space="industry_black", workers=2)
    s = act(s, "build", 2, moves=moves((TS, "black", 1)))
    s = act(s, "industry", 2, steps=1)
    assert [board_of(s, i).industry for i in range(3)] == [(1,), (2,), (1,)]
    assert board_of(s, 2).rail(TS, "black") == 2


# --- DOPLŇKOVÉ AKCE, INŽENÝŘI, POŘADÍ NA TAHU ---------------------------------------------


def test_doubler_coins_and_temporary_workers_act_at_once() -> None:
    s = act(new_game(4), "take_space", 0, space="doubler", workers=1)
    s = act(s, "take_space", 1, space="coins", workers=1)
    s = act(s, "take_space", 2, space="temporary", workers=1)
    assert board_of(s, 0).doublers == 1 and board_of(s, 1).coins == 3
    assert board_of(s, 2).temporary == 2 and s.pending == ()


def test_hiring_the_engineer_takes_a_coin_and_one_engineer_a_round() -> None:
    """Seed 000, "VYUŽITÍ SCHOPNOSTÍ INŽENÝRŮ" and "DALŠÍ AKCE": no worker, one coin."""
    s = new_game(4)
    refused(s, "take_space", 0, "needs 1 coin", space="hire_engineer", workers=1)
    s = act(s, "take_space", 0, space="hire_engineer", coins=1)
    s = act(s, "hire_engineer", 0, number=4, ability="two_any")
    assert board_of(s, 0).engineers[0].number == 4 and board_of(s, 0).coins == 0
    s = with_board(s, 1, coins=2)
    refused(s, "take_space", 1, "taken this round", space="hire_engineer", coins=1)


def test_public_engineer_spaces_are_used_once_a_round_by_anyone() -> None:
    """Seed 000, "VYUŽITÍ INŽENÝRŮ NA PROMĚNLIVÝCH AKČNÍCH POLÍCH" (its example: Red on the left
    variable action space, the doubler + 3 points engineer) and setup step 9: the two variable
    action spaces only — the tiles before them lie face down, the one on the hiring space can be
    hired, not used."""
    row = ["two_any", "black_grey", "grey_brown", "industry_two", "doubler_3points", "two_black",
           "industry_black"]  # fmt: skip
    s = new_game(4, engineer_row=row)
    refused(s, "take_space", 0, "not on an engineer action space", space="engineer_two_any",
            workers=1)  # fmt: skip
    refused(
        s,
        "take_space",
        0,
        "not on an engineer action space",
        space="engineer_industry_two",
        workers=1,
    )  # fmt: skip  (face down, before the variable action spaces)
    refused(
        s,
        "take_space",
        0,
        "not on an engineer action space",
        space="engineer_industry_black",
        workers=1,
    )  # fmt: skip  (the hiring space)
    s = act(s, "take_space", 0, space="engineer_doubler_3points", workers=1)
    assert board_of(s, 0).doublers == 1
    assert GAME.score(s).player("Red").points("actions") == 3
    refused(s, "take_space", 1, "taken this round", space="engineer_doubler_3points", workers=1)
    s = act(s, "take_space", 1, space="engineer_two_black", workers=1)
    refused(s, "build", 1, "more than or other than", moves=moves((TS, "black", 3)))
    s = act(s, "build", 1, moves=moves((TS, "black", 2)))
    assert board_of(s, 1).rail(TS, "black") == 3


def test_a_hired_engineer_is_its_owners_space_and_may_be_used_partly() -> None:
    """Seed 000, "A INŽENÝŘI": only the owner, once a round, partly if they like."""
    s = with_board(new_game(4), 0, engineers=(Engineer(9, "industry_black"),))
    refused(s, "take_space", 0, "no engineer number 8", space="own_engineer_8", workers=1)
    s = act(s, "take_space", 0, space="own_engineer_9", workers=1)
    s = act(s, "industry", 0, steps=1)
    s = act(s, "decline", 0)  # the black step is left: allowed on one's own engineer
    assert s.pending == () and board_of(s, 0).industry == (1,)
    s = act(s, "pass", 1)
    s = act(s, "pass", 2)
    s = act(s, "pass", 3)
    refused(s, "take_space", 0, "taken this round", space="own_engineer_9", workers=1)


def test_a_player_acts_or_passes_not_both() -> None:
    s = act(new_game(4), "take_space", 0, space="coins", workers=1)
    refused(s, "pass", 0, "acts or passes, not both")
    s = act(s, "pass", 1)
    s = act(s, "pass", 2)
    s = act(s, "pass", 3)
    s = act(s, "pass", 0)  # alone in the round: a new turn, so passing is fine
    assert s.round == 2


def test_the_turn_order_worker_moves_to_one_worker_space_without_help() -> None:
    """Seed 000, "DALŠÍ VYUŽITÍ DĚLNÍKŮ …": only a space for exactly one worker; no temporary
    workers, coins or more own workers."""
    s = act(new_game(4), "take_space", 0, space="temporary", workers=1)
    s = act(s, "take_space", 1, space="turn_order_1", workers=1)
    for p in (2, 3, 0, 1):
        s = act(s, "pass", p)
    assert s.phase == "after_round" and s.pending[0].player == 1
    refused(s, "take_space", 1, "no temporary workers, coins or further own workers",
            space="industry_2", workers=2)  # fmt: skip
    refused(s, "take_space", 1, "alone", space="industry_1", coins=1)
    refused(s, "take_space", 1, "taken this round", space="temporary")
    s = act(s, "take_space", 1, space="doubler")
    assert board_of(s, 1).doublers == 1 and s.round == 2


# --- KARTY ?, TOVÁRNY, DESTIČKY INŽENÝRŮ: black worker, repeats, four actions --------------


def test_the_black_worker_gives_one_more_black_step() -> None:
    """Seed 000, "KARTY ?" (black worker): used on a space with black steps and at least one
    black step done, exactly one more black step."""
    s = with_board(new_game(4), 0, black_worker=True, extra_workers=1)
    s2 = act(s, "take_space", 0, space="black_3", workers=2, black_worker=True)
    refused(s2, "build", 0, "more than or other than", moves=moves((TS, "black", 5)))
    s2 = act(s2, "build", 0, moves=moves((TS, "black", 4)))
    assert board_of(s2, 0).rail(TS, "black") == 5
    # without the black worker, 4 steps are too many
    s3 = act(s, "take_space", 0, space="black_3", workers=2)
    refused(s3, "build", 0, "more than or other than", moves=moves((TS, "black", 4)))
    # the extra step is black only, and once a round
    s4 = act(s, "take_space", 0, space="black_or_grey", workers=1, black_worker=True)
    s4 = act(s4, "build", 0, moves=moves((TS, "black", 2)))
    s4 = act(s4, "pass", 1)
    s4 = act(s4, "pass", 2)
    s4 = act(s4, "pass", 3)
    refused(s4, "take_space", 0, "no black worker", space="black_3", workers=2, black_worker=True)


def test_the_repeat_action_takes_a_used_one_worker_space_again() -> None:
    """Seed 000, "TOVÁRNY" (repeat): a one-worker action the player used this round; never the
    2 temporary workers."""
    s = with_board(new_game(4), 0, engineers=(Engineer(5, "repeat_action"),))
    s = act(s, "take_space", 0, space="industry_1", workers=1)
    s = act(s, "industry", 0, steps=1)
    s = act(s, "pass", 1)
    s = act(s, "pass", 2)
    s = act(s, "pass", 3)
    s = act(s, "take_space", 0, space="temporary", workers=1)
    s = act(s, "take_space", 0, space="own_engineer_5", workers=1)
    refused(s, "take_space", 0, "has not used", space="temporary")
    refused(s, "take_space", 0, "has not used", space="coins")
    refused(s, "take_space", 0, "places no workers", space="industry_1", workers=1)
    s = act(s, "take_space", 0, space="industry_1")
    s = act(s, "industry", 0, steps=1)
    assert board_of(s, 0).industry == (2,) and s.pending == ()


def test_the_four_actions_card_doubler_industry_black_then_one_again() -> None:
    """Seed 000, "KARTY ?": a doubler, industry +1, a black step, then one of the three
    again."""
    s = with_board(new_game(4), 0, rails=((12, 0, 0, 0, 0), (1, 0, 0, 0, 0), (1, 0, 0, 0, 0)),
                   locomotives=((9, 9), (), ()), colours=frozenset({"black", "grey", "brown",
                   "natural"}), fired=frozenset({"rails:2", "rails:6", "rails:10"}))  # fmt: skip
    s = act(s, "take_space", 0, space="black_or_grey", workers=1)
    s = act(s, "build", 0, moves=moves((TS, "black", 1)))  # black + locomotive reach 13: a token
    assert s.pending[0].kind == "token"
    s = act(s, "use_token", 0, token="question_card")
    s = act(s, "question_card", 0, card="four_actions")
    assert board_of(s, 0).doublers == 1
    assert s.pending[0].grants == ("industry:1:upto", "steps:black:1:upto", "four_repeat")
    s = act(s, "industry", 0, steps=1)
    s = act(s, "build", 0, moves=moves((KV, "black", 1)))
    refused(s, "industry", 0, "more than or other than", steps=2)
    s = act(s, "doublers", 0, count=1)
    assert board_of(s, 0).doublers == 2 and board_of(s, 0).industry == (1,)
    assert s.pending[0].kind == "bonus_card"  # then the look through the bonus deck


def test_manual_points_and_coins_are_no_free_effects() -> None:
    s = new_game(4)
    for kind, args in (("points", {"points": 5}), ("gain_coins", {"count": 2}),
                       ("place_workers", {"workers": 1}), ("turn_order", {"space": 2})):  # fmt: skip
        refused(s, kind, 0, "no such move", **args)


def test_the_last_round_tile_replaces_the_turn_order_space_with_industry_3() -> None:
    s = new_game(2)
    refused(s, "take_space", 0, "not available in round 1", space="industry_3", workers=1)
    for _ in range(5):
        for p in s.turn_order:
            s = act(s, "pass", p)
    s = act(s, "take_space", s.turn_order[0], space="industry_3", workers=1)
    s = act(s, "industry", s.turn_order[0], steps=3)
    assert board_of(s, s.turn_order[0]).industry == (3,)


def test_an_unconfirmed_worker_count_is_used_with_a_note_until_the_owner_sets_it() -> None:
    s = new_game(4)
    s = act(s, "take_space", 0, space="black_2", workers=1)  # one source: 1 worker
    s = act(s, "build", 0, moves=moves((TS, "black", 2)))
    notes = [render_text(n) for n in GAME.score(s).notes]
    assert any("action spaces' worker counts" in n and "2 black steps" in n for n in notes)
    # the 2-player side is known exactly: no note there
    two = new_game(2, board={"space_workers_grey_3": 3})
    two = with_board(two, 0, colours=frozenset({"black", "grey"}), rails=((5, 0, 0, 0, 0),) * 3)
    two = act(two, "take_space", 0, space="grey_3", workers=2)
    assert not any("action space worker counts" in n for n in GAME.score(two).notes)
    owned = new_game(4, board={"space_workers_black_2": 2})
    refused(owned, "take_space", 0, "needs 2 workers", space="black_2", workers=1)
    owned = act(owned, "take_space", 0, space="black_2", workers=2)
    assert not any("action space worker counts" in n for n in GAME.score(owned).notes)


def test_spaces_that_are_not_on_the_two_player_board() -> None:
    refused(new_game(2), "take_space", 0, "not on the board with 2 players", space="black_2",
            workers=1)  # fmt: skip


def test_bad_input_is_refused_by_the_engine_and_the_raw_input_kept(tmp_path: Path) -> None:
    store = EventStore(tmp_path / "db.sqlite3")
    try:
        engine = Engine(store)
        start = Observation(
            "table-page",
            ObservationKind.COMMAND,
            {
                "command": "start_game",
                "game": "russian-railroads",
                "players": [{"name": n} for n in ("Red", "Blue", "Yellow", "Green")],
                "options": {"starting_bonus": False},
            },
        )  # type: ignore[arg-type]
        assert engine.handle(start).outcome == "applied"

        def action(kind: str, player: int, **args: object) -> Observation:
            payload = {"action": {"kind": kind, "player": player, "args": args}}
            return Observation("table-page", ObservationKind.ACTION, payload)  # type: ignore[arg-type]

        assert engine.handle(action("take_space", 0, space="coins", workers=1)).outcome == (
            "applied"
        )
        _, before = engine.latest()
        out = engine.handle(action("take_space", 1, space="coins", workers=1))
        assert out.outcome == "rejected"
        assert "the space “2 coins” is taken this round" in out.message
        assert "an action space must be free" in out.message
        out = engine.handle(action("take_space", 1, space="black_3", workers=3))
        assert out.outcome == "rejected" and "needs 2 workers" in out.message
        _, after = engine.latest()
        assert after["seq"] == before["seq"] and after["players"] == before["players"]
        kept = store.inputs(2)  # newest first
        assert [i["outcome"] for i in kept] == ["rejected", "rejected"]
        assert kept[0]["payload"]["action"]["args"]["workers"] == 3
    finally:
        store.close()
