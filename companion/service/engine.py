"""The engine thread: the one writer.

Every input (a reader's scan, the camera, the table page) is an :class:`Observation` on one
queue. One thread takes them in order and, for each: works out what it means (tag registry →
game interpreter → rules), records the input, its outcome and the event it caused in one SQLite
transaction (durable), and only then swaps in the new immutable session, acknowledges the
sender and publishes the new snapshot. A refused input is recorded as "rejected: reason" and
shown; it never stops the thread.
"""

from __future__ import annotations

import contextlib
import hmac
import logging
import queue
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from companion.core.actions import Action, Prompt
from companion.core.choices import Choice
from companion.core.errors import (
    IllegalActionError,
    SnapshotError,
    StoreError,
    TracksideError,
    UnknownComponentError,
)
from companion.core.events import (
    ActionApplied,
    ActionCorrected,
    ActionRedone,
    ActionUndone,
    GameEnded,
    GameEvent,
    GameReopened,
    GameStarted,
    LogEntry,
    event_to_json,
)
from companion.core.game import PlayerSpec
from companion.core.ids import GameId, ReaderId
from companion.core.jsonvalue import JsonObject, JsonValue, thaw
from companion.core.messages import Message, Text, msg, render_text, text_json
from companion.core.observation import Observation, ObservationKind
from companion.core.privacy import (
    PRIVATE_NOTE,
    PRIVATE_REFUSAL,
    PRIVATE_REFUSAL_TEXT,
    PRIVATE_SOURCE_PREFIX,
    PrivateRefusalError,
    has_private_view,
    private_actions,
    private_kind,
    public_text,
    redact_event,
)
from companion.core.session import TableSession
from companion.core.snapshot import Field
from companion.games import find_game, game_names
from companion.games.mini_express import ShareValueTable
from companion.games.titles import game_title
from companion.service.enrolment import MAX_TAG_CHARS, binding_for, check_tag_length
from companion.service.export import game_result
from companion.service.store import EventStore, InputOutcome, TagBinding
from companion.service.table_choices import describe as describe_move
from companion.service.table_choices import table_tree, tree_seq

log = logging.getLogger(__name__)

SNAPSHOT_SCHEMA = 1
RECENT_INPUTS = 12
CUES_KEPT = 8
PRIVATE_NOTES_KEPT = 12
"""Messages kept per player for their private view (the newest)."""
CUE_LIFETIME_S = 30.0
"""Cues older than this leave the snapshot (the longest default look lasts 6 s; docs/leds.md)."""
PIN_HASH_SCHEMES = ("scrypt$", "pbkdf2_sha256$")
"""A player's PIN reaches the engine only hashed (salted) by the page; see web/private.py."""
PIN_HASH_MAX_LEN = 400
SEAT_CODE_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"  # no 0/O, 1/I: read off a screen
SEAT_CODE_LENGTH = 8
SEAT_CODE_TTL_S = 15 * 60.0
"""A seat code opens one seat once, for 15 minutes (then the table issues a new one)."""
SELF_DESCRIBING_PREFIX = "TS:"
"""Printed labels carry their binding: ``TS:<game id>:<component id>`` needs no enrolment."""


@dataclass(frozen=True, slots=True)
class Publication:
    """What subscribers (web, MQTT, LEDs) get after each change."""

    version: int
    snapshot: JsonObject
    game_id: GameId | None = None
    entry: LogEntry | None = None
    event: JsonObject | None = None
    """``entry``'s event as JSON for others to see (MQTT): a private action's arguments are left
    out until the game is over (companion.core.privacy)."""


class Ticket:
    """The sender's handle on one input: :meth:`wait` returns its outcome once recorded."""

    def __init__(self, observation: Observation) -> None:
        self.observation = observation
        self._done = threading.Event()
        self._outcome: InputOutcome | None = None

    def _resolve(self, outcome: InputOutcome) -> None:
        self._outcome = outcome
        self._done.set()

    def wait(self, timeout_s: float | None = None) -> InputOutcome:
        if not self._done.wait(timeout_s):
            raise TimeoutError(f"no outcome for {self.observation.kind} within {timeout_s} s")
        assert self._outcome is not None
        return self._outcome


@dataclass(slots=True)
class _Plan:
    """What one input will do, worked out before anything is written."""

    outcome: InputOutcome
    session: TableSession | None = None
    entry: LogEntry | None = None
    new_game: tuple[str, tuple[str, ...]] | None = None
    enrol: TagBinding | None = None
    defaults: tuple[str, JsonObject] | None = None
    """(game, setup options) saved from the table page, used when that game next starts."""
    player_pin: tuple[GameId, int, str | None] | None = None
    """(game, player, PIN hash or None) for a player's private view."""
    unenrol: str | None = None
    """A tag uid to remove from the registry (the setup page)."""
    result: JsonObject | None = None
    """A game that ends: its result, stored with the game_ended event (the history pages)."""
    select: GameId | None = None
    prompt: Prompt | None = None
    cues: list[JsonObject] = field(default_factory=list)


RULES_SOURCE = ReaderId("rules")
"""The source of what the engine enters itself: the end of a game its rules say is over."""


class _PrivateFailureError(IllegalActionError):
    """A refusal derived from ``player``'s private state, on its way to only them: ``full``
    is the whole reason; nothing public prints it."""

    def __init__(self, full: Text, player: int | None) -> None:
        super().__init__(PRIVATE_REFUSAL_TEXT)
        self.full = full
        self.player = player


def _with_message(outcome: InputOutcome, message: Text) -> InputOutcome:
    """``outcome`` saying ``message`` instead (a message: each screen in its language)."""
    if not isinstance(message, Message):
        return InputOutcome(outcome.outcome, message, outcome.game_id, outcome.seq)
    return InputOutcome(
        outcome.outcome, message.render(), outcome.game_id, outcome.seq, text=message.to_json()
    )


def _refused(exc: TracksideError, game_id: GameId | None) -> InputOutcome:
    """A refusal: its English text stored, its message (rule and rulebook section in the
    reader's language) for the screens."""
    text = exc.text.to_json() if isinstance(exc, IllegalActionError) else None
    if isinstance(exc, _UnknownTagError):  # the scoreboard's recent list shows no tag id
        text = msg("unknown tag — enrol it on the table page").to_json()
    return InputOutcome("rejected", str(exc), game_id, text=text)


def _outcome(
    outcome: str,
    text: Message,
    game_id: GameId | None,
    seq: int | None = None,
    reply: JsonObject | None = None,
) -> InputOutcome:
    """An answer whose words each screen renders in its language (its English stored);
    ``reply``: what only the sender hears (a seat code), never stored."""
    return InputOutcome(outcome, text.render(), game_id, seq, text=text.to_json(), reply=reply)


def _line(session: TableSession, seq: int) -> Message:
    """The logged move ``seq`` in words (a private one without its secret)."""
    for applied in (*session.applied, *session.redo_stack):
        if applied.seq == seq:
            described = describe_move(session, applied.action)
            return described if isinstance(described, Message) else msg("{line}", line=described)
    return msg("move {seq}", seq=seq)


def _table_step(session: TableSession, event: GameEvent, seq: int) -> Message:
    """What the table did (undo, redo, a correction, the end), in words."""
    if isinstance(event, ActionUndone):
        return msg("Undone: {line}", line=_line(session, event.target_seq))
    if isinstance(event, ActionRedone):
        return msg("Done again: {line}", line=_line(session, event.target_seq))
    if isinstance(event, ActionCorrected):
        described = describe_move(session, event.action)
        return msg(
            "Corrected: {old} → {new}",
            old=_line(session, event.target_seq),
            new=described if isinstance(described, Message) else msg("{line}", line=described),
        )
    if isinstance(event, GameEnded):
        if event.reason == "finished":
            return msg("The game is over: final scoring done, filed as finished")
        return msg("The game was abandoned: filed with no winner")
    return msg("table step {seq}", seq=seq)


def _name_of(session: TableSession, player: int | None) -> str:
    players = session.started.players
    if isinstance(player, int) and 0 <= player < len(players):
        return players[player].name
    return "a player"


class _UnknownTagError(UnknownComponentError):
    """A tag the registry does not know (the LEDs blink it as ``unknown_tag``)."""


@dataclass(slots=True)
class _DeviceStatus:
    name: str
    status: JsonObject


_STOP = object()


@dataclass(slots=True)
class _State:
    sessions: dict[GameId, TableSession] = field(default_factory=dict)
    broken: dict[GameId, str] = field(default_factory=dict)
    active: GameId | None = None
    prompt: Prompt | None = None
    unknown_tag: str = ""
    """The uid of the unknown tag the prompt asks to enrol (for the table page, not players)."""
    store_error: str | None = None
    devices: dict[str, JsonObject] = field(default_factory=dict)
    recent: deque[JsonObject] = field(default_factory=lambda: deque(maxlen=RECENT_INPUTS))
    cues: deque[JsonObject] = field(default_factory=lambda: deque(maxlen=CUES_KEPT))
    rounds: dict[GameId, tuple[int | None, bool]] = field(default_factory=dict)
    """Per game, the round and game-over flag last published (a change is a round end)."""
    moments: dict[GameId, frozenset[str]] = field(default_factory=dict)
    """Per game, the keys of the public view's moments last published (a new one is announced
    once: an LED cue, a Home Assistant event)."""
    private_notes: dict[tuple[GameId, int], deque[JsonObject]] = field(default_factory=dict)
    """Per (game, player), the messages told only to that player (companion.core.privacy);
    in memory only: a restart empties them (the raw inputs stay in the store)."""


class Engine:
    def __init__(
        self, store: EventStore, *, game_options: Mapping[str, Mapping[str, Any]] | None = None
    ) -> None:
        self.store = store
        self._game_options = dict(game_options or {})
        self._queue: queue.Queue[Any] = queue.Queue()
        self._state = _State()
        self._subscribers: list[Callable[[Publication], None]] = []
        self._cond = threading.Condition()
        self._version = 0
        self._snapshot: JsonObject = {}
        self._thread: threading.Thread | None = None
        self._seat_codes: dict[tuple[GameId, int], tuple[str, float]] = {}
        """(game, player) → (one-time seat code, monotonic expiry): in memory only, a restart
        forgets them (the table issues new ones). Written by the engine thread; read by pages."""
        self._codes_lock = threading.Lock()
        self._resume()
        self._publish(None, None)

    # -- start-up ---------------------------------------------------------------------------
    def _resume(self) -> None:
        """Replay every unfinished game from its log, exactly as it was. A game that no longer
        replays (e.g. the rules changed under it) is held and reported, never dropped."""
        broken_kinds: dict[int, frozenset[str]] = {}
        for record in self.store.unfinished_games():
            try:
                entries = self.store.entries(record.id)
                session = TableSession.replay(find_game(record.game), entries)
            except TracksideError as exc:
                self._state.broken[record.id] = str(exc)
                log.error("game %s (%s) cannot be resumed: %s", record.id, record.game, exc)
                with contextlib.suppress(TracksideError):
                    broken_kinds[record.id] = private_actions(find_game(record.game))
                continue
            self._state.sessions[record.id] = session
            self._state.active = record.id
        if self._state.active is None and not self._state.broken:
            self._show_last_ended()
        for item in reversed(self.store.inputs(RECENT_INPUTS)):
            recent = _recent(item)
            game_id = item.get("game_id")
            running = self._state.sessions.get(GameId(game_id)) if game_id else None
            shown = self._private_message(running, item.get("payload"), item["seat"])
            if shown is None and game_id in broken_kinds:  # held, so not over: still private
                kind = private_kind(item.get("payload"), broken_kinds[game_id])
                shown = None if kind is None else ("a player", kind)
            if shown is not None:
                recent["message"] = public_text(
                    shown[0], shown[1], str(recent["outcome"])
                ).to_json()
            self._state.recent.append(recent)

    def _show_last_ended(self) -> None:
        """With no unfinished game, the last game's final sheet stays on the scoreboard after a
        restart, as it did before (a Pi unplugged at the end of the night still shows the
        result). It is shown ended: nothing can be applied to it."""
        games = self.store.games()
        if not games:
            return
        last = games[-1]
        try:
            session = TableSession.replay(find_game(last.game), self.store.entries(last.id))
        except TracksideError as exc:
            log.warning("the last game %s (%s) cannot be shown: %s", last.id, last.game, exc)
            return
        self._state.sessions[last.id] = session
        self._state.active = last.id

    # -- the thread -------------------------------------------------------------------------
    def start(self) -> None:
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="trackside-engine", daemon=True)
        self._thread.start()

    def stop(self, timeout_s: float = 5.0) -> None:
        if self._thread is None:
            return
        self._queue.put(_STOP)
        self._thread.join(timeout_s)
        self._thread = None

    def submit(self, observation: Observation) -> Ticket:
        """Queue an input; thread-safe. ``ticket.wait()`` gives the recorded outcome."""
        ticket = Ticket(observation)
        self._queue.put(ticket)
        return ticket

    def __call__(self, observation: Observation) -> None:
        """Readers use the engine as their sink: fire and forget."""
        self.submit(observation)

    def report_device(self, name: str, status: Mapping[str, Any]) -> None:
        """A device's state changed (``searching | connected | error`` …)."""
        self._queue.put(_DeviceStatus(name, dict(status)))

    def barrier(self, timeout_s: float = 10.0) -> None:
        """Return once every input queued before this call has been handled."""
        done = threading.Event()
        self._queue.put(done)
        if not done.wait(timeout_s):
            raise TimeoutError(f"the engine did not catch up within {timeout_s} s")

    def subscribe(self, callback: Callable[[Publication], None]) -> None:
        """``callback`` runs on the engine thread after every change; it must not block."""
        self._subscribers.append(callback)
        callback(Publication(self._version, self._snapshot))

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is _STOP:
                return
            if isinstance(item, threading.Event):
                item.set()
                continue
            try:
                if isinstance(item, _DeviceStatus):
                    if self._state.devices.get(item.name) != item.status:
                        self._state.devices[item.name] = item.status
                        self._publish(None, None)
                else:
                    item._resolve(self.handle(item.observation))
            except Exception:  # the one writer never dies
                log.exception("engine: unexpected failure on %r", item)
                if isinstance(item, Ticket):
                    item._resolve(InputOutcome("rejected", "internal error; see the log"))

    # -- one input --------------------------------------------------------------------------
    def handle(self, observation: Observation) -> InputOutcome:
        """Process one input synchronously (the engine thread, or tests without a thread)."""
        # The privacy rule (companion.core.privacy): a message derived from private state is
        # told in full only to the player it concerns; the store, the scoreboard's recent list,
        # the LED cues and any other sender get "Ann: speculate (private)" or "a private entry
        # was refused". ``private`` is (who, kind) of a private action, ``secret`` (player, the
        # full message) once the outcome is known.
        session = self.session()
        private = self._private_message(session, observation.payload, observation.seat)
        secret: tuple[int | None, Text] | None = None
        try:
            plan = self._plan(observation)
            found = self._private_entry(session, plan.entry)
            private = private or (found[1:] if found is not None else None)
            if private is not None and plan.outcome.outcome == "applied":
                player = found[0] if found is not None else self._sender_player(observation)
                told = plan.outcome.text
                secret = (player, Message.from_json(told) if told else plan.outcome.message)
                plan.outcome = _with_message(
                    plan.outcome, public_text(*private, plan.outcome.outcome)
                )
        except _PrivateFailureError as exc:
            secret = (exc.player, exc.full)
            public_words = public_text(*private, "rejected") if private else PRIVATE_REFUSAL_TEXT
            public = public_words.render()
            plan = _Plan(_outcome("rejected", public_words, self._state.active))
            if observation.seat is not None:
                plan.cues.append(
                    {
                        "kind": "error",
                        "seat": observation.seat,
                        "message": public,
                        "at_s": time.time(),
                    }
                )
        except TracksideError as exc:
            plan = _Plan(_refused(exc, self._state.active))
            if private is not None:  # a refused private action: its reason reads its arguments
                secret = (
                    self._sender_player(observation),
                    exc.text if isinstance(exc, IllegalActionError) else str(exc),
                )
                plan.outcome = _with_message(plan.outcome, public_text(*private, "rejected"))
            if observation.seat is not None:
                cue = _seat_cue(observation, exc)
                if secret is not None and "message" in cue:
                    cue["message"] = plan.outcome.message
                plan.cues.append(cue)
        except Exception as exc:  # a bug in a game must not cost the input
            log.exception("engine: planning %r failed", observation)
            plan = _Plan(InputOutcome("rejected", f"internal error: {exc!r}", self._state.active))
        hidden = private is not None or secret is not None
        try:
            _, game_id = self.store.record(
                _without_seat_code(observation),
                plan.outcome,
                new_game=plan.new_game,
                entry=plan.entry,
                enrol=plan.enrol,
                defaults=plan.defaults,
                player_pin=plan.player_pin,
                unenrol=plan.unenrol,
                result=plan.result,
            )
        except (TracksideError, ValueError, OverflowError) as exc:
            # ValueError/OverflowError: an input SQLite cannot hold (a lone surrogate in a text,
            # a seat beyond 64 bits); refused whole like any other failed write
            message = f"not recorded, nothing changed: {exc}"
            if isinstance(exc, StoreError):
                self._state.store_error = str(exc)
            log.error("engine: %s", message)
            outcome = InputOutcome("rejected", message, self._state.active)
            self._state.recent.append(_recent_from(observation, outcome, private, hidden))
            self._publish(None, None)
            return outcome
        self._state.store_error = None
        outcome = plan.outcome
        self._state.cues.extend(plan.cues)
        if plan.session is not None and game_id is not None:
            self._state.sessions[game_id] = plan.session
            # an ended game stays on the scoreboard (its final sheet) until the next one starts
            self._state.active = game_id
            self._state.prompt = None
            self._state.unknown_tag = ""
            outcome = replace(outcome, game_id=game_id)  # keeps its message for readers
        if plan.select is not None:
            self._state.active = plan.select
        if plan.prompt is not None:
            self._state.prompt = plan.prompt
        if plan.new_game is not None and outcome.outcome == "applied":
            # a new game's recent moves are its own: the last game's stay in its log
            self._state.recent.clear()
        self._state.recent.append(_recent_from(observation, outcome, private, hidden))
        if secret is not None and session is not None:
            outcome = self._tell_privately(session, observation, outcome, secret)
        self._publish(game_id, plan.entry)
        if (
            game_id is not None
            and outcome.outcome == "applied"
            and isinstance(plan.entry, LogEntry)
            and isinstance(plan.entry.event, ActionApplied)
            and session is not None
            and not session.game.is_over(session.state)
        ):
            self._end_when_over(game_id)
        return outcome

    def _end_when_over(self, game_id: GameId) -> None:
        """The move after which the rules say the game is over (it was not before) ends it,
        when the game is complete: the final scoring is filed at once, as its own input (source
        ``rules``) after the move, so the log says who ended it. Complete: nothing left to tell
        for the final scoring (a game's ``settled``: Trains & Stations' special cards are told
        on the players' phones after the last move) and a winner found (a Mini Express
        board-table cell may be missing). Otherwise the table enters what is missing and ends
        the game itself, as it does after an undo, a redo, a correction or a reopening: the
        table is putting something right."""
        session = self._state.sessions.get(game_id)
        if session is None or session.is_ended or self._state.active != game_id:
            return
        if not _complete(session):
            return
        self.handle(
            Observation(
                RULES_SOURCE,
                ObservationKind.COMMAND,
                {"command": "end_game", "reason": "finished"},
            )
        )

    def _tell_privately(
        self,
        session: TableSession,
        obs: Observation,
        outcome: InputOutcome,
        secret: tuple[int | None, Text],
    ) -> InputOutcome:
        """Keep ``secret``'s full message for its player's private view; the sender gets it
        back only when the sender is that player's own private page."""
        player, full = secret
        game_id = outcome.game_id or self._state.active
        players = session.started.players
        if player is None or not 0 <= player < len(players) or game_id is None:
            return outcome
        notes = self._state.private_notes.setdefault(
            (GameId(game_id), player), deque(maxlen=PRIVATE_NOTES_KEPT)
        )
        notes.append(
            {"outcome": outcome.outcome, "message": text_json(full), "wall_time_s": obs.wall_time_s}
        )
        if obs.source == f"{PRIVATE_SOURCE_PREFIX}{players[player].name}":
            return _with_message(outcome, full)
        return outcome

    def _sender_player(self, obs: Observation) -> int | None:
        """The player a private action was sent for: its ``player``, else the seat's."""
        session = self.session()
        if session is None:
            return None
        payload = obs.payload
        action = payload.get("action") if isinstance(payload, Mapping) else None
        player = action.get("player") if isinstance(action, Mapping) else None
        if isinstance(player, int) and not isinstance(player, bool):
            return player
        return self._player_at(session, obs.seat) if obs.seat is not None else None

    def _private_entry(
        self, session: TableSession | None, entry: LogEntry | None
    ) -> tuple[int | None, str, str] | None:
        """(player, who, kind) when a planned log entry applies a private action (a scanned
        ticket, whatever the input looked like) that others may not see yet."""
        if session is None or entry is None or _revealed(session):
            return None
        event = entry.event
        if not isinstance(event, ActionApplied | ActionCorrected):
            return None
        action = event.action
        if action.kind not in private_actions(session.game):
            return None
        who = _name_of(session, action.player)
        if isinstance(event, ActionCorrected):
            who = f"correct #{event.target_seq} → {who}"
        return action.player, who, action.kind

    def _private_refusal(
        self, session: TableSession, event: GameEvent, exc: TracksideError
    ) -> _PrivateFailureError | None:
        """The privacy rule for refusals: ``exc`` is derived from private state when a game
        raised :class:`PrivateRefusalError` (it read someone's hidden holdings), when the refused
        action is itself private, or when a correction or redo fails because a later private
        action would no longer hold. Then it is told only to that player."""
        if _revealed(session):
            return None
        kinds = private_actions(session.game)
        if isinstance(exc, PrivateRefusalError):
            return _PrivateFailureError(exc.text, exc.player)
        if isinstance(event, ActionApplied | ActionCorrected) and event.action.kind in kinds:
            return _PrivateFailureError(
                exc.text if isinstance(exc, IllegalActionError) else str(exc), event.action.player
            )
        if not isinstance(event, ActionCorrected):
            return None
        why = exc.text if isinstance(exc, IllegalActionError) else msg("{why}", why=str(exc))
        full: Text = (
            why
            if str(exc).startswith("correction of")
            else msg(
                "correction of #{seq} refused: an entry of yours would no longer hold: {why}",
                seq=event.target_seq,
                why=why,
            )
        )
        # which later action fails once the correction is in (the session says only in words)
        index = next((i for i, a in enumerate(session.applied) if a.seq == event.target_seq), None)
        if index is None:
            return None
        state = session.states[index]
        try:
            state = session.game.apply(state, event.action)
        except TracksideError as inner:
            return (
                _PrivateFailureError(full, inner.player)
                if isinstance(inner, PrivateRefusalError)
                else None
            )
        for later in session.applied[index + 1 :]:
            try:
                state = session.game.apply(state, later.action)
            except TracksideError as inner:
                if isinstance(inner, PrivateRefusalError):
                    return _PrivateFailureError(full, inner.player)
                if later.action.kind in kinds:
                    return _PrivateFailureError(full, later.action.player)
                return None
        return None

    def private_notes(self, game_id: int, player: int) -> list[JsonObject]:
        """What the engine told only ``player`` in game ``game_id`` (newest last)."""
        return list(self._state.private_notes.get((GameId(game_id), player), ()))

    def _private_message(
        self, session: TableSession | None, payload: Any, seat: int | None
    ) -> tuple[str, str] | None:
        """(who, action kind) when an input carries a private action of ``session``'s game
        that others may not see yet (the game is not over); ``None`` otherwise."""
        if session is None or _revealed(session):
            return None
        kind = private_kind(payload, private_actions(session.game))
        if kind is None:
            return None
        action = payload["action"]
        player = action.get("player")
        if not isinstance(player, int) and seat is not None:
            player = self._player_at(session, seat)
        players = session.started.players
        who = (
            players[player].name
            if isinstance(player, int) and 0 <= player < len(players)
            else "a player"
        )
        if payload.get("command") == "correct":
            who = f"#{payload.get('target_seq')} → {who}"
        return who, kind

    def _plan(self, obs: Observation) -> _Plan:
        kind = obs.kind
        if kind in (ObservationKind.ACTION, ObservationKind.COMMAND):
            self._check_seq(obs)
        if kind is ObservationKind.COMMAND:
            return self._plan_command(obs)
        if kind is ObservationKind.ACTION:
            session, game_id = self._active_session()
            action = Action.from_json(
                Field(thaw(obs.payload)).get("action").value, "payload.action"
            )
            if action.player is None and obs.seat is not None:
                action = Action(action.kind, self._player_at(session, obs.seat), action.args)
            return self._plan_event(session, game_id, ActionApplied(action), obs, "applied")
        if kind in (ObservationKind.TAG_PRESENT, ObservationKind.TEXT, ObservationKind.CARDS):
            if kind is not ObservationKind.CARDS and obs.tag:
                # bounded first, whatever the game's state (an over-long scan is refused)
                check_tag_length(obs.tag, "payload.uid" if "uid" in obs.payload else "payload.text")
            shown = self.session()
            if shown is not None and shown.is_ended:
                # a card turned up after the last move (the face-up row refilled by habit) is
                # kept, not refused: the table did nothing wrong, there is just nothing to enter
                return _Plan(
                    _outcome(
                        "logged",
                        msg(
                            "The game is over: a scan changes nothing (reopen the game to correct it)"
                        ),
                        self._state.active,
                    )
                )
        if kind in (ObservationKind.TAG_PRESENT, ObservationKind.TEXT):
            return self._plan_scan(obs)
        if kind is ObservationKind.CARDS:
            return self._plan_cards(obs)
        if kind is ObservationKind.ERROR:
            message = obs.payload.get("message", "")
            return _Plan(InputOutcome("logged", str(message), self._state.active))
        return _Plan(InputOutcome("logged", "", self._state.active))

    def _plan_scan(self, obs: Observation) -> _Plan:
        uid = obs.tag
        if not uid:
            raise SnapshotError("payload", "a scan carries a 'uid' or a 'text'")
        check_tag_length(uid, "payload.uid" if "uid" in obs.payload else "payload.text")
        session, game_id = self._active_session()
        game_name = session.game.name
        component = self._resolve_tag(uid, game_name)
        player = self._player_at(session, obs.seat) if obs.seat is not None else None
        try:
            result = session.game.interpret(session.state, player, component)
        except UnknownComponentError as exc:
            raise UnknownComponentError(f"tag {uid!r} → {component!r}: {exc}") from None
        if isinstance(result, Prompt):
            return _Plan(
                InputOutcome("prompt", render_text(result.question), game_id),
                prompt=result,
            )
        return self._plan_event(session, game_id, ActionApplied(result), obs, "applied")

    def _plan_cards(self, obs: Observation) -> _Plan:
        """The camera read cards (a tunnel reveal, the face-up row): the game says what they
        mean, if it reads cards at all."""
        session, game_id = self._active_session()
        read = getattr(session.game, "interpret_cards", None)
        if read is None:
            raise IllegalActionError(f"{session.game.title} does not read cards from the camera")
        colours = [c.str() for c in Field(thaw(obs.payload), "payload").get("colours").list()]
        result = read(session.state, colours)
        if isinstance(result, Prompt):
            return _Plan(
                InputOutcome("prompt", render_text(result.question), game_id), prompt=result
            )
        return self._plan_event(session, game_id, ActionApplied(result), obs, "applied")

    def _resolve_tag(self, uid: str, game_name: str) -> str:
        if uid.startswith(SELF_DESCRIBING_PREFIX):
            parts = uid.split(":", 2)
            if len(parts) == 3 and parts[1] and parts[2]:
                if parts[1] != game_name:
                    raise IllegalActionError(
                        f"label {uid!r} belongs to {parts[1]}, but {game_name} is on the table"
                    )
                return parts[2]
        binding = self.store.tag(uid)
        if binding is None:
            # players read no tag id: the table page finds the uid in status.unknown_tag
            self._state.prompt = Prompt(msg("unknown tag — enrol it on the table page"))
            self._state.unknown_tag = uid
            raise _UnknownTagError(f"unknown tag {uid!r}: enrol it on the table page")
        if binding.game != game_name:
            raise IllegalActionError(
                f"tag {uid!r} is enrolled as {binding.game} {binding.component!r}, "
                f"but {game_name} is on the table"
            )
        return binding.component

    def _plan_command(self, obs: Observation) -> _Plan:
        doc = Field(thaw(obs.payload), "payload")
        command = doc.get("command").str(
            frozenset(
                {
                    "start_game",
                    "undo",
                    "redo",
                    "correct",
                    "end_game",
                    "enrol",
                    "unenrol",
                    "select_game",
                    "save_board_table",
                    "set_player_pin",
                    "issue_seat_code",
                    "claim_seat",
                    "reopen_game",
                }
            )
        )
        active = self._state.active
        if command == "start_game":
            return self._plan_start(doc, obs)
        if command == "save_board_table":
            return self._plan_save_board_table(doc)
        if command == "set_player_pin":
            return self._plan_player_pin(doc)
        if command == "issue_seat_code":
            return self._plan_issue_seat_code(doc)
        if command == "claim_seat":
            return self._plan_claim_seat(doc)
        if command == "enrol":
            doc.only("command", "uid", "component", "game")
            uid = doc.get("uid").str()
            check_tag_length(uid)  # before it is looked at, quoted or kept
            component = doc.get("component").str()
            if active is not None and not doc.has("game"):
                game_name = self._state.sessions[active].game.name
            else:
                game_name = doc.get("game").str()
            binding = binding_for(uid, game_name, component)  # the same checks as the CLI
            return _Plan(
                InputOutcome("enrolled", f"{uid} → {binding.game} {component}", active),
                enrol=binding,
            )
        if command == "unenrol":  # the setup page: the reason stays in the input log
            doc.only("command", "uid", "reason")
            uid = doc.get("uid").str()
            check_tag_length(uid)
            reason = doc.get("reason").str().strip()
            if not reason:
                raise SnapshotError("reason", "say why the tag is removed (it is kept)")
            bound = self.store.tag(uid)
            if bound is None:
                raise SnapshotError("uid", f"tag {uid!r} is not enrolled")
            message = f"{uid} ({bound.game} {bound.component}) removed: {reason}"
            return _Plan(InputOutcome("unenrolled", message, active), unenrol=uid)
        if command == "select_game":
            game_id = GameId(doc.get("game_id").int(lo=1))
            if game_id not in self._state.sessions or self._state.sessions[game_id].is_ended:
                raise IllegalActionError(f"game {game_id} is not an unfinished game")
            return _Plan(InputOutcome("selected", f"game {game_id}", game_id), select=game_id)
        if command == "reopen_game":
            return self._plan_reopen(doc, obs)
        if command == "end_game" and self._already_finished(doc):
            # "end the game" for a game already filed as finished (by its rules, or by
            # another device a moment before): nothing to do
            return _Plan(
                _outcome(
                    "logged", msg("The game is already over: it was filed as finished"), active
                )
            )
        session, game_id = self._active_session()
        event: GameEvent
        if command == "undo":
            if not session.applied:
                raise IllegalActionError(msg("nothing to undo"))
            target = doc.get("target_seq", session.applied[-1].seq).int(lo=1)
            event = ActionUndone(target)
        elif command == "redo":
            if not session.redo_stack:
                raise IllegalActionError(msg("nothing to redo"))
            event = ActionRedone(doc.get("target_seq", session.redo_stack[-1].seq).int(lo=1))
        elif command == "correct":
            event = ActionCorrected(
                doc.get("target_seq").int(lo=1),
                Action.from_json(doc.get("action").value, "payload.action"),
            )
        else:
            over = session.game.is_over(session.state)
            reason = doc.get("reason", "finished" if over else "abandoned").str(
                frozenset({"finished", "abandoned"})
            )
            if reason == "finished" and not over:
                # "finished" files a final score: refused while the rules say play goes on
                waiting = session.game.status(session.state).waiting_for
                raise IllegalActionError(
                    "the game is not over by its rules"
                    + (f" (waiting for: {waiting})" if waiting else "")
                    + "; end it as abandoned, or play on"
                )
            if reason == "finished" and over:
                sheet = session.game.score(session.state)
                if not sheet.winners:
                    # filed, a game takes no more input: what the final scoring still needs
                    # (e.g. a Mini Express board-table cell) must be entered first
                    raise IllegalActionError(
                        "the final scoring is incomplete: "
                        + (
                            "; ".join(render_text(n) for n in sheet.notes)
                            or "no winner could be found"
                        )
                        + " — enter what it needs first, or end the game as abandoned"
                    )
            event = GameEnded(reason)
        return self._plan_event(session, game_id, event, obs, command)

    def _plan_reopen(self, doc: Field, obs: Observation) -> _Plan:
        """The table takes up an ended game again (a wrong "end game" tap, or a game filed too
        soon): a ``game_reopened`` event after its ``game_ended``; nothing is deleted."""
        doc.only("command", "game_id", "seq")
        shown = self._state.active
        game_id = GameId(doc.get("game_id", shown or 0).int(lo=1))
        session = self._state.sessions.get(game_id)
        if session is None:
            raise IllegalActionError(f"game {game_id} is not on the table: nothing to reopen")
        if not session.is_ended:
            raise IllegalActionError(f"game {game_id} has not ended: nothing to reopen")
        running = self.session()
        if running is not None and not running.is_ended and shown != game_id:
            raise IllegalActionError(
                f"game {shown} is running: end it before reopening game {game_id}"
            )
        return self._plan_event(session, game_id, GameReopened(), obs, "reopened game")

    def _plan_start(self, doc: Field, obs: Observation) -> _Plan:
        doc.only("command", "game", "players", "options")
        running = self.session()
        if running is not None and not running.is_ended:
            raise IllegalActionError(
                f"game {self._state.active} ({running.game.name}) is still running; end it first"
            )
        game = find_game(doc.get("game").str())
        players = []
        for p in doc.get("players").list(max_len=game.max_players):
            p.only("name", "colour", "seat")
            seat = p.get("seat", None)
            players.append(
                PlayerSpec(
                    name=p.get("name").str(),
                    colour=p.get("colour", "").str(),
                    seat=None if seat.value is None else seat.int(lo=1, hi=8),
                )
            )
        names = [p.name for p in players]
        if len(set(names)) != len(names) or not all(names):
            doc.get("players").fail("every player needs a different, non-empty name")
        seats = [p.seat for p in players if p.seat is not None]
        if len(set(seats)) != len(seats):
            doc.get("players").fail("two players at one seat")
        # the config's defaults for this game, then the options saved from the table page (the
        # board table), then what the start form chose, each replacing whole options of the one
        # before; the merged options go into the log, so a later config change or save never
        # alters a game already started
        config, saved = self.setup_defaults(game.name)
        options = {**config, **saved, **doc.get("options", {}).obj()}
        started = GameStarted(game.name, tuple(players), options)
        entry = LogEntry(1, started, obs.source, obs.wall_time_s)
        session = TableSession.start(game, entry)
        return _Plan(
            _outcome(
                "applied", msg("{game} started", game=game_title(game.name, game.title)), None, 1
            ),
            session=session,
            entry=entry,
            new_game=(game.name, tuple(names)),
        )

    def setup_defaults(self, game: str) -> tuple[JsonObject, JsonObject]:
        """(the config's options, the options saved from the table page) for ``game``."""
        return dict(self._game_options.get(game, {})), self.store.game_defaults(game)

    def _plan_save_board_table(self, doc: Field) -> _Plan:
        """Save the figures printed on the owner's board for the games that start later.

        Mini Express: its board table (share values), the rulebook's cells merged in, a cell
        that contradicts them refused by name; the whole saved table replaces the one saved
        before. Any other game that declares owner-supplied figures (``board_figures`` /
        ``board_figure_options``, e.g. Russian Railroads' unconfirmed figures): ``figures``
        ``{key: value}`` (null clears one), checked by the game. Other saved options stay."""
        figure_games = frozenset(
            {"mini-express"}
            | {n for n in game_names() if hasattr(find_game(n), "board_figure_options")}
        )
        game_name = doc.get("game").str(figure_games)
        if game_name != "mini-express":
            return self._plan_save_board_figures(doc, game_name)
        doc.only("command", "game", "share_values")
        game = doc.get("game").str(frozenset({"mini-express"}))
        entered = ShareValueTable.parse(doc.get("share_values"))
        table = ShareValueTable.from_rulebook().fill(
            entered.cells(), path=doc.get("share_values").path
        )
        options: JsonObject = {**self.store.game_defaults(game), "share_values": table.to_json()}
        known = len(table.cells())
        return _Plan(
            InputOutcome(
                "saved",
                f"board table saved for new {find_game(game).title} games: {known} of "
                f"{known + len(table.missing())} cells known, {len(table.missing())} unknown",
                self._state.active,
            ),
            defaults=(game, options),
        )

    def _plan_save_board_figures(self, doc: Field, game_name: str) -> _Plan:
        doc.only("command", "game", "figures")
        game = find_game(game_name)
        saver = game.board_figure_options  # type: ignore[attr-defined]
        figures = doc.get("figures").obj()
        options = saver(self.store.game_defaults(game.name), figures)
        known = sum(1 for v in figures.values() if v is not None)
        return _Plan(
            InputOutcome(
                "saved",
                f"board figures saved for new {game.title} games: {known} set from the box",
                self._state.active,
            ),
            defaults=(game.name, options),
        )

    def _private_seat(self, doc: Field) -> tuple[GameId, int, str]:
        """(game id, player, name) of the seat a PIN command is about: a player of the running
        game, which has private views."""
        session, game_id = self._active_session()
        if doc.has("game_id") and doc.get("game_id").int(lo=1) != game_id:
            doc.get("game_id").fail(f"game {game_id} is on the table now; reload the page")
        if not has_private_view(session.game):
            raise IllegalActionError(
                msg(
                    "{game} has no private views to protect",
                    game=game_title(session.game.name, session.game.title),
                )
            )
        players = session.started.players
        player = doc.get("player").int(lo=0, hi=len(players) - 1)
        return game_id, player, players[player].name

    def _plan_player_pin(self, doc: Field) -> _Plan:
        """Clear (``null``, from the table page) one player's PIN for their private view of the
        running game. Setting one is ``claim_seat``'s, with the seat code the table issued: the
        table PIN alone never sets a seat's PIN (else whoever holds the table reads any hand)."""
        doc.only("command", "player", "pin_hash", "game_id")
        game_id, player, name = self._private_seat(doc)
        hash_field = doc.get("pin_hash")
        if hash_field.value is not None:  # never echoed: it might be a mistyped PIN
            hash_field.fail(
                "a seat's PIN is set only with the seat code the table issued: send "
                "claim_seat with the code (issue_seat_code gives one), or use the /me page"
            )
        withdrawn = self._drop_seat_code(game_id, player)  # a code issued before opens nothing
        if self.store.player_pin_hash(game_id, player) is None:
            if withdrawn:
                return _Plan(
                    _outcome(
                        "pin_reset", msg("{player}'s seat code was withdrawn", player=name), game_id
                    )
                )
            raise IllegalActionError(msg("{player} has no private PIN to reset", player=name))
        return _Plan(
            _outcome("pin_reset", msg("{player}'s private PIN was reset", player=name), game_id),
            player_pin=(game_id, player, None),
        )

    def _plan_issue_seat_code(self, doc: Field) -> _Plan:
        """The table grants a seat a one-time code (15 minutes, once) that sets its PIN. The
        answer carries the code to whoever asked; the log and the screens say only that one
        was issued."""
        doc.only("command", "player", "game_id")
        game_id, player, name = self._private_seat(doc)
        if self.store.player_pin_hash(game_id, player) is not None:
            raise IllegalActionError(
                msg("{player} has a private PIN already; reset it first", player=name)
            )
        code = "".join(secrets.choice(SEAT_CODE_ALPHABET) for _ in range(SEAT_CODE_LENGTH))
        with self._codes_lock:  # a new code replaces the old one
            self._seat_codes[(game_id, player)] = (code, time.monotonic() + SEAT_CODE_TTL_S)
        return _Plan(
            _outcome(
                "seat_code",
                msg(
                    "a seat code for {player} was issued (once, {minutes} minutes)",
                    player=name,
                    minutes=int(SEAT_CODE_TTL_S // 60),
                ),
                game_id,
                reply={"code": code, "player": player, "expires_in_s": SEAT_CODE_TTL_S},
            )
        )

    def _plan_claim_seat(self, doc: Field) -> _Plan:
        """A seat's PIN (its salted hash, never the PIN) set with the seat code the table issued
        for it; the code then opens nothing again. The first PIN set wins."""
        doc.only("command", "player", "code", "pin_hash", "game_id")
        game_id, player, name = self._private_seat(doc)
        code = doc.get("code").str()
        if not self.seat_code_matches(game_id, player, code):
            doc.get("code").fail(
                f"not {name}'s seat code (codes work once, for "
                f"{int(SEAT_CODE_TTL_S // 60)} minutes): ask the table for a new one"
            )
        hash_field = doc.get("pin_hash")
        pin_hash = hash_field.value  # never echoed in a message: it might be a mistyped PIN
        if (
            not isinstance(pin_hash, str)
            or not pin_hash.startswith(PIN_HASH_SCHEMES)
            or len(pin_hash) > PIN_HASH_MAX_LEN
        ):
            hash_field.fail(
                f"expected a salted hash ({' or '.join(PIN_HASH_SCHEMES)}…), never the PIN itself"
            )
        if self.store.player_pin_hash(game_id, player) is not None:
            raise IllegalActionError(
                msg("{player} has a private PIN already; the table page can reset it", player=name)
            )
        self._drop_seat_code(game_id, player)  # used: even if the write fails, ask again
        return _Plan(
            _outcome(
                "pin_set",
                msg("{player} set a private PIN with the table's seat code", player=name),
                game_id,
            ),
            player_pin=(game_id, player, pin_hash),
        )

    def seat_code_matches(self, game_id: int, player: int, given: str) -> bool:
        """Whether ``given`` is the seat's live code (spaces, dashes and case ignored), compared
        in constant time. Any thread: pages check a code (counted as a guess) before hashing."""
        typed = normalise_seat_code(given).encode()
        with self._codes_lock:
            found = self._seat_codes.get((GameId(game_id), player))
        if found is None or found[1] <= time.monotonic():
            hmac.compare_digest(typed, b"x" * SEAT_CODE_LENGTH)
            return False
        return hmac.compare_digest(typed, found[0].encode())

    def seat_codes(self, game_id: int) -> dict[int, tuple[str, float]]:
        """The live seat codes of game ``game_id``: player → (code, seconds left), for the table
        page signed in with the table PIN. Any thread."""
        now = time.monotonic()
        with self._codes_lock:
            return {
                p: (code, until - now)
                for (g, p), (code, until) in self._seat_codes.items()
                if g == game_id and until > now
            }

    def _drop_seat_code(self, game_id: GameId, player: int) -> bool:
        """Forget the seat's code; whether there was one."""
        with self._codes_lock:
            return self._seat_codes.pop((game_id, player), None) is not None

    def private_view(self, game_id: int, player: int) -> JsonObject | None:
        """``player``'s own view of game ``game_id`` (``GAME.private_json``), for their
        PIN-checked page; ``None`` when the game is not here or offers no private view. Any
        thread: sessions are immutable."""
        session = self._state.sessions.get(GameId(game_id))
        if session is None or not has_private_view(session.game):
            return None
        if not 0 <= player < len(session.started.players):
            return None
        view: JsonObject = session.game.private_json(session.state, player)  # type: ignore[attr-defined]
        notes = self.private_notes(game_id, player)
        if notes:  # what was told only to this player (a refusal that reads their cards)
            view = {**view, "private_messages": notes}  # type: ignore[dict-item]
        return view

    def choices(
        self, viewer: int | None = None
    ) -> tuple[int, TableSession, GameId, tuple[Choice, ...]] | None:
        """What the table (or, with ``viewer``, that player) can enter now, for the active game:
        its log's last seq, the session, the game id and the tree (``table_choices``); ``None``
        with no game on the table. Any thread: sessions are immutable."""
        game_id = self._state.active
        if game_id is None:
            return None
        session = self._state.sessions.get(game_id)
        if session is None:
            return None
        tree = table_tree(session, viewer, self._state.prompt)
        return tree_seq(session), session, game_id, tree

    def revealed(self, game_id: int) -> bool | None:
        """Whether everything about game ``game_id`` may be shown (over by its rules; not
        merely ended: an abandoned game can be reopened); ``None`` for a game the engine does not hold. Any thread: sessions are
        immutable."""
        session = self._state.sessions.get(GameId(game_id))
        return None if session is None else _revealed(session)

    def _check_seq(self, obs: Observation) -> None:
        """An input built from a tree carries the seq the tree was for; when the table has
        moved on since, it is refused and nothing changes (the person sees the new tree)."""
        if not isinstance(obs.payload, Mapping) or "seq" not in obs.payload:
            return
        seen = Field(thaw(obs.payload), "payload").get("seq").int(lo=0)
        session = self.session()
        if session is None:
            return
        now = tree_seq(session)
        if seen != now:
            raise IllegalActionError(
                f"the table moved on: this choice was offered at entry #{seen}, the table is at "
                f"#{now}; nothing was changed, choose again"
            )

    def _plan_event(
        self, session: TableSession, game_id: GameId, event: GameEvent, obs: Observation, verb: str
    ) -> _Plan:
        entry = LogEntry(session.next_seq, event, obs.source, obs.wall_time_s)
        try:
            new_session = session.append(entry)
        except TracksideError as exc:
            routed = self._private_refusal(session, event, exc)
            if routed is not None:
                raise routed from exc
            raise
        text: Message | None = None
        if isinstance(event, ActionApplied):
            who = event.action.player
            players = session.started.players
            name = players[who].name if who is not None and 0 <= who < len(players) else "table"
            message = f"{name}: {event.action.describe()}"
            describe = getattr(session.game, "describe", None)
            # the move in the players' words (the TV's last moves); a private one keeps its
            # whole text, told only to its player (the public line comes from privacy)
            if event.action.kind in private_actions(session.game):
                # the whole move for its own player's view (the public reads its private line)
                describe = getattr(session.game, "describe_private", None)
            if describe is not None:
                try:
                    text = describe(event.action, [p.name for p in players])
                    message = text.render()
                except Exception:  # a describing bug must not cost the move
                    log.exception("engine: describing %r failed", event.action)
                    text = None
        else:
            text = _table_step(session, event, entry.seq)
            message = text.render()
        return _Plan(
            InputOutcome(
                "applied",
                message,
                game_id,
                entry.seq,
                text=None if text is None else text.to_json(),
            ),
            session=new_session,
            entry=entry,
            result=game_result(new_session) if isinstance(event, GameEnded) else None,
        )

    def _already_finished(self, doc: Field) -> bool:
        """The shown game was filed as finished and ``doc`` asks to finish it (again)."""
        active = self._state.active
        session = None if active is None else self._state.sessions.get(active)
        if session is None or session.ended != "finished":
            return False
        return doc.get("reason", "finished").str(frozenset({"finished", "abandoned"})) == "finished"

    def _active_session(self) -> tuple[TableSession, GameId]:
        game_id = self._state.active
        if game_id is None:
            raise IllegalActionError("no game is running: start one on the table page")
        session = self._state.sessions[game_id]
        if session.is_ended:
            raise IllegalActionError(
                f"game {game_id} has ended ({session.ended}): start a new one on the table page"
            )
        return session, game_id

    @staticmethod
    def _player_at(session: TableSession, seat: int) -> int | None:
        for index, player in enumerate(session.started.players):
            if player.seat == seat:
                return index
        return None

    # -- snapshots --------------------------------------------------------------------------
    def _publish(self, game_id: GameId | None, entry: LogEntry | None) -> None:
        snapshot = self._build_snapshot()
        event: JsonObject | None = None
        if entry is not None:
            event = event_to_json(entry.event)
            session = self._state.sessions.get(game_id) if game_id is not None else None
            if session is not None and not _revealed(session):
                event = redact_event(event, private_actions(session.game))
        with self._cond:
            self._version += 1
            self._snapshot = snapshot
            publication = Publication(self._version, snapshot, game_id, entry, event)
            self._cond.notify_all()
        for callback in list(self._subscribers):
            try:
                callback(publication)
            except Exception:
                log.exception("engine: a subscriber failed")

    def latest(self) -> tuple[int, JsonObject]:
        with self._cond:
            return self._version, self._snapshot

    def wait_newer(self, version: int, timeout_s: float) -> tuple[int, JsonObject]:
        """Block until a snapshot newer than ``version`` exists (or the timeout passes)."""
        with self._cond:
            self._cond.wait_for(lambda: self._version > version, timeout_s)
            return self._version, self._snapshot

    def session(self, game_id: GameId | None = None) -> TableSession | None:
        gid = self._state.active if game_id is None else game_id
        return None if gid is None else self._state.sessions.get(gid)

    def _build_snapshot(self) -> JsonObject:
        state = self._state
        now = time.time()
        status: JsonObject = {
            "passed_players": [],
            "devices": dict(state.devices),
            "store_error": state.store_error,
            "recent": list(state.recent),
            "broken_games": {str(k): v for k, v in state.broken.items()},
            "prompt": None if state.prompt is None else state.prompt.to_json(),
            "unfinished_games": [
                gid for gid, s in sorted(state.sessions.items()) if not s.is_ended
            ],
        }
        snapshot: JsonObject = {
            "schema": SNAPSHOT_SCHEMA,
            "game": None,
            "game_id": None,
            "title": "",
            "seq": 0,
            "over": False,
            "players": [],
            "winners": [],
            "notes": [],
            "problems": [],
            "table": None,
            "view": None,
            "status": status,
            "cues": [],
            "updated_at": now,
        }
        session = self.session()
        if session is None:
            status["waiting_for"] = msg("a game to start").to_json()
            return snapshot
        game = session.game
        st = session.state
        try:
            sheet = game.score(st)
            turn = game.status(st)
            # the live screens' table: a game may leave out what its public view already
            # carries (``screen_json``), else its public snapshot
            screen = getattr(game, "screen_json", None)
            public = screen if callable(screen) else getattr(game, "public_json", game.to_json)
            table: JsonObject = public(st)
            view = game.public_view(st).to_json()
            problems = [p.to_json() for p in game.problems(st)]
        except Exception as exc:  # a scoring bug must not blank the scoreboard
            log.exception("engine: building the snapshot failed")
            status["waiting_for"] = f"internal error while scoring: {exc!r}"
            return snapshot
        players = []
        for index, (spec, score) in enumerate(
            zip(session.started.players, sheet.players, strict=False)
        ):
            players.append(
                {
                    "index": index,
                    "name": spec.name,
                    "colour": spec.colour,
                    "seat": spec.seat,
                    "total": score.total,
                }
            )
        status.update(turn.to_json())
        status["passed_players"] = _passed_players(st, len(players))
        over = game.is_over(st)
        if state.active is not None:
            before = state.rounds.get(state.active)
            if before is not None and (
                (turn.round is not None and before[0] is not None and turn.round > before[0])
                or (over and not before[1] and turn.round is not None)
            ):
                state.cues.append({"kind": "round_end", "round": before[0], "at_s": now})
            state.rounds[state.active] = (turn.round, over)
            state.cues.extend(_moment_cues(session, view, state.moments, state.active, now))
        if session.is_ended:
            status.update(
                active_players=[],
                waiting_for=(
                    msg("a new game (this one is over and filed)")
                    if session.ended == "finished"
                    else msg("a new game (this one was abandoned)")
                ).to_json(),
            )
        if state.prompt is not None:
            status["prompt"] = state.prompt.to_json()
            if state.unknown_tag:
                status["unknown_tag"] = state.unknown_tag
        snapshot.update(
            game=game.name,
            game_id=state.active,
            title=game_title(game.name, game.title).to_json(),
            seq=session.entries[-1].seq,
            over=over,
            players=players,  # type: ignore[arg-type]
            winners=list(sheet.winners),
            notes=[text_json(n) for n in sheet.notes],
            problems=problems,  # type: ignore[arg-type]
            table=table,
            view=view,
            can_undo=bool(session.applied),
            can_redo=bool(session.redo_stack),
        )
        # short-lived signals for the LEDs (docs/leds.md), newest last; old ones drop out
        snapshot["cues"] = [dict(c) for c in state.cues if now - float(c["at_s"]) < CUE_LIFETIME_S]  # type: ignore[arg-type]
        return snapshot


def _complete(session: TableSession) -> bool:
    """Over by the rules, nothing left to tell for the final scoring, and a winner found."""
    game, state = session.game, session.state
    if not game.is_over(state):
        return False
    settled = getattr(game, "settled", None)
    if settled is not None and not settled(state):
        return False
    return bool(game.score(state).winners)


def _revealed(session: TableSession) -> bool:
    """Whether everything about the game may be shown: it is over by the rules. An abandoned
    game is not (it can be reopened and played on): its secrets stay secret."""
    return bool(session.game.is_over(session.state))


def _passed_players(state: object, count: int) -> list[JsonValue]:
    """Players who passed this round, for games with passing (Russian Railroads keeps them as
    ``state.passed``); [] for the rest."""
    passed = getattr(state, "passed", None)
    if not isinstance(passed, frozenset | set | tuple | list):
        return []
    return [p for p in sorted(passed) if isinstance(p, int) and 0 <= p < count]


def _seat_of(session: TableSession, player: int) -> int:
    players = session.started.players
    if 0 <= player < len(players) and players[player].seat is not None:
        return int(players[player].seat)  # type: ignore[arg-type]
    return player + 1  # a player without a seat sits at seat index + 1 (docs/leds.md)


def _seat_cue(obs: Observation, exc: Exception) -> JsonObject:
    """A refused input at a seat's reader: that seat blinks red."""
    if isinstance(exc, _UnknownTagError):
        return {"kind": "unknown_tag", "seat": obs.seat, "uid": obs.tag or "", "at_s": time.time()}
    return {"kind": "error", "seat": obs.seat, "message": str(exc), "at_s": time.time()}


def _moment_cues(
    session: TableSession,
    view: JsonObject,
    published: dict[GameId, frozenset[str]],
    game_id: GameId,
    now: float,
) -> list[JsonObject]:
    """The LED cues of the public view's new moments (DESIGN.md, "Screens show": the cues read
    the view, they never work a game out): a tunnel's verdict flashes its claimer's seat green
    (no extra cards: claimed at once) or amber (1–3 owed). A game seen for the first time (a
    restart, another game selected) announces nothing: its moments are old news. The last
    round's start is a cue too (``last_round``): the strip shows nothing for it, Home
    Assistant gets it as an event."""
    listed = view.get("moments")
    moments = [m for m in listed if isinstance(m, dict)] if isinstance(listed, list) else []
    keys = frozenset(str(m.get("key")) for m in moments)
    before = published.get(game_id)
    published[game_id] = keys
    if before is None:
        return []
    cues: list[JsonObject] = []
    for m in moments:
        if str(m.get("key")) in before:
            continue
        if m.get("kind") == "last_round":  # for Home Assistant; the strip has no show for it
            cue: JsonObject = {"kind": "last_round", "at_s": now}
            if isinstance(m.get("round"), int):
                cue["round"] = m["round"]
            cues.append(cue)
            continue
        if m.get("kind") != "tunnel":
            continue
        extra, player = m.get("extra_cards"), m.get("player")
        if not isinstance(extra, int) or not 0 <= extra <= 3 or not isinstance(player, int):
            continue
        cues.append(
            {"kind": "tunnel", "seat": _seat_of(session, player), "extra_cards": extra, "at_s": now}
        )
    return cues


def _recent_from(
    obs: Observation,
    outcome: InputOutcome,
    private: tuple[str, str] | None = None,
    hidden: bool = False,
) -> JsonObject:
    """One row of the scoreboard's recent inputs; a private input (``private`` = who, kind)
    shows as ``Ann: speculate (private)``, never its arguments or the engine's message, and a
    ``hidden`` one (private, or refused for a private reason) without the tag it scanned (a
    printed ticket label names the ticket)."""
    message: JsonValue = outcome.text if outcome.text is not None else outcome.message
    if private is not None:
        message = public_text(private[0], private[1], outcome.outcome).to_json()
    return {
        "source": obs.source,
        "seat": obs.seat,
        "kind": obs.kind.value,
        "what": "" if hidden or private is not None else _shown_tag(obs.tag or ""),
        "outcome": outcome.outcome,
        "message": message,
        "wall_time_s": obs.wall_time_s,
    }


def _shown_tag(tag: str) -> str:
    """A scanned tag as the recent inputs show it: a longer one than any tag can be (refused)
    by its start and length, so it does not ride along in every snapshot to every screen."""
    if len(tag) <= MAX_TAG_CHARS:
        return tag
    return f"{tag[:24]}… ({len(tag)} characters)"


def _recent(item: Mapping[str, Any]) -> JsonObject:
    payload = item.get("payload") or {}
    what = payload.get("uid") or payload.get("text") or "" if isinstance(payload, dict) else ""
    message = str(item["message"] or "")
    if PRIVATE_NOTE in message or message == PRIVATE_REFUSAL:  # recorded private: no tag either
        what = ""
    return {
        "source": item["source"],
        "seat": item["seat"],
        "kind": item["kind"],
        "what": _shown_tag(what) if isinstance(what, str) else "",
        "outcome": item["outcome"] or "unprocessed",
        "message": item["message"] or "",
        "wall_time_s": item["wall_time_s"],
    }


def normalise_seat_code(given: str) -> str:
    """A seat code as typed (``abcd-2345``, spaces) in the form it was issued."""
    return "".join(c for c in given.upper() if c not in " -")[: SEAT_CODE_LENGTH * 2]


def _without_seat_code(observation: Observation) -> Observation:
    """A ``claim_seat`` input as it is stored: the code left out (whoever reads the log later
    learns nothing from it, even from a claim refused for another reason)."""
    payload = observation.payload
    if (
        observation.kind is not ObservationKind.COMMAND
        or not isinstance(payload, Mapping)
        or payload.get("command") != "claim_seat"
        or "code" not in payload
    ):
        return observation
    stored = thaw(payload)
    assert isinstance(stored, dict)
    return replace(observation, payload={**stored, "code": "…"})
