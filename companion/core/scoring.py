"""Itemised score sheets: a player's total is always the sum of lines people can read."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from companion.core.jsonvalue import JsonObject
from companion.core.messages import Message, Text, render_text, text_json


@dataclass(frozen=True, slots=True)
class ScoreLine:
    """One reason for points: ``ScoreLine("kiev", 12, msg("black 1–4 ×…"))``.

    ``category`` is the contract's id (``trans_siberian``); ``label`` is its name for people
    (``msg("Trans-Siberian Railway")``); ``note`` the short detail. In JSON, ``note`` stays the
    English text the ``score`` contract promises, and ``label``/``note_message`` carry the message
    ids each surface renders in its reader's language.
    """

    category: str
    points: int
    note: Text = ""
    label: Message | None = None
    detail: Text = ""
    """The long explanation, shown on tap (``note`` is the short line under the total)."""

    def to_json(self) -> JsonObject:
        data: JsonObject = {"category": self.category, "points": self.points}
        if self.note:
            data["note"] = render_text(self.note)
            if isinstance(self.note, Message):
                data["note_message"] = self.note.to_json()
        if self.label is not None:
            data["label"] = self.label.to_json()
        if self.detail:
            data["detail"] = text_json(self.detail)
        return data


@dataclass(frozen=True, slots=True)
class PlayerScore:
    name: str
    lines: tuple[ScoreLine, ...]

    @property
    def total(self) -> int:
        return sum(line.points for line in self.lines)

    def points(self, category: str) -> int:
        """Points of every line in ``category`` (0 when there is none)."""
        return sum(line.points for line in self.lines if line.category == category)

    def to_json(self) -> JsonObject:
        return {
            "name": self.name,
            "total": self.total,
            "lines": [line.to_json() for line in self.lines],
        }


@dataclass(frozen=True, slots=True)
class ScoreSheet:
    """The result of one scoring: per player lines, the winners, and notes for everyone
    (e.g. which board figures in use are still unconfirmed)."""

    game: str
    players: tuple[PlayerScore, ...]
    winners: tuple[str, ...]
    notes: tuple[Text, ...] = ()

    def player(self, name: str) -> PlayerScore:
        for p in self.players:
            if p.name == name:
                return p
        raise KeyError(name)

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(p.total for p in self.players)

    def to_json(self) -> JsonObject:
        data: JsonObject = {
            "game": self.game,
            "players": [p.to_json() for p in self.players],
            "winners": list(self.winners),
        }
        if self.notes:
            data["notes"] = [render_text(n) for n in self.notes]
            if any(isinstance(n, Message) for n in self.notes):
                data["notes_messages"] = [text_json(n) for n in self.notes]
        return data


def highest(candidates: Sequence[tuple[str, tuple[float, ...]]]) -> tuple[str, ...]:
    """Names whose key is the greatest. Each key is (total, tie-break, tie-break, …), higher
    wins (negate where fewer is better); players still tied all win."""
    if not candidates:
        return ()
    best = max(key for _, key in candidates)
    return tuple(name for name, key in candidates if key == best)


def sheet(game: str, rows: Iterable[tuple[str, Iterable[ScoreLine]]]) -> tuple[PlayerScore, ...]:
    """Build player scores from (name, lines) pairs."""
    return tuple(PlayerScore(name, tuple(lines)) for name, lines in rows)
