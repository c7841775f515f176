"""Full final scoring of Ticket to Ride: Europe on adversarial end states (on demand).

    .venv/bin/python bench/bench_ticket_to_ride_europe.py [--tables 200] [--repeat 5]

Each table: five players; each player's 45 trains spent first on the shortest routes that close
loops next to what they already own (dense loops of short routes: the hard case for the exact
longest trail); three stations each on the cities with the most routes of other players (the
hard case for the station choice); eight to ten tickets each, mostly not connected by own
routes, so every station choice has to be tried. Reports p50/p99/max of one complete
``score_snapshot`` (parsing and validating the JSON included), as wall and as CPU time.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

from companion.games.ticket_to_ride_europe.board import ROUTES, TICKETS, TRAINS_PER_PLAYER
from companion.games.ticket_to_ride_europe.final import route_ref
from companion.games.ticket_to_ride_europe.rules import GAME

PLAYERS = 5


def adversarial_table(rng: random.Random) -> dict[str, Any]:
    owner: dict[str, int] = {}
    owned: list[list[str]] = [[] for _ in range(PLAYERS)]
    trains = [0] * PLAYERS
    cities: list[set[str]] = [set() for _ in range(PLAYERS)]
    order = list(range(PLAYERS))
    growing = True
    while growing:
        growing = False
        rng.shuffle(order)
        for p in order:
            candidates = [
                r
                for r in ROUTES
                if r.id not in owner
                and not (r.partner is not None and owner.get(r.partner) == p)
                and trains[p] + r.length <= TRAINS_PER_PLAYER
                and (not cities[p] or r.a in cities[p] or r.b in cities[p])
            ]
            if not candidates:
                continue
            # close a loop if possible, shortest first
            candidates.sort(
                key=lambda r: (
                    -(r.a in cities[p] and r.b in cities[p]),
                    r.length,
                    rng.random(),
                )
            )
            route = candidates[0]
            owner[route.id] = p
            owned[p].append(route.id)
            trains[p] += route.length
            cities[p] |= {route.a, route.b}
            growing = True
    # stations on the cities with the most routes of others
    taken: set[str] = set()
    stations: list[list[str]] = []
    for p in range(PLAYERS):
        busy: dict[str, int] = {}
        for r in ROUTES:
            if r.id in owner and owner[r.id] != p:
                for c in (r.a, r.b):
                    busy[c] = busy.get(c, 0) + 1
        ranked = sorted(busy, key=lambda c: (-busy[c], rng.random()))
        mine = [c for c in ranked if c not in taken][:3]
        taken |= set(mine)
        stations.append(mine)
    tickets = list(TICKETS)
    rng.shuffle(tickets)
    players = []
    for p in range(PLAYERS):
        kept = tickets[9 * p : 9 * p + rng.randint(8, 9)]
        players.append(
            {
                "name": f"P{p}",
                "routes": [route_ref(next(r for r in ROUTES if r.id == i)) for i in owned[p]],
                "stations": stations[p],
                "tickets": [t.id for t in kept],
            }
        )
    return {"game": "ticket-to-ride-europe", "format": 1, "players": players}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    ns = parser.parse_args()
    rng = random.Random(ns.seed)
    tables = [adversarial_table(rng) for _ in range(ns.tables)]
    wall_ms: list[float] = []
    cpu_ms: list[float] = []
    worst = (0.0, 0)
    for i, table in enumerate(tables):
        GAME.score_snapshot(table)  # warm up
        for _ in range(ns.repeat):
            cpu_start = time.process_time()
            start = time.perf_counter()
            GAME.score_snapshot(table)
            elapsed = (time.perf_counter() - start) * 1000
            cpu = (time.process_time() - cpu_start) * 1000
            wall_ms.append(elapsed)
            cpu_ms.append(cpu)
            worst = max(worst, (cpu, i))
    edges = [len(p["routes"]) for p in tables[worst[1]]["players"]]
    print(f"{ns.tables} adversarial tables × {ns.repeat}: one full final scoring each")
    for label, values in (("wall", wall_ms), ("cpu ", cpu_ms)):
        values.sort()
        p50 = statistics.median(values)
        p99 = values[min(len(values) - 1, int(len(values) * 0.99))]
        print(f"  {label}: p50 {p50:.2f} ms   p99 {p99:.2f} ms   max {values[-1]:.2f} ms")
    print(f"  slowest table (cpu) #{worst[1]}: routes per player {edges}")
    print("  (wall time includes waiting for a shared CPU; cpu time is this process only)")


if __name__ == "__main__":
    main()
