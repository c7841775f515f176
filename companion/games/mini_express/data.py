"""Mini Express game data: the figures the rulebook prints, and nothing else.

Provenance: every figure below is from the Czech rulebook, seed ``002_e58c145965ae6a12.txt``
(copied here so the running service never reads ``../shared``), as summarised in
``shared/reference/mini_express_and_trains_and_stations.md``. The printed share-value table,
the maps (cities, capacities, city numbers), the demand-token mix and the numbers on the automa
tokens are NOT public: they stay unknown here and are reported by the table.
"""

from __future__ import annotations

from typing import Final

SEED: Final = "seed 002_e58c145965ae6a12.txt"
"""Where every rule of this package is written (for developers; players read the section
titles, as the rulebook heads them (mini_express/names.py), never this file name)."""

# -- companies -------------------------------------------------------------------------------
COMPANIES: Final = ("leather", "lumber", "steel", "cotton")
"""Company ids in the contract's order (``shared/contracts/mini-express.md``)."""

POINTER_ORDER: Final = ("lumber", "steel", "leather", "cotton")
"""The order the automa's company pointer walks, as printed on the asset board:
Dřevařská -> Ocelářská -> Kožedělná -> Bavlněná -> Dřevařská (Tah Mašinfíry v sólové hře)."""

START_LOCATIONS: Final = {
    "usa": {
        "leather": "Erie",
        "lumber": "Baltimore",
        "steel": "Wilmington",
        "cotton": "Tallahassee",
    },
    "europe": {"leather": "Barcelona", "lumber": "Warsaw", "steel": "London", "cotton": "Belgrade"},
}
"""Setup step 4 (PŘÍPRAVA HRY, 4.)."""

MAPS: Final = ("usa", "europe")

# -- components (Obsah hry) and setup figures (PŘÍPRAVA HRY) -----------------------------------
TRAINS_PER_COMPANY: Final = 25
SHARES_PER_COMPANY: Final = 9
TRAINS_ON_MAP_AT_START: Final = 1  # setup step 4: one train on the start location
TRAINS_ON_FIELD_AT_START: Final = 4  # setup step 6
TRAIN_FIELD_MAX: Final = 5  # Pořízení akcie: "Maximální počet vlaků na poli pro vlaky je 5"
TRAINS_ADDED_BY_SHARE: Final = 3  # Pořízení akcie: "Přidejte 3 vlaky"
TRACK_LENGTH_MAX: Final = 15  # Stavba trati 5.: "nad hodnotu 15 ... není možné"
DEMAND_TOKENS: Final = 32
INFLUENCE_AT_START: Final = 1  # setup step 11
AUTOMA_TOKENS_REGULAR: Final = 12  # 14 automa tokens, 2 of them with the refresh icon
AUTOMA_TOKENS_REFRESH: Final = 2
TURISTA_LAST_CITY: Final = 32  # Turista: the game ends when the city pointer reaches city 32

# -- variants ----------------------------------------------------------------------------------
STANDARD: Final = "standard"
TWO_PLAYER_AUTOMA: Final = "two_player_automa"
TWO_EXPERIENCED_VARIANT: Final = "two_experienced"
SOLO: Final = "solo"
VARIANTS: Final = (STANDARD, TWO_PLAYER_AUTOMA, TWO_EXPERIENCED_VARIANT, SOLO)

LEVELS: Final = ("cestujici", "turista", "sotous", "pruvodci", "ajznbonak")
"""Solo difficulty levels, easiest first; each adds to the rules of the one before
(Nastavení obtížnosti sólové hry)."""
LEVEL_NAMES: Final = {
    "cestujici": "Cestující",
    "turista": "Turista",
    "sotous": "Šotouš",
    "pruvodci": "Průvodčí",
    "ajznbonak": "Ajznboňák",
}

AUTOMA_NAME: Final = "automa"
"""The automa ("Mašinfíra") is a player with this name in snapshots (the contract)."""

# Shares per company on the asset board / set aside for the draft / back to the box.
SHARE_SPLIT: Final = {
    # PŘÍPRAVA HRY 2.–3.: 6 on the board, 3 set aside (3 players: 2 set aside, 1 to the box)
    (STANDARD, 3): (6, 2, 1),
    (STANDARD, 4): (6, 3, 0),
    (STANDARD, 5): (6, 3, 0),
    # HRA PRO 2 HRÁČE (s Mašinfírou) 2.–3.
    (TWO_PLAYER_AUTOMA, 2): (6, 2, 1),
    # HRA PRO 2 ZKUŠENÉ HRÁČE 2.–3.
    (TWO_EXPERIENCED_VARIANT, 2): (5, 2, 2),
    # SÓLOVÁ HRA 2.–3.
    (SOLO, 1): (5, 2, 2),
}

UNCLAIMED_SHARE_STEPS: Final = {3: 2, 4: 1, 5: 2}
"""PŘÍPRAVA HRY 10.: each unclaimed set-aside share moves its company's track-length marker
1 step (4 players) or 2 steps (3 and 5 players)."""

# -- the board table (what the seed's scoring example prints) ---------------------------------
RANKS: Final = ("1st", "2nd", "other")
TRACK_LENGTHS: Final = tuple(range(TRACK_LENGTH_MAX + 1))

KNOWN_SHARE_VALUES: Final = {
    # ZÁVĚREČNÉ BODOVÁNÍ, Příklad závěrečného bodování: Daniel scores 4 + 2 + 5 + (8 + 8) = 27
    # with Lumber at 12 ranked 4th ("other"), Steel at 5 ranked 3rd ("other"),
    # Leather at 7 ranked 2nd and Cotton at 9 ranked 1st.
    (12, "other"): 4,
    (5, "other"): 2,
    (7, "2nd"): 5,
    (9, "1st"): 8,
}
"""Cells of the printed share-value table known from the rulebook. A review (spielbox 2/2022
p.26) shows "3rd rank 3, 2nd rank 8" at a track length it does not name, so it fills no cell."""

SHARE_VALUE_MAX: Final = 99
"""A sanity bound for entered cells (the printed values are small; this catches typos)."""
