"""Russian Railroads: the figures printed on the boards, with their provenance.

Everything here was copied from ``shared/reference/russian_railroads.md`` (the project's board
fact sheet) and the rulebooks it cites:

* seed ``000_46e906195101989b.txt`` — Czech rulebook, complete ("seed 000");
* seed ``004_13444df57ee8a5e0.txt`` — Spanish rulebook, partial ("seed 004").

The running service never reads ``shared/``; this module is the copy.

Figures the rulebooks do not print live in ONE marked table, :data:`UNCONFIRMED_FIGURES`, each
with its source. An owner can set them from their own box (config / game options
``{"board": {...}}``); a value set by the owner counts as confirmed. While a score uses a value
that is not confirmed, the score sheet carries a note naming it. A value nobody knows stays
``None``: it is never guessed; scoring leaves it out with a note, play asks the table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any, Final

from companion.core.messages import Text, msg, plural
from companion.core.snapshot import Field

# --- confirmed facts (two sources agree; see the reference sheet) --------------------------

TRANS_SIBERIAN: Final = "trans_siberian"
ST_PETERSBURG: Final = "st_petersburg"
KIEV: Final = "kiev"
TRACKS: Final = (TRANS_SIBERIAN, ST_PETERSBURG, KIEV)
TRACK_TITLES: Final = {
    TRANS_SIBERIAN: "Trans-Siberian",
    ST_PETERSBURG: "St. Petersburg",
    KIEV: "Kiev",
}

BLACK: Final = "black"
GREY: Final = "grey"
BROWN: Final = "brown"
NATURAL: Final = "natural"
WHITE: Final = "white"
# Seed 000, "ZÁSADY STAVBY KOLEJÍ": rails are built in this colour order, each colour strictly
# behind the one before it.
COLOURS: Final = (BLACK, GREY, BROWN, NATURAL, WHITE)

# Track lengths: reference (ChrisPMohr train_line.py + Games Gazette review, "1-15, 1-9, 1-9").
TRACK_LENGTH: Final = {TRANS_SIBERIAN: 15, ST_PETERSBURG: 9, KIEV: 9}
# Colours per track: reference (same sources + component arithmetic 12/12/12/8/4 rails).
TRACK_COLOURS: Final = {
    TRANS_SIBERIAN: (BLACK, GREY, BROWN, NATURAL, WHITE),
    ST_PETERSBURG: (BLACK, GREY, BROWN, NATURAL),
    KIEV: (BLACK, GREY, BROWN),
}
# Locomotive slots per track (seed 000, "LOKOMOTIVY": two at the Trans-Siberian, one elsewhere).
LOCOMOTIVE_SLOTS: Final = {TRANS_SIBERIAN: 2, ST_PETERSBURG: 1, KIEV: 1}

# Points per space (reference: BGA game help + rythos42 BaseScoreValues / RevaluationScoreValues).
POINTS: Final = {BLACK: 0, GREY: 1, BROWN: 2, NATURAL: 4, WHITE: 7}
POINTS_REVALUED: Final = {BLACK: 0, GREY: 1, BROWN: 3, NATURAL: 6, WHITE: 10}

MAX_DOUBLERS: Final = 8  # seed 000, "ŽETONY ZDVOJNÁSOBENÍ": eight spaces over Trans-Siberian 1–8
DOUBLER_SUPPLY: Final = 20  # seed 000, material list: 20 doubler tokens (deliberately limited)

# New rails when black reaches Trans-Siberian 2 / 6 / 10 / 15 (seed 000, "BUDOVÁNÍ KOLEJÍ
# DALŠÍCH BAREV"); one rail to each track that can use the colour.
NEW_RAILS_AT: Final = {2: GREY, 6: BROWN, 10: NATURAL, 15: WHITE}
WHITE_FREE_STEPS: Final = 2  # seed 000, "... + 2 kroky bílou kolejnicí"
TERMINUS_POINTS: Final = 10  # seed 000, "KONEČNÁ STANICE"
KIEV_EXTRA_WORKER_SPACE: Final = 7  # seed 000, black at Kiev 7: a new worker
TS_EXTRA_WORKER_SPACE: Final = 3  # seed 000, brown + locomotive at Trans-Siberian 3
ST_PETERSBURG_DOUBLING_SPACE: Final = 7  # seed 000, grey + locomotive at St. Petersburg 7
KIEV_MEDAL_SPACE: Final = 5  # seed 000, "?" token description: medal at Kiev 5
KIEV_MEDAL_POINTS: Final = 20
KIEV_BONUS_SPACES: Final = (1, 2, 3, 4, 8)  # seed 000, "ZÍSKÁNÍ BODOVÉ PRÉMIE"
# "?" token spaces (black + locomotive): Trans-Siberian 13, St. Petersburg 4 and 6 (seed 000).
TOKEN_SPACES: Final = ((TRANS_SIBERIAN, 13), (ST_PETERSBURG, 4), (ST_PETERSBURG, 6))

# Industry track: start space 0, 4 board spaces, then 5 × (factory gap, board space); a factory
# space is one step (contract; seed 000 "VÝZNAM VÝŘEZŮ PRO TOVÁRNY").
FACTORY_SLOTS: Final = 5
INDUSTRY_GAPS: Final = (5, 7, 9, 11, 13)  # positions of the factory gaps, left to right
INDUSTRY_LAST: Final = 14
INDUSTRY_BOARD_SPACES: Final = (1, 2, 3, 4, 6, 8, 10, 12, 14)

# Locomotives: 4 of each level 1–8 and 5 of level 9, one level-9 lying on its "?" card (seed
# 000 setup step 4); removed per level for 2 / 3 players (seed 000, "ÚPRAVA PRO HRU DVOU A TŘÍ
# HRÁČŮ").
LOCOMOTIVES_PER_LEVEL: Final = {**{level: 4 for level in range(1, 9)}, 9: 4}
LOCOMOTIVES_REMOVED: Final = {2: 2, 3: 1, 4: 0}
ROUNDS: Final = {2: 6, 3: 6, 4: 7}
START_WORKERS: Final = {2: 6, 3: 6, 4: 5}
START_COINS: Final = {2: 2, 3: 1, 4: 1}
EXTRA_OWN_WORKERS: Final = 2  # workers of one's colour left in the general supply

ENGINEER_MAJORITY_POINTS: Final = (40, 20)  # seed 000, "NEJVÍCE INŽENÝRŮ"
BONUS_CARD_INSTEAD_POINTS: Final = 10  # seed 000: take 10 points instead of a bonus card

# Final bonus cards, in the order of seed 000 "KARTY CÍLOVÝCH BONUSŮ" (contract ids).
BONUS_CARDS: Final = (
    "points_15",
    "extra_workers",
    "doublers",
    "terminus",
    "black_rails",
    "engineer_count",
    "factories",
    "locomotives",
    "tokens",
    "engineers_6",
)
BONUS_CARD_TITLES: Final = {
    "points_15": "15 points",
    "extra_workers": "10 per gained worker (max 30)",
    "doublers": "4+ doublers 20, 7+ doublers 30",
    "terminus": "10 per black terminus (max 30)",
    "black_rails": "sum of the black rails' spaces",
    "engineer_count": "one more engineer for the majority",
    "factories": "4 per factory (max 20)",
    "locomotives": "sum of locomotive levels",
    "tokens": "7 per “?” token used (max 28)",
    "engineers_6": "6 per engineer",
}

# The seven "?" tokens every player has (seed 000, "ŽETONY").
TOKENS: Final = (
    "four_steps",  # up to 4 steps with any rails
    "three_doublers",  # 3 doublers
    "industry_five",  # industry up to 5 steps
    "revaluation",  # the revaluation token onto the value table
    "second_industry_marker",  # a second industry marker on space 0
    "kiev_medal",  # the Kiev medal at Kiev space 5
    "question_card",  # take one "?" card, then look through the bonus deck and take one
)

# The five "?" cards (seed 000, "KARTY ?").
QUESTION_CARDS: Final = (
    "four_actions",  # doubler, industry 1, black 1, then repeat one of them
    "engineer_and_coin",  # the engineer without a letter and the coin on the card
    "factory_and_industry",  # build 1 factory, then industry 2
    "black_worker",  # the black worker: +1 worker, and +1 black step when used on black
    "locomotive_9",  # the level-9 locomotive lying on the card
)

# The four starting bonus cards (seed 000, "POČÁTEČNÍ PRÉMIOVÉ KARTY"); drafted 4th → 2nd
# player in turn order (seed 004, "Preparar").
STARTING_BONUS_CARDS: Final = ("black_step", "industry_step", "doubler", "coin")

# The nine factory functions (seed 000, "TOVÁRNY").
FACTORY_FUNCTIONS: Final = (
    "engineer_number_points",  # points = sum of the numbers on your engineer tiles
    "industry_step",  # industry +1
    "bonus_card_or_10",  # take a final bonus card, or 10 points
    "locomotive_or_factory",  # take one locomotive or build one factory
    "coin",  # 1 coin
    "repeat_action",  # repeat a one-worker action you used this round
    "two_any_steps",  # 2 steps with any rails
    "two_doublers",  # 2 doublers
    "best_two_locomotives_points",  # points = sum of your two strongest locomotives
)

# The fifteen engineer abilities (seed 000, "DESTIČKY INŽENÝRŮ"), by a stable id. Their printed
# numbers and A/B letters are not public (reference, "Not found"): a hired engineer's number is
# read off the tile by the table.
ENGINEERS: Final = {
    "two_any": "2 steps with any rails",
    "black_grey": "1 black and 1 grey step",
    "any_3points": "1 step with any rail and 3 points",
    "black_3points": "1 black step and 3 points",
    "industry_two": "industry +2",
    "any_black": "1 step with any rail and 1 black step",
    "grey_brown": "1 grey and 1 brown step",
    "brown_5points": "1 brown step and 5 points",
    "two_black": "2 black steps",
    "grey_5points": "1 grey step and 5 points",
    "industry_3points": "industry +1 and 3 points",
    "doubler_3points": "1 doubler and 3 points",
    "repeat_action": "repeat a one-worker action you used this round",
    "industry_black": "industry +1 and 1 black step",
    "locomotive_or_factory": "take one locomotive or build one factory",
}


# --- the marked table of figures the rulebooks do not print -------------------------------


@dataclass(frozen=True, slots=True)
class BoardFigure:
    """One printed figure: its value (``None`` = unknown), whether two sources agree or the
    owner set it, and where the value came from."""

    key: str
    description: Text
    """What the figure is, for players (a message: the owner's page and the score sheet's
    notes show it in the reader's language)."""
    value: int | None
    confirmed: bool
    source: Text


_ONE_SOURCE_APP = msg(
    "one source only (a scoring app for the game); it agrees with the rulebook's industry example"
)
_NOT_FOUND = msg("not found in public material")

# ****************************************************************************************
# *  UNCONFIRMED BOARD FIGURES. Correct them from your own box in the config:             *
# *  [russian_railroads.board] kiev_bonus_8 = 5   (a value set there counts as confirmed)  *
# ****************************************************************************************
_PRINTED_FIGURES: Final[tuple[BoardFigure, ...]] = (
    BoardFigure(
        "kiev_bonus_4",
        msg("Kiev space {n} bonus star (black + locomotive)", n=4),
        4,
        False,
        msg(
            "follows spaces 1–3 (the rulebook's example: 1 + 2 + 3 = 6); printed nowhere we "
            "could find"
        ),
    ),
    BoardFigure(
        "kiev_bonus_8",
        msg("Kiev space {n} bonus star (black + locomotive)", n=8),
        None,
        False,
        _NOT_FOUND,
    ),
    *(
        BoardFigure(
            f"pass_points_{pos}",
            msg("points on the back of turn order card {n}", n=pos),
            value,
            False,
            msg("one source only (a review: 0 / 2 / 3 / 4)"),
        )
        for pos, value in ((1, 0), (2, 2), (3, 3), (4, 4))
    ),
    *(
        BoardFigure(
            f"industry_value_{n}",
            msg("industry track board space {n} of 9 (position {position})", n=n, position=pos),
            value,
            False,
            _ONE_SOURCE_APP,
        )
        for n, (pos, value) in enumerate(
            zip(INDUSTRY_BOARD_SPACES, (1, 2, 3, 5, 10, 15, 20, 25, 30), strict=True), start=1
        )
    ),
    BoardFigure(
        "industry_token_space",
        msg("industry track position (0–14) of the “?” token space"),
        None,
        False,
        _NOT_FOUND,
    ),
    *(
        BoardFigure(
            f"factory_function_{level}",
            msg(
                "factory function on locomotive level {level} (1–9: its place in the rulebook's "
                "list of factory functions)",
                level=level,
            ),
            None,
            False,
            msg("not found in public material (the table says which function it shows)"),
        )
        for level in range(1, 10)
    ),
    *(
        BoardFigure(
            f"engineer_number_{ability}",
            # the engineer's name: the same message as ``names.ENGINEER_NAMES`` (same id and
            # context, so the same translation)
            msg(
                "number printed on the engineer tile “{engineer}”",
                engineer=msg(text, context="engineer"),
            ),
            None,
            False,
            msg("not found in public material (the table reads it off the tile)"),
        )
        for ability, text in ENGINEERS.items()
    ),
)
# Worker counts of the action spaces no public source prints for every player count (the
# action board: ``action_board.SPACES``); the value in use is the one source's.
_TWO_PLAYER_APPS = msg(
    "two helper apps give it for the 2-player side; the 3–4-player side is not printed in any "
    "public source"
)
# the spaces' names: the same messages as ``names.space_title`` gives (same ids, same translation)
SPACE_WORKER_FIGURES: Final[tuple[tuple[str, Text, int, Text], ...]] = (
    (
        "black_2",
        plural("{n} black step", "{n} black steps", "n", n=2),
        1,
        msg("a reference sheet gives it for the 3–4-player side (one source)"),
    ),
    ("grey_3", plural("{n} grey step", "{n} grey steps", "n", n=3), 2, _TWO_PLAYER_APPS),
    ("brown_1", plural("{n} brown step", "{n} brown steps", "n", n=1), 1, _TWO_PLAYER_APPS),
    ("brown_2", plural("{n} brown step", "{n} brown steps", "n", n=2), 2, _TWO_PLAYER_APPS),
    ("natural_1", plural("{n} natural step", "{n} natural steps", "n", n=1), 1, _TWO_PLAYER_APPS),
    ("natural_2", plural("{n} natural step", "{n} natural steps", "n", n=2), 2, _TWO_PLAYER_APPS),
    ("white_1", plural("{n} white step", "{n} white steps", "n", n=1), 1, _TWO_PLAYER_APPS),
    ("white_2", plural("{n} white step", "{n} white steps", "n", n=2), 2, _TWO_PLAYER_APPS),
    (
        "industry_3",
        msg("industry +3 (the last round tile)"),
        1,
        msg("the tile covers the one-worker turn order space; its own count is not in the text"),
    ),
    (
        "engineer",
        msg("an engineer's action space"),
        1,
        msg(
            "the rulebook's example places one worker (on the doubler + 3 points engineer, so "
            "that one is settled); the other tiles' counts are not published"
        ),
    ),
)
SPACE_FIGURE_TITLES: Final = {key: title for key, title, _, _ in SPACE_WORKER_FIGURES}
# Worker counts the rulebook's own examples settle (issue 47): confirmed, still shown on the
# owner's page (an owner's value from the box still counts).
SETTLED_SPACE_FIGURES: Final[dict[str, Text]] = {
    # Seed 000, "DALŠÍ VYUŽITÍ DĚLNÍKŮ UMÍSTĚNÝCH NA AKČNÍ POLE LIŠTY POŘADÍ NA TAHU": the
    # example moves the turn order worker — one worker, to a one-worker space — to the space of
    # one brown step.
    "brown_1": msg(
        "the rulebook's example moves the one turn order worker to the space of one brown step"
    ),
}
# The engineer whose worker count the example settles: seed 000, "VYUŽITÍ INŽENÝRŮ NA
# PROMĚNLIVÝCH AKČNÍCH POLÍCH" — Red places one worker on the doubler + 3 points engineer.
SETTLED_ENGINEER_WORKERS: Final = frozenset({"doubler_3points"})
UNCONFIRMED_FIGURES: Final[tuple[BoardFigure, ...]] = (
    *_PRINTED_FIGURES,
    *(
        BoardFigure(
            f"space_workers_{key}",
            msg("workers the action space “{space}” needs", space=title),
            value,
            key in SETTLED_SPACE_FIGURES,
            SETTLED_SPACE_FIGURES.get(key, source),
        )
        for key, title, value, source in SPACE_WORKER_FIGURES
    ),
)

OWNER_SOURCE: Final = msg("set by the owner from their own box")


def figure_bounds(key: str) -> tuple[int, int]:
    """The range an owner's value for ``key`` may take."""
    if key == "industry_token_space":
        return 0, INDUSTRY_LAST
    if key.startswith("factory_function_"):
        return 1, len(FACTORY_FUNCTIONS)
    if key.startswith("engineer_number_"):
        return 1, 99
    if key.startswith("space_workers_"):
        return 1, 3
    return 0, 100


@dataclass(frozen=True, slots=True)
class BoardData:
    """The figures in use: the marked table, with any owner corrections applied."""

    figures: Mapping[str, BoardFigure]

    @classmethod
    def default(cls) -> BoardData:
        return cls(MappingProxyType({f.key: f for f in UNCONFIRMED_FIGURES}))

    @classmethod
    def from_options(cls, data: Any, path: str = "options.board") -> BoardData:
        """Owner corrections, e.g. ``{"kiev_bonus_8": 5}``; unknown keys are refused."""
        board = cls.default()
        doc = Field(data, path)
        doc.only(*board.figures)
        figures = dict(board.figures)
        for key, item in doc.items():
            lo, hi = figure_bounds(key)
            value = item.int(lo=lo, hi=hi)
            figures[key] = replace(figures[key], value=value, confirmed=True, source=OWNER_SOURCE)
        return cls(MappingProxyType(figures))

    def figure(self, key: str) -> BoardFigure:
        return self.figures[key]

    def overrides(self) -> dict[str, int]:
        """The owner-set values (what the config holds), for snapshots."""
        return {
            k: f.value
            for k, f in self.figures.items()
            if f.source == OWNER_SOURCE and f.value is not None
        }

    def industry_value(self, position: int) -> BoardFigure | None:
        """The figure scored by a marker at ``position``: the nearest board space at or below it
        (seed 000, "VYHODNOCENÍ PRŮMYSLOVÉHO ROZVOJE": a factory space prints no value, the
        nearest lower one counts). ``None`` at the start space (0 points)."""
        best: BoardFigure | None = None
        for n, pos in enumerate(INDUSTRY_BOARD_SPACES, start=1):
            if pos <= position:
                best = self.figures[f"industry_value_{n}"]
        return best

    def engineer_number(self, ability: str) -> int | None:
        return self.figures[f"engineer_number_{ability}"].value

    def factory_function(self, level: int) -> str | None:
        value = self.figures[f"factory_function_{level}"].value
        return None if value is None else FACTORY_FUNCTIONS[value - 1]


DEFAULT_BOARD: Final = BoardData.default()
