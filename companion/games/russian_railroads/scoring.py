"""Russian Railroads scoring: the end-of-round scoring and the final scoring, pure and itemised.

Rulebook: seed 000 (Czech), "VYHODNOCENÍ A ZÍSKÁVÁNÍ BODŮ" (end of round) and "KONEC HRY"
(final scoring: "KARTY CÍLOVÝCH BONUSŮ", "NEJVÍCE INŽENÝRŮ"), cards described in "POPIS KARET
A ŽETONŮ".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from companion.core.messages import Message, Text, join_texts, msg, plural
from companion.core.scoring import ScoreLine
from companion.games.russian_railroads.board_data import (
    BLACK,
    COLOURS,
    ENGINEER_MAJORITY_POINTS,
    GREY,
    INDUSTRY_GAPS,
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
    BoardFigure,
)
from companion.games.russian_railroads.names import BONUS_CARD_NAMES, rail_colour

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

    used: dict[str, Text] = field(default_factory=dict)

    def note(self, key: str, text: Text) -> None:
        self.used.setdefault(key, text)

    def notes(self) -> tuple[Text, ...]:
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


def _segment(
    colour: str, first: int, last: int, *, value: int, points: int, doubled: int
) -> Message:
    """One run of spaces of one colour: "grey 2–5 ×1 → 4", with the doublers lying on it."""
    spaces = _spaces(first, last)
    if doubled:
        return plural(
            "{colour} {spaces} ×{value}, doubler on {doubled} → {points}",
            "{colour} {spaces} ×{value}, doublers on {doubled} → {points}",
            "n",
            colour=rail_colour(colour),
            spaces=spaces,
            value=value,
            doubled=_spaces(first, first + doubled - 1),
            n=doubled,
            points=points,
        )
    if value:
        return msg(
            "{colour} {spaces} ×{value} → {points}",
            colour=rail_colour(colour),
            spaces=spaces,
            value=value,
            points=points,
        )
    return msg("{colour} {spaces} → 0", colour=rail_colour(colour), spaces=spaces)


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
    parts: list[Text] = []
    total = 0
    space = 1
    while space <= reach:
        colour = space_colour(board, track, space)
        end = space
        while end + 1 <= reach and space_colour(board, track, end + 1) == colour:
            end += 1
        value = values.get(colour, 0)
        points = value * (end - space + 1)
        doubled = 0
        if track == TRANS_SIBERIAN and board.doublers >= space and value:
            # Seed 000, "ŽETONY ZDVOJNÁSOBENÍ": a doubler doubles its own space's points.
            doubled = min(end, board.doublers) - space + 1
            points += value * doubled
        parts.append(_segment(colour, space, end, value=value, points=points, doubled=doubled))
        total += points
        space = end + 1
    levels = board.locomotives.get(track, ())
    head = (
        msg("reach {reach} (locomotives {levels})", reach=reach, levels="+".join(map(str, levels)))
        if levels
        else msg("reach {reach} (no locomotive)", reach=reach)
    )
    if board.revaluation:
        head = msg("{reach}, revalued", reach=head)
    if (
        track == ST_PETERSBURG
        and board.rail(track, GREY) >= ST_PETERSBURG_DOUBLING_SPACE
        and reach >= ST_PETERSBURG_DOUBLING_SPACE
    ):
        parts.append(msg("grey + locomotive at 7: ×2 → {points}", points=total * 2))
        total *= 2
    if track == KIEV:
        stars: list[int] = []
        for star_space in KIEV_BONUS_SPACES:
            if board.rail(KIEV, BLACK) >= star_space and reach >= star_space:
                value_or_none = _kiev_star(star_space, data, use)
                if value_or_none is None:
                    parts.append(
                        msg("bonus star {space}: value unknown, not counted", space=star_space)
                    )
                else:
                    stars.append(value_or_none)
        if stars:
            total += sum(stars)
            parts.append(
                msg(
                    "bonus stars {stars} → {points}",
                    stars="+".join(map(str, stars)),
                    points=sum(stars),
                )
            )
        if (
            board.kiev_medal
            and board.rail(KIEV, GREY) >= KIEV_MEDAL_SPACE
            and reach >= KIEV_MEDAL_SPACE
        ):
            total += KIEV_MEDAL_POINTS
            parts.append(
                msg("Kiev medal (grey + locomotive at 5) → {points}", points=KIEV_MEDAL_POINTS)
            )
    if not parts:
        parts.append(msg("nothing in reach → 0"))
    note = msg("{reach}: {parts}", reach=head, parts=join_texts(parts, "; "))
    return ScoreLine(track, total, note, label=CATEGORY_LABELS[track])


def unknown_figure(figure: BoardFigure) -> Message:
    """A figure nobody knows, left out of a score (the owner can set it from the box)."""
    return msg("not counted, not yet known: {figure}", figure=figure.description)


def unverified_figure(figure: BoardFigure) -> Message:
    """A figure from one outside source, counted but not yet checked against a box."""
    return msg(
        "{figure} = {value}, not yet checked against a box ({source})",
        figure=figure.description,
        value=figure.value if figure.value is not None else "?",
        source=figure.source,
    )


def _kiev_star(space: int, data: BoardData, use: FigureUse) -> int | None:
    if space in (1, 2, 3):
        return space  # printed 1, 2, 3 (seed 000 example: 1 + 2 + 3 = 6)
    figure = data.figure(f"kiev_bonus_{space}")
    if figure.value is None:
        use.note(figure.key, unknown_figure(figure))
    elif not figure.confirmed:
        use.note(figure.key, unverified_figure(figure))
    return figure.value


def industry_values_note(figure: BoardFigure) -> Message:
    return msg(
        "industry track values 1, 2, 3, 5, 10, 15, 20, 25, 30, not yet checked against a box "
        "({source})",
        source=figure.source,
    )


def score_industry(board: ScoringInput, data: BoardData, use: FigureUse) -> ScoreLine:
    """Seed 000, "VYHODNOCENÍ PRŮMYSLOVÉHO ROZVOJE": each marker scores the value of its space,
    a factory space the nearest lower value; not cumulative. Two markers score separately
    ("?" token "second industry marker")."""
    parts: list[Text] = []
    total = 0
    two = len(board.industry) > 1
    for marker, position in enumerate(board.industry, start=1):
        figure = data.industry_value(position)
        value = 0 if figure is None else figure.value or 0
        if figure is not None and not figure.confirmed:
            use.note("industry_values", industry_values_note(figure))
        if position == 0:
            where: Message = msg("at the start → {points}", points=value)
        elif position in INDUSTRY_GAPS:
            where = msg(
                "at space {space} (factory {factory}) → {points}",
                space=position,
                factory=INDUSTRY_GAPS.index(position) + 1,
                points=value,
            )
        else:
            where = msg("at space {space} → {points}", space=position, points=value)
        parts.append(msg("marker {n} {where}", n=marker, where=where) if two else where)
        total += value
    return ScoreLine("industry", total, join_texts(parts, "; "), label=CATEGORY_LABELS["industry"])


def score_round(board: ScoringInput, data: BoardData, use: FigureUse) -> tuple[ScoreLine, ...]:
    """One player's end-of-round scoring: the three tracks and industry, always four lines."""
    return (
        *(score_track(board, track, data, use) for track in TRACKS),
        score_industry(board, data, use),
    )


def bonus_card_points(board: ScoringInput, card: str) -> tuple[int, Message]:
    """Points of one final bonus card, and why (seed 000, "KARTY CÍLOVÝCH BONUSŮ")."""
    match card:
        case "points_15":
            return 15, msg("15 points")
        case "extra_workers":
            n = board.extra_workers
            return min(30, 10 * n), plural(
                "{n} gained worker ×10", "{n} gained workers ×10", "n", n=n
            )
        case "doublers":
            n = board.doublers
            points = 30 if n >= 7 else 20 if n >= 4 else 0
            return points, plural("{n} doubler", "{n} doublers", "n", n=n)
        case "terminus":
            n = sum(1 for t in TRACKS if board.rail(t, BLACK) >= TRACK_LENGTH[t])
            return min(30, 10 * n), plural(
                "{n} black terminus ×10", "{n} black termini ×10", "n", n=n
            )
        case "black_rails":
            spaces = [board.rail(t, BLACK) for t in TRACKS]
            return sum(spaces), msg("black at {spaces}", spaces="+".join(map(str, spaces)))
        case "engineer_count":
            return 0, msg("counts as one more engineer for the majority")
        case "factories":
            n = board.factories
            return min(20, 4 * n), plural("{n} factory ×4", "{n} factories ×4", "n", n=n)
        case "locomotives":
            levels = [lv for t in TRACKS for lv in board.locomotives.get(t, ())]
            if not levels:
                return 0, msg("no locomotive")
            return sum(levels), msg("levels {levels}", levels="+".join(map(str, levels)))
        case "tokens":
            n = board.tokens_used
            return min(28, 7 * n), plural("{n} token ×7", "{n} tokens ×7", "n", n=n)
        case "engineers_6":
            n = len(board.engineers)
            return 6 * n, plural("{n} engineer ×6", "{n} engineers ×6", "n", n=n)
    raise ValueError(f"unknown bonus card {card!r}")


def score_bonus_cards(board: ScoringInput) -> ScoreLine:
    parts: list[Text] = []
    total = 0
    for card in board.bonus_cards:
        points, why = bonus_card_points(board, card)
        total += points
        parts.append(
            msg(
                "“{card}”: {why} → {points}",
                card=BONUS_CARD_NAMES.get(card, card),
                why=why,
                points=points,
            )
        )
    return ScoreLine(
        "bonus_cards",
        total,
        join_texts(parts, "; ") if parts else msg("no bonus card → 0"),
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
        nums = ", ".join(map(str, sorted(board.engineers)))
        if i in place:
            rank = (
                msg("most", context="engineers")
                if place[i] == 0
                else msg("second most", context="engineers")
                if place[i] == 1
                else msg("place {n}", n=place[i] + 1)
            )
            engineers = (
                plural(
                    "{n} engineer (+1 card) [{numbers}]",
                    "{n} engineers (+1 card) [{numbers}]",
                    "n",
                    n=count,
                    numbers=nums,
                )
                if "engineer_count" in board.bonus_cards
                else plural(
                    "{n} engineer [{numbers}]",
                    "{n} engineers [{numbers}]",
                    "n",
                    n=count,
                    numbers=nums,
                )
            )
            why: Message = msg(
                "{engineers}: {rank} → {points}", engineers=engineers, rank=rank, points=points[i]
            )
        else:
            why = msg("no engineer → 0")
        lines.append(ScoreLine("engineers", points[i], why, label=CATEGORY_LABELS["engineers"]))
    return tuple(lines)
