"""The snapshot notation (format 1, docs/formats/ticket-to-ride-europe.md): route, station and
ticket references, and the end-of-game snapshot of the contract, validated with field paths."""

from __future__ import annotations

from collections.abc import Sequence

from companion.core.snapshot import Field
from companion.games.ticket_to_ride_europe.board import (
    CITY_BY_ID,
    ROUTE_BY_ID,
    ROUTES,
    STATIONS_PER_PLAYER,
    TICKETS,
    TRAINS_PER_PLAYER,
    RouteSpec,
    TicketSpec,
)
from companion.games.ticket_to_ride_europe.final import Holding, city_name, route_ref

GAME_NAME = "ticket-to-ride-europe"
FORMAT = 1
MAX_PLAYERS = 5

ROUTES_BY_PAIR: dict[frozenset[str], tuple[RouteSpec, ...]] = {}
for _route in ROUTES:
    _key = frozenset((_route.a, _route.b))
    ROUTES_BY_PAIR[_key] = (*ROUTES_BY_PAIR.get(_key, ()), _route)
TICKET_BY_PAIR: dict[frozenset[str], TicketSpec] = {frozenset((t.a, t.b)): t for t in TICKETS}


def city(field: Field) -> str:
    text = field.str()
    if text not in CITY_BY_ID:
        field.fail(f"unknown city {text!r}")
    return text


def city_pair(field: Field, what: str) -> tuple[str, str]:
    """``<city>-<city>`` (either order)."""
    text = field.str()
    parts = text.split("-")
    if len(parts) != 2 or not all(parts):
        field.fail(f"expected a {what} as <city>-<city>, got {text!r}")
    for part in parts:
        if part not in CITY_BY_ID:
            field.fail(f"unknown city {part!r} in {text!r}")
    if parts[0] == parts[1]:
        field.fail(f"a {what} joins two different cities, got {text!r}")
    return parts[0], parts[1]


def route_candidates(field: Field) -> tuple[RouteSpec, ...]:
    """The routes a reference may mean: one route, or both of a double pair when the colour is
    not given (or both routes have that colour)."""
    text = field.str()
    pair_text, _, colour = text.partition(":")
    a, b = city_pair(Field(pair_text, field.path), "route")
    routes = ROUTES_BY_PAIR.get(frozenset((a, b)))
    if routes is None:
        field.fail(f"unknown route: no route joins {city_name(a)} and {city_name(b)}")
    if colour:
        matching = tuple(r for r in routes if r.colour == colour)
        if not matching:
            colours = " or ".join(r.colour for r in routes)
            field.fail(
                f"no {colour} route joins {city_name(a)} and {city_name(b)}; it is {colours}"
            )
        return matching
    return routes


def ticket(field: Field) -> TicketSpec:
    a, b = city_pair(field, "ticket")
    found = TICKET_BY_PAIR.get(frozenset((a, b)))
    if found is None:
        field.fail(f"there is no ticket {city_name(a)}–{city_name(b)}")
    return found


def assign_routes(
    claims: Sequence[Sequence[tuple[Field, tuple[RouteSpec, ...]]]], names: Sequence[str]
) -> list[list[str]]:
    """Turn every player's route references into distinct board routes (ids), refusing a route
    owned twice, a double pair held by one player, and — with 2–3 players — both routes of a
    pair taken at all ("DVOJITÉ TRATĚ" and its "DŮLEŽITÁ POZNÁMKA")."""
    owner: dict[str, int] = {}
    result: list[list[str | None]] = [[None] * len(refs) for refs in claims]
    # references that name one route first, so "either free one" takes what is left
    ordered = sorted(
        (
            (len(cands) > 1, p, n, f, cands)
            for p, refs in enumerate(claims)
            for n, (f, cands) in enumerate(refs)
        ),
        key=lambda item: item[0],
    )
    for _, player, position, field, candidates in ordered:
        mine = [r for r in candidates if owner.get(r.id) == player]
        partner_mine = [
            r for r in candidates if r.partner is not None and owner.get(r.partner) == player
        ]
        if mine or partner_mine:
            field.fail(
                f"one player cannot own both routes of the double route {route_ref(candidates[0])}"
                if len(ROUTES_BY_PAIR[frozenset((candidates[0].a, candidates[0].b))]) > 1
                else f"route {route_ref(candidates[0])} is listed twice"
            )
        free = [r for r in candidates if r.id not in owner]
        if not free:
            other = names[owner[candidates[0].id]]
            field.fail(f"route {route_ref(candidates[0])} is already owned by {other}")
        chosen = free[0]
        if chosen.partner is not None and chosen.partner in owner and len(claims) <= 3:
            field.fail(
                f"with {len(claims)} players only one route of the double route "
                f"{route_ref(chosen)} may be used"
            )
        owner[chosen.id] = player
        result[player][position] = chosen.id
    return [[r for r in refs if r is not None] for refs in result]


def parse_end_snapshot(data: object) -> list[Holding]:
    """The contract's end-of-game snapshot → one holding per player."""
    doc = Field(data)
    doc.obj()
    doc.only("game", "format", "players", "table")
    if doc.get("game").str() != GAME_NAME:
        doc.get("game").fail(f"expected {GAME_NAME!r}")
    doc.get("format").int(lo=FORMAT, hi=FORMAT)
    return parse_players(doc.get("players"))


def parse_players(players_field: Field) -> list[Holding]:
    players = players_field.list(max_len=MAX_PLAYERS)
    if not players:
        players_field.fail("at least one player")
    names: list[str] = []
    claims: list[list[tuple[Field, tuple[RouteSpec, ...]]]] = []
    station_lists: list[tuple[str, ...]] = []
    ticket_lists: list[tuple[TicketSpec, ...]] = []
    station_owner: dict[str, int] = {}
    ticket_owner: dict[TicketSpec, int] = {}
    for p, player in enumerate(players):
        player.only("name", "routes", "stations", "tickets")
        name = player.get("name").str()
        if not name.strip():
            player.get("name").fail("a player needs a name")
        if name in names:
            player.get("name").fail(f"two players are called {name!r}")
        names.append(name)
        claims.append([(f, route_candidates(f)) for f in player.get("routes", []).list()])
        stations_field = player.get("stations", [])
        stations: list[str] = []
        for f in stations_field.list():
            c = city(f)
            if c in station_owner:
                other = station_owner[c]
                who = "this player" if other == p else names[other]
                f.fail(f"{city_name(c)} already has a station of {who}; one station per city")
            station_owner[c] = p
            stations.append(c)
        if len(stations) > STATIONS_PER_PLAYER:
            stations_field.fail(
                f"{len(stations)} stations; a player has {STATIONS_PER_PLAYER} stations"
            )
        station_lists.append(tuple(stations))
        tickets: list[TicketSpec] = []
        for f in player.get("tickets", []).list():
            t = ticket(f)
            if t in ticket_owner:
                f.fail(f"ticket {t.id} is held twice (also by {names[ticket_owner[t]]})")
            ticket_owner[t] = p
            tickets.append(t)
        ticket_lists.append(tuple(tickets))
    routes = assign_routes(claims, names)
    for p, ids in enumerate(routes):
        trains = sum(ROUTE_BY_ID[r].length for r in ids)
        if trains > TRAINS_PER_PLAYER:
            players[p].get("routes").fail(
                f"{trains} trains placed; a player has only {TRAINS_PER_PLAYER}"
            )
    return [
        Holding(names[p], tuple(routes[p]), station_lists[p], ticket_lists[p])
        for p in range(len(players))
    ]


def holding_to_json(h: Holding) -> dict[str, object]:
    return {
        "name": h.name,
        "routes": [route_ref(ROUTE_BY_ID[r]) for r in h.routes],
        "stations": list(h.stations),
        "tickets": [t.id for t in h.tickets],
    }
