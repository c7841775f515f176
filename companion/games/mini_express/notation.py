"""The Mini Express table notation (docs/formats/mini-express.md), format 1.

The full table snapshot is a superset of the scoring contract
(``shared/contracts/mini-express.md``): the contract's fields mean the same in both.
"""

from __future__ import annotations

from typing import Any

from companion.core.errors import SnapshotError
from companion.core.jsonvalue import JsonObject, JsonValue
from companion.core.problems import Problem
from companion.core.snapshot import Field
from companion.games.mini_express.board_table import ShareValueTable
from companion.games.mini_express.data import (
    AUTOMA_NAME,
    AUTOMA_TOKENS_REGULAR,
    COMPANIES,
    DEMAND_TOKENS,
    MAPS,
    POINTER_ORDER,
    SHARE_SPLIT,
    SHARES_PER_COMPANY,
    SOLO,
    TRACK_LENGTH_MAX,
    TRAIN_FIELD_MAX,
    TRAINS_ON_MAP_AT_START,
    TRAINS_PER_COMPANY,
    TWO_EXPERIENCED_VARIANT,
    TWO_PLAYER_AUTOMA,
)
from companion.games.mini_express.scoring import NAME, Holding
from companion.games.mini_express.setup import HUMANS, Variant, parse_variant
from companion.games.mini_express.state import (
    PHASES,
    Automa,
    Company,
    MiniExpressState,
    Player,
    Token,
)

FORMAT = 1
INFLUENCE_MAX = 99
"""The influence track's printed end is not public; this only catches typos."""

SPIKE_STATES = ("", "waiting", "east", "done", "removed")

CONTRACT_FIELDS = ("game", "format", "variant", "share_values", "companies", "players")


def _header(doc: Field) -> Variant:
    if doc.get("game").str() != NAME:
        doc.get("game").fail(f"expected {NAME!r}")
    doc.get("format").int(lo=FORMAT, hi=FORMAT)
    return parse_variant(doc.get("variant"))


def _per_company(field: Field, lo: int, hi: int) -> tuple[int, ...]:
    field.only(*COMPANIES)
    return tuple(field.get(c).int(lo=lo, hi=hi) for c in COMPANIES)


def _check_players(doc: Field, variant: Variant, names: list[str], seats: list[int]) -> None:
    players = doc.get("players")
    lo, hi = HUMANS[variant.name]
    automa = 1 if variant.has_automa else 0
    if not lo + automa <= len(names) <= hi + automa:
        players.fail(
            f"{variant.label} is scored for {lo + automa}–{hi + automa} players"
            + (f" (the automa, named {AUTOMA_NAME!r}, included)" if automa else "")
            + f", got {len(names)} (influence ranks need every player)"
        )
    if len(set(names)) != len(names):
        players.fail(f"player names must differ, got {names!r}")
    if variant.has_automa and AUTOMA_NAME not in names:
        players.fail(f"{variant.label} needs the automa as a player named {AUTOMA_NAME!r}")
    if not variant.has_automa and AUTOMA_NAME in names:
        players.fail(f"{variant.label} has no automa; {AUTOMA_NAME!r} is reserved for it")
    if sorted(seats) != list(range(len(names))):
        players.fail(f"seat_from_start must be 0–{len(names) - 1}, once each; got {seats!r}")


def shares_in_play(variant: Variant, humans: int) -> int:
    """Shares of each company in the game for this variant and number of human players: those
    on the asset board plus those set aside for the draft; the rest went back to the box
    (PŘÍPRAVA HRY 2.–3.: "ve hře 3 hráčů odložte stranou pouze 2 akcie … třetí akcii … vraťte
    zpět do krabice" → 8; HRA PRO 2 HRÁČE (s Mašinfírou) → 8; HRA PRO 2 ZKUŠENÉ HRÁČE and
    SÓLOVÁ HRA → 7; 4–5 players → 9)."""
    on_board, set_aside, _box = SHARE_SPLIT.get((variant.name, humans), (SHARES_PER_COMPANY, 0, 0))
    return on_board + set_aside


def _check_shares_in_play(
    doc: Field, variant: Variant, humans: int, held: list[int], on_table: list[int] | None = None
) -> None:
    """Refuse a snapshot with more shares of a company than the variant puts in the game."""
    limit = shares_in_play(variant, humans)
    for i, c in enumerate(COMPANIES):
        total = held[i] + (0 if on_table is None else on_table[i])
        if total > limit:
            where = "held by the players" + ("" if on_table is None else " and on the board")
            doc.get("players" if on_table is None else "companies").fail(
                f"{total} {c} shares {where}; {variant.label} with {humans} player(s) has "
                f"{limit} of each company (the rest go back to the box, PŘÍPRAVA HRY 2.–3.)"
            )


def parse_scoring_snapshot(
    doc: Field,
) -> tuple[str, str | None, ShareValueTable, list[int], list[Holding]]:
    """The contract's final-scoring snapshot: variant, table, track lengths, holdings."""
    doc.only(*CONTRACT_FIELDS)
    variant = _header(doc)
    table = ShareValueTable.parse(doc.get("share_values"))
    companies = doc.get("companies")
    companies.only(*COMPANIES)
    lengths = []
    for c in COMPANIES:
        entry = companies.get(c)
        entry.only("track_length")
        lengths.append(entry.get("track_length").int(lo=0, hi=TRACK_LENGTH_MAX))
    holdings = []
    for p in doc.get("players").list():
        p.only("name", "seat_from_start", "shares", "influence")
        name = p.get("name").str()
        holdings.append(
            Holding(
                name=name,
                seat_from_start=p.get("seat_from_start").int(lo=0, hi=5),
                shares=_per_company(p.get("shares"), 0, SHARES_PER_COMPANY),
                influence=_per_company(p.get("influence"), 0, INFLUENCE_MAX),
                is_automa=variant.has_automa and name == AUTOMA_NAME,
            )
        )
    _check_players(doc, variant, [h.name for h in holdings], [h.seat_from_start for h in holdings])
    if variant.has_automa:
        # HRA PRO 2 HRÁČE (s Mašinfírou) / SÓLOVÁ HRA: the automa plays last (the player to the
        # start player's right), so it sits last from the start player
        automa = next(h for h in holdings if h.is_automa)
        if automa.seat_from_start != len(holdings) - 1:
            doc.get("players").fail(
                f"the automa plays last (seat_from_start {len(holdings) - 1}), "
                f"not {automa.seat_from_start}"
            )
    humans = len(holdings) - (1 if variant.has_automa else 0)
    _check_shares_in_play(
        doc, variant, humans, [sum(h.shares[i] for h in holdings) for i in range(len(COMPANIES))]
    )
    return variant.name, variant.level, table, lengths, holdings


# -- the full table snapshot -------------------------------------------------------------------
def to_json(state: MiniExpressState) -> JsonObject:
    variant = Variant(state.variant, state.level)
    automa: JsonValue = None
    if state.automa is not None:
        automa = {
            "company_pointer": POINTER_ORDER[state.automa.company_pointer],
            "city_number": state.automa.city_number,
            "drawn": [{"city": t.city, "company": t.company} for t in state.automa.drawn],
            "refresh_in_bag": state.automa.refresh_in_bag,
        }
    return {
        "game": NAME,
        "format": FORMAT,
        "variant": variant.label,
        "map": state.map,
        "golden_spike": (
            None
            if not state.golden_spike
            else {
                "state": state.golden_spike_state,
                "east": state.golden_spike_east,
                "west": state.golden_spike_west,
            }
        ),
        "harbours": None if not state.harbours else {"opened": list(state.harbours_opened)},
        "share_values": state.share_values.to_json(),
        "companies": {
            name: {
                "track_length": c.track_length,
                "shares_on_board": c.shares_on_board,
                "shares_set_aside": c.shares_set_aside,
                "trains_on_field": c.trains_on_field,
                "trains_in_supply": c.trains_in_supply,
                "exhausted": c.exhausted,
            }
            for name, c in zip(COMPANIES, state.companies, strict=True)
        },
        "players": [
            {
                "name": p.name,
                "seat_from_start": state.seat_from_start(i),
                "shares": dict(zip(COMPANIES, p.shares, strict=True)),
                "influence": dict(zip(COMPANIES, p.influence, strict=True)),
            }
            for i, p in enumerate(state.players)
        ],
        "phase": state.phase,
        "draft_picks": [{"player": p, "company": c} for p, c in state.draft_picks],
        "turns_taken": state.turns_taken,
        "actions_this_turn": list(state.actions_this_turn),
        "end_triggered_at": state.end_triggered_at,
        "ended_reason": state.ended_reason,
        "automa": automa,
        "demand_tokens_removed": state.demand_tokens_removed,
    }


STATE_FIELDS = (
    *CONTRACT_FIELDS,
    "map",
    "golden_spike",
    "harbours",
    "phase",
    "draft_picks",
    "turns_taken",
    "actions_this_turn",
    "end_triggered_at",
    "ended_reason",
    "automa",
    "demand_tokens_removed",
)


def from_json(data: Any) -> MiniExpressState:
    doc = Field(data)
    doc.only(*STATE_FIELDS)
    variant = _header(doc)
    game_map = doc.get("map").str(MAPS)
    table = ShareValueTable.parse(doc.get("share_values"))
    companies_field = doc.get("companies")
    companies_field.only(*COMPANIES)
    companies = []
    for name in COMPANIES:
        c = companies_field.get(name)
        c.only(
            "track_length", "shares_on_board", "shares_set_aside", "trains_on_field",
            "trains_in_supply", "exhausted",
        )  # fmt: skip
        companies.append(
            Company(
                shares_on_board=c.get("shares_on_board").int(lo=0, hi=SHARES_PER_COMPANY),
                shares_set_aside=c.get("shares_set_aside").int(lo=0, hi=SHARES_PER_COMPANY),
                trains_on_field=c.get("trains_on_field").int(lo=0, hi=TRAIN_FIELD_MAX),
                trains_in_supply=c.get("trains_in_supply").int(lo=0, hi=TRAINS_PER_COMPANY),
                track_length=c.get("track_length").int(lo=0, hi=TRACK_LENGTH_MAX),
                exhausted=c.get("exhausted").bool(),
            )
        )
    players, seats = [], []
    for p in doc.get("players").list(max_len=6):
        p.only("name", "seat_from_start", "shares", "influence")
        name = p.get("name").str()
        seats.append(p.get("seat_from_start").int(lo=0, hi=5))
        players.append(
            Player(
                name=name,
                shares=_per_company(p.get("shares"), 0, SHARES_PER_COMPANY),
                influence=_per_company(p.get("influence"), 0, INFLUENCE_MAX),
                is_automa=variant.has_automa and name == AUTOMA_NAME,
            )
        )
    names = [p.name for p in players]
    _check_players(doc, variant, names, seats)
    start = seats.index(0)
    for i, seat in enumerate(seats):
        if seat != (i - start) % len(seats):
            raise SnapshotError(
                f"players[{i}].seat_from_start",
                f"players are listed clockwise, so this is {(i - start) % len(seats)}",
            )
    if variant.has_automa and (start != 0 or not players[-1].is_automa):
        doc.get("players").fail(
            "with the automa, the start player is listed first and the automa last"
        )
    _check_shares_in_play(
        doc,
        variant,
        len(players) - (1 if variant.has_automa else 0),
        [sum(p.shares[i] for p in players) for i in range(len(COMPANIES))],
        [c.shares_on_board + c.shares_set_aside for c in companies],
    )
    n = len(players)
    picks = []
    for pick in doc.get("draft_picks").list():
        pick.only("player", "company")
        picks.append((pick.get("player").int(lo=0, hi=n - 1), pick.get("company").str(COMPANIES)))
    end = doc.get("end_triggered_at")
    automa = _automa_from_json(doc.get("automa"), variant)
    spike, spike_state, east, west = doc.get("golden_spike"), "", None, None
    if spike.value is not None:
        spike.only("state", "east", "west")
        spike_state = spike.get("state").str(SPIKE_STATES[1:])
        east = _optional_company(spike.get("east"))
        west = _optional_company(spike.get("west"))
    harbours = doc.get("harbours")
    opened: tuple[str, ...] = ()
    if harbours.value is not None:
        harbours.only("opened")
        opened = tuple(c.str(COMPANIES) for c in harbours.get("opened").list(max_len=4))
    return MiniExpressState(
        variant=variant.name,
        level=variant.level,
        map=game_map,
        golden_spike=spike.value is not None,
        harbours=harbours.value is not None,
        share_values=table,
        companies=tuple(companies),
        players=tuple(players),
        start_player=start,
        phase=doc.get("phase").str(PHASES),
        draft_picks=tuple(picks),
        turns_taken=doc.get("turns_taken").int(lo=0),
        actions_this_turn=tuple(
            a.str(COMPANIES) for a in doc.get("actions_this_turn").list(max_len=1)
        ),
        end_triggered_at=None if end.value is None else end.int(lo=0),
        ended_reason=doc.get("ended_reason").str(),
        automa=automa,
        demand_tokens_removed=doc.get("demand_tokens_removed").int(lo=0, hi=DEMAND_TOKENS),
        golden_spike_east=east,
        golden_spike_west=west,
        golden_spike_state=spike_state,
        harbours_opened=opened,
    )


def _optional_company(field: Field) -> str | None:
    return None if field.value is None else field.str(COMPANIES)


def _automa_from_json(field: Field, variant: Variant) -> Automa | None:
    if field.value is None:
        if variant.has_automa:
            field.fail(f"{variant.label} has an automa")
        return None
    if not variant.has_automa:
        field.fail(f"{variant.label} has no automa")
    field.only("company_pointer", "city_number", "drawn", "refresh_in_bag")
    city = field.get("city_number")
    return Automa(
        company_pointer=POINTER_ORDER.index(field.get("company_pointer").str(POINTER_ORDER)),
        city_number=None if city.value is None else city.int(lo=1, hi=99),
        drawn=tuple(
            Token(d.get("city").int(lo=0, hi=9), d.get("company").int(lo=0, hi=9))
            for d in field.get("drawn").list(max_len=AUTOMA_TOKENS_REGULAR)
        ),
        refresh_in_bag=field.get("refresh_in_bag").bool(),
    )


# -- what cannot be --------------------------------------------------------------------------
def problems(state: MiniExpressState) -> tuple[Problem, ...]:
    """Everything impossible about the table: trains and shares that do not add up, counters
    beyond their tracks, exhaustion that does not match the asset board."""
    found: list[Problem] = []
    for i, (name, c) in enumerate(zip(COMPANIES, state.companies, strict=True)):
        where = f"companies.{name}"
        if c.trains_on_map < TRAINS_ON_MAP_AT_START:
            # one train always stands on the start location (setup step 4)
            found.append(
                Problem(
                    "trains_overflow",
                    f"field {c.trains_on_field} + supply {c.trains_in_supply}: more trains than "
                    f"the {TRAINS_PER_COMPANY} of the game, one of them on the start location",
                    where,
                )
            )
        held = sum(p.shares[i] for p in state.players)
        if held + c.shares_on_board + c.shares_set_aside > SHARES_PER_COMPANY:
            found.append(
                Problem("shares_overflow", f"more than {SHARES_PER_COMPANY} shares in play", where)
            )
        if c.shares_on_board == 0 and not c.exhausted and state.phase != "draft":
            found.append(
                Problem("not_exhausted", "no share left on the board, so it is exhausted", where)
            )
        if c.trains_in_supply == 0 and not c.exhausted:
            found.append(
                Problem("not_exhausted", "no train left in the supply, so it is exhausted", where)
            )
        if c.exhausted and c.shares_on_board > 0:
            found.append(
                Problem("exhausted_with_shares", "an exhausted company has no share left", where)
            )
    if state.variant == TWO_EXPERIENCED_VARIANT:
        if state.exhausted_count >= 1 and state.phase != "over":
            found.append(
                Problem("not_over", "a company is exhausted, so the game is over", "phase")
            )
    elif state.exhausted_count >= 2 and state.end_triggered_at is None:
        found.append(
            Problem("end_not_triggered", "two companies are exhausted", "end_triggered_at")
        )
    if state.variant in (SOLO, TWO_PLAYER_AUTOMA) and state.automa is None:
        found.append(Problem("no_automa", "this variant plays with the automa", "automa"))
    if state.variant == TWO_EXPERIENCED_VARIANT and len(state.players) != 2:
        found.append(Problem("players", "2 experienced players", "players"))
    return tuple(found)
