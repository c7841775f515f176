"""A game's public view: what the table sees, worked out by the game, rendered by every screen.

DESIGN.md, "Screens show": the TV, the phones, history, exports, MQTT/Home Assistant and the
LED cues read this view and never work a game out themselves. It holds

* ``players``: each player's total and every public count people watch (``counts``: trains
  left, stations, cards in hand, tickets held, workers, coins, engineers, shares, …), as
  ``(kind, number)`` pairs whose ``kind`` each surface words;
* ``sheet``: the score sheet as categories, each holding every player's itemised lines (any
  number of lines per player: four failed tickets are four lines of one category), so a sheet
  drawn as a table has one row per category and every column sums to the player's total;
* ``status``: the sentence after "Waiting for …";
* ``moments``: what the table should be told once (a round scored, with each player's lines;
  the last round begun; the game over; a tunnel turned), each with a ``key`` that stays the same
  while the moment is shown, so a screen announces it once.

Everything here is public: a game builds it from what everyone at the table may see.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from companion.core.jsonvalue import JsonObject, JsonValue
from companion.core.messages import Text, text_json
from companion.core.scoring import ScoreLine, ScoreSheet

COUNT_KINDS = frozenset(
    {
        "trains",
        "stations",
        "cards",
        "tickets",
        "workers",
        "coins",
        "rubles",
        "engineers",
        "shares",
        "vp",
        "tasks",
        "buildings",
        "dice",
        "position",
    }
)
"""The counts a screen knows how to word (``web`` words each kind in four languages)."""

MOMENT_KINDS = frozenset({"round_scored", "last_round", "game_over", "tunnel"})


@dataclass(frozen=True, slots=True)
class Item:
    """One itemised line of a sheet cell: points and why."""

    points: int
    note: Text = ""
    detail: Text = ""

    def to_json(self) -> JsonObject:
        data: JsonObject = {"points": self.points}
        if self.note:
            data["note"] = text_json(self.note)
        if self.detail:
            data["detail"] = text_json(self.detail)
        return data


@dataclass(frozen=True, slots=True)
class Category:
    """One row of the score sheet: its id, its name for people, and each player's lines (in
    player order; a player without a line in it has an empty tuple)."""

    id: str
    label: Text
    lines: tuple[tuple[Item, ...], ...]

    def points(self, player: int) -> int:
        return sum(item.points for item in self.lines[player])

    def to_json(self) -> JsonObject:
        return {
            "id": self.id,
            "label": text_json(self.label),
            "cells": [
                {"points": sum(i.points for i in cell), "lines": [i.to_json() for i in cell]}
                for cell in self.lines
            ],
        }


@dataclass(frozen=True, slots=True)
class PublicPlayer:
    index: int
    name: str
    total: int
    counts: tuple[tuple[str, int], ...] = ()

    def to_json(self) -> JsonObject:
        return {
            "index": self.index,
            "name": self.name,
            "total": self.total,
            "counts": [[kind, n] for kind, n in self.counts],
        }


@dataclass(frozen=True, slots=True)
class Moment:
    """Something to announce once: ``kind`` (``MOMENT_KINDS``), a ``key`` unique in the game,
    the ``round`` it belongs to, each player's lines for a scored round (in player order, with
    ``categories``: each line's sheet category, in the same shape), and a short ``text``. A
    moment about one player names them (``player``, an index); a tunnel's verdict says how many
    more cards its player owes (``extra_cards``, 0 when the tunnel was claimed at once).

    In JSON a line names its ``category`` (its name is the sheet's) and carries its ``note``
    only when the player's line in the sheet does not already say the same (no field twice)."""

    kind: str
    key: str
    round: int | None = None
    lines: tuple[tuple[Item, ...], ...] = ()
    categories: tuple[tuple[str, ...], ...] = ()
    text: Text = ""
    player: int | None = None
    extra_cards: int | None = None

    def to_json(self, sheet: Sequence[Category] = ()) -> JsonObject:
        data: JsonObject = {"kind": self.kind, "key": self.key}
        if self.round is not None:
            data["round"] = self.round
        if self.player is not None:
            data["player"] = self.player
        if self.extra_cards is not None:
            data["extra_cards"] = self.extra_cards
        by_id = {c.id: c for c in sheet}
        if self.lines:
            rows: list[JsonValue] = []
            for player, (items, ids) in enumerate(zip(self.lines, self.categories, strict=True)):
                row: list[JsonValue] = []
                for item, cat in zip(items, ids, strict=True):
                    line: JsonObject = {"category": cat, **item.to_json()}
                    found = by_id.get(cat)
                    cell = (
                        found.lines[player]
                        if found is not None and player < len(found.lines)
                        else ()
                    )
                    if "note" in line and len(cell) == 1 and cell[0].note == item.note:
                        del line["note"]  # the sheet's line says it
                    row.append(line)
                rows.append(row)
            data["lines"] = rows
        if self.text:
            data["text"] = text_json(self.text)
        return data


@dataclass(frozen=True, slots=True)
class PublicView:
    players: tuple[PublicPlayer, ...]
    sheet: tuple[Category, ...]
    status: Text = ""
    moments: tuple[Moment, ...] = ()
    winners: tuple[str, ...] = ()
    over: bool = False
    picture: JsonObject | None = None
    """What the game's picture needs besides the public table (Ticket to Ride: each player's
    longest path once the game is over); ``None`` when nothing."""

    def to_json(self) -> JsonObject:
        data: JsonObject = {
            "players": [p.to_json() for p in self.players],
            "sheet": [c.to_json() for c in self.sheet],
            "status": text_json(self.status),
            "moments": [m.to_json(self.sheet) for m in self.moments],
            "winners": list(self.winners),
            "over": self.over,
        }
        if self.picture is not None:
            data["picture"] = self.picture
        return data


def _label(line: ScoreLine) -> Text:
    if line.label is not None:
        return line.label
    return line.category.replace("_", " ").strip().capitalize()


def item(line: ScoreLine) -> Item:
    """A sheet line as the view carries it; a detail that only repeats the note is left out."""
    return Item(line.points, line.note, "" if line.detail == line.note else line.detail)


def categories(sheet: ScoreSheet) -> tuple[Category, ...]:
    """The sheet's lines grouped by category, categories in the order they first appear (any
    player), every line of a player kept in its category: a column of the grouped sheet sums to
    the player's total."""
    order: list[str] = []
    labels: dict[str, Text] = {}
    for player in sheet.players:
        for line in player.lines:
            if line.category not in labels:
                order.append(line.category)
                labels[line.category] = _label(line)
    return tuple(
        Category(
            cat,
            labels[cat],
            tuple(
                tuple(item(line) for line in player.lines if line.category == cat)
                for player in sheet.players
            ),
        )
        for cat in order
    )


def build(
    sheet: ScoreSheet,
    status: Text,
    counts: Sequence[Sequence[tuple[str, int]]] = (),
    moments: Sequence[Moment] = (),
    *,
    over: bool = False,
    picture: JsonObject | None = None,
) -> PublicView:
    """The view from the game's own sheet and status: ``counts`` per player (player order)."""
    players = tuple(
        PublicPlayer(
            index,
            p.name,
            p.total,
            tuple(counts[index]) if index < len(counts) else (),
        )
        for index, p in enumerate(sheet.players)
    )
    return PublicView(
        players=players,
        sheet=categories(sheet),
        status=status,
        moments=tuple(moments),
        winners=sheet.winners,
        over=over,
        picture=picture,
    )
