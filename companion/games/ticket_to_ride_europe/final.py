"""Final scoring of Ticket to Ride: Europe, pure and itemised.

Rulebook: "POČÍTÁNÍ BODŮ" (final scoring, stations, Evropský Express bonus, tie-breaks)
and "STAVBA NÁDRAŽÍ" (what a station lends). Both searches here are exponential when done
naively; the tricks that keep them exact and fast are explained where they are used.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations, product

from companion.core.messages import Message, Text, join_texts, msg, plural
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
from companion.games.ticket_to_ride_europe.names import (
    city_name as city_message,
)
from companion.games.ticket_to_ride_europe.names import (
    route_name,
    ticket_name,
)

GAME_NAME = "ticket-to-ride-europe"

CATEGORIES: tuple[str, ...] = (
    "routes",
    "tickets_completed",
    "tickets_failed",
    "unused_stations",
    "european_express",
)
"""The ``trackside score`` contract's category ids (never renamed)."""

LABELS: dict[str, Message] = {
    "routes": msg("Routes", context="score category"),
    "tickets_completed": msg("Destination tickets completed", context="score category"),
    "tickets_failed": msg("Destination tickets not completed", context="score category"),
    "unused_stations": msg("Stations not built", context="score category"),
    # the bonus card's own name ("POČÍTÁNÍ BODŮ": "Evropský Express bonus")
    "european_express": msg("European Express bonus", context="score category"),
}
"""Each category's name for people."""


def route_ref(route: RouteSpec) -> str:
    """The snapshot notation of a route: ``a-b``, plus ``:colour`` for one of a double pair of
    two colours (the grey double ferries are the same either way)."""
    ref = f"{route.a}-{route.b}"
    if route.partner is not None and ROUTE_BY_ID[route.partner].colour != route.colour:
        ref += f":{route.colour}"
    return ref


def city_name(city: str) -> str:
    """The city's name as printed on the board (English; the snapshot notation's errors).
    Players read :func:`companion.games.ticket_to_ride_europe.names.city_name`."""
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

    # the components that matter: ticket ends and station cities; a loan into any other
    # component is a dead end unless two stations can reach it (then it links them)
    ends = {_find(parent, c) for i in open_tickets for c in (tickets[i].a, tickets[i].b)}
    ends |= {_find(parent, c) for c in stations}
    raw: list[list[tuple[Borrowed, str, str]]] = []
    reach_count: dict[str, int] = {}
    for city in stations:
        home = _find(parent, city)
        seen: set[str] = set()
        found: list[tuple[Borrowed, str, str]] = []
        for route, owner in sorted(opponent_routes, key=lambda ro: (ro[0].id, ro[1])):
            if city not in (route.a, route.b):
                continue
            other = _find(parent, route.b if route.a == city else route.a)
            if other == home or other in seen:
                continue
            seen.add(other)
            found.append((Borrowed(city, route.id, owner), home, other))
        for _, _, other in found:
            reach_count[other] = reach_count.get(other, 0) + 1
        raw.append(found)
    options: list[list[tuple[Borrowed, str, str] | None]] = [
        [None, *[c for c in found if c[2] in ends or reach_count[c[2]] > 1]] for found in raw
    ]

    best_points = -1
    best_loans = 0
    best_choice: tuple[tuple[Borrowed, str, str] | None, ...] = tuple(None for _ in stations)
    best_done: tuple[int, ...] = ()
    if open_tickets:
        index: dict[str, int] = {}
        for comp in sorted(ends | {c[2] for found in raw for c in found}):
            index[comp] = len(index)
        pairs = [
            (i, index[_find(parent, tickets[i].a)], index[_find(parent, tickets[i].b)])
            for i in open_tickets
        ]
        for combo in product(*options):
            roots = list(range(len(index)))
            loans = 0
            for choice in combo:
                if choice is None:
                    continue
                loans += 1
                x, y = index[choice[1]], index[choice[2]]
                while roots[x] != x:
                    x = roots[x]
                while roots[y] != y:
                    y = roots[y]
                roots[x] = y
            done: list[int] = []
            gained = 0
            for i, end_a, end_b in pairs:
                x, y = end_a, end_b
                while roots[x] != x:
                    x = roots[x]
                while roots[y] != y:
                    y = roots[y]
                if x == y:
                    done.append(i)
                    gained += tickets[i].points
            if gained > best_points or (gained == best_points and loans < best_loans):
                best_points, best_loans, best_choice, best_done = (
                    gained,
                    loans,
                    combo,
                    tuple(done),
                )
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
@dataclass(frozen=True, slots=True)
class _Edge:
    """A route, or a chain of routes through cities with exactly two routes (contracted)."""

    a: str
    b: str
    length: int
    cities: tuple[str, ...]  # from a to b, both included


def longest_trail(routes: Sequence[RouteSpec]) -> tuple[int, tuple[str, ...]]:
    """The longest continuous path of one player's routes: (length in trains, cities in order).

    Rule ("POČÍTÁNÍ BODŮ"): loops allowed and a city may be passed several times, but no train
    (route) is used twice; stations never count. This is the longest *trail*, found exactly:

    * a longest trail that cannot be extended ends where every route of its end city is used;
      an open trail therefore starts and ends at cities with an odd number of routes, and a
      closed one uses its whole component (an Euler circuit: every city even). So the search
      starts only from odd cities, and an all-even component is simply all its routes;
    * for the same reason a city with exactly two routes is always passed straight through, so
      chains of such cities are walked as one edge;
    * trails that used the same set of routes and stand at the same city continue the same
      way, so each (city, used set) is explored once;
    * a trail leaves at most two cities odd, so at least a set of routes pairing up the other
      odd cities stays unused (a T-join: its least length is a least-cost pairing over
      shortest distances); the search stops as soon as a trail reaches that bound.
    """
    if not routes:
        return 0, ()
    parent = _own_components(routes)
    by_component: dict[str, list[RouteSpec]] = {}
    for r in routes:
        by_component.setdefault(_find(parent, r.a), []).append(r)
    best_length = 0
    best_path: tuple[str, ...] = ()
    for key in sorted(by_component):
        members = by_component[key]
        total = sum(r.length for r in members)
        if total <= best_length:
            continue
        degree: dict[str, int] = {}
        for r in members:
            degree[r.a] = degree.get(r.a, 0) + 1
            degree[r.b] = degree.get(r.b, 0) + 1
        odd = sorted(c for c, d in degree.items() if d % 2)
        edges = [_Edge(r.a, r.b, r.length, (r.a, r.b)) for r in members]
        if not odd:
            best_length, best_path = total, _euler_circuit(edges, min(degree))
            continue
        target = total - _least_cut(edges, odd)
        if target <= best_length:
            continue
        length, path = _longest_from(_contract(edges), odd, target)
        if length > best_length:
            best_length, best_path = length, path
    return best_length, best_path


MAX_ODD_FOR_BOUND = 10


def _least_cut(edges: Sequence[_Edge], odd: Sequence[str]) -> int:
    """A lower bound on the length a trail must leave unused: the least T-join that leaves
    only two of the odd cities odd (0 when there are too many odd cities to pair quickly)."""
    k = len(odd)
    if k <= 2 or k > MAX_ODD_FOR_BOUND:
        return 0
    adjacency: dict[str, list[tuple[str, int]]] = {}
    for e in edges:
        adjacency.setdefault(e.a, []).append((e.b, e.length))
        adjacency.setdefault(e.b, []).append((e.a, e.length))
    distance: list[list[int]] = []
    for source in odd:
        found: dict[str, int] = {source: 0}
        queue = [(0, source)]
        while queue:
            d, here = heapq.heappop(queue)
            if d > found[here]:
                continue
            for other, weight in adjacency[here]:
                if d + weight < found.get(other, d + weight + 1):
                    found[other] = d + weight
                    heapq.heappush(queue, (d + weight, other))
        distance.append([found[t] for t in odd])
    # least-cost perfect pairing of every subset of the odd cities (bitmask DP)
    pairing = [0] * (1 << k)
    for mask in range(1, 1 << k):
        if mask.bit_count() % 2:
            continue
        low = (mask & -mask).bit_length() - 1
        rest = mask & ~(1 << low)
        best = -1
        j_bits = rest
        while j_bits:
            bit = j_bits & -j_bits
            j = bit.bit_length() - 1
            cost = distance[low][j] + pairing[rest & ~bit]
            if best < 0 or cost < best:
                best = cost
            j_bits &= ~bit
        pairing[mask] = best
    full = (1 << k) - 1
    return min(pairing[full & ~(1 << i) & ~(1 << j)] for i in range(k) for j in range(i + 1, k))


def _contract(edges: list[_Edge]) -> list[_Edge]:
    """Merge the two routes of every city that has exactly two (never a start or an end)."""
    while True:
        incident: dict[str, list[int]] = {}
        for i, e in enumerate(edges):
            incident.setdefault(e.a, []).append(i)
            if e.b != e.a:
                incident.setdefault(e.b, []).append(i)
        through = next(
            (
                c
                for c in sorted(incident)
                if len(incident[c]) == 2 and all(edges[i].a != edges[i].b for i in incident[c])
            ),
            None,
        )
        if through is None:
            return edges
        i, j = incident[through]
        first, second = edges[i], edges[j]
        left = first if first.b == through else _reverse(first)
        right = second if second.a == through else _reverse(second)
        merged = _Edge(left.a, right.b, left.length + right.length, left.cities + right.cities[1:])
        edges = [e for k, e in enumerate(edges) if k not in (i, j)] + [merged]


def _reverse(e: _Edge) -> _Edge:
    return _Edge(e.b, e.a, e.length, tuple(reversed(e.cities)))


def _euler_circuit(edges: Sequence[_Edge], start: str) -> tuple[str, ...]:
    """Hierholzer's algorithm: the cities of a closed trail using every route once."""
    adjacency: dict[str, list[tuple[int, str]]] = {}
    for i, e in enumerate(edges):
        adjacency.setdefault(e.a, []).append((i, e.b))
        adjacency.setdefault(e.b, []).append((i, e.a))
    used: set[int] = set()
    stack = [start]
    circuit: list[str] = []
    position = dict.fromkeys(adjacency, 0)
    while stack:
        city = stack[-1]
        incident = adjacency[city]
        while position[city] < len(incident) and incident[position[city]][0] in used:
            position[city] += 1
        if position[city] == len(incident):
            circuit.append(stack.pop())
        else:
            edge, other = incident[position[city]]
            used.add(edge)
            stack.append(other)
    return tuple(reversed(circuit))


def _longest_from(
    edges: Sequence[_Edge], starts: Sequence[str], total: int
) -> tuple[int, tuple[str, ...]]:
    adjacency: dict[str, list[tuple[int, int, str, int]]] = {}
    for i, e in enumerate(edges):
        adjacency.setdefault(e.a, []).append((1 << i, i, e.b, e.length))
        if e.b != e.a:
            adjacency.setdefault(e.b, []).append((1 << i, i, e.a, e.length))
    best = [0]
    best_trail: list[tuple[str, tuple[int, ...]]] = [(starts[0], ())]
    seen: set[tuple[str, int]] = set()
    trail: list[int] = []

    def walk(start: str, city: str, used: int, length: int) -> None:
        key = (city, used)
        if key in seen:
            return
        seen.add(key)
        if length > best[0]:
            best[0] = length
            best_trail[0] = (start, tuple(trail))
        if best[0] >= total:
            return
        for bit, index, other, weight in adjacency[city]:
            if not used & bit:
                trail.append(index)
                walk(start, other, used | bit, length + weight)
                trail.pop()

    for start in starts:
        walk(start, start, 0, 0)
        if best[0] >= total:
            break
    start, indices = best_trail[0]
    cities = [start]
    for index in indices:
        e = edges[index]
        step = e.cities if e.a == cities[-1] else tuple(reversed(e.cities))
        cities.extend(step[1:])
    return best[0], tuple(cities)


# -- the whole score sheet ------------------------------------------------------------------
def _ticket_note(result: TicketResult) -> Message:
    """The short line: the ticket's cities ("Berlin – Roma", "… (long)")."""
    t = result.ticket
    if t.long:
        return msg("{ticket} (long)", ticket=ticket_name(t))
    return ticket_name(t)


def _ticket_detail(result: TicketResult, holdings: Sequence[Holding]) -> Message:
    """The long line: how the ticket was connected, or that it was not."""
    t = result.ticket
    points = t.points
    if not result.completed:
        return plural(
            "{ticket}: the two cities are not connected; {n} point is taken off.",
            "{ticket}: the two cities are not connected; {n} points are taken off.",
            "n",
            ticket=ticket_name(t),
            n=points,
        )
    if not result.via:
        return plural(
            "{ticket}: connected by own routes, {n} point.",
            "{ticket}: connected by own routes, {n} points.",
            "n",
            ticket=ticket_name(t),
            n=points,
        )
    loans: list[Text] = [
        msg(
            "the station in {city} borrows {player}'s route {route}",
            city=city_message(b.station),
            player=holdings[b.owner].name,
            route=route_name(b.route),
        )
        for b in result.via
    ]
    return plural(
        "{ticket}: connected where {loans}, {n} point.",
        "{ticket}: connected where {loans}, {n} points.",
        "n",
        ticket=ticket_name(t),
        loans=join_texts(loans, "; "),
        n=points,
    )


def _routes_lines(own: Sequence[RouteSpec]) -> ScoreLine:
    by_length: dict[int, int] = {}
    for r in own:
        by_length[r.length] = by_length.get(r.length, 0) + 1
    parts: list[Text] = [
        plural(
            "{n} route of length {length} ({each})",
            "{n} routes of length {length} ({each})",
            "n",
            n=n,
            length=length,
            # the points per route agree with their own number ("po 1 bodu", "po 2 bodech")
            each=plural(
                "{points} point each",
                "{points} points each",
                "points",
                points=ROUTE_POINTS[length],
            ),
        )
        for length, n in sorted(by_length.items())
    ]
    note = (
        plural(
            "{n} route, {trains} trains",
            "{n} routes, {trains} trains",
            "n",
            n=len(own),
            trains=sum(r.length for r in own),
        )
        if own
        else msg("no routes")
    )
    detail: Text = (
        msg("{parts}.", parts=join_texts(parts, ", ")) if parts else msg("No route was claimed.")
    )
    return ScoreLine(
        "routes",
        sum(ROUTE_POINTS[r.length] for r in own),
        note,
        label=LABELS["routes"],
        detail=detail,
    )


def final_sheet(holdings: Sequence[Holding]) -> ScoreSheet:
    """The final score sheet: every category on every player's lines (0 when nothing)."""
    route_owner = [(ROUTE_BY_ID[r], i) for i, h in enumerate(holdings) for r in h.routes]
    trails = [longest_trail([ROUTE_BY_ID[r] for r in h.routes]) for h in holdings]
    longest = max((length for length, _ in trails), default=0)
    rows: list[PlayerScore] = []
    keys: list[tuple[str, tuple[float, ...]]] = []
    for i, h in enumerate(holdings):
        own = [ROUTE_BY_ID[r] for r in h.routes]
        lines: list[ScoreLine] = [_routes_lines(own)]
        outcome = best_ticket_outcome(
            own, h.stations, [ro for ro in route_owner if ro[1] != i], h.tickets
        )
        completed = [r for r in outcome.results if r.completed]
        failed = [r for r in outcome.results if not r.completed]
        for t in completed:
            lines.append(
                ScoreLine(
                    "tickets_completed",
                    t.ticket.points,
                    _ticket_note(t),
                    label=LABELS["tickets_completed"],
                    detail=_ticket_detail(t, holdings),
                )
            )
        if not completed:
            lines.append(
                ScoreLine(
                    "tickets_completed",
                    0,
                    msg("no ticket completed"),
                    label=LABELS["tickets_completed"],
                    detail=msg("No destination ticket was completed."),
                )
            )
        for t in failed:
            lines.append(
                ScoreLine(
                    "tickets_failed",
                    -t.ticket.points,
                    _ticket_note(t),
                    label=LABELS["tickets_failed"],
                    detail=_ticket_detail(t, holdings),
                )
            )
        if not failed:
            lines.append(
                ScoreLine(
                    "tickets_failed",
                    0,
                    msg("every ticket completed"),
                    label=LABELS["tickets_failed"],
                    detail=msg("Every destination ticket kept was completed."),
                )
            )
        unused = STATIONS_PER_PLAYER - len(h.stations)
        lines.append(
            ScoreLine(
                "unused_stations",
                UNUSED_STATION_POINTS * unused,
                plural(
                    "{n} station not built × {points}",
                    "{n} stations not built × {points}",
                    "n",
                    n=unused,
                    points=UNUSED_STATION_POINTS,
                ),
                label=LABELS["unused_stations"],
                detail=plural(
                    "{points} points for each station not built: {n} station.",
                    "{points} points for each station not built: {n} stations.",
                    "n",
                    n=unused,
                    points=UNUSED_STATION_POINTS,
                ),
            )
        )
        lines.append(_express_line(trails[i], longest))
        has_express = longest > 0 and trails[i][0] == longest
        score = PlayerScore(h.name, tuple(lines))
        rows.append(score)
        # "POČÍTÁNÍ BODŮ": most points, then most completed tickets, then fewest stations
        # built, then the European Express bonus; players still tied all win.
        keys.append((h.name, (score.total, outcome.completed, -len(h.stations), has_express)))
    return ScoreSheet(GAME_NAME, tuple(rows), highest(keys))


def _express_line(trail: tuple[int, tuple[str, ...]], longest: int) -> ScoreLine:
    """ "POČÍTÁNÍ BODŮ": the Evropský Express bonus for the longest continuous route."""
    length, path = trail
    has_express = longest > 0 and length == longest
    note = plural(
        "longest route {n} train",
        "longest route {n} trains",
        "n",
        n=length,
    )
    cities: list[Text] = [city_message(c) for c in path]
    if not path:
        detail: Message = msg("No routes, so no continuous route.")
    elif has_express:
        detail = plural(
            "The longest continuous route, {n} train: {path}.",
            "The longest continuous route, {n} trains: {path}.",
            "n",
            n=length,
            path=join_texts(cities, " – "),
        )
    else:
        detail = plural(
            "Longest continuous route {n} train: {path}; the longest on the board has {longest}.",
            "Longest continuous route {n} trains: {path}; the longest on the board has {longest}.",
            "n",
            n=length,
            path=join_texts(cities, " – "),
            longest=longest,
        )
    return ScoreLine(
        "european_express",
        EUROPEAN_EXPRESS_BONUS if has_express else 0,
        note,
        label=LABELS["european_express"],
        detail=detail,
    )
