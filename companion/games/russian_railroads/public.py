"""Russian Railroads's public view (``companion.core.public``).

Counts per player: workers still to place this round, coins (rubles), engineers hired. The
moment announced: the round just scored ("VYHODNOCENÍ A ZÍSKÁVÁNÍ BODŮ"), with each player's
lines for that round, a line worth nothing saying why ("nothing in reach → 0"); the last round
begun (the seventh, or the sixth with two players: "PRŮBĚH HRY"); the game over ("KONEC HRY").
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from companion.core.jsonvalue import JsonObject, JsonValue
from companion.core.messages import Message, Text, join_texts, msg
from companion.core.public import Category, Item, Moment, PublicView, build
from companion.games.russian_railroads.board_data import TRACKS
from companion.games.russian_railroads.scoring import ROUND_CATEGORIES

if TYPE_CHECKING:
    from companion.games.russian_railroads.rules import RussianRailroads
    from companion.games.russian_railroads.state import PlayerBoard, RussianRailroadsState

_IN_ROUND = "round {round}: {what}"


def _round_of(why: Text) -> tuple[int | None, Text]:
    """The round a point entry was scored in, and its reason without the round."""
    if isinstance(why, Message) and why.msgid == _IN_ROUND:
        number = why.param("round")
        what = why.param("what")
        text: Text = what if isinstance(what, str | Message) else why
        return (number if isinstance(number, int) else None), text
    return None, why


def _params(message: Message) -> list[Message]:
    """Every message inside ``message`` (itself included), depth first."""
    found = [message]
    for _key, value in message.params:
        if isinstance(value, Message):
            found += _params(value)
    return found


def why_nothing(note: Text) -> Text:
    """Why a round line scored 0, in words (seed 000, "VYHODNOCENÍ TRATÍ": only the spaces the
    locomotives reach are scored, black rails score no points; "VYHODNOCENÍ PRŮMYSLOVÉHO
    ROZVOJE": the marker scores the value of its space, and the start has none)."""
    if not isinstance(note, Message):
        return ""
    ids = {m.msgid for m in _params(note)}
    if "reach {reach} (no locomotive)" in ids:
        return msg("No locomotive on this track yet: only spaces a locomotive reaches score.")
    if "nothing in reach → 0" in ids:
        return msg("The locomotives reach no rail on this track yet.")
    if "{colour} {spaces} → 0" in ids and "{colour} {spaces} ×{value} → {points}" not in ids:
        return msg("Black rails score no points; only other colours in reach score.")
    if "at the start → {points}" in ids:
        return msg("The industry marker is still at the start, which scores nothing.")
    return ""


def round_lines(board: PlayerBoard, number: int) -> tuple[tuple[Item, ...], tuple[str, ...]]:
    """A player's lines of round ``number``'s scoring (the four round categories), in order,
    and their categories."""
    items: list[Item] = []
    labels: list[str] = []
    for category, points, why in board.points:
        if category not in ROUND_CATEGORIES:
            continue
        scored_in, what = _round_of(why)
        if scored_in != number:
            continue
        items.append(Item(points, what, why_nothing(what) if points == 0 else ""))
        labels.append(category)
    return tuple(items), tuple(labels)


def round_totals(board: PlayerBoard) -> list[JsonValue]:
    """``[round, running total]`` right after each round's scoring (the score-per-round chart):
    the running sum of the player's points, in the order earned, at the last line of round N's
    scoring."""
    running = 0
    after: dict[int, int] = {}
    for category, points, why in board.points:
        running += points
        scored_in, _what = _round_of(why)
        if scored_in is not None and category in ROUND_CATEGORIES:
            after[scored_in] = running
    return [[r, after[r]] for r in sorted(after)]


def screen_json(game: RussianRailroads, state: RussianRailroadsState) -> JsonObject:
    """The table as the live screens need it: the notation without each player's ``points``
    (every point with its reason, twice: the largest part by far); the screens read the sheet,
    the round just scored and the score per round from the public view."""
    data = game.to_json(state)
    players = data.get("players")
    if isinstance(players, list):
        data["players"] = [
            {k: v for k, v in p.items() if k != "points"} if isinstance(p, dict) else p
            for p in players
        ]
    return data


def public_view(game: RussianRailroads, state: RussianRailroadsState) -> PublicView:
    n = len(state.players)
    counts = [
        (
            ("workers", max(0, b.workers(n) + b.temporary - b.workers_used - b.temporary_used)),
            ("rubles", b.coins),
            ("engineers", len(b.engineers)),
        )
        for b in state.players
    ]
    over = game.is_over(state)
    scored = state.round if over else state.round - 1
    moments: list[Moment] = []
    if scored >= 1:
        rows = [round_lines(b, scored) for b in state.players]
        if any(items for items, _ in rows):
            moments.append(
                Moment(
                    "round_scored",
                    f"round-{scored}",
                    round=scored,
                    lines=tuple(items for items, _ in rows),
                    categories=tuple(labels for _, labels in rows),
                )
            )
    if state.round == state.rounds and not over:
        moments.append(Moment("last_round", "last-round", round=state.round))
    if over:
        moments.append(Moment("game_over", "game-over", round=state.round))
    # the boards' picture: how far each player's locomotives reach on each track ("LOKOMOTIVY":
    # rails beyond score nothing), the screens draw it and never add levels up themselves
    reach: list[JsonValue] = [[b.reach(t) for t in TRACKS] for b in state.players]
    picture: JsonObject = {
        "round_totals": [round_totals(b) for b in state.players],
        "reach": reach,
    }
    sheet = game.score(state)
    status = game.status(state).waiting_for
    view = build(sheet, status, counts, moments, over=over, picture=picture)
    return replace(view, sheet=tuple(_short_detail(c, state) for c in view.sheet))


def _short_detail(category: Category, state: RussianRailroadsState) -> Category:
    """A category scored round by round (the tracks, industry, passing, action spaces): "how it
    was counted" as the points of each round ("round 1: 1; round 2: 3; …"); each round's
    reasons were announced with the round (its moment) and the latest is the line's note. The
    sheet's own detail repeats every reason of every round, the largest part of the view by
    far. A category with an entry outside the rounds (final scoring) keeps its detail."""
    cells = []
    for board, cell in zip(state.players, category.lines, strict=False):
        parts: list[Text] = []
        for cat, points, why in board.points:
            if cat != category.id:
                continue
            scored_in, _what = _round_of(why)
            if scored_in is None:  # final scoring, or a reason without its round: kept whole
                return category
            parts.append(msg("round {round}: {points}", round=scored_in, points=points))
        detail: Text = join_texts(parts, "; ") if parts else ""
        cells.append(tuple(replace(item, detail=detail if item.points else "") for item in cell))
    return replace(category, lines=tuple(cells))
