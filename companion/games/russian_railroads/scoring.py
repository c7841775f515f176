"""Russian Railroads scoring: the end-of-round scoring and the final scoring, pure and itemised.

Rulebook: seed 000 (Czech), "VYHODNOCENÍ A ZÍSKÁVÁNÍ BODŮ" (end of round) and "KONEC HRY"
(final scoring: "KARTY CÍLOVÝCH BONUSŮ", "NEJVÍCE INŽENÝRŮ"), cards described in "POPIS KARET
A ŽETONŮ".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from companion.core.messages import Message, msg
from companion.core.scoring import ScoreLine
from companion.games.russian_railroads.board_data import (
    BLACK,
    BONUS_CARD_TITLES,
    COLOURS,
    ENGINEER_MAJORITY_POINTS,
    GREY,
    KIEV,
    KIEV_BONUS_SPACES,
    KIEV_MEDAL_POINTS,
    KIEV_MEDAL_SPACE,
    POINTS,
    POINTS_REVALUED,
    ST_PETERSBURG,
    ST_PETERSBURG_DOUBLING_SPACE,
    TRACK_LENGTH,
    TRACKS,
    TRANS_SIBERIAN,
    BoardData,
)

ROUND_CATEGORIES = (TRANS_SIBERIAN, ST_PETERSBURG, KIEV, "industry")
FINAL_CATEGORIES = ("bonus_cards", "engineers")

CATEGORY_LABELS: dict[str, Message] = {
    TRANS_SIBERIAN: msg("Trans-Siberian Railway", context="score category"),
    ST_PETERSBURG: msg("Moscow – St. Petersburg", context="score category"),
    KIEV: msg("Moscow – Kiev", context="score category"),
    "industry": msg("Industry", context="score category"),
    "pass": msg("Passing", context="score category"),
    "terminus": msg("End of the line", context="score category"),
    "actions": msg("Points from action spaces", context="score category"),
    "bonus_cards": msg("Bonus cards", context="score category"),
    "engineers": msg("Engineers", context="score category"),
    "earlier": msg("Earlier scorings", context="score category"),
}
"""Each score category's name for players (VYHODNOCENÍ A ZÍSKÁVÁNÍ BODŮ; the Czech rulebook's
words in the catalogue: Transsibiřská magistrála, trať do Sankt Petěrburgu, do Kyjeva)."""


@dataclass(frozen=True, slots=True)
class ScoringInput:
    """What scoring looks at on one player board (built from the table state or from a
    contract snapshot)."""

    name: str
    rails: dict[str, dict[str, int]]
    """``rails[track][colour]`` = space reached (0 / absent: no rail)."""
    locomotives: dict[str, tuple[int, ...]]
    doublers: int = 0
    revaluation: bool = False
    kiev_medal: bool = False
    factories: int = 0
    industry: tuple[int, ...] = (0,)
    engineers: tuple[int, ...] = ()
    bonus_cards: tuple[str, ...] = ()
    extra_workers: int = 0
    tokens_used: int = 0

    def rail(self, track: str, colour: str) -> int:
        return self.rails.get(track, {}).get(colour, 0)

    def reach(self, track: str) -> int:
        """How far the locomotives reach: the sum of their levels, at most the track's end
        (seed 000, "LOKOMOTIVY": two locomotives at the Trans-Siberian add up)."""
        return min(sum(self.locomotives.get(track, ())), TRACK_LENGTH[track])


@dataclass(slots=True)
class FigureUse:
    """Collects the unconfirmed board figures a scoring used, for the sheet's notes."""

    used: dict[str, str] = field(default_factory=dict)

    def note(self, key: str, text: str) -> None:
        self.used.setdefault(key, text)

    def notes(self) -> tuple[str, ...]:
        return tuple(self.used[k] for k in sorted(self.used))


def space_colour(board: ScoringInput, track: str, space: int) -> str:
    """The colour a space counts as: the most valuable rail that reached it (each rail is
    followed by virtual rails of its colour back to the next rail; seed 000, "VYHODNOCENÍ
    TRATÍ"); ``unbuilt`` beyond the black rail (no points)."""
    found = "unbuilt"
    for colour in COLOURS:
        if board.rail(track, colour) >= space:
            found = colour
    return found


def _spaces(a: int, b: int) -> str:
    return str(a) if a == b else f"{a}–{b}"


def score_track(board: ScoringInput, track: str, data: BoardData, use: FigureUse) -> ScoreLine:
    """One track's points at the end of a round, with a note people can read.

    Seed 000, "VYHODNOCENÍ TRATÍ": only spaces the locomotives reach score; each space scores
    its colour's value (value table, revalued with the revaluation token); a doubler doubles
    its Trans-Siberian space; St. Petersburg 7 with grey + locomotive doubles every St.
    Petersburg space; Kiev 1–4 and 8 with black + locomotive add their bonus stars; the Kiev
    medal at space 5 with grey + locomotive adds 20.
    """
    reach = board.reach(track)
    values = POINTS_REVALUED if board.revaluation else POINTS
    locos = "+".join(str(level) for level in board.locomotives.get(track, ())) or "none"
    parts: list[str] = []
    total = 0
    space = 1
    while space <= reach:
        colour = space_colour(board, track, space)
        end = space
        while end + 1 <= reach and space_colour(board, track, end + 1) == colour:
            end += 1
        value = values.get(colour, 0)
        points = value * (end - space + 1)
        text = f"{colour} {_spaces(space, end)}"
        if value:
            text += f" ×{value}"
        if track == TRANS_SIBERIAN and board.doublers >= space and value:
            # Seed 000, "ŽETONY ZDVOJNÁSOBENÍ": a doubler doubles its own space's points.
            doubled_end = min(end, board.doublers)
            points += value * (doubled_end - space + 1)
            plural = "s" if doubled_end > space else ""
            text += f", doubler{plural} on {_spaces(space, doubled_end)}"
        text += f" → {points}"
        parts.append(text)
        total += points
        space = end + 1
    head = f"reach {reach} (locomotives {locos})"
    if board.revaluation:
        head += ", revalued"
    if (
        track == ST_PETERSBURG
        and board.rail(track, GREY) >= ST_PETERSBURG_DOUBLING_SPACE
        and reach >= ST_PETERSBURG_DOUBLING_SPACE
    ):
        parts.append(f"grey + locomotive at 7: ×2 → {total * 2}")
        total *= 2
    if track == KIEV:
        stars: list[int] = []
        for star_space in KIEV_BONUS_SPACES:
            if board.rail(KIEV, BLACK) >= star_space and reach >= star_space:
                value_or_none = _kiev_star(star_space, data, use)
                if value_or_none is None:
                    parts.append(f"bonus star {star_space}: value unknown, not counted")
                else:
                    stars.append(value_or_none)
        if stars:
            total += sum(stars)
            parts.append(f"bonus stars {'+'.join(map(str, stars))} → {sum(stars)}")
        if (
            board.kiev_medal
            and board.rail(KIEV, GREY) >= KIEV_MEDAL_SPACE
            and reach >= KIEV_MEDAL_SPACE
        ):
            total += KIEV_MEDAL_POINTS
            parts.append(f"Kiev medal (grey + locomotive at 5) → {KIEV_MEDAL_POINTS}")
    if not parts:
        parts.append("nothing in reach → 0")
    return ScoreLine(track, total, f"{head}: " + "; ".join(parts), label=CATEGORY_LABELS[track])


def _kiev_star(space: int, data: BoardData, use: FigureUse) -> int | None:
    if space in (1, 2, 3):
        return space  # printed 1, 2, 3 (seed 000 example: 1 + 2 + 3 = 6)
    figure = data.figure(f"kiev_bonus_{space}")
    if figure.value is None:
        use.note(
            figure.key,
            f"board data unknown: {figure.description} — not counted "
            f"(set [russian_railroads.board] {figure.key})",
        )
    elif not figure.confirmed:
        use.note(
            figure.key,
            f"board data unverified: {figure.description} = {figure.value} ({figure.source})",
        )
    return figure.value


def score_industry(board: ScoringInput, data: BoardData, use: FigureUse) -> ScoreLine:
    """Seed 000, "VYHODNOCENÍ PRŮMYSLOVÉHO ROZVOJE": each marker scores the value of its space,
    a factory space the nearest lower value; not cumulative. Two markers score separately
    ("?" token "second industry marker")."""
    parts: list[str] = []
    total = 0
    for marker, position in enumerate(board.industry, start=1):
        figure = data.industry_value(position)
        value = 0 if figure is None else figure.value or 0
        if figure is not None and not figure.confirmed:
            use.note(
                "industry_values",
                "board data unverified: industry track values 1, 2, 3, 5, 10, 15, 20, 25, 30 "
                f"({figure.source})",
            )
        where = "start" if position == 0 else f"space {position}"
        if position in (5, 7, 9, 11, 13):
            where += f" (factory {(position - 3) // 2})"
        label = f"marker {marker} at {where}" if len(board.industry) > 1 else f"at {where}"
        parts.append(f"{label} → {value}")
        total += value
    return ScoreLine("industry", total, "; ".join(parts), label=CATEGORY_LABELS["industry"])


def score_round(board: ScoringInput, data: BoardData, use: FigureUse) -> tuple[ScoreLine, ...]:
    """One player's end-of-round scoring: the three tracks and industry, always four lines."""
    return (
        *(score_track(board, track, data, use) for track in TRACKS),
        score_industry(board, data, use),
    )


def bonus_card_points(board: ScoringInput, card: str) -> tuple[int, str]:
    """Points of one final bonus card (seed 000, "KARTY CÍLOVÝCH BONUSŮ")."""
    match card:
        case "points_15":
            return 15, "15"
        case "extra_workers":
            return min(30, 10 * board.extra_workers), f"{board.extra_workers} gained workers ×10"
        case "doublers":
            points = 30 if board.doublers >= 7 else 20 if board.doublers >= 4 else 0
            return points, f"{board.doublers} doublers"
        case "terminus":
            ends = [t for t in TRACKS if board.rail(t, BLACK) >= TRACK_LENGTH[t]]
            return min(30, 10 * len(ends)), f"{len(ends)} black termini ×10"
        case "black_rails":
            spaces = [board.rail(t, BLACK) for t in TRACKS]
            return sum(spaces), "black at " + "+".join(map(str, spaces))
        case "engineer_count":
            return 0, "counts as one more engineer for the majority"
        case "factories":
            return min(20, 4 * board.factories), f"{board.factories} factories ×4"
        case "locomotives":
            levels = [lv for t in TRACKS for lv in board.locomotives.get(t, ())]
            return sum(levels), "levels " + ("+".join(map(str, levels)) or "none")
        case "tokens":
            return min(28, 7 * board.tokens_used), f"{board.tokens_used} tokens ×7"
        case "engineers_6":
            return 6 * len(board.engineers), f"{len(board.engineers)} engineers ×6"
    raise ValueError(f"unknown bonus card {card!r}")


def score_bonus_cards(board: ScoringInput) -> ScoreLine:
    parts: list[str] = []
    total = 0
    for card in board.bonus_cards:
        points, why = bonus_card_points(board, card)
        total += points
        parts.append(f"{card} ({BONUS_CARD_TITLES[card]}): {why} → {points}")
    return ScoreLine(
        "bonus_cards",
        total,
        "; ".join(parts) if parts else "no bonus card → 0",
        label=CATEGORY_LABELS["bonus_cards"],
    )


def engineer_count(board: ScoringInput) -> int:
    """Engineers for the majority: hired tiles, plus one for the ``engineer_count`` card."""
    return len(board.engineers) + board.bonus_cards.count("engineer_count")


def score_engineers(boards: Sequence[ScoringInput]) -> tuple[ScoreLine, ...]:
    """Seed 000, "NEJVÍCE INŽENÝRŮ": most engineers 40, second most 20, others 0; at least
    one engineer needed; a tie goes to the player with the highest engineer number, who takes
    the place alone (the other moves down). The ``engineer_count`` card counts as one more
    engineer for the count (and so for "at least one"), never for the tie-break number.
    Players still tied (no numbers to compare) share the place; a shared first place leaves
    no second place.
    """
    keyed = [
        (engineer_count(b), max(b.engineers, default=0), i)
        for i, b in enumerate(boards)
        if engineer_count(b) > 0
    ]
    keyed.sort(key=lambda k: (k[0], k[1]), reverse=True)
    points = [0] * len(boards)
    place: dict[int, int] = {}
    position = 0
    previous: tuple[int, int] | None = None
    for count, top, index in keyed:
        if (count, top) != previous:
            position = sum(1 for _ in place)
            previous = (count, top)
        place[index] = position
    for index, pos in place.items():
        if pos < len(ENGINEER_MAJORITY_POINTS):
            points[index] = ENGINEER_MAJORITY_POINTS[pos]
    lines = []
    for i, board in enumerate(boards):
        count = engineer_count(board)
        card = " (+1 card)" if "engineer_count" in board.bonus_cards else ""
        nums = ", ".join(map(str, sorted(board.engineers))) or "none"
        if i in place:
            rank = ("most", "second most")[place[i]] if place[i] < 2 else f"place {place[i] + 1}"
            why = f"{count} engineers{card} [{nums}]: {rank} → {points[i]}"
        else:
            why = "no engineer → 0"
        lines.append(ScoreLine("engineers", points[i], why, label=CATEGORY_LABELS["engineers"]))
    return tuple(lines)
