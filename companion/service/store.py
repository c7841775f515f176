"""The event store: one SQLite file, WAL mode, ``synchronous=FULL``.

Tables: ``games``; the append-only ``events`` log of each game; the raw ``inputs`` log (every
observation as it arrived, whatever became of it) with its ``outcomes``; the ``tags`` registry.
Nothing is ever updated or deleted except a game's ``ended_at`` mark (derivable from its log,
kept for fast listing). A write is committed (and so durable) before the engine acknowledges it.

The file is identified by ``PRAGMA application_id``; a foreign or damaged file is refused
before anything is written, and so is a file from a newer schema.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.core.errors import (
    CorruptDatabaseError,
    EnrolmentError,
    SchemaTooNewError,
    StoreError,
)
from companion.core.events import (
    GameEnded,
    GameReopened,
    LogEntry,
    event_from_json,
    event_to_json,
    event_type,
)
from companion.core.ids import GameId
from companion.core.jsonvalue import JsonObject, dumps
from companion.core.observation import Observation

log = logging.getLogger(__name__)

APPLICATION_ID = 0x54524B53  # "TRKS"
SCHEMA_VERSION = 3

MAX_STORED_PAYLOAD = 16 * 1024
"""An input's payload is kept whole up to this many bytes of JSON; a larger one (a 2 MB "uid"
from a stranger on the broker) is kept as its size and first ``STORED_PREFIX`` characters, so a
flood cannot grow the database by megabytes per message."""
STORED_PREFIX = 256
MAX_STORED_MESSAGE = 1000


def capped_text(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


def capped_payload(payload: JsonObject) -> str:
    """The payload's JSON as stored: whole, or (too large) ``{"truncated": true, …}``."""
    whole = dumps(payload)
    if len(whole) <= MAX_STORED_PAYLOAD:
        return whole
    return dumps({"truncated": True, "bytes": len(whole), "prefix": whole[:STORED_PREFIX]})


# Migration n takes the schema from version n to n + 1 (index 0: empty file → 1).
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE games (
        id          INTEGER PRIMARY KEY,
        game        TEXT NOT NULL,
        players     TEXT NOT NULL,
        started_at  REAL NOT NULL,
        ended_at    REAL,
        end_reason  TEXT
    );
    CREATE TABLE inputs (
        id          INTEGER PRIMARY KEY,
        source      TEXT NOT NULL,
        kind        TEXT NOT NULL,
        seat        INTEGER,
        payload     TEXT NOT NULL,
        ref         TEXT NOT NULL DEFAULT '',
        monotonic_s REAL NOT NULL,
        wall_time_s REAL NOT NULL
    );
    CREATE INDEX inputs_ref ON inputs(ref);
    CREATE TABLE events (
        game_id     INTEGER NOT NULL REFERENCES games(id),
        seq         INTEGER NOT NULL,
        type        TEXT NOT NULL,
        body        TEXT NOT NULL,
        by          TEXT NOT NULL,
        wall_time_s REAL NOT NULL,
        input_id    INTEGER REFERENCES inputs(id),
        PRIMARY KEY (game_id, seq)
    ) WITHOUT ROWID;
    CREATE TABLE outcomes (
        input_id    INTEGER PRIMARY KEY REFERENCES inputs(id),
        outcome     TEXT NOT NULL,
        message     TEXT NOT NULL,
        game_id     INTEGER,
        seq         INTEGER
    );
    CREATE TABLE tags (
        uid         TEXT PRIMARY KEY,
        game        TEXT NOT NULL,
        component   TEXT NOT NULL,
        enrolled_at REAL NOT NULL
    );
    """,
    # 2: setup options saved from the table page (e.g. the Mini Express board table), used as
    # defaults when that game starts; each player's own PIN (hashed) for their private view.
    """
    CREATE TABLE game_defaults (
        game        TEXT PRIMARY KEY,
        options     TEXT NOT NULL,
        saved_at    REAL NOT NULL,
        input_id    INTEGER REFERENCES inputs(id)
    );
    CREATE TABLE player_pins (
        game_id     INTEGER NOT NULL REFERENCES games(id),
        player      INTEGER NOT NULL,
        pin_hash    TEXT NOT NULL,
        set_at      REAL NOT NULL,
        PRIMARY KEY (game_id, player)
    ) WITHOUT ROWID;
    """,
    # 3: a finished game's result (totals, winners, score sheet, final table), written with its
    # game_ended event, so the history pages read it instead of replaying every game
    """
    ALTER TABLE games ADD COLUMN result TEXT;
    """,
)


@dataclass(frozen=True, slots=True)
class GameRecord:
    id: GameId
    game: str
    players: tuple[str, ...]
    started_at: float
    ended_at: float | None
    end_reason: str | None
    result: JsonObject | None = None
    """What the game ended with (``{"totals", "winners", "sheet", "table"}``), stored with its
    ``game_ended`` event; ``None`` for an unfinished game or one ended by an older Trackside."""


def _result(text: str | None) -> JsonObject | None:
    if text is None:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None  # a damaged result is replayed from the log instead
    return value if isinstance(value, dict) else None


@dataclass(frozen=True, slots=True)
class TagBinding:
    uid: str
    game: str
    component: str


@dataclass(frozen=True, slots=True)
class InputOutcome:
    """What became of one input: ``applied`` (an event), ``prompt``, ``rejected`` or
    ``logged`` (kept, nothing to do)."""

    outcome: str
    message: str = ""
    game_id: GameId | None = None
    seq: int | None = None
    text: JsonObject | None = None
    """The message for readers (a message's JSON: each screen renders it in its language);
    ``message`` is its English text, the one stored."""
    reply: JsonObject | None = None
    """What only the sender hears (a seat code the table asked for): never stored, never in
    the screens' recent list."""


class EventStore:
    """One connection, used by one thread at a time (the engine's). Readers elsewhere (the web
    history pages, ``trackside export``) open their own with :meth:`open_readonly`."""

    def __init__(self, path: Path | str, *, readonly: bool = False) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._conn = self._open(readonly)

    # -- opening ---------------------------------------------------------------------------
    def _open(self, readonly: bool) -> sqlite3.Connection:
        if readonly or self.path.exists():
            if not self.path.is_file():
                raise CorruptDatabaseError(f"{self.path}: not a database file")
        else:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(f"{self.path}: cannot create its folder: {exc}") from None
        if not readonly:
            self._check_writable()
        uri = f"file:{self.path}?mode=ro" if readonly else f"file:{self.path}?mode=rwc"
        try:
            conn = sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None)
            app_id = conn.execute("PRAGMA application_id").fetchone()[0]
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        except sqlite3.DatabaseError as exc:
            raise CorruptDatabaseError(f"{self.path}: not a Trackside database ({exc})") from None
        if app_id != APPLICATION_ID and (app_id != 0 or tables != 0):
            conn.close()
            raise CorruptDatabaseError(
                f"{self.path}: not a Trackside database (application_id {app_id:#x}, "
                f"{tables} foreign tables); refusing to touch it"
            )
        if version > SCHEMA_VERSION:
            conn.close()
            raise SchemaTooNewError(
                f"{self.path}: written by a newer Trackside (schema {version}, this one knows "
                f"{SCHEMA_VERSION}); upgrade Trackside, the file is left as it is"
            )
        if readonly:
            if version < SCHEMA_VERSION:
                conn.close()
                raise StoreError(
                    f"{self.path}: schema {version} needs a migration; run the service once"
                )
            return conn
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute("PRAGMA busy_timeout=5000")
            if conn.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                raise CorruptDatabaseError(f"{self.path}: integrity check failed")
            self._migrate(conn, version)
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise CorruptDatabaseError(f"{self.path}: {exc}") from None
        return conn

    def _check_writable(self) -> None:
        """A read-only file or folder (permissions, an SD card the kernel remounted read-only)
        is said as such, not as a broken database: SQLite would only say it cannot open it."""
        for where in (self.path, self.path.parent):
            if where.exists() and not os.access(where, os.W_OK):
                raise StoreError(
                    f"{where}: read-only; Trackside must write its database "
                    f"{'file' if where == self.path else 'folder'} (check the disk, its owner "
                    "and permissions)"
                )

    @staticmethod
    def _migrate(conn: sqlite3.Connection, version: int) -> None:
        for target in range(version, SCHEMA_VERSION):
            conn.execute("BEGIN IMMEDIATE")
            try:
                for statement in MIGRATIONS[target].split(";"):
                    if statement.strip():
                        conn.execute(statement)
                conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
                conn.execute(f"PRAGMA user_version={target + 1}")
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise

    @classmethod
    def open_readonly(cls, path: Path | str) -> EventStore:
        if not Path(path).exists():
            raise StoreError(f"{path}: no database here")
        return cls(path, readonly=True)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One transaction; any SQLite failure (full disk, read-only file) becomes a
        :class:`StoreError` and nothing of the transaction remains."""
        with self._lock:
            try:
                self._conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise self._failed("write", exc) from None
            try:
                yield self._conn
                self._conn.execute("COMMIT")
            except sqlite3.Error as exc:
                with suppress(sqlite3.Error):
                    self._conn.execute("ROLLBACK")
                raise self._failed("write", exc) from None
            except BaseException:
                with suppress(sqlite3.Error):
                    self._conn.execute("ROLLBACK")
                raise

    def _read(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        with self._lock:
            try:
                return self._conn.execute(sql, args).fetchall()
            except sqlite3.Error as exc:
                raise self._failed("read", exc) from None

    def _failed(self, what: str, exc: sqlite3.Error) -> StoreError:
        """A failure while running: its path in the log only. The message goes where people
        read it (the scoreboard's alarm, an answer, MQTT), which is no place for where this
        machine keeps its files."""
        log.error("database %s: %s failed: %s", self.path, what, exc)
        return StoreError(f"database {what} failed: {exc}")

    # -- writing ---------------------------------------------------------------------------
    def record(
        self,
        observation: Observation,
        outcome: InputOutcome,
        *,
        new_game: tuple[str, tuple[str, ...]] | None = None,
        entry: LogEntry | None = None,
        enrol: TagBinding | None = None,
        defaults: tuple[str, JsonObject] | None = None,
        player_pin: tuple[GameId, int, str | None] | None = None,
        unenrol: str | None = None,
        result: JsonObject | None = None,
    ) -> tuple[int, GameId | None]:
        """Append an input, what became of it, and the event it caused (if any) in one
        transaction. ``new_game`` (game id, player names) creates the game row first; the
        entry then belongs to it; ``enrol`` binds a tag; ``defaults`` (game, options) replaces
        the game's saved setup options; ``player_pin`` (game id, player, hash or ``None`` to
        clear) sets a player's private-view PIN. Returns (input id, game id)."""
        with self._write() as conn:
            cur = conn.execute(
                "INSERT INTO inputs (source, kind, seat, payload, ref, monotonic_s, wall_time_s)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    observation.source,
                    observation.kind.value,
                    observation.seat,
                    capped_payload(observation.payload),
                    observation.ref,
                    observation.monotonic_s,
                    observation.wall_time_s,
                ),
            )
            input_id = int(cur.lastrowid or 0)
            game_id = outcome.game_id
            if new_game is not None:
                cur = conn.execute(
                    "INSERT INTO games (game, players, started_at) VALUES (?, ?, ?)",
                    (new_game[0], json.dumps(list(new_game[1])), observation.wall_time_s),
                )
                game_id = GameId(int(cur.lastrowid or 0))
            if entry is not None:
                if game_id is None:
                    raise StoreError("an event needs a game")
                conn.execute(
                    "INSERT INTO events (game_id, seq, type, body, by, wall_time_s, input_id)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        game_id,
                        entry.seq,
                        event_type(entry.event),
                        dumps(event_to_json(entry.event)),
                        entry.by,
                        entry.wall_time_s,
                        input_id,
                    ),
                )
                if isinstance(entry.event, GameEnded):
                    conn.execute(
                        "UPDATE games SET ended_at = ?, end_reason = ?, result = ? WHERE id = ?",
                        (
                            entry.wall_time_s,
                            entry.event.reason,
                            None if result is None else dumps(result),
                            game_id,
                        ),
                    )
                elif isinstance(entry.event, GameReopened):
                    # the ended_at mark is derived from the log: a reopened game is unfinished
                    conn.execute(
                        "UPDATE games SET ended_at = NULL, end_reason = NULL, result = NULL"
                        " WHERE id = ?",
                        (game_id,),
                    )
            if enrol is not None:
                self._insert_tag(conn, enrol)
            if unenrol is not None:  # the input row above keeps who removed it and why
                conn.execute("DELETE FROM tags WHERE uid = ?", (unenrol,))
            if defaults is not None:
                conn.execute(
                    "INSERT OR REPLACE INTO game_defaults (game, options, saved_at, input_id)"
                    " VALUES (?, ?, ?, ?)",
                    (defaults[0], dumps(defaults[1]), observation.wall_time_s, input_id),
                )
            if player_pin is not None:
                pin_game, player, pin_hash = player_pin
                if pin_hash is None:
                    conn.execute(
                        "DELETE FROM player_pins WHERE game_id = ? AND player = ?",
                        (pin_game, player),
                    )
                else:
                    conn.execute(
                        "INSERT OR REPLACE INTO player_pins (game_id, player, pin_hash, set_at)"
                        " VALUES (?, ?, ?, ?)",
                        (pin_game, player, pin_hash, observation.wall_time_s),
                    )
            conn.execute(
                "INSERT INTO outcomes (input_id, outcome, message, game_id, seq)"
                " VALUES (?, ?, ?, ?, ?)",
                (
                    input_id,
                    outcome.outcome,
                    capped_text(outcome.message, MAX_STORED_MESSAGE),
                    game_id,
                    entry.seq if entry else outcome.seq,
                ),
            )
            return input_id, game_id

    def enrol(self, uid: str, game: str, component: str) -> TagBinding:
        """Bind a tag uid (or barcode text) to a component; a uid bound already is refused
        with both bindings named."""
        binding = TagBinding(uid, game, component)
        with self._write() as conn:
            self._insert_tag(conn, binding)
        return binding

    def enrol_many(self, bindings: Sequence[TagBinding]) -> int:
        """Bind many tags in one transaction: all or nothing. A uid bound already to the same
        component is left as it is; one bound to anything else is refused (both bindings
        named) and nothing is written. Returns how many bindings were new."""
        added = 0
        with self._write() as conn:
            for binding in bindings:
                row = conn.execute(
                    "SELECT game, component FROM tags WHERE uid = ?", (binding.uid,)
                ).fetchone()
                if row is not None and (row[0], row[1]) == (binding.game, binding.component):
                    continue
                self._insert_tag(conn, binding)
                added += 1
        return added

    def _insert_tag(self, conn: sqlite3.Connection, binding: TagBinding) -> None:
        existing = conn.execute(
            "SELECT game, component FROM tags WHERE uid = ?", (binding.uid,)
        ).fetchone()
        if existing is not None:
            raise EnrolmentError(
                f"tag {binding.uid!r} is already enrolled as {existing[0]} {existing[1]!r}; "
                f"refusing to bind it to {binding.game} {binding.component!r} as well"
            )
        conn.execute(
            "INSERT INTO tags (uid, game, component, enrolled_at) VALUES (?, ?, ?, ?)",
            (binding.uid, binding.game, binding.component, time.time()),
        )

    # -- reading ---------------------------------------------------------------------------
    def tag(self, uid: str) -> TagBinding | None:
        rows = self._read("SELECT uid, game, component FROM tags WHERE uid = ?", (uid,))
        return TagBinding(*rows[0]) if rows else None

    def tags(self) -> list[TagBinding]:
        return [
            TagBinding(*r) for r in self._read("SELECT uid, game, component FROM tags ORDER BY uid")
        ]

    def game_defaults(self, game: str) -> JsonObject:
        """The setup options saved for ``game`` from the table page (``{}`` when none)."""
        rows = self._read("SELECT options FROM game_defaults WHERE game = ?", (game,))
        if not rows:
            return {}
        options = json.loads(rows[0][0])
        return options if isinstance(options, dict) else {}

    def player_pin_hash(self, game_id: int, player: int) -> str | None:
        """The stored hash of a player's private-view PIN for one game (``None``: not set)."""
        rows = self._read(
            "SELECT pin_hash FROM player_pins WHERE game_id = ? AND player = ?", (game_id, player)
        )
        return str(rows[0][0]) if rows else None

    def games(self) -> list[GameRecord]:
        rows = self._read(
            "SELECT id, game, players, started_at, ended_at, end_reason, result FROM games"
            " ORDER BY id"
        )
        return [
            GameRecord(GameId(r[0]), r[1], tuple(json.loads(r[2])), r[3], r[4], r[5], _result(r[6]))
            for r in rows
        ]

    def last_seqs(self) -> dict[int, int]:
        """Each game's last log seq (one query: how the history page knows what changed)."""
        rows = self._read("SELECT game_id, MAX(seq) FROM events GROUP BY game_id")
        return {int(g): int(s) for g, s in rows}

    def game_version(self, game_id: int) -> int | None:
        """The game's last log seq (0 before its first entry); None when there is no such game.
        The log is only appended to, so a game's record is the same while this is."""
        if not 0 < game_id < 2**63:  # no row has it (and SQLite holds no bigger number)
            return None
        rows = self._read(
            "SELECT (SELECT MAX(seq) FROM events WHERE game_id = games.id) FROM games WHERE id = ?",
            (game_id,),
        )
        return None if not rows else int(rows[0][0] or 0)

    def game(self, game_id: int) -> GameRecord:
        for record in self.games():
            if record.id == game_id:
                return record
        raise StoreError(f"no game {game_id}")

    def unfinished_games(self) -> list[GameRecord]:
        return [g for g in self.games() if g.ended_at is None]

    def entries(self, game_id: int) -> list[LogEntry]:
        rows = self._read(
            "SELECT seq, body, by, wall_time_s FROM events WHERE game_id = ? ORDER BY seq",
            (game_id,),
        )
        return [
            LogEntry(seq, event_from_json(json.loads(body), f"events[{game_id}:{seq}]"), by, wall)
            for seq, body, by, wall in rows
        ]

    def newest_entries(
        self, game_id: int, limit: int, before_seq: int | None = None
    ) -> list[LogEntry]:
        """At most ``limit`` of a game's log entries with ``seq`` below ``before_seq`` (from the
        end when ``None``), newest first: a page of the log costs the same at the last turn of
        a long game as at the first (the primary key's index, no replay)."""
        rows = self._read(
            "SELECT seq, body, by, wall_time_s FROM events WHERE game_id = ? AND seq < ?"
            " ORDER BY seq DESC LIMIT ?",
            (game_id, before_seq if before_seq is not None else 2**62, max(0, limit)),
        )
        return [
            LogEntry(seq, event_from_json(json.loads(body), f"events[{game_id}:{seq}]"), by, wall)
            for seq, body, by, wall in rows
        ]

    def last_ref_index(self, prefix: str) -> int:
        """The highest ``N`` among inputs whose ref is ``prefix#N`` (-1 when none): where a
        replay resumes after a restart."""
        rows = self._read(
            "SELECT ref FROM inputs WHERE ref LIKE ? ESCAPE '\\'",
            (prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "#%",),
        )
        indexes = [int(r[0].rsplit("#", 1)[1]) for r in rows if r[0].rsplit("#", 1)[1].isdigit()]
        return max(indexes, default=-1)

    def inputs(self, limit: int = 100) -> list[dict[str, Any]]:
        """The most recent raw inputs with their outcomes, newest first."""
        rows = self._read(
            "SELECT i.id, i.source, i.kind, i.seat, i.payload, i.ref, i.wall_time_s,"
            " o.outcome, o.message, o.game_id, o.seq FROM inputs i"
            " LEFT JOIN outcomes o ON o.input_id = i.id ORDER BY i.id DESC LIMIT ?",
            (limit,),
        )
        keys = (
            "id",
            "source",
            "kind",
            "seat",
            "payload",
            "ref",
            "wall_time_s",
            "outcome",
            "message",
            "game_id",
            "seq",
        )
        result = []
        for row in rows:
            item = dict(zip(keys, row, strict=True))
            item["payload"] = json.loads(item["payload"])
            result.append(item)
        return result
