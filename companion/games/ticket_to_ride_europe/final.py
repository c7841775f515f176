"""Final scoring of Ticket to Ride: Europe, pure and itemised.

Rulebook: seed 001 (cs), "POČÍTÁNÍ BODŮ" (final scoring, stations, European Express, tie-breaks)
and "STAVBA NÁDRAŽÍ" (what a station lends). Both searches here are exponential when done
naively; the tricks that keep them exact and fast are explained where they are used.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations, product

from companion.core.scoring import PlayerScore, ScoreLine, ScoreSheet, highest
from companion.games.ticket_to_ride_europe.board import (
    CITY_BY_ID,
    EUROPEAN_EXPRESS_BONUS,
    ROUTE_BY_ID,
    ROUTE_POINTS,
    STATIONS_PER_PLAYER,
    UNUSED_STATION_POINTS,
    RouteSpec,
    TicketSpec,
)

GAME_NAME = "ticket-to-ride-europe"

CATEGORIES: tuple[str, ...] = (
    "routes",
    "tickets_completed",
    "tickets_failed",
    "unused_stations",
    "european_express",
)


def route_ref(route: RouteSpec) -> str:
    """The snapshot notation of a route: ``a-b``, plus ``:colour`` for one of a double pair of
    two colours (the grey double ferries are the same either way)."""
    ref = f"{route.a}-{route.b}"
    if route.partner is not None and ROUTE_BY_ID[route.partner].colour != route.colour:
        ref += f":{route.colour}"
    return ref


def city_name(city: str) -> str:
    return CITY_BY_ID[city].name


@dataclass(frozen=True, slots=True)
class Holding:
    """What one player has on the board at the end: route ids (board ids), station cities and
    the destination tickets kept."""

    name: str
    routes: tuple[str, ...]
    stations: tuple[str, ...]
    tickets: tuple[TicketSpec, ...]


@dataclass(frozen=True, slots=True)
class Borrowed:
    """A station's choice: the opponent route it lends (owner is the player index)."""

    station: str
    route: str
    owner: int


@dataclass(frozen=True, slots=True)
class TicketResult:
    ticket: TicketSpec
    completed: bool
    via: tuple[Borrowed, ...] = ()
    """The borrowed routes this ticket needs (empty when own routes complete it)."""


@dataclass(frozen=True, slots=True)
class TicketOutcome:
    results: tuple[TicketResult, ...]
    choice: tuple[Borrowed, ...]
    """The route each used station lends (stations lending nothing are left out)."""

    @property
    def completed(self) -> int:
        return sum(1 for r in self.results if r.completed)

    @property
    def points(self) -> int:
        return sum(r.ticket.points if r.completed else -r.ticket.points for r in self.results)


# -- union-find ---------------------------------------------------------------------------
def _find(parent: dict[str, str], x: str) -> str:
    root = x
    while parent.get(root, root) != root:
        root = parent[root]
    while parent.get(x, x) != root:  # path compression
        parent[x], x = root, parent[x]
    return root


def _union(parent: dict[str, str], a: str, b: str) -> None:
    ra, rb = _find(parent, a), _find(parent, b)
    if ra != rb:
        parent[ra] = rb


def _own_components(routes: Iterable[RouteSpec]) -> dict[str, str]:
    parent: dict[str, str] = {}
    for r in routes:
        _union(parent, r.a, r.b)
    return parent


# -- tickets with stations ----------------------------------------------------------------
def best_ticket_outcome(
    routes: Sequence[RouteSpec],
    stations: Sequence[str],
    opponent_routes: Sequence[tuple[RouteSpec, int]],
    tickets: Sequence[TicketSpec],
) -> TicketOutcome:
    """Tickets completed and failed, with the stations' loans chosen to maximise the ticket
    total.

    Rule ("POČÍTÁNÍ BODŮ", "STAVBA NÁDRAŽÍ"): each station lends its owner one route of another
    player into or out of its city, the same route for every ticket; the owner chooses at the
    end. Exact search over every choice, made small by two observations: a loan only matters
    through the two own-route components it joins (loans joining the same two components are
    interchangeable, a loan inside one component is useless), and only tickets that own routes
    leave open can change.
    """
    parent = _own_components(routes)
    own_done = [_find(parent, t.a) == _find(parent, t.b) for t in tickets]
    open_tickets = [i for i, done in enumerate(own_done) if not done]

    options: list[list[tuple[Borrowed, str, str] | None]] = []
    for city in stations:
        seen: set[frozenset[str]] = set()
        choices: list[tuple[Borrowed, str, str] | None] = [None]
        for route, owner in sorted(opponent_routes, key=lambda ro: (ro[0].id, ro[1])):
            if city not in (route.a, route.b):
                continue
            ca, cb = _find(parent, route.a), _find(parent, route.b)
            key = frozenset((ca, cb))
            if ca == cb or key in seen:
                continue
            seen.add(key)
            choices.append((Borrowed(city, route.id, owner), ca, cb))
        options.append(choices)

    best_points = -1
    best_choice: tuple[tuple[Borrowed, str, str] | None, ...] = tuple(None for _ in stations)
    best_done: frozenset[int] = frozenset()
    if open_tickets:
        for combo in product(*options):
            loans = [c for c in combo if c is not None]
            merged: dict[str, str] = {}
            for _, ca, cb in loans:
                _union(merged, ca, cb)
            done = frozenset(
                i
                for i in open_tickets
                if _find(merged, _find(parent, tickets[i].a))
                == _find(merged, _find(parent, tickets[i].b))
            )
            gained = sum(tickets[i].points for i in done)
            better = gained > best_points or (
                gained == best_points and len(loans) < sum(1 for c in best_choice if c is not None)
            )
            if better:
                best_points, best_choice, best_done = gained, combo, done
    chosen = [c for c in best_choice if c is not None]

    results: list[TicketResult] = []
    for i, ticket in enumerate(tickets):
        if own_done[i]:
            results.append(TicketResult(ticket, True))
        elif i in best_done:
            results.append(TicketResult(ticket, True, _loans_needed(parent, chosen, ticket)))
        else:
            results.append(TicketResult(ticket, False))
    return TicketOutcome(tuple(results), tuple(c[0] for c in chosen))


def _loans_needed(
    parent: dict[str, str], chosen: Sequence[tuple[Borrowed, str, str]], ticket: TicketSpec
) -> tuple[Borrowed, ...]:
    """The fewest of the chosen loans that complete ``ticket`` (for the score sheet)."""
    for size in range(1, len(chosen) + 1):
        for subset in combinations(chosen, size):
            merged: dict[str, str] = {}
            for _, ca, cb in subset:
                _union(merged, ca, cb)
            if _find(merged, _find(parent, ticket.a)) == _find(merged, _find(parent, ticket.b)):
                return tuple(c[0] for c in subset)
    return tuple(c[0] for c in chosen)  # pragma: no cover - the caller checked it completes


# -- European Express: the longest trail ----------------------------------------------------
def longest_trail(routes: Sequence[RouteSpec]) -> tuple[int, tuple[str, ...]]:
    """The longest continuous path of one player's routes: (length in trains, cities in order).

    Rule ("POČÍTÁNÍ BODŮ"): loops allowed and a city may be passed several times, but no train
    (route) is used twice; stations never count. This is the longest *trail*, found exactly:

    * a longest trail that cannot be extended ends where every route of its end city is used;
      an open trail therefore starts and ends at cities with an odd number of routes, and a
      closed one uses its whole component (an Euler circuit: every city even). So the search
      starts only from odd cities, and an all-even component is simply all its routes;
    * trails that used the same set of routes and stand at the same city continue the same
      way, so each (city, used set) is explored once.
    """
    if not routes:
        return 0, ()
    adjacency: dict[str, list[tuple[int, str, int]]] = {}
    for i, r in enumerate(routes):
        adjacency.setdefault(r.a, []).append((1 << i, r.b, r.length))
        adjacency.setdefault(r.b, []).append((1 << i, r.a, r.length))
    parent = _own_components(routes)
    components: dict[str, list[str]] = {}
    for city in sorted(adjacency):
        components.setdefault(_find(parent, city), []).append(city)

    best_length = 0
    best_path: tuple[str, ...] = ()
    for cities in components.values():
        total = sum(r.length for r in routes if _find(parent, r.a) == _find(parent, cities[0]))
        if total <= best_length:
            continue
        odd = [c for c in cities if len(adjacency[c]) % 2]
        if not odd:
            best_length, best_path = total, _euler_circuit(adjacency, cities[0])
            continue
        length, path = _longest_from(adjacency, odd, total)
        if length > best_length:
            best_length, best_path = length, path
    return best_length, best_path


def _euler_circuit(adjacency: dict[str, list[tuple[int, str, int]]], start: str) -> tuple[str, ...]:
    """Hierholzer's algorithm: the cities of a closed trail using every route once."""
    used = 0
    stack = [start]
    circuit: list[str] = []
    position = {city: 0 for city in adjacency}
    while stack:
        city = stack[-1]
        edges = adjacency[city]
        while position[city] < len(edges) and edges[position[city]][0] & used:
            position[city] += 1
        if position[city] == len(edges):
            circuit.append(stack.pop())
        else:
            bit, other, _ = edges[position[city]]
            used |= bit
            stack.append(other)
    return tuple(reversed(circuit))


def _longest_from(
    adjacency: dict[str, list[tuple[int, str, int]]], starts: Sequence[str], total: int
) -> tuple[int, tuple[str, ...]]:
    best = [0]
    best_path: list[tuple[str, ...]] = [()]
    seen: set[tuple[str, int]] = set()
    path: list[str] = []

    def walk(city: str, used: int, length: int) -> None:
        key = (city, used)
        if key in seen:
            return
        seen.add(key)
        path.append(city)
        if length > best[0]:
            best[0] = length
            best_path[0] = tuple(path)
        if best[0] < total:
            for bit, other, weight in adjacency[city]:
                if not used & bit:
                    walk(other, used | bit, length + weight)
        path.pop()

    for start in starts:
        walk(start, 0, 0)
        if best[0] == total:
            break
    return best[0], best_path[0]


# -- the whole score sheet ------------------------------------------------------------------
def _ticket_note(result: TicketResult, holdings: Sequence[Holding]) -> str:
    t = result.ticket
    text = f"{city_name(t.a)}–{city_name(t.b)}"
    if t.long:
        text += " (long)"
    if not result.completed:
        return text + ": not connected"
    if not result.via:
        return text + ": connected by own routes"
    loans = "; ".join(
        f"station at {city_name(b.station)} borrows {holdings[b.owner].name}'s "
        f"{route_ref(ROUTE_BY_ID[b.route])}"
        for b in result.via
    )
    return f"{text}: connected via {loans}"


def final_sheet(holdings: Sequence[Holding]) -> ScoreSheet:
    """The final score sheet: every category on every player's lines (0 when nothing)."""
    route_owner = [(ROUTE_BY_ID[r], i) for i, h in enumerate(holdings) for r in h.routes]
    trails = [longest_trail([ROUTE_BY_ID[r] for r in h.routes]) for h in holdings]
    longest = max((length for length, _ in trails), default=0)
    rows: list[PlayerScore] = []
    keys: list[tuple[str, tuple[float, ...]]] = []
    for i, h in enumerate(holdings):
        own = [ROUTE_BY_ID[r] for r in h.routes]
        lines: list[ScoreLine] = []
        by_length: dict[int, int] = {}
        for r in own:
            by_length[r.length] = by_length.get(r.length, 0) + 1
        route_note = ", ".join(
            f"{n}× length {length} ({ROUTE_POINTS[length]} each)"
            for length, n in sorted(by_length.items())
        )
        lines.append(
            ScoreLine(
                "routes",
                sum(ROUTE_POINTS[r.length] for r in own),
                route_note or "no routes",
            )
        )
        outcome = best_ticket_outcome(
            own, h.stations, [ro for ro in route_owner if ro[1] != i], h.tickets
        )
        completed = [r for r in outcome.results if r.completed]
        failed = [r for r in outcome.results if not r.completed]
        for t in completed:
            lines.append(ScoreLine("tickets_completed", t.ticket.points, _ticket_note(t, holdings)))
        if not completed:
            lines.append(ScoreLine("tickets_completed", 0, "no ticket completed"))
        for t in failed:
            lines.append(ScoreLine("tickets_failed", -t.ticket.points, _ticket_note(t, holdings)))
        if not failed:
            lines.append(ScoreLine("tickets_failed", 0, "no ticket failed"))
        unused = STATIONS_PER_PLAYER - len(h.stations)
        lines.append(
            ScoreLine(
                "unused_stations",
                UNUSED_STATION_POINTS * unused,
                f"{unused} station(s) not built × {UNUSED_STATION_POINTS}",
            )
        )
        length, path = trails[i]
        has_express = longest > 0 and length == longest
        path_note = " – ".join(city_name(c) for c in path) if path else "no routes"
        lines.append(
            ScoreLine(
                "european_express",
                EUROPEAN_EXPRESS_BONUS if has_express else 0,
                f"longest path {length} trains: {path_note}"
                + ("" if has_express else f" (the longest is {longest})"),
            )
        )
        score = PlayerScore(h.name, tuple(lines))
        rows.append(score)
        # "POČÍTÁNÍ BODŮ": most points, then most completed tickets, then fewest stations
        # built, then the European Express bonus; players still tied all win.
        keys.append((h.name, (score.total, outcome.completed, -len(h.stations), has_express)))
    return ScoreSheet(GAME_NAME, tuple(rows), highest(keys))
