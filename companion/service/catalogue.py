"""The games as the web adapter sees them (DESIGN.md, the dependency rule: ``web`` imports no
game module; the service, which may, hands it this catalogue).

* :meth:`GameCatalogue.find` / :meth:`GameCatalogue.names`: the registry (a game through the
  ``companion.core.game.Game`` protocol only);
* :meth:`GameCatalogue.data`: a game's static, public board data as JSON, the documented data a
  picture needs besides the published snapshot (sent once, not in every snapshot):

  - ``ticket-to-ride-europe``: ``cities`` (``id``, ``name``, ``x_pct``, ``y_pct``: position in
    percent of the board picture) and ``routes`` (``id``, ``a``, ``b``, ``length``, ``colour``,
    ``tunnel``, ``ferry`` (locomotives needed), ``partner`` (the other route of a double pair));
  - ``russian-railroads``: ``tracks`` (``id``, ``length``: spaces), ``colours`` (the rail
    colours in the order they follow one another), ``doubler_track`` (where the doublers lie,
    from space 1), ``industry`` (``last``: the industry track's last step, ``gaps``: the
    factory gaps' steps);
  - ``trains-and-stations``: ``goods`` (the goods' ids);
  - any other game: ``{}``;
* :meth:`GameCatalogue.share_values`: Mini Express's share values table API, for the owner's
  form that enters the box's printed table (``web/board_table.py``);
* :meth:`GameCatalogue.words`: a game's thing by the name people read (a message each screen
  renders in its reader's language): Ticket to Ride's ``city`` and ``ticket`` by id, Trains &
  Stations' ``good`` and ``place`` (a station or city as the table named it), Mini Express's
  ``player`` (the automa, by its name in the rulebook).
"""

from __future__ import annotations

from functools import cache
from types import SimpleNamespace
from typing import Any

from companion.core.game import Game
from companion.core.jsonvalue import JsonObject
from companion.core.messages import Text, msg
from companion.games import find_game, game_names


@cache
def _ttr() -> JsonObject:
    from companion.games.ticket_to_ride_europe.board import CITIES, ROUTES

    return {
        "cities": [
            {"id": c.id, "name": c.name, "x_pct": c.x_pct, "y_pct": c.y_pct} for c in CITIES
        ],
        "routes": [
            {
                "id": r.id,
                "a": r.a,
                "b": r.b,
                "length": r.length,
                "colour": r.colour,
                "tunnel": r.tunnel,
                "ferry": r.ferry_locomotives,
                "partner": r.partner,
            }
            for r in ROUTES
        ],
    }


@cache
def _rr() -> JsonObject:
    from companion.games.russian_railroads.board_data import (
        COLOURS,
        INDUSTRY_GAPS,
        INDUSTRY_LAST,
        TRACK_LENGTH,
        TRACKS,
        TRANS_SIBERIAN,
    )

    return {
        "tracks": [{"id": t, "length": TRACK_LENGTH[t]} for t in TRACKS],
        "colours": list(COLOURS),
        "doubler_track": TRANS_SIBERIAN,
        "industry": {"last": INDUSTRY_LAST, "gaps": list(INDUSTRY_GAPS)},
    }


@cache
def _ts() -> JsonObject:
    from companion.games.trains_and_stations.data import GOODS

    return {"goods": list(GOODS)}


class GameCatalogue:
    """The registry and each game's static data, for ``web`` (see the module docstring)."""

    def find(self, name: str) -> Game[Any]:
        """The game ``name``; ``TracksideError`` when there is none."""
        return find_game(name)

    def names(self, include_hidden: bool = False) -> list[str]:
        return list(game_names(include_hidden=include_hidden))

    def data(self, name: str) -> JsonObject:
        if name == "ticket-to-ride-europe":
            return _ttr()
        if name == "russian-railroads":
            return _rr()
        if name == "trains-and-stations":
            return _ts()
        return {}

    def words(self, game: str, kind: str, key: str) -> Text | None:
        """The name people read for ``key`` of ``kind`` in ``game`` (None: not one the game
        names)."""
        if game == "ticket-to-ride-europe":
            from companion.games.ticket_to_ride_europe.board import TICKETS
            from companion.games.ticket_to_ride_europe.names import CITY_NAMES, ticket_name

            if kind == "city":
                return CITY_NAMES.get(key)
            if kind == "ticket":
                spec = next((t for t in TICKETS if t.id == key), None)
                return None if spec is None else ticket_name(spec)
        if game == "mini-express" and kind == "player":
            from companion.games.mini_express.data import AUTOMA_NAME

            # the notation's "automa" is the rulebook's Mašinfíra (seed 002, "SÓLOVÁ HRA")
            return msg("Mašinfíra", context="the automa's name") if key == AUTOMA_NAME else None
        if game == "trains-and-stations":
            from companion.games.trains_and_stations.names import good_name, place_name

            if kind == "good":
                return good_name(key)
            if kind == "place":
                return place_name(key)
        return None

    def share_values(self) -> SimpleNamespace:
        """Mini Express's share values table: ``GAME``, ``ShareValueTable``, ``Cell``,
        ``cell_path``, ``KNOWN_SHARE_VALUES``, ``RANKS``, ``SHARE_VALUE_MAX``,
        ``TRACK_LENGTHS``."""
        from companion.games.mini_express import GAME, ShareValueTable
        from companion.games.mini_express.board_table import Cell, cell_path
        from companion.games.mini_express.data import (
            KNOWN_SHARE_VALUES,
            RANKS,
            SHARE_VALUE_MAX,
            TRACK_LENGTHS,
        )

        return SimpleNamespace(
            GAME=GAME,
            ShareValueTable=ShareValueTable,
            Cell=Cell,
            cell_path=cell_path,
            KNOWN_SHARE_VALUES=KNOWN_SHARE_VALUES,
            RANKS=RANKS,
            SHARE_VALUE_MAX=SHARE_VALUE_MAX,
            TRACK_LENGTHS=TRACK_LENGTHS,
        )


CATALOGUE = GameCatalogue()
