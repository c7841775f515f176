"""Russian Railroads (Hans im Glück, 2013; 2–4 players): every player board kept honest, the
end-of-round scoring seven times a game, and the final scoring.

Rules: seed 000 (Czech, complete) and seed 004 (Spanish); board figures with their provenance
in :mod:`board_data`; notation in ``docs/formats/russian-railroads.md``.
"""

from companion.games.russian_railroads.rules import GAME, RussianRailroads
from companion.games.russian_railroads.state import PlayerBoard, RussianRailroadsState

__all__ = ["GAME", "PlayerBoard", "RussianRailroads", "RussianRailroadsState"]
