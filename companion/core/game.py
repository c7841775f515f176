"""The one interface every game implements (OpenSpiel style), as pure functions over immutable
state (boardgame.io style). The service, the pages and the tests know games only through it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, runtime_checkable

from companion.core.actions import Action, Prompt
from companion.core.choices import Choice
from companion.core.jsonvalue import JsonObject
from companion.core.messages import Text, text_json
from companion.core.problems import Problem
from companion.core.public import PublicView
from companion.core.scoring import ScoreSheet

S = TypeVar("S")


@dataclass(frozen=True, slots=True)
class PlayerSpec:
    """A player at the table: name, seat colour (for pages and LEDs) and the seat they sit at
    (the seat's reader says who scanned)."""

    name: str
    colour: str = ""
    seat: int | None = None

    def to_json(self) -> JsonObject:
        return {"name": self.name, "colour": self.colour, "seat": self.seat}


@dataclass(frozen=True, slots=True)
class Component:
    """A physical component that can carry a tag or a printed code."""

    id: str
    name: str
    kind: str


@dataclass(frozen=True, slots=True)
class TurnStatus:
    """What the scoreboard shows besides scores: whose turn, what Trackside waits for."""

    active_players: tuple[int, ...] = ()
    phase: Text = ""
    waiting_for: Text = ""
    """What Trackside waits for, to follow "Waiting for …" (a message: each reader's language)."""
    round: int | None = None
    prompt: Prompt | None = None

    def to_json(self) -> JsonObject:
        return {
            "active_players": list(self.active_players),
            "phase": text_json(self.phase),
            "waiting_for": text_json(self.waiting_for),
            "round": self.round,
            "prompt": None if self.prompt is None else self.prompt.to_json(),
        }


@runtime_checkable
class Game(Protocol[S]):
    """A game's rules. Every method is pure; ``S`` is the game's frozen table state."""

    name: str
    """The game id, e.g. ``"russian-railroads"``."""
    title: str
    min_players: int
    max_players: int
    hidden: bool
    """True for games that exist only for tests (not offered to players)."""
    components: tuple[Component, ...]

    def setup(self, players: Sequence[PlayerSpec], options: Mapping[str, Any]) -> S:
        """The table after setup. Raises ``IllegalActionError`` / ``SnapshotError`` on bad
        players or options."""
        ...

    def apply(self, state: S, action: Action) -> S:
        """The new state, or ``IllegalActionError`` naming the rule and leaving ``state``
        untouched (it is immutable)."""
        ...

    def choices(self, state: S, viewer: int | None = None) -> tuple[Choice, ...]:
        """What the table can enter now, as a tree (``companion.core.choices``): every leaf is
        an input ``apply`` accepts. ``viewer=None`` is the table's view and never reveals what a
        player holds face down; ``viewer=N`` adds player N's own secret choices."""
        ...

    def interpret(self, state: S, player: int | None, component: str) -> Action | Prompt:
        """Turn "player scanned component" into an action, or a question for the table."""
        ...

    def problems(self, state: S) -> tuple[Problem, ...]:
        """Everything impossible about this table (empty when consistent)."""
        ...

    def is_over(self, state: S) -> bool: ...

    def status(self, state: S) -> TurnStatus: ...

    def public_view(self, state: S) -> PublicView:
        """What the table sees (``companion.core.public``): standings with every public count,
        the score sheet by category, the status sentence, the moments to announce. Every
        screen renders this and works nothing out itself; it never holds a secret."""
        ...

    def score(self, state: S) -> ScoreSheet:
        """The itemised score: the running score during play, the final score when over. A game
        that is over but cannot complete its final scoring yet (a board figure the table still
        has to enter) returns no ``winners`` and says in ``notes`` what it needs; the engine
        then refuses to file the game as finished."""
        ...

    def score_snapshot(self, data: Any) -> ScoreSheet:
        """Score a table snapshot in the game's notation (``trackside score``): validate it
        (``SnapshotError`` with the field path) and return the sheet the contract asks for."""
        ...

    def to_json(self, state: S) -> JsonObject:
        """The table snapshot (the documented, versioned notation in docs/formats/)."""
        ...

    def from_json(self, data: Any) -> S:
        """Parse a table snapshot; ``SnapshotError`` with the field path when malformed."""
        ...
