"""Trains & Stations in the players' words: buildings, die faces, goods, bonuses and the
rulebook's sections as messages (``companion.core.messages``).

The rulebook (seed 003, "Vlaky a stanice") is Czech only: the Czech catalogue holds its section
headings as printed and its component names (Ranč, Důl, Hotel, Mince, Zamčený vlak); the Slovak
one gives the Czech headings marked as the Czech rulebook's; the Spanish one translates them.
The comment beside each section is the Czech heading.
"""

from __future__ import annotations

import re
from typing import Final

from companion.core.messages import Message, Text, msg

BUILDING_NAMES: Final[dict[str, Message]] = {
    "ranch": msg("ranch", context="building"),  # Ranč
    "mine": msg("mine", context="building"),  # Důl
    "hotel": msg("hotel", context="building"),  # Hotel
}
FACE_NAMES: Final[dict[str, Message]] = {
    "coin": msg("coin", context="die face"),  # Mince
    "hotel": msg("hotel", context="die face"),
    "mine": msg("mine", context="die face"),
    "ranch": msg("ranch", context="die face"),
    "train": msg("train", context="die face"),  # Vlak
    "locked": msg("locked train", context="die face"),  # Zamčený vlak
}
GOOD_NAMES: Final[dict[str, Message]] = {
    # "Herní součásti" / "Příprava": karty dělníků, uhlí, dobytka, jídla, stříbra a zlata
    "workers": msg("workers", context="goods"),  # dělníci
    "coal": msg("coal", context="goods"),  # uhlí
    "cattle": msg("cattle", context="goods"),  # dobytek
    "food": msg("food", context="goods"),  # jídlo
    "silver": msg("silver", context="goods"),  # stříbro
    "gold": msg("gold", context="goods"),  # zlato
}
BONUS_LABELS: Final[dict[str, Message]] = {
    "vp": msg("1 VP"),
    "special": msg("a special card"),
    "die": msg("a bonus die"),
}


def building_name(building: str) -> Text:
    return BUILDING_NAMES.get(building, building)


_NUMBERED_STATION = re.compile(r"Station (\d{1,3})")
_NUMBERED_CITY = re.compile(r"City (\d{1,3})")


def place_name(name: str) -> Text:
    """A station or city as the table named it; the numbered names the choices give a place
    nobody named ("Station 4", "City 2", kept so in the log) in each reader's language."""
    station = _NUMBERED_STATION.fullmatch(name)
    if station:
        return msg("Station {n}", n=int(station.group(1)))
    city = _NUMBERED_CITY.fullmatch(name)
    if city:
        return msg("City {n}", n=int(city.group(1)))
    return name


def good_name(good: str) -> Text:
    """A kind of goods by the rulebook's name (an unknown one as it is)."""
    return GOOD_NAMES.get(good, good)


def face_name(face: str) -> Text:
    return FACE_NAMES.get(face, face)


# -- the rulebook's sections ------------------------------------------------------------------
S_INTRO: Final = msg("Introduction", context="rulebook section")  # úvod
S_END: Final = msg("End of the game", context="rulebook section")  # Konec hry
S_HOW: Final = msg("How to play", context="rulebook section")  # Jak hrát
S_ROUND: Final = msg("Round overview", context="rulebook section")  # Přehled kola
S_SPECULATION: Final = msg("Speculation when upgrading", context="rulebook section")
# Spekulace při vylepšování
S_COLLECT: Final = msg("Step 1: Collecting dice", context="rulebook section")
# Krok 1: Sběr kostek
S_WITHDRAW: Final = msg("Step 1: Collecting dice — Taking dice back", context="rulebook section")
# Krok 1: Sběr kostek — Stažení kostek
S_REROLL: Final = msg("Step 2: Rolling dice — Rerolling", context="rulebook section")
# Krok 2: Hod kostkami — Přehazování
S_STRIKE: Final = msg("Step 2 — Strike!", context="rulebook section")  # Krok 2 — Stávka!
S_RESOLVE: Final = msg("Step 3: Using the dice", context="rulebook section")
# Krok 3: Vyhodnocení kostek
S_KEEP: Final = msg("Step 3: Using the dice — Keeping dice", context="rulebook section")
# Krok 3: Vyhodnocení kostek — Schovávání kostek
S_BUILD: Final = msg("Step 3: Using the dice — Building", context="rulebook section")
# Krok 3: Vyhodnocení kostek — Stavba budov
S_BUILD_SPACE: Final = msg("Step 3: Building — Space", context="rulebook section")
# Krok 3: Vyhodnocení kostek — Stavba budov — Místo
S_BUILD_LEVEL: Final = msg("Step 3: Building — Level", context="rulebook section")
# Krok 3: Vyhodnocení kostek — Stavba budov — Úroveň
S_DELIVERY: Final = msg("Step 4: Delivery!", context="rulebook section")  # Krok 4: Doručení!
S_MAJORITY: Final = msg("Step 4: Delivery! — Majority bonus", context="rulebook section")
# Krok 4: Doručení! — Bonus za převahu
S_PICKUP: Final = msg("Step 4: Delivery! — Picking up goods", context="rulebook section")
# Krok 4: Doručení! — Vyzvednutí zboží
S_TASKS: Final = msg("Step 4: Delivery! — Completing tasks", context="rulebook section")
# Krok 4: Doručení! — Ukončení úkolů
S_UPGRADE: Final = msg("Step 5: Running out of goods and upgrading", context="rulebook section")
# Krok 5: Vyčerpání zboží a vylepšování
S_STEP5_SPECULATION: Final = msg("Step 5 — Speculation when upgrading", context="rulebook section")
# Krok 5 — Spekulace při vylepšování
