"""The rulebook sections a Russian Railroads refusal cites, as messages (context "rulebook
section"): each reader gets the section title of the rulebook in their language. Czech (seed
000) is the whole rulebook, so the Czech catalogue holds its headings as printed; Slovak
readers get the same Czech headings (there is no Slovak rulebook of this game, and the Czech one
is what a Slovak table holds); the Spanish seed 004 is a short rulebook, so the Spanish
catalogue gives its own heading where it has one ("Preparar", "Turno de juego", "¿Cómo se
reorganiza el orden de turnos?", "Los espacios especiales en un tablero de jugador") and the
Spanish for the Czech heading elsewhere. The comment beside each is the Czech heading.

The English msgids are the developers' names for the sections; the English catalogue renders
them as they are.
"""

from __future__ import annotations

from typing import Final

from companion.core.messages import msg

# The game's structure
S_PLAYER_COUNT: Final = msg(
    "Components and setup", context="rulebook section"
)  # HERNÍ MATERIÁL A PŘÍPRAVA HRY
S_START: Final = msg(
    "Setting up: the starting bonus cards", context="rulebook section"
)  # Preparar (seed 004 only)
S_GAME_END: Final = msg("End of the game", context="rulebook section")  # PRŮBĚH HRY A KONEC HRY
S_WORKERS: Final = msg("One player's turn", context="rulebook section")  # POPIS JEDNOHO TAHU HRÁČE
S_TURN: Final = msg("Turn order", context="rulebook section")  # POŘADÍ NA TAHU
S_TURN_CHANGE: Final = msg(
    "Changes on the turn order track", context="rulebook section"
)  # ZMĚNA NA LIŠTĚ POŘADÍ NA TAHU
S_TURN_MOVE: Final = msg(
    "Further use of the workers on the turn order track", context="rulebook section"
)
# DALŠÍ VYUŽITÍ DĚLNÍKŮ UMÍSTĚNÝCH NA AKČNÍ POLE LIŠTY POŘADÍ NA TAHU
S_LAST_ROUND: Final = msg(
    "Preparing the next round: the last round tile", context="rulebook section"
)
# PŘÍPRAVA DALŠÍHO KOLA
S_TWO_PLAYERS: Final = msg(
    "The game with two players", context="rulebook section"
)  # HRA VE DVOU HRÁČÍCH
# The action board
S_EXTRA: Final = msg("Extra actions", context="rulebook section")  # DOPLŇKOVÉ AKCE
S_COINS: Final = msg("Further actions (coins)", context="rulebook section")  # DALŠÍ AKCE
S_LOCO_AREA: Final = msg(
    "Differences between the action spaces of this area (locomotives)", context="rulebook section"
)
# ROZDÍLY AKČNÍCH POLÍ TÉTO OBLASTI (lokomotivy a továrny)
S_ENGINEERS: Final = msg(
    "Using the engineers' abilities", context="rulebook section"
)  # VYUŽITÍ SCHOPNOSTÍ INŽENÝRŮ
S_PUBLIC_ENGINEERS: Final = msg(
    "Using the engineers on the variable action spaces", context="rulebook section"
)
# VYUŽITÍ INŽENÝRŮ NA PROMĚNLIVÝCH AKČNÍCH POLÍCH
S_OWN_ENGINEERS: Final = msg(
    "Own action spaces and engineers", context="rulebook section"
)  # A INŽENÝŘI
S_REPEAT: Final = msg(
    "Factories and engineer tiles: repeating an action", context="rulebook section"
)
# TOVÁRNY / DESTIČKY INŽENÝRŮ
S_BLACK_WORKER: Final = msg("“?” cards: the black worker", context="rulebook section")  # KARTY ?
# The player's board
S_RAILS: Final = msg("Rules for building rails", context="rulebook section")  # ZÁSADY STAVBY KOLEJÍ
S_NEW_RAILS: Final = msg(
    "Building rails of further colours", context="rulebook section"
)  # BUDOVÁNÍ KOLEJÍ DALŠÍCH BAREV
S_TERMINUS: Final = msg(
    "Special spaces on the player's board: end of the line", context="rulebook section"
)
# ZVLÁŠTNÍ POLÍČKA NA DESCE HRÁČE (KONEČNÁ STANICE)
S_SPECIAL: Final = msg("Special spaces on the player's board", context="rulebook section")
# ZVLÁŠTNÍ POLÍČKA NA DESCE HRÁČE
S_LOCO_TAKE: Final = msg(
    "Rules for taking locomotives and building factories", context="rulebook section"
)
# ZÁSADY PLATNÉ PŘI ZÍSKÁVÁNÍ LOKOMOTIV A STAVBĚ TOVÁREN
S_LOCO_REPLACE: Final = msg(
    "Upgrading a locomotive", context="rulebook section"
)  # ZVÝŠENÍ VÝKONU LOKOMOTIVY
S_FACTORY: Final = msg("Building factories", context="rulebook section")  # STAVBA TOVÁREN
S_INDUSTRY: Final = msg(
    "What the factory slots mean", context="rulebook section"
)  # VÝZNAM VÝŘEZŮ PRO TOVÁRNY
S_DOUBLERS: Final = msg("Doublers", context="rulebook section")  # ŽETONY ZDVOJNÁSOBENÍ
# Cards and tokens
S_TOKENS: Final = msg(
    "Cards and tokens: the tokens", context="rulebook section"
)  # POPIS KARET A ŽETONŮ
S_SECOND_MARKER: Final = msg(
    "Cards and tokens: the second industry marker", context="rulebook section"
)
S_CARDS: Final = msg(
    "Cards and tokens: the “?” cards", context="rulebook section"
)  # POPIS KARET A ŽETONŮ
S_FACTORIES: Final = msg(
    "Cards and tokens: the factories", context="rulebook section"
)  # POPIS KARET A ŽETONŮ
S_BONUS: Final = msg("Final bonus cards", context="rulebook section")  # KARTY CÍLOVÝCH BONUSŮ
S_TURN_ADVANCE: Final = msg("How to move up on the turn order track", context="rulebook section")
# LIŠTA POŘADÍ NA TAHU; seed 004: "¿Cómo avanzar en el seguimiento de órdenes de turno?"
