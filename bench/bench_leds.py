"""Time of the LED path for one snapshot: scene() + changes() (+ the WLED payloads, JSON-encoded)
for a 4-seat table with 60 LEDs per seat (240 LEDs).

Run from the checkout root:  PYTHONPATH=. python bench/bench_leds.py [--n 2000]
Prints p50 / p99 / max in microseconds for each case. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from typing import Any

from firmware_bridge.leds import Frame, changes, scene
from firmware_bridge.wled import wled_messages

SEATS, LEDS = 4, 60
NOW = 1_700_000_000.0


def table(active: int, cues: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {
        "schema": 1,
        "game": "ticket-to-ride-europe",
        "players": [
            {"name": n, "colour": c, "seat": i + 1, "total": 10 * i}
            for i, (n, c) in enumerate(
                [("Ann", "red"), ("Ben", "blue"), ("Cy", "green"), ("Dee", "yellow")]
            )
        ],
        "status": {"active_players": [active], "passed_players": [3], "round": 2},
        "cues": cues or [],
    }


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def measure(name: str, n: int, step: Callable[[int], object]) -> None:
    for i in range(50):  # warm up
        step(i)
    samples = []
    for i in range(n):
        began = time.perf_counter()
        step(i)
        samples.append((time.perf_counter() - began) * 1e6)
    print(
        f"{name:58s} p50 {statistics.median(samples):8.1f} µs   "
        f"p99 {percentile(samples, 0.99):8.1f} µs   max {max(samples):8.1f} µs"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000)
    n = parser.parse_args().n
    states = [table(active=i % 3) for i in range(3)]
    blink = table(0, [{"kind": "unknown_tag", "seat": 2, "at_s": NOW, "duration_s": 1e3}])
    sweep = table(0, [{"kind": "round_end", "at_s": NOW, "duration_s": 1e3}])
    tunnel = table(0, [{"kind": "tunnel", "seat": 1, "extra_cards": 2, "at_s": NOW}])
    previous: list[Frame | None] = [None]

    def path(state: dict[str, Any], now: float) -> None:
        frame = scene(state, seats=SEATS, leds_per_seat=LEDS, now_s=now)
        runs = changes(previous[0], frame)
        for message in wled_messages(runs):
            json.dumps(message, separators=(",", ":"))
        previous[0] = frame

    print(f"{SEATS} seats × {LEDS} LEDs = {SEATS * LEDS} LEDs, n = {n} per case")
    measure(
        "scene() only, static turn",
        n,
        lambda i: scene(states[i % 3], seats=SEATS, leds_per_seat=LEDS, now_s=NOW),
    )
    frames = [scene(s, seats=SEATS, leds_per_seat=LEDS, now_s=NOW) for s in states]
    measure(
        "changes() only, turn passes (2 zones differ)",
        n,
        lambda i: changes(frames[i % 3], frames[(i + 1) % 3]),
    )
    measure("changes() only, whole frame", n, lambda i: changes(None, frames[i % 3]))
    measure("scene+changes+WLED JSON: turn passes", n, lambda i: path(states[i % 3], NOW))
    measure(
        "scene+changes+WLED JSON: red blink at a seat (15 fps)",
        n,
        lambda i: path(blink, NOW + i / 15),
    )
    measure(
        "scene+changes+WLED JSON: round-end sweep (15 fps)", n, lambda i: path(sweep, NOW + i / 15)
    )
    measure(
        "scene+changes+WLED JSON: tunnel verdict (15 fps)",
        n,
        lambda i: path(tunnel, NOW + (i % 90) / 15),
    )

    def whole(i: int) -> None:
        previous[0] = None
        path(states[i % 3], NOW)

    measure("scene+changes+WLED JSON: whole frame (after a reconnect)", n, whole)


if __name__ == "__main__":
    main()
