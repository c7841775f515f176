"""The board data module against the totals the reference gives (shared/reference/README.md)."""

from __future__ import annotations

from collections import Counter

from companion.games.ticket_to_ride_europe.board import (
    CARDS_PER_COLOUR,
    CITIES,
    CITY_BY_ID,
    COLOURS,
    LOCOMOTIVE_CARDS,
    ROUTE_BY_ID,
    ROUTE_POINTS,
    ROUTES,
    TICKETS,
)


def test_the_board_has_47_cities_with_positions_on_the_board() -> None:
    assert len(CITIES) == 47
    assert len(CITY_BY_ID) == 47
    for city in CITIES:
        assert 0 <= city.x_pct <= 100 and 0 <= city.y_pct <= 100, city


def test_101_routes_with_300_train_spaces() -> None:
    assert len(ROUTES) == 101
    assert len(ROUTE_BY_ID) == 101
    assert sum(r.length for r in ROUTES) == 300
    assert Counter(r.length for r in ROUTES) == {1: 4, 2: 35, 3: 30, 4: 29, 6: 2, 8: 1}
    for route in ROUTES:
        assert route.a in CITY_BY_ID and route.b in CITY_BY_ID and route.a != route.b
        assert route.length in ROUTE_POINTS


def test_eight_routes_of_each_colour_and_37_grey() -> None:
    counts = Counter(r.colour for r in ROUTES)
    assert counts["grey"] == 37
    assert all(counts[c] == 8 for c in COLOURS)


def test_18_tunnels_and_13_ferries_nine_with_one_locomotive_four_with_two() -> None:
    assert sum(r.tunnel for r in ROUTES) == 18
    ferries = [r for r in ROUTES if r.ferry_locomotives]
    assert len(ferries) == 13
    assert Counter(r.ferry_locomotives for r in ferries) == {1: 9, 2: 4}
    # ferries are grey routes (rulebook "TRAJEKTY") and never tunnels
    assert all(r.colour == "grey" and not r.tunnel for r in ferries)


def test_11_double_pairs_join_the_same_cities() -> None:
    pairs = {frozenset((r.id, r.partner)) for r in ROUTES if r.partner}
    assert len(pairs) == 11
    for pair in pairs:
        one, other = (ROUTE_BY_ID[i] for i in pair)
        assert {one.a, one.b} == {other.a, other.b}
        assert one.length == other.length


def test_46_tickets_worth_444_points_six_of_them_long() -> None:
    assert len(TICKETS) == 46
    assert sum(t.points for t in TICKETS) == 444
    assert sum(t.long for t in TICKETS) == 6
    assert all(20 <= t.points <= 21 for t in TICKETS if t.long)
    assert all(5 <= t.points <= 13 for t in TICKETS if not t.long)
    assert all(t.a in CITY_BY_ID and t.b in CITY_BY_ID for t in TICKETS)
    assert len({frozenset((t.a, t.b)) for t in TICKETS}) == 46


def test_110_train_cards() -> None:
    assert len(COLOURS) * CARDS_PER_COLOUR + LOCOMOTIVE_CARDS == 110


def test_route_points_table_from_the_rulebook() -> None:
    assert ROUTE_POINTS == {1: 1, 2: 2, 3: 4, 4: 7, 6: 15, 8: 21}
