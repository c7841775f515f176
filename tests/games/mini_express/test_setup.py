"""Setup per variant and the starting share draft (PŘÍPRAVA HRY and the variants' setups)."""

from __future__ import annotations

from typing import Any

import pytest

from companion.core import IllegalActionError, PlayerSpec, SnapshotError
from companion.games.mini_express import MiniExpress

COMPANIES = ("leather", "lumber", "steel", "cotton")


def board(state: Any) -> list[tuple[int, int, int, int, int]]:
    return [
        (
            c.shares_on_board,
            c.shares_set_aside,
            c.trains_on_field,
            c.trains_in_supply,
            c.track_length,
        )
        for c in state.companies
    ]


@pytest.mark.parametrize(("players", "set_aside"), [(3, 2), (4, 3), (5, 3)])
def test_standard_setup_puts_6_shares_out_sets_aside_3_or_2_and_4_trains_per_field(
    table: Any, players: int, set_aside: int
) -> None:
    state = table.new(players)
    # 6 shares on the board; 3 set aside (3 players: 2, the third goes back to the box);
    # 1 train on the start city, 4 on the train field, 20 in the supply; track length 0
    assert board(state) == [(6, set_aside, 4, 20, 0)] * 4
    assert all(p.influence == (1, 1, 1, 1) and p.shares == (0, 0, 0, 0) for p in state.players)
    assert state.phase == "draft"
    assert state.automa is None


def test_the_draft_goes_clockwise_then_back_counter_clockwise(
    table: Any, game: MiniExpress
) -> None:
    state = table.new(3, start_player=1)
    order = []
    picks = {1: ["lumber", "steel"], 2: ["leather", "cotton"], 0: ["lumber", "cotton"]}
    while state.phase == "draft":
        who = game.status(state).active_players[0]
        order.append(who)
        state = table.act(state, "draft_share", who, company=picks[who].pop(0))
    assert order == [1, 2, 0, 0, 2, 1]


def test_a_pick_out_of_turn_is_refused(table: Any) -> None:
    state = table.new(3)
    with pytest.raises(IllegalActionError, match="it is Ann's turn"):
        table.act(state, "draft_share", 1, company="lumber")


def test_each_player_starts_with_two_different_companies(table: Any) -> None:
    state = table.new(3)
    for seat, company in ((0, "lumber"), (1, "steel"), (2, "leather")):
        state = table.act(state, "draft_share", seat, company=company)
    with pytest.raises(IllegalActionError, match="two different companies"):
        table.act(state, "draft_share", 2, company="leather")


def test_no_two_players_start_with_the_same_pair(table: Any) -> None:
    state = table.new(4)
    for seat, company in ((0, "lumber"), (1, "steel"), (2, "leather"), (3, "lumber"), (3, "steel")):
        state = table.act(state, "draft_share", seat, company=company)
    state = table.act(state, "draft_share", 2, company="cotton")
    with pytest.raises(
        IllegalActionError, match="Dan already holds Lumber \\(brown\\) \\+ Steel \\(grey\\)"
    ):
        table.act(state, "draft_share", 1, company="lumber")


def test_a_pick_needs_a_set_aside_share_left(table: Any) -> None:
    state = table.new(3)  # 2 set aside per company
    state = table.act(state, "draft_share", 0, company="cotton")
    state = table.act(state, "draft_share", 1, company="cotton")
    with pytest.raises(IllegalActionError, match=r"no Cotton .* share is left among the set-aside"):
        table.act(state, "draft_share", 2, company="cotton")


@pytest.mark.parametrize(("players", "steps"), [(3, 2), (4, 1), (5, 2)])
def test_unclaimed_shares_move_the_track_length_1_step_with_4_players_2_with_3_or_5(
    table: Any, players: int, steps: int
) -> None:
    state = table.playing(players)
    taken = {c: sum(p.shares[i] for p in state.players) for i, c in enumerate(COMPANIES)}
    set_aside = 2 if players == 3 else 3
    for i, c in enumerate(COMPANIES):
        assert state.companies[i].track_length == steps * (set_aside - taken[c])
        assert state.companies[i].shares_set_aside == 0
    # 4 players leave 4 shares unclaimed (1 step each), 3 and 5 players leave 2 (2 steps each)
    assert sum(c.track_length for c in state.companies) == 4


def test_two_players_with_the_automa_give_it_the_unclaimed_shares(table: Any) -> None:
    state = table.new(2, variant="two_player_automa")
    assert [p.name for p in state.players] == ["Ann", "Ben", "automa"]
    assert board(state) == [(6, 2, 4, 20, 0)] * 4
    for seat, company in ((0, "lumber"), (1, "steel"), (1, "leather"), (0, "cotton")):
        state = table.act(state, "draft_share", seat, company=company)
    assert state.phase == "play"
    automa = state.players[2]
    # 8 set aside, 4 taken: the 4 left are the automa's; no track-length marker moves
    assert automa.shares == (1, 1, 1, 1)
    assert automa.influence == (1, 1, 1, 1)
    assert [c.track_length for c in state.companies] == [0, 0, 0, 0]
    assert state.automa is not None
    assert state.automa.company_pointer == 0  # on Lumber
    assert state.automa.city_number is None  # off the map
    assert state.automa.tokens_in_bag == 14


def test_two_experienced_players_draft_double_shared_double_shared(
    table: Any, game: MiniExpress
) -> None:
    state = table.new(2, variant="two_experienced", start_player=1)
    assert board(state) == [(5, 2, 4, 20, 0)] * 4
    # Ben starts: 2 Lumber; then Steel, 1 each; Ann: 2 Cotton; the last (Leather) 1 each
    state = table.act(state, "draft_share", 1, company="lumber")
    state = table.act(state, "draft_share", 1, company="steel")
    with pytest.raises(IllegalActionError, match="already chosen"):
        table.act(state, "draft_share", 0, company="lumber")
    state = table.act(state, "draft_share", 0, company="cotton")
    assert state.phase == "play"
    assert state.players[1].shares == (1, 2, 1, 0)
    assert state.players[0].shares == (1, 0, 1, 2)
    assert all(c.shares_set_aside == 0 and c.track_length == 0 for c in state.companies)
    assert game.status(state).active_players == (1,)


def solo_after_draft(table: Any, level: str) -> Any:
    state = table.new(1, variant=f"solo:{level}")
    state = table.act(state, "draft_share", 0, company="lumber")
    return table.act(state, "draft_share", 0, company="cotton")


def test_solo_setup_and_the_automas_starting_shares(table: Any) -> None:
    state = solo_after_draft(table, "cestujici")
    assert state.phase == "automa_setup"
    assert state.automa.tokens_in_bag == 12  # the 2 refresh tokens are set aside (III.)
    # IV.a: the company pointer moves 1 (Lumber → Steel): the automa takes a Steel share
    state = table.act(state, "automa_setup_draw", 1, token={"city": 4, "company": 1})
    assert state.players[1].shares == (0, 0, 1, 0)
    assert state.automa.city_number is None  # the city pointer does not move in setup
    # IV.b: 3 more: Steel → Leather → Cotton → Lumber (from Cotton straight to Lumber)
    state = table.act(state, "automa_setup_draw", 1, token={"city": 1, "company": 3})
    assert state.players[1].shares == (0, 1, 1, 0)
    assert state.phase == "play"
    # V.: the refresh tokens go into the bag; the 2 drawn tokens stay out
    assert state.automa.refresh_in_bag
    assert state.automa.tokens_in_bag == 10 + 2
    # no track-length marker moves; the set-aside shares nobody took go back to the box
    assert [c.track_length for c in state.companies] == [0, 0, 0, 0]
    assert [c.shares_on_board for c in state.companies] == [5, 5, 5, 5]
    assert all(c.shares_set_aside == 0 for c in state.companies)


def test_sotous_gives_the_automa_two_shares_per_draw(table: Any) -> None:
    state = solo_after_draft(table, "sotous")
    state = table.act(state, "automa_setup_draw", 1, token={"city": 1, "company": 2})  # Leather
    assert state.players[1].shares == (2, 0, 0, 0)


def test_ajznbonak_starts_the_automa_at_influence_2_and_the_player_at_0(table: Any) -> None:
    state = table.new(1, variant="solo:ajznbonak")
    assert state.players[0].influence == (0, 0, 0, 0)
    assert state.players[1].influence == (2, 2, 2, 2)


def test_in_solo_the_player_drafts_two_different_shares(table: Any) -> None:
    state = table.new(1, variant="solo:turista")
    state = table.act(state, "draft_share", 0, company="steel")
    with pytest.raises(IllegalActionError, match="two different companies"):
        table.act(state, "draft_share", 0, company="steel")


@pytest.mark.parametrize(
    ("players", "options", "message"),
    [
        (2, {}, "say which variant"),
        (1, {"variant": "standard"}, "1 player for this variant, which takes 3–5"),
        (2, {"variant": "solo:turista"}, "which takes 1–1"),
        (3, {"variant": "solo:hard"}, "unknown solo level"),
        (3, {"map": "asia"}, "options.map"),
        (
            3,
            {"map": "europe", "golden_spike": True},
            "Golden Spike variant is played on the USA map",
        ),
        (3, {"harbours": True}, "Harbours variant is played on the Europe map"),
        (3, {"share_values": {"9": {"1st": 7}}}, "rulebook's scoring example shows 8"),
        (3, {"share_values": {"9": {"best": 7}}}, "share_values.9.best: unknown field"),
        (2, {"variant": "two_player_automa", "start_player": 1}, "list the start player first"),
        (3, {"start_player": 3}, "options.start_player"),
        (3, {"speed": 2}, "options.speed: unknown field"),
    ],
)
def test_bad_setups_are_refused_with_the_reason(
    game: MiniExpress, players: int, options: dict[str, Any], message: str
) -> None:
    with pytest.raises((IllegalActionError, SnapshotError), match=message):
        game.setup([PlayerSpec(n) for n in ("Ann", "Ben", "Cat")[:players]], options)


def test_nobody_but_the_automa_is_called_automa(game: MiniExpress) -> None:
    with pytest.raises(IllegalActionError, match="a player is called “automa”"):
        game.setup([PlayerSpec("automa"), PlayerSpec("Ben"), PlayerSpec("Cat")], {})


def test_the_owners_board_table_is_merged_with_the_rulebooks_cells(table: Any) -> None:
    state = table.new(3, share_values={"9": {"1st": 8, "2nd": 6}, "0": {"other": 0}})
    cells = state.share_values.cells()
    assert cells[(9, "2nd")] == 6 and cells[(0, "other")] == 0
    assert cells[(12, "other")] == 4  # from the rulebook's example


def test_a_table_snapshot_with_more_shares_than_the_variant_has_is_refused() -> None:
    """PŘÍPRAVA HRY 2.–3.: with 3 players each company has 8 shares in the game (6 on the board,
    2 set aside; the ninth goes back to the box): a snapshot showing 9 is refused, named."""
    game = MiniExpress()
    state = game.setup([PlayerSpec("Ann"), PlayerSpec("Ben"), PlayerSpec("Cat")], {})
    data = game.to_json(state)
    assert game.from_json(data) == state
    data["companies"]["steel"]["shares_set_aside"] = 3  # type: ignore[index]
    with pytest.raises(
        SnapshotError, match=r"companies: 9 steel shares held by the players and on"
    ):
        game.from_json(data)
