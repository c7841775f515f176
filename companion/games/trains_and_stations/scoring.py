"""Final scoring ("Bodování", seed 003_4080579fd62f6692.txt) and the contract snapshot.

Pure functions over what each player shows at the end: the sum of their VP cards, the value of
their completed task cards, their goods cards by type and the special cards showing two goods
they kept ("Speciální karty": each counts one of each good shown for the monopolies).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from companion.core.messages import Text, msg, plural
from companion.core.scoring import PlayerScore, ScoreLine, ScoreSheet, highest
from companion.core.snapshot import Field
from companion.games.trains_and_stations.data import (
    FORMAT,
    GOODS,
    GOODS_PER_TYPE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    MONOPOLY_BONUS,
    NAME,
    SPECIAL_CARDS,
    TOP_GOODS,
    goods_name,
)

SECTION = "Bodování"


@dataclass(frozen=True, slots=True)
class FinalHolding:
    """What one player reveals at the end of the game."""

    name: str
    vp: int
    task_points: int
    goods: tuple[tuple[str, int], ...]
    """(type, cards) for every type in ``GOODS`` order."""
    special_goods: tuple[tuple[str, str], ...] = ()

    def count(self, good: str) -> int:
        """Cards of ``good`` for the monopolies: goods cards plus one per special card showing
        it ("Speciální karty" 2: counts as one of each good shown)."""
        cards = dict(self.goods).get(good, 0)
        return cards + sum(pair.count(good) for pair in self.special_goods)


def goods_tuple(goods: Mapping[str, int]) -> tuple[tuple[str, int], ...]:
    return tuple((g, goods.get(g, 0)) for g in GOODS)


def monopoly_holders(holdings: Sequence[FinalHolding], good: str) -> tuple[int, ...]:
    """Indexes of the players with the most ``good`` (at least one card); every tied player
    gets the full bonus ("Bodování": dva nebo více hráčů … získávají plný bonus)."""
    counts = [h.count(good) for h in holdings]
    best = max(counts, default=0)
    if best < 1:
        return ()
    return tuple(i for i, c in enumerate(counts) if c == best)


def final_sheet(holdings: Sequence[FinalHolding], notes: tuple[Text, ...] = ()) -> ScoreSheet:
    """The final score: VP cards + completed task cards + monopolies; winners by total, then
    most gold cards; still tied: shared ("Bodování": "V případě shody vyhrává hráč s více
    zlata"). A special card showing gold counts only toward the monopoly bonuses ("Speciální
    karty": "při určování bonusů za monopol … se počítá"), not in the tie-break."""
    monopoly_lines: list[list[ScoreLine]] = [[] for _ in holdings]
    for good in GOODS:
        holders = monopoly_holders(holdings, good)
        for i in holders:
            note = (
                plural(
                    "{goods}: most cards ({n}), tied with {others} other",
                    "{goods}: most cards ({n}), tied with {others} others",
                    "others",
                    goods=goods_name(good),
                    n=holdings[i].count(good),
                    others=len(holders) - 1,
                )
                if len(holders) > 1
                else msg(
                    "{goods}: most cards ({n})", goods=goods_name(good), n=holdings[i].count(good)
                )
            )
            monopoly_lines[i].append(ScoreLine("monopolies", MONOPOLY_BONUS[good], note))
    players = []
    for h, mono in zip(holdings, monopoly_lines, strict=True):
        lines = [
            ScoreLine("vp", h.vp, msg("VP cards"), label=msg("VP", context="score category")),
            ScoreLine(
                "tasks",
                h.task_points,
                msg("completed task cards"),
                label=msg("Tasks", context="score category"),
            ),
            *(mono or [ScoreLine("monopolies", 0, msg("no monopoly"))]),
        ]
        players.append(PlayerScore(h.name, tuple(lines)))
    winners = highest(
        [
            (p.name, (p.total, dict(h.goods).get(TOP_GOODS, 0)))
            for p, h in zip(players, holdings, strict=True)
        ]
    )
    return ScoreSheet(NAME, tuple(players), winners, notes)


# -- the contract snapshot (shared/contracts/trains-and-stations.md) ---------------------------

CONTRACT_KEYS = ("game", "format", "players")


def parse_goods(field: Field) -> dict[str, int]:
    field.only(*GOODS)
    return {g: field.get(g, 0).int(lo=0, hi=GOODS_PER_TYPE) for g in GOODS}


def parse_special_goods(field: Field) -> tuple[tuple[str, str], ...]:
    pairs = []
    for card in field.list(max_len=SPECIAL_CARDS):
        shown = card.list()
        if len(shown) != 2:
            card.fail(f"a special card shows two goods, got {len(shown)}")
        a, b = (s.str(frozenset(GOODS)) for s in shown)
        pairs.append((a, b))
    return tuple(pairs)


def check_players(field: Field, lo: int = MIN_PLAYERS) -> list[Field]:
    players = field.list()
    if not lo <= len(players) <= MAX_PLAYERS:
        field.fail(
            f"Trains & Stations takes {lo}–{MAX_PLAYERS} players ("
            f"pro 3-5 železničních baronů), got {len(players)}"
        )
    return players


def check_names(names: Sequence[str], players: Sequence[Field]) -> None:
    seen: set[str] = set()
    for name, p in zip(names, players, strict=True):
        if not name.strip():
            p.get("name").fail("a player needs a name")
        if name in seen:
            p.get("name").fail(f"{name!r} appears twice")
        seen.add(name)


def check_goods_totals(goods: Sequence[Mapping[str, int]], players: Sequence[Field]) -> None:
    """The game has 10 cards of each type ("Herní součásti"): the players cannot hold more."""
    for g in GOODS:
        total = 0
        for held, p in zip(goods, players, strict=True):
            total += held[g]
            if total > GOODS_PER_TYPE:
                p.get("goods").get(g).fail(
                    f"the players hold {total} {g} cards; the game has only {GOODS_PER_TYPE}"
                )


def parse_contract(data: Any) -> tuple[FinalHolding, ...]:
    """The minimum contract snapshot, validated field by field."""
    doc = Field(data)
    doc.only(*CONTRACT_KEYS)
    if doc.get("game").str() != NAME:
        doc.get("game").fail(f"expected {NAME!r}")
    doc.get("format").int(lo=FORMAT, hi=FORMAT)
    # "pro 3-5 železničních baronů" (the rulebook's opening): a final score is of a whole
    # table; the contract's one-player example is only the shape of an entry
    players = check_players(doc.get("players"))
    holdings, names, goods = [], [], []
    specials = 0
    for p in players:
        p.only("name", "vp", "task_points", "goods", "special_goods")
        name = p.get("name").str()
        held = parse_goods(p.get("goods"))
        pairs = parse_special_goods(p.get("special_goods", []))
        specials += len(pairs)
        if specials > SPECIAL_CARDS:
            p.get("special_goods").fail(f"the game has only {SPECIAL_CARDS} special cards")
        holdings.append(
            FinalHolding(
                name=name,
                vp=p.get("vp").int(lo=0),
                task_points=p.get("task_points").int(lo=0),
                goods=goods_tuple(held),
                special_goods=pairs,
            )
        )
        names.append(name)
        goods.append(held)
    check_names(names, players)
    check_goods_totals(goods, players)
    return tuple(holdings)


def is_contract_snapshot(data: Any) -> bool:
    """True when ``data`` has only the contract's top-level fields (else it is a full table)."""
    return isinstance(data, Mapping) and set(data) <= set(CONTRACT_KEYS)


def score_contract(data: Any) -> ScoreSheet:
    return final_sheet(parse_contract(data))


__all__ = [
    "FinalHolding",
    "final_sheet",
    "is_contract_snapshot",
    "monopoly_holders",
    "parse_contract",
    "score_contract",
]
