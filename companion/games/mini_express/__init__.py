"""Mini Express (Mark Gerrits, Moaideas Game Design, 2021; 1–5 players).

Rules: the Czech rulebook, seed ``002_e58c145965ae6a12.txt``. The printed share-value table,
the maps and the automa tokens' numbers are not public, so this companion works from what the
table reports (builds, drawn tokens) and from the owner's board table (filled once), checks
everything the rules let it check, and never invents a printed value.
"""

from companion.games.mini_express.board_table import ShareValueTable
from companion.games.mini_express.rules import GAME, MiniExpress, MissingShareValueError
from companion.games.mini_express.state import MiniExpressState

__all__ = ["GAME", "MiniExpress", "MiniExpressState", "MissingShareValueError", "ShareValueTable"]
