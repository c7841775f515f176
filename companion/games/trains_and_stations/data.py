"""Trains & Stations (Eric M. Lang, WizKids 2013): the printed figures the rulebook gives.

Provenance: every figure below is copied from the Czech rulebook, seed file
``003_4080579fd62f6692.txt`` (the game's text starts at "Eric M. Lang Pravidla hry Vlaky a
stanice"), section named in each comment. The board (stations, route spaces, city bonuses,
building spaces per station) is NOT public and is not here: the table reports it.
"""

from __future__ import annotations

from typing import Final

from companion.core.messages import Message, msg

NAME: Final = "trains-and-stations"
TITLE: Final = "Trains & Stations"
FORMAT: Final = 1

SEED: Final = "seed 003_4080579fd62f6692.txt"

# "Herní součásti": 60 goods cards, 10 of each of 6 types.
GOODS: Final = ("workers", "coal", "silver", "food", "cattle", "gold")


def goods_name(goods: str) -> Message:
    """A goods type's name for players (the rulebook's words in each language)."""
    names = {
        "workers": msg("workers", context="goods"),
        "coal": msg("coal", context="goods"),
        "silver": msg("silver", context="goods"),
        "food": msg("food", context="goods"),
        "cattle": msg("cattle", context="goods"),
        "gold": msg("gold", context="goods"),
    }
    return names.get(goods, msg(goods, context="goods"))


GOODS_PER_TYPE: Final = 10

# "Bodování": monopoly bonus printed on the goods cards.
MONOPOLY_BONUS: Final[dict[str, int]] = {
    "workers": 4,
    "coal": 6,
    "silver": 7,
    "food": 7,
    "cattle": 6,
    "gold": 9,
}

# "Herní součásti": 9 buildings per colour (3 ranches, 3 mines, 3 hotels).
BUILDINGS: Final = ("ranch", "mine", "hotel")
BUILDINGS_PER_TYPE: Final = 3

# "Kostky": the six faces (coin, hotel, mine, ranch, train, locked train).
FACES: Final = ("coin", "hotel", "mine", "ranch", "train", "locked")
TRAIN_FACES: Final = ("train", "locked")
KEEPABLE_FACES: Final = ("coin", "hotel", "mine", "ranch")

# "Herní součásti": 8 dice per player, 10 white bonus dice.
DICE_PER_PLAYER: Final = 8
BONUS_DICE: Final = 10
# "Krok 1: Sběr kostek": roll at most 5 of your own dice.
ROLL_LIMIT: Final = 5
# "Stažení kostek": with 5 or more dice on the board you may take them all back.
WITHDRAW_MIN: Final = 5

# "Herní součásti": 20 special cards; "Příprava": deal 3, keep 2.
SPECIAL_CARDS: Final = 20
SPECIAL_KEPT_AT_START: Final = 2

# "Příprava": VP cards by player count (5: all 80; 4: remove two 5s = 70; 3: remove four = 60),
# every player takes three 1-VP cards from the board's VP supply.
VP_BY_PLAYERS: Final[dict[int, int]] = {5: 80, 4: 70, 3: 60}
VP_CARDS_TOTAL: Final = 80
START_VP: Final = 3
# "Příprava": 3 coins each; "Zisk mincí": never more than 5 coins; 2 coins per coin die.
START_COINS: Final = 3
MAX_COINS: Final = 5
COINS_PER_DIE: Final = 2
REROLL_COST: Final = 1
# "Stávka!": 3 or more locked trains: no more rerolls, lose 3 VP (all if fewer).
STRIKE_LOCKED: Final = 3
STRIKE_LOSS: Final = 3
# "Stavba budov": a set of 3 equal building faces builds one building.
SET_SIZE: Final = 3
# "Místo": stations have 2 or 3 building spaces.
STATION_CAPACITIES: Final = (2, 3)

MIN_PLAYERS: Final = 3
MAX_PLAYERS: Final = 5

# "Příprava": cattle on the ranch, workers on the hotel, coal on the mine; food, silver and
# gold beside the board.
START_DECKS: Final[dict[str, str]] = {"ranch": "cattle", "mine": "coal", "hotel": "workers"}

# "Krok 5: Vyčerpání zboží a vylepšování": the second level of each building, as far as the
# rulebook states it. Ranch: cattle → food (the worked example); hotel: the active player
# chooses silver or food; mine: NOT stated (the scheme is printed on the board under the mine),
# so the table reports it once (option ``mine_next`` or the upgrade's ``printed_next``).
# After silver or food comes gold (hotel: stated; the ranch example puts gold after food).
SECOND_LEVEL: Final[dict[str, tuple[str, ...] | None]] = {
    "ranch": ("food",),
    "hotel": ("silver", "food"),
    "mine": None,
}
SECOND_LEVEL_GOODS: Final = ("silver", "food")
TOP_GOODS: Final = "gold"

# "Krok 4: Doručení!": the bonus printed on a city (extra VP, a special card, a bonus die).
CITY_BONUSES: Final = ("vp", "special", "die")

# "Ukončení úkolů": a task card is worth "její hodnotu ve VB", the value printed on it; the
# rulebook lists no card's value (the 20 special cards' faces are not in the seed). Not a card
# figure but the bound of what the table enters: a value of one or two digits (every VP card in
# the game together is 60–80 VP). The engine and the tree take the same 1–99.
TASK_POINTS_MAX: Final = 99
