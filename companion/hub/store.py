"""The hub's own SQLite file: every finished game's result, once.

A result's key is (table, the table's database identity, the table's game id): a replayed
message, a resend, a restart of the hub or of a table never adds it twice; a table on a new
database file (another identity) starts a new series of game ids.
"""

from __future__ import annotations

import json
import logging
import math
import secrets
import sqlite3
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from companion.hub.league import identify

SCHEMA = """
CREATE TABLE IF NOT EXISTS results (
    table_id    TEXT NOT NULL,
    db          TEXT NOT NULL,
    game_id     INTEGER NOT NULL,
    game        TEXT NOT NULL,
    started_at  REAL,
    ended_at    REAL NOT NULL,
    players     TEXT NOT NULL,
    winners     TEXT NOT NULL,
    received_at REAL NOT NULL,
    PRIMARY KEY (table_id, db, game_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS results_ended ON results(ended_at);
CREATE TABLE IF NOT EXISTS players (
    code        TEXT PRIMARY KEY,
    key         TEXT NOT NULL UNIQUE,
    name        TEXT NOT NULL,
    issued_at   REAL NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (
    key         TEXT PRIMARY KEY,
    value       TEXT NOT NULL
) WITHOUT ROWID;
"""
log = logging.getLogger(__name__)

EARLIEST = 1_577_836_800.0
"""2020-01-01 UTC: no Trackside game ended before; a time before it is a table's unset clock."""
CLOCK_AHEAD_S = 3600.0
"""A table's clock may run this far ahead of the hub's; a result dated later is refused (it
would count as "tonight" for as long as it is ahead)."""
MAX_PLAYERS = 12
MAX_NAME = 64
MAX_PLAYER_CODES = 5000
"""Codes the hub issues at most (a club's players over years); past it, new names get none."""
CODE_ALPHABET = "ACDEFHJKMNPRTUVWXY34679"  # no 0/O, 1/I/L, 2/Z, 5/S, 8/B: read off a screen
CODE_LENGTH = 4


class ResultError(ValueError):
    """A result message that cannot be stored: names the field."""


def check_time(value: object, now: float) -> str | None:
    """Why ``value`` is not a sane time at a table (seconds since 1970, by the hub's clock
    ``now``), or None: a finite number from 2020 on, at most an hour ahead of the hub."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return f"{value!r} is not a time"
    if not math.isfinite(value):
        return f"{value!r} is not a time"
    if value < EARLIEST:
        return f"{value!r} is before 2020 (the table's clock is not set)"
    if value > now + CLOCK_AHEAD_S:
        ahead = (value - now) / 3600
        return f"{value!r} is {ahead:.0f} h ahead of the hub's clock"
    return None


def check_result(result: Mapping[str, Any], now: float | None = None) -> dict[str, Any]:
    """The fields the hub keeps, checked (a table's reply is input like any other); ``now``
    is the hub's clock (times must be within a sane window of it)."""
    now = time.time() if now is None else now

    def fail(field: str, why: str) -> ResultError:
        return ResultError(f"results[].{field}: {why}")

    game_id = result.get("game_id")
    if isinstance(game_id, bool) or not isinstance(game_id, int) or not 1 <= game_id < 2**31:
        raise fail("game_id", f"{game_id!r} is not a game number")
    game = result.get("game")
    if not isinstance(game, str) or not game or len(game) > 64:
        raise fail("game", f"{game!r} is not a game id")
    ended_at = result.get("ended_at")
    why = check_time(ended_at, now)
    if why is not None:
        raise fail("ended_at", why)
    assert isinstance(ended_at, int | float)
    started_at = result.get("started_at")
    if started_at is not None:
        why = check_time(started_at, now)
        if why is not None:
            raise fail("started_at", why)
        assert isinstance(started_at, int | float)
        if started_at > ended_at:
            raise fail("started_at", f"{started_at!r} is after ended_at {ended_at!r}")
    players = result.get("players")
    if not isinstance(players, list) or not 1 <= len(players) <= MAX_PLAYERS:
        raise fail("players", f"expected a list of 1–{MAX_PLAYERS} players")
    clean_players = []
    for p in players:
        name = p.get("name") if isinstance(p, Mapping) else None
        total = p.get("total") if isinstance(p, Mapping) else None
        if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME:
            raise fail("players[].name", f"{name!r} is not a player name")
        if isinstance(total, bool) or not isinstance(total, int) or not -(10**9) < total < 10**9:
            raise fail("players[].total", f"{total!r} is not a whole number")
        clean_players.append({"name": name, "total": total})
    winners = result.get("winners")
    names = {p["name"] for p in clean_players}
    if (
        not isinstance(winners, list)
        or len(winners) > MAX_PLAYERS
        or not all(isinstance(w, str) and w in names for w in winners)
    ):
        raise fail("winners", f"{winners!r} are not players of this game")
    return {
        "game_id": game_id,
        "game": game,
        "started_at": None if started_at is None else float(started_at),
        "ended_at": float(ended_at),
        "players": clean_players,
        "winners": list(winners),
    }


class HubStore:
    """One connection shared by the MQTT thread (writes) and the web threads (reads), under
    a lock; WAL, so a backup can read meanwhile."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._codes_full_logged = False
        self._conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=FULL")
        self._conn.execute("PRAGMA busy_timeout=5000")
        self._conn.executescript(SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def install_id(self) -> str:
        """A random name for this hub's install, made once and kept in its database: the
        hub's MQTT client id is ``trackside-hub-<it>``, so no other client (nor another hub)
        shares it by accident or can guess it to knock this hub off the broker."""
        with self._lock:
            self._conn.execute(
                "INSERT OR IGNORE INTO meta (key, value) VALUES ('install_id', ?)",
                (secrets.token_hex(8),),
            )
            row = self._conn.execute("SELECT value FROM meta WHERE key = 'install_id'").fetchone()
        return str(row[0])

    def add_result(
        self, table_id: str, db: str, result: Mapping[str, Any], now: float | None = None
    ) -> bool:
        """Store a checked result; False when it was already there (never twice)."""
        added, errors = self.add_results(table_id, db, [result], now)
        if errors:
            raise errors[0]
        return added == 1

    def add_results(
        self, table_id: str, db: str, results: Sequence[Mapping[str, Any]], now: float | None = None
    ) -> tuple[int, list[ResultError]]:
        """Store the checked results of one answer in one transaction (one disk sync however
        many players are new), each once; returns how many were new and what was refused."""
        now = time.time() if now is None else now
        checked: list[dict[str, Any]] = []
        errors: list[ResultError] = []
        for result in results:
            try:
                checked.append(check_result(result, now))
            except ResultError as exc:
                errors.append(exc)
        if not checked:
            return 0, errors
        added = 0
        with self._lock:
            codes = self._codes()
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                for r in checked:
                    cur = self._conn.execute(
                        "INSERT OR IGNORE INTO results (table_id, db, game_id, game, started_at,"
                        " ended_at, players, winners, received_at)"
                        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (
                            table_id,
                            db,
                            r["game_id"],
                            r["game"],
                            r["started_at"],
                            r["ended_at"],
                            json.dumps(r["players"], ensure_ascii=False),
                            json.dumps(r["winners"], ensure_ascii=False),
                            time.time(),
                        ),
                    )
                    if cur.rowcount == 1:
                        added += 1
                        self._issue([identify(p["name"], codes) for p in r["players"]])
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
        return added, errors

    def issue_codes(self, names: Sequence[tuple[str, str]]) -> None:
        """A player code for each (key, name) that has none yet (docs/hub.md, "Players")."""
        with self._lock:
            self._issue(names)

    def _issue(self, names: Sequence[tuple[str, str]]) -> None:
        for key, name in names:
            if self._conn.execute("SELECT 1 FROM players WHERE key = ?", (key,)).fetchone():
                continue
            (count,) = self._conn.execute("SELECT count(*) FROM players").fetchone()
            if count >= MAX_PLAYER_CODES:
                if not self._codes_full_logged:  # once, not per name
                    self._codes_full_logged = True
                    log.warning(
                        "hub: %d player codes issued, the most there are: new names get none",
                        count,
                    )
                return
            while True:
                code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
                cur = self._conn.execute(
                    "INSERT OR IGNORE INTO players (code, key, name, issued_at)"
                    " VALUES (?, ?, ?, ?)",
                    (code, key, name, time.time()),
                )
                if cur.rowcount == 1:
                    break

    def player_codes(self) -> dict[str, tuple[str, str]]:
        """code → (key, name) of every player the hub has issued a code to."""
        with self._lock:
            return self._codes()

    def _codes(self) -> dict[str, tuple[str, str]]:
        rows = self._conn.execute("SELECT code, key, name FROM players").fetchall()
        return {code: (key, name) for code, key, name in rows}

    def latest_db(self, table_id: str) -> str | None:
        """The database identity of the table's latest stored result."""
        with self._lock:
            row = self._conn.execute(
                "SELECT db FROM results WHERE table_id = ? ORDER BY received_at DESC LIMIT 1",
                (table_id,),
            ).fetchone()
        return None if row is None else str(row[0])

    def known_game_ids(self, table_id: str, db: str) -> set[int]:
        with self._lock:
            rows = self._conn.execute(
                "SELECT game_id FROM results WHERE table_id = ? AND db = ?", (table_id, db)
            ).fetchall()
        return {int(r[0]) for r in rows}

    def results(
        self,
        since: float | None = None,
        table_id: str | None = None,
        until: float | None = None,
    ) -> list[dict[str, Any]]:
        """Every result, oldest first (``since``: ended at or after; ``until``: before;
        ``table_id``: one table)."""
        sql = (
            "SELECT table_id, db, game_id, game, started_at, ended_at, players, winners"
            " FROM results WHERE ended_at >= ? AND ended_at < ?"
        )
        args: list[Any] = [
            since if since is not None else float("-inf"),
            until if until is not None else float("inf"),
        ]
        if table_id is not None:
            sql += " AND table_id = ?"
            args.append(table_id)
        sql += " ORDER BY ended_at, table_id, game_id"
        with self._lock:
            rows: Sequence[Any] = self._conn.execute(sql, args).fetchall()
        return [
            {
                "table_id": t,
                "db": db,
                "game_id": g,
                "game": game,
                "started_at": s,
                "ended_at": e,
                "players": json.loads(p),
                "winners": json.loads(w),
            }
            for t, db, g, game, s, e, p, w in rows
        ]
