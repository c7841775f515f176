"""The game end per variant (KONEC HRY; Konec hry pro 2 zkušené hráče; Konec sólové hry)."""

from __future__ import annotations

from typing import Any

import pytest

from companion.core import IllegalActionError
from companion.core.messages import render_text


def cheap_share(table: Any, state: Any, player: int, company: str) -> Any:
    """Take a share of ``company`` with an empty train field (free)."""
    state = table.company(state, company, trains_on_field=0)
    return table.act(state, "take_share", player, company=company)


def one_share_left(table: Any, state: Any, *companies: str) -> Any:
    for name in companies:
        state = table.company(state, name, shares_on_board=1)
    return state


def test_two_exhausted_companies_trigger_the_end_and_the_round_is_finished(
    table: Any, game: Any
) -> None:
    state = one_share_left(table, table.playing(4), "lumber", "steel")
    state = cheap_share(table, state, 0, "lumber")  # Ann: one exhausted
    assert state.end_triggered_at is None
    state = cheap_share(table, state, 1, "steel")  # Ben: two exhausted → the end is triggered
    assert state.end_triggered_at == 1 and not game.is_over(state)
    assert "finishing the round" in render_text(game.status(state).waiting_for)
    state = table.act(state, "build", 2, company="cotton", trains=1, landscape=0)
    assert not game.is_over(state)
    # Dan sits right of the start player: his turn is the last
    state = table.act(state, "build", 3, company="cotton", trains=1, landscape=0)
    assert game.is_over(state)
    # the final scoring names the board-table cells it still needs instead of guessing
    sheet = game.score(state)
    assert sheet.winners == ()
    assert any(
        "share values missing from the board table: track length" in render_text(n)
        for n in sheet.notes
    )
    with pytest.raises(IllegalActionError, match="the game is over"):
        table.act(state, "build", 0, company="cotton", trains=1, landscape=0)


def test_the_player_right_of_the_start_player_ends_the_game_at_once(table: Any, game: Any) -> None:
    state = one_share_left(table, table.playing(3, start_player=1), "lumber", "steel")
    state = cheap_share(table, state, 1, "lumber")
    state = table.act(state, "build", 2, company="cotton", trains=1, landscape=0)
    state = cheap_share(table, state, 0, "steel")  # Ann is right of Ben, the start player
    assert game.is_over(state)


def test_exhaustion_by_an_empty_supply_counts_too(table: Any, game: Any) -> None:
    state = table.playing(4)
    state = one_share_left(table, state, "lumber")
    state = table.company(state, "steel", trains_in_supply=1, trains_on_field=2)
    state = cheap_share(table, state, 0, "lumber")
    # Ben's build compensates Steel with the supply's last train: Steel is exhausted
    state = table.act(
        state, "build", 1, company="cotton", trains=2, landscape=1, compensated={"steel": 1}
    )
    assert state.company("steel").exhausted and state.company("steel").shares_on_board == 0
    assert state.end_triggered_at == 1


def experienced(table: Any) -> Any:
    state = table.new(2, variant="two_experienced")
    for seat, company in ((0, "lumber"), (0, "steel"), (1, "leather")):
        state = table.act(state, "draft_share", seat, company=company)
    return state


def test_two_experienced_one_action_first_then_two_for_two_companies(table: Any, game: Any) -> None:
    state = experienced(table)
    state = table.act(state, "build", 0, company="steel", trains=1, landscape=0)
    assert game.status(state).active_players == (1,)
    state = table.act(state, "build", 1, company="steel", trains=1, landscape=0)
    with pytest.raises(IllegalActionError, match="two different companies"):
        table.act(state, "build", 1, company="steel", trains=1, landscape=0)
    state = table.act(state, "build", 1, company="lumber", trains=1, landscape=0)
    assert game.status(state).active_players == (0,)
    assert "action 1 of 2" in render_text(game.status(state).waiting_for)


def test_two_experienced_the_game_ends_at_once_when_one_company_is_exhausted(
    table: Any, game: Any
) -> None:
    state = one_share_left(table, experienced(table), "cotton")
    state = table.company(state, "cotton", trains_on_field=0)
    state = table.act(state, "build", 0, company="steel", trains=1, landscape=0)
    state = table.act(state, "take_share", 1, company="cotton")  # first action of the turn
    assert game.is_over(state)


def test_two_experienced_nobody_ends_the_game_with_the_second_action(table: Any) -> None:
    state = one_share_left(table, experienced(table), "cotton")
    state = table.company(state, "cotton", trains_on_field=0)
    state = table.act(state, "build", 0, company="steel", trains=1, landscape=0)
    state = table.act(state, "build", 1, company="steel", trains=1, landscape=0)
    with pytest.raises(IllegalActionError, match="nobody may end the game with the second action"):
        table.act(state, "take_share", 1, company="cotton")


def solo(table: Any, level: str = "cestujici") -> Any:
    state = table.new(1, variant=f"solo:{level}")
    state = table.act(state, "draft_share", 0, company="lumber")
    state = table.act(state, "draft_share", 0, company="cotton")
    state = table.act(state, "automa_setup_draw", 1, token={"city": 1, "company": 1})  # Steel
    return table.act(state, "automa_setup_draw", 1, token={"city": 1, "company": 1})  # Leather


def test_solo_when_the_player_triggers_the_end_the_automa_has_one_more_turn(
    table: Any, game: Any
) -> None:
    state = one_share_left(table, solo(table), "lumber", "steel")
    state = table.company(state, "steel", exhausted=True, shares_on_board=0)
    state = cheap_share(table, state, 0, "lumber")
    assert not game.is_over(state)
    # the automa: Leather + 1 = Cotton, 4 trains: it builds
    state = table.act(
        state,
        "automa_turn",
        1,
        draws=[{"city": 1, "company": 1}],
        build={"trains": 1, "landscape": 0},
    )
    assert game.is_over(state)


def test_solo_when_the_automa_triggers_the_end_the_game_ends_at_once(table: Any, game: Any) -> None:
    state = one_share_left(table, solo(table), "lumber", "cotton")
    state = table.company(state, "lumber", exhausted=True, shares_on_board=0)
    state = table.act(state, "build", 0, company="steel", trains=1, landscape=0)
    state = table.company(state, "cotton", trains_on_field=2)
    state = table.act(state, "automa_turn", 1, draws=[{"city": 1, "company": 1}])  # Cotton share
    assert state.company("cotton").exhausted
    assert game.is_over(state)


def test_turista_the_game_ends_when_the_city_pointer_reaches_city_32(table: Any, game: Any) -> None:
    """Nastavení obtížnosti: "Hra končí okamžitě, jakmile ukazatel cílového města Mašinfíry
    dorazí do města s číslem 32" — at once: the automa takes no action that turn (no build, no
    share), and a build reported with it is refused, the table unchanged."""
    state = solo(table, "turista")
    state = table.act(state, "build", 0, company="steel", trains=1, landscape=0)
    with pytest.raises(
        IllegalActionError, match="the game ends at once and the Mašinfíra takes no"
    ):
        table.act(
            state,
            "automa_turn",
            1,
            draws=[{"city": 3, "company": 1}],
            city_number=32,
            build={"trains": 1, "landscape": 0},
        )
    before = state
    state = table.act(state, "automa_turn", 1, draws=[{"city": 3, "company": 1}], city_number=32)
    assert game.is_over(state)
    assert "city 32" in state.ended_reason
    assert state.companies == before.companies  # no train placed, no share taken
    assert state.players[1].shares == before.players[1].shares


def test_cestujici_does_not_end_at_city_32(table: Any, game: Any) -> None:
    state = solo(table, "cestujici")
    state = table.act(state, "build", 0, company="steel", trains=1, landscape=0)
    state = table.act(
        state,
        "automa_turn",
        1,
        draws=[{"city": 3, "company": 1}],
        city_number=32,
        build={"trains": 1, "landscape": 0},
    )
    assert not game.is_over(state)
