"""Final scoring (ZÁVĚREČNÉ BODOVÁNÍ and the variants' scoring sections), pure.

A share is worth, to its owner, the cell of the printed table in the row of the company's track
length and the column of the owner's influence rank in that company. Influence 0 makes every
share of that company worth 0. The variants change the columns (2 experienced players, solo) and
zero some shares (solo from Šotouš up). Cells the scoring needs but the table does not know are
named, never guessed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from companion.core.messages import Text, join_texts, msg
from companion.core.scoring import PlayerScore, ScoreLine, ScoreSheet, highest
from companion.games.mini_express.board_table import Cell, ShareValueTable
from companion.games.mini_express.data import (
    COMPANIES,
    LEVEL_NAMES,
    LEVELS,
    RANKS,
    SOLO,
    TWO_EXPERIENCED_VARIANT,
)
from companion.games.mini_express.names import COMPANY_LABELS, RANK_LABELS, cell_words

NAME = "mini-express"


@dataclass(frozen=True, slots=True)
class Holding:
    """What scoring needs of one player: shares and influence per company (COMPANIES order)."""

    name: str
    seat_from_start: int
    shares: tuple[int, ...]
    influence: tuple[int, ...]
    is_automa: bool = False

    @property
    def total_shares(self) -> int:
        return sum(self.shares)


@dataclass(frozen=True, slots=True)
class Scoring:
    """The sheet, and the table cells it needed but could not find (then those lines are 0,
    noted, and there are no winners)."""

    sheet: ScoreSheet
    missing: tuple[Cell, ...]


def influence_ranks(influence: Sequence[int]) -> tuple[str, ...]:
    """Each player's column by influence, the standard way (ZÁVĚREČNÉ BODOVÁNÍ):
    the most influence is "1st"; a tie for 1st gives all of them "1st" and nobody "2nd";
    with one 1st, the next influence (tied or not) is "2nd"; everyone else "other"."""
    levels = sorted(set(influence), reverse=True)
    first = levels[0]
    if list(influence).count(first) > 1 or len(levels) == 1:
        return tuple("1st" if v == first else "other" for v in influence)
    second = levels[1]
    return tuple("1st" if v == first else "2nd" if v == second else "other" for v in influence)


def two_column_ranks(influence: Sequence[int]) -> tuple[str, ...]:
    """2 experienced players and solo: the "1st" column is ignored; the higher influence scores
    "2nd", the lower "Other", a tie both "2nd" (their Závěrečné bodování sections)."""
    return tuple("2nd" if r == "1st" else "other" for r in influence_ranks(influence))


def _level_index(level: str | None) -> int:
    return LEVELS.index(level) if level is not None else -1


def score_holdings(
    variant: str,
    level: str | None,
    table: ShareValueTable,
    track_lengths: Sequence[int],
    holdings: Sequence[Holding],
) -> Scoring:
    """Score everyone; the lines are one per company, in COMPANIES order."""
    two_columns = variant in (TWO_EXPERIENCED_VARIANT, SOLO)
    level_at = _level_index(level) if variant == SOLO else -1
    automa = next((h for h in holdings if h.is_automa), None)
    missing: list[Cell] = []
    lines: list[list[ScoreLine]] = [[] for _ in holdings]
    for c, company in enumerate(COMPANIES):
        influence = [h.influence[c] for h in holdings]
        ranks = two_column_ranks(influence) if two_columns else influence_ranks(influence)
        length = track_lengths[c]
        for i, h in enumerate(holdings):
            shares, infl, rank = h.shares[c], h.influence[c], ranks[i]
            zero_reason: Text = ""
            if infl == 0:
                # ZÁVĚREČNÉ BODOVÁNÍ, Pozn.: influence 0 makes the company's shares worth 0
                zero_reason = msg("influence 0: shares worth 0")
            elif not h.is_automa and level_at >= LEVELS.index("sotous") and infl <= 3:
                # Nastavení obtížnosti sólové hry, Šotouš (and every harder level)
                zero_reason = msg(
                    "{level}: influence {influence} ≤ 3, shares worth 0",
                    level=LEVEL_NAMES["sotous"],
                    influence=infl,
                )
            elif (
                not h.is_automa
                and automa is not None
                and level_at >= LEVELS.index("pruvodci")
                and infl < automa.influence[c]
            ):
                # Nastavení obtížnosti sólové hry, Průvodčí (and Ajznboňák)
                zero_reason = msg(
                    "{level}: influence {influence} below the Mašinfíra's {automa}, shares worth 0",
                    level=LEVEL_NAMES["pruvodci"],
                    influence=infl,
                    automa=automa.influence[c],
                )
            label = COMPANY_LABELS[
                company
            ]  # the company by the rulebook's name (ZÁVĚREČNÉ BODOVÁNÍ)
            if shares == 0:
                lines[i].append(ScoreLine(company, 0, msg("no shares"), label=label))
            elif zero_reason:
                lines[i].append(
                    ScoreLine(
                        company,
                        0,
                        msg("{n} × 0 ({why})", n=shares, why=zero_reason),
                        label=label,
                    )
                )
            else:
                value = table.value(length, rank)
                where = msg(
                    "{rank} in influence ({influence}) at track length {length}",
                    rank=RANK_LABELS[rank],
                    influence=infl,
                    length=length,
                )
                if value is None:
                    missing.append((length, rank))
                    lines[i].append(
                        ScoreLine(
                            company,
                            0,
                            msg(
                                "{n} × ? (not yet read off the board; {where})",
                                n=shares,
                                where=where,
                            ),
                            label=label,
                        )
                    )
                else:
                    lines[i].append(
                        ScoreLine(
                            company,
                            shares * value,
                            msg("{n} × {value} ({where})", n=shares, value=value, where=where),
                            label=label,
                        )
                    )
    players = tuple(PlayerScore(h.name, tuple(ls)) for h, ls in zip(holdings, lines, strict=True))
    needed = tuple(sorted(set(missing), key=lambda cell: (cell[0], RANKS.index(cell[1]))))
    notes: list[Text] = []
    if needed:
        notes.append(
            msg(
                "share values missing from the board table: {cells}",
                cells=join_texts([cell_words(cell) for cell in needed], "; "),
            )
        )
    for cell in table.conflicts():
        notes.append(
            msg("{cell} differs from the rulebook's scoring example", cell=cell_words(cell))
        )
    winners = () if needed else _winners(variant, holdings, players)
    return Scoring(ScoreSheet(NAME, players, winners, tuple(notes)), needed)


def _winners(
    variant: str, holdings: Sequence[Holding], players: Sequence[PlayerScore]
) -> tuple[str, ...]:
    if variant == SOLO:
        # Závěrečné bodování sólové hry: "V případě remízy vyhrává Mašinfíra."
        return highest(
            [
                (p.name, (p.total, 1 if h.is_automa else 0))
                for h, p in zip(holdings, players, strict=True)
            ]
        )
    # ZÁVĚREČNÉ BODOVÁNÍ (and the 2-player variants): most points; tied, fewer shares; still
    # tied, the player closer to the start player in turn order
    return highest(
        [
            (p.name, (p.total, -h.total_shares, -h.seat_from_start))
            for h, p in zip(holdings, players, strict=True)
        ]
    )
