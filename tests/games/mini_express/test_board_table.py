"""The board's share-value table: pre-filled from the rulebook, filled once, exported."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.core import IllegalActionError, SnapshotError
from companion.games.mini_express import ShareValueTable


def test_only_the_rulebooks_four_cells_are_known_at_first() -> None:
    table = ShareValueTable.from_rulebook()
    assert table.cells() == {(12, "other"): 4, (5, "other"): 2, (7, "2nd"): 5, (9, "1st"): 8}
    assert len(table.missing()) == 16 * 3 - 4
    assert not table.is_complete
    assert table.to_json() == {
        "5": {"other": 2},
        "7": {"2nd": 5},
        "9": {"1st": 8},
        "12": {"other": 4},
    }


def test_the_guided_form_has_16_rows_and_marks_the_rulebooks_cells() -> None:
    rows = ShareValueTable.from_rulebook().form_rows()
    assert [r["track_length"] for r in rows] == list(range(16))
    assert rows[9] == {
        "track_length": 9,
        "1st": 8,
        "2nd": None,
        "other": None,
        "from_rulebook": ["1st"],
    }
    assert rows[0]["from_rulebook"] == []


def test_filling_the_table_once_makes_it_complete() -> None:
    table = ShareValueTable.from_rulebook()
    # FICTIONAL figures: the owner would type what their board prints
    entered = {(n, r): n for n in range(16) for r in ("1st", "2nd", "other")}
    entered.update({(12, "other"): 4, (5, "other"): 2, (7, "2nd"): 5, (9, "1st"): 8})
    full = table.fill(entered)
    assert full.is_complete and full.missing() == ()
    assert table.missing()  # the old table is unchanged (immutable)


def test_a_cell_already_known_is_not_silently_overwritten() -> None:
    table = ShareValueTable.from_rulebook().fill({(3, "2nd"): 2})
    assert table.fill({(3, "2nd"): 2}).value(3, "2nd") == 2  # the same value again is fine
    with pytest.raises(IllegalActionError, match=r"track length 3, 2nd place is already 2, not 3"):
        table.fill({(3, "2nd"): 3})
    assert table.corrected((3, "2nd"), 3).value(3, "2nd") == 3
    assert table.corrected((3, "2nd"), None).value(3, "2nd") is None


def test_the_rulebooks_cells_cannot_be_changed() -> None:
    table = ShareValueTable.from_rulebook()
    with pytest.raises(IllegalActionError, match="scoring example shows 4"):
        ShareValueTable.empty().fill({(12, "other"): 5})
    with pytest.raises(IllegalActionError, match="cannot be changed"):
        table.corrected((12, "other"), 5)


@pytest.mark.parametrize(
    ("cell", "value"), [((16, "1st"), 1), ((3, "3rd"), 1), ((3, "1st"), -1), ((3, "1st"), 100)]
)
def test_impossible_cells_and_values_are_refused(cell: tuple[int, str], value: int) -> None:
    with pytest.raises(IllegalActionError):
        ShareValueTable.empty().fill({cell: value})


def test_parsing_names_the_field() -> None:
    with pytest.raises(SnapshotError, match=r"share_values.x: a track length 0–15"):
        ShareValueTable.from_json({"x": {"1st": 1}})
    with pytest.raises(SnapshotError, match=r"share_values.4.2nd: -1 is below the minimum 0"):
        ShareValueTable.from_json({"4": {"2nd": -1}})


@given(
    st.dictionaries(
        st.tuples(st.integers(0, 15), st.sampled_from(["1st", "2nd", "other"])),
        st.integers(0, 99),
        max_size=48,
    )
)
def test_export_and_import_give_the_same_table(cells: dict[tuple[int, str], int]) -> None:
    table = ShareValueTable.empty().fill(cells, check_rulebook=False)
    again = ShareValueTable.from_json(json.loads(json.dumps(table.to_json())))
    assert again == table
    assert set(again.missing()).isdisjoint(cells)
