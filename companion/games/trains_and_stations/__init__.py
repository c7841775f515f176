"""Trains & Stations (Eric M. Lang, WizKids 2013; 3–5 players): the companion works from what
the table reports (the board is not public) and checks every rule it can.

Views: ``GAME.to_json(state)`` is the full snapshot with every hidden holding (event store,
replay); the scoreboard must use :func:`public_json` (no goods, no special cards, no
speculation offers before the end); a player's own PIN-protected view uses
:func:`private_json`. See docs/formats/trains-and-stations.md.
"""

from companion.games.trains_and_stations.rules import GAME, TrainsAndStations
from companion.games.trains_and_stations.state import TSState, private_json, public_json

__all__ = ["GAME", "TSState", "TrainsAndStations", "private_json", "public_json"]
