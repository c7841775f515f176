"""Game actions (commands to a game) and prompts (questions a game asks the table).

An action is data, boardgame.io style: a ``kind`` naming the move, the acting player, and
JSON arguments. Each game validates the arguments itself and names the field when they are wrong.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from companion.core.errors import SnapshotError
from companion.core.jsonvalue import FrozenJson, JsonObject, freeze, thaw
from companion.core.messages import Text, text_json
from companion.core.swatches import check_swatches


@dataclass(frozen=True, slots=True)
class Action:
    """One move or effect on the table, e.g. ``Action("claim_route", 0, {"route": "…"})``."""

    kind: str
    player: int | None = None
    args: FrozenJson = field(default_factory=lambda: freeze({}))

    def __post_init__(self) -> None:
        object.__setattr__(self, "args", freeze(self.args))

    def arg(self, name: str, default: Any = None) -> Any:
        return self.args.get(name, default)

    def to_json(self) -> JsonObject:
        data: JsonObject = {"kind": self.kind}
        if self.player is not None:
            data["player"] = self.player
        if self.args:
            data["args"] = thaw(self.args)
        return data

    @classmethod
    def from_json(cls, data: Any, path: str = "action") -> Action:
        if not isinstance(data, Mapping):
            raise SnapshotError(path, f"expected an object, got {data!r}")
        kind = data.get("kind")
        if not isinstance(kind, str) or not kind:
            raise SnapshotError(f"{path}.kind", f"expected an action name, got {kind!r}")
        player = data.get("player")
        if player is not None and (
            not isinstance(player, int) or isinstance(player, bool) or player < 0
        ):
            raise SnapshotError(f"{path}.player", f"expected a player index ≥ 0, got {player!r}")
        args = data.get("args", {})
        if not isinstance(args, Mapping):
            raise SnapshotError(f"{path}.args", f"expected an object, got {args!r}")
        unknown = set(data) - {"kind", "player", "args"}
        if unknown:
            raise SnapshotError(f"{path}.{sorted(unknown)[0]}", "unknown field")
        return cls(kind=kind, player=player, args=freeze(args))

    def __str__(self) -> str:
        who = "" if self.player is None else f"player {self.player}: "
        return f"{who}{self.describe()}"

    def describe(self) -> str:
        """The move in words for people: ``claim_route route=paris-wien cards=red,red``."""
        parts = [self.kind.replace("_", " ")]
        for key, value in thaw(self.args).items():  # type: ignore[union-attr]
            parts.append(f"{key}={_words(value)}")
        return " ".join(parts)


@dataclass(frozen=True, slots=True)
class Prompt:
    """A question the table must answer before the game can go on.

    ``options`` are the possible answers, each already an action, so the page only picks one.
    ``labels``, when given, say each answer to people (one per option) where the game has a
    shorter word than the move's own sentence: the colour of the one card a reveal missed,
    rather than nine whole reveals that differ in one card. ``swatches``, when given, are one
    colour per option that a page shows beside its label (names from
    :data:`~companion.core.swatches.SWATCHES`; ``""`` for an answer without one).
    """

    question: Text
    player: int | None = None
    options: tuple[Action, ...] = ()
    labels: tuple[Text, ...] = ()
    swatches: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.labels and len(self.labels) != len(self.options):
            raise ValueError(f"{len(self.labels)} labels for {len(self.options)} options")
        if self.swatches and len(self.swatches) != len(self.options):
            raise ValueError(f"{len(self.swatches)} swatches for {len(self.options)} options")
        check_swatches([s for s in self.swatches if s], "prompt")

    def to_json(self) -> JsonObject:
        data: JsonObject = {
            "question": text_json(self.question),
            "player": self.player,
            "options": [o.to_json() for o in self.options],
        }
        if self.labels:
            data["labels"] = [text_json(label) for label in self.labels]
        if self.swatches:
            data["swatches"] = list(self.swatches)
        return data


def _words(value: object) -> str:
    """``[{"track": "kiev", "steps": 2}, …]`` → ``kiev 2; …``: short enough for a status line."""
    if isinstance(value, dict):
        if value and all(isinstance(v, int) and not isinstance(v, bool) for v in value.values()):
            return " ".join(f"{v}×{k}" for k, v in value.items())  # cards: 2×red 1×locomotive
        return " ".join(_words(v) for v in value.values())
    if isinstance(value, list):
        sep = "; " if any(isinstance(v, dict | list) for v in value) else ","
        return sep.join(_words(v) for v in value)
    return str(value)
