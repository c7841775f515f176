"""What the table can enter now in Mini Express, as a tree of choices.

Every leaf is an action the game's ``apply`` accepts (checked with ``apply`` itself). A step
with one legal option is not asked (its only option is taken and the next step shown). Sections
are the rulebook's (seed 002, cs):

- "PŘÍPRAVA HRY", step 9: the drafter picks one of the companies whose set-aside shares remain.
- "PRŮBĚH HRY": on your turn take a share ("Pořízení akcie": one tap, the company) or build
  track ("Stavba trati"): the company, the trains placed from its train field (one per space,
  the city included; the spaces before the city are landscape, step 3), the city's demand token
  (two symbols, or none, step 6) and the other company for a wild symbol, then in one step
  whether the city is now full (step 7) or which other companies already had trains on the new
  track's spaces (step 4, the compensation: the company, then on how many spaces).
- "Mapa USA: Varianta hry Zlatý hřeb": while the event is pending, a build says whether it
  reached Omaha first, reached San Francisco first, or joined the two branches (and the western
  branch's company: the builder names it; for the Mašinfíra, the companies at the joining space).
- "Mapa Evropy: Varianta hry Přístavy": landscape spaces are asked (a harbour space is not
  landscape), and the first track into a city with a wild demand token opens a harbour.
- "HRA PRO 2 ZKUŠENÉ HRÁČE": when no second action is possible, the turn ends (see
  ``rules.MiniExpress._no_second_action``).
- "Příprava sólové hry" IV. and "Tah Mašinfíry v sólové hře": the Mašinfíra's token as it reads
  (a refresh token, or its top number and its bottom number), the city the city pointer reaches
  when the level needs it, then what the chosen company does: its share (nothing more to
  enter), its build (entered like a player's build, company given), or another token when it
  cannot act (A.ii, B.v).
- "ZÁVĚREČNÉ BODOVÁNÍ": the cells of the board's share-value table the final scoring needs (the
  table is printed on the board, not in the rulebook), one cell at a time, values 0–20 (the
  rulebook's known cells are 2–8; a larger printed value goes through the advanced form).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import combinations, combinations_with_replacement

from companion.core.actions import Action
from companion.core.choices import Children, Choice, accepts
from companion.core.jsonvalue import JsonObject, JsonValue
from companion.core.messages import Message, join_texts, msg, plural
from companion.games.mini_express.automa import (
    REFRESH,
    SHARE_MAX_TRAINS,
    TOKEN_NUMBER_MAX,
)
from companion.games.mini_express.data import (
    AUTOMA_TOKENS_REGULAR,
    COMPANIES,
    LEVELS,
    POINTER_ORDER,
    SOLO,
    TRAIN_FIELD_MAX,
    TURISTA_LAST_CITY,
    TWO_EXPERIENCED_VARIANT,
)
from companion.games.mini_express.moves import WILD
from companion.games.mini_express.names import COMPANY_SWATCHES, RANK_LABELS, company_name
from companion.games.mini_express.rules import GAME
from companion.games.mini_express.setup import next_drafter
from companion.games.mini_express.state import (
    AUTOMA_SETUP,
    DRAFT,
    OVER,
    PLAY,
    MiniExpressState,
)

Stage = Callable[[], tuple[Choice, ...]]


def _ok(state: MiniExpressState, action: Action) -> bool:
    return accepts(GAME.apply, state, action)


def _sw(company: str) -> tuple[str, ...]:
    return (COMPANY_SWATCHES[company],)


def _once(build: Stage) -> Stage:
    """A step built when first opened and kept (a walk over the whole tree opens it twice)."""
    made: list[tuple[Choice, ...]] = []

    def stage() -> tuple[Choice, ...]:
        if not made:
            made.append(build())
        return made[0]

    return stage


def _one_step(nodes: tuple[Choice, ...]) -> tuple[Choice, ...]:
    """A step with one option that is not a leaf is not asked: its children are shown."""
    if len(nodes) == 1 and not nodes[0].is_leaf:
        return nodes[0].expand()
    return nodes


def choices(state: MiniExpressState, viewer: int | None = None) -> tuple[Choice, ...]:
    """The tree for ``state`` (Mini Express has no hidden holdings: ``viewer`` adds nothing)."""
    if state.phase == DRAFT:
        return _draft(state)
    if state.phase == AUTOMA_SETUP:
        return _automa_setup(state)
    if state.phase == OVER:
        return _share_values(state)
    if state.phase != PLAY:
        return ()
    p = state.current_player
    if state.players[p].is_automa:
        return _automa_draw(state, ())
    name = state.players[p].name
    found: list[Choice] = []
    for c in COMPANIES:
        if _ok(state, a := Action("take_share", p, {"company": c})):
            label = msg("{player}: take a share of {company}", player=name, company=company_name(c))
            found.append(Choice(f"share-{c}", label, p, action=a, swatches=_sw(c)))

    def make(args: JsonObject) -> Action:
        return Action("build", p, args)

    for c in COMPANIES:
        ctx = _Build(state, p, c, make)
        if ctx.can_build():
            label = msg("{player}: build track for {company}", player=name, company=company_name(c))
            found.append(
                Choice(f"build-{c}", label, p, children=_once(ctx.trains), swatches=_sw(c))
            )
    if not found and _ok(state, a := Action("no_second_action", p, {})):
        label = msg("{player}: no second action is possible, the turn ends", player=name)
        found.append(Choice("no-second-action", label, p, action=a))
    return tuple(found)


def _draft(state: MiniExpressState) -> tuple[Choice, ...]:
    who = next_drafter(state)
    if who is None:
        return ()
    leaves = tuple(
        Choice(c, company_name(c), who, action=a, swatches=_sw(c))
        for c in COMPANIES
        if _ok(state, a := Action("draft_share", who, {"company": c}))
    )
    if not leaves:
        return ()
    label = msg("{player}: pick a starting share", player=state.players[who].name)
    return (Choice("draft", label, who, children=leaves),)


# -- a build, staged ---------------------------------------------------------------------------
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


@dataclass(frozen=True, slots=True)
class _Build:
    """Stavba trati, step by step, for a player (``make`` wraps the build's arguments in a
    ``build`` action) or for the Mašinfíra (in an ``automa_turn`` action)."""

    state: MiniExpressState
    player: int
    company: str
    make: Callable[[JsonObject], Action]
    by_automa: bool = False
    judged: dict[str, bool] = field(default_factory=dict)
    """``apply``'s answer per build without compensation (see :meth:`_end_ok`)."""

    def _ok(self, args: JsonObject) -> bool:
        return _ok(self.state, self.make(args))

    def can_build(self) -> bool:
        field = self.state.company(self.company).trains_on_field
        return field > 0 and self._ok(self._base(1))

    def _base(self, trains: int) -> JsonObject:
        # Stavba trati 3.: one train per space, the city (the last space) included; the spaces
        # before it are landscape
        return {"company": self.company, "trains": trains, "landscape": trains - 1, "demand": []}

    def trains(self) -> tuple[Choice, ...]:
        field = self.state.company(self.company).trains_on_field
        found = []
        for n in range(1, field + 1):
            if not self._ok(self._base(n)):
                continue
            label = plural("{n} train placed", "{n} trains placed", "n", n=n)
            found.append(Choice(str(n), label, self.player, children=self._after_trains(n)))
        return _one_step(tuple(found))

    def _after_trains(self, trains: int) -> Stage:
        base = self._base(trains)
        if self.state.harbours and trains > 1:
            return _once(lambda: self._landscape(base))
        return _once(lambda: self._demand(base))

    def _landscape(self, base: JsonObject) -> tuple[Choice, ...]:
        """Přístavy, Pozn.: a harbour space is not landscape (nor is a city space)."""
        trains = base["trains"]
        assert isinstance(trains, int)
        found = []
        for n in range(trains - 1, -1, -1):
            args: JsonObject = {**base, "landscape": n}
            label = plural(
                "{n} landscape space (the track length grows by {n})",
                "{n} landscape spaces (the track length grows by {n})",
                "n",
                n=n,
            )
            found.append(
                Choice(f"landscape-{n}", label, self.player, children=self._lazy_demand(args))
            )
        return tuple(found)

    def _lazy_demand(self, args: JsonObject) -> Stage:
        return _once(lambda: self._demand(args))

    def _demand(self, base: JsonObject) -> tuple[Choice, ...]:
        """Stavba trati 6.: the city's demand token. A token is offered when the build with it
        and nothing else (no compensation, no event, the city still open) is accepted: that
        build is one of its leaves, and no leaf below is accepted when it is not. The steps
        below are built when opened (the 23 tokens would otherwise each be built in full)."""
        found: list[Choice] = []
        for demand in _demands():
            key = "none" if not demand else "-".join(demand)
            args: JsonObject = {**base, "demand": list(demand)}
            if demand and demand[1] == WILD and not self.by_automa:
                wild = tuple(
                    Choice(
                        other,
                        msg("Wild symbol: +1 in {company}", company=company_name(other)),
                        self.player,
                        children=self._lazy_events(with_wild),
                        swatches=_sw(other),
                    )
                    for other in COMPANIES
                    if other != demand[0]
                    and self._plain_ok(with_wild := {**args, "wild_company": other})
                )
                if wild:
                    found.append(Choice(key, _demand_label(demand), self.player, children=wild))
            elif self._plain_ok(args):
                label = _demand_label(demand)
                found.append(Choice(key, label, self.player, children=self._lazy_events(args)))
        return tuple(found)

    def _plain_ok(self, args: JsonObject) -> bool:
        demand = args["demand"]
        return self._ok({**args, "city_full": False} if demand else args)

    def _lazy_events(self, args: JsonObject) -> Stage:
        return _once(lambda: self._events(args))

    def _events(self, args: JsonObject) -> tuple[Choice, ...]:
        """The map variants' events this build may trigger, then the last step."""
        return self._harbour(args)

    def _harbour(self, args: JsonObject) -> tuple[Choice, ...]:
        """Mapa Evropy: Varianta hry Přístavy: the first track into one of the 4 cities whose
        demand token shows the wild symbol opens a harbour for the token's other company."""
        demand = args["demand"]
        assert isinstance(demand, list)
        printed = next((d for d in demand if d != WILD), None)
        if (
            not self.state.harbours
            or WILD not in demand
            or printed is None
            or printed in self.state.harbours_opened
        ):
            return self._spike(args)
        options = (
            (
                "harbour",
                True,
                msg(
                    "First track into this city: a harbour opens for {company}",
                    company=company_name(str(printed)),
                ),
            ),
            ("no-harbour", False, msg("The city already had a track: no harbour")),
        )
        found = []
        for key, harbour, label in options:
            below = self._spike({**args, "harbour": harbour})
            if below:
                found.append(Choice(key, label, self.player, children=below))
        return _one_step(tuple(found))

    def _spike(self, args: JsonObject) -> tuple[Choice, ...]:
        """Mapa USA: Varianta hry Zlatý hřeb, while its event is still to come."""
        pending = self.state.golden_spike_state
        if not self.state.golden_spike or pending not in ("waiting", "east"):
            return self._last(args, ())
        found: list[Choice] = []
        below = self._last(args, ())
        if below:
            label = msg("No Golden Spike event with this track")
            found.append(Choice("no-spike", label, self.player, children=below))
        if pending == "waiting":
            for key, label in (
                ("omaha", msg("Golden Spike: the first track into Omaha")),
                ("san_francisco", msg("Golden Spike: San Francisco reached before Omaha")),
            ):
                below = self._last({**args, "golden_spike": key}, ())
                if below:
                    found.append(Choice(key, label, self.player, children=below))
        else:
            joined = self._joined({**args, "golden_spike": "joined"})
            if joined:
                label = msg("Golden Spike: Omaha and San Francisco are now joined")
                found.append(Choice("joined", label, self.player, children=joined))
        return tuple(found)

    def _joined(self, args: JsonObject) -> tuple[Choice, ...]:
        """Zlatý hřeb 1.: the builder picks a company with a train at the joining space (not
        the eastern branch's); the Mašinfíra picks by its rule among those companies."""
        east = self.state.golden_spike_east
        others = [c for c in COMPANIES if c != east]
        found: list[Choice] = []
        if not self.by_automa:
            for c in others:
                below = self._last({**args, "west_company": c}, ())
                if below:
                    label = msg("Western branch: {company}", company=company_name(c))
                    found.append(Choice(c, label, self.player, children=below, swatches=_sw(c)))
            return tuple(found)
        for size in range(1, len(others) + 1):
            for group in combinations(others, size):
                below = self._last({**args, "west_candidates": list(group)}, ())
                if below:
                    label = msg(
                        "At the joining space: {companies}",
                        companies=join_texts([company_name(c) for c in group], ", "),
                    )
                    found.append(Choice("-".join(group), label, self.player, children=below))
        return tuple(found)

    def _compensation_cap(self, other: str, trains: int) -> int:
        """How many compensation trains ``other`` can still receive (Stavba trati 4.: one per
        shared space, as the supply allows; Pozn.: "Maximální počet vlaků na poli pro vlaky je
        vždy 5", more is ignored; Turista: the Mašinfíra gives none to a company with 2 or more
        trains on its field), and never more spaces than it has trains on the map. Spaces
        beyond it change nothing, so they are one option."""
        company = self.state.company(other)
        if other == self.company:
            return 0
        turista = self.state.level_at >= LEVELS.index("turista")
        if self.by_automa and turista and company.trains_on_field >= 2:
            return 0
        room = TRAIN_FIELD_MAX - company.trains_on_field
        # it shares at most as many spaces as it has trains on the map
        return max(0, min(trains, room, company.trains_in_supply, company.trains_on_map))

    def _end_ok(self, action: Action, plain: Action, paid: bool) -> bool:
        """Whether ``apply`` takes a last step's leaf. Compensation (Stavba trati 4.) never
        turns a build into a refused one, except where it would end the game with the second
        action of a turn (HRA PRO 2 ZKUŠENÉ HRÁČE B.: a supply running out exhausts its
        company); elsewhere the leaf is accepted exactly when the same build without the
        compensation is, and ``apply`` judges that one once (the many compensation
        combinations would otherwise each be applied twice: here and when played). Tests
        apply every offered leaf."""
        if not paid or self.state.variant == TWO_EXPERIENCED_VARIANT:
            return _ok(self.state, action)
        key = repr(plain.args)
        if key not in self.judged:
            self.judged[key] = _ok(self.state, plain)
        return self.judged[key]

    def _last(self, args: JsonObject, paid: tuple[tuple[str, int], ...]) -> tuple[Choice, ...]:
        """One step: the city full or not (Stavba trati 7.), or another company that already
        had trains on the new track's spaces (4., the compensation)."""
        full_args: JsonObject = {**args}
        if paid:
            full_args["compensated"] = {c: n for c, n in paid}
        found: list[Choice] = []
        demand = args["demand"]
        assert isinstance(demand, list)
        nobody = not paid
        if demand:
            ends: tuple[tuple[str, bool, Message], ...] = (
                (
                    "open",
                    False,
                    msg("No other company's trains on the track; the city still has room")
                    if nobody
                    else msg("The city still has room"),
                ),
                (
                    "full",
                    True,
                    msg("No other company's trains on the track; the city is now full")
                    if nobody
                    else msg("The city is now full (its demand token goes to the box)"),
                ),
            )
        else:
            ends = (
                (
                    "done",
                    False,
                    msg("No other company's trains on the track") if nobody else msg("Done"),
                ),
            )
        for key, full, label in ends:
            action = self.make({**full_args, "city_full": full} if demand else full_args)
            plain = self.make({**args, "city_full": full} if demand else args)
            if self._end_ok(action, plain, bool(paid)):
                found.append(Choice(key, label, self.player, action=action))
        strict = self._second_of_two()
        if strict and not found:
            # compensation only takes trains from supplies: a build refused without more of it
            # is refused with more (see _second_of_two)
            return ()
        trains = args["trains"]
        assert isinstance(trains, int)
        after = COMPANIES.index(paid[-1][0]) + 1 if paid else 0
        # A company whose only train on the map is the one on its start location (PŘÍPRAVA
        # HRY 4.) shares at most the new track's city with it, and a track enters one city and
        # runs through no other (Stavba trati 3.): at most one such company is compensated.
        lone_paid = any(self.state.company(c).trains_on_map == 1 for c, _ in paid)
        for other in COMPANIES[after:]:
            cap = self._compensation_cap(other, trains)
            if cap == 0 or (lone_paid and self.state.company(other).trains_on_map == 1):
                continue
            top = cap
            if strict:
                # more spaces, more trains from its supply: offered up to the last count that
                # leaves the build accepted
                top = 0
                while top < cap and self._ends_ok(args, (*paid, (other, top + 1))):
                    top += 1
                if top == 0:
                    continue
            spaces = tuple(
                Choice(
                    str(n),
                    plural(
                        "on {n} space of the new track",
                        "on {n} spaces of the new track",
                        "n",
                        n=n,
                    )
                    if n < cap or cap == trains or top < cap
                    else plural(
                        "on {n} or more spaces of the new track ({n} train fits on its field)",
                        "on {n} or more spaces of the new track ({n} trains fit on its field)",
                        "n",
                        n=n,
                    ),
                    self.player,
                    children=self._lazy_last(args, (*paid, (other, n))),
                )
                for n in range(1, top + 1)
            )
            label = msg(
                "{company} already had trains on the track (compensation)",
                company=company_name(other),
            )
            below: Children = spaces
            if cap == 1:
                # one compensation train is all that fits: the spaces are not asked
                label = msg(
                    "{company} already had trains on the track (1 compensation train)",
                    company=company_name(other),
                )
                below = self._lazy_last(args, (*paid, (other, 1)))
            found.append(
                Choice(f"comp-{other}", label, self.player, children=below, swatches=_sw(other))
            )
        return tuple(found)

    def _second_of_two(self) -> bool:
        """HRA PRO 2 ZKUŠENÉ HRÁČE B.: nobody may end the game with the second action of a turn.
        A train taken from a supply that leaves it empty exhausts the company's share offer at
        once (Pořízení akcie, Pamatujte), which ends this game: in a second action a
        compensation (Stavba trati 4.), a harbour or a Golden Spike train that empties a supply
        is refused. The tree offers only what leaves a leaf below (the variant's random games
        met compensation steps with nothing under them)."""
        state = self.state
        return (
            state.variant == TWO_EXPERIENCED_VARIANT
            and len(state.actions_this_turn) == 1
            and state.turns_taken > 0
        )

    def _ends_ok(self, args: JsonObject, paid: tuple[tuple[str, int], ...]) -> bool:
        """Whether a build with the compensation ``paid`` and no more is accepted with one of
        its last steps (the city full or not)."""
        full_args: JsonObject = {**args, "compensated": {c: n for c, n in paid}}
        fulls = (False, True) if args["demand"] else (None,)
        for full in fulls:
            action = self.make(full_args if full is None else {**full_args, "city_full": full})
            if _ok(self.state, action):
                return True
        return False

    def _lazy_last(self, args: JsonObject, paid: tuple[tuple[str, int], ...]) -> Stage:
        return _once(lambda: self._last(args, paid))


# -- the Mašinfíra -----------------------------------------------------------------------------
TOKEN_NUMBERS = range(TOKEN_NUMBER_MAX + 1)


def _token(city: int, company: int) -> JsonObject:
    return {"city": city, "company": company}


def _automa_setup(state: MiniExpressState) -> tuple[Choice, ...]:
    """Příprava sólové hry IV.: a token is drawn; the company pointer moves by its bottom number
    and the Mašinfíra takes that company's set-aside share (the city pointer does not move)."""
    automa, index = state.automa, state.automa_index
    if automa is None or index is None:
        return ()
    found = []
    for top in TOKEN_NUMBERS:
        below = []
        for bottom in TOKEN_NUMBERS:
            action = Action("automa_setup_draw", index, {"token": _token(top, bottom)})
            if not _ok(state, action):
                continue
            company = POINTER_ORDER[(automa.company_pointer + bottom) % len(POINTER_ORDER)]
            label = msg(
                "Bottom number {n}: the company pointer moves to {company}",
                n=bottom,
                company=company_name(company),
            )
            below.append(
                Choice(f"bottom-{bottom}", label, index, action=action, swatches=_sw(company))
            )
        if below:
            label = msg("Mašinfíra's starting share: a token with top number {n}", n=top)
            found.append(Choice(f"top-{top}", label, index, children=tuple(below)))
    return tuple(found)


def _automa_draw(
    state: MiniExpressState, draws: tuple[JsonValue, ...], city: int | None = None
) -> tuple[Choice, ...]:
    """Tah Mašinfíry 1.: the next token out of the bag; a refresh token puts the drawn tokens
    back and another is drawn (Pozn. on the refresh icon). ``city``: the city number the
    turn's first numbered token gave (a later token does not move the city pointer)."""
    automa, index = state.automa, state.automa_index
    if automa is None or index is None:
        return ()
    out = len(automa.drawn)
    pointer = automa.company_pointer
    numbered = False
    for d in draws:
        if d == REFRESH:
            out = 0
        else:
            assert isinstance(d, dict)
            steps = d["company"]
            assert isinstance(steps, int)
            out += 1
            pointer = (pointer + steps) % len(POINTER_ORDER)
            numbered = True
    found: list[Choice] = []
    if automa.refresh_in_bag and out > 0:
        # with no token out of the bag a refresh token changes nothing: the next token is
        # entered instead (so the tree does not offer refresh after refresh)
        label = msg("Mašinfíra: a refresh token (the drawn tokens go back into the bag)")
        found.append(
            Choice("refresh", label, index, children=_lazy_draw(state, (*draws, REFRESH), city))
        )
    if out < AUTOMA_TOKENS_REGULAR:
        for top in TOKEN_NUMBERS:
            label = (
                msg("Mašinfíra: another token, top number {n}", n=top)
                if numbered
                else msg("Mašinfíra: a token with top number {n}", n=top)
            )
            stage = _Bottom(state, draws, top, pointer, numbered, city)
            found.append(Choice(f"top-{top}", label, index, children=_once(stage.choices)))
    return tuple(found)


def _lazy_draw(state: MiniExpressState, draws: tuple[JsonValue, ...], city: int | None) -> Stage:
    return _once(lambda: _automa_draw(state, draws, city))


@dataclass(frozen=True, slots=True)
class _Bottom:
    """1.a: the token's bottom number moves the company pointer; then, for the turn's first
    numbered token, the city pointer's city when the level needs it."""

    state: MiniExpressState
    draws: tuple[JsonValue, ...]
    top: int
    pointer: int
    numbered: bool
    city: int | None

    def choices(self) -> tuple[Choice, ...]:
        index = self.state.automa_index
        assert index is not None
        found: list[Choice] = []
        for bottom in TOKEN_NUMBERS:
            now = (*self.draws, _token(self.top, bottom))
            company = POINTER_ORDER[(self.pointer + bottom) % len(POINTER_ORDER)]
            label = msg(
                "Bottom number {n}: the company pointer moves to {company}",
                n=bottom,
                company=company_name(company),
            )
            key = f"bottom-{bottom}"
            if not self.numbered and _needs_city(self.state, self.top):
                below = _automa_city(self.state, now, company)
            elif self.state.company(company).trains_on_field > SHARE_MAX_TRAINS:
                # a build, or "no legal build": never empty, built when opened
                builds = _lazy_acts(self.state, now, self.city, company)
                found.append(Choice(key, label, index, children=builds, swatches=_sw(company)))
                continue
            else:
                below = _automa_acts(self.state, now, self.city, company)
            if len(below) == 1 and below[0].is_leaf:
                leaf = Choice(key, label, index, action=below[0].action, swatches=_sw(company))
                found.append(leaf)
            elif below:
                found.append(Choice(key, label, index, children=below, swatches=_sw(company)))
        return tuple(found)


def _needs_city(state: MiniExpressState, top: int) -> bool:
    """Nastavení obtížnosti, Turista: the game ends when the city pointer reaches city 32, so
    from Turista up the table says which city it reaches (when it moves)."""
    return state.variant == SOLO and state.level_at >= LEVELS.index("turista") and top > 0


def _automa_city(
    state: MiniExpressState, draws: tuple[JsonValue, ...], company: str
) -> tuple[Choice, ...]:
    automa, index = state.automa, state.automa_index
    assert automa is not None and index is not None
    start = (automa.city_number or 0) + 1
    found: list[Choice] = []
    for number in range(start, TURISTA_LAST_CITY + 1):
        key = f"city-{number}"
        if number == TURISTA_LAST_CITY:
            # Nastavení obtížnosti, Turista: the game ends at once, the Mašinfíra does not act
            action = Action("automa_turn", index, {"draws": list(draws), "city_number": number})
            if _ok(state, action):
                label = msg("The city pointer reaches city {n}: the game ends", n=number)
                found.append(Choice(key, label, index, action=action))
            continue
        label = msg("The city pointer reaches city {n}", n=number)
        found.append(Choice(key, label, index, children=_lazy_acts(state, draws, number, company)))
    return tuple(found)


def _lazy_acts(
    state: MiniExpressState, draws: tuple[JsonValue, ...], city: int | None, company: str
) -> Stage:
    return _once(lambda: _automa_acts(state, draws, city, company))


def _automa_acts(
    state: MiniExpressState, draws: tuple[JsonValue, ...], city: int | None, company: str
) -> tuple[Choice, ...]:
    """2.: 0–2 trains on the chosen company's field: its share (A.), or another token when it
    has none left (A.ii); 3–5: a build (B.), or another token when it has no legal build
    (B.v)."""
    index = state.automa_index
    assert index is not None
    args: JsonObject = {"draws": list(draws)}
    if city is not None:
        args["city_number"] = city
    if state.company(company).trains_on_field <= SHARE_MAX_TRAINS:
        share = Action("automa_turn", index, args)
        if _ok(state, share):
            label = msg("The Mašinfíra takes a share of {company}", company=company_name(company))
            return (Choice("share", label, index, action=share, swatches=_sw(company)),)
        label = msg(
            "{company} has no share left: draw another token", company=company_name(company)
        )
        return (Choice("draw-again", label, index, children=_lazy_draw(state, draws, city)),)

    def make(build: JsonObject) -> Action:
        return Action("automa_turn", index, {**args, "build": build})

    ctx = _Build(state, index, company, make, by_automa=True)
    found = list(ctx.trains()) if ctx.can_build() else []
    label = msg("{company} has no legal build: draw another token", company=company_name(company))
    found.append(Choice("no-build", label, index, children=_lazy_draw(state, draws, city)))
    return tuple(found)


# -- the board table ---------------------------------------------------------------------------
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
