"""The ``share_values`` action: the table enters board-table cells it reads off the board, in
any phase, also after the game end (ZÁVĚREČNÉ BODOVÁNÍ needs them for the final scoring).

The board figures below are FICTIONAL (the printed table is not public) except the rulebook's
four cells (12/other 4, 5/other 2, 7/2nd 5, 9/1st 8)."""

from __future__ import annotations

from typing import Any

import pytest

from companion.core import IllegalActionError
from companion.core.i18n import translations
from companion.core.messages import render_text

# every cell the end below needs, except 12/1st (Ben's Lumber), which the table enters later
KNOWN_AT_START = {
    "12": {"2nd": 5},
    "5": {"1st": 4, "2nd": 3},
    "7": {"1st": 9},
    "9": {"2nd": 6},
}


def game_over_with_a_missing_cell(table: Any, game: Any) -> Any:
    """Three players at the end of a standard game. Track lengths are the rulebook example's
    (Lumber 12, Steel 5, Leather 7, Cotton 9); Ann holds Daniel's shares and influence."""
    state = table.playing(3, share_values=KNOWN_AT_START)
    for name, length in (("lumber", 12), ("steel", 5), ("leather", 7), ("cotton", 9)):
        state = table.company(state, name, track_length=length)
    state = table.shares(state, 0, lumber=0, steel=1, leather=1, cotton=2)
    state = table.influence(state, 0, lumber=2, steel=3, leather=5, cotton=7)
    state = table.shares(state, 1, lumber=2, steel=0, leather=1, cotton=1)
    state = table.influence(state, 1, lumber=6, steel=1, leather=6, cotton=3)
    state = table.shares(state, 2, lumber=1, steel=2, leather=0, cotton=0)
    state = table.influence(state, 2, lumber=4, steel=5, leather=2, cotton=2)
    # KONEC HRY: Ann and Ben take the last Lumber and Steel shares (free: empty train fields),
    # Cat, right of the start player, plays the last turn
    for name in ("lumber", "steel"):
        state = table.company(state, name, shares_on_board=1, trains_on_field=0)
    state = table.act(state, "take_share", 0, company="lumber")
    state = table.act(state, "take_share", 1, company="steel")
    state = table.act(state, "build", 2, company="cotton", trains=1, landscape=0)
    assert game.is_over(state)
    return state


def totals(sheet: Any) -> dict[str, int]:
    return {p.name: p.total for p in sheet.players}


def test_after_the_game_end_the_table_fills_the_cell_the_scoring_names(
    table: Any, game: Any
) -> None:
    state = game_over_with_a_missing_cell(table, game)
    sheet = game.score(state)
    # the scoring names the cell instead of guessing, and leaves the winners open
    assert sheet.winners == ()
    assert [render_text(n) for n in sheet.notes] == [
        "share values missing from the board table: track length 12, 1st place"
    ]
    ben_lumber = sheet.players[1].lines[1]
    assert ben_lumber.category == "lumber" and ben_lumber.points == 0
    assert "not yet read off the board" in render_text(ben_lumber.note)
    assert game.needed_share_values(state) == ((12, "1st"),)
    assert render_text(game.status(state).waiting_for) == (
        "track length 12, 1st place from the board table, for the final scoring"
    )

    # the owner reads 7 off the board (FICTIONAL) and enters it
    filled = table.act(state, "share_values", None, cells={"12": {"1st": 7}})
    sheet = game.score(filled)
    # Ann: 1×4 + 1×3 + 1×5 + 2×8 = 28; Ben: 2×7 + 1×2 + 1×9 + 1×6 = 31; Cat: 1×5 + 2×4 = 13
    assert totals(sheet) == {"Ann": 28, "Ben": 31, "Cat": 13}
    assert sheet.winners == ("Ben",)
    assert sheet.notes == ()
    assert (
        render_text(game.status(filled).waiting_for) == ""
        and game.needed_share_values(filled) == ()
    )
    # only the board table changed: the game is still over, nobody's turn moved
    assert filled.phase == "over" and filled.turns_taken == state.turns_taken
    assert filled.players == state.players and filled.companies == state.companies


def test_the_value_read_off_the_board_decides_the_winner(table: Any, game: Any) -> None:
    state = game_over_with_a_missing_cell(table, game)
    lower = table.act(state, "share_values", None, cells={"12": {"1st": 6}})
    # Ben 2×6 + 2 + 9 + 6 = 29 beats Ann's 28 …
    assert game.score(lower).winners == ("Ben",)
    lowest = table.act(state, "share_values", None, cells={"12": {"1st": 5}})
    # … 27 does not
    assert totals(game.score(lowest))["Ben"] == 27
    assert game.score(lowest).winners == ("Ann",)


def test_cells_may_be_entered_during_the_draft_and_play_without_taking_a_turn(
    table: Any, game: Any
) -> None:
    state = table.new(3)
    assert state.phase == "draft"
    state = table.act(state, "share_values", None, cells={"3": {"1st": 6, "other": 1}})
    assert state.share_values.value(3, "1st") == 6 and state.share_values.value(3, "other") == 1
    assert game.status(state).active_players == (0,)  # still Ann to pick
    state = table.playing(3)
    before = game.status(state)
    after = table.act(state, "share_values", None, cells={"0": {"2nd": 1}, "12": {"other": 4}})
    assert after.share_values.value(0, "2nd") == 1
    assert game.status(after) == before and after.turns_taken == state.turns_taken


@pytest.mark.parametrize(
    ("player", "args", "message"),
    [
        (
            0,
            {"cells": {"3": {"1st": 6}}},
            "the board table is entered by the table, not by a player",
        ),
        (None, {"cells": {}}, r"args.cells: no cell given"),
        (None, {"cell": {"3": {"1st": 6}}}, r"args.cell: unknown field"),
        (None, {}, r"args.cells: missing"),
        (None, {"cells": {"16": {"1st": 6}}}, r"args.cells.16: a track length 0–15"),
        (None, {"cells": {"3": {"3rd": 6}}}, r"args.cells.3.3rd: unknown field: the columns"),
        (None, {"cells": {"3": {"1st": 100}}}, r"args.cells.3.1st: 100 is above the maximum 99"),
        (None, {"cells": {"3": {"1st": -1}}}, r"args.cells.3.1st: -1 is below the minimum 0"),
        (None, {"cells": {"3": {"1st": "6"}}}, r"args.cells.3.1st: expected a whole number"),
        (None, {"cells": {"3": {"1st": True}}}, r"args.cells.3.1st: expected a whole number"),
        (
            None,
            {"cells": {"3": {"1st": 6}, "12": {"other": 5}}},
            r"track length 12, 3rd place or lower = 5, but the rulebook's scoring example shows "
            r"4 — rule: cells printed in the rulebook cannot be changed — rulebook: "
            r"Final scoring: the scoring example",
        ),
        (
            None,
            {"cells": {"0": {"2nd": 2}}},
            r"track length 0, 2nd place is already 1, not 2 — rule: the board table is filled once",
        ),
        (None, {"cells": {"0": {"2nd": 1}}}, r"every cell given is already known"),
        (None, {"cells": {"9": {"1st": 8}}}, r"every cell given is already known"),
    ],
)
def test_bad_cells_are_refused_naming_the_field_and_the_rule(
    table: Any, player: int | None, args: dict[str, Any], message: str
) -> None:
    state = table.act(table.playing(3), "share_values", None, cells={"0": {"2nd": 1}})
    with pytest.raises(IllegalActionError, match=message) as refused:
        table.act(state, "share_values", player, **args)
    assert "ZÁVĚREČNÉ BODOVÁNÍ" in refused.value.render(translations("cs"))  # the Czech rulebook
    # nothing was partly filled: the valid 3/1st of a refused action stays unknown
    assert state.share_values.value(3, "1st") is None


def test_other_actions_stay_refused_after_the_game_end(table: Any, game: Any) -> None:
    state = game_over_with_a_missing_cell(table, game)
    state = table.act(state, "share_values", None, cells={"12": {"1st": 7}})
    with pytest.raises(IllegalActionError, match="the game is over"):
        table.act(state, "take_share", 0, company="cotton")
