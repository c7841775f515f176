"""The games Trackside knows, and ``find_game(name)``.

Standard library only. Each game lives in its own subpackage and exposes ``GAME``, an object
implementing :class:`companion.core.game.Game`. Modules are imported on first use, so a broken
or slow game never delays the others.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import Any

from companion.core.errors import UnknownGameError
from companion.core.game import Game

# game id → module. Add one line per game (keep the list sorted).
_GAME_MODULES: dict[str, str] = {
    "mini-express": "companion.games.mini_express",
    "russian-railroads": "companion.games.russian_railroads",
    "ticket-to-ride-europe": "companion.games.ticket_to_ride_europe",
    "tiny-race": "companion.games.tiny_race",
    "trains-and-stations": "companion.games.trains_and_stations",
}


@cache
def find_game(name: str) -> Game[Any]:
    """The game registered as ``name`` (e.g. ``"russian-railroads"``)."""
    module_name = _GAME_MODULES.get(name) if isinstance(name, str) else None
    if module_name is None:
        raise UnknownGameError(name, game_names(include_hidden=False))
    game: Game[Any] = importlib.import_module(module_name).GAME
    return game


def game_names(*, include_hidden: bool = False) -> tuple[str, ...]:
    """Registered game ids, sorted; test-only games are left out unless asked for."""
    names = sorted(_GAME_MODULES)
    if include_hidden:
        return tuple(names)
    return tuple(n for n in names if not find_game(n).hidden)


def all_games(*, include_hidden: bool = False) -> tuple[Game[Any], ...]:
    return tuple(find_game(n) for n in game_names(include_hidden=include_hidden))


__all__ = ["Game", "all_games", "find_game", "game_names"]
