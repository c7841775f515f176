"""The share-value table printed on the track-length board (16 track lengths × 1st/2nd/Other).

The table is not public, so Trackside never guesses a cell: it starts with the cells the
rulebook's scoring example shows (:data:`KNOWN_SHARE_VALUES`), the owner fills the rest once from
their board (a guided form: :meth:`ShareValueTable.form_rows`, :meth:`ShareValueTable.fill`),
and the table is stored and exported as JSON (the same notation as the snapshot's
``share_values``). Scoring asks for the cells it needs and names the missing ones.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from companion.core.errors import IllegalActionError
from companion.core.jsonvalue import JsonObject
from companion.core.messages import msg
from companion.core.snapshot import Field
from companion.games.mini_express.data import (
    KNOWN_SHARE_VALUES,
    RANKS,
    SHARE_VALUE_MAX,
    TRACK_LENGTHS,
)
from companion.games.mini_express.names import FINAL_SCORING, SCORING_EXAMPLE, cell_words

Cell = tuple[int, str]
"""(track length 0–15, rank ``1st`` / ``2nd`` / ``other``)."""

Row = tuple[int | None, int | None, int | None]


_PRINTED = msg("cells printed in the rulebook cannot be changed")


def cell_path(cell: Cell, prefix: str = "share_values") -> str:
    """The cell's name in the notation, e.g. ``share_values.7.2nd``."""
    return f"{prefix}.{cell[0]}.{cell[1]}"


def _check_cell(cell: Cell) -> None:
    length, rank = cell
    if length not in TRACK_LENGTHS or rank not in RANKS:
        raise IllegalActionError(
            msg("no such cell: track lengths are 0–15, ranks 1st, 2nd, other"),
            rule=msg("the share-value table has 16 rows × 1st/2nd/Other"),
            section=FINAL_SCORING,
        )


@dataclass(frozen=True, slots=True)
class ShareValueTable:
    """Points per share by (track length, influence rank); ``None`` is a cell not known yet."""

    rows: tuple[Row, ...]

    def __post_init__(self) -> None:
        if len(self.rows) != len(TRACK_LENGTHS) or any(len(r) != len(RANKS) for r in self.rows):
            raise ValueError("a share-value table has 16 rows of 3 cells")

    # -- construction ------------------------------------------------------------------------
    @classmethod
    def empty(cls) -> ShareValueTable:
        return cls(tuple((None, None, None) for _ in TRACK_LENGTHS))

    @classmethod
    def from_rulebook(cls) -> ShareValueTable:
        """The table pre-filled with the cells the rulebook's scoring example shows."""
        return cls.empty().fill(KNOWN_SHARE_VALUES)

    @classmethod
    def from_cells(cls, cells: Mapping[Cell, int]) -> ShareValueTable:
        return cls.empty().fill(cells)

    @classmethod
    def parse(cls, field: Field) -> ShareValueTable:
        """Read ``{"12": {"other": 4}, …}`` with field paths in every error. Only the cells
        present are set; nothing else is assumed."""
        cells: dict[Cell, int] = {}
        for key, row in field.items():
            if key not in {str(n) for n in TRACK_LENGTHS}:
                row.fail("a track length 0–15 is expected as the key")
            for rank, value in row.items():
                if rank not in RANKS:
                    value.fail("unknown field: the columns (ranks) are 1st, 2nd, other")
                cells[(int(key), rank)] = value.int(lo=0, hi=SHARE_VALUE_MAX)
        # the snapshot says what the owner's board prints; a disagreement with the rulebook's
        # example is reported by scoring (a note), not refused here
        return cls.empty().fill(cells, check_rulebook=False)

    # -- reading -----------------------------------------------------------------------------
    def value(self, track_length: int, rank: str) -> int | None:
        _check_cell((track_length, rank))
        return self.rows[track_length][RANKS.index(rank)]

    def cells(self) -> dict[Cell, int]:
        """Every known cell."""
        return {
            (length, rank): v
            for length, row in enumerate(self.rows)
            for rank, v in zip(RANKS, row, strict=True)
            if v is not None
        }

    def missing(self) -> tuple[Cell, ...]:
        """Every cell still unknown, in table order."""
        return tuple(
            (length, rank)
            for length, row in enumerate(self.rows)
            for rank, v in zip(RANKS, row, strict=True)
            if v is None
        )

    @property
    def is_complete(self) -> bool:
        return not self.missing()

    def form_rows(self) -> list[JsonObject]:
        """The guided one-time form: one row per track length, unknown cells as ``None`` and
        whether each cell comes from the rulebook (shown read-only)."""
        return [
            {
                "track_length": length,
                **{rank: row[i] for i, rank in enumerate(RANKS)},
                "from_rulebook": [rank for rank in RANKS if (length, rank) in KNOWN_SHARE_VALUES],
            }
            for length, row in enumerate(self.rows)
        ]

    # -- changing (a new table each time) ----------------------------------------------------
    def fill(
        self,
        cells: Mapping[Cell, int] | Iterable[tuple[Cell, int]],
        *,
        check_rulebook: bool = True,
        path: str = "share_values",
    ) -> ShareValueTable:
        """The table with unknown cells filled. A cell already known keeps its value: giving a
        different one is refused (the board is filled once; use :meth:`corrected`). Errors name
        each cell under ``path`` (the field the cells came from)."""
        pairs = cells.items() if isinstance(cells, Mapping) else cells
        rows = [list(r) for r in self.rows]
        for cell, value in pairs:
            _check_cell(cell)
            self._check_value(cell, value, check_rulebook=check_rulebook, path=path)
            length, rank = cell
            old = rows[length][RANKS.index(rank)]
            if old is not None and old != value:
                raise IllegalActionError(
                    msg(
                        "{cell} is already {old}, not {value}",
                        cell=cell_words(cell),
                        old=old,
                        value=value,
                    ),
                    rule=msg("the board table is filled once; correct a cell explicitly"),
                    section=FINAL_SCORING,
                )
            rows[length][RANKS.index(rank)] = value
        return ShareValueTable(tuple((r[0], r[1], r[2]) for r in rows))

    def corrected(self, cell: Cell, value: int | None) -> ShareValueTable:
        """The table with one entered cell changed or cleared. The rulebook's cells stay."""
        _check_cell(cell)
        if cell in KNOWN_SHARE_VALUES:
            raise IllegalActionError(
                msg(
                    "{cell} is {value} in the rulebook's scoring example",
                    cell=cell_words(cell),
                    value=KNOWN_SHARE_VALUES[cell],
                ),
                rule=_PRINTED,
                section=SCORING_EXAMPLE,
            )
        if value is not None:
            self._check_value(cell, value)
        rows = [list(r) for r in self.rows]
        rows[cell[0]][RANKS.index(cell[1])] = value
        return ShareValueTable(tuple((r[0], r[1], r[2]) for r in rows))

    def conflicts(self) -> tuple[Cell, ...]:
        """Cells whose value differs from the rulebook's scoring example."""
        return tuple(
            cell
            for cell, known in KNOWN_SHARE_VALUES.items()
            if self.value(*cell) not in (None, known)
        )

    @staticmethod
    def _check_value(
        cell: Cell, value: int, *, check_rulebook: bool = True, path: str = "share_values"
    ) -> None:
        if (
            not isinstance(value, int)
            or isinstance(value, bool)
            or not 0 <= value <= SHARE_VALUE_MAX
        ):
            raise IllegalActionError(
                msg(
                    "{cell}: a share value is a whole number 0–{max}",
                    cell=cell_words(cell),
                    max=SHARE_VALUE_MAX,
                ),
                rule=msg("points per share"),
                section=FINAL_SCORING,
            )
        known = KNOWN_SHARE_VALUES.get(cell)
        if check_rulebook and known is not None and value != known:
            raise IllegalActionError(
                msg(
                    "{cell} = {value}, but the rulebook's scoring example shows {known}",
                    cell=cell_words(cell),
                    value=value,
                    known=known,
                ),
                rule=_PRINTED,
                section=SCORING_EXAMPLE,
            )

    # -- notation ----------------------------------------------------------------------------
    def to_json(self) -> JsonObject:
        """Known cells only: ``{"12": {"other": 4}, …}`` (the snapshot's ``share_values``)."""
        out: JsonObject = {}
        for length, row in enumerate(self.rows):
            known: JsonObject = {
                rank: v for rank, v in zip(RANKS, row, strict=True) if v is not None
            }
            if known:
                out[str(length)] = known
        return out

    @classmethod
    def from_json(cls, data: Any, path: str = "share_values") -> ShareValueTable:
        return cls.parse(Field(data, path))
