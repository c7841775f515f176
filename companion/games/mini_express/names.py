"""Mini Express in the players' words: the companies as the table names them and the rulebook's
sections for citations, as messages (``companion.core.messages``).

The rulebook (seed 002) is Czech only: the Czech catalogue holds its section headings as
printed; the Slovak one gives the same Czech headings marked as the Czech rulebook's; the
Spanish one translates them. The comment beside each section is the Czech heading.
"""

from __future__ import annotations

from typing import Final

from companion.core.messages import Message, msg

COMPANY_LABELS: Final[dict[str, Message]] = {
    "leather": msg("Leather (orange)", context="company"),  # Kožedělná
    "lumber": msg("Lumber (brown)", context="company"),  # Dřevařská
    "steel": msg("Steel (grey)", context="company"),  # Ocelářská
    "cotton": msg("Cotton (white)", context="company"),  # Bavlněná
}
"""The companies as players name them: the rulebook's name and the component's colour."""


COMPANY_SWATCHES: Final[dict[str, str]] = {
    "leather": "orange",
    "lumber": "brown",
    "steel": "grey",
    "cotton": "white",
}
"""Each company's component colour, as a page draws it beside the company's name."""


def company_name(company: str) -> Message:
    """A company validated as one of :data:`~companion.games.mini_express.data.COMPANIES`."""
    return COMPANY_LABELS[company]


# -- the rulebook's sections ------------------------------------------------------------------
SETUP: Final = msg("Setting up the game (3–5 players)", context="rulebook section")
# PŘÍPRAVA HRY (PRO 3–5 HRÁČŮ)
PLAY: Final = msg("Playing the game", context="rulebook section")  # PRŮBĚH HRY
TAKE_SHARE: Final = msg("Taking a share", context="rulebook section")  # Pořízení akcie
EXHAUSTION: Final = msg("The share offer runs out", context="rulebook section")
# Vyčerpání nabídky akcií
BUILD: Final = msg("Building track", context="rulebook section")  # Stavba trati
GAME_END: Final = msg("End of the game", context="rulebook section")  # KONEC HRY
FINAL_SCORING: Final = msg("Final scoring", context="rulebook section")  # ZÁVĚREČNÉ BODOVÁNÍ
SOLO_SETUP: Final = msg("Solo game: setting up", context="rulebook section")
# SÓLOVÁ HRA — Příprava sólové hry
AUTOMA_TURN: Final = msg("The Mašinfíra's turn in the solo game", context="rulebook section")
# Tah Mašinfíry v sólové hře
SOLO_END: Final = msg("End of the solo game", context="rulebook section")  # Konec sólové hry
TWO_EXPERIENCED: Final = msg(
    "Game for 2 experienced players (without the Mašinfíra)", context="rulebook section"
)  # HRA PRO 2 ZKUŠENÉ HRÁČE (bez Mašinfíry)
GOLDEN_SPIKE: Final = msg("USA map: the Golden Spike variant", context="rulebook section")
# Mapa USA: Varianta hry Zlatý hřeb
HARBOURS: Final = msg("Europe map: the Harbours variant", context="rulebook section")
# Mapa Evropy: Varianta hry Přístavy


def point(section: Message, n: int) -> Message:
    """A numbered point of a section ("Stavba trati, bod 4")."""
    return msg("{section}, point {n}", section=section, n=n)


SOLO_LEVELS: Final = msg("Setting the solo game's difficulty", context="rulebook section")
# Nastavení obtížnosti sólové hry
SCORING_EXAMPLE: Final = msg("Final scoring: the scoring example", context="rulebook section")
# ZÁVĚREČNÉ BODOVÁNÍ, Příklad závěrečného bodování

RANK_LABELS: Final[dict[str, Message]] = {
    "1st": msg("1st place"),
    "2nd": msg("2nd place"),
    "other": msg("3rd place or lower"),
}
"""The columns of the board's share-value table: the owner's rank in the company's influence."""


def cell_words(cell: tuple[int, str]) -> Message:
    """A cell of the share-value table in words ("track length 7, 2nd place")."""
    length, rank = cell
    return msg("track length {length}, {rank}", length=length, rank=RANK_LABELS.get(rank, rank))
