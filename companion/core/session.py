"""A table session: one game's log folded into its current state (state = replay(events)).

Pure and immutable: :meth:`TableSession.append` returns a new session or raises, leaving the
old one as it was. The service keeps one per game and persists each entry *before* it swaps
the new session in.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from companion.core.actions import Action
from companion.core.errors import IllegalActionError, TracksideError
from companion.core.events import (
    ActionApplied,
    ActionCorrected,
    ActionRedone,
    ActionUndone,
    GameEnded,
    GameReopened,
    GameStarted,
    LogEntry,
)
from companion.core.game import Game


@dataclass(frozen=True, slots=True)
class AppliedAction:
    """An action in effect: the log entry that put it there (its own seq, or the correction's
    target seq) and the action."""

    seq: int
    action: Action


@dataclass(frozen=True, slots=True)
class TableSession:
    game: Game[Any]
    started: GameStarted
    entries: tuple[LogEntry, ...]
    applied: tuple[AppliedAction, ...] = ()
    states: tuple[Any, ...] = ()
    """``states[0]`` is the set-up table, ``states[i + 1]`` the table after ``applied[i]``."""
    redo_stack: tuple[AppliedAction, ...] = ()
    ended: str | None = None

    # -- construction ---------------------------------------------------------------------
    @classmethod
    def start(cls, game: Game[Any], entry: LogEntry) -> TableSession:
        if entry.seq != 1 or not isinstance(entry.event, GameStarted):
            raise TracksideError(f"a game log starts with game_started at seq 1, got {entry!r}")
        started = entry.event
        if started.game != game.name:
            raise TracksideError(f"log is for {started.game!r}, not {game.name!r}")
        initial = game.setup(started.players, started.options)
        return cls(game=game, started=started, entries=(entry,), states=(initial,))

    @classmethod
    def replay(
        cls, game: Game[Any], entries: list[LogEntry] | tuple[LogEntry, ...]
    ) -> TableSession:
        """Fold a whole log. Raises if any entry does not apply (a log must replay exactly)."""
        if not entries:
            raise TracksideError("an empty log has no game_started entry")
        session = cls.start(game, entries[0])
        for entry in entries[1:]:
            session = session.append(entry)
        return session

    # -- views ----------------------------------------------------------------------------
    @property
    def state(self) -> Any:
        return self.states[-1]

    @property
    def next_seq(self) -> int:
        return self.entries[-1].seq + 1

    @property
    def is_ended(self) -> bool:
        return self.ended is not None

    # -- folding --------------------------------------------------------------------------
    def append(self, entry: LogEntry) -> TableSession:
        """The session with ``entry`` folded in, or an error naming why it cannot be."""
        if entry.seq != self.next_seq:
            raise TracksideError(
                f"log entry seq {entry.seq} out of order; expected {self.next_seq}"
            )
        event = entry.event
        if self.ended is not None and not isinstance(event, GameReopened):
            raise IllegalActionError(f"the game has ended ({self.ended}); nothing more applies")
        entries = (*self.entries, entry)
        match event:
            case ActionApplied(action=action):
                new_state = self.game.apply(self.state, action)
                return replace(
                    self,
                    entries=entries,
                    applied=(*self.applied, AppliedAction(entry.seq, action)),
                    states=(*self.states, new_state),
                    redo_stack=(),
                )
            case ActionUndone(target_seq=target):
                if not self.applied:
                    raise IllegalActionError("nothing to undo: no action is in effect")
                last = self.applied[-1]
                if last.seq != target:
                    raise IllegalActionError(
                        f"undo of #{target} refused: the last action in effect is #{last.seq}"
                    )
                return replace(
                    self,
                    entries=entries,
                    applied=self.applied[:-1],
                    states=self.states[:-1],
                    redo_stack=(*self.redo_stack, last),
                )
            case ActionRedone(target_seq=target):
                if not self.redo_stack:
                    raise IllegalActionError("nothing to redo")
                last = self.redo_stack[-1]
                if last.seq != target:
                    raise IllegalActionError(
                        f"redo of #{target} refused: the last undone action is #{last.seq}"
                    )
                new_state = self.game.apply(self.state, last.action)
                return replace(
                    self,
                    entries=entries,
                    applied=(*self.applied, last),
                    states=(*self.states, new_state),
                    redo_stack=self.redo_stack[:-1],
                )
            case ActionCorrected(target_seq=target, action=action):
                index = next((i for i, a in enumerate(self.applied) if a.seq == target), None)
                if index is None:
                    raise IllegalActionError(f"correction refused: #{target} is not in effect")
                applied = [*self.applied[:index], AppliedAction(target, action)]
                states = list(self.states[: index + 1])
                states.append(self._apply_or_explain(states[-1], action, target, target))
                for later in self.applied[index + 1 :]:
                    states.append(
                        self._apply_or_explain(states[-1], later.action, later.seq, target)
                    )
                    applied.append(later)
                return replace(
                    self,
                    entries=entries,
                    applied=tuple(applied),
                    states=tuple(states),
                    redo_stack=(),
                )
            case GameEnded(reason=reason):
                return replace(self, entries=entries, ended=reason)
            case GameReopened():
                if self.ended is None:
                    raise IllegalActionError("the game has not ended: nothing to reopen")
                return replace(self, entries=entries, ended=None)
            case GameStarted():
                raise TracksideError("game_started may only open a log")
        raise TracksideError(f"unknown event {event!r}")  # pragma: no cover

    def _apply_or_explain(self, state: Any, action: Action, seq: int, corrected: int) -> Any:
        try:
            return self.game.apply(state, action)
        except IllegalActionError as exc:
            raise IllegalActionError(
                f"correction of #{corrected} refused: #{seq} ({action}) would no longer be "
                f"legal: {exc}"
            ) from exc
