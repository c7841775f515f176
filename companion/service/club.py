"""The table's side of the club hub (docs/hub.md): answers the hub's resend requests from the
event log, the table's truth.

A request (``trackside/<table>/request``, JSON, bounded by the MQTT bridge before it gets
here) asks for ``{"since": {"game_id": G, "seq": S}, "results_from": R}``; the answer is one
or more messages on ``trackside/<table>/resend``:

    {"schema": 1, "request_id": "…", "db": "<database identity>", "part": n, "done": bool,
     "last_game": N, "open_games": [N…],                      # the newest game; not ended yet
     "events": [{"seq": N, "event": {"game_id": G, …}}…],   # after (G, S), in log order
     "results": [{"game_id": N, "game": "…", "ended_at": T, "players": [{"name", "total"}],
                  "winners": ["…"]}…]}                       # finished games with id ≥ R

Only what the table already shows everyone: events as MQTT publishes them (a private action
without its arguments until its game is over), and the final scores of finished games (the
same replay and score sheet as ``trackside export``).

The database identity is derived from the first game ever recorded in the file (its start
time, game and players), so a new database file (another SD card, a reset) has another
identity and the hub re-synchronises instead of mixing two logs; a result is keyed by
(table, identity, game id) and so is never counted twice.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from companion.core.errors import ConfigError, TracksideError
from companion.core.events import event_to_json
from companion.core.privacy import private_actions, redact_event
from companion.core.session import TableSession
from companion.games import find_game
from companion.service.config import Settings, load_settings
from companion.service.store import EventStore

log = logging.getLogger(__name__)

REPLY_SCHEMA = 1
EVENTS_PER_PART = 200
RESULTS_PER_PART = 50
MAX_EVENTS_PER_REQUEST = 5000
MAX_RESULTS_PER_REQUEST = 500
EMPTY_IDENTITY = "empty"


def database_identity(store: EventStore) -> str:
    """A short, stable name for this database file: from its first game (never changes once
    written); ``empty`` while it has none."""
    games = store.games()
    if not games:
        return EMPTY_IDENTITY
    first = games[0]
    seed = json.dumps([first.started_at, first.game, list(first.players)], ensure_ascii=False)
    return hashlib.sha256(seed.encode()).hexdigest()[:16]


class DatabaseIdentity:
    """:func:`database_identity`, remembered once the first game is there (it never changes
    after that), so each published event costs nothing."""

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self._known: str | None = None

    def __call__(self) -> str:
        if self._known is None:
            identity = database_identity(self.store)
            if identity == EMPTY_IDENTITY:
                return identity
            self._known = identity
        return self._known


def finished_result(store: EventStore, game_id: int) -> dict[str, Any] | None:
    """A finished game's result (``None`` for a game not ended as finished): the final score
    sheet replayed from the log, exactly as the export computes it."""
    record = store.game(game_id)
    if record.ended_at is None or record.end_reason != "finished":
        return None
    session = TableSession.replay(find_game(record.game), store.entries(game_id))
    sheet = session.game.score(session.state)
    return {
        "game_id": record.id,
        "game": record.game,
        "started_at": record.started_at,
        "ended_at": record.ended_at,
        "players": [{"name": p.name, "total": p.total} for p in sheet.players],
        "winners": list(sheet.winners),
    }


def _int(value: object, lo: int = 0) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or value < lo:
        return None
    return value


def answer_request(store: EventStore, request: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The reply messages to one resend request. A malformed request gets one reply with an
    ``error`` naming the field (the hub logs it), never an exception."""
    request_id = request.get("request_id")
    rid = request_id if isinstance(request_id, str) and len(request_id) <= 64 else ""
    base: dict[str, Any] = {"schema": REPLY_SCHEMA, "request_id": rid}
    since = request.get("since", {"game_id": 0, "seq": 0})
    if not isinstance(since, Mapping):
        return [{**base, "done": True, "error": "since: expected an object"}]
    since_game = _int(since.get("game_id", 0))
    since_seq = _int(since.get("seq", 0))
    results_from = _int(request.get("results_from", 1))
    if since_game is None or since_seq is None:
        return [{**base, "done": True, "error": "since: game_id and seq must be whole numbers ≥ 0"}]
    if results_from is None:
        return [{**base, "done": True, "error": "results_from: must be a whole number ≥ 0"}]
    base["db"] = database_identity(store)
    games = store.games()
    # which games may still get a result: the hub stops asking for the others (abandoned)
    base["last_game"] = games[-1].id if games else 0
    base["open_games"] = [g.id for g in games if g.ended_at is None][-100:]

    events: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    for record in games:
        if record.id < since_game and record.id < results_from:
            continue
        if record.id >= since_game and len(events) < MAX_EVENTS_PER_REQUEST:
            entries = store.entries(record.id)
            try:
                game = find_game(record.game)
                session = TableSession.replay(game, entries)
            except TracksideError as exc:  # a broken log: nothing of it leaves the table
                log.warning("club: game %s cannot be replayed: %s", record.id, exc)
                entries = []
            else:
                revealed = session.is_ended or bool(game.is_over(session.state))
                hidden = frozenset() if revealed else private_actions(game)
            for entry in entries:
                if record.id == since_game and entry.seq <= since_seq:
                    continue
                body = redact_event(event_to_json(entry.event), hidden)
                events.append({"seq": entry.seq, "event": {"game_id": record.id, **body}})
                if len(events) >= MAX_EVENTS_PER_REQUEST:
                    break
        if record.id >= results_from and len(results) < MAX_RESULTS_PER_REQUEST:
            try:
                result = finished_result(store, record.id)
            except TracksideError as exc:
                log.warning("club: game %s has no result: %s", record.id, exc)
                result = None
            if result is not None:
                results.append(result)

    parts: list[dict[str, Any]] = []
    while True:
        chunk, events = events[:EVENTS_PER_PART], events[EVENTS_PER_PART:]
        rchunk, results = results[:RESULTS_PER_PART], results[RESULTS_PER_PART:]
        parts.append({**base, "part": len(parts), "events": chunk, "results": rchunk})
        if not events and not results:
            break
    for index, part in enumerate(parts):
        part["done"] = index == len(parts) - 1
    return parts


class ClubResponder:
    """What the MQTT bridge calls (on its request worker) for each request: opens the
    database read-only, answers, closes. Never raises."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __call__(self, request: Mapping[str, Any]) -> list[dict[str, Any]]:
        try:
            store = EventStore.open_readonly(self.path)
        except TracksideError as exc:
            log.warning("club: cannot answer the hub's request: %s", exc)
            return [{"schema": REPLY_SCHEMA, "done": True, "error": f"database: {exc}"}]
        try:
            return answer_request(store, request)
        except TracksideError as exc:
            log.warning("club: cannot answer the hub's request: %s", exc)
            return [{"schema": REPLY_SCHEMA, "done": True, "error": f"database: {exc}"}]
        finally:
            store.close()


def bridge_config(settings: Settings, template: str) -> str:
    """The Mosquitto bridge for this table (``hardware/deploy/mosquitto-club-bridge.conf``
    filled in from ``[club]`` and ``[mqtt] table_id``). Raises ConfigError without them."""
    if settings.club is None or settings.mqtt is None:
        raise ConfigError("club", "no [club] section (and [mqtt]) in the config")
    club = settings.club
    table = settings.mqtt.table_id
    credentials = ""
    if club.username is not None:
        credentials = f"remote_username {club.username}"
        if club.password is not None:
            credentials += f"\nremote_password {club.password}"
    tls = ""
    if club.tls:
        tls = f"bridge_cafile {club.ca_file}" if club.ca_file else "bridge_capath /etc/ssl/certs"
    for value, what in (
        (club.host, "host"),
        (club.username or "", "username"),
        (club.password or "", "password"),
        (club.ca_file or "", "ca_file"),
    ):
        if any(ch in value for ch in "\n\r"):
            raise ConfigError(f"club.{what}", "must be one line")
    text = (
        template.replace("@TABLE@", table)
        .replace("@ADDRESS@", f"{club.host}:{club.port}")
        .replace("@CREDENTIALS@", credentials)
        .replace("@TLS@", tls)
    )
    return "\n".join(line for line in text.splitlines() if line.strip() or not line) + "\n"


def main(argv: list[str] | None = None) -> int:
    """``python -m companion.service.club bridge-config CONFIG TEMPLATE``: print the bridge
    for the installer; exit 3 (printing nothing) when the config has no [club] section."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 3 or args[0] != "bridge-config":
        print(
            "usage: python -m companion.service.club bridge-config CONFIG TEMPLATE", file=sys.stderr
        )
        return 2
    try:
        settings = load_settings(Path(args[1]))
        if settings.club is None:
            return 3
        sys.stdout.write(bridge_config(settings, Path(args[2]).read_text(encoding="utf-8")))
    except (ConfigError, OSError) as exc:
        print(f"trackside: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
