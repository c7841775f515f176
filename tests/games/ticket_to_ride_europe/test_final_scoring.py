"""Final scoring (rulebook seed 001, "POČÍTÁNÍ BODŮ" and "STAVBA NÁDRAŽÍ") through the contract
snapshot, with randomised end states checked against a deliberately simple brute force."""

from __future__ import annotations

import random
from itertools import pairwise, product
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.core import SnapshotError
from companion.core.i18n import translations
from companion.core.messages import render_text
from companion.games.ticket_to_ride_europe.board import (
    ROUTE_BY_ID,
    ROUTE_POINTS,
    ROUTES,
    TICKETS,
    RouteSpec,
    TicketSpec,
)
from companion.games.ticket_to_ride_europe.final import (
    Holding,
    best_ticket_outcome,
    final_sheet,
    longest_trail,
    route_ref,
)
from companion.games.ticket_to_ride_europe.notation import parse_end_snapshot
from companion.games.ticket_to_ride_europe.rules import GAME as GAME_RULES

GAME = "ticket-to-ride-europe"


def snapshot(*players: dict[str, Any]) -> dict[str, Any]:
    return {"game": GAME, "format": 1, "players": list(players)}


def player(name: str, routes: list[str], stations: list[str], tickets: list[str]) -> dict[str, Any]:
    return {"name": name, "routes": routes, "stations": stations, "tickets": tickets}


def lines(sheet_json: dict[str, Any], name: str) -> list[dict[str, Any]]:
    for p in sheet_json["players"]:
        if p["name"] == name:
            return list(p["lines"])
    raise KeyError(name)


def points(sheet_json: dict[str, Any], name: str, category: str) -> int:
    return sum(line["points"] for line in lines(sheet_json, name) if line["category"] == category)


def score(data: dict[str, Any]) -> dict[str, Any]:
    """What `trackside score` prints for a snapshot."""
    return GAME_RULES.score_snapshot(data).to_json()


# -- the contract's own example ---------------------------------------------------------------
def test_the_contract_example_scores_every_category() -> None:
    sheet = score(
        snapshot(
            player(
                "Red",
                ["paris-bruxelles:red", "bruxelles-amsterdam", "amsterdam-essen"],
                ["frankfurt"],
                ["paris-wien", "amsterdam-pamplona"],
            )
        )
    )
    red = lines(sheet, "Red")
    assert {line["category"] for line in red} == {
        "routes",
        "tickets_completed",
        "tickets_failed",
        "unused_stations",
        "european_express",
    }
    assert points(sheet, "Red", "routes") == 2 + 1 + 4
    assert points(sheet, "Red", "tickets_completed") == 0
    assert points(sheet, "Red", "tickets_failed") == -8 - 7
    assert points(sheet, "Red", "unused_stations") == 8
    assert points(sheet, "Red", "european_express") == 10
    express = next(line for line in red if line["category"] == "european_express")
    assert express["note"] == "longest route 6 trains"
    assert "Essen – Amsterdam – Bruxelles – Paris" in render_text(express["detail"])
    assert render_text(express["label"]) == "European Express bonus"
    # the same line for a Czech table: the rulebook's name of the bonus, the cities in Czech
    cs = translations("cs")
    assert render_text(express["label"], cs) == "Evropský Express bonus"
    assert "Essen – Amsterdam – Brusel – Paříž" in render_text(express["detail"], cs)
    assert sheet["winners"] == ["Red"]


def test_route_points_follow_the_table_for_every_length() -> None:
    # lengths 1, 2, 3, 4, 6, 8 → 1, 2, 4, 7, 15, 21
    routes = ["amsterdam-bruxelles", "berlin-essen", "amsterdam-essen", "berlin-danzig"]
    routes += ["budapest-kyiv", "petrograd-stockholm"]
    sheet = score(snapshot(player("Red", routes, [], [])))
    assert points(sheet, "Red", "routes") == 1 + 2 + 4 + 7 + 15 + 21


# -- stations ---------------------------------------------------------------------------------
STATION_TABLE = (
    player(
        "Red",
        ["essen-kobenhavn", "amsterdam-bruxelles", "amsterdam-essen", "berlin-danzig"],
        ["essen"],
        ["frankfurt-kobenhavn", "bruxelles-danzig"],
    ),
    player("Blue", ["essen-frankfurt", "berlin-essen"], [], []),
)


def test_one_station_lends_one_route_for_every_ticket_and_the_better_choice_is_taken() -> None:
    # Red's station in Essen may borrow Blue's Essen–Frankfurt (completes Frankfurt–København,
    # 5) or Blue's Berlin–Essen (completes Bruxelles–Danzig, 9), never both: 9 is chosen.
    sheet = score(snapshot(*STATION_TABLE))
    assert points(sheet, "Red", "tickets_completed") == 9
    assert points(sheet, "Red", "tickets_failed") == -5
    done = next(line for line in lines(sheet, "Red") if line["category"] == "tickets_completed")
    assert done["note"] == "Bruxelles – Danzig"
    assert "the station in Essen borrows Blue's route Berlin – Essen (blue)" in render_text(
        done["detail"]
    )
    assert points(sheet, "Red", "unused_stations") == 8


def test_a_second_station_lends_a_second_route() -> None:
    red = dict(STATION_TABLE[0], stations=["essen", "frankfurt"])
    sheet = score(snapshot(red, STATION_TABLE[1]))
    assert points(sheet, "Red", "tickets_completed") == 9 + 5
    assert points(sheet, "Red", "tickets_failed") == 0
    assert points(sheet, "Red", "unused_stations") == 4


def test_a_station_never_lends_the_owners_own_or_unclaimed_routes() -> None:
    # without Blue's routes the station in Essen has nothing to lend
    sheet = score(snapshot(STATION_TABLE[0], player("Blue", [], [], [])))
    assert points(sheet, "Red", "tickets_completed") == 0
    assert points(sheet, "Red", "tickets_failed") == -14


# -- European Express -------------------------------------------------------------------------
def test_the_longest_path_may_loop_and_pass_a_city_twice_but_never_reuse_a_route() -> None:
    # Essen–Frankfurt 2, Berlin–Essen 2, Berlin–Frankfurt 3, Berlin–Danzig 4, Frankfurt–München 2:
    # Danzig–Berlin–Essen–Frankfurt–Berlin = 4 + 2 + 2 + 3 = 11 passes Berlin twice around the
    # loop; München–Frankfurt (2) cannot be added without walking a route twice.
    routes = [
        ROUTE_BY_ID[r]
        for r in (
            "essen-frankfurt",
            "berlin-essen",
            "berlin-frankfurt-1",
            "berlin-danzig",
            "frankfurt-munchen",
        )
    ]
    length, path = longest_trail(routes)
    assert length == 11
    assert path[0] == "danzig" or path[-1] == "danzig"
    assert path.count("berlin") == 2
    assert_trail(routes, path, length)


def test_a_loop_hanging_off_one_city_is_walked_round_and_back() -> None:
    # Essen and Frankfurt have two routes each: the loop Berlin–Essen–Frankfurt–Berlin hangs
    # off Berlin, and the trail from Danzig walks it: 4 + 2 + 2 + 3 = 11.
    routes = [
        ROUTE_BY_ID[r]
        for r in ("berlin-danzig", "berlin-essen", "essen-frankfurt", "berlin-frankfurt-2")
    ]
    length, path = longest_trail(routes)
    assert length == 11
    assert path[0] == "danzig" or path[-1] == "danzig"
    assert_trail(routes, path, 11)


def test_a_closed_loop_counts_every_route() -> None:
    routes = [ROUTE_BY_ID[r] for r in ("essen-frankfurt", "berlin-essen", "berlin-frankfurt-2")]
    length, path = longest_trail(routes)
    assert length == 7
    assert path[0] == path[-1]
    assert_trail(routes, path, 7)


def test_players_tied_for_the_longest_path_all_get_the_bonus() -> None:
    sheet = score(
        snapshot(
            player("Red", ["berlin-essen", "essen-frankfurt"], [], []),
            player("Blue", ["frankfurt-munchen", "munchen-zurich"], [], []),
            player("Green", ["amsterdam-bruxelles"], [], []),
        )
    )
    assert points(sheet, "Red", "european_express") == 10
    assert points(sheet, "Blue", "european_express") == 10
    assert points(sheet, "Green", "european_express") == 0


def test_stations_and_opponent_routes_never_lengthen_the_path() -> None:
    sheet = score(
        snapshot(
            player("Red", ["berlin-essen"], ["frankfurt"], []),
            player("Blue", ["essen-frankfurt", "amsterdam-bruxelles"], [], []),
        )
    )
    assert points(sheet, "Red", "european_express") == 10  # 2 = 2
    assert points(sheet, "Blue", "european_express") == 10


# -- winners and tie-breaks -------------------------------------------------------------------
def totals(sheet: dict[str, Any]) -> dict[str, int]:
    return {p["name"]: p["total"] for p in sheet["players"]}


def test_a_tie_on_points_goes_to_more_completed_tickets() -> None:
    # Red: København–Essen 3 (4) + Essen–Frankfurt 2 (2), ticket Frankfurt–København +5,
    #      3 unused stations +12, longest 5 → +10: 33.
    # Blue: Amsterdam–Essen 3 (4) + Amsterdam–Frankfurt 2 (2) + Amsterdam–Bruxelles 1 (1)
    #      + Cádiz–Madrid 3 (4) = 11, +12, longest 5 (tied) → +10: 33, no ticket completed.
    red = player("Red", ["essen-kobenhavn", "essen-frankfurt"], [], ["frankfurt-kobenhavn"])
    blue = player(
        "Blue",
        ["amsterdam-essen", "amsterdam-frankfurt", "amsterdam-bruxelles", "cadiz-madrid"],
        [],
        [],
    )
    sheet = score(snapshot(red, blue))
    assert totals(sheet) == {"Red": 33, "Blue": 33}
    assert sheet["winners"] == ["Red"]


def test_then_fewer_stations_built_wins() -> None:
    # Red: Amsterdam–Essen 3 (4) + Essen–Frankfurt 2 (2) + Cádiz–Madrid 3 (4) = 10, one station
    #      built (+8 for two unused), longest 5 → +10: 28.
    # Blue: Wien–Berlin 3 (4) + Berlin–Essen 2 (2) = 6, +12, longest 5 → +10: 28.
    red = player("Red", ["amsterdam-essen", "essen-frankfurt", "cadiz-madrid"], ["paris"], [])
    blue = player("Blue", ["berlin-wien", "berlin-essen"], [], [])
    sheet = score(snapshot(red, blue))
    assert totals(sheet) == {"Red": 28, "Blue": 28}
    assert sheet["winners"] == ["Blue"]


def test_then_the_european_express_wins() -> None:
    # Red: Amsterdam–Essen 3 + Essen–Frankfurt 2 = 6, +12, longest 5 → +10: 28.
    # Blue: Berlin–Danzig 4 (7) + Moskva–Petrograd 4 (7) + Frankfurt–München 2 (2) = 16, all
    #       apart (longest 4), +12: 28. Same tickets (none) and stations (none): Red's bonus wins.
    red = player("Red", ["amsterdam-essen", "essen-frankfurt"], [], [])
    blue = player("Blue", ["berlin-danzig", "moskva-petrograd", "frankfurt-munchen"], [], [])
    sheet = score(snapshot(red, blue))
    assert totals(sheet) == {"Red": 28, "Blue": 28}
    assert points(sheet, "Blue", "european_express") == 0
    assert sheet["winners"] == ["Red"]


def test_equal_players_share_the_win() -> None:
    sheet = score(
        snapshot(
            player("Red", ["berlin-essen"], [], []),
            player("Blue", ["frankfurt-munchen"], [], []),
        )
    )
    assert sheet["winners"] == ["Red", "Blue"]


# -- malformed snapshots ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("players", "path", "reason"),
    [
        ([player("R", ["paris-atlantis"], [], [])], "players[0].routes[0]", "unknown city"),
        ([player("R", ["paris-wien"], [], [])], "players[0].routes[0]", "unknown route"),
        ([player("R", ["paris-bruxelles:blue"], [], [])], "players[0].routes[0]", "no blue"),
        ([player("R", ["paris"], [], [])], "players[0].routes[0]", "<city>-<city>"),
        (
            [player("R", ["berlin-essen"], [], []), player("B", ["essen-berlin"], [], [])],
            "players[1].routes[0]",
            "already owned by R",
        ),
        ([player("R", ["berlin-essen", "essen-berlin"], [], [])], "players[0].routes[1]", "twice"),
        (
            [player("R", ["paris-bruxelles:red", "bruxelles-paris:yellow"], [], [])],
            "players[0].routes[1]",
            "both routes of the double route",
        ),
        (
            [player("R", ["dieppe-london", "london-dieppe"], [], [])],
            "players[0].routes[1]",
            "both routes of the double route",
        ),
        (
            [
                player("R", ["paris-bruxelles:red"], [], []),
                player("B", ["paris-bruxelles:yellow"], [], []),
            ],
            "players[1].routes[0]",
            "with 2 players only one route",
        ),
        (
            [
                player("R", ["dieppe-london"], [], []),
                player("B", ["dieppe-london"], [], []),
                player("G", [], [], []),
            ],
            "players[1].routes[0]",
            "with 3 players only one route",
        ),
        (
            [player("R", [], ["paris"], []), player("B", [], ["paris"], [])],
            "players[1].stations[0]",
            "one station per city",
        ),
        ([player("R", [], ["paris", "paris"], [])], "players[0].stations[1]", "one station"),
        (
            [player("R", [], ["paris", "wien", "roma", "madrid"], [])],
            "players[0].stations",
            "a player has 3 stations",
        ),
        ([player("R", [], ["atlantis"], [])], "players[0].stations[0]", "unknown city"),
        ([player("R", [], [], ["paris-roma"])], "players[0].tickets[0]", "no ticket"),
        (
            [player("R", ["petrograd-stockholm", "budapest-kyiv", "kyiv-moskva:grey"], [], [])],
            "players[0].routes[2]",
            "unknown route",
        ),
    ],
)
def test_malformed_snapshots_are_refused_with_the_field_path(
    players: list[dict[str, Any]], path: str, reason: str
) -> None:
    with pytest.raises(SnapshotError) as info:
        parse_end_snapshot(snapshot(*players))
    assert info.value.path == path
    assert reason in info.value.reason


def test_more_than_45_trains_is_refused() -> None:
    routes = [
        "petrograd-stockholm",  # 8
        "budapest-kyiv",  # 6
        "palermo-smyrna",  # 6
        "berlin-danzig",  # 4
        "berlin-warszawa:purple",  # 4
        "edinburgh-london:orange",  # 4
        "pamplona-paris:blue",  # 4
        "athina-brindisi",  # 4
        "palermo-roma",  # 4
    ]  # 44
    parse_end_snapshot(snapshot(player("R", routes, [], [])))
    with pytest.raises(SnapshotError) as info:
        parse_end_snapshot(snapshot(player("R", [*routes, "berlin-essen"], [], [])))
    assert info.value.path == "players[0].routes"
    assert "46 trains placed" in info.value.reason


@pytest.mark.parametrize(
    ("data", "path"),
    [
        ({"game": "ticket-to-ride", "format": 1, "players": []}, "game"),
        ({"game": GAME, "format": 2, "players": []}, "format"),
        ({"game": GAME, "format": 1, "players": []}, "players"),
        ({"game": GAME, "format": 1, "players": [{"name": "R", "trains": 3}]}, "players[0].trains"),
        ({"game": GAME, "format": 1, "players": [{"routes": []}]}, "players[0].name"),
        ({"game": GAME, "format": 1, "players": [{"name": "R"}] * 2}, "players[1].name"),
        ({"game": GAME, "format": 1, "players": [{"name": str(i)} for i in range(6)]}, "players"),
        ({"game": GAME, "format": 1, "players": [], "colour": 1}, "colour"),
    ],
)
def test_malformed_documents_name_the_field(data: dict[str, Any], path: str) -> None:
    with pytest.raises(SnapshotError) as info:
        parse_end_snapshot(data)
    assert info.value.path == path


def test_a_double_route_without_colour_takes_the_free_one() -> None:
    holdings = parse_end_snapshot(
        snapshot(
            player("R", ["paris-bruxelles"], [], []),
            player("B", ["bruxelles-paris:yellow"], [], []),
            player("G", [], [], []),
            player("Y", [], [], []),
        )
    )
    assert [route_ref(ROUTE_BY_ID[r]) for r in holdings[0].routes] == ["bruxelles-paris:red"]


# -- randomised end states against a brute force ----------------------------------------------
def brute_longest(routes: list[RouteSpec]) -> int:
    """Every trail from every city, no tricks."""
    best = 0

    def walk(city: str, used: frozenset[int], length: int) -> None:
        nonlocal best
        best = max(best, length)
        for i, r in enumerate(routes):
            if i not in used and city in (r.a, r.b):
                walk(r.b if city == r.a else r.a, used | {i}, length + r.length)

    for r in routes:
        walk(r.a, frozenset(), 0)
        walk(r.b, frozenset(), 0)
    return best


def assert_trail(routes: list[RouteSpec], path: tuple[str, ...], length: int) -> None:
    """``path`` is a walk over distinct owned routes of total ``length``."""
    left = list(routes)
    walked = 0
    for a, b in pairwise(path):
        step = next(
            (r for r in sorted(left, key=lambda r: -r.length) if {r.a, r.b} == {a, b}), None
        )
        assert step is not None, (a, b)
        left.remove(step)
        walked += step.length
    assert walked == length


def connected(edges: list[tuple[str, str]], a: str, b: str) -> bool:
    reach, frontier = {a}, [a]
    while frontier:
        here = frontier.pop()
        for x, y in edges:
            for u, v in ((x, y), (y, x)):
                if u == here and v not in reach:
                    reach.add(v)
                    frontier.append(v)
    return b in reach


def brute_ticket_points(
    own: list[RouteSpec],
    stations: tuple[str, ...],
    others: list[RouteSpec],
    tickets: tuple[TicketSpec, ...],
) -> int:
    options = [[None, *[r for r in others if c in (r.a, r.b)]] for c in stations]
    best = None
    for combo in product(*options):
        edges = [(r.a, r.b) for r in own] + [(r.a, r.b) for r in combo if r is not None]
        total = sum(t.points if connected(edges, t.a, t.b) else -t.points for t in tickets)
        best = total if best is None else max(best, total)
    assert best is not None
    return best


def random_table(rng: random.Random) -> list[Holding]:
    n = rng.randint(2, 5)
    pool = list(ROUTES)
    rng.shuffle(pool)
    owned: list[list[str]] = [[] for _ in range(n)]
    taken: set[str] = set()
    for route in pool[: rng.randint(n, 45)]:
        p = rng.randrange(n)
        partner_owner = next((q for q in range(n) if route.partner in owned[q]), None)
        if partner_owner == p or (partner_owner is not None and n <= 3):
            continue
        if len(owned[p]) < 10:
            owned[p].append(route.id)
            taken.add(route.id)
    cities = sorted({c for r in ROUTES for c in (r.a, r.b)})
    rng.shuffle(cities)
    tickets = list(TICKETS)
    rng.shuffle(tickets)
    holdings = []
    for p in range(n):
        stations = tuple(cities[3 * p : 3 * p + rng.randint(0, 3)])
        kept = tuple(tickets[4 * p : 4 * p + rng.randint(0, 4)])
        holdings.append(Holding(f"P{p}", tuple(owned[p]), stations, kept))
    return holdings


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=2**32))
def test_random_end_states_agree_with_the_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    holdings = random_table(rng)
    sheet = final_sheet(holdings)
    longest = 0
    lengths = []
    for h in holdings:
        own = [ROUTE_BY_ID[r] for r in h.routes]
        length, path = longest_trail(own)
        assert length == brute_longest(own)
        if own:
            assert_trail(own, path, length)
        lengths.append(length)
        longest = max(longest, length)
    for i, h in enumerate(holdings):
        own = [ROUTE_BY_ID[r] for r in h.routes]
        others = [ROUTE_BY_ID[r] for j, g in enumerate(holdings) if j != i for r in g.routes]
        expected = brute_ticket_points(own, h.stations, others, h.tickets)
        got = sheet.players[i]
        assert got.points("tickets_completed") + got.points("tickets_failed") == expected
        assert got.points("routes") == sum(ROUTE_POINTS[r.length] for r in own)
        assert got.points("unused_stations") == 4 * (3 - len(h.stations))
        bonus = 10 if longest > 0 and lengths[i] == longest else 0
        assert got.points("european_express") == bonus


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=2**32))
def test_stations_next_to_many_opponent_routes_agree_with_the_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    busy = ["paris", "frankfurt", "berlin", "pamplona", "wien", "budapest", "kyiv", "warszawa"]
    stations = tuple(rng.sample(busy, 3))
    others = [r for r in ROUTES if r.a in stations or r.b in stations]
    rng.shuffle(others)
    others = others[: rng.randint(0, len(others))]
    own = [r for r in rng.sample(list(ROUTES), 8) if r not in others and r.partner is None]
    tickets = tuple(rng.sample(list(TICKETS), rng.randint(1, 6)))
    outcome = best_ticket_outcome(own, stations, [(r, 1) for r in others], tickets)
    assert outcome.points == brute_ticket_points(own, stations, others, tickets)
    # the reported loans really complete what is reported, one route per station
    assert len({b.station for b in outcome.choice}) == len(outcome.choice)
    edges = [(r.a, r.b) for r in own] + [
        (ROUTE_BY_ID[b.route].a, ROUTE_BY_ID[b.route].b) for b in outcome.choice
    ]
    for result in outcome.results:
        assert connected(edges, result.ticket.a, result.ticket.b) == result.completed
        for b in result.via:
            assert b in outcome.choice


def dense_loops(rng: random.Random, size: int) -> list[RouteSpec]:
    """A cluster of short routes grown mostly by closing loops (many odd cities, many ways)."""
    short = [r for r in ROUTES if r.length <= 3]
    first = rng.choice(short)
    chosen, cities = [first], {first.a, first.b}
    while len(chosen) < size:
        ids = {c.id for c in chosen}
        candidates = [
            r
            for r in short
            if r.id not in ids
            and (r.a in cities or r.b in cities)
            and (r.partner is None or r.partner not in ids)
        ]
        if not candidates:
            break
        candidates.sort(key=lambda r: (-(r.a in cities and r.b in cities), rng.random()))
        route = candidates[0] if rng.random() < 0.7 else rng.choice(candidates)
        chosen.append(route)
        cities |= {route.a, route.b}
    return chosen


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=2**32), st.integers(min_value=3, max_value=16))
def test_dense_loops_of_short_routes_agree_with_the_brute_force(seed: int, size: int) -> None:
    routes = dense_loops(random.Random(seed), size)
    length, path = longest_trail(routes)
    assert length == brute_longest(routes)
    assert_trail(routes, path, length)
