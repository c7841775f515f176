"""Tiny Race rules (see the package docstring). "Rulebook" sections are this docstring's."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from companion.core.actions import Action, Prompt
from companion.core.choices import Choice
from companion.core.errors import IllegalActionError, SnapshotError, UnknownComponentError
from companion.core.game import Component, PlayerSpec, TurnStatus
from companion.core.jsonvalue import JsonObject
from companion.core.messages import msg, plural
from companion.core.problems import Problem
from companion.core.public import PublicView
from companion.core.scoring import PlayerScore, ScoreLine, ScoreSheet, highest
from companion.core.snapshot import Field

NAME = "tiny-race"
FORMAT = 1
FINISH_BONUS = 5
MAX_STEPS = 3


@dataclass(frozen=True, slots=True)
class TinyRaceState:
    names: tuple[str, ...]
    positions: tuple[int, ...]
    target: int = 10
    turn: int = 0
    finished_by: int | None = None


class TinyRace:
    name = NAME
    title = "Tiny Race (test game)"
    min_players = 1
    max_players = 6
    hidden = True
    components = tuple(Component(f"die-{n}", f"Die showing {n}", "die") for n in range(1, 4))

    def setup(self, players: Sequence[PlayerSpec], options: Mapping[str, Any]) -> TinyRaceState:
        if not self.min_players <= len(players) <= self.max_players:
            raise IllegalActionError(
                plural("{n} player", "{n} players", "n", n=len(players)),
                rule=msg(
                    "Tiny Race is played by {lo} to {hi} players",
                    lo=self.min_players,
                    hi=self.max_players,
                ),
            )
        opts = Field(dict(options), "options")
        opts.only("target")
        target = opts.get("target", 10).int(lo=1, hi=100)
        return TinyRaceState(
            names=tuple(p.name for p in players),
            positions=(0,) * len(players),
            target=target,
        )

    def apply(self, state: TinyRaceState, action: Action) -> TinyRaceState:
        if state.finished_by is not None:
            raise IllegalActionError(
                msg("the race is over"), rule=msg("the first to reach the target ends the game")
            )
        if action.kind != "advance":
            raise IllegalActionError(
                msg("Tiny Race has no such move"), rule=msg("the only move is to advance")
            )
        if action.player != state.turn:
            raise IllegalActionError(
                msg("it is {player}'s turn", player=state.names[state.turn]),
                rule=msg("players move in seat order"),
            )
        args = Field(dict(action.args), "args")
        args.only("steps")
        steps = args.get("steps").int()
        if not 1 <= steps <= MAX_STEPS:
            raise IllegalActionError(
                msg("advancing by {n}", n=steps), rule=msg("advance 1–3 spaces")
            )
        positions = list(state.positions)
        positions[state.turn] = min(state.target, positions[state.turn] + steps)
        finished = state.turn if positions[state.turn] >= state.target else None
        return replace(
            state,
            positions=tuple(positions),
            turn=(state.turn + 1) % len(state.names),
            finished_by=finished,
        )

    def interpret(
        self, state: TinyRaceState, player: int | None, component: str
    ) -> Action | Prompt:
        for c in self.components:
            if c.id == component:
                steps = int(component.removeprefix("die-"))
                who = state.turn if player is None else player
                return Action("advance", who, {"steps": steps})
        raise UnknownComponentError(f"Tiny Race has no component {component!r}")

    def choices(self, state: TinyRaceState, viewer: int | None = None) -> tuple[Choice, ...]:
        """The choices tree (see ``choices.py`` beside this module)."""
        from companion.games.tiny_race.choices import choices

        return choices(state, viewer)

    def problems(self, state: TinyRaceState) -> tuple[Problem, ...]:
        found: list[Problem] = []
        at_target = [i for i, p in enumerate(state.positions) if p >= state.target]
        if len(at_target) > 1:
            found.append(
                Problem("two_finishers", "only one pawn can reach the target", "positions")
            )
        if at_target and state.finished_by not in at_target:
            found.append(
                Problem("finisher_mismatch", "the finisher is not at the target", "finished_by")
            )
        return tuple(found)

    def is_over(self, state: TinyRaceState) -> bool:
        return state.finished_by is not None

    def public_view(self, state: TinyRaceState) -> PublicView:
        """What the table sees (``companion.core.public``): every screen renders this."""
        from companion.games.tiny_race.public import public_view

        return public_view(self, state)

    def status(self, state: TinyRaceState) -> TurnStatus:
        if state.finished_by is not None:
            return TurnStatus(phase="over", waiting_for="")
        return TurnStatus(
            active_players=(state.turn,),
            phase="play",
            waiting_for=msg("{player} to advance 1–3", player=state.names[state.turn]),
        )

    def score(self, state: TinyRaceState) -> ScoreSheet:
        players = tuple(
            PlayerScore(
                name,
                (
                    ScoreLine("distance", pos, f"reached space {pos}"),
                    ScoreLine("finish", FINISH_BONUS if state.finished_by == i else 0),
                ),
            )
            for i, (name, pos) in enumerate(zip(state.names, state.positions, strict=True))
        )
        winners = highest([(p.name, (p.total,)) for p in players]) if self.is_over(state) else ()
        return ScoreSheet(NAME, players, winners)

    def score_snapshot(self, data: Any) -> ScoreSheet:
        return self.score(self.from_json(data))

    def to_json(self, state: TinyRaceState) -> JsonObject:
        return {
            "game": NAME,
            "format": FORMAT,
            "target": state.target,
            "turn": state.turn,
            "finished_by": state.finished_by,
            "players": [
                {"name": n, "position": p}
                for n, p in zip(state.names, state.positions, strict=True)
            ],
        }

    def from_json(self, data: Any) -> TinyRaceState:
        doc = Field(data)
        doc.only("game", "format", "target", "turn", "finished_by", "players")
        if doc.get("game").str() != NAME:
            raise SnapshotError("game", f"expected {NAME!r}")
        doc.get("format").int(lo=FORMAT, hi=FORMAT)
        target = doc.get("target", 10).int(lo=1, hi=100)
        players = doc.get("players").list()
        if not players:
            doc.get("players").fail("at least one player")
        names, positions = [], []
        for p in players:
            p.only("name", "position")
            names.append(p.get("name").str())
            positions.append(p.get("position").int(lo=0, hi=target))
        turn = doc.get("turn", 0).int(lo=0, hi=len(players) - 1)
        finished = doc.get("finished_by", None)
        finished_by = None if finished.value is None else finished.int(lo=0, hi=len(players) - 1)
        return TinyRaceState(tuple(names), tuple(positions), target, turn, finished_by)


GAME = TinyRace()
