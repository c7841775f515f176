"""Trains & Stations rules: one turn as the table reports it, checked as far as the rulebook
and the reported board allow.

Rulebook: seed 003_4080579fd62f6692.txt (Czech, from "Eric M. Lang Pravidla hry Vlaky a
stanice"); every rule below names its section heading. The board is not public: stations,
capacities and city bonuses come from the table's reports, never from this module.

A turn: ``roll`` (or ``withdraw``) → ``reroll``* → ``resolve`` (trains placed, buildings, coins,
dice kept) → ``deliver``* / ``complete_task``* → ``end_turn`` (exhaustion and upgrade) →
``speculate`` by every player when a new goods deck came into play (→ ``allocate_speculation``
when the deck is short) → the next player's turn.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from companion.core.actions import Action, Prompt
from companion.core.choices import Choice
from companion.core.errors import IllegalActionError, SnapshotError, UnknownComponentError
from companion.core.game import Component, PlayerSpec, TurnStatus
from companion.core.jsonvalue import JsonObject, thaw
from companion.core.messages import Message, Text, join_texts, msg, plural
from companion.core.privacy import PrivateRefusalError
from companion.core.problems import Problem
from companion.core.public import PublicView
from companion.core.records import evolve
from companion.core.scoring import PlayerScore, ScoreLine, ScoreSheet
from companion.core.snapshot import Field
from companion.games.trains_and_stations.data import (
    BONUS_DICE,
    BUILDINGS,
    BUILDINGS_PER_TYPE,
    CITY_BONUSES,
    COINS_PER_DIE,
    DICE_PER_PLAYER,
    FACES,
    GOODS,
    GOODS_PER_TYPE,
    KEEPABLE_FACES,
    MAX_COINS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NAME,
    REROLL_COST,
    ROLL_LIMIT,
    SECOND_LEVEL,
    SECOND_LEVEL_GOODS,
    SET_SIZE,
    SPECIAL_CARDS,
    SPECIAL_KEPT_AT_START,
    START_COINS,
    START_DECKS,
    START_VP,
    STATION_CAPACITIES,
    STRIKE_LOCKED,
    STRIKE_LOSS,
    TASK_POINTS_MAX,
    TITLE,
    TOP_GOODS,
    TRAIN_FACES,
    VP_BY_PLAYERS,
    WITHDRAW_MIN,
    goods_name,
)
from companion.games.trains_and_stations.names import (
    S_BUILD,
    S_BUILD_LEVEL,
    S_BUILD_SPACE,
    S_COLLECT,
    S_DELIVERY,
    S_END,
    S_HOW,
    S_INTRO,
    S_KEEP,
    S_MAJORITY,
    S_PICKUP,
    S_REROLL,
    S_RESOLVE,
    S_ROUND,
    S_SPECULATION,
    S_STEP5_SPECULATION,
    S_STRIKE,
    S_TASKS,
    S_UPGRADE,
    S_WITHDRAW,
    building_name,
    face_name,
)
from companion.games.trains_and_stations.scoring import (
    FinalHolding,
    final_sheet,
    is_contract_snapshot,
    score_contract,
)
from companion.games.trains_and_stations.state import (
    STRIKE_VP_OPTIONS,
    Offer,
    Options,
    Pair,
    PlayerState,
    Speculation,
    Station,
    Task,
    TSState,
    Turn,
    bump,
    counts,
    from_json,
    full_json,
    private_json,
    public_json,
)

HIDDEN_NOTE = msg("goods and special cards are hidden until the end: monopolies are scored then")
# "Stávka!": the rulebook does not say where the lost VP cards go (the table's option says)
STRIKE_NOTE_SUPPLY = msg(
    "the rulebook does not say where VP cards lost in a strike go; this table returns them to "
    "the VP supply"
)
STRIKE_NOTE_BOX = msg(
    "the rulebook does not say where VP cards lost in a strike go; this table puts them back "
    "in the box"
)
VP_LABEL = msg("VP", context="score category")  # VB (vítězné body)
TASKS_LABEL = msg("Tasks", context="score category")  # Ukončení úkolů


KIND_WORDS: dict[str, Message] = {
    "roll": msg("rolling the dice"),
    "reroll": msg("rerolling"),
    "withdraw": msg("taking all dice back"),
    "resolve": msg("using the dice"),
    "deliver": msg("delivering"),
    "complete_task": msg("completing a task"),
    "end the turn": msg("ending the turn"),
    "end_turn": msg("ending the turn"),
    "speculate": msg("speculating"),
    "allocate_speculation": msg("sharing out the speculation's cards"),
    "report_special_goods": msg("reporting special cards"),
}
"""A move's kind in words, for refusals."""

PHASE_WORDS: dict[str, Message] = {
    "gather": msg("collecting and rolling dice", context="turn step"),
    "rolled": msg("using the rolled dice", context="turn step"),
    "deliver": msg("delivery", context="turn step"),
    "end": msg("end of the turn", context="turn step"),
}
"""The steps of a turn (state.PHASES) in words."""


def kind_words(kind: str) -> Text:
    return KIND_WORDS.get(kind, msg("this move"))


def refuse(message: Text, rule: Text, section: Text) -> IllegalActionError:
    # the section as the rulebook titles it (Czech: the only rulebook of this game), no file name
    return IllegalActionError(message, rule=rule, section=section)


def _pair_key(pair: Pair) -> tuple[str, str]:
    a, b = pair
    return (a, b) if a <= b else (b, a)


class TrainsAndStations:
    name = NAME
    title = TITLE
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    hidden = False
    own_view_choices = frozenset({"task", "speculate", "special-goods"})
    """The top-level nodes a player's own view adds (their task cards, their secret speculation
    and special cards); every other node is the same in every view (the table's corrections
    trust a move's place in another player's view: ``companion.service.table_choices``)."""
    private_actions = frozenset({"speculate", "report_special_goods"})
    """Actions whose arguments are the player's secret: the speculation is made "tajně"
    (secretly) and the goods and special cards are face down ("Veřejná informace"; "Spekulace
    při vylepšování"). Public surfaces show them without their arguments until the end."""
    components = (
        Component("end-turn", "End of turn (printed code)", "command"),
        Component("withdraw", "Take all my dice back from the board (printed code)", "command"),
    )

    # -- setup ------------------------------------------------------------------------------
    def setup(self, players: Sequence[PlayerSpec], options: Mapping[str, Any]) -> TSState:
        """Rulebook, Příprava and "Příprava hry": VP by player count, 3 coins, three 1-VP cards, two
        special cards kept of three, goods decks on the ranch, mine and hotel, the conductor
        plays first."""
        n = len(players)
        if not MIN_PLAYERS <= n <= MAX_PLAYERS:
            raise refuse(
                plural("{n} player", "{n} players", "n", n=n),
                msg(
                    "Trains & Stations is played by {lo} to {hi} players",
                    lo=MIN_PLAYERS,
                    hi=MAX_PLAYERS,
                ),
                S_INTRO,
            )
        names = [p.name for p in players]
        if len(set(names)) != n or any(not name.strip() for name in names):
            raise SnapshotError("players", f"player names must be distinct and set: {names!r}")
        opts = Field(dict(options), "options")
        opts.only("conductor", "station_count", "mine_next", "strike_vp")
        sc = opts.get("station_count", None)
        mn = opts.get("mine_next", None)
        conductor = opts.get("conductor", 0).int(lo=0, hi=n - 1)
        vp_total = VP_BY_PLAYERS[n]
        return TSState(
            players=tuple(
                PlayerState(
                    name=name,
                    vp=START_VP,
                    coins=START_COINS,
                    goods=counts(GOODS, {}),
                    special_cards=SPECIAL_KEPT_AT_START,
                    special_goods=(),
                    tasks=(),
                    buildings_left=counts(BUILDINGS, dict.fromkeys(BUILDINGS, BUILDINGS_PER_TYPE)),
                    dice_on_board=0,
                    dice_kept=(),
                    bonus_dice=0,
                )
                for name in names
            ),
            conductor=conductor,
            turn=Turn(player=conductor),
            vp_total=vp_total,
            vp_supply=vp_total - START_VP * n,
            final_round=False,
            over=False,
            special_deck=SPECIAL_CARDS - SPECIAL_KEPT_AT_START * n,
            special_removed=0,
            bonus_on_board=0,
            stations=(),
            decks=tuple((b, START_DECKS[b]) for b in BUILDINGS),
            goods_left=counts(GOODS, dict.fromkeys(GOODS, GOODS_PER_TYPE)),
            goods_in_play=tuple(START_DECKS[b] for b in BUILDINGS),
            goods_removed=counts(GOODS, {}),
            options=Options(
                station_count=None if sc.value is None else sc.int(lo=1),
                mine_next=None if mn.value is None else mn.str(frozenset(SECOND_LEVEL_GOODS)),
                strike_vp=opts.get("strike_vp", "supply").str(frozenset(STRIKE_VP_OPTIONS)),
            ),
        )

    # -- actions ----------------------------------------------------------------------------
    def describe(self, action: Action, names: Sequence[str]) -> Message:
        """The move in words for the log and the TV (``describe.py``)."""
        from companion.games.trains_and_stations.describe import describe

        return describe(action, names)

    def describe_private(self, action: Action, names: Sequence[str]) -> Message:
        """A private move in full, for its own player only (``describe.py``)."""
        from companion.games.trains_and_stations.describe import describe_private

        return describe_private(action, names)

    def _handlers(self) -> dict[str, Callable[[TSState, int, Field], TSState]]:
        """``apply``'s handler for each kind of move: the one list of what the engine takes."""
        return {
            "roll": self._roll,
            "reroll": self._reroll,
            "withdraw": self._withdraw,
            "resolve": self._resolve,
            "deliver": self._deliver,
            "complete_task": self._complete_task,
            "end_turn": self._end_turn,
            "speculate": self._speculate,
            "allocate_speculation": self._allocate,
            "report_special_goods": self._report_special_goods,
        }

    @property
    def action_kinds(self) -> tuple[str, ...]:
        """Every kind of move the engine takes, read from ``apply``'s own handlers."""
        return tuple(self._handlers())

    def apply(self, state: TSState, action: Action) -> TSState:
        if state.over and action.kind != "report_special_goods":
            raise refuse(
                msg("the game is over"), msg("the game ends before the conductor's turn"), S_END
            )
        handlers = self._handlers()
        handler = handlers.get(action.kind)
        if handler is None:
            raise refuse(
                msg("Trains & Stations has no such move"),
                msg("the moves are collecting, rolling and using dice, delivering and speculating"),
                S_ROUND,
            )
        if action.player is None or not 0 <= action.player < len(state.players):
            raise refuse(
                msg("the move names no player at the table"),
                msg("every move belongs to a player at the table"),
                S_HOW,
            )
        if state.speculation is not None and action.kind not in (
            "speculate",
            "allocate_speculation",
            "report_special_goods",
        ):
            raise refuse(
                msg(
                    "{what} while the speculation for {goods} is open",
                    what=kind_words(action.kind),
                    goods=goods_name(state.speculation.goods),
                ),
                msg("every player answers the speculation before play goes on"),
                S_SPECULATION,
            )
        args = Field(thaw(action.args), "args")
        return handler(state, action.player, args)

    def _active(self, state: TSState, player: int, kind: str, phases: tuple[str, ...]) -> None:
        if player != state.turn.player:
            raise refuse(
                msg(
                    "{player}: {what} — it is {active}'s turn",
                    player=state.players[player].name,
                    what=kind_words(kind),
                    active=state.players[state.turn.player].name,
                ),
                msg("players take turns in order"),
                S_HOW,
            )
        if state.turn.phase not in phases:
            raise refuse(
                msg(
                    "{what} is not possible now ({step})",
                    what=kind_words(kind),
                    step=PHASE_WORDS[state.turn.phase],
                ),
                msg(
                    "{what} comes at this step of the turn: {steps}",
                    what=kind_words(kind),
                    steps=join_texts([PHASE_WORDS[ph] for ph in phases], ", "),
                ),
                S_ROUND,
            )

    # step 1 ---------------------------------------------------------------------------------
    def _withdraw(self, state: TSState, player: int, args: Field) -> TSState:
        """Rulebook, Stažení kostek: with 5 or more dice on the board, take them all back and skip the
        rest of the turn (bonus dice on the board belong to nobody)."""
        self._active(state, player, "withdraw", ("gather",))
        args.only()
        p = state.players[player]
        if p.dice_on_board < WITHDRAW_MIN:
            raise refuse(
                plural(
                    "{player} has {n} die on the board",
                    "{player} has {n} dice on the board",
                    "n",
                    player=p.name,
                    n=p.dice_on_board,
                ),
                msg(
                    "taking all dice back needs {n} or more of your dice on the board",
                    n=WITHDRAW_MIN,
                ),
                S_WITHDRAW,
            )
        state = state.with_player(player, evolve(p, dice_on_board=0))
        return evolve(state, turn=evolve(state.turn, phase="end"))

    # step 2 ---------------------------------------------------------------------------------
    def _roll(self, state: TSState, player: int, args: Field) -> TSState:
        """Rulebook, Krok 1: Sběr kostek and "Krok 2: Hod kostkami": the faces of the dice in play."""
        self._active(state, player, "roll", ("gather",))
        args.only("dice", "bonus")
        dice = tuple(f.str(FACES) for f in args.get("dice").list())
        bonus = tuple(f.str(FACES) for f in args.get("bonus", []).list())
        p = state.players[player]
        section = S_COLLECT
        expected = min(ROLL_LIMIT, DICE_PER_PLAYER - p.dice_on_board)
        if len(dice) != expected:
            raise refuse(
                msg(
                    "{player} rolled {rolled} own dice; with {board} on the board that is "
                    "{expected}",
                    player=p.name,
                    rolled=len(dice),
                    board=p.dice_on_board,
                    expected=expected,
                ),
                msg("take up to 5 of your dice not on the board (kept dice count first)"),
                section,
            )
        if len(bonus) > p.bonus_dice:
            raise refuse(
                msg(
                    "{rolled} bonus dice rolled, {player} holds {held}",
                    rolled=len(bonus),
                    player=p.name,
                    held=p.bonus_dice,
                ),
                msg("you roll only bonus dice you have won"),
                section,
            )
        needed = min(ROLL_LIMIT, expected + p.bonus_dice)
        if expected < ROLL_LIMIT and len(dice) + len(bonus) < needed:
            raise refuse(
                msg("{own} own + {bonus} bonus dice", own=len(dice), bonus=len(bonus)),
                msg("with fewer than 5 own dice, take bonus dice to play at least 5"),
                section,
            )
        if state.bonus_supply == 0 and len(bonus) != p.bonus_dice:
            raise refuse(
                msg("{rolled} of {held} bonus dice rolled", rolled=len(bonus), held=p.bonus_dice),
                msg("when the common bonus dice supply is empty, roll all your bonus dice"),
                section,
            )
        state = state.with_player(player, evolve(p, dice_kept=()))
        state = evolve(state, turn=evolve(state.turn, phase="rolled", dice=dice, bonus=bonus))
        return self._strike_check(state, player)

    def _reroll(self, state: TSState, player: int, args: Field) -> TSState:
        """Rulebook, Přehazování: pay 1 coin, reroll any dice except locked trains; not after a
        strike."""
        self._active(state, player, "reroll", ("rolled",))
        args.only("dice", "bonus")
        section = S_REROLL
        p = state.players[player]
        t = state.turn
        if t.struck:
            raise refuse(msg("no reroll after a strike"), msg("a strike ends rerolling"), S_STRIKE)
        if p.coins < REROLL_COST:
            raise refuse(
                msg("{player} has no coin", player=p.name), msg("a reroll costs 1 coin"), section
            )
        dice = tuple(f.str(FACES) for f in args.get("dice").list())
        bonus = tuple(f.str(FACES) for f in args.get("bonus", list(t.bonus)).list())
        if len(dice) != len(t.dice) or len(bonus) != len(t.bonus):
            raise refuse(
                msg(
                    "{after} dice after the reroll, {before} before",
                    after=f"{len(dice)}+{len(bonus)}",
                    before=f"{len(t.dice)}+{len(t.bonus)}",
                ),
                msg("a reroll changes faces, not the number of dice"),
                section,
            )
        for before, after in ((t.dice, dice), (t.bonus, bonus)):
            if after.count("locked") < before.count("locked"):
                raise refuse(
                    msg(
                        "locked trains went from {before} to {after}",
                        before=before.count("locked"),
                        after=after.count("locked"),
                    ),
                    msg("locked trains cannot be rerolled"),
                    section,
                )
        state = state.with_player(player, evolve(p, coins=p.coins - REROLL_COST))
        state = evolve(state, turn=evolve(t, dice=dice, bonus=bonus))
        return self._strike_check(state, player)

    def _strike_check(self, state: TSState, player: int) -> TSState:
        """Rulebook, Stávka!: 3 or more locked trains: lose 3 VP (all if fewer), no more rerolls."""
        t = state.turn
        if t.struck or (t.dice + t.bonus).count("locked") < STRIKE_LOCKED:
            return state
        p = state.players[player]
        loss = min(STRIKE_LOSS, p.vp)
        state = state.with_player(player, evolve(p, vp=p.vp - loss))
        supply = state.vp_supply + (loss if state.options.strike_vp == "supply" else 0)
        return evolve(state, vp_supply=supply, turn=evolve(t, struck=True))

    # step 3 ---------------------------------------------------------------------------------
    def _resolve(self, state: TSState, player: int, args: Field) -> TSState:
        """Rulebook, Krok 3: Vyhodnocení kostek: every train and locked train is placed (mandatory),
        sets of 3 build, coin dice pay 2 coins each (max 5), building and coin dice may be
        kept; rolled bonus dice go back to the supply."""
        self._active(state, player, "resolve", ("rolled",))
        args.only("build", "coins", "keep")
        section = S_RESOLVE
        t = state.turn
        p = state.players[player]
        own = Counter(t.dice)
        bonus = Counter(t.bonus)
        keep = tuple(f.str(KEEPABLE_FACES) for f in args.get("keep", []).list())
        kept = Counter(keep)
        cashed = args.get("coins", 0).int(lo=0)
        builds = args.get("build", []).list()
        wanted = Counter(b.obj().get("building") for b in builds)
        for face in KEEPABLE_FACES:
            if kept[face] > own[face]:
                raise refuse(
                    msg(
                        "keeping {n} dice showing “{face}”, {own} of your own show it",
                        n=kept[face],
                        face=face_name(face),
                        own=own[face],
                    ),
                    msg("only your own building or coin dice can be kept, never bonus dice"),
                    S_KEEP,
                )
            used = kept[face] + (cashed if face == "coin" else SET_SIZE * wanted[face])
            if used > own[face] + bonus[face]:
                raise refuse(
                    msg(
                        "{used} dice showing “{face}” used, {rolled} rolled",
                        used=used,
                        face=face_name(face),
                        rolled=own[face] + bonus[face],
                    ),
                    msg("each die is used once: a set of 3 builds, a coin die pays 2 coins"),
                    section,
                )
        # Trains (mandatory): every own and bonus train / locked train goes on the board.
        own_trains = sum(own[f] for f in TRAIN_FACES)
        bonus_trains = sum(bonus[f] for f in TRAIN_FACES)
        p = evolve(
            p,
            dice_on_board=p.dice_on_board + own_trains,
            dice_kept=keep,
            coins=min(MAX_COINS, p.coins + COINS_PER_DIE * cashed),
            bonus_dice=p.bonus_dice - len(t.bonus),
        )
        state = state.with_player(player, p)
        state = evolve(state, bonus_on_board=state.bonus_on_board + bonus_trains)
        for b in builds:
            state = self._build(state, player, b)
        # what this turn placed: only it can fill a route now (Krok 4: Doručení!)
        return evolve(
            state,
            turn=evolve(
                state.turn,
                phase="deliver",
                dice=(),
                bonus=(),
                placed=(own_trains, bonus_trains),
            ),
        )

    def _build(self, state: TSState, player: int, field: Field) -> TSState:
        """Rulebook, Stavba budov: Místo (2 or 3 spaces per station) and Úroveň (no second building
        anywhere until every station has one; no third until every station has two)."""
        field.only("building", "station", "capacity")
        section = S_BUILD
        building = field.get("building").str(BUILDINGS)
        name = field.get("station").str()
        if not name.strip():
            field.get("station").fail("name the station")
        p = state.players[player]
        if p.buildings(building) < 1:
            raise refuse(
                msg(
                    "{player} has no {building} left",
                    player=p.name,
                    building=building_name(building),
                ),
                msg("with no matching building in your supply you get nothing"),
                section,
            )
        station = state.station(name)
        cap_field = field.get("capacity", None)
        capacity = None if cap_field.value is None else cap_field.int()
        if capacity is not None and capacity not in STATION_CAPACITIES:
            cap_field.fail(f"a station has 2 or 3 building spaces, got {capacity}")
        if station is None:
            if capacity is None:
                cap_field.fail(f"first building at {name}: report its building spaces (2 or 3)")
            count = state.options.station_count
            if count is not None and len(state.stations) >= count:
                raise refuse(
                    msg(
                        "“{station}” would be station {n}", station=name, n=len(state.stations) + 1
                    ),
                    msg("the board has {count} stations", count=count),
                    section,
                )
            station = Station(name, capacity, ())
        elif capacity is not None and capacity != station.capacity:
            cap_field.fail(f"{name} has {station.capacity} building spaces, not {capacity}")
        level = len(station.buildings)
        if level >= station.capacity:
            raise refuse(
                msg("{station} is full ({n} buildings)", station=name, n=station.capacity),
                msg("a station holds no more buildings than its spaces"),
                S_BUILD_SPACE,
            )
        if level > 0:
            behind = [s.name for s in state.stations if len(s.buildings) < level]
            if behind:
                raise refuse(
                    msg(
                        "building number {number} at {station} while these stations have fewer "
                        "than {level}: {behind}",
                        number=level + 1,
                        station=name,
                        level=level,
                        behind=", ".join(behind),
                    ),
                    msg(
                        "build evenly: no station gets another building until every station has "
                        "as many"
                    ),
                    S_BUILD_LEVEL,
                )
            count = state.options.station_count
            if count is not None and len(state.stations) < count:
                raise refuse(
                    msg(
                        "building number {number} at {station}: only {built} of {count} stations "
                        "have a building",
                        number=level + 1,
                        station=name,
                        built=len(state.stations),
                        count=count,
                    ),
                    msg("build evenly: every station needs a building before any gets a second"),
                    S_BUILD_LEVEL,
                )
        built = evolve(station, buildings=(*station.buildings, (player, building)))
        stations = tuple(built if s.name == name else s for s in state.stations)
        if state.station(name) is None:
            stations = (*stations, built)
        p = evolve(p, buildings_left=bump(p.buildings_left, building, -1))
        return evolve(state.with_player(player, p), stations=stations)

    # step 4 ---------------------------------------------------------------------------------
    def _gain_vp(self, state: TSState, player: int, vp: int) -> TSState:
        """VP come from the board's supply; when it runs out the last round starts, and VP
        are still paid from the cards not used at setup ("Konec hry")."""
        if vp <= 0:
            return state
        p = state.players[player]
        state = state.with_player(player, evolve(p, vp=p.vp + vp))
        supply = max(0, state.vp_supply - vp)
        return evolve(state, vp_supply=supply, final_round=state.final_round or supply == 0)

    def _deliver(self, state: TSState, player: int, args: Field) -> TSState:
        """Rulebook, Krok 4: Doručení! as the table reports it: the cities joined with their printed
        bonuses, each player's dice on the completed route, the bonus dice on it."""
        self._active(state, player, "deliver", ("deliver",))
        args.only("cities", "dice", "bonus_dice", "majority", "goods_order")
        section = S_DELIVERY
        n = len(state.players)
        cities: list[tuple[str, str]] = []
        for c in args.get("cities").list():
            c.only("name", "bonus")
            name = c.get("name").str()
            if not name.strip() or any(name == seen for seen, _ in cities):
                c.get("name").fail(f"city {name!r} is empty or named twice")
            cities.append((name, c.get("bonus").str(CITY_BONUSES)))
        if len(cities) < 2:
            args.get("cities").fail("a delivery joins two or more cities")
        dice_f = args.get("dice").list()
        if len(dice_f) != n:
            args.get("dice").fail(f"one count per player ({n}), got {len(dice_f)}")
        dice = [d.int(lo=0) for d in dice_f]
        for i, (d, f) in enumerate(zip(dice, dice_f, strict=True)):
            if d > state.players[i].dice_on_board:
                f.fail(
                    f"{state.players[i].name} has {state.players[i].dice_on_board} dice on "
                    f"the board, not {d}"
                )
        bonus_dice = args.get("bonus_dice", 0).int(lo=0, hi=state.bonus_on_board)
        if sum(dice) + bonus_dice == 0:
            args.get("dice").fail("a completed route has dice on it")
        # "Pokud dojde k zaplnění všech polí trasy … kostkami, proběhne Doručení": a route is
        # delivered when this turn's placement fills its last space, so one of the train dice
        # the active player placed this turn (their own or a bonus die) is on it
        placed = state.turn.placed
        if placed is not None:
            own_left, bonus_left = placed
            if own_left and dice[player]:
                placed = (own_left - 1, bonus_left)
            elif bonus_left and bonus_dice:
                placed = (own_left, bonus_left - 1)
            else:
                name = state.players[player].name
                raise refuse(
                    msg(
                        "{player} has no train die placed this turn on this route (each one fills "
                        "one route): no route was filled this turn",
                        player=name,
                    ),
                    msg("a delivery happens when the active player's placement fills a route"),
                    section,
                )

        # 1) completion VP: 1 per city joined to everyone with a die of their own on the route.
        for i, d in enumerate(dice):
            if d > 0:
                state = self._gain_vp(state, i, len(cities))

        # 2) majority bonus: most own trains (bonus dice do not count); the active player
        # breaks ties, even when the tie involves them.
        most = max(dice)
        tied = [i for i, d in enumerate(dice) if d == most] if most > 0 else []
        majority_f = args.get("majority", None)
        winner: int | None = None
        if len(tied) == 1:
            winner = tied[0]
            if majority_f.value is not None and majority_f.int() != winner:
                majority_f.fail(f"{state.players[winner].name} alone has the most trains")
        elif tied:
            if majority_f.value is None:
                raise refuse(
                    msg(
                        "{players} tie with {n} trains",
                        players=", ".join(state.players[i].name for i in tied),
                        n=most,
                    ),
                    msg("the active player decides who wins the majority bonus"),
                    S_MAJORITY,
                )
            winner = majority_f.int(lo=0, hi=n - 1)
            if winner not in tied:
                majority_f.fail(f"{state.players[winner].name} is not among the tied players")
        elif majority_f.value is not None:
            majority_f.fail("no player has a train on this route")
        if winner is not None:
            for _, kind in cities:
                state = self._city_bonus(state, winner, kind)

        # 3) goods pickup: every building in the joined stations yields a card of its deck,
        # or 1 VP when that deck is empty; the active player orders the payout.
        state = self._pick_up_goods(state, [c for c, _ in cities], args.get("goods_order", None))

        # 5) the dice on the route go back to their owners, bonus dice to the supply.
        players = tuple(
            evolve(p, dice_on_board=p.dice_on_board - d)
            for p, d in zip(state.players, dice, strict=True)
        )
        turn = evolve(
            state.turn,
            deliveries=(*state.turn.deliveries, tuple(c for c, _ in cities)),
            placed=placed,
        )
        return evolve(
            state, players=players, bonus_on_board=state.bonus_on_board - bonus_dice, turn=turn
        )

    def _city_bonus(self, state: TSState, player: int, kind: str) -> TSState:
        """One printed city bonus: 1 VP, a special card or a bonus die (nothing when none is
        left) — "Bonus za převahu"."""
        p = state.players[player]
        if kind == "vp":
            return self._gain_vp(state, player, 1)
        if kind == "special":
            if state.special_deck == 0:
                return state
            state = state.with_player(player, evolve(p, special_cards=p.special_cards + 1))
            return evolve(state, special_deck=state.special_deck - 1)
        if state.bonus_supply == 0:
            return state
        return state.with_player(player, evolve(p, bonus_dice=p.bonus_dice + 1))

    def _pick_up_goods(self, state: TSState, cities: list[str], order_f: Field) -> TSState:
        """Rulebook, Vyzvednutí zboží (Krok 4, 3)."""
        claims: dict[int, list[str]] = {}
        for s in state.stations:
            if s.name in cities:
                for owner, building in s.buildings:
                    claims.setdefault(owner, []).append(building)
        demand: Counter[str] = Counter()
        for blds in claims.values():
            for b in blds:
                good = state.deck(b)
                if good is not None:
                    demand[good] += 1
        short = [g for g, k in demand.items() if 0 < state.left(g) < k]
        n = len(state.players)
        if order_f.value is None:
            if short:
                raise refuse(
                    msg(
                        "{goods}: more claims than cards left",
                        goods=join_texts([goods_name(g) for g in short], ", "),
                    ),
                    msg("the active player decides who is paid first"),
                    S_PICKUP,
                )
            order = [(state.turn.player + k) % n for k in range(n)]
        else:
            order = [f.int(lo=0, hi=n - 1) for f in order_f.list()]
            if len(set(order)) != len(order) or not set(claims) <= set(order):
                order_f.fail(f"list every player with a building there, once: {sorted(claims)}")
        for owner in order:
            for b in claims.get(owner, []):
                good = state.deck(b)
                if good is None:
                    continue  # the building's space is empty for good: no goods any more
                if state.left(good) == 0:
                    state = self._gain_vp(state, owner, 1)
                    continue
                p = state.players[owner]
                state = state.with_player(owner, evolve(p, goods=bump(p.goods, good, 1)))
                state = evolve(state, goods_left=bump(state.goods_left, good, -1))
        return state

    def _complete_task(self, state: TSState, player: int, args: Field) -> TSState:
        """Rulebook, Ukončení úkolů: a task card naming two cities joined by this turn's deliveries is
        laid face up (worth its printed value at the end); no dice needed on the route; one
        card per pair and turn; a forgotten task waits for another delivery."""
        args.only("cities", "points")
        section = S_TASKS
        t = state.turn
        if t.phase != "deliver" or not t.deliveries:
            raise refuse(
                msg("no delivery this turn yet"),
                msg("a task card is completed right after the delivery that joins its cities"),
                section,
            )
        a, b = (c.str() for c in args.get("cities").list())
        points = args.get("points").int(lo=1, hi=TASK_POINTS_MAX)
        if not _connected(t.deliveries, a, b):
            raise refuse(
                msg("{a} and {b} are not joined by this turn's deliveries", a=a, b=b),
                msg("the two cities on the card must be newly joined"),
                section,
            )
        p = state.players[player]
        if p.special_cards - len(p.special_goods) < 1:
            # reads the player's face-down special cards ("Veřejná informace"): told only to them
            raise PrivateRefusalError(
                msg("{player} holds no special card that could be a task", player=p.name),
                player,
                rule=msg("a task card is one of your special cards"),
                section=section,
            )
        key = _pair_key((a, b))
        if any(who == player and _pair_key(pair) == key for who, pair in t.tasks_done):
            raise refuse(
                msg("{player} already completed {a}–{b} this turn", player=p.name, a=a, b=b),
                msg("with two identical task cards only one is laid per delivery"),
                section,
            )
        p = evolve(p, special_cards=p.special_cards - 1, tasks=(*p.tasks, Task((a, b), points)))
        state = state.with_player(player, p)
        return evolve(state, turn=evolve(t, tasks_done=(*t.tasks_done, (player, (a, b)))))

    def _report_special_goods(self, state: TSState, player: int, args: Field) -> TSState:
        """The owner's private report of which special cards in hand show two goods
        ("Speciální karty"; "Veřejná informace": others never see it). Allowed after the end
        too: the cards kept for scoring are revealed then ("Bodování")."""
        args.only("cards")
        pairs = []
        for card in args.get("cards").list():
            shown = card.list()
            if len(shown) != 2:
                card.fail(f"a special card shows two goods, got {len(shown)}")
            x, y = (s.str(GOODS) for s in shown)
            pairs.append((x, y))
        p = state.players[player]
        if len(pairs) > p.special_cards:
            args.get("cards").fail(
                f"{p.name} holds {p.special_cards} special cards, not {len(pairs)}"
            )
        return state.with_player(player, evolve(p, special_goods=tuple(pairs)))

    # step 5 ---------------------------------------------------------------------------------
    def _end_turn(self, state: TSState, player: int, args: Field) -> TSState:
        """Rulebook, Krok 5: Vyčerpání zboží a vylepšování: one exhausted deck (the active player
        picks which) is upgraded; the others wait for the end of the next turn."""
        self._active(state, player, "end the turn", ("deliver", "end"))
        args.only("upgrade", "hotel_to", "printed_next")
        section = S_UPGRADE
        exhausted = [
            b for b in BUILDINGS if (g := state.deck(b)) is not None and state.left(g) == 0
        ]
        up_f = args.get("upgrade", None)
        if not exhausted:
            if up_f.value is not None:
                up_f.fail("no goods deck on a building is exhausted")
            return self._next_turn(state)
        if up_f.value is None:
            if len(exhausted) > 1:
                raise refuse(
                    msg(
                        "the goods of several buildings ran out: {buildings}",
                        buildings=join_texts([building_name(b) for b in exhausted], ", "),
                    ),
                    msg("the active player picks one to upgrade"),
                    section,
                )
            building = exhausted[0]
        else:
            building = up_f.str(tuple(exhausted))
        state, new = self._upgrade(state, building, args)
        if new is None:
            return self._next_turn(state)
        offers: tuple[Offer | None, ...] = (None,) * len(state.players)
        return evolve(state, speculation=Speculation(new, offers))

    def _upgrade(self, state: TSState, building: str, args: Field) -> tuple[TSState, str | None]:
        """The next goods of the scheme under the building; a level already used elsewhere is
        skipped; the hotel's second level is the active player's choice of silver or food;
        after gold, nothing."""
        section = S_UPGRADE
        current = state.deck(building)
        used = set(state.goods_in_play)
        options = state.options
        hotel_f = args.get("hotel_to", None)
        printed_f = args.get("printed_next", None)
        if building != "hotel" and hotel_f.value is not None:
            hotel_f.fail("only the hotel's upgrade is a choice")
        if current == START_DECKS[building]:
            second = SECOND_LEVEL[building]
            if second is None:  # the mine: its printed scheme is not in the rulebook
                printed = None if printed_f.value is None else printed_f.str(SECOND_LEVEL_GOODS)
                if options.mine_next is None and printed is None:
                    raise refuse(
                        msg("the mine's next goods is printed on the board, not in the rulebook"),
                        msg("say it once: silver or food"),
                        section,
                    )
                if options.mine_next is not None and printed not in (None, options.mine_next):
                    printed_f.fail(f"this table reported {options.mine_next!r} before")
                mine_next = options.mine_next or printed
                assert mine_next is not None
                state = evolve(state, options=evolve(options, mine_next=mine_next))
                second = (mine_next,)
            elif printed_f.value is not None:
                printed_f.fail(f"the {building}'s scheme is known")
            free = [g for g in second if g not in used]
            if building == "hotel" and free:
                if hotel_f.value is None and len(free) > 1:
                    raise refuse(
                        msg("the hotel upgrades to silver or food"),
                        msg("the active player chooses"),
                        section,
                    )
                new: str | None = free[0] if hotel_f.value is None else hotel_f.str(tuple(free))
            else:
                if hotel_f.value is not None:
                    hotel_f.fail("silver and food are both used: the hotel goes to gold")
                new = free[0] if free else TOP_GOODS
        else:
            if hotel_f.value is not None:
                hotel_f.fail("after silver or food the hotel upgrades to gold")
            new = TOP_GOODS if current != TOP_GOODS else None
        if new is not None and new in used:
            new = None if new == TOP_GOODS else TOP_GOODS
            if new in used:
                new = None
        decks = tuple((b, new if b == building else g) for b, g in state.decks)
        in_play = state.goods_in_play if new is None else (*state.goods_in_play, new)
        return evolve(state, decks=decks, goods_in_play=in_play), new

    def _next_turn(self, state: TSState) -> TSState:
        """Rulebook, Konec hry: once the VP supply is out, players up to the conductor play one last
        turn; the game ends before the conductor's turn."""
        n = len(state.players)
        nxt = (state.turn.player + 1) % n
        over = state.final_round and nxt == state.conductor
        return evolve(state, turn=Turn(player=nxt), over=over, speculation=None)

    # speculation ----------------------------------------------------------------------------
    def _speculate(self, state: TSState, player: int, args: Field) -> TSState:
        """Rulebook, Spekulace při vylepšování: every player secretly trades goods 2 for 1 of the new
        goods (a two-goods special card counts as 2); traded cards leave the game."""
        spec = state.speculation
        section = S_STEP5_SPECULATION
        if spec is None:
            raise refuse(
                msg("no speculation is open"), msg("speculation follows a new goods deck"), section
            )
        if spec.offers[player] is not None:
            raise refuse(
                msg("{player} has already answered", player=state.players[player].name),
                msg("each player trades once, secretly and at the same time"),
                section,
            )
        args.only("goods", "special_goods")
        p = state.players[player]
        give_f = args.get("goods", {})
        give_f.only(*GOODS)
        give = {g: give_f.get(g, 0).int(lo=0) for g in GOODS}
        for g, k in give.items():
            if k > p.good(g):
                give_f.get(g).fail(f"{p.name} holds {p.good(g)} {g}, not {k}")
            if k and g == spec.goods:
                give_f.get(g).fail(f"{g} is the goods being traded for")
        pairs_f = args.get("special_goods", [])
        pairs = []
        for card in pairs_f.list():
            shown = card.list()
            if len(shown) != 2:
                card.fail(f"a special card shows two goods, got {len(shown)}")
            x, y = (s.str(GOODS) for s in shown)
            pairs.append((x, y))
        held = Counter(p.special_goods)
        if Counter(pairs) - held:
            pairs_f.fail(f"{p.name} reported no such two-goods special card")
        offer = Offer(counts(GOODS, give), tuple(pairs))
        if offer.cards % 2:
            args.fail(f"{offer.cards} cards: the trade is 2 for 1")
        offers = tuple(offer if i == player else o for i, o in enumerate(spec.offers))
        state = evolve(state, speculation=evolve(spec, offers=offers))
        if any(o is None for o in offers):
            return state
        wanted = [o.cards // 2 for o in offers if o is not None]
        if sum(wanted) > state.left(spec.goods):
            return state  # the active player allocates the short deck
        return self._settle(state, wanted)

    def _allocate(self, state: TSState, player: int, args: Field) -> TSState:
        """Rulebook, Spekulace při vylepšování: with too few cards the active player shares them out;
        everyone left without gets 1 VP per 2 cards traded."""
        spec = state.speculation
        section = S_STEP5_SPECULATION
        if spec is None or any(o is None for o in spec.offers):
            raise refuse(
                msg("the speculation is not waiting for an allocation"),
                msg("allocation comes after every player has answered"),
                section,
            )
        if player != state.turn.player:
            raise refuse(
                msg("{player} is not the active player", player=state.players[player].name),
                msg("the active player decides who gets the short cards"),
                section,
            )
        wanted = [o.cards // 2 for o in spec.offers if o is not None]
        left = state.left(spec.goods)
        if sum(wanted) <= left:
            raise refuse(
                msg("there are enough cards for everyone"),
                msg("allocation is only for a short deck"),
                section,
            )
        args.only("cards")
        cards_f = args.get("cards").list()
        if len(cards_f) != len(state.players):
            args.get("cards").fail(f"one number per player ({len(state.players)})")
        given = [f.int(lo=0, hi=w) for f, w in zip(cards_f, wanted, strict=True)]
        if sum(given) != left:
            args.get("cards").fail(f"share out exactly the {left} {spec.goods} cards left")
        return self._settle(state, given, wanted)

    def _settle(self, state: TSState, given: list[int], wanted: list[int] | None = None) -> TSState:
        spec = state.speculation
        assert spec is not None
        wanted = given if wanted is None else wanted
        # "Takto směněné zboží otočte lícem vzhůru tak, aby jej ostatní hráči viděli"
        state = evolve(state, traded=spec)
        for i, offer in enumerate(spec.offers):
            assert offer is not None
            p = state.players[i]
            goods = p.goods
            for g, k in offer.goods:
                goods = bump(goods, g, -k)
            goods = bump(goods, spec.goods, given[i])
            # drop exactly the traded two-goods cards, keep the others in order
            left_count = Counter(p.special_goods) - Counter(offer.special_goods)
            kept_list: list[Pair] = []
            for pair in p.special_goods:
                if left_count[pair] > 0:
                    kept_list.append(pair)
                    left_count[pair] -= 1
            kept = tuple(kept_list)
            p = evolve(
                p,
                goods=goods,
                special_goods=kept,
                special_cards=p.special_cards - len(offer.special_goods),
            )
            state = state.with_player(i, p)
            removed = state.goods_removed
            for g, k in offer.goods:
                removed = bump(removed, g, k)
            state = evolve(
                state,
                goods_removed=removed,
                special_removed=state.special_removed + len(offer.special_goods),
                goods_left=bump(state.goods_left, spec.goods, -given[i]),
            )
            state = self._gain_vp(state, i, wanted[i] - given[i])
        return self._next_turn(state)

    # -- reading the table ------------------------------------------------------------------
    def choices(self, state: TSState, viewer: int | None = None) -> tuple[Choice, ...]:
        """The choices tree (see ``choices.py`` beside this module)."""
        from companion.games.trains_and_stations.choices import choices

        return choices(state, viewer)

    def interpret(self, state: TSState, player: int | None, component: str) -> Action | Prompt:
        who = state.turn.player if player is None else player
        if component == "end-turn":
            return Action("end_turn", who)
        if component == "withdraw":
            return Action("withdraw", who)
        raise UnknownComponentError(f"Trains & Stations has no component {component!r}")

    def problems(self, state: TSState) -> tuple[Problem, ...]:
        found: list[Problem] = []
        n = len(state.players)
        for g in GOODS:
            held = sum(p.good(g) for p in state.players)
            removed = dict(state.goods_removed)[g]
            total = state.left(g) + held + removed
            if total != GOODS_PER_TYPE:
                found.append(
                    Problem(
                        "goods_count",
                        # the scoreboard shows problems: no hand counts in the message
                        f"{g}: the deck, the players' hands and the traded cards do not add "
                        f"up to {GOODS_PER_TYPE}",
                        f"goods_left.{g}",
                    )
                )
            if g not in state.goods_in_play and (
                held or removed or state.left(g) != GOODS_PER_TYPE
            ):
                found.append(
                    Problem(
                        "goods_not_in_play",
                        f"{g} cards moved before their deck came into play",
                        f"goods_left.{g}",
                    )
                )
        for b, on in state.decks:
            if on is not None and on not in state.goods_in_play:
                found.append(
                    Problem("deck_not_in_play", f"{on} on the {b} is not in play", f"decks.{b}")
                )
        specials = (
            state.special_deck
            + state.special_removed
            + sum(p.special_cards + len(p.tasks) for p in state.players)
        )
        if specials != SPECIAL_CARDS:
            found.append(
                Problem(
                    "special_count",
                    "the special cards (deck, hands, tasks, traded) do not add up to "
                    f"{SPECIAL_CARDS}",
                    "special_deck",
                )
            )
        if state.bonus_supply < 0:
            found.append(
                Problem(
                    "bonus_dice", f"more than {BONUS_DICE} bonus dice in use", "bonus_dice_on_board"
                )
            )
        for i, p in enumerate(state.players):
            if p.dice_on_board + len(p.dice_kept) > DICE_PER_PLAYER:
                found.append(
                    Problem(
                        "dice",
                        f"{p.name} has more than {DICE_PER_PLAYER} dice",
                        f"players[{i}].dice_on_board",
                    )
                )
            for b in BUILDINGS:
                built = sum(1 for s in state.stations for o, k in s.buildings if o == i and k == b)
                if built + p.buildings(b) != BUILDINGS_PER_TYPE:
                    found.append(
                        Problem(
                            "buildings",
                            f"{p.name}: {built} {b}s built + {p.buildings(b)} left ≠ {BUILDINGS_PER_TYPE}",
                            f"players[{i}].buildings_left.{b}",
                        )
                    )
        count = state.options.station_count
        if count is not None and len(state.stations) > count:
            found.append(
                Problem(
                    "stations", f"{len(state.stations)} stations, the board has {count}", "stations"
                )
            )
        if state.vp_supply > state.vp_total:
            found.append(Problem("vp_supply", "more VP on the board than at setup", "vp_supply"))
        if state.over and not state.final_round:
            found.append(Problem("over", "the game ended before the VP supply ran out", "over"))
        if state.speculation is not None and len(state.speculation.offers) != n:
            found.append(Problem("speculation", "one offer per player", "speculation.offers"))
        return tuple(found)

    def is_over(self, state: TSState) -> bool:
        return state.over

    def settled(self, state: TSState) -> bool:
        """Over, with nothing left to tell for the final scoring: a player still holding special
        cards tells which show two goods ("Bodování": they count toward the monopolies) on
        their own phone after the last move, so the table ends such a game itself."""
        return state.over and all(p.special_cards == 0 for p in state.players)

    def public_view(self, state: TSState) -> PublicView:
        """What the table sees (``companion.core.public``): every screen renders this."""
        from companion.games.trains_and_stations.public import public_view

        return public_view(self, state)

    def status(self, state: TSState) -> TurnStatus:
        if state.over:
            return TurnStatus(phase="over")
        name = state.players[state.turn.player].name
        if state.speculation is not None:
            waiting = [
                state.players[i].name for i, o in enumerate(state.speculation.offers) if o is None
            ]
            goods = goods_name(state.speculation.goods)
            text = (
                msg("{players} to speculate on {goods}", players=", ".join(waiting), goods=goods)
                if waiting
                else msg("{player} to share out the short {goods} deck", player=name, goods=goods)
            )
            return TurnStatus(
                active_players=tuple(i for i, o in enumerate(state.speculation.offers) if o is None)
                or (state.turn.player,),
                phase="speculation",
                waiting_for=text,
            )
        texts = {
            "gather": msg("{player} to roll (or take their dice back)", player=name),
            "rolled": msg("{player} to reroll or resolve the dice", player=name),
            "deliver": msg("{player} to report deliveries, then end the turn", player=name),
            "end": msg("{player} to end the turn", player=name),
        }
        sentence = texts[state.turn.phase]
        if state.final_round:
            sentence = msg("{waiting} (last round)", waiting=sentence)
        return TurnStatus(
            active_players=(state.turn.player,),
            phase=state.turn.phase,
            waiting_for=sentence,
        )

    # -- scoring ----------------------------------------------------------------------------
    def _notes(self, state: TSState) -> tuple[Message, ...]:
        return (STRIKE_NOTE_SUPPLY if state.options.strike_vp == "supply" else STRIKE_NOTE_BOX,)

    def score(self, state: TSState) -> ScoreSheet:
        """The running score shows only public points (VP cards, completed tasks); at the end,
        the final score with the monopolies ("Bodování")."""
        if state.over:
            return final_sheet(holdings(state), self._notes(state))
        players = tuple(
            PlayerScore(
                p.name,
                (
                    ScoreLine("vp", p.vp, msg("VP cards"), label=VP_LABEL),
                    ScoreLine(
                        "tasks", p.task_points, msg("completed task cards"), label=TASKS_LABEL
                    ),
                ),
            )
            for p in state.players
        )
        return ScoreSheet(NAME, players, (), (HIDDEN_NOTE, *self._notes(state)))

    def score_snapshot(self, data: Any) -> ScoreSheet:
        """The contract snapshot (game, format, players with vp, task_points, goods,
        special_goods) or a full table snapshot, scored as at the end of the game."""
        if is_contract_snapshot(data):
            return score_contract(data)
        state = from_json(data)
        return final_sheet(holdings(state), self._notes(state))

    def to_json(self, state: TSState) -> JsonObject:
        """The full snapshot, hidden holdings included (event store and replay). The
        scoreboard uses :func:`public_json`."""
        return full_json(state)

    def from_json(self, data: Any) -> TSState:
        return from_json(data)

    def public_json(self, state: TSState) -> JsonObject:
        """The scoreboard's view: no goods, special cards or speculation offers before the
        end ("Veřejná informace")."""
        return public_json(state)

    def private_json(self, state: TSState, player: int) -> JsonObject:
        """``player``'s own PIN-protected view: the public view plus their hidden holdings."""
        return private_json(state, player)


def holdings(state: TSState) -> tuple[FinalHolding, ...]:
    return tuple(
        FinalHolding(p.name, p.vp, p.task_points, p.goods, p.special_goods) for p in state.players
    )


def _connected(deliveries: tuple[tuple[str, ...], ...], a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` are joined through this turn's deliveries (the rulebook's
    Seattle–Detroit example joins two deliveries through Billings)."""
    reached = {a}
    grew = True
    while grew:
        grew = False
        for cities in deliveries:
            if reached & set(cities) and not set(cities) <= reached:
                reached |= set(cities)
                grew = True
    return b in reached


GAME = TrainsAndStations()
