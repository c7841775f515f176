"""What the table can enter now in Tiny Race: the player whose turn it is advances 1–3."""

from __future__ import annotations

from companion.core.actions import Action
from companion.core.choices import Choice, accepts
from companion.core.messages import msg, plural
from companion.games.tiny_race.rules import GAME, MAX_STEPS, TinyRaceState


def choices(state: TinyRaceState, viewer: int | None = None) -> tuple[Choice, ...]:
    """The tree for ``state`` (Tiny Race has no secrets: ``viewer`` adds nothing)."""
    if state.finished_by is not None:
        return ()
    p = state.turn
    leaves = tuple(
        Choice(str(n), plural("{n} space", "{n} spaces", "n", n=n), p, action=action)
        for n in range(1, MAX_STEPS + 1)
        if accepts(GAME.apply, state, action := Action("advance", p, {"steps": n}))
    )
    if not leaves:
        return ()
    label = msg("{player}: advance", player=state.names[p])
    return (Choice("advance", label, p, children=leaves),)
