"""A test-only game with a private view and a private action, to show that the private pages
and the redaction are generic (any game with ``private_json`` and ``private_actions``): Tiny
Race, plus a secret ``note`` each player may leave (it changes nothing)."""

from __future__ import annotations

from companion.core.actions import Action
from companion.core.jsonvalue import JsonObject
from companion.core.snapshot import Field
from companion.games.tiny_race.rules import TinyRace, TinyRaceState


class SecretRace(TinyRace):
    name = "secret-race"
    title = "Secret Race (test game)"
    private_actions = frozenset({"note"})

    def apply(self, state: TinyRaceState, action: Action) -> TinyRaceState:
        if action.kind == "note":
            args = Field(dict(action.args), "args")
            args.only("text")
            args.get("text").str()
            return state
        return super().apply(state, action)

    def private_json(self, state: TinyRaceState, player: int) -> JsonObject:
        return {
            "viewer": player,
            "players": [
                {"name": n, "position": p}
                for n, p in zip(state.names, state.positions, strict=True)
            ],
        }


GAME = SecretRace()
