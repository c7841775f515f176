"""What the table can enter now in Trains & Stations, as a tree of choices.

Every leaf is an action the game's ``apply`` accepts (checked with ``apply`` itself). Sections
are the rulebook's (seed 003, cs). The board is not public (stations, cities and their bonuses
are reported by the table), so places are offered as the stations the table has named so far
plus numbered new ones ("Station 4", "City 2"), which the table may rename in the log later.
Large sets are staged, a small step at a time: how many, then which.

- "Krok 1: Sběr kostek": take the dice back ("Stažení kostek", 5 or more on the board), or roll:
  how many bonus dice ("Bonusové kostky": more than five dice are optional, except to reach
  five or when the common supply is empty), then the faces as counts, one face after another
  (how many coins, hotels, …; the rest are locked trains), own dice first, then the bonus dice.
- "Krok 2: Hod kostkami — Přehazování": pay 1 coin and reroll "libovolný počet kostek" except
  locked trains, the bonus dice too: the faces after the reroll, own dice then bonus dice.
- "Krok 3: Vyhodnocení kostek": where each set of three builds, how many coin dice are cashed,
  how many dice of each face are kept ("Schovávání kostek": any number of building or coin dice).
- "Krok 4: Doručení!": how many cities the route joins, which they are with their printed
  bonuses, each player's dice and the bonus dice on the route, the majority when tied, the
  payout order when a deck is short ("Vyzvednutí zboží"); task cards ("Ukončení úkolů") in the
  owner's own view (a task card is a face-down special card).
- "Krok 5": end the turn, with the upgrade when a goods deck ran out.
- "Spekulace při vylepšování": the trade is secret, so it is offered only in that player's own
  view (``viewer``): how many of each goods and of each two-goods special card ("Speciální
  karty"); the table sees only the active player's share-out of a short deck, player by player.
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
    TASK_POINTS_MAX,
    WITHDRAW_MIN,
)
from companion.games.trains_and_stations.names import BONUS_LABELS, building_name, place_name
from companion.games.trains_and_stations.rules import GAME
from companion.games.trains_and_stations.state import TSState

Args = dict[str, Any]


def _ok(state: TSState, action: Action) -> bool:
    return accepts(GAME.apply, state, action)


def face_label(face: str, n: int) -> Message:
    """``n`` dice showing ``face`` ("Kostky": Mince, Hotel, Důl, Ranč, Vlak, Zamčený vlak)."""
    if face == "coin":
        return plural("{n} coin", "{n} coins", "n", n=n, context="die face")
    if face == "hotel":
        return plural("{n} hotel", "{n} hotels", "n", n=n, context="die face")
    if face == "mine":
        return plural("{n} mine", "{n} mines", "n", n=n, context="die face")
    if face == "ranch":
        return plural("{n} ranch", "{n} ranches", "n", n=n, context="die face")
    if face == "train":
        return plural("{n} train", "{n} trains", "n", n=n, context="die face")
    return plural("{n} locked train", "{n} locked trains", "n", n=n, context="die face")


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
    return _deliver_or_end(state, p, viewer)


# -- faces as counts --------------------------------------------------------------------------
def _faces(
    n: int,
    faces: Sequence[str],
    make: Callable[[tuple[str, ...]], Choice | None],
    player: int,
    chosen: tuple[str, ...] = (),
    *,
    bonus: bool = False,
) -> tuple[Choice, ...]:
    """Count by count: how many of ``faces[0]`` among ``n`` dice, then of the next face; the
    last face takes the rest. ``make`` turns a complete multiset into a node (or None).
    ``bonus``: these are the white bonus dice (the labels say so)."""
    face, rest = faces[0], faces[1:]
    found: list[Choice] = []
    for k in range(n + 1):
        now = (*chosen, *([face] * k))
        remaining = n - k
        label: Message = face_label(face, k)
        if remaining and len(rest) > 1:
            below = _lazy_faces(remaining, rest, make, player, now, bonus=bonus)
            found.append(Choice(f"{face}-{k}", _dice_words(label, bonus), player, children=below))
            continue
        if remaining:
            now = (*now, *([rest[0]] * remaining))
            label = msg("{a}, {b}", a=label, b=face_label(rest[0], remaining))
        node = make(now)
        if node is not None:
            found.append(_rekey(node, f"{face}-{k}", _dice_words(label, bonus)))
    return tuple(found)


def _dice_words(label: Message, bonus: bool) -> Message:
    return msg("bonus dice: {faces}", faces=label) if bonus else label


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
    *,
    bonus: bool,
) -> Callable[[], tuple[Choice, ...]]:
    return lambda: _faces(n, faces, make, player, chosen, bonus=bonus)


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
    label = plural("{player}: roll {n} die", "{player}: roll {n} dice", "n", player=name, n=own)
    if len(bonus_counts) == 1:
        roll = _roll_faces(state, p, own, bonus_counts[0])
        if roll:
            found.append(Choice("roll", label, p, children=roll))
        return tuple(found)
    # "Bonusové kostky": rolling more than five dice is optional; how many first, then faces
    counts: list[Choice] = []
    for b in reversed(bonus_counts):
        how = plural("with {n} bonus die", "with {n} bonus dice", "n", n=b)
        counts.append(Choice(f"bonus-{b}", how, p, children=_lazy_roll(state, p, own, b)))
    found.append(Choice("roll", label, p, children=tuple(counts)))
    return tuple(found)


def _lazy_roll(state: TSState, p: int, own: int, bonus: int) -> Callable[[], tuple[Choice, ...]]:
    return lambda: _roll_faces(state, p, own, bonus)


def _roll_faces(state: TSState, p: int, own: int, bonus: int) -> tuple[Choice, ...]:
    def make_own(dice: tuple[str, ...]) -> Choice | None:
        if bonus == 0:
            return _roll_leaf(state, p, dice, ())
        below = _faces(bonus, FACES, lambda b: _roll_leaf(state, p, dice, b), p, bonus=True)
        return Choice("bonus", msg("Bonus dice"), p, children=below) if below else None

    return _faces(own, FACES, make_own, p)


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
    locked_bonus = t.bonus.count("locked")
    free = len(t.dice) - locked
    free_bonus = len(t.bonus) - locked_bonus
    if (free or free_bonus) and _ok(
        state, Action("reroll", p, {"dice": list(t.dice), "bonus": list(t.bonus)})
    ):
        # "Přehazování": any dice but locked trains, bonus dice too; the faces after it
        def leaf(dice: tuple[str, ...], bonus: tuple[str, ...]) -> Choice | None:
            args = {
                "dice": [*dice, *(["locked"] * locked)],
                "bonus": [*bonus, *(["locked"] * locked_bonus)],
            }
            action = Action("reroll", p, args)
            return Choice("done", msg("Done"), p, action) if _ok(state, action) else None

        def make_own(dice: tuple[str, ...]) -> Choice | None:
            if not free_bonus:
                return leaf(dice, ())
            below = _faces(free_bonus, FACES, lambda b: leaf(dice, b), p, bonus=True)
            return Choice("bonus", msg("Bonus dice"), p, children=below) if below else None

        below = _faces(free, FACES, make_own, p) if free else _faces(free_bonus, FACES, lambda b: leaf((), b), p, bonus=True)  # fmt: skip
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
        yield f"s{i}", s.name, None, msg("{station}", station=place_name(s.name))
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
    """ "Schovávání kostek": any number of one's own building or coin dice, never bonus dice:
    how many of each face, one face after another."""
    t = state.turn
    used = {b: SET_SIZE * sum(1 for x in builds if x["building"] == b) for b in BUILDINGS}
    used["coin"] = coins
    most = {
        f: max(0, min(t.dice.count(f), t.dice.count(f) + t.bonus.count(f) - used.get(f, 0)))
        for f in KEEPABLE_FACES
    }
    faces = [f for f in KEEPABLE_FACES if most[f]]
    action = _resolve_action(p, builds, coins, [])
    # the usual answer first, in one tap; then how many of each face
    none = (Choice("keep-none", msg("Keep no die"), p, action),) if _ok(state, action) else ()
    if not faces:
        return none
    return none + _keep_counts(state, p, builds, coins=coins, faces=faces, most=most, keep=[])


def _keep_counts(
    state: TSState,
    p: int,
    builds: list[Args],
    *,
    coins: int,
    faces: list[str],
    most: dict[str, int],
    keep: list[str],
) -> tuple[Choice, ...]:
    face, rest = faces[0], faces[1:]
    found: list[Choice] = []
    for k in range(most[face] + 1):
        chosen = [*keep, *([face] * k)]
        label = msg("Keep {dice}", dice=face_label(face, k))
        if rest:
            below = _lazy_keep(state, p, builds, coins=coins, faces=rest, most=most, keep=chosen)
            found.append(Choice(f"keep-{face}-{k}", label, p, children=below))
            continue
        action = _resolve_action(p, builds, coins, chosen)
        if _ok(state, action):
            found.append(Choice(f"keep-{face}-{k}", label, p, action))
    return tuple(found)


def _lazy_keep(
    state: TSState,
    p: int,
    builds: list[Args],
    *,
    coins: int,
    faces: list[str],
    most: dict[str, int],
    keep: list[str],
) -> Callable[[], tuple[Choice, ...]]:
    return lambda: _keep_counts(state, p, builds, coins=coins, faces=faces, most=most, keep=keep)


# -- steps 4 and 5: deliver, end the turn -----------------------------------------------------
def _deliver_or_end(state: TSState, p: int, viewer: int | None) -> tuple[Choice, ...]:
    name = state.players[p].name
    found: list[Choice] = []
    if state.turn.phase == "deliver" and _could_fill_a_route(state, p):
        below = _lazy_count_cities(state, p)
        found.append(Choice("deliver", msg("{player}: deliver", player=name), p, children=below))
    if viewer is not None and state.turn.phase == "deliver":
        task = _task(state, viewer)
        if task is not None:
            found.append(task)
    ends = _end_turn(state, p)
    if ends:
        found.append(Choice("end", msg("{player}: end the turn", player=name), p, children=ends))
    return tuple(found)


MAX_CITIES = 5
"""The most cities one delivery offers (the board is not public; a longer one is rare)."""


def _placement(state: TSState, p: int) -> tuple[bool, bool]:
    """(own, bonus): whether a route can be filled by this player's own train die placed this
    turn, or by a bonus die placed this turn ("Krok 4: Doručení!": a delivery happens when the
    placement fills a route); both True when the snapshot does not say."""
    placed = state.turn.placed
    if placed is None:
        return True, True
    own_left, bonus_left = placed
    own = bool(own_left and state.players[p].dice_on_board)
    return own, bool(bonus_left and state.bonus_on_board)


def _could_fill_a_route(state: TSState, p: int) -> bool:
    """Whether a delivery can be offered at all (the step is opened lazily, so it must not be
    offered empty)."""
    if not any(q.dice_on_board for q in state.players) and not state.bonus_on_board:
        return False
    own, bonus = _placement(state, p)
    return own or bonus


def _lazy_count_cities(state: TSState, p: int) -> Callable[[], tuple[Choice, ...]]:
    return lambda: _count_cities(state, p)


def _count_cities(state: TSState, p: int) -> tuple[Choice, ...]:
    """ "Všechna města spojená společnou skupinou traťových polí se považují za součást stejného
    Doručení": how many cities the completed route joins, then which."""
    found: list[Choice] = []
    for n in range(2, MAX_CITIES + 1):
        label = plural("joins {n} city", "joins {n} cities", "n", n=n)
        found.append(Choice(f"cities-{n}", label, p, children=_lazy_cities(state, p, n, [])))
    return tuple(found)


def _lazy_cities(
    state: TSState, p: int, count: int, cities: list[Args]
) -> Callable[[], tuple[Choice, ...]]:
    return lambda: _cities(state, p, count, cities)


def _cities(state: TSState, p: int, count: int, cities: list[Args]) -> tuple[Choice, ...]:
    if len(cities) == count:
        return _dice_on_route(state, p, cities, [])
    found: list[Choice] = []
    names = [(s.name, msg("{station}", station=place_name(s.name))) for s in state.stations]
    for i in range(1, count + 1):
        new = f"City {i}"
        if state.station(new) is None:
            names.append((new, msg("A new city, {city}", city=place_name(new))))
    # a delivery's cities have no order: each next city comes after the last one in the list,
    # so every set of cities is offered once
    after = max((i for i, (name, _) in enumerate(names) for c in cities if c["name"] == name), default=-1)  # fmt: skip
    for index, (name, label) in enumerate(names):
        if index <= after or len(names) - index < count - len(cities):
            continue
        bonuses = tuple(
            Choice(
                f"b-{bonus}",
                msg("bonus {bonus}", bonus=BONUS_LABELS[bonus]),
                p,
                children=_lazy_cities(state, p, count, [*cities, {"name": name, "bonus": bonus}]),
            )
            for bonus in CITY_BONUSES
        )
        found.append(Choice(f"c{index}", label, p, children=bonuses))
    return tuple(found)


def _route_can_end(state: TSState, p: int, dice: list[int]) -> bool:
    """Whether some count for the players after ``dice`` and for the bonus dice makes a route
    the rules accept: dice on it, and this turn's placement among them."""
    i = len(dice)
    own, bonus = _placement(state, p)
    if state.turn.placed is not None:
        if p < i:
            own = own and dice[p] > 0
        return own or bonus
    return (
        bool(sum(dice))
        or state.bonus_on_board > 0
        or any(q.dice_on_board for q in state.players[i:])
    )


def _dice_on_route(
    state: TSState, p: int, cities: list[Args], dice: list[int]
) -> tuple[Choice, ...]:
    i = len(dice)
    if i == len(state.players):
        return _bonus_on_route(state, p, cities, dice)
    found: list[Choice] = []
    for d in range(state.players[i].dice_on_board + 1):
        if not _route_can_end(state, p, [*dice, d]):
            continue
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


def _bonus_on_route(
    state: TSState, p: int, cities: list[Args], dice: list[int]
) -> tuple[Choice, ...]:
    """The white bonus dice on the completed route (they count for nobody's majority)."""
    own, bonus_placed = _placement(state, p)
    found: list[Choice] = []
    for b in range(state.bonus_on_board + 1):
        if sum(dice) + b == 0:
            continue
        if state.turn.placed is not None and not ((own and dice[p]) or (bonus_placed and b)):
            continue
        label = plural("{n} bonus die on the route", "{n} bonus dice on the route", "n", n=b)
        below = _lazy_majority(state, p, {"cities": cities, "dice": dice, "bonus_dice": b})
        found.append(Choice(f"bonus-{b}", label, p, children=below))
    if len(found) == 1:
        return found[0].expand()
    return tuple(found)


def _lazy_majority(state: TSState, p: int, args: Args) -> Callable[[], tuple[Choice, ...]]:
    return lambda: _majority(state, p, args)


def _majority(state: TSState, p: int, args: Args) -> tuple[Choice, ...]:
    """ "Bonus za převahu": the active player breaks a tie, even one of their own."""
    dice: list[int] = args["dice"]
    most = max(dice)
    tied = [i for i, d in enumerate(dice) if d == most] if most else []
    if len(tied) <= 1:
        return _payout(state, p, args)
    found: list[Choice] = []
    for i in tied:
        label = msg("{player} wins the majority", player=state.players[i].name)
        below = _lazy_payout(state, p, {**args, "majority": i})
        found.append(Choice(f"majority-{i}", label, p, children=below))
    return tuple(c for c in found if c.expand())


def _lazy_payout(state: TSState, p: int, args: Args) -> Callable[[], tuple[Choice, ...]]:
    return lambda: _payout(state, p, args)


def _claimants(state: TSState, cities: list[Args]) -> list[int]:
    names = {c["name"] for c in cities}
    owners = {o for s in state.stations if s.name in names for o, _ in s.buildings}
    n = len(state.players)
    return [(state.turn.player + k) % n for k in range(n) if (state.turn.player + k) % n in owners]


def _payout(state: TSState, p: int, args: Args) -> tuple[Choice, ...]:
    """ "Vyzvednutí zboží": when a deck has fewer cards than claims, the active player decides
    the order of the payout: who is paid next, one player after another."""
    plain = Action("deliver", p, args)
    if _ok(state, plain):
        return (Choice("done", msg("Done"), p, plain),)
    return _order(state, p, args, _claimants(state, args["cities"]), [])


def _order(
    state: TSState, p: int, args: Args, left: list[int], order: list[int]
) -> tuple[Choice, ...]:
    if len(left) == 1:
        action = Action("deliver", p, {**args, "goods_order": [*order, *left]})
        return (Choice("done", msg("Done"), p, action),) if _ok(state, action) else ()
    found: list[Choice] = []
    for i in left:
        rest = [j for j in left if j != i]
        label = msg("Pay {player} next", player=state.players[i].name)
        below = _order(state, p, args, rest, [*order, i])
        if below:
            found.append(Choice(f"pay-{i}", label, p, children=below))
    return tuple(found)


# -- "Ukončení úkolů": a task card, in its owner's own view -----------------------------------
def _task(state: TSState, viewer: int) -> Choice | None:
    """ "Pokud některý hráč má speciální kartu úkolu, na které jsou uvedena dvě nově spojená
    města, může ji ukázat": any player, dice on the route or not; the card is one of their
    face-down special cards, so only their own view offers it."""
    t = state.turn
    me = state.players[viewer]
    if not t.deliveries or me.special_cards - len(me.special_goods) < 1:
        return None
    pairs = _task_pairs(state, viewer)
    if not pairs:
        return None
    # keys by place in the list of this turn's cities (a city's name is free text)
    cities = _turn_cities(state)
    firsts: list[Choice] = []
    for a in sorted({x for x, _ in pairs}):
        seconds = tuple(
            Choice(
                f"to-{cities.index(b)}",
                msg("and {city}", city=b),
                viewer,
                children=_lazy_points(state, viewer, a, b),
            )
            for x, b in pairs
            if x == a
        )
        key = f"from-{cities.index(a)}"
        firsts.append(Choice(key, msg("{city}", city=a), viewer, children=seconds))
    label = msg("{player}: complete a task card", player=me.name)
    return Choice("task", label, viewer, children=tuple(firsts))


def _turn_cities(state: TSState) -> list[str]:
    return sorted({c for d in state.turn.deliveries for c in d})


def _task_pairs(state: TSState, viewer: int) -> list[tuple[str, str]]:
    cities = _turn_cities(state)
    pairs = []
    for x in cities:
        for y in cities:
            task = Action("complete_task", viewer, {"cities": [x, y], "points": 1})
            if x < y and _ok(state, task):
                pairs.append((x, y))
    return pairs


def _lazy_points(state: TSState, viewer: int, a: str, b: str) -> Callable[[], tuple[Choice, ...]]:
    """The card's printed value (not in the rulebook: any value the engine takes, 1 to
    ``TASK_POINTS_MAX``), in two taps: its tens (1–9, 10–19, …), then the value."""

    def build() -> tuple[Choice, ...]:
        tens: list[Choice] = []
        for low in range(0, TASK_POINTS_MAX + 1, 10):
            values = tuple(
                Choice(
                    f"points-{v}",
                    plural("{n} point", "{n} points", "n", n=v),
                    viewer,
                    Action("complete_task", viewer, {"cities": [a, b], "points": v}),
                )
                for v in range(max(1, low), min(low + 9, TASK_POINTS_MAX) + 1)
            )
            first, last = values[0].key[len("points-") :], values[-1].key[len("points-") :]
            label = msg("{low}–{high} points", low=int(first), high=int(last))
            tens.append(Choice(f"points-{first}-{last}", label, viewer, children=values))
        return tuple(tens)

    return build


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
        items = _trade_items(state, viewer)
        if items and _can_trade(0, items):
            below = _lazy_trade(state, viewer, items, {}, [])
            leaves.append(Choice("trade", msg("Trade 2 for 1"), viewer, children=below))
        if leaves:
            label = msg("{player}: speculate (secret)", player=me.name)
            found.append(Choice("speculate", label, viewer, children=tuple(leaves)))
        report = _report(state, viewer)
        if report is not None:
            found.append(report)
    if all(o is not None for o in spec.offers):
        p = state.turn.player
        allocations = _allocations(state, p, [])
        if allocations:
            label = msg(
                "{player}: share out the short {goods} deck",
                player=state.players[p].name,
                goods=msg(spec.goods, context="goods"),
            )
            found.append(Choice("allocate", label, p, children=allocations))
    return tuple(found)


TradeItem = tuple[str | tuple[str, str], int]
"""A goods type, or a two-goods special card (its two goods), with how many the player holds."""


def _trade_items(state: TSState, viewer: int) -> list[TradeItem]:
    spec = state.speculation
    assert spec is not None
    me = state.players[viewer]
    items: list[TradeItem] = [(g, me.good(g)) for g in GOODS if g != spec.goods and me.good(g) > 0]
    pairs: dict[tuple[str, str], int] = {}
    for pair in me.special_goods:
        pairs[pair] = pairs.get(pair, 0) + 1
    items.extend(pairs.items())
    return items


def _can_trade(given: int, items: Sequence[TradeItem]) -> bool:
    """Whether the cards still to choose can make the trade an even number of cards, more than
    none ("v poměru 2:1"; a two-goods card counts as 2 — "Speciální karty")."""
    goods = sum(k for what, k in items if isinstance(what, str))
    cards = sum(k for what, k in items if not isinstance(what, str))
    if goods:
        return given % 2 == 1 or given > 0 or cards > 0 or goods >= 2
    return given % 2 == 0 and (given > 0 or cards > 0)


def _lazy_trade(
    state: TSState,
    viewer: int,
    items: list[TradeItem],
    goods: dict[str, int],
    pairs: list[list[str]],
) -> Callable[[], tuple[Choice, ...]]:
    return lambda: _trade(state, viewer, items, goods, pairs)


def _trade(
    state: TSState,
    viewer: int,
    items: list[TradeItem],
    goods: dict[str, int],
    pairs: list[list[str]],
) -> tuple[Choice, ...]:
    """How many of each goods, then of each two-goods card, one after another."""
    spec = state.speculation
    assert spec is not None
    (what, most), rest = items[0], items[1:]
    given = sum(goods.values()) + 2 * len(pairs)
    found: list[Choice] = []
    for k in range(most + 1):
        if isinstance(what, str):
            now_goods, now_pairs = {**goods, what: k} if k else goods, pairs
            label = msg("Give {n} {goods}", n=k, goods=msg(what, context="goods"))
            key = f"{what}-{k}"
            total = given + k
        else:
            now_goods, now_pairs = goods, [*pairs, *([list(what)] * k)]
            label = plural(
                "Give {n} special card showing {a} and {b}",
                "Give {n} special cards showing {a} and {b}",
                "n",
                n=k,
                a=msg(what[0], context="goods"),
                b=msg(what[1], context="goods"),
            )
            key = f"card-{what[0]}-{what[1]}-{k}"
            total = given + 2 * k
        if rest:
            if _can_trade(total, rest):
                below = _lazy_trade(state, viewer, rest, now_goods, now_pairs)
                found.append(Choice(key, label, viewer, children=below))
            continue
        if total == 0 or total % 2:
            continue
        args: Args = {"goods": now_goods}
        if now_pairs:
            args["special_goods"] = now_pairs
        action = Action("speculate", viewer, args)
        if _ok(state, action):
            found.append(Choice(key, msg("{what}: {n} {new}", what=label, n=total // 2, new=msg(spec.goods, context="goods")), viewer, action))  # fmt: skip
    return tuple(found)


# -- the owner's report of two-goods special cards ("Speciální karty") ------------------------
def _report(state: TSState, viewer: int) -> Choice | None:
    """Which of one's face-down special cards show two goods (a trade may give one as 2 goods;
    at the end it counts one of each for the monopolies): how many, then each card's goods."""
    me = state.players[viewer]
    if not me.special_cards:
        return None
    found = tuple(
        Choice(
            f"cards-{n}",
            plural("{n} card shows two goods", "{n} cards show two goods", "n", n=n),
            viewer,
            children=_lazy_report(state, viewer, n, []),
        )
        if n
        else Choice("cards-0", msg("None shows two goods"), viewer, _report_action(viewer, []))
        for n in range(me.special_cards + 1)
    )
    label = msg("{player}: special cards showing two goods", player=me.name)
    return Choice("special-goods", label, viewer, children=found)


def _report_action(viewer: int, cards: list[tuple[str, str]]) -> Action:
    return Action("report_special_goods", viewer, {"cards": [list(c) for c in cards]})


def _lazy_report(
    state: TSState, viewer: int, n: int, cards: list[tuple[str, str]]
) -> Callable[[], tuple[Choice, ...]]:
    return lambda: _report_cards(state, viewer, n, cards)


def _report_cards(
    state: TSState, viewer: int, n: int, cards: list[tuple[str, str]]
) -> tuple[Choice, ...]:
    """One card at a time, its first goods then its second; cards in GOODS order (the same
    two cards in another order are the same report)."""
    last = cards[-1] if cards else (GOODS[0], GOODS[0])
    found: list[Choice] = []
    for a in GOODS:
        seconds: list[Choice] = []
        for b in GOODS:
            pair = (a, b)
            if GOODS.index(b) <= GOODS.index(a) or _pair_rank(pair) < _pair_rank(last):
                continue
            now = [*cards, pair]
            label = msg("{goods} and {more}", goods=msg(a, context="goods"), more=msg(b, context="goods"))  # fmt: skip
            if len(now) < n:
                seconds.append(
                    Choice(f"{a}-{b}", label, viewer, children=_lazy_report(state, viewer, n, now))
                )
                continue
            action = _report_action(viewer, now)
            if _ok(state, action):
                seconds.append(Choice(f"{a}-{b}", label, viewer, action))
        if seconds:
            card = msg("Card {i}: {goods}", i=len(cards) + 1, goods=msg(a, context="goods"))
            found.append(Choice(a, card, viewer, children=tuple(seconds)))
    return tuple(found)


def _pair_rank(pair: tuple[str, str]) -> tuple[int, int]:
    return GOODS.index(pair[0]), GOODS.index(pair[1])


def _allocations(state: TSState, p: int, given: list[int]) -> tuple[Choice, ...]:
    """ "Hráč na tahu rozhodne o rozdělení karet": how many cards each player gets, one player
    after another (the last one takes what is left); everyone who gets fewer than traded for
    gets 1 VP per 2 cards traded instead."""
    spec = state.speculation
    assert spec is not None
    wanted = [o.cards // 2 if o is not None else 0 for o in spec.offers]
    left = state.left(spec.goods) - sum(given)
    i = len(given)
    if i == len(wanted) - 1:
        if not 0 <= left <= wanted[i]:
            return ()
        cards = [*given, left]
        action = Action("allocate_speculation", p, {"cards": cards})
        if not _ok(state, action):
            return ()
        parts = ", ".join(f"{q.name} {g}" for q, g in zip(state.players, cards, strict=True))
        return (Choice("done", msg("{shares}", shares=parts), p, action),)
    later = sum(wanted[i + 1 :])
    low, high = max(0, left - later), min(wanted[i], left)
    found: list[Choice] = []
    for k in range(low, high + 1):
        below = _lazy_allocations(state, p, [*given, k])
        label = msg("{player} gets {n}", player=state.players[i].name, n=k)
        found.append(Choice(f"p{i}-{k}", label, p, children=below))
    if len(found) == 1:
        return found[0].expand()  # nothing to choose for this player
    return tuple(found)


def _lazy_allocations(state: TSState, p: int, given: list[int]) -> Callable[[], tuple[Choice, ...]]:
    return lambda: _allocations(state, p, given)
