"""Events of a game's append-only log. State = replay(events); nothing is ever edited.

Undo, redo and corrections are events too, so a mistake and its repair both stay on record.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from companion.core.actions import Action
from companion.core.errors import SnapshotError
from companion.core.game import PlayerSpec
from companion.core.jsonvalue import FrozenJson, JsonObject, freeze, thaw
from companion.core.snapshot import Field


@dataclass(frozen=True, slots=True)
class GameStarted:
    game: str
    players: tuple[PlayerSpec, ...]
    options: FrozenJson = field(default_factory=lambda: freeze({}))

    def __post_init__(self) -> None:
        object.__setattr__(self, "options", freeze(self.options))


@dataclass(frozen=True, slots=True)
class ActionApplied:
    action: Action


@dataclass(frozen=True, slots=True)
class ActionUndone:
    """Takes back the action logged at ``target_seq`` (it must be the last one in effect)."""

    target_seq: int


@dataclass(frozen=True, slots=True)
class ActionRedone:
    """Puts back the action undone most recently, logged at ``target_seq``."""

    target_seq: int


@dataclass(frozen=True, slots=True)
class ActionCorrected:
    """Replaces the action logged at ``target_seq``; every later action is replayed on top."""

    target_seq: int
    action: Action


@dataclass(frozen=True, slots=True)
class GameEnded:
    reason: str = "finished"  # "finished" | "abandoned"


@dataclass(frozen=True, slots=True)
class GameReopened:
    """An ended game taken up again by the table: its end stays in the log (nothing is ever
    deleted), and play goes on from where it stopped."""


GameEvent = (
    GameStarted
    | ActionApplied
    | ActionUndone
    | ActionRedone
    | ActionCorrected
    | GameEnded
    | GameReopened
)

EVENT_TYPES: dict[str, type[Any]] = {
    "game_started": GameStarted,
    "action_applied": ActionApplied,
    "action_undone": ActionUndone,
    "action_redone": ActionRedone,
    "action_corrected": ActionCorrected,
    "game_ended": GameEnded,
    "game_reopened": GameReopened,
}
_TYPE_NAMES = {cls: name for name, cls in EVENT_TYPES.items()}


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One row of a game's event log: its sequence number (1, 2, …), the event, who entered
    it (a reader, ``table-page``, …) and when (Unix time)."""

    seq: int
    event: GameEvent
    by: str = ""
    wall_time_s: float = 0.0


def event_type(event: GameEvent) -> str:
    return _TYPE_NAMES[type(event)]


def event_to_json(event: GameEvent) -> JsonObject:
    data: JsonObject = {"type": event_type(event)}
    match event:
        case GameStarted():
            data["game"] = event.game
            data["players"] = [p.to_json() for p in event.players]
            data["options"] = thaw(event.options)
        case ActionApplied():
            data["action"] = event.action.to_json()
        case ActionUndone() | ActionRedone():
            data["target_seq"] = event.target_seq
        case ActionCorrected():
            data["target_seq"] = event.target_seq
            data["action"] = event.action.to_json()
        case GameEnded():
            data["reason"] = event.reason
    return data


def event_from_json(data: Any, path: str = "event") -> GameEvent:
    doc = Field(data, path)
    kind = doc.get("type").str(frozenset(EVENT_TYPES))
    if kind == "game_started":
        players = tuple(
            PlayerSpec(
                name=p.get("name").str(),
                colour=p.get("colour", "").str(),
                seat=None if p.get("seat", None).value is None else p.get("seat").int(lo=1),
            )
            for p in doc.get("players").list()
        )
        options = doc.get("options", {}).obj()
        return GameStarted(doc.get("game").str(), players, freeze(options))
    if kind == "action_applied":
        return ActionApplied(Action.from_json(doc.get("action").value, f"{path}.action"))
    if kind in ("action_undone", "action_redone"):
        target = doc.get("target_seq").int(lo=1)
        return ActionUndone(target) if kind == "action_undone" else ActionRedone(target)
    if kind == "action_corrected":
        return ActionCorrected(
            doc.get("target_seq").int(lo=1),
            Action.from_json(doc.get("action").value, f"{path}.action"),
        )
    if kind == "game_ended":
        return GameEnded(doc.get("reason", "finished").str(frozenset({"finished", "abandoned"})))
    if kind == "game_reopened":
        return GameReopened()
    raise SnapshotError(f"{path}.type", f"unhandled event type {kind!r}")  # pragma: no cover
