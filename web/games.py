"""The games, as the service hands them to the web adapter (DESIGN.md, the dependency rule:
``web`` imports no game module). ``create_app`` keeps the service's catalogue
(``companion.service.catalogue.GameCatalogue``) in ``app.extensions``; pages reach it here."""

from __future__ import annotations

from typing import Any, Protocol

from flask import current_app, has_app_context

from companion.core.game import Game
from companion.core.jsonvalue import JsonObject
from companion.core.messages import Text

KEY = "trackside.games"


class Catalogue(Protocol):
    def find(self, name: str) -> Game[Any]: ...

    def names(self, include_hidden: bool = False) -> list[str]: ...

    def data(self, name: str) -> JsonObject: ...

    def share_values(self) -> Any: ...

    def words(self, game: str, kind: str, key: str) -> Text | None: ...


def catalogue() -> Catalogue:
    found: Catalogue = current_app.extensions[KEY]
    return found


def find_game(name: str) -> Game[Any]:
    """The game ``name`` (``TracksideError`` when there is none)."""
    return catalogue().find(name)


def game_names(*, include_hidden: bool = False) -> list[str]:
    return catalogue().names(include_hidden)


def data(name: str) -> JsonObject:
    """A game's static board data (``{}`` outside a request, or for a game without any)."""
    if not has_app_context() or KEY not in current_app.extensions:
        return {}
    return catalogue().data(name)


def words(game: str, kind: str, key: str) -> Text | None:
    """A game's thing by the name people read (the catalogue's :meth:`words`); None outside a
    request or for a thing the game does not name."""
    if not has_app_context() or KEY not in current_app.extensions:
        return None
    return catalogue().words(game, kind, key)
