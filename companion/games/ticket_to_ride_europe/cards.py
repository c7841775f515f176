"""Train cards as counts, and the tunnel arithmetic (rulebook "TUNELY").

A hand of cards is a tuple of nine counts in the order of :data:`KINDS` (the eight colours, then
locomotives). Probabilities are exact :class:`fractions.Fraction` values.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from math import comb

from companion.core.messages import Message, msg, plural
from companion.core.snapshot import Field
from companion.games.ticket_to_ride_europe.board import (
    CARDS_PER_COLOUR,
    COLOURS,
    LOCOMOTIVE,
    LOCOMOTIVE_CARDS,
)
from companion.games.ticket_to_ride_europe.names import cards_text, colour_name

KINDS: tuple[str, ...] = (*COLOURS, LOCOMOTIVE)
INDEX: dict[str, int] = {k: i for i, k in enumerate(KINDS)}
LOCO = INDEX[LOCOMOTIVE]
NONE: tuple[int, ...] = (0,) * len(KINDS)
FULL_DECK: tuple[int, ...] = (CARDS_PER_COLOUR,) * len(COLOURS) + (LOCOMOTIVE_CARDS,)
TUNNEL_REVEAL = 3  # "TUNELY": three cards are turned from the deck

Cards = tuple[int, ...]


def cards_of(kinds: Iterable[str]) -> Cards:
    counts = [0] * len(KINDS)
    for k in kinds:
        counts[INDEX[k]] += 1
    return tuple(counts)


def add(a: Cards, b: Cards) -> Cards:
    return tuple(x + y for x, y in zip(a, b, strict=True))


def sub(a: Cards, b: Cards) -> Cards:
    """``a - b``, never below zero in any kind."""
    return tuple(max(0, x - y) for x, y in zip(a, b, strict=True))


def total(a: Cards) -> int:
    return sum(a)


def to_json(a: Cards) -> dict[str, int]:
    return {k: n for k, n in zip(KINDS, a, strict=True) if n}


def parse_cards(field: Field) -> Cards:
    """``{"red": 2, "locomotive": 1}`` → counts (kinds with 0 may be left out)."""
    counts = [0] * len(KINDS)
    for kind, value in field.items():
        if kind not in INDEX:
            value.fail(f"{kind!r} is not a train card; cards are {', '.join(KINDS)}")
        counts[INDEX[kind]] = value.int(lo=0, hi=FULL_DECK[INDEX[kind]])
    return tuple(counts)


def parse_kind(field: Field) -> str:
    return field.str(frozenset(KINDS))


def card_list(field: Field, *, max_len: int) -> tuple[str, ...]:
    return tuple(parse_kind(f) for f in field.list(max_len=max_len))


def played_colour(played: Cards) -> str | None:
    """The colour a set of played cards stands for (None when only locomotives)."""
    for kind, n in zip(KINDS, played, strict=True):
        if n and kind != LOCOMOTIVE:
            return kind
    return None


def matching_kinds(played: Cards) -> frozenset[int]:
    """Which revealed cards cost one more card ("TUNELY"): the colour played and locomotives
    (locomotives match every colour); when only locomotives were played, only locomotives."""
    colour = played_colour(played)
    if colour is None:
        return frozenset({LOCO})
    return frozenset({INDEX[colour], LOCO})


def extra_needed(played: Cards, revealed: Iterable[str]) -> int:
    match = matching_kinds(played)
    return sum(1 for k in revealed if INDEX[k] in match)


def _matches_distribution(pool: Cards, draws: int, match: frozenset[int]) -> list[Fraction]:
    """Hypergeometric: P(j matching cards) when ``draws`` cards are drawn from ``pool``."""
    n = total(pool)
    m = sum(pool[i] for i in match)
    dist = [Fraction(0)] * (draws + 1)
    if draws == 0:
        return [Fraction(1)]
    if n < draws:
        raise ValueError(f"{draws} cards cannot be drawn from {n}")
    ways = comb(n, draws)
    for j in range(draws + 1):
        dist[j] = Fraction(comb(m, j) * comb(n - m, draws - j), ways)
    return dist


def extra_odds(
    played: Cards,
    deck_pool: Cards,
    deck_count: int,
    discard: Cards,
    *,
    to_turn: int = TUNNEL_REVEAL,
    already: int = 0,
) -> tuple[Fraction, Fraction, Fraction, Fraction]:
    """Exact P(0, 1, 2, 3 extra cards in all) for a tunnel ("TUNELY").

    ``to_turn`` cards are still to be turned and ``already`` extra cards are owed for those
    turned so far. ``deck_pool`` holds the cards the deck's cards are drawn from as far as the
    table knows (every unseen card is equally likely to be any of the deck's); ``deck_count``
    how many the deck has. When the deck runs out the discards are shuffled into a new deck
    for the rest ("LÍZNUTÍ KARET VAGÓNŮ"); with neither, fewer (or no) cards are turned.
    """
    match = matching_kinds(played)
    reveal = min(to_turn, deck_count + total(discard))
    from_deck = min(reveal, deck_count)
    first = _matches_distribution(deck_pool, from_deck, match)
    second = _matches_distribution(discard, reveal - from_deck, match)
    odds = [Fraction(0)] * (TUNNEL_REVEAL + 1)
    for i, p in enumerate(first):
        for j, q in enumerate(second):
            odds[already + i + j] += p * q
    return odds[0], odds[1], odds[2], odds[3]


def can_pay(needed: int, played: Cards, paid: Cards) -> Message | None:
    """Why ``paid`` is not a valid payment of ``needed`` extra tunnel cards (None when it is)."""
    if total(paid) != needed:
        return plural(
            "{n} more card is needed for the tunnel; {given} were given.",
            "{n} more cards are needed for the tunnel; {given} were given.",
            "n",
            n=needed,
            given=total(paid),
        )
    colour = played_colour(played)
    allowed = {LOCO} if colour is None else {LOCO, INDEX[colour]}
    wrong = {KINDS[i]: n for i, n in enumerate(paid) if n and i not in allowed}
    if wrong:
        if colour is None:
            return msg("The extra cards must be locomotives, not {cards}.", cards=cards_text(wrong))
        return msg(
            "The extra cards must be {colour} cards or locomotives, not {cards}.",
            colour=colour_name(colour),
            cards=cards_text(wrong),
        )
    return None
