"""Trains & Stations: many random games through the tree, outside the test suite (on demand).

    .venv/bin/python -m bench.ts_playouts [--seeds 0-199] [--players 3,4,5]

Each game: 3–5 players, a random conductor, part of every goods deck already traded away in
half the games (upgrades, speculation and short decks come up, as in the tests). At every step
a random player who has something to enter (the table's own tree, or a player's own view for a
secret trade or a task card) walks the tree from the top to a leaf at random, as a person taps.
Reported:

- a node offered with nothing under it (an empty step), a state with no tree but the game not
  over (an empty tree), a leaf ``apply`` refuses: each with its seed, step and path (the run
  goes on with the next game);
- taps per turn (every tap from the roll to the end of the turn, the secret trades and the
  share-out it opened included): median and max;
- every node's CPU time (building its children): median, p99, max and the slowest path.

The machine may be shared: CPU time (``time.process_time``), not wall time.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from dataclasses import replace

from companion.core import PlayerSpec, TracksideError
from companion.core.choices import Choice
from companion.games.trains_and_stations import GAME, TSState
from companion.games.trains_and_stations.data import GOODS

MAX_STEPS = 4000


def start(seed: int, players: int) -> TSState:
    rng = random.Random(seed)
    state = GAME.setup(
        [PlayerSpec(f"P{i}") for i in range(players)], {"conductor": rng.randrange(players)}
    )
    if seed % 2:
        gone = {g: rng.randint(0, 10) if g in state.goods_in_play else 0 for g in GOODS}
        state = replace(
            state,
            goods_left=tuple((g, k - gone[g]) for g, k in state.goods_left),
            goods_removed=tuple((g, gone[g]) for g, _ in state.goods_removed),
        )
    return state


def timed(build: object) -> tuple[float, tuple[Choice, ...]]:
    begin = time.process_time()
    nodes = build() if callable(build) else ()
    return (time.process_time() - begin) * 1000, nodes


def play(seed: int, players: int, nodes_ms: list[tuple[float, str]], taps: list[int],
         problems: list[str]) -> int:  # fmt: skip
    rng = random.Random(seed)
    state = start(seed, players)
    turn_taps, turn_of = 0, state.turn.player
    for step in range(MAX_STEPS):
        if state.over:
            taps.append(turn_taps)
            return step
        views: list[tuple[int | None, tuple[Choice, ...]]] = []
        for viewer in (None, *range(players)):
            ms, tree = timed(lambda s=state, v=viewer: GAME.choices(s, v))
            nodes_ms.append((ms, f"seed {seed} step {step} viewer {viewer} top"))
            if tree:
                views.append((viewer, tree))
        if not views:
            problems.append(f"seed {seed} step {step}: an empty tree, the game not over")
            return step
        viewer, nodes = rng.choice(views)
        path: list[str] = []
        while True:
            pick = rng.choice(nodes)
            path.append(pick.key)
            turn_taps += 1
            if pick.is_leaf:
                break
            ms, nodes = timed(pick.expand)
            where = f"seed {seed} step {step} viewer {viewer} {'/'.join(path)}"
            nodes_ms.append((ms, where))
            if not nodes:
                problems.append(f"{where}: offered with nothing under it")
                return step
        assert pick.action is not None
        try:
            state = GAME.apply(state, pick.action)
        except TracksideError as exc:
            problems.append(f"seed {seed} step {step} viewer {viewer} {'/'.join(path)}: {exc}")
            return step
        if state.turn.player != turn_of and state.speculation is None:
            taps.append(turn_taps)
            turn_taps, turn_of = 0, state.turn.player
    problems.append(f"seed {seed}: no end after {MAX_STEPS} steps")
    return MAX_STEPS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0-199")
    parser.add_argument("--players", default="3,4,5")
    args = parser.parse_args()
    lo, _, hi = args.seeds.partition("-")
    seeds = range(int(lo), int(hi or lo) + 1)
    counts = [int(n) for n in args.players.split(",")]
    nodes_ms: list[tuple[float, str]] = []
    taps: list[int] = []
    problems: list[str] = []
    steps = []
    for seed in seeds:
        steps.append(play(seed, counts[seed % len(counts)], nodes_ms, taps, problems))
    times = sorted(ms for ms, _ in nodes_ms)
    slowest = max(nodes_ms)
    print(f"{len(steps)} games ({args.seeds}, {args.players} players), {sum(steps)} moves")
    print(f"problems: {len(problems)}")
    for problem in problems[:40]:
        print("  " + problem)
    print(f"taps per turn: median {statistics.median(taps)}, max {max(taps)} ({len(taps)} turns)")
    print(
        f"node CPU ms: median {statistics.median(times):.2f}, "
        f"p99 {times[int(0.99 * (len(times) - 1))]:.2f}, max {slowest[0]:.1f} at {slowest[1]} "
        f"({len(times)} nodes)"
    )


if __name__ == "__main__":
    main()
