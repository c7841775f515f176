"""What the hub knows about each table, built from the club broker's messages (docs/hub.md).

Pure of MQTT: :meth:`Hub.handle` takes one message (topic, payload bytes, retained, the time)
and returns the resend requests to publish; :meth:`Hub.tick` does the same for timeouts. The
MQTT client (``companion.hub.mqtt``) and the pages (``companion.hub.web``) share one ``Hub``
under its lock.

Sequence: each table's events carry the table's database identity (``db``), the game id and
the game's log sequence number; per game the hub keeps the last contiguous number. A gap
(a number skipped), a game first seen in the middle, or a state ahead of the events makes the
hub ask the table to resend (``trackside/<table>/request``); the answer
(``trackside/<table>/resend``) carries the missing events and the results of finished games.
A different ``db`` is a new database on that table: logged, and that table's view starts over.
Every bad message is logged with the table and the reason and changes nothing.
"""

from __future__ import annotations

import json
import logging
import math
import threading
import time
import uuid
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from companion.core.messages import is_message_json, render_text
from companion.core.swatches import SEAT_PALETTE
from companion.hub.store import MAX_NAME, MAX_PLAYERS, HubStore, check_time

log = logging.getLogger(__name__)

MAX_BYTES = {
    "status": 64,
    "state": 512 * 1024,
    "event": 64 * 1024,
    "resend": 512 * 1024,  # the table's own broker passes at most 256 KiB; the club's 512
}
TOPIC_KINDS = tuple(MAX_BYTES)
EMPTY_DATABASE = "empty"
"""A table's database identity before its first game (docs/hub.md)."""
REQUEST_TIMEOUT_S = 15.0
MAX_GAMES_PER_ANSWER = 10_000
GAMES_TRACKED = 200  # per table: the newest games' positions and waiting events
MAX_HELD = 2000  # events of one game waiting for a gap to be filled
STATE_AHEAD_GRACE_S = 3.0
EVENTS_KEPT = 300
GAMES_KEPT = 4
LAG_SAMPLES = 2000
MAX_TABLES = 500
REFUSAL_LOG_EVERY = 100
REFUSALS_LOGGED = 10  # per table; then every hundredth, so a flood cannot fill the log
EVENTS_PER_ANSWER = 200  # a table's answer holds at most 200 events and 50 results a part
RESULTS_PER_ANSWER = 50
MAX_TEXT = {"game": 64, "title": 120, "waiting_for": 200, "phase": 64}
SEAT_COLOURS = SEAT_PALETTE
"""The seat colours a table may name, and the shade the wall screen paints each (the names the
table's own pages know). Anything else is shown grey: nothing a table sends becomes CSS."""


class MessageError(ValueError):
    """A message the hub does not use: the reason names the field."""


def _no_constant(name: str) -> Any:
    raise MessageError(f"{name} is not a number")


def parse_json(payload: bytes) -> Any:
    """Strict JSON: no NaN or Infinity (they would poison a time or a total), and nesting
    too deep to parse is a refusal like any other, not a traceback."""
    try:
        return json.loads(payload.decode("utf-8"), parse_constant=_no_constant)
    except MessageError as exc:
        raise MessageError(f"not JSON: {exc}") from None
    except RecursionError:
        raise MessageError("not JSON: nested too deeply") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise MessageError(f"not JSON ({exc})") from None


def valid_table_id(name: str) -> bool:
    return 0 < len(name) <= 64 and all(ch.isalnum() or ch in "-_." for ch in name)


@dataclass
class Table:
    table_id: str
    online: bool | None = None
    last_seen: float = 0.0
    state: dict[str, Any] | None = None
    db: str | None = None
    positions: dict[int, int] = field(default_factory=dict)
    held: dict[int, dict[int, dict[str, Any]]] = field(default_factory=dict)
    events: dict[int, deque[dict[str, Any]]] = field(default_factory=dict)
    pending: dict[str, Any] | None = None
    pending_at: float = 0.0
    again: bool = False
    ahead_since: float | None = None
    last_sync: float = 0.0
    lag_s: deque[float] = field(default_factory=lambda: deque(maxlen=LAG_SAMPLES))
    games_seen: set[int] = field(default_factory=set)
    ended: set[int] = field(default_factory=set)
    no_result: set[int] = field(default_factory=set)
    """Games the table says ended without a result (abandoned)."""
    """Games seen ending (a ``game_ended`` event): their results are asked for until stored."""
    resets: int = 0
    messages: int = 0
    """Every message heard on the table's topics (the operator's clue to a rogue table)."""

    def view(self, now: float, quiet_after_s: float) -> dict[str, Any]:
        """The contract's ``/api/tables`` entry (docs/hub.md)."""
        s = self.state or {}
        status = s.get("status") if isinstance(s.get("status"), Mapping) else {}
        assert isinstance(status, Mapping)
        last = max(self.last_seen, _num(s.get("updated_at")))
        quiet = self.online is False or (last > 0 and now - last > quiet_after_s)
        players = [
            {"name": str(p.get("name", "")), "total": p.get("total"), "colour": p.get("colour")}
            for p in s.get("players") or []
            if isinstance(p, Mapping)
        ]
        active = status.get("active_players") or []
        names = [p["name"] for p in players]
        turn = [names[i] for i in active if isinstance(i, int) and 0 <= i < len(names)]
        return {
            "table_id": self.table_id,
            "online": self.online is not False,
            "quiet": quiet,
            "last_seen_s": round(now - last, 1) if last > 0 else None,
            "game": s.get("game"),
            "title": s.get("title") or "",
            "game_id": s.get("game_id"),
            "seq": s.get("seq", 0),
            "over": bool(s.get("over")),
            "round": status.get("round"),
            "players": players,
            "winners": [w for w in s.get("winners") or [] if isinstance(w, str)],
            "turn": turn,
            "waiting_for": status.get("waiting_for") or "",
            "db": self.db,
        }


def _behind(table: Table) -> bool:
    """Whether the table's retained state is ahead of the events the hub holds."""
    state = table.state or {}
    gid, seq = state.get("game_id"), state.get("seq")
    if not isinstance(gid, int) or not isinstance(seq, int):
        return False
    return table.positions.get(gid, 0) < seq


def _num(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0.0
    return float(value)


class Hub:
    """See the module docstring. Every public method takes the lock."""

    def __init__(
        self,
        store: HubStore,
        *,
        tables: tuple[str, ...] = (),
        quiet_after_s: float = 120.0,
        resync_every_s: float = 300.0,
    ) -> None:
        self.store = store
        self.allowed = frozenset(tables)
        self.quiet_after_s = quiet_after_s
        self.resync_every_s = resync_every_s
        self.lock = threading.RLock()
        self.tables: dict[str, Table] = {t: Table(t) for t in tables}
        self.refused = 0
        self.results_added = 0
        self.requests_sent = 0
        self._refusals: dict[str, int] = {}

    # -- input --------------------------------------------------------------------------
    def handle(
        self, topic: str, payload: bytes, *, retained: bool = False, now: float | None = None
    ) -> list[tuple[str, str]]:
        """One message from the club broker; the requests to publish. Never raises."""
        now = time.time() if now is None else now
        parts = topic.split("/")
        if len(parts) != 3 or parts[0] != "trackside" or parts[2] not in TOPIC_KINDS:
            return []  # not ours (e.g. another table's request, seat pads, discovery)
        table_id, kind = parts[1], parts[2]
        with self.lock:
            if not valid_table_id(table_id):
                self._refuse(table_id[:80], f"{table_id[:80]!r} is not a table id")
                return []
            if self.allowed and table_id not in self.allowed:
                self._refuse(table_id, "not one of [hub] tables")
                return []
            if len(payload) > MAX_BYTES[kind]:
                self._refuse(table_id, f"{kind}: {len(payload)} bytes, more than {MAX_BYTES[kind]}")
                return []
            table = self.tables.get(table_id)
            if table is None:
                if len(self.tables) >= MAX_TABLES:
                    self._refuse(table_id, f"more than {MAX_TABLES} tables")
                    return []
                table = self.tables[table_id] = Table(table_id)
                log.info("hub: new table %s", table_id)
            table.messages += 1
            if kind == "status":
                return self._status(table, payload, retained, now)
            try:
                doc = parse_json(payload)
            except MessageError as exc:
                self._refuse(table_id, f"{kind}: {exc}")
                return []
            if not isinstance(doc, dict):
                self._refuse(table_id, f"{kind}: not a JSON object")
                return []
            if not retained:
                table.last_seen = now
            try:
                if kind == "state":
                    return self._state(table, doc, now)
                if kind == "event":
                    return self._event(table, doc, now)
                return self._resend(table, doc, now)
            except (KeyError, TypeError, ValueError) as exc:  # MessageError, or a shape unexpected
                self._refuse(table_id, f"{kind}: {exc}")
                return []

    def tick(self, now: float | None = None) -> list[tuple[str, str]]:
        """Timeouts: a lost request is sent again, a state ahead of its events for a while
        asks for them, and every ``resync_every_s`` an online table is asked for results."""
        now = time.time() if now is None else now
        out: list[tuple[str, str]] = []
        with self.lock:
            for table in self.tables.values():
                if table.pending is not None and now - table.pending_at > REQUEST_TIMEOUT_S:
                    if table.online is False:  # its "online" will ask again
                        table.pending = None
                        continue
                    log.warning(
                        "hub: table %s did not answer its resend request; asking again",
                        table.table_id,
                    )
                    table.pending = None
                    out += self._request(table, now)
                elif (
                    table.ahead_since is not None and now - table.ahead_since > STATE_AHEAD_GRACE_S
                ):
                    table.ahead_since = None
                    if _behind(table):  # the events did not follow their state
                        out += self._request(table, now)
                elif table.online and now - table.last_sync > self.resync_every_s:
                    out += self._request(table, now)
        return out

    def sync_all(self, now: float | None = None) -> list[tuple[str, str]]:
        """After the hub (re)connects: ask every table it knows for what it missed."""
        now = time.time() if now is None else now
        out: list[tuple[str, str]] = []
        with self.lock:
            for table in self.tables.values():
                table.pending = None
                out += self._request(table, now)
        return out

    # -- the kinds ----------------------------------------------------------------------
    def _status(
        self, table: Table, payload: bytes, retained: bool, now: float
    ) -> list[tuple[str, str]]:
        text = payload.decode("utf-8", "replace").strip()
        if text not in ("online", "offline"):
            self._refuse(table.table_id, f"status: {text[:20]!r} is neither online nor offline")
            return []
        was = table.online
        table.online = text == "online"
        if not retained:
            table.last_seen = now
        if table.online and was is not True:
            log.info("hub: table %s is online", table.table_id)
            table.pending = None  # a request sent before it went away is lost
            return self._request(table, now)
        if not table.online and was is not False:
            log.info("hub: table %s went offline", table.table_id)
        return []

    def _state(self, table: Table, doc: dict[str, Any], now: float) -> list[tuple[str, str]]:
        if doc.get("schema") != 1:
            raise ValueError(f"schema {doc.get('schema')!r} is not 1")
        # Only the public snapshot's fields the pages show are kept, each checked: what the
        # wall screen shows is bounded, and nothing a table sends becomes markup or CSS.
        table.state = clean_state(doc, now)
        updated = _num(table.state.get("updated_at"))
        if updated > 0:
            table.lag_s.append(max(0.0, now - updated))
            # a clock a little ahead must not keep the table from ever looking quiet
            table.state["updated_at"] = min(updated, now)
        gid, seq = table.state["game_id"], table.state["seq"]
        if isinstance(gid, int) and isinstance(seq, int):
            table.games_seen.add(gid)
            if table.positions.get(gid, 0) < seq:
                if table.ahead_since is None:
                    table.ahead_since = now
            else:
                table.ahead_since = None
        return []

    def _event(self, table: Table, doc: dict[str, Any], now: float) -> list[tuple[str, str]]:
        seq = doc["seq"]
        event = doc["event"]
        if isinstance(seq, bool) or not isinstance(seq, int) or seq < 1:
            raise ValueError(f"seq: {seq!r} is not a sequence number")
        if not isinstance(event, dict):
            raise ValueError("event: expected an object")
        gid = event.get("game_id")
        if isinstance(gid, bool) or not isinstance(gid, int) or not 1 <= gid < 2**31:
            raise ValueError(f"event.game_id: {gid!r} is not a game number")
        if seq >= 2**31:
            raise ValueError(f"seq: {seq!r} is not a sequence number")
        db = doc.get("db")
        out: list[tuple[str, str]] = []
        if isinstance(db, str) and db:
            out += self._database(table, db, now)
        self._take(table, gid, seq, event)
        if table.held.get(gid):
            out += self._request(table, now)
        if event.get("type") == "game_ended":
            table.ended.add(gid)
            out += self._request(table, now)  # its result
        return out

    def _take(self, table: Table, gid: int, seq: int, event: dict[str, Any]) -> None:
        """Keep one event in order; out of order it waits in ``held`` for the gap. What is
        kept per table is bounded (games, events waiting), so no table can fill the memory."""
        table.games_seen.add(gid)
        while len(table.games_seen) > GAMES_TRACKED:
            table.games_seen.discard(min(table.games_seen))
        for per_game in (table.positions, table.held):
            while len(per_game) > GAMES_TRACKED:
                del per_game[min(per_game)]
        known = table.positions.get(gid)
        if known is not None and seq <= known:
            return  # already have it (QoS 1 delivers at least once; a resend overlaps)
        if (known is None and seq != 1) or (known is not None and seq > known + 1):
            held = table.held.setdefault(gid, {})
            if len(held) >= MAX_HELD:
                self._refuse(
                    table.table_id, f"more than {MAX_HELD} events of game {gid} wait for a gap"
                )
                return
            held[seq] = event
            return
        self._append(table, gid, seq, event)
        held = table.held.get(gid, {})
        while table.positions[gid] + 1 in held:
            nxt = table.positions[gid] + 1
            self._append(table, gid, nxt, held.pop(nxt))
        if not held:
            table.held.pop(gid, None)

    def _append(self, table: Table, gid: int, seq: int, event: dict[str, Any]) -> None:
        table.positions[gid] = seq
        events = table.events.get(gid)
        if events is None:
            events = table.events[gid] = deque(maxlen=EVENTS_KEPT)
            for old in sorted(table.events)[:-GAMES_KEPT]:
                del table.events[old]
        events.append({"seq": seq, **_public_event(event)})

    def _database(self, table: Table, db: str, now: float) -> list[tuple[str, str]]:
        if table.db is None or table.db == EMPTY_DATABASE:  # its first game has just begun
            table.db = db
            return []
        if db == table.db:
            return []
        log.warning(
            "hub: table %s is on a new database (%s, was %s): its sequence numbers start "
            "again; re-synchronising, results already stored are kept",
            table.table_id,
            db,
            table.db,
        )
        table.db = db
        table.positions.clear()
        table.held.clear()
        table.events.clear()
        table.games_seen.clear()
        table.ended.clear()
        table.no_result.clear()
        table.resets += 1
        table.pending = None
        return self._request(table, now)

    def _resend(self, table: Table, doc: dict[str, Any], now: float) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        events, results = doc.get("events") or [], doc.get("results") or []
        if not isinstance(events, list) or len(events) > EVENTS_PER_ANSWER:
            raise ValueError(f"events: expected a list of at most {EVENTS_PER_ANSWER}")
        if not isinstance(results, list) or len(results) > RESULTS_PER_ANSWER:
            raise ValueError(f"results: expected a list of at most {RESULTS_PER_ANSWER}")
        error = doc.get("error")
        if error is not None:
            log.warning("hub: table %s could not answer: %s", table.table_id, str(error)[:200])
        db = doc.get("db")
        if isinstance(db, str) and db:
            out += self._database(table, db, now)
        for item in events:
            if not isinstance(item, dict):
                continue
            seq, event = item.get("seq"), item.get("event")
            gid = event.get("game_id") if isinstance(event, dict) else None
            if (
                isinstance(seq, int)
                and not isinstance(seq, bool)
                and seq >= 1
                and isinstance(gid, int)
                and gid >= 1
                and isinstance(event, dict)
            ):
                self._take(table, gid, seq, event)
        if table.db is not None and results:
            added, errors = self.store.add_results(
                table.table_id, table.db, [r for r in results if isinstance(r, dict)], now
            )
            if added:
                self.results_added += added
                log.info("hub: table %s: %d result(s) stored", table.table_id, added)
            for exc in errors:
                self._refuse(table.table_id, f"resend: {exc}")
        if (
            doc.get("done") is True
            and table.pending is not None
            and doc.get("request_id") in ("", table.pending.get("request_id"))
        ):
            asked = table.pending.get("since", {})
            results_from = table.pending.get("results_from", 1)
            table.pending = None
            self._skip_lost(table, asked)
            table.ended.clear()  # the answer held every finished result there is
            have = self.store.known_game_ids(table.table_id, table.db) if table.db else set()
            last, open_games = doc.get("last_game"), doc.get("open_games")
            if (
                isinstance(last, int)
                and isinstance(open_games, list)
                and 0 <= last - results_from <= MAX_GAMES_PER_ANSWER
            ):
                # ended without a result (abandoned): not asked for again
                table.no_result |= set(range(results_from, last + 1)) - set(open_games) - have
            if any(table.held.values()) or (table.again and table.ended - have):
                out += self._request(table, now)
            table.again = False
        return out

    def _skip_lost(self, table: Table, asked: Mapping[str, Any]) -> None:
        """After a complete answer, a gap the table was asked for and did not fill cannot be
        filled (its log no longer has those events, or they were more than one answer holds):
        say so and carry on after it, instead of asking for ever."""
        since_game = asked.get("game_id", 0)
        for gid in sorted(table.held):
            held = table.held[gid]
            if not held or gid < since_game:
                continue
            have = table.positions.get(gid, 0)
            first = min(held)
            log.warning(
                "hub: table %s did not resend events %d–%d of game %d; carrying on from %d",
                table.table_id,
                have + 1,
                first - 1,
                gid,
                first,
            )
            table.positions[gid] = first - 1
            self._take(table, gid, first, held.pop(first))
            return  # one gap per answer; the next request covers the rest

    # -- requests -----------------------------------------------------------------------
    def _request(self, table: Table, now: float) -> list[tuple[str, str]]:
        """One resend request at a time per table (a second need waits for the answer)."""
        if table.pending is not None:
            table.again = True
            return []
        gaps = [(g, table.positions.get(g, 0)) for g, held in table.held.items() if held]
        current = (table.state or {}).get("game_id")
        if isinstance(current, int) and table.positions.get(current, 0) < _num(
            (table.state or {}).get("seq")
        ):
            gaps.append((current, table.positions.get(current, 0)))
        if gaps:
            since_game, since_seq = min(gaps)
        elif isinstance(current, int) and current > 0:
            since_game, since_seq = current, table.positions.get(current, 0)
        else:
            since_game, since_seq = (
                (max(table.positions), table.positions[max(table.positions)])
                if table.positions
                else (0, 0)
            )
        # Before the table's first answer (a restarted hub), its database is probably the one
        # its latest stored result came from; a wrong guess only costs a longer answer.
        db = table.db or self.store.latest_db(table.table_id)
        have = self.store.known_game_ids(table.table_id, db) if db else set()
        known = have | table.no_result
        # the first game without a result: games the hub never saw end (it was away) included
        first_gap = 1
        for game in sorted(known):
            if game > first_gap:
                break
            first_gap = max(first_gap, game + 1)
        results_from = min([first_gap, *(table.games_seen - known)])
        request = {
            "schema": 1,
            "request_id": uuid.uuid4().hex[:16],
            "since": {"game_id": since_game, "seq": since_seq},
            "results_from": results_from,
        }
        table.pending = request
        table.pending_at = now
        table.last_sync = now
        table.again = False
        self.requests_sent += 1
        log.debug("hub: asking table %s for %s", table.table_id, request)
        return [(f"trackside/{table.table_id}/request", json.dumps(request))]

    def _refuse(self, table_id: str, reason: str) -> None:
        self.refused += 1
        count = self._refusals.get(table_id, 0) + 1
        if len(self._refusals) < 10 * MAX_TABLES:
            self._refusals[table_id] = count
        if count <= REFUSALS_LOGGED or count % REFUSAL_LOG_EVERY == 0:
            log.warning(
                "hub: message from table %s refused (%d so far): %s", table_id, count, reason
            )

    # -- output -------------------------------------------------------------------------
    def views(self, now: float | None = None) -> list[dict[str, Any]]:
        now = time.time() if now is None else now
        with self.lock:
            return [self.tables[t].view(now, self.quiet_after_s) for t in sorted(self.tables)]

    def view(self, table_id: str, now: float | None = None) -> dict[str, Any] | None:
        now = time.time() if now is None else now
        with self.lock:
            table = self.tables.get(table_id)
            if table is None:
                return None
            out = table.view(now, self.quiet_after_s)
            gid = out["game_id"]
            recent = list(table.events.get(gid, ())) if isinstance(gid, int) else []
            out["events"] = recent[-50:][::-1]
            out["waiting_for_resend"] = table.pending is not None
            return out

    def lags(self) -> list[float]:
        with self.lock:
            return [x for t in self.tables.values() for x in t.lag_s]

    def stats(self) -> dict[str, Any]:
        """For the operator and the bench: counts, and the state lag (the table's
        ``updated_at`` to the hub handling it) over the latest samples of every table."""
        lags = sorted(self.lags())

        def pct(q: float) -> float | None:
            return round(lags[min(len(lags) - 1, int(q * len(lags)))], 4) if lags else None

        with self.lock:
            return {
                "tables": len(self.tables),
                "refused": self.refused,
                "results_added": self.results_added,
                "requests_sent": self.requests_sent,
                "state_lag_s": {"p50": pct(0.5), "p99": pct(0.99), "samples": len(lags)},
                # the tables that sent the most (a login gone rogue floods; revoke it at the
                # club broker: docs/hub.md, "Measured")
                "busiest": [
                    {
                        "table_id": t.table_id,
                        "messages": t.messages,
                        "refused": self._refusals.get(t.table_id, 0),
                    }
                    for t in sorted(self.tables.values(), key=lambda t: -t.messages)[:5]
                ],
            }


def _text(doc: Mapping[str, Any], key: str) -> str | None:
    value = doc.get(key)
    if value is None:
        return None
    if is_message_json(value):  # a table publishes its texts rendered; an unrendered one too
        value = render_text(value)
    if not isinstance(value, str) or len(value) > MAX_TEXT[key]:
        raise MessageError(f"{key}: expected text of at most {MAX_TEXT[key]} characters")
    return value


def _small_int(value: object, key: str, lo: int = 0) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value < 2**31:
        raise MessageError(f"{key}: {str(value)[:40]!r} is not a whole number ≥ {lo}")
    return value


def clean_state(doc: Mapping[str, Any], now: float) -> dict[str, Any]:
    """The fields of a table's public state the hub shows, checked and bounded (docs/hub.md,
    "Bounds"); raises MessageError naming the field."""
    players = doc.get("players")
    if not isinstance(players, list) or len(players) > MAX_PLAYERS:
        raise MessageError(f"players: expected a list of at most {MAX_PLAYERS}")
    clean_players = []
    for p in players:
        if not isinstance(p, Mapping):
            raise MessageError("players[]: expected an object")
        name, total, colour = p.get("name"), p.get("total"), p.get("colour")
        if not isinstance(name, str) or len(name) > MAX_NAME:
            raise MessageError(f"players[].name: expected text of at most {MAX_NAME} characters")
        if total is not None and (
            isinstance(total, bool)
            or not isinstance(total, int | float)
            or not math.isfinite(total)
            or abs(total) >= 10**9
        ):
            raise MessageError(f"players[].total: {str(total)[:40]!r} is not a score")
        clean_players.append(
            {
                "name": name,
                "total": total,
                # a colour outside the fixed set is shown grey (never passed on as CSS)
                "colour": colour if isinstance(colour, str) and colour in SEAT_COLOURS else None,
            }
        )
    names = {p["name"] for p in clean_players}
    winners = doc.get("winners") or []
    if not isinstance(winners, list) or not all(w in names for w in winners):
        raise MessageError("winners: expected names of the players")
    status = doc.get("status") or {}
    if not isinstance(status, Mapping):
        raise MessageError("status: expected an object")
    active = status.get("active_players") or []
    if not isinstance(active, list) or not all(
        isinstance(i, int) and not isinstance(i, bool) and 0 <= i < len(clean_players)
        for i in active
    ):
        raise MessageError("status.active_players: expected seat indices of the players")
    updated = doc.get("updated_at")
    if updated is not None:
        why = check_time(updated, now)
        if why is not None:  # a state from the future would never look quiet
            raise MessageError(f"updated_at: {why}")
    game_id = _small_int(doc.get("game_id"), "game_id", 1)
    return {
        "schema": 1,
        "game": _text(doc, "game"),
        "game_id": game_id,
        "title": _text(doc, "title"),
        "seq": _small_int(doc.get("seq"), "seq") or 0,
        "over": doc.get("over") is True,
        "players": clean_players,
        "winners": list(winners),
        "status": {
            "round": _small_int(status.get("round"), "status.round"),
            "waiting_for": _text(status, "waiting_for"),
            "active_players": list(active),
            "phase": _text(status, "phase"),
        },
        "updated_at": updated,
    }


def _public_event(event: Mapping[str, Any]) -> dict[str, Any]:
    """What the drill-down lists of an event: its type, who, the action's kind. (Events are
    already the tables' public ones; the hub keeps less still.)"""
    out: dict[str, Any] = {"type": event.get("type")}
    action = event.get("action")
    if isinstance(action, Mapping):
        out["kind"] = action.get("kind")
        out["player"] = action.get("player")
    if event.get("type") == "game_ended":
        out["reason"] = event.get("reason")
    return out
