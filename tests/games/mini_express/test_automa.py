"""The automa (Tah Mašinfíry v sólové hře; HRA PRO 2 HRÁČE s Mašinfírou)."""

from __future__ import annotations

from typing import Any

import pytest

from companion.core import IllegalActionError
from companion.core.messages import render_text

LEATHER, LUMBER, STEEL, COTTON = range(4)


def solo(table: Any, level: str = "cestujici") -> Any:
    """Solo after setup: the automa's pointer went Lumber → Steel → Lumber (1 + 3)."""
    state = table.new(1, variant=f"solo:{level}")
    state = table.act(state, "draft_share", 0, company="steel")
    state = table.act(state, "draft_share", 0, company="cotton")
    state = table.act(state, "automa_setup_draw", 1, token={"city": 2, "company": 1})
    state = table.act(state, "automa_setup_draw", 1, token={"city": 2, "company": 3})
    assert state.automa.company_pointer == 0  # Lumber
    # Ann builds, so that it is the automa's turn
    return table.act(state, "build", 0, company="steel", trains=1, landscape=0)


def test_the_rulebooks_share_example_lumber_plus_2_is_leather_with_one_train(table: Any) -> None:
    # Příklad Mašinfírovy akce Pořízení akcie: the pointer moves 2, Lumber → Leather; one
    # Leather train on its field: the automa takes a Leather share free and adds 3 trains
    state = table.company(solo(table), "leather", trains_on_field=1)
    after = table.act(state, "automa_turn", 1, draws=[{"city": 2, "company": 2}])
    automa = after.players[1]
    assert automa.shares[LEATHER] == state.players[1].shares[LEATHER] + 1
    assert automa.influence == state.players[1].influence  # free: no influence paid
    assert after.company("leather").trains_on_field == 4
    assert after.company("leather").shares_on_board == 4
    assert after.automa.company_pointer == 2  # Leather in Lumber, Steel, Leather, Cotton


def test_the_rulebooks_build_example_cotton_to_venice(table: Any) -> None:
    # Příklad Mašinfírovy akce Stavba trati: Leather + 1 = Cotton with 3 trains: it builds,
    # 3 trains to Venice (2 landscape): Cotton's track +2; Venice's token shows Steel and Cotton:
    # the automa +1 in each; Steel, already in Venice, gets 1 train; Venice is now full
    state = table.company(solo(table), "steel", trains_on_field=1)
    # first bring the pointer to Leather: Lumber + 2, Leather builds 1 train; then Ann plays
    state = table.act(
        state,
        "automa_turn",
        1,
        draws=[{"city": 1, "company": 2}],
        build={"trains": 1, "landscape": 0},
    )
    state = table.act(state, "build", 0, company="lumber", trains=1, landscape=0)
    assert state.automa.company_pointer == 2
    state = table.company(state, "cotton", trains_on_field=3)
    after = table.act(
        state,
        "automa_turn",
        1,
        draws=[{"city": 2, "company": 1}],
        build={
            "trains": 3,
            "landscape": 2,
            "compensated": {"steel": 1},
            "demand": ["steel", "cotton"],
            "city_full": True,
        },
    )
    assert after.company("cotton").track_length == state.company("cotton").track_length + 2
    assert after.players[1].influence[STEEL] == state.players[1].influence[STEEL] + 1
    assert after.players[1].influence[COTTON] == state.players[1].influence[COTTON] + 1
    assert after.company("steel").trains_on_field == state.company("steel").trains_on_field + 1
    assert after.demand_tokens_removed == state.demand_tokens_removed + 1


def test_the_company_pointer_goes_from_cotton_straight_to_lumber(table: Any) -> None:
    state = table.company(solo(table), "lumber", trains_on_field=0)
    after = table.act(state, "automa_turn", 1, draws=[{"city": 1, "company": 4}])  # a full round
    assert after.automa.company_pointer == 0
    assert after.players[1].shares[LUMBER] == state.players[1].shares[LUMBER] + 1


def test_a_build_needs_the_tables_report_and_guidance_says_how_to_place_it(
    table: Any, game: Any
) -> None:
    state = solo(table)  # Steel has 3 on its field after Ann's build; Leather 4
    with pytest.raises(IllegalActionError, match="report the build") as info:
        table.act(state, "automa_turn", 1, draws=[{"city": 1, "company": 2}])
    assert "clockwise rule" in str(info.value)
    assert "nearest the city pointer" in render_text(game.status(state).waiting_for)


def test_a_share_type_company_is_not_built(table: Any) -> None:
    state = table.company(solo(table), "leather", trains_on_field=2)
    with pytest.raises(IllegalActionError, match="takes a Leather \\(orange\\) share"):
        table.act(
            state,
            "automa_turn",
            1,
            draws=[{"city": 1, "company": 2}],
            build={"trains": 1, "landscape": 0},
        )


def test_no_share_left_means_a_new_token_for_the_company_pointer_only(table: Any) -> None:
    state = table.company(
        solo(table), "leather", trains_on_field=0, shares_on_board=0, exhausted=True
    )
    with pytest.raises(IllegalActionError, match="none is left: draw another token"):
        table.act(state, "automa_turn", 1, draws=[{"city": 1, "company": 2}])
    state = table.company(state, "cotton", trains_on_field=1)
    after = table.act(
        state, "automa_turn", 1, draws=[{"city": 1, "company": 2}, {"city": 5, "company": 1}]
    )
    # Leather had no share: the second token moves the pointer on to Cotton: a Cotton share
    assert after.players[1].shares[COTTON] == state.players[1].shares[COTTON] + 1
    assert len(after.automa.drawn) == len(state.automa.drawn) + 2


def test_a_build_type_company_followed_by_a_draw_had_no_legal_build(table: Any) -> None:
    state = table.company(solo(table), "cotton", trains_on_field=0)
    after = table.act(
        state, "automa_turn", 1, draws=[{"city": 1, "company": 2}, {"city": 1, "company": 1}]
    )
    # Leather (4 trains) could not build: the next token gave Cotton (0 trains): a share
    assert after.company("leather").trains_on_field == 4
    assert after.players[1].shares[COTTON] == state.players[1].shares[COTTON] + 1


def test_nothing_is_drawn_after_the_automa_has_acted(table: Any) -> None:
    state = table.company(solo(table), "leather", trains_on_field=0)
    with pytest.raises(IllegalActionError, match="already acted"):
        table.act(
            state, "automa_turn", 1, draws=[{"city": 1, "company": 2}, {"city": 1, "company": 1}]
        )


def test_a_refresh_token_returns_every_drawn_token_to_the_bag(table: Any) -> None:
    state = table.company(solo(table), "leather", trains_on_field=0)
    assert len(state.automa.drawn) == 2  # the two setup tokens stay out
    after = table.act(state, "automa_turn", 1, draws=["refresh", {"city": 1, "company": 2}])
    assert len(after.automa.drawn) == 1
    assert after.automa.tokens_in_bag == 11 + 2
    with pytest.raises(IllegalActionError, match="draw another"):
        table.act(state, "automa_turn", 1, draws=["refresh"])


def test_with_all_12_numbered_tokens_out_only_a_refresh_token_can_come(table: Any) -> None:
    from dataclasses import replace

    from companion.games.mini_express.state import Token

    state = solo(table)
    state = replace(state, automa=replace(state.automa, drawn=(Token(1, 1),) * 12))
    with pytest.raises(IllegalActionError, match="can only be a refresh token"):
        table.act(state, "automa_turn", 1, draws=[{"city": 1, "company": 2}])


def test_the_automa_gains_in_all_four_companies_for_a_wild_symbol(table: Any) -> None:
    state = solo(table)
    after = table.act(
        state,
        "automa_turn",
        1,
        draws=[{"city": 1, "company": 2}],
        build={"trains": 1, "landscape": 0, "demand": ["steel", "wild"]},
    )
    assert after.players[1].influence == tuple(v + 1 for v in state.players[1].influence)


def test_turista_tops_the_field_up_to_3_instead_of_adding_3(table: Any) -> None:
    state = table.company(solo(table, "turista"), "leather", trains_on_field=1)
    after = table.act(state, "automa_turn", 1, draws=[{"city": 1, "company": 2}], city_number=3)
    assert after.company("leather").trains_on_field == 3


def test_turista_no_compensation_for_a_company_with_two_trains_on_its_field(table: Any) -> None:
    state = solo(table, "turista")
    state = table.company(state, "steel", trains_on_field=2)
    state = table.company(state, "cotton", trains_on_field=1)
    after = table.act(
        state,
        "automa_turn",
        1,
        draws=[{"city": 1, "company": 2}],
        city_number=3,
        build={"trains": 3, "landscape": 2, "compensated": {"steel": 1, "cotton": 1}},
    )
    assert after.company("steel").trains_on_field == 2
    assert after.company("cotton").trains_on_field == 2
    # the player's own builds still compensate as usual
    after = table.act(
        after, "build", 0, company="leather", trains=1, landscape=0, compensated={"steel": 1}
    )
    assert after.company("steel").trains_on_field == 3


@pytest.mark.parametrize(("level", "gain"), [("sotous", 0), ("pruvodci", 1), ("ajznbonak", 1)])
def test_from_pruvodci_up_a_share_also_gives_the_automa_one_influence(
    table: Any, level: str, gain: int
) -> None:
    state = table.company(solo(table, level), "leather", trains_on_field=0)
    after = table.act(state, "automa_turn", 1, draws=[{"city": 1, "company": 2}], city_number=2)
    assert after.players[1].influence[LEATHER] == state.players[1].influence[LEATHER] + gain


def test_the_city_pointer_only_moves_on(table: Any) -> None:
    state = table.company(solo(table), "leather", trains_on_field=0)
    state = table.act(state, "automa_turn", 1, draws=[{"city": 4, "company": 2}], city_number=6)
    state = table.act(state, "build", 0, company="lumber", trains=1, landscape=0)
    state = table.company(state, "cotton", trains_on_field=0)
    with pytest.raises(IllegalActionError, match="cannot go back to 5"):
        table.act(state, "automa_turn", 1, draws=[{"city": 1, "company": 1}], city_number=5)


def test_players_and_the_automa_keep_to_their_own_actions(table: Any) -> None:
    state = solo(table)
    with pytest.raises(IllegalActionError, match="expected: the Mašinfíra's turn"):
        table.act(state, "take_share", 1, company="leather")
    state = table.company(state, "leather", trains_on_field=0)
    after = table.act(state, "automa_turn", 1, draws=[{"city": 1, "company": 2}])
    with pytest.raises(IllegalActionError, match="expected: taking a share, building track"):
        table.act(after, "automa_turn", 0, draws=[{"city": 1, "company": 2}])


def test_two_players_with_the_automa_take_turns_ann_ben_automa(table: Any, game: Any) -> None:
    state = table.new(2, variant="two_player_automa")
    for seat, company in ((0, "lumber"), (1, "steel"), (1, "leather"), (0, "cotton")):
        state = table.act(state, "draft_share", seat, company=company)
    order = []
    for _ in range(3):
        who = game.status(state).active_players[0]
        order.append(who)
        if who == 2:
            state = table.act(
                state,
                "automa_turn",
                2,
                draws=[{"city": 1, "company": 1}],
                build={"trains": 1, "landscape": 0},
            )
        else:
            state = table.act(state, "build", who, company="cotton", trains=1, landscape=0)
    assert order == [0, 1, 2]
    assert state.automa.company_pointer == 1  # Steel


def spike_joined_by_the_automa(table: Any, candidates: list[str], **extra: Any) -> Any:
    from dataclasses import replace

    state = table.new(1, variant="solo:cestujici", golden_spike=True)
    state = table.act(state, "draft_share", 0, company="steel")
    state = table.act(state, "draft_share", 0, company="cotton")
    state = table.act(state, "automa_setup_draw", 1, token={"city": 2, "company": 1})  # Steel
    state = table.act(state, "automa_setup_draw", 1, token={"city": 2, "company": 3})  # Lumber
    state = table.act(state, "build", 0, company="steel", trains=1, landscape=0)
    state = replace(state, golden_spike_state="east", golden_spike_east="lumber")
    build = {"trains": 1, "landscape": 0, "golden_spike": "joined", "west_candidates": candidates}
    # Lumber + 2 = Leather (4 trains): the automa builds and joins the two coasts
    return table.act(
        state, "automa_turn", 1, draws=[{"city": 1, "company": 2}], build=build | extra
    )


@pytest.mark.parametrize(
    ("candidates", "west"),
    [
        (["leather", "steel"], "steel"),  # the automa holds a Steel share, no Leather
        (["cotton", "leather"], "leather"),  # tied at 0: Ann holds Cotton, not Leather
        (["lumber", "cotton", "leather"], "leather"),  # the eastern branch is never a candidate
    ],
)
def test_the_automa_picks_the_western_branch_by_rule(
    table: Any, candidates: list[str], west: str
) -> None:
    after = spike_joined_by_the_automa(table, candidates)
    assert after.golden_spike_west == west
    assert after.golden_spike_state == "done"


def test_the_automas_western_branch_is_checked_when_named(table: Any) -> None:
    with pytest.raises(IllegalActionError, match="the Mašinfíra takes Steel"):
        spike_joined_by_the_automa(table, ["leather", "steel"], west_company="leather")
    with pytest.raises(IllegalActionError, match="list the companies at the joining space"):
        spike_joined_by_the_automa(table, [])
