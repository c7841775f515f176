"""The Trains & Stations table state and its JSON snapshot (format 1, docs/formats/).

Immutable: frozen dataclasses with tuples. Hidden information ("Veřejná informace", seed
003_4080579fd62f6692.txt: VP cards lie face up; goods and special cards face down, their owner
need not tell their number or kind) is in the state, so the engine can check the rules, but
:func:`public_json` leaves it out until the game is over; :func:`private_json` adds back one
player's own hidden holdings for their PIN-protected view. :func:`full_json` (the game's
``to_json``) is for the event store and replay only, never for the scoreboard.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from companion.core.jsonvalue import JsonObject, JsonValue
from companion.core.records import evolve
from companion.core.snapshot import Field
from companion.games.trains_and_stations.data import (
    BONUS_DICE,
    BUILDINGS,
    BUILDINGS_PER_TYPE,
    DICE_PER_PLAYER,
    FACES,
    FORMAT,
    GOODS,
    GOODS_PER_TYPE,
    KEEPABLE_FACES,
    MAX_COINS,
    NAME,
    ROLL_LIMIT,
    SECOND_LEVEL_GOODS,
    SPECIAL_CARDS,
    STATION_CAPACITIES,
    VP_CARDS_TOTAL,
)
from companion.games.trains_and_stations.scoring import (
    check_goods_totals,
    check_names,
    check_players,
    parse_goods,
    parse_special_goods,
)

PHASES = ("gather", "rolled", "deliver", "end")
"""gather: step 1 (withdraw or roll); rolled: step 2 (rerolls) until the dice are resolved;
deliver: step 4 (deliveries, task cards) until the turn ends; end: after a withdrawal."""

STRIKE_VP_OPTIONS = ("supply", "box")

Counts = tuple[tuple[str, int], ...]
Pair = tuple[str, str]


def counts(keys: tuple[str, ...], values: Mapping[str, int]) -> Counts:
    return tuple((k, values.get(k, 0)) for k in keys)


def bump(items: Counts, key: str, delta: int) -> Counts:
    return tuple((k, v + delta if k == key else v) for k, v in items)


@dataclass(frozen=True, slots=True)
class Task:
    """A completed task card, face up: the two cities it names and its printed value."""

    cities: Pair
    points: int


@dataclass(frozen=True, slots=True)
class PlayerState:
    name: str
    vp: int
    coins: int
    goods: Counts
    """Goods cards by type (hidden)."""
    special_cards: int
    """Special cards in hand, not yet played (hidden)."""
    special_goods: tuple[Pair, ...]
    """Which of those show two goods, as the player reported them (hidden)."""
    tasks: tuple[Task, ...]
    buildings_left: Counts
    """Buildings of each type still in the player's supply."""
    dice_on_board: int
    dice_kept: tuple[str, ...]
    """Dice kept ("schované") from the last turn, with the faces they show."""
    bonus_dice: int
    """White bonus dice the player holds (not on the board)."""

    def good(self, good: str) -> int:
        return dict(self.goods)[good]

    def buildings(self, building: str) -> int:
        return dict(self.buildings_left)[building]

    @property
    def task_points(self) -> int:
        return sum(t.points for t in self.tasks)


@dataclass(frozen=True, slots=True)
class Station:
    name: str
    capacity: int
    buildings: tuple[tuple[int, str], ...]
    """(owner, building type) in the order they were built."""


@dataclass(frozen=True, slots=True)
class Turn:
    player: int
    phase: str = "gather"
    dice: tuple[str, ...] = ()
    """Faces of the player's own dice in play this turn (after the roll and rerolls)."""
    bonus: tuple[str, ...] = ()
    """Faces of the bonus dice rolled this turn."""
    struck: bool = False
    deliveries: tuple[tuple[str, ...], ...] = ()
    """Cities joined by each delivery this turn (task cards check these)."""
    tasks_done: tuple[tuple[int, Pair], ...] = ()
    placed: tuple[int, int] | None = None
    """(own, bonus) train dice the active player placed this turn and no delivery has used yet
    (Krok 4: a delivery happens when this turn's placement fills a route); None in a snapshot
    that does not say (an older one): deliveries are then not checked against it."""


@dataclass(frozen=True, slots=True)
class Offer:
    """One player's secret 2-for-1 speculation: the cards they give up."""

    goods: Counts
    special_goods: tuple[Pair, ...] = ()

    @property
    def cards(self) -> int:
        return sum(n for _, n in self.goods) + 2 * len(self.special_goods)


@dataclass(frozen=True, slots=True)
class Speculation:
    goods: str
    """The goods whose deck just came into play."""
    offers: tuple[Offer | None, ...]
    """One per player; None until that player has answered."""


@dataclass(frozen=True, slots=True)
class Options:
    station_count: int | None = None
    """Stations on the owner's board (not public); None: evenness is checked on the stations
    Trackside has seen only."""
    mine_next: str | None = None
    """The goods printed under the mine's space (not in the rulebook); None until reported."""
    strike_vp: str = "supply"
    """Where VP cards lost in a strike go; the rulebook does not say (see docs/formats)."""


@dataclass(frozen=True, slots=True)
class TSState:
    players: tuple[PlayerState, ...]
    conductor: int
    turn: Turn
    vp_supply: int
    """VP left on the board; 0 starts the last round."""
    vp_total: int
    """VP put on the board at setup (80/70/60 by player count)."""
    final_round: bool
    over: bool
    special_deck: int
    special_removed: int
    bonus_on_board: int
    stations: tuple[Station, ...]
    decks: tuple[tuple[str, str | None], ...]
    """building → the goods deck on its space (None: no goods any more)."""
    goods_left: Counts
    goods_in_play: tuple[str, ...]
    """Goods decks that have been placed on a building (in order)."""
    goods_removed: Counts
    """Goods traded away in speculation (out of the game)."""
    speculation: Speculation | None = None
    traded: Speculation | None = None
    """The last speculation once everyone answered: "Takto směněné zboží otočte lícem vzhůru tak,
    aby jej ostatní hráči viděli" (Spekulace při vylepšování) — the cards traded, face up."""
    options: Options = Options()

    @property
    def bonus_supply(self) -> int:
        return BONUS_DICE - self.bonus_on_board - sum(p.bonus_dice for p in self.players)

    def deck(self, building: str) -> str | None:
        return dict(self.decks)[building]

    def left(self, good: str) -> int:
        return dict(self.goods_left)[good]

    def station(self, name: str) -> Station | None:
        return next((s for s in self.stations if s.name == name), None)

    def with_player(self, index: int, player: PlayerState) -> TSState:
        players = list(self.players)
        players[index] = player
        return evolve(self, players=tuple(players))


# -- JSON --------------------------------------------------------------------------------------


def _player_public(p: PlayerState) -> JsonObject:
    return {
        "name": p.name,
        "vp": p.vp,
        "task_points": p.task_points,
        "tasks": [{"cities": list(t.cities), "points": t.points} for t in p.tasks],
        "coins": p.coins,
        "buildings_left": dict(p.buildings_left),
        "dice_on_board": p.dice_on_board,
        "dice_kept": list(p.dice_kept),
        "bonus_dice": p.bonus_dice,
    }


def _player_hidden(p: PlayerState) -> JsonObject:
    return {
        "goods": dict(p.goods),
        "special_goods": [list(pair) for pair in p.special_goods],
        "special_cards": p.special_cards,
    }


def _offer_json(offer: Offer | None) -> JsonValue:
    if offer is None:
        return None
    return {
        "goods": dict(offer.goods),
        "special_goods": [list(pair) for pair in offer.special_goods],
    }


def _traded_json(spec: Speculation | None) -> JsonValue:
    if spec is None:
        return None
    return {"goods": spec.goods, "offers": [_offer_json(o) for o in spec.offers]}


def _table_json(state: TSState) -> JsonObject:
    t = state.turn
    return {
        "traded": _traded_json(state.traded),
        "game": NAME,
        "format": FORMAT,
        "options": {
            "station_count": state.options.station_count,
            "mine_next": state.options.mine_next,
            "strike_vp": state.options.strike_vp,
        },
        "conductor": state.conductor,
        "vp_total": state.vp_total,
        "vp_supply": state.vp_supply,
        "final_round": state.final_round,
        "over": state.over,
        "special_deck": state.special_deck,
        "special_removed": state.special_removed,
        "bonus_dice_on_board": state.bonus_on_board,
        "decks": dict(state.decks),
        "goods_left": dict(state.goods_left),
        "goods_in_play": list(state.goods_in_play),
        "goods_removed": dict(state.goods_removed),
        "stations": [
            {
                "name": s.name,
                "capacity": s.capacity,
                "buildings": [{"player": o, "building": b} for o, b in s.buildings],
            }
            for s in state.stations
        ],
        "turn": {
            "player": t.player,
            "phase": t.phase,
            "dice": list(t.dice),
            "bonus": list(t.bonus),
            "struck": t.struck,
            "deliveries": [list(d) for d in t.deliveries],
            "tasks_done": [{"player": p, "cities": list(c)} for p, c in t.tasks_done],
            "placed": None if t.placed is None else {"own": t.placed[0], "bonus": t.placed[1]},
        },
    }


def full_json(state: TSState) -> JsonObject:
    """Everything, hidden holdings included: the event store, replay and tests only."""
    data = _table_json(state)
    data["speculation"] = (
        None
        if state.speculation is None
        else {
            "goods": state.speculation.goods,
            "offers": [_offer_json(o) for o in state.speculation.offers],
        }
    )
    data["players"] = [_player_public(p) | _player_hidden(p) for p in state.players]
    return data


def public_json(state: TSState) -> JsonObject:
    """What the scoreboard may show: before the end, no player's goods or special cards and
    no speculation offer (only who has answered); once the game is over, everything."""
    if state.over:
        return full_json(state)
    data = _table_json(state)
    spec = state.speculation
    shown: JsonObject | None = None
    if spec is not None:
        shown = {"goods": spec.goods, "answered": [o is not None for o in spec.offers]}
        if all(o is not None for o in spec.offers):
            # everyone has answered: the traded cards are turned face up (Spekulace při
            # vylepšování), while the active player shares out a short deck
            shown["offers"] = [_offer_json(o) for o in spec.offers]
    data["speculation"] = shown
    data["players"] = [_player_public(p) for p in state.players]
    data["hidden"] = ["players[].goods", "players[].special_goods", "players[].special_cards"]
    return data


def private_json(state: TSState, player: int) -> JsonObject:
    """The public view plus ``player``'s own hidden holdings and own speculation offer."""
    data = public_json(state)
    if state.over:
        return data
    players = data["players"]
    assert isinstance(players, list)
    mine = players[player]
    assert isinstance(mine, dict)
    mine.update(_player_hidden(state.players[player]))
    spec = data["speculation"]
    if state.speculation is not None and isinstance(spec, dict):
        spec["my_offer"] = _offer_json(state.speculation.offers[player])
    data["viewer"] = player
    return data


def _faces(field: Field, allowed: tuple[str, ...], max_len: int) -> tuple[str, ...]:
    return tuple(f.str(frozenset(allowed)) for f in field.list(max_len=max_len))


def _pair(field: Field) -> Pair:
    items = field.list()
    if len(items) != 2:
        field.fail(f"expected two cities, got {len(items)}")
    a, b = (i.str() for i in items)
    if not a.strip() or not b.strip() or a == b:
        field.fail("expected two different city names")
    return (a, b)


def _player(field: Field) -> PlayerState:
    field.only(
        "name",
        "vp",
        "task_points",
        "goods",
        "special_goods",
        "special_cards",
        "tasks",
        "coins",
        "buildings_left",
        "dice_on_board",
        "dice_kept",
        "bonus_dice",
    )
    tasks = []
    for t in field.get("tasks").list(max_len=SPECIAL_CARDS):
        t.only("cities", "points")
        tasks.append(Task(_pair(t.get("cities")), t.get("points").int(lo=1)))
    held = field.get("buildings_left")
    held.only(*BUILDINGS)
    player = PlayerState(
        name=field.get("name").str(),
        vp=field.get("vp").int(lo=0, hi=VP_CARDS_TOTAL),
        coins=field.get("coins").int(lo=0, hi=MAX_COINS),
        goods=counts(GOODS, parse_goods(field.get("goods"))),
        special_cards=field.get("special_cards").int(lo=0, hi=SPECIAL_CARDS),
        special_goods=parse_special_goods(field.get("special_goods")),
        tasks=tuple(tasks),
        buildings_left=tuple((b, held.get(b).int(lo=0, hi=BUILDINGS_PER_TYPE)) for b in BUILDINGS),
        dice_on_board=field.get("dice_on_board").int(lo=0, hi=DICE_PER_PLAYER),
        dice_kept=_faces(field.get("dice_kept"), KEEPABLE_FACES, ROLL_LIMIT),
        bonus_dice=field.get("bonus_dice").int(lo=0, hi=BONUS_DICE),
    )
    if player.task_points != field.get("task_points").int(lo=0):
        field.get("task_points").fail(
            f"the completed task cards are worth {player.task_points}, not "
            f"{field.get('task_points').value!r}"
        )
    if len(player.special_goods) > player.special_cards:
        field.get("special_goods").fail(
            f"{len(player.special_goods)} two-goods cards but only "
            f"{player.special_cards} special cards in hand"
        )
    return player


def _offer(field: Field) -> Offer | None:
    if field.value is None:
        return None
    field.only("goods", "special_goods")
    return Offer(
        counts(GOODS, parse_goods(field.get("goods"))),
        parse_special_goods(field.get("special_goods", [])),
    )


def from_json(data: Any) -> TSState:
    """Parse a full table snapshot; ``SnapshotError`` with the field path when malformed."""
    doc = Field(data)
    doc.only(
        "game",
        "format",
        "options",
        "conductor",
        "vp_total",
        "vp_supply",
        "final_round",
        "over",
        "special_deck",
        "special_removed",
        "bonus_dice_on_board",
        "decks",
        "goods_left",
        "goods_in_play",
        "goods_removed",
        "stations",
        "turn",
        "speculation",
        "players",
        "traded",
    )
    if doc.get("game").str() != NAME:
        doc.get("game").fail(f"expected {NAME!r}")
    doc.get("format").int(lo=FORMAT, hi=FORMAT)
    player_fields = check_players(doc.get("players"))
    players = tuple(_player(p) for p in player_fields)
    check_names([p.name for p in players], player_fields)
    check_goods_totals([dict(p.goods) for p in players], player_fields)
    n = len(players)

    opts = doc.get("options")
    opts.only("station_count", "mine_next", "strike_vp")
    sc = opts.get("station_count", None)
    mn = opts.get("mine_next", None)
    options = Options(
        station_count=None if sc.value is None else sc.int(lo=1),
        mine_next=None if mn.value is None else mn.str(frozenset(SECOND_LEVEL_GOODS)),
        strike_vp=opts.get("strike_vp", "supply").str(frozenset(STRIKE_VP_OPTIONS)),
    )

    decks_f = doc.get("decks")
    decks_f.only(*BUILDINGS)
    decks: list[tuple[str, str | None]] = []
    for b in BUILDINGS:
        d = decks_f.get(b)
        decks.append((b, None if d.value is None else d.str(frozenset(GOODS))))
    goods_left = counts(GOODS, parse_goods(doc.get("goods_left")))
    goods_removed = counts(GOODS, parse_goods(doc.get("goods_removed")))
    in_play = _faces(doc.get("goods_in_play"), GOODS, len(GOODS))
    if len(set(in_play)) != len(in_play):
        doc.get("goods_in_play").fail("a goods deck comes into play once")

    stations: list[Station] = []
    for s in doc.get("stations").list():
        s.only("name", "capacity", "buildings")
        cap = s.get("capacity").int()
        if cap not in STATION_CAPACITIES:
            s.get("capacity").fail(f"a station has 2 or 3 building spaces, got {cap}")
        built = []
        for bf in s.get("buildings").list(max_len=cap):
            bf.only("player", "building")
            built.append((bf.get("player").int(lo=0, hi=n - 1), bf.get("building").str(BUILDINGS)))
        name = s.get("name").str()
        if not name.strip() or any(st.name == name for st in stations):
            s.get("name").fail(f"station {name!r} is empty or listed twice")
        stations.append(Station(name, cap, tuple(built)))

    t = doc.get("turn")
    t.only("player", "phase", "dice", "bonus", "struck", "deliveries", "tasks_done", "placed")
    placed_f = t.get("placed", None)
    placed = None
    if placed_f.value is not None:
        placed_f.only("own", "bonus")
        placed = (
            placed_f.get("own").int(lo=0, hi=ROLL_LIMIT),
            placed_f.get("bonus").int(lo=0, hi=BONUS_DICE),
        )
    deliveries = tuple(tuple(c.str() for c in d.list()) for d in t.get("deliveries").list())
    tasks_done = []
    for td in t.get("tasks_done").list():
        td.only("player", "cities")
        tasks_done.append((td.get("player").int(lo=0, hi=n - 1), _pair(td.get("cities"))))
    turn = Turn(
        player=t.get("player").int(lo=0, hi=n - 1),
        phase=t.get("phase").str(PHASES),
        dice=_faces(t.get("dice"), FACES, ROLL_LIMIT),
        bonus=_faces(t.get("bonus"), FACES, BONUS_DICE),
        struck=t.get("struck").bool(),
        deliveries=deliveries,
        tasks_done=tuple(tasks_done),
        placed=placed,
    )

    spec_f = doc.get("speculation")
    speculation = None
    if spec_f.value is not None:
        spec_f.only("goods", "offers")
        offers = spec_f.get("offers").list()
        if len(offers) != n:
            spec_f.get("offers").fail(f"expected one entry per player ({n}), got {len(offers)}")
        speculation = Speculation(
            spec_f.get("goods").str(frozenset(GOODS)), tuple(_offer(o) for o in offers)
        )

    traded_f = doc.get("traded", None)
    traded = None
    if traded_f.value is not None:
        traded_f.only("goods", "offers")
        offers_t = traded_f.get("offers").list()
        if len(offers_t) != n:
            traded_f.get("offers").fail(f"expected one entry per player ({n}), got {len(offers_t)}")
        traded = Speculation(
            traded_f.get("goods").str(frozenset(GOODS)), tuple(_offer(o) for o in offers_t)
        )

    return TSState(
        players=players,
        conductor=doc.get("conductor").int(lo=0, hi=n - 1),
        turn=turn,
        vp_total=doc.get("vp_total").int(lo=0, hi=VP_CARDS_TOTAL),
        vp_supply=doc.get("vp_supply").int(lo=0, hi=VP_CARDS_TOTAL),
        final_round=doc.get("final_round").bool(),
        over=doc.get("over").bool(),
        special_deck=doc.get("special_deck").int(lo=0, hi=SPECIAL_CARDS),
        special_removed=doc.get("special_removed").int(lo=0, hi=SPECIAL_CARDS),
        bonus_on_board=doc.get("bonus_dice_on_board").int(lo=0, hi=BONUS_DICE),
        stations=tuple(stations),
        decks=tuple(decks),
        goods_left=goods_left,
        goods_in_play=in_play,
        goods_removed=goods_removed,
        speculation=speculation,
        traded=traded,
        options=options,
    )


__all__ = [
    "GOODS_PER_TYPE",
    "PHASES",
    "Offer",
    "Options",
    "PlayerState",
    "Speculation",
    "Station",
    "TSState",
    "Task",
    "Turn",
    "bump",
    "counts",
    "from_json",
    "full_json",
    "private_json",
    "public_json",
]
