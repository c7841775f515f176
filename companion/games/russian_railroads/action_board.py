"""Russian Railroads: the action board as data — every action space, what it costs, what it
gives, whether it may be used again, and for which player counts it exists; each with its source
and how sure we are.

A turn is one action space (seed 000, "POPIS JEDNOHO TAHU HRÁČE"): it must be free (or the one
reusable space), paid with exactly its number of workers from the player's own supply (a coin may
stand in for a worker, never the reverse: seed 000, "DALŠÍ AKCE"), and its action is done at once
and in full (hired engineers' spaces may be used partly: seed 000, "A INŽENÝŘI").

What a space gives is a tuple of *grants* (small strings, kept in the state as they are spent):

* ``steps:<colours>:<n>`` — n rail steps; ``<colours>`` is ``any`` or colours joined by ``|``;
  ``:upto`` when fewer may be taken; the steps may be split between tracks (seed 000, "ZÁSADY
  STAVBY KOLEJÍ");
* ``locomotive``, ``factory``, ``locomotive_or_factory``;
* ``industry:<n>`` (``:upto``);
* ``hire`` — the engineer on the hiring space; ``repeat`` — a one-worker action the player used
  this round again; ``four_repeat`` — one of the "four actions" card's three actions again;
* applied at once: ``doublers:<n>``, ``coins:<n>``, ``temporary``, ``points:<n>``,
  ``turn_order:<1|2>``.

Sources: seed ``000_46e906195101989b.txt`` (Czech rulebook, complete) and the project's board
fact sheet (``shared/reference/russian_railroads.md``: two solo-helper apps give the 2-player
side exactly). The 3–4-player side's figures that no public source confirms carry
``confirmed=False`` and a worker-count figure the owner may correct from the box
(``board_data.SPACE_WORKER_FIGURES``: options ``{"board": {"space_workers_grey_3": 2}}``, or the
board figures page).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from companion.games.russian_railroads.board_data import COLOURS, ENGINEERS, TRACK_TITLES

S_TURN_SPACE = "POPIS JEDNOHO TAHU HRÁČE"
S_BUILD = "POSTUP VÝSTAVBY TRATÍ"
S_COLOURS = "BUDOVÁNÍ KOLEJÍ DALŠÍCH BAREV"
S_BOTTOM = "PRVNÍ (NEBO SPODNÍ) AKČNÍ POLE OBLASTI STAVBY TRATÍ"
S_LOCO_AREA = "ROZDÍLY AKČNÍCH POLÍ TÉTO OBLASTI (lokomotivy a továrny)"
S_INDUSTRY_AREA = "ROZDÍLY AKČNÍCH POLÍ TÉTO OBLASTI (průmyslový rozvoj)"
S_EXTRA = "DOPLŇKOVÉ AKCE"
S_COINS = "DALŠÍ AKCE"
S_ENGINEERS = "VYUŽITÍ SCHOPNOSTÍ INŽENÝRŮ"
S_PUBLIC_ENGINEERS = "VYUŽITÍ INŽENÝRŮ NA PROMĚNLIVÝCH AKČNÍCH POLÍCH"
S_OWN_ENGINEERS = "A INŽENÝŘI"
S_TURN_ORDER = "ZMĚNA NA LIŠTĚ POŘADÍ NA TAHU"
S_TURN_MOVE = "DALŠÍ VYUŽITÍ DĚLNÍKŮ UMÍSTĚNÝCH NA AKČNÍ POLE LIŠTY POŘADÍ NA TAHU"
S_LAST_ROUND = "PŘÍPRAVA DALŠÍHO KOLA (destička posledního kola)"
S_TWO_PLAYERS = "HRA VE DVOU HRÁČÍCH"
S_BLACK_WORKER = "KARTY ? (černý dělník)"
S_REPEAT = "TOVÁRNY / DESTIČKY INŽENÝRŮ (opakování akce)"
S_FOUR_ACTIONS = "KARTY ? (čtyři akce)"

REF_2P = "reference sheet: two solo-helper apps, 2-player side"

ALL: Final = frozenset({2, 3, 4})
FRONT: Final = frozenset({3, 4})  # the board's front side (seed 000, "HRA VE TŘECH HRÁČÍCH")


@dataclass(frozen=True, slots=True)
class ActionSpace:
    """One action space of the board."""

    key: str
    title: str
    """Plain English, as a player would say it ("3 black steps")."""
    area: str
    workers: int
    coins: int
    grants: tuple[str, ...]
    players: frozenset[int]
    source: str
    confirmed: bool
    reusable: bool = False
    last_round_only: bool = False
    not_last_round: bool = False


def _space(  # noqa: PLR0917 -- a table row: key, title, area, workers, grants, source
    key: str,
    title: str,
    area: str,
    workers: int,
    grants: tuple[str, ...],
    source: str,
    *,
    coins: int = 0,
    players: frozenset[int] = ALL,
    confirmed: bool = True,
    reusable: bool = False,
    last_round_only: bool = False,
    not_last_round: bool = False,
) -> ActionSpace:
    return ActionSpace(
        key,
        title,
        area,
        workers,
        coins,
        grants,
        players,
        source,
        confirmed,
        reusable,
        last_round_only,
        not_last_round,
    )


# *****************************************************************************************
# *  THE ACTION BOARD. Spaces marked confirmed=False are not printed in any public source  *
# *  for that player count; the owner corrects their worker counts from the box.          *
# *****************************************************************************************
SPACES: Final[tuple[ActionSpace, ...]] = (
    # -- track building ------------------------------------------------------------------
    _space(
        "black_3",
        "3 black steps",
        "rails",
        2,
        ("steps:black:3",),
        f"{S_BUILD} (example: 2 workers, 3 black steps); {REF_2P}",
    ),
    _space(
        "black_2",
        "2 black steps",
        "rails",
        1,
        ("steps:black:2",),
        "reference sheet: the 3–4-player side also has black 2 for one worker (one source)",
        players=FRONT,
        confirmed=False,
    ),
    _space(
        "grey_3",
        "3 grey steps",
        "rails",
        2,
        ("steps:grey:3",),
        f"{REF_2P}; on the 3–4-player side not printed in any public source",
        confirmed=False,
    ),
    _space(
        "grey_2",
        "2 grey steps",
        "rails",
        1,
        ("steps:grey:2",),
        f"{S_COLOURS} (example: 1 worker, 2 grey steps); the reference sheet: 3–4-player side",
        players=FRONT,
    ),
    *(
        _space(
            f"{colour}_{n}",
            f"{n} {colour} step" + ("s" if n > 1 else ""),
            "rails",
            n,
            (f"steps:{colour}:{n}",),
            f"{REF_2P}; on the 3–4-player side not printed in any public source"
            if f"{colour}_{n}" != "brown_1"
            else f"{REF_2P}; {S_TURN_MOVE} (example: the one turn order worker, 1 brown step)",
            confirmed=f"{colour}_{n}" == "brown_1",
        )
        for colour in ("brown", "natural", "white")
        for n in (1, 2)
    ),
    _space(
        "any_2",
        "up to 2 steps with any rails",
        "rails",
        1,
        ("steps:any:2:upto",),
        f"{S_BOTTOM} (1 worker + 1 coin, up to 2 steps of any rails); {S_COINS}",
        coins=1,
    ),
    _space(
        "black_or_grey",
        "1 black or grey step (may be used again)",
        "rails",
        1,
        ("steps:black|grey:1",),
        f"{S_BOTTOM} (the only reusable space: 1 worker, 1 step black or grey)",
        reusable=True,
    ),
    # -- locomotives and factories -------------------------------------------------------
    _space(
        "locomotive_1",
        "a locomotive or a factory (1 worker)",
        "locomotives",
        1,
        ("locomotive_or_factory",),
        S_LOCO_AREA,
    ),
    _space(
        "locomotive_2",
        "a locomotive or a factory (2 workers)",
        "locomotives",
        2,
        ("locomotive_or_factory",),
        S_LOCO_AREA,
    ),
    _space(
        "locomotive_and_factory",
        "a locomotive and a factory",
        "locomotives",
        3,
        ("locomotive", "factory"),
        f"{S_LOCO_AREA} (blocked when the supply has no locomotive)",
    ),
    # -- industry --------------------------------------------------------------------------
    _space("industry_1", "industry +1", "industry", 1, ("industry:1",), S_INDUSTRY_AREA),
    _space("industry_2", "industry +2", "industry", 2, ("industry:2",), S_INDUSTRY_AREA),
    _space(
        "industry_black",
        "industry +1 and 1 black step",
        "industry",
        2,
        ("industry:1", "steps:black:1"),
        S_INDUSTRY_AREA,
    ),
    # -- extra actions ---------------------------------------------------------------------
    _space("doubler", "a doubler", "extra", 1, ("doublers:1",), S_EXTRA),
    _space("coins", "2 coins", "extra", 1, ("coins:2",), S_EXTRA),
    _space("temporary", "2 temporary workers", "extra", 1, ("temporary",), S_EXTRA),
    # -- engineers -------------------------------------------------------------------------
    _space(
        "hire_engineer",
        "hire the engineer on the hiring space (1 coin)",
        "engineers",
        0,
        ("hire",),
        f"{S_ENGINEERS}; {S_COINS} (no worker, one coin)",
        coins=1,
    ),
    # -- turn order ------------------------------------------------------------------------
    _space(
        "turn_order_1",
        "turn order space 1",
        "turn order",
        1,
        ("turn_order:1",),
        f"{S_TURN_ORDER}; {S_TWO_PLAYERS} (one space on the 2-player side)",
        not_last_round=True,
    ),
    _space(
        "turn_order_2",
        "turn order space 2",
        "turn order",
        1,
        ("turn_order:2",),
        S_TURN_ORDER,
        players=FRONT,
        not_last_round=True,
    ),
    _space(
        "industry_3",
        "industry +3 (last round tile)",
        "turn order",
        1,
        ("industry:3",),
        f"{S_LAST_ROUND}; worker count: the tile covers the one-worker turn order space "
        "(not printed in the text)",
        confirmed=False,
        last_round_only=True,
    ),
)

SPACE_BY_KEY: Final = {s.key: s for s in SPACES}

# The engineer row (seed 000 setup step 9, "VYUŽITÍ SCHOPNOSTÍ INŽENÝRŮ", "VYUŽITÍ INŽENÝRŮ NA
# PROMĚNLIVÝCH AKČNÍCH POLÍCH", "INŽENÝŘI NA HERNÍM PLÁNU PŘED PROMĚNLIVÝMI AKČNÍMI POLI"): the
# B tiles lie upright and face down on the left; the three A tiles lie across and face up. The
# rightmost of those is the hiring space (its engineer can be hired, not used); the two to its
# left are the variable action spaces — "the left variable action space" of the rulebook's
# example — usable by everyone, once a round, and not yet hirable. The tiles further left can be
# neither hired nor used. Each round the row moves one place right.
PUBLIC_ENGINEER_SPACES: Final = 2
ENGINEER_PLACES: Final = ("left", "right", "hiring")
"""The three face-up places of the engineer row, left to right."""


def engineer_place_index(row_length: int, place: str) -> int:
    """The row index of a face-up place (``left``/``right``/``hiring``); negative when the row
    has no such place any more (late rounds: the row has moved right)."""
    return row_length - len(ENGINEER_PLACES) + ENGINEER_PLACES.index(place)


def public_engineers(row: tuple[str, ...]) -> tuple[str, ...]:
    """The engineers on the two variable action spaces ("" = face up, not yet named)."""
    return row[-1 - PUBLIC_ENGINEER_SPACES : -1] if row else ()


ENGINEER_SPACE_WORKERS: Final = 1

# What each engineer's action space gives (seed 000, "DESTIČKY INŽENÝRŮ").
ENGINEER_GRANTS: Final[dict[str, tuple[str, ...]]] = {
    "two_any": ("steps:any:2",),
    "black_grey": ("steps:black:1", "steps:grey:1"),
    "any_3points": ("points:3", "steps:any:1"),
    "black_3points": ("points:3", "steps:black:1"),
    "industry_two": ("industry:2",),
    "any_black": ("steps:any:1", "steps:black:1"),
    "grey_brown": ("steps:grey:1", "steps:brown:1"),
    "brown_5points": ("points:5", "steps:brown:1"),
    "two_black": ("steps:black:2",),
    "grey_5points": ("points:5", "steps:grey:1"),
    "industry_3points": ("points:3", "industry:1"),
    "doubler_3points": ("points:3", "doublers:1"),
    "repeat_action": ("repeat",),
    "industry_black": ("industry:1", "steps:black:1"),
    "locomotive_or_factory": ("locomotive_or_factory",),
}
assert set(ENGINEER_GRANTS) == set(ENGINEERS)

# Grants of the cards, tokens and factories that give actions (seed 000, "POPIS KARET A ŽETONŮ").
TOKEN_GRANTS: Final = {"four_steps": ("steps:any:4:upto",), "industry_five": ("industry:5:upto",)}
QUESTION_CARD_GRANTS: Final = {
    "four_actions": ("doublers:1", "industry:1:upto", "steps:black:1:upto", "four_repeat"),
    "factory_and_industry": ("factory:upto", "industry:2:upto"),
}
FACTORY_GRANTS: Final = {
    "locomotive_or_factory": ("locomotive_or_factory:upto",),
    "repeat_action": ("repeat",),
    "two_any_steps": ("steps:any:2:upto",),
}

IMMEDIATE: Final = ("doublers", "coins", "temporary", "points", "turn_order")


@dataclass(frozen=True, slots=True)
class Grant:
    """A parsed grant string."""

    kind: str
    colours: tuple[str, ...] = ()
    count: int = 0
    up_to: bool = False

    @property
    def immediate(self) -> bool:
        return self.kind in IMMEDIATE


def parse_grant(text: str) -> Grant:
    parts = text.split(":")
    kind = parts[0]
    up_to = "upto" in parts[1:]
    rest = [p for p in parts[1:] if p != "upto"]
    if kind == "steps":
        colours = COLOURS if rest[0] == "any" else tuple(rest[0].split("|"))
        return Grant(kind, colours, int(rest[1]), up_to)
    count = int(rest[0]) if rest else 1
    return Grant(kind, (), count, up_to)


def engineer_space_key(ability: str) -> str:
    return f"engineer_{ability}"


def own_engineer_key(number: int) -> str:
    return f"own_engineer_{number}"


def track_title(track: str) -> str:
    return TRACK_TITLES[track]
