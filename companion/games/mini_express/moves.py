"""The two actions (take a share, build track) and their bookkeeping, as pure functions.

The map is not public, so a build is taken as the table reports it (:class:`BuildReport`) and
every rule that can be checked from the asset board and the tracks is checked here.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from companion.core.errors import IllegalActionError
from companion.core.messages import Text, join_texts, msg, plural
from companion.core.records import evolve
from companion.core.snapshot import Field
from companion.games.mini_express.data import (
    COMPANIES,
    LEVELS,
    POINTER_ORDER,
    TRACK_LENGTH_MAX,
    TRAIN_FIELD_MAX,
    TRAINS_ADDED_BY_SHARE,
)
from companion.games.mini_express.names import (
    BUILD,
    EXHAUSTION,
    GOLDEN_SPIKE,
    HARBOURS,
    TAKE_SHARE,
    company_name,
    point,
)
from companion.games.mini_express.state import Company, MiniExpressState

WILD = "wild"
_DEMAND_TOKENS = msg(
    "a city's demand token: +1 influence in the printed company (or the wild symbol)"
)
GOLDEN_SPIKE_EVENTS = ("omaha", "san_francisco", "joined")


@dataclass(frozen=True, slots=True)
class BuildReport:
    """A build as the table reports it (Stavba trati, steps 1–7)."""

    company: str
    trains: int
    """Trains placed from the company's train field (one per space, the city included)."""
    landscape: int
    """How many of those spaces are landscape (they lengthen the track)."""
    compensated: tuple[tuple[str, int], ...] = ()
    """(company, spaces of the new track where that company already had a train)."""
    demand: tuple[str, ...] = ()
    """The two symbols on the city's demand token (companies or ``wild``); empty when the
    city has no demand token (a start location, San Francisco after the Golden Spike)."""
    wild_company: str | None = None
    """The other company a player picks for the wild symbol."""
    city_full: bool = False
    """The city's capacity is now reached, so its demand token goes back to the box."""
    golden_spike: str | None = None
    """Golden Spike variant: ``omaha`` (first track into Omaha), ``san_francisco`` (San
    Francisco reached before Omaha) or ``joined`` (Omaha and San Francisco are now joined)."""
    west_company: str | None = None
    """With ``joined``: the company the builder picks for the western branch."""
    west_candidates: tuple[str, ...] = ()
    """With ``joined`` built by the automa: the companies (other than the eastern branch) on
    the space(s) where the railway was joined; Trackside picks the western branch by rule."""
    harbour: bool = False
    """Harbours variant: this first track into a wild-demand city opens a harbour."""

    @classmethod
    def parse(cls, field: Field, company: str | None = None) -> BuildReport:
        field.only(
            "company", "trains", "landscape", "compensated", "demand", "wild_company",
            "city_full", "golden_spike", "west_company", "west_candidates", "harbour",
        )  # fmt: skip
        name = field.get("company").str(COMPANIES) if company is None else company
        if company is not None and field.has("company"):
            field.get("company").str((company,))
        compensated = []
        for other, spaces in field.get("compensated", {}).items():
            if other not in COMPANIES:
                spaces.fail(f"{other!r} is not a company ({', '.join(COMPANIES)})")
            compensated.append((other, spaces.int(lo=1, hi=TRACK_LENGTH_MAX + 1)))
        demand = tuple(d.str((*COMPANIES, WILD)) for d in field.get("demand", []).list(max_len=2))
        if len(demand) == 1:
            field.get("demand").fail("a demand token shows two symbols (or none: [])")
        wild = field.get("wild_company", None)
        spike = field.get("golden_spike", None)
        west = field.get("west_company", None)
        return cls(
            company=name,
            trains=field.get("trains").int(lo=1, hi=TRAIN_FIELD_MAX),
            landscape=field.get("landscape").int(lo=0, hi=TRAIN_FIELD_MAX),
            compensated=tuple(compensated),
            demand=demand,
            wild_company=None if wild.value is None else wild.str(COMPANIES),
            city_full=field.get("city_full", False).bool(),
            golden_spike=None if spike.value is None else spike.str(GOLDEN_SPIKE_EVENTS),
            west_company=None if west.value is None else west.str(COMPANIES),
            west_candidates=tuple(
                c.str(COMPANIES) for c in field.get("west_candidates", []).list(max_len=4)
            ),
            harbour=field.get("harbour", False).bool(),
        )


def _refuse(message: Text, rule: Text, section: Text) -> IllegalActionError:
    return IllegalActionError(message, rule=rule, section=section)


# -- trains and exhaustion ---------------------------------------------------------------------
def _exhaust_if_no_trains(state: MiniExpressState, name: str) -> MiniExpressState:
    """Vyčerpání nabídky akcií: when a company's supply has no train left, its share offer is
    exhausted at once and its remaining shares leave the game."""
    company = state.company(name)
    if company.trains_in_supply == 0 and not company.exhausted:
        return state.with_company(name, evolve(company, shares_on_board=0, exhausted=True))
    return state


def add_to_field(state: MiniExpressState, name: str, wanted: int) -> MiniExpressState:
    """Move up to ``wanted`` trains from the supply to the train field, never above 5 and only
    as many as the supply has (Pořízení akcie; Stavba trati 4., Pozn.)."""
    company = state.company(name)
    moved = max(0, min(wanted, TRAIN_FIELD_MAX - company.trains_on_field, company.trains_in_supply))
    state = state.with_company(
        name,
        evolve(
            company,
            trains_on_field=company.trains_on_field + moved,
            trains_in_supply=company.trains_in_supply - moved,
        ),
    )
    return _exhaust_if_no_trains(state, name)


def supply_to_map(state: MiniExpressState, name: str) -> tuple[MiniExpressState, bool]:
    """One train from the supply onto the map (Golden Spike, Harbours); False when none is left."""
    company = state.company(name)
    if company.trains_in_supply == 0:
        return state, False
    state = state.with_company(name, evolve(company, trains_in_supply=company.trains_in_supply - 1))
    return _exhaust_if_no_trains(state, name), True


def advance_track(state: MiniExpressState, name: str, steps: int) -> MiniExpressState:
    """Stavba trati 5.: the marker moves by the landscape spaces, never above 15."""
    company = state.company(name)
    length = min(TRACK_LENGTH_MAX, company.track_length + steps)
    return state.with_company(name, evolve(company, track_length=length))


# -- take a share ------------------------------------------------------------------------------
def check_share_available(state: MiniExpressState, name: str) -> Company:
    company = state.company(name)
    if company.exhausted or company.shares_on_board == 0:
        raise _refuse(
            msg("{company} has no share left on the asset board", company=company_name(name)),
            msg("take a share only of a company with at least one share on its share field"),
            join_texts([TAKE_SHARE, EXHAUSTION], "; "),
        )
    return company


def take_share(state: MiniExpressState, player: int, name: str) -> MiniExpressState:
    """Pořízení akcie: pay influence equal to the trains on the company's train field (never
    below 0), take one share, add 3 trains to the field (at most 5, as the supply allows)."""
    company = check_share_available(state, name)
    who = state.players[player]
    cost = company.trains_on_field
    have = who.influence[COMPANIES.index(name)]
    if have < cost:
        raise _refuse(
            msg(
                "{player} has influence {have} in {company} but must pay {cost} (one per train "
                "on its train field)",
                player=who.name,
                have=have,
                company=company_name(name),
                cost=cost,
            ),
            msg("influence cannot go below 0"),
            TAKE_SHARE,
        )
    state = state.with_player(player, who.with_influence(name, -cost).with_share(name))
    state = _take_from_board(state, name)
    return add_to_field(state, name, TRAINS_ADDED_BY_SHARE)


def _take_from_board(state: MiniExpressState, name: str) -> MiniExpressState:
    company = state.company(name)
    left = company.shares_on_board - 1
    # Vyčerpání nabídky akcií: taking the last share exhausts the company's offer
    return state.with_company(
        name, evolve(company, shares_on_board=left, exhausted=company.exhausted or left == 0)
    )


def automa_take_share(state: MiniExpressState, automa: int, name: str) -> MiniExpressState:
    """Tah Mašinfíry 2.A: a free share (no influence paid), then 3 trains (Turista and up:
    the field is topped up to 3 instead); Průvodčí and up: +1 influence in the company."""
    check_share_available(state, name)
    who = state.players[automa].with_share(name)
    if state.level_at >= LEVELS.index("pruvodci"):
        who = who.with_influence(name, 1)  # SOLO_LEVELS, Průvodčí
    state = _take_from_board(state.with_player(automa, who), name)
    if state.level_at >= LEVELS.index("turista"):
        # SOLO_LEVELS, Turista: "doplňte vlaky tak, aby byly na poli pro vlaky 3 vlaky"
        return add_to_field(state, name, max(0, 3 - state.company(name).trains_on_field))
    return add_to_field(state, name, TRAINS_ADDED_BY_SHARE)


# -- build track -------------------------------------------------------------------------------
def build(
    state: MiniExpressState, player: int, report: BuildReport, *, by_automa: bool = False
) -> MiniExpressState:
    """Stavba trati as reported: trains from the field onto the map, compensation, track length,
    influence from the demand token, the demand token leaving a full city, and the map
    variants' events."""
    name = report.company
    company = state.company(name)
    if report.trains > company.trains_on_field:
        raise _refuse(
            plural(
                "{n} train placed but {company} has {field} on its train field",
                "{n} trains placed but {company} has {field} on its train field",
                "n",
                n=report.trains,
                company=company_name(name),
                field=company.trains_on_field,
            ),
            msg("a track is built only with trains from the company's train field"),
            point(BUILD, 2),
        )
    if report.landscape > report.trains - 1 or (
        not state.harbours and report.landscape != report.trains - 1
    ):
        raise _refuse(
            msg(
                "{landscape} landscape spaces among {trains} trains",
                landscape=report.landscape,
                trains=report.trains,
            ),
            msg("a track runs only through landscape spaces to the city (the last space)"),
            point(BUILD, 3),
        )
    for other, spaces in report.compensated:
        if other == name:
            raise _refuse(
                msg("{company} cannot compensate itself", company=company_name(name)),
                msg("compensation goes to the other companies already on the spaces"),
                point(BUILD, 4),
            )
        if spaces > report.trains:
            raise _refuse(
                msg(
                    "{spaces} spaces shared with {company}, but the track has {trains}",
                    spaces=spaces,
                    company=company_name(other),
                    trains=report.trains,
                ),
                msg("one compensation train per space of the new track"),
                point(BUILD, 4),
            )
    _check_demand(state, report, by_automa)
    if report.golden_spike == "joined" and by_automa:
        report = replace(report, west_company=automa_west_choice(state, report))
    elif report.west_candidates:
        raise _refuse(
            msg("the companies to choose from are for the Mašinfíra; a player names the company"),
            msg("the builder picks the western branch"),
            GOLDEN_SPIKE,
        )
    _check_variant_events(state, report)

    # 3. the trains go from the train field onto the map
    state = state.with_company(
        name, evolve(company, trains_on_field=company.trains_on_field - report.trains)
    )
    # 4. compensation: one train per shared space, up to 5 on the field, as the supply allows
    fields_before = {c: state.company(c).trains_on_field for c in COMPANIES}
    for other, spaces in report.compensated:
        if by_automa and state.level_at >= LEVELS.index("turista") and fields_before[other] >= 2:
            # SOLO_LEVELS, Turista: no compensation for a company with ≥ 2 trains on its
            # field (checked on the field as it was before this build's compensation)
            continue
        state = add_to_field(state, other, spaces)
    # 5. track length
    state = advance_track(state, name, report.landscape)
    # 6. influence from the demand token
    state = _gain_influence(state, player, report, by_automa)
    # 7. a full city's demand token goes back to the box
    if report.city_full and report.demand:
        state = replace(state, demand_tokens_removed=state.demand_tokens_removed + 1)
    return _variant_events(state, report)


def _check_demand(state: MiniExpressState, report: BuildReport, by_automa: bool) -> None:
    demand = report.demand
    if demand.count(WILD) == 2:
        raise _refuse(
            msg("a demand token has at most one wild symbol"), _DEMAND_TOKENS, point(BUILD, 6)
        )
    if WILD in demand and not by_automa:
        printed = next(d for d in demand if d != WILD)
        if report.wild_company is None:
            raise _refuse(
                msg(
                    "the demand token shows {company} and a wild symbol: which other company "
                    "gains 1?",
                    company=company_name(printed),
                ),
                msg("wild symbol: +1 in the printed company, then +1 in any other company"),
                point(BUILD, 6),
            )
        if report.wild_company == printed:
            raise _refuse(
                msg("the wild symbol cannot raise {company} again", company=company_name(printed)),
                msg("wild symbol: +1 in any other company (never the same company twice)"),
                point(BUILD, 6),
            )
    elif report.wild_company is not None and not by_automa:
        raise _refuse(
            msg("a company for the wild symbol was given, but the demand token shows none"),
            msg("wild symbol: +1 in any other company"),
            point(BUILD, 6),
        )
    if report.city_full and not demand:
        # a city without a demand token has nothing to remove; accepted, nothing happens
        return
    if report.city_full and state.demand_tokens_removed >= 32:
        raise _refuse(
            msg("all 32 demand tokens are already back in the box"),
            _DEMAND_TOKENS,
            point(BUILD, 7),
        )


def _gain_influence(
    state: MiniExpressState, player: int, report: BuildReport, by_automa: bool
) -> MiniExpressState:
    """Stavba trati 6.: two different symbols +1/+1, two equal +2, symbol and wild +1 and +1
    elsewhere. The automa gains in all four companies for a wild symbol (Tah Mašinfíry B.iv)."""
    if not report.demand:
        return state
    who = state.players[player]
    if WILD in report.demand:
        if by_automa:
            for c in COMPANIES:
                who = who.with_influence(c, 1)
        else:
            printed = next(d for d in report.demand if d != WILD)
            assert report.wild_company is not None  # checked in _check_demand
            who = who.with_influence(printed, 1).with_influence(report.wild_company, 1)
    else:
        for symbol in report.demand:
            who = who.with_influence(symbol, 1)
    return state.with_player(player, who)


def _check_variant_events(state: MiniExpressState, report: BuildReport) -> None:
    if report.golden_spike is not None:
        if not state.golden_spike:
            raise _refuse(
                msg("this game does not use the Golden Spike variant"),
                msg("the Golden Spike is a variant chosen at setup"),
                GOLDEN_SPIKE,
            )
        expected = {"omaha": "waiting", "san_francisco": "waiting", "joined": "east"}[
            report.golden_spike
        ]
        if state.golden_spike_state != expected:
            raise _refuse(
                msg("this Golden Spike event does not follow the one before it"),
                msg("Omaha first (or San Francisco first, which cancels it), then the join"),
                GOLDEN_SPIKE,
            )
        if report.golden_spike == "joined" and (
            report.west_company is None or report.west_company == state.golden_spike_east
        ):
            raise _refuse(
                msg("name the western branch's company (not the eastern one)"),
                msg("the builder picks a company at the joining space, not the eastern branch"),
                GOLDEN_SPIKE,
            )
    elif report.west_company is not None:
        raise _refuse(
            msg("the western branch's company is named only when the two branches join"),
            msg("Omaha first (or San Francisco first, which cancels it), then the join"),
            GOLDEN_SPIKE,
        )
    if report.harbour:
        if not state.harbours:
            raise _refuse(
                msg("this game does not use the Harbours variant"),
                msg("the Harbours are a variant chosen at setup"),
                HARBOURS,
            )
        if WILD not in report.demand:
            raise _refuse(
                msg("a harbour opens only at a city whose demand token shows the wild symbol"),
                msg("a harbour comes with a wild demand token"),
                HARBOURS,
            )
        printed = next(d for d in report.demand if d != WILD)
        if printed in state.harbours_opened:
            raise _refuse(
                msg("{company} already has a harbour", company=company_name(printed)),
                msg("each company opens at most one harbour (one wild token per company)"),
                HARBOURS,
            )


def automa_west_choice(state: MiniExpressState, report: BuildReport) -> str:
    """Zlatý hřeb, Pozn.: the automa picks the western branch among the companies at the
    joining space: the one it holds most shares of; tied, the one the player(s) hold fewer
    shares of; still tied, the one its company pointer is on, else the next one after it."""
    candidates = [c for c in dict.fromkeys(report.west_candidates) if c != state.golden_spike_east]
    if not candidates:
        raise _refuse(
            msg("list the companies at the joining space (not the eastern branch)"),
            msg("the Mašinfíra picks the western branch by rule"),
            GOLDEN_SPIKE,
        )
    automa_index = state.automa_index
    assert automa_index is not None and state.automa is not None
    pointer = state.automa.company_pointer

    def key(name: str) -> tuple[int, int, int]:
        i = COMPANIES.index(name)
        mine = state.players[automa_index].shares[i]
        theirs = sum(p.shares[i] for p in state.players if not p.is_automa)
        distance = (POINTER_ORDER.index(name) - pointer) % len(POINTER_ORDER)
        return (-mine, theirs, distance)

    choice = min(candidates, key=key)
    if report.west_company is not None and report.west_company != choice:
        raise _refuse(
            msg(
                "the Mašinfíra takes {company} for the western branch, not {named}",
                company=company_name(choice),
                named=company_name(str(report.west_company)),
            ),
            msg(
                "most Mašinfíra shares; then fewer player shares; then the company pointer's order"
            ),
            GOLDEN_SPIKE,
        )
    return choice


def _variant_events(state: MiniExpressState, report: BuildReport) -> MiniExpressState:
    if report.golden_spike == "omaha":
        # Zlatý hřeb 2.–3.: one train of the builder onto the tile (the eastern branch), one of
        # each other company onto San Francisco, as far as the supplies allow
        state, placed = supply_to_map(state, report.company)
        for other in COMPANIES:
            if other != report.company:
                state, _ = supply_to_map(state, other)
        return replace(
            state,
            golden_spike_state="east",
            golden_spike_east=report.company if placed else None,
        )
    if report.golden_spike == "san_francisco":
        # Zlatý hřeb, Pozn.: San Francisco reached before Omaha: the event is off for this game
        return replace(state, golden_spike_state="removed")
    if report.golden_spike == "joined":
        assert report.west_company is not None
        state, placed = supply_to_map(state, report.west_company)
        west = report.west_company if placed else None
        # Zlatý hřeb 3.: both branches' track-length markers move 2 steps at once
        for branch in (state.golden_spike_east, west):
            if branch is not None:
                state = advance_track(state, branch, 2)
        return replace(state, golden_spike_state="done", golden_spike_west=west)
    if report.harbour:
        printed = next(d for d in report.demand if d != WILD)
        state, placed = supply_to_map(state, printed)
        if placed:
            return replace(state, harbours_opened=(*state.harbours_opened, printed))
    return state
