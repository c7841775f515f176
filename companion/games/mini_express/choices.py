"""What the table can enter now in Mini Express, as a tree of choices.

Every leaf is an action the game's ``apply`` accepts (checked with ``apply`` itself). Sections
are the rulebook's (seed 002, cs):

- "PŘÍPRAVA HRY", step 9: the drafter picks one of the companies whose set-aside shares remain.
- "PRŮBĚH HRY": on your turn take a share ("Pořízení akcie": the companies with a share on the
  board) or build track ("Stavba trati"): the company, the trains placed from its train field
  (one per space, the city included; the spaces before the city are landscape, step 3), the
  city's demand token (two symbols, or none, step 6), the other company for a wild symbol, and
  whether the city is now full (step 7).

- "ZÁVĚREČNÉ BODOVÁNÍ": the cells of the board's share-value table the final scoring needs (the
  table is printed on the board, not in the rulebook), one cell at a time, values 0–20 (the
  rulebook's known cells are 2–8; a larger printed value goes through the advanced form).

Not offered yet (enter them with the advanced form): compensation to other companies (step 4),
the automa's turns and tokens, the map variants' events (Golden Spike, Harbours).
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations_with_replacement

from companion.core.actions import Action
from companion.core.choices import Choice, accepts
from companion.core.jsonvalue import JsonObject
from companion.core.messages import Message, msg, plural
from companion.games.mini_express.data import COMPANIES
from companion.games.mini_express.moves import WILD
from companion.games.mini_express.names import COMPANY_SWATCHES, RANK_LABELS, company_name
from companion.games.mini_express.rules import GAME
from companion.games.mini_express.setup import next_drafter
from companion.games.mini_express.state import DRAFT, OVER, PLAY, MiniExpressState


def _ok(state: MiniExpressState, action: Action) -> bool:
    return accepts(GAME.apply, state, action)


def choices(state: MiniExpressState, viewer: int | None = None) -> tuple[Choice, ...]:
    """The tree for ``state`` (Mini Express has no hidden holdings: ``viewer`` adds nothing)."""
    if state.phase == DRAFT:
        return _draft(state)
    if state.phase == OVER:
        return _share_values(state)
    if state.phase != PLAY:
        return ()
    p = state.current_player
    if state.players[p].is_automa:
        return ()
    name = state.players[p].name
    found: list[Choice] = []
    shares = tuple(
        Choice(c, company_name(c), p, action=a, swatches=(COMPANY_SWATCHES[c],))
        for c in COMPANIES
        if _ok(state, a := Action("take_share", p, {"company": c}))
    )
    if shares:
        found.append(
            Choice("share", msg("{player}: take a share", player=name), p, children=shares)
        )
    builds = tuple(
        Choice(c, company_name(c), p, children=below, swatches=(COMPANY_SWATCHES[c],))
        for c in COMPANIES
        if (below := _build_trains(state, p, c))
    )
    if builds:
        found.append(Choice("build", msg("{player}: build track", player=name), p, children=builds))
    return tuple(found)


def _draft(state: MiniExpressState) -> tuple[Choice, ...]:
    who = next_drafter(state)
    if who is None:
        return ()
    leaves = tuple(
        Choice(c, company_name(c), who, action=a, swatches=(COMPANY_SWATCHES[c],))
        for c in COMPANIES
        if _ok(state, a := Action("draft_share", who, {"company": c}))
    )
    if not leaves:
        return ()
    label = msg("{player}: pick a starting share", player=state.players[who].name)
    return (Choice("draft", label, who, children=leaves),)


def _demands() -> list[tuple[str, ...]]:
    """A demand token's symbols: two companies (the same one twice too), or a company and a
    wild symbol; ``()`` for a city without a demand token."""
    pairs: list[tuple[str, ...]] = [()]
    pairs += [tuple(pair) for pair in combinations_with_replacement(COMPANIES, 2)]
    pairs += [(c, WILD) for c in COMPANIES]
    return pairs


def _demand_label(demand: tuple[str, ...]) -> Message:
    if not demand:
        return msg("No demand token (start location)")
    a, b = demand
    if b == WILD:
        return msg("{a} + wild symbol", a=company_name(a))
    return msg("{a} + {b}", a=company_name(a), b=company_name(b))


def _build_trains(state: MiniExpressState, p: int, company: str) -> tuple[Choice, ...]:
    """The trains placed; each is offered when a track of that many trains into a city without
    a demand token is accepted (the least a city asks), its demand tokens built when opened."""
    field = state.company(company).trains_on_field
    found: list[Choice] = []
    for trains in range(1, field + 1):
        landscape = trains - 1  # "Stavba trati", 3.: the city is the last space
        base: JsonObject = {"company": company, "trains": trains, "landscape": landscape}
        if not _ok(state, Action("build", p, {**base, "demand": []})):
            continue
        label = plural("{n} train placed", "{n} trains placed", "n", n=trains)
        found.append(Choice(str(trains), label, p, children=_lazy_demand(state, p, base)))
    return tuple(found)


def _lazy_demand(
    state: MiniExpressState, p: int, base: JsonObject
) -> Callable[[], tuple[Choice, ...]]:
    return lambda: _build_demand(state, p, base)


def _build_demand(state: MiniExpressState, p: int, base: JsonObject) -> tuple[Choice, ...]:
    found: list[Choice] = []
    for demand in _demands():
        key = "none" if not demand else "-".join(demand)
        args: JsonObject = {**base, "demand": list(demand)}
        if demand and demand[1] == WILD:
            below = tuple(
                node
                for other in COMPANIES
                if other != demand[0]
                for node in _wild_leaf(state, p, {**args, "wild_company": other}, other)
            )
            if below:
                found.append(Choice(key, _demand_label(demand), p, children=below))
            continue
        if not demand:
            action = Action("build", p, args)
            if _ok(state, action):
                found.append(Choice(key, _demand_label(demand), p, action=action))
            continue
        below = _city_full(state, p, args)
        if below:
            found.append(Choice(key, _demand_label(demand), p, children=below))
    return tuple(found)


def _wild_leaf(state: MiniExpressState, p: int, args: JsonObject, other: str) -> tuple[Choice, ...]:
    below = _city_full(state, p, args)
    if not below:
        return ()
    label = msg("Wild symbol: +1 in {company}", company=company_name(other))
    return (Choice(other, label, p, children=below),)


def _city_full(state: MiniExpressState, p: int, args: JsonObject) -> tuple[Choice, ...]:
    found: list[Choice] = []
    for full, key, label in (
        (False, "open", msg("The city still has room")),
        (True, "full", msg("The city is now full (its demand token goes to the box)")),
    ):
        action = Action("build", p, {**args, "city_full": full})
        if _ok(state, action):
            found.append(Choice(key, label, p, action=action))
    return tuple(found)


SHARE_VALUES_OFFERED = range(21)


def _share_values(state: MiniExpressState) -> tuple[Choice, ...]:
    needed = GAME.needed_share_values(state)
    if not needed:
        return ()
    length, rank = needed[0]
    leaves = tuple(
        Choice(str(v), plural("{n} point", "{n} points", "n", n=v), None, action=a)
        for v in SHARE_VALUES_OFFERED
        if _ok(state, a := Action("share_values", None, {"cells": {str(length): {rank: v}}}))
    )
    if not leaves:
        return ()
    label = msg(
        "Board table, final scoring: a share at track length {length}, {rank} ({left} to read)",
        length=length,
        rank=RANK_LABELS[rank],
        left=len(needed),
    )
    return (Choice("share-values", label, None, children=leaves),)
