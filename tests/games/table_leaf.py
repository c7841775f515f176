"""Random leaves as a real table could enter them.

The tree never reads what others hold face down (``../shared/contracts/choices.md``): a
player's list of tickets to keep offers the tickets other players keep too. A real table holds
each destination ticket once, so a simulated table (which knows every hand) never picks one
another player already keeps; the engine would take it and report ``ticket_twice`` at the end.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from companion.core.choices import Choice, random_leaf

TRIES = 200


def _held_by_another(state: Any, choice: Choice) -> bool:
    action = choice.action
    if action is None or action.kind != "keep_ticket":
        return False
    ticket = action.args.get("ticket")
    players = getattr(state, "players", ())
    return any(
        ticket in getattr(p, "tickets", ()) for i, p in enumerate(players) if i != action.player
    )


def table_leaf(state: Any, tree: Sequence[Choice], rng: random.Random) -> tuple[str, Choice] | None:
    """:func:`random_leaf`, skipping a ticket another player keeps (see the module)."""
    picked = random_leaf(tree, rng)
    for _ in range(TRIES):
        if picked is None or not _held_by_another(state, picked[1]):
            return picked
        picked = random_leaf(tree, rng)
    return picked
