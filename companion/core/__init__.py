"""The pure core: ids, observations, actions, events, replay, errors, score sheets.

Standard library only (a test enforces it)."""

from companion.core.actions import Action, Prompt
from companion.core.errors import (
    ConfigError,
    CorruptDatabaseError,
    EnrolmentError,
    IllegalActionError,
    SchemaTooNewError,
    SnapshotError,
    StoreError,
    TracksideError,
    UnknownComponentError,
    UnknownGameError,
)
from companion.core.events import (
    ActionApplied,
    ActionCorrected,
    ActionRedone,
    ActionUndone,
    GameEnded,
    GameEvent,
    GameStarted,
    LogEntry,
)
from companion.core.game import Component, Game, PlayerSpec, TurnStatus
from companion.core.observation import Observation, ObservationKind
from companion.core.problems import Problem
from companion.core.scoring import PlayerScore, ScoreLine, ScoreSheet, highest
from companion.core.session import AppliedAction, TableSession
from companion.core.snapshot import Field

__all__ = [
    "Action",
    "ActionApplied",
    "ActionCorrected",
    "ActionRedone",
    "ActionUndone",
    "AppliedAction",
    "Component",
    "ConfigError",
    "CorruptDatabaseError",
    "EnrolmentError",
    "Field",
    "Game",
    "GameEnded",
    "GameEvent",
    "GameStarted",
    "IllegalActionError",
    "LogEntry",
    "Observation",
    "ObservationKind",
    "PlayerScore",
    "PlayerSpec",
    "Problem",
    "Prompt",
    "SchemaTooNewError",
    "ScoreLine",
    "ScoreSheet",
    "SnapshotError",
    "StoreError",
    "TableSession",
    "TracksideError",
    "TurnStatus",
    "UnknownComponentError",
    "UnknownGameError",
    "highest",
]
