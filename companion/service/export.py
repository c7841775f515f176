"""A game's record for people and other tools: JSON (everything) and CSV (the score sheet)."""

from __future__ import annotations

import csv
import gettext
import io
import json
from typing import Any

from companion.core.errors import TracksideError
from companion.core.events import LogEntry, event_to_json
from companion.core.jsonvalue import JsonObject
from companion.core.messages import msg, render_text
from companion.core.privacy import private_actions, redact_event
from companion.core.session import TableSession
from companion.core.spreadsheet import csv_cell  # shared with the club hub's CSV files
from companion.games import find_game
from companion.service.store import EventStore


def _replay(store: EventStore, game_id: int) -> TableSession:
    record = store.game(game_id)
    return TableSession.replay(find_game(record.game), store.entries(game_id))


def _mapping(value: object) -> dict[str, Any]:
    return dict(value) if isinstance(value, dict) else {}


def _listed(value: object) -> list[Any]:
    return list(value) if isinstance(value, list) else []


def game_result(session: TableSession) -> JsonObject:
    """What a game ended with, stored beside it (the history pages read this, not a replay):
    each player's total, the winners, the whole score sheet and the final public table (what
    the scoreboard drew: the chart, the map)."""
    game, state = session.game, session.state
    sheet = game.score(state)
    public = getattr(game, "public_json", game.to_json)
    return {
        "totals": {p.name: p.total for p in sheet.players},
        "winners": list(sheet.winners),
        "sheet": sheet.to_json(),
        "table": public(state),
        "view": game.public_view(state).to_json(),
    }


SummaryCache = dict[int, tuple[int, dict[str, Any]]]
"""game id → (its last log seq, its summary): a game is replayed again only when its log grew."""


def game_summaries(store: EventStore, cache: SummaryCache | None = None) -> list[dict[str, Any]]:
    """Every game, newest first, with its current totals. A finished game's come from its stored
    result (written when it ended); an unfinished one (or one ended by an older Trackside) is
    replayed from the log once per change of that game's log when a ``cache`` is given, else
    every time."""
    result = []
    last_seqs = store.last_seqs() if cache is not None else {}
    for record in reversed(store.games()):
        if record.ended_at is not None and record.result is not None:
            result.append(
                {
                    "id": record.id,
                    "game": record.game,
                    "players": list(record.players),
                    "started_at": record.started_at,
                    "ended_at": record.ended_at,
                    "end_reason": record.end_reason,
                    "totals": _mapping(record.result.get("totals")),
                    "winners": _listed(record.result.get("winners")),
                }
            )
            continue
        if cache is not None:
            cached = cache.get(record.id)
            last = last_seqs.get(record.id, 0)
            if (
                cached is not None
                and cached[0] == last
                and cached[1]["ended_at"] == (record.ended_at)
            ):
                result.append(dict(cached[1]))
                continue
        summary: dict[str, Any] = {
            "id": record.id,
            "game": record.game,
            "players": list(record.players),
            "started_at": record.started_at,
            "ended_at": record.ended_at,
            "end_reason": record.end_reason,
        }
        try:
            session = _replay(store, record.id)
            sheet = session.game.score(session.state)
            summary["totals"] = {p.name: p.total for p in sheet.players}
            summary["winners"] = list(sheet.winners)
        except TracksideError as exc:
            summary["error"] = str(exc)
        if cache is not None:
            cache[record.id] = (last_seqs.get(record.id, 0), summary)
        result.append(dict(summary))
    return result


def _public_entry(entry: LogEntry, hidden: frozenset[str]) -> JsonObject:
    """A log entry as the record shows it: its actions of the ``hidden`` kinds redacted."""
    return {
        "seq": entry.seq,
        "by": entry.by,
        "wall_time_s": entry.wall_time_s,
        **redact_event(event_to_json(entry.event), hidden),
    }


def log_page(
    store: EventStore, game_id: int, *, revealed: bool, limit: int, before_seq: int | None = None
) -> JsonObject:
    """One page of a game's log, newest first: the entries the JSON export lists (redacted the
    same way until ``revealed``), at most ``limit`` of them below ``before_seq``, with the
    players' names and whether older entries remain. Read straight from the log, with no
    replay, so the table page costs the same at the last turn of a long game as at the first."""
    record = store.game(game_id)
    hidden = frozenset() if revealed else private_actions(find_game(record.game))
    entries = store.newest_entries(game_id, limit + 1, before_seq)
    return {
        "game": record.game,
        "players": [{"name": name} for name in record.players],
        "events": [_public_entry(e, hidden) for e in entries[:limit]],
        "more": len(entries) > limit,
    }


def export_game(
    store: EventStore,
    game_id: int,
    fmt: str,
    translations: gettext.NullTranslations | None = None,
) -> tuple[str, str]:
    """(mimetype, body) of one game's record. JSON: players, every log entry, the final table
    snapshot and score sheet. CSV: the score sheet, one row per line of each player.

    Until the game is over by its rules the record is what others at the table may see: the
    game's public snapshot, and private actions (a secret trade) without their arguments,
    marked ``"private": true`` (companion.core.privacy); afterwards, everything. An abandoned
    game is not over (``reopen_game`` takes it up again): its record stays redacted."""
    record = store.game(game_id)
    session = _replay(store, game_id)
    game = session.game
    sheet = game.score(session.state)
    revealed = bool(game.is_over(session.state))
    hidden = frozenset() if revealed else private_actions(game)
    view = game.to_json if revealed else getattr(game, "public_json", game.to_json)
    if fmt == "json":
        data = {
            "trackside_export": 1,
            "game_id": record.id,
            "game": record.game,
            "title": game.title,
            "started_at": record.started_at,
            "ended_at": record.ended_at,
            "end_reason": record.end_reason,
            "players": [p.to_json() for p in session.started.players],
            "events": [_public_entry(e, hidden) for e in session.entries],
            "snapshot": view(session.state),
            "score": sheet.to_json(),
            # what every screen showed (companion.core.public): history draws the sheet from it
            "view": game.public_view(session.state).to_json(),
        }
        return "application/json", json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        # the columns are ids other tools read (shared/contracts/interfaces.md); the category's
        # name and the note are words for people, in the reader's language
        writer.writerow(["game_id", "game", "player", "category", "points", "note", "label"])
        for player in sheet.players:
            for line in player.lines:
                row = [
                    record.id,
                    record.game,
                    player.name,
                    line.category,
                    line.points,
                    render_text(line.note, translations),
                    render_text(line.label, translations) if line.label is not None else "",
                ]
                writer.writerow([csv_cell(cell) for cell in row])
            total = [
                record.id,
                record.game,
                player.name,
                "total",
                player.total,
                "",
                render_text(msg("Total", context="score sheet"), translations),
            ]
            writer.writerow([csv_cell(cell) for cell in total])
        return "text/csv", out.getvalue()
    raise TracksideError(f"unknown export format {fmt!r}; use json or csv")
