"""Take a share (Pořízení akcie) and build track (Stavba trati) as the table reports it."""

from __future__ import annotations

from typing import Any

import pytest

from companion.core import IllegalActionError

LEATHER, LUMBER, STEEL, COTTON = range(4)


def test_nikol_pays_one_influence_for_the_one_steel_train_and_adds_three(table: Any) -> None:
    # Příklad (Pořízení akcie): one Steel train on its field, Nikol's influence 3 → 2, she
    # takes a Steel share and puts 3 Steel trains from the supply on the field
    state = table.playing(4)
    state = table.company(state, "steel", trains_on_field=1)
    state = table.influence(state, 0, steel=3)
    after = table.act(state, "take_share", 0, company="steel")
    assert after.players[0].influence[STEEL] == 2
    assert after.players[0].shares[STEEL] == state.players[0].shares[STEEL] + 1
    assert after.company("steel").trains_on_field == 4
    assert after.company("steel").trains_in_supply == 17
    assert after.company("steel").shares_on_board == 5


def test_a_share_is_refused_when_influence_would_go_below_zero(table: Any) -> None:
    state = table.playing(4)  # 4 trains on every field, influence 1
    with pytest.raises(IllegalActionError, match="influence cannot go below 0"):
        table.act(state, "take_share", 0, company="lumber")


def test_an_empty_train_field_makes_the_share_free(table: Any) -> None:
    state = table.influence(
        table.company(table.playing(4), "cotton", trains_on_field=0), 0, cotton=0
    )
    after = table.act(state, "take_share", 0, company="cotton")
    assert after.players[0].influence[COTTON] == 0
    assert after.company("cotton").trains_on_field == 3


def test_the_train_field_never_holds_more_than_five(table: Any) -> None:
    state = table.influence(
        table.company(table.playing(4), "cotton", trains_on_field=3), 0, cotton=3
    )
    after = table.act(state, "take_share", 0, company="cotton")
    assert after.company("cotton").trains_on_field == 5
    assert after.company("cotton").trains_in_supply == 18


def test_a_short_supply_adds_what_it_has_and_an_empty_supply_exhausts_the_company(
    table: Any,
) -> None:
    state = table.company(table.playing(4), "steel", trains_on_field=0, trains_in_supply=2)
    after = table.act(state, "take_share", 0, company="steel")
    steel = after.company("steel")
    assert steel.trains_on_field == 2 and steel.trains_in_supply == 0
    # Vyčerpání nabídky akcií: no train left in the supply → its shares leave the game
    assert steel.exhausted and steel.shares_on_board == 0


def test_taking_the_last_share_exhausts_the_company(table: Any) -> None:
    state = table.company(table.playing(4), "steel", trains_on_field=0, shares_on_board=1)
    after = table.act(state, "take_share", 0, company="steel")
    assert after.company("steel").exhausted
    with pytest.raises(IllegalActionError, match="no share left"):
        table.act(after, "take_share", 1, company="steel")


def test_building_stays_possible_for_an_exhausted_company(table: Any) -> None:
    state = table.company(table.playing(4), "steel", shares_on_board=0, exhausted=True)
    after = table.act(state, "build", 0, company="steel", trains=2, landscape=1, demand=[])
    assert after.company("steel").trains_on_field == 2


def test_daniels_leather_track_to_tulsa(table: Any) -> None:
    # Příklad č. 1 akce Stavba trati: 4 Leather trains on the field, 3 go to Tulsa (2 landscape
    # spaces): Leather's track length 4 → 6; Tulsa's token shows Leather and Steel, Daniel's
    # influence there 2 → 3
    state = table.company(table.playing(4), "leather", track_length=4)
    state = table.influence(state, 0, leather=2, steel=2)
    after = table.act(
        state, "build", 0, company="leather", trains=3, landscape=2, demand=["leather", "steel"]
    )
    assert after.company("leather").track_length == 6
    assert after.company("leather").trains_on_field == 1
    assert after.players[0].influence[LEATHER] == 3
    assert after.players[0].influence[STEEL] == 3
    assert after.company("leather").trains_on_map == state.company("leather").trains_on_map + 3


def test_pepas_steel_track_to_detroit_compensates_lumber_once_and_leather_twice(table: Any) -> None:
    # Příklad č. 2: 3 Steel trains Atlanta → Detroit, over 1 space with Lumber and 2 (Detroit
    # included) with Leather: Lumber +1, Leather +2 trains on their fields; the token shows
    # Cotton and Leather: +1 each; Steel's track +2; Detroit is full: its token goes back
    state = table.playing(4)
    for name in ("lumber", "leather"):
        state = table.company(state, name, trains_on_field=1)
    after = table.act(
        state,
        "build",
        0,
        company="steel",
        trains=3,
        landscape=2,
        compensated={"lumber": 1, "leather": 2},
        demand=["cotton", "leather"],
        city_full=True,
    )
    assert after.company("lumber").trains_on_field == 2
    assert after.company("leather").trains_on_field == 3
    assert after.company("steel").track_length == state.company("steel").track_length + 2
    assert after.players[0].influence[COTTON] == state.players[0].influence[COTTON] + 1
    assert after.players[0].influence[LEATHER] == state.players[0].influence[LEATHER] + 1
    assert after.demand_tokens_removed == 1


def test_compensation_stops_at_five_trains_on_the_field(table: Any) -> None:
    state = table.playing(4)  # every field has 4
    after = table.act(
        state,
        "build",
        0,
        company="steel",
        trains=3,
        landscape=2,
        compensated={"lumber": 3},
        demand=[],
    )
    assert after.company("lumber").trains_on_field == 5
    assert after.company("lumber").trains_in_supply == 19


def test_two_equal_symbols_give_two_influence(table: Any) -> None:
    state = table.playing(4)
    after = table.act(
        state, "build", 0, company="steel", trains=1, landscape=0, demand=["steel", "steel"]
    )
    assert after.players[0].influence[STEEL] == state.players[0].influence[STEEL] + 2


def test_the_wild_symbol_gives_one_in_the_printed_company_and_one_in_another(table: Any) -> None:
    state = table.playing(4)
    build = {"company": "steel", "trains": 1, "landscape": 0, "demand": ["lumber", "wild"]}
    with pytest.raises(IllegalActionError, match="which other company gains 1"):
        table.act(state, "build", 0, **build)
    with pytest.raises(IllegalActionError, match="never the same company twice"):
        table.act(state, "build", 0, **build, wild_company="lumber")
    after = table.act(state, "build", 0, **build, wild_company="cotton")
    before = state.players[0].influence
    assert after.players[0].influence == (before[0], before[1] + 1, before[2], before[3] + 1)


def test_track_length_stops_at_15(table: Any) -> None:
    state = table.company(table.playing(4), "steel", track_length=14)
    after = table.act(state, "build", 0, company="steel", trains=4, landscape=3, demand=[])
    assert after.company("steel").track_length == 15


@pytest.mark.parametrize(
    ("build", "message"),
    [
        ({"trains": 5, "landscape": 4}, "has 4 on its train field"),
        ({"trains": 3, "landscape": 1}, "only through landscape spaces"),
        ({"trains": 3, "landscape": 3}, "only through landscape spaces"),
        ({"trains": 2, "landscape": 1, "compensated": {"steel": 1}}, "cannot compensate itself"),
        (
            {"trains": 2, "landscape": 1, "compensated": {"lumber": 3}},
            "one compensation train per space",
        ),
        ({"trains": 2, "landscape": 1, "demand": ["steel"]}, "two symbols"),
        ({"trains": 2, "landscape": 1, "demand": ["wild", "wild"]}, "at most one wild"),
        ({"trains": 2, "landscape": 1, "demand": ["coal", "steel"]}, r"args.demand\[0\]"),
        ({"trains": 2, "landscape": 1, "wild_company": "lumber"}, "the demand token shows none"),
        ({"trains": 2, "landscape": 1, "harbour": True}, "does not use the Harbours variant"),
        ({"trains": 2, "landscape": 1, "golden_spike": "omaha"}, "does not use the Golden Spike"),
        ({"trains": 0, "landscape": 0}, "args.trains"),
        ({"trains": 2, "landscape": 1, "colour": "grey"}, "args.colour: unknown field"),
    ],
)
def test_builds_the_rules_refuse(table: Any, build: dict[str, Any], message: str) -> None:
    state = table.playing(4)
    with pytest.raises(IllegalActionError, match=message):
        table.act(state, "build", 0, company="steel", **build)


def test_only_the_player_whose_turn_it_is_acts(table: Any) -> None:
    state = table.playing(4)
    with pytest.raises(IllegalActionError, match="it is Ann's turn"):
        table.act(state, "build", 2, company="steel", trains=1, landscape=0)


def test_a_refusal_leaves_the_table_as_it_was(table: Any, game: Any) -> None:
    state = table.playing(4)
    before = game.to_json(state)
    with pytest.raises(IllegalActionError):
        table.act(state, "take_share", 0, company="lumber")
    assert game.to_json(state) == before


def test_a_scanned_share_is_a_take_share_for_the_active_player(table: Any, game: Any) -> None:
    state = table.playing(4)
    action = game.interpret(state, None, "share-steel")
    assert (action.kind, action.player, dict(action.args)) == (
        "take_share",
        0,
        {"company": "steel"},
    )


def test_harbours_a_wild_city_opens_one_harbour_per_company(table: Any) -> None:
    state = table.playing(4, map="europe", harbours=True)
    build = {
        "company": "steel",
        "trains": 1,
        "landscape": 0,
        "demand": ["lumber", "wild"],
        "wild_company": "cotton",
    }
    after = table.act(state, "build", 0, **build, harbour=True)
    assert after.harbours_opened == ("lumber",)
    # one Lumber train from the supply onto a harbour space
    assert after.company("lumber").trains_in_supply == state.company("lumber").trains_in_supply - 1
    with pytest.raises(IllegalActionError, match="Lumber \\(brown\\) already has a harbour"):
        table.act(
            after,
            "build",
            1,
            **{**build, "company": "cotton", "wild_company": "steel"},
            harbour=True,
        )


def test_golden_spike_omaha_then_the_join_gives_both_branches_two_steps(table: Any) -> None:
    state = table.playing(4, golden_spike=True)
    assert state.golden_spike_state == "waiting"
    with pytest.raises(IllegalActionError, match="Omaha first"):
        table.act(
            state,
            "build",
            0,
            company="leather",
            trains=1,
            landscape=0,
            golden_spike="joined",
            west_company="steel",
        )
    after = table.act(
        state, "build", 0, company="lumber", trains=2, landscape=1, golden_spike="omaha"
    )
    assert after.golden_spike_state == "east" and after.golden_spike_east == "lumber"
    # a Lumber train on the tile, one of each other company on San Francisco
    assert [c.trains_in_supply for c in after.companies] == [19, 19, 19, 19]
    with pytest.raises(IllegalActionError, match="not the eastern branch"):
        table.act(
            after,
            "build",
            1,
            company="leather",
            trains=1,
            landscape=0,
            golden_spike="joined",
            west_company="lumber",
        )
    lengths = [c.track_length for c in after.companies]
    joined = table.act(
        after,
        "build",
        1,
        company="leather",
        trains=2,
        landscape=1,
        golden_spike="joined",
        west_company="leather",
    )
    assert joined.golden_spike_state == "done" and joined.golden_spike_west == "leather"
    assert joined.company("lumber").track_length == lengths[LUMBER] + 2
    assert joined.company("leather").track_length == lengths[LEATHER] + 1 + 2


def test_golden_spike_san_francisco_first_cancels_the_event(table: Any) -> None:
    state = table.playing(4, golden_spike=True)
    after = table.act(
        state, "build", 0, company="lumber", trains=2, landscape=1, golden_spike="san_francisco"
    )
    assert after.golden_spike_state == "removed"
    with pytest.raises(IllegalActionError, match="does not follow the one before it"):
        table.act(after, "build", 1, company="steel", trains=2, landscape=1, golden_spike="omaha")


def test_with_harbours_a_harbour_space_on_the_way_is_not_landscape(table: Any) -> None:
    state = table.playing(4, map="europe", harbours=True)
    after = table.act(state, "build", 0, company="steel", trains=3, landscape=1)
    assert after.company("steel").track_length == state.company("steel").track_length + 1


def test_an_unknown_component_is_refused_by_name(table: Any, game: Any) -> None:
    from companion.core import UnknownComponentError

    with pytest.raises(UnknownComponentError, match="'share-coal'"):
        game.interpret(table.playing(4), 0, "share-coal")


def test_each_company_is_shown_in_its_component_colour(table: Any, game: Any) -> None:
    """The companies are named by the rulebook's name and their component's colour; a page
    draws that colour beside the name, in the draft, for a share and for a build."""
    from companion.core.choices import children_at

    colours = {
        "leather": ("orange",),
        "lumber": ("brown",),
        "steel": ("grey",),
        "cotton": ("white",),
    }
    draft = children_at(game.choices(table.new()), "draft")
    assert {c.key: c.swatches for c in draft} == colours
    state = table.influence(table.playing(), 0, leather=5, lumber=5, steel=5, cotton=5)
    tree = game.choices(state)
    # one tap for a share, one for the company to build for: "share-<company>", "build-<company>"
    assert {c.key for c in tree} == {f"{s}-{c}" for s in ("share", "build") for c in colours}
    for node in tree:
        assert node.swatches == colours[node.key.split("-", 1)[1]]
