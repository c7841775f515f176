"""What the table can enter now in Trains & Stations, as a tree of choices.

Every leaf is an action the game's ``apply`` accepts (checked with ``apply`` itself). Sections
are the rulebook's (seed 003, cs). The board is not public (stations, cities and their bonuses
are reported by the table), so places are offered as the stations the table has named so far
plus numbered new ones ("Station 4", "City 2"), which the table may rename in the log later.

- "Krok 1: Sběr kostek": take the dice back ("Stažení kostek", 5 or more on the board), or roll:
  the faces are entered as counts, one face after another (how many coins, hotels, …; the rest
  are locked trains), own dice first, then the bonus dice.
- "Krok 2: Hod kostkami — Přehazování": reroll every die that is not a locked train (1 coin).
- "Krok 3: Vyhodnocení kostek": where each set of three builds, how many coin dice are cashed,
  which one die is kept.
- "Krok 4: Doručení!": two cities joined, their printed bonuses, each player's dice on the route,
  the majority when tied.
- "Krok 5": end the turn, with the upgrade when a goods deck ran out.
- "Spekulace při vylepšování": the trade is secret, so it is offered only in that player's own
  view (``viewer``); the table sees only the active player's share-out of a short deck.

Not offered yet (use the advanced form): task cards ("Ukončení úkolů": the printed points are
not in the rulebook), more than two cities in one delivery, bonus dice on a delivered route,
the order of a short goods payout, two-goods special cards in a speculation, rolling only some
of the bonus dice.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from itertools import product
from typing import Any

from companion.core.actions import Action
from companion.core.choices import Choice, accepts
from companion.core.messages import Message, msg, plural
from companion.games.trains_and_stations.data import (
    BUILDINGS,
    CITY_BONUSES,
    COINS_PER_DIE,
    FACES,
    GOODS,
    KEEPABLE_FACES,
    MAX_COINS,
    SET_SIZE,
    STATION_CAPACITIES,
    WITHDRAW_MIN,
)
from companion.games.trains_and_stations.names import BONUS_LABELS, building_name, face_name
from companion.games.trains_and_stations.rules import GAME
from companion.games.trains_and_stations.state import TSState

FACE_LABELS = {
    "coin": ("{n} coin", "{n} coins"),
    "hotel": ("{n} hotel", "{n} hotels"),
    "mine": ("{n} mine", "{n} mines"),
    "ranch": ("{n} ranch", "{n} ranches"),
    "train": ("{n} train", "{n} trains"),
    "locked": ("{n} locked train", "{n} locked trains"),
}
Args = dict[str, Any]
MAX_ALLOCATIONS = 60
"""A short deck's share-outs offered (they are few at a real table)."""


def _ok(state: TSState, action: Action) -> bool:
    return accepts(GAME.apply, state, action)


def face_label(face: str, n: int) -> Message:
    one, many = FACE_LABELS[face]
    return plural(one, many, "n", n=n, context="die face")


def choices(state: TSState, viewer: int | None = None) -> tuple[Choice, ...]:
    """The tree for ``state``; ``viewer`` adds that player's secret speculation."""
    if state.over:
        return ()
    if state.speculation is not None:
        return _speculation(state, viewer)
    p = state.turn.player
    phase = state.turn.phase
    if phase == "gather":
        return _gather(state, p)
    if phase == "rolled":
        return _rolled(state, p)
    return _deliver_or_end(state, p)


# -- faces as counts --------------------------------------------------------------------------
def _faces(
    n: int,
    faces: Sequence[str],
    make: Callable[[tuple[str, ...]], Choice | None],
    player: int,
    chosen: tuple[str, ...] = (),
) -> tuple[Choice, ...]:
    """Count by count: how many of ``faces[0]`` among ``n`` dice, then of the next face; the
    last face takes the rest. ``make`` turns a complete multiset into a node (or None)."""
    face, rest = faces[0], faces[1:]
    found: list[Choice] = []
    for k in range(n + 1):
        now = (*chosen, *([face] * k))
        remaining = n - k
        if remaining and len(rest) > 1:
            below = _lazy_faces(remaining, rest, make, player, now)
            found.append(Choice(f"{face}-{k}", face_label(face, k), player, children=below))
            continue
        label = face_label(face, k)
        if remaining:
            now = (*now, *([rest[0]] * remaining))
            label = msg("{a}, {b}", a=label, b=face_label(rest[0], remaining))
        node = make(now)
        if node is not None:
            found.append(_rekey(node, f"{face}-{k}", label))
    return tuple(found)


def _rekey(node: Choice, key: str, label: Message) -> Choice:
    if node.action is not None:
        return Choice(key, label, node.player, node.action)
    return Choice(key, label, node.player, children=node.children)


def _lazy_faces(
    n: int,
    faces: Sequence[str],
    make: Callable[[tuple[str, ...]], Choice | None],
    player: int,
    chosen: tuple[str, ...],
) -> Callable[[], tuple[Choice, ...]]:
    return lambda: _faces(n, faces, make, player, chosen)


# -- step 1: gather and roll ------------------------------------------------------------------
def _gather(state: TSState, p: int) -> tuple[Choice, ...]:
    me = state.players[p]
    name = me.name
    found: list[Choice] = []
    if me.dice_on_board >= WITHDRAW_MIN:
        action = Action("withdraw", p)
        if _ok(state, action):
            found.append(
                Choice("withdraw", msg("{player}: take all dice back", player=name), p, action)
            )
    own = min(5, 8 - me.dice_on_board)
    bonus_counts = [b for b in range(me.bonus_dice + 1) if _roll_count_ok(state, p, own, b)]
    if not bonus_counts:
        return tuple(found)
    # the usual case: every bonus die the rules ask for is rolled ("Krok 1: Sběr kostek")
    bonus = max(bonus_counts)

    def make_own(dice: tuple[str, ...]) -> Choice | None:
        if bonus == 0:
            action = Action("roll", p, {"dice": list(dice), "bonus": []})
            return Choice("done", msg("Done"), p, action) if _ok(state, action) else None
        below = _faces(bonus, FACES, lambda b: _roll_leaf(state, p, dice, b), p)
        return Choice("bonus", msg("Bonus dice"), p, children=below) if below else None

    roll = _faces(own, FACES, make_own, p)
    if roll:
        label = plural("{player}: roll {n} die", "{player}: roll {n} dice", "n", player=name, n=own)
        found.append(Choice("roll", label, p, children=roll))
    return tuple(found)


def _roll_count_ok(state: TSState, p: int, own: int, bonus: int) -> bool:
    return _ok(state, Action("roll", p, {"dice": ["coin"] * own, "bonus": ["coin"] * bonus}))


def _roll_leaf(
    state: TSState, p: int, own: tuple[str, ...], bonus: tuple[str, ...]
) -> Choice | None:
    action = Action("roll", p, {"dice": list(own), "bonus": list(bonus)})
    return Choice("done", msg("Done"), p, action) if _ok(state, action) else None


# -- steps 2 and 3: reroll, resolve -----------------------------------------------------------
def _rolled(state: TSState, p: int) -> tuple[Choice, ...]:
    t = state.turn
    name = state.players[p].name
    found: list[Choice] = []
    locked = t.dice.count("locked")
    free = len(t.dice) - locked
    if free and _ok(state, Action("reroll", p, {"dice": list(t.dice), "bonus": list(t.bonus)})):

        def make(dice: tuple[str, ...]) -> Choice | None:
            action = Action(
                "reroll", p, {"dice": [*dice, *(["locked"] * locked)], "bonus": list(t.bonus)}
            )
            return Choice("done", msg("Done"), p, action) if _ok(state, action) else None

        below = _faces(free, FACES, make, p)
        if below:
            label = msg("{player}: reroll (1 coin)", player=name)
            found.append(Choice("reroll", label, p, children=below))
    resolve = _resolve(state, p)
    if resolve:
        found.append(
            Choice("resolve", msg("{player}: use the dice", player=name), p, children=resolve)
        )
    return tuple(found)


def _places(
    state: TSState, builds: Sequence[Args]
) -> Iterator[tuple[str, str, int | None, Message]]:
    """(key, name, capacity for a new one, label): the stations named so far, then a new one."""
    for i, s in enumerate(state.stations):
        yield f"s{i}", s.name, None, msg("{station}", station=s.name)
    n = len(state.stations) + 1 + sum(1 for b in builds if "capacity" in b)
    for cap in STATION_CAPACITIES:
        label = msg("A new station, Station {n} ({spaces} spaces)", n=n, spaces=cap)
        yield f"new-{cap}", f"Station {n}", cap, label


def _resolve(state: TSState, p: int) -> tuple[Choice, ...]:
    t = state.turn
    faces = [*t.dice, *t.bonus]
    sets = [b for b in BUILDINGS for _ in range(faces.count(b) // SET_SIZE)]
    return _resolve_builds(state, p, sets, [])


def _resolve_builds(
    state: TSState, p: int, sets: list[str], builds: list[Args]
) -> tuple[Choice, ...]:
    if not sets:
        return _resolve_coins(state, p, builds)
    building, rest = sets[0], sets[1:]
    found: list[Choice] = []
    skip = _resolve_builds(state, p, rest, builds)
    for key, name, cap, label in _places(state, builds):
        if any(b["station"] == name for b in builds):
            continue
        build: Args = {"building": building, "station": name}
        if cap is not None:
            build["capacity"] = cap
        chosen = [*builds, build]
        if not _ok(state, _resolve_action(p, chosen, 0, [])):
            continue
        below = _lazy_resolve(state, p, rest, chosen)
        found.append(Choice(key, msg("{building} at {station}", building=building_name(building), station=label), p, children=below))  # fmt: skip
    if skip:
        found.append(Choice("no-build", msg("Do not build this {building}", building=building_name(building)), p, children=skip))  # fmt: skip
    return tuple(found)


def _lazy_resolve(
    state: TSState, p: int, sets: list[str], builds: list[Args]
) -> Callable[[], tuple[Choice, ...]]:
    return lambda: _resolve_builds(state, p, sets, builds)


def _resolve_action(p: int, builds: list[Args], coins: int, keep: list[str]) -> Action:
    return Action("resolve", p, {"build": builds, "coins": coins, "keep": keep})


def _resolve_coins(state: TSState, p: int, builds: list[Args]) -> tuple[Choice, ...]:
    t = state.turn
    coin_dice = [*t.dice, *t.bonus].count("coin")
    me = state.players[p]
    useful = min(coin_dice, -(-(MAX_COINS - me.coins) // COINS_PER_DIE))
    found: list[Choice] = []
    for coins in range(useful, -1, -1):
        keeps = _resolve_keep(state, p, builds, coins)
        if keeps:
            label = plural("Cash {n} coin die", "Cash {n} coin dice", "n", n=coins)
            found.append(Choice(f"coins-{coins}", label, p, children=keeps))
    return tuple(found)


def _resolve_keep(state: TSState, p: int, builds: list[Args], coins: int) -> tuple[Choice, ...]:
    found: list[Choice] = []
    for face in (None, *KEEPABLE_FACES):
        keep: list[str] = [] if face is None else [face]
        action = _resolve_action(p, builds, coins, keep)
        if _ok(state, action):
            label = msg("Keep no die") if face is None else msg("Keep one {face} die", face=face_name(face))  # fmt: skip
            found.append(Choice(f"keep-{face or 'none'}", label, p, action))
    return tuple(found)


# -- steps 4 and 5: deliver, end the turn -----------------------------------------------------
def _deliver_or_end(state: TSState, p: int) -> tuple[Choice, ...]:
    name = state.players[p].name
    found: list[Choice] = []
    if state.turn.phase == "deliver" and _could_fill_a_route(state, p):
        below = _lazy_cities(state, p, [])
        found.append(Choice("deliver", msg("{player}: deliver", player=name), p, children=below))
    ends = _end_turn(state, p)
    if ends:
        found.append(Choice("end", msg("{player}: end the turn", player=name), p, children=ends))
    return tuple(found)


def _could_fill_a_route(state: TSState, p: int) -> bool:
    """Whether a delivery can be offered at all (the step is opened lazily, so it must not be
    offered empty): a route is delivered only when a train die this player placed this turn, or
    a bonus die, fills it (Krok 4: Doručení!)."""
    if not any(q.dice_on_board for q in state.players):
        return False
    placed = state.turn.placed
    if placed is None:
        return True
    # the tree enters a route's own dice only (bonus dice on a route go through Advanced), so
    # one of this player's own dice placed this turn must be on it
    own_left, _bonus_left = placed
    return bool(own_left and state.players[p].dice_on_board)


def _lazy_cities(state: TSState, p: int, cities: list[Args]) -> Callable[[], tuple[Choice, ...]]:
    return lambda: _cities(state, p, cities)


def _cities(state: TSState, p: int, cities: list[Args]) -> tuple[Choice, ...]:
    if len(cities) == 2:
        return _dice_on_route(state, p, cities, [])
    found: list[Choice] = []
    names = [s.name for s in state.stations] + [f"City {i}" for i in (1, 2)]
    for index, name in enumerate(names):
        if any(c["name"] == name for c in cities):
            continue
        for bonus in CITY_BONUSES:
            chosen = [*cities, {"name": name, "bonus": bonus}]
            label = msg("{city}, bonus {bonus}", city=name, bonus=BONUS_LABELS[bonus])
            found.append(
                Choice(f"c{index}-{bonus}", label, p, children=_lazy_cities(state, p, chosen))
            )
    return tuple(found)


def _dice_on_route(
    state: TSState, p: int, cities: list[Args], dice: list[int]
) -> tuple[Choice, ...]:
    i = len(dice)
    if i == len(state.players):
        return _deliver_leaves(state, p, cities, dice)
    # a completed route has dice on it: 0 only while someone later can still have some
    later = sum(q.dice_on_board for q in state.players[i + 1 :])
    lowest = 0 if sum(dice) or later else 1
    if i == p and state.turn.placed is not None:
        lowest = 1  # this turn's own die fills the route (Krok 4: Doručení!)
    found: list[Choice] = []
    for d in range(lowest, state.players[i].dice_on_board + 1):
        below = _lazy_dice(state, p, cities, [*dice, d])
        label = plural(
            "{player}: {n} die on the route",
            "{player}: {n} dice on the route",
            "n",
            player=state.players[i].name,
            n=d,
        )
        found.append(Choice(f"dice-{d}", label, p, children=below))
    if len(found) == 1:
        return found[0].expand()  # nothing to choose for this player
    return tuple(found)


def _lazy_dice(
    state: TSState, p: int, cities: list[Args], dice: list[int]
) -> Callable[[], tuple[Choice, ...]]:
    return lambda: _dice_on_route(state, p, cities, dice)


def _deliver_leaves(
    state: TSState, p: int, cities: list[Args], dice: list[int]
) -> tuple[Choice, ...]:
    n = len(state.players)
    # the payout order: clockwise from the active player ("Vyzvednutí zboží")
    order = [(p + k) % n for k in range(n)]
    args: Args = {"cities": cities, "dice": dice, "goods_order": order}
    most = max(dice)
    tied = [i for i, d in enumerate(dice) if d == most] if most else []
    found: list[Choice] = []
    options: list[tuple[str, Args, Message]] = []
    if len(tied) > 1:
        for i in tied:
            name = state.players[i].name
            options.append(
                (f"majority-{i}", {**args, "majority": i}, msg("{player} wins the majority", player=name))
            )  # fmt: skip
    else:
        options.append(("done", args, msg("Done")))
    for key, a, label in options:
        action = Action("deliver", p, a)
        if _ok(state, action):
            found.append(Choice(key, label, p, action))
    return tuple(found)


def _end_turn(state: TSState, p: int) -> tuple[Choice, ...]:
    found: list[Choice] = []
    plain = Action("end_turn", p)
    if _ok(state, plain):
        return (Choice("done", msg("End the turn"), p, plain),)
    for building in BUILDINGS:
        for hotel_to, printed in product((None, "silver", "food"), (None, "silver", "food")):
            args: Args = {"upgrade": building}
            if hotel_to is not None:
                args["hotel_to"] = hotel_to
            if printed is not None:
                args["printed_next"] = printed
            action = Action("end_turn", p, args)
            if not _ok(state, action):
                continue
            label = msg("Upgrade the {building}", building=building_name(building))
            if hotel_to is not None:
                label = msg("{what}, to {goods}", what=label, goods=msg(hotel_to, context="goods"))
            if printed is not None:
                label = msg(
                    "{what} (the board shows {goods} next)",
                    what=label,
                    goods=msg(printed, context="goods"),
                )
            found.append(Choice(f"{building}-{hotel_to or '-'}-{printed or '-'}", label, p, action))
    return tuple(found)


# -- speculation ------------------------------------------------------------------------------
def _speculation(state: TSState, viewer: int | None) -> tuple[Choice, ...]:
    spec = state.speculation
    assert spec is not None
    found: list[Choice] = []
    if viewer is not None and spec.offers[viewer] is None:
        me = state.players[viewer]
        leaves: list[Choice] = []
        nothing = Action("speculate", viewer, {"goods": {}})
        if _ok(state, nothing):
            leaves.append(Choice("none", msg("Trade nothing"), viewer, nothing))
        for good in GOODS:
            for k in range(2, me.good(good) + 1, 2):
                action = Action("speculate", viewer, {"goods": {good: k}})
                if _ok(state, action):
                    label = msg(
                        "Give {n} {goods} for {m} {new}",
                        n=k,
                        goods=msg(good, context="goods"),
                        m=k // 2,
                        new=msg(spec.goods, context="goods"),
                    )
                    leaves.append(Choice(f"{good}-{k}", label, viewer, action))
        if leaves:
            label = msg("{player}: speculate (secret)", player=me.name)
            found.append(Choice("speculate", label, viewer, children=tuple(leaves)))
    if all(o is not None for o in spec.offers):
        p = state.turn.player
        allocations = _allocations(state, p)
        if allocations:
            label = msg(
                "{player}: share out the short {goods} deck",
                player=state.players[p].name,
                goods=msg(spec.goods, context="goods"),
            )
            found.append(Choice("allocate", label, p, children=allocations))
    return tuple(found)


def _allocations(state: TSState, p: int) -> tuple[Choice, ...]:
    spec = state.speculation
    assert spec is not None
    wanted = [o.cards // 2 if o is not None else 0 for o in spec.offers]
    left = state.left(spec.goods)
    found: list[Choice] = []
    for given in product(*(range(w + 1) for w in wanted)):
        if sum(given) != left:
            continue
        action = Action("allocate_speculation", p, {"cards": list(given)})
        if not _ok(state, action):
            continue
        parts = ", ".join(f"{q.name} {g}" for q, g in zip(state.players, given, strict=True))
        found.append(Choice("-".join(map(str, given)), msg("{shares}", shares=parts), p, action))
        if len(found) >= MAX_ALLOCATIONS:
            break
    return tuple(found)
