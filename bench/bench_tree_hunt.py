"""Every move by taps (issue 48): many random games of Ticket to Ride: Europe and Mini Express
driven only through the choices tree, hunting the states the tests' few seeds do not reach.

Each step: the tree of the state (the active player's own view for Ticket to Ride), one level
checked (every offered node has something under it), then a random path to a leaf, the leaf
applied (a refusal is a finding). A non-final state whose tree offers nothing is a finding.
Measured: taps per turn (every tap on the way to a leaf, summed over a turn; Ticket to Ride
counts the table's card reveals in the turn, Mini Express counts the Mašinfíra's turns apart)
and the CPU time of every node built (the top of the tree and every expansion on the path).

    python -m bench.bench_tree_hunt --game ttr --games 200
    python -m bench.bench_tree_hunt --game me --games 100 --start 1000

CPU time (``time.process_time``), so the machine's other work does not count against a node.

Run of 2026-11-29 (shared 2-core machine, load ~15): Ticket to Ride 320 games (60 of each of
2-5 players, seeds 100-159; 40 more of 2 and 5 players, seeds 300-339), Mini Express 3,200
(200 of each variant, seeds 100-299, the maps in turn; 600 more two-experienced and two-player
automa, seeds 300-899). Findings: 17 of the first 200 two-experienced games reached compensation
steps with nothing under them (fixed; 800 games since, none). Taps a turn, median/max: Ticket to
Ride 6/36 (a tunnel with the hand told), Mini Express 4/13, two-experienced 7/20 (two actions),
the Mašinfíra's turn 5-6/30 (draws again). Slowest node: Ticket to Ride 34.7 ms (the claim's
city list; p99 8 ms), Mini Express 28.1 ms (p99 4 ms); none over 50 ms.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.core import IllegalActionError, PlayerSpec
from companion.core.choices import Choice, check_tree
from tests.games.table_leaf import _held_by_another

Variant = tuple[str, int, dict[str, Any]]

TTR_VARIANTS: list[Variant] = [(f"ttr-{n}p", n, {}) for n in range(2, 6)]

_MAPS: list[dict[str, Any]] = [
    {"map": "usa"},
    {"map": "usa", "golden_spike": True},
    {"map": "europe"},
    {"map": "europe", "harbours": True},
]
ME_VARIANTS: list[Variant] = [
    *((f"me-standard-{n}p", n, {}) for n in (3, 4, 5)),
    ("me-two-experienced", 2, {"variant": "two_experienced"}),
    ("me-two-player-automa", 2, {"variant": "two_player_automa"}),
    *(
        (f"me-solo-{level}", 1, {"variant": f"solo:{level}"})
        for level in ("cestujici", "turista", "sotous", "pruvodci", "ajznbonak")
    ),
]


@dataclass
class Tally:
    taps: list[int] = field(default_factory=list)
    automa_taps: list[int] = field(default_factory=list)
    nodes: list[float] = field(default_factory=list)
    slowest: list[tuple[float, str, int, int]] = field(default_factory=list)
    findings: list[str] = field(default_factory=list)
    games: int = 0
    ended: int = 0
    steps: int = 0
    cpu: float = 0.0


def _timed(tally: Tally, where: str, seed: int, step: int, build: Callable[[], Any]) -> Any:
    started = time.process_time()
    nodes = build()
    spent = time.process_time() - started
    tally.nodes.append(spent)
    if spent > 0.02:
        tally.slowest.append((spent, where, seed, step))
    return nodes


def _walk(
    tally: Tally, tree: Sequence[Choice], rng: random.Random, *, seed: int, step: int, state: Any
) -> tuple[list[str], Choice] | None:
    nodes, path = tuple(tree), []
    while nodes:
        if all(n.key.startswith("city-") for n in nodes):
            # the Mašinfíra's city pointer (Turista and up): a random city would end most solo
            # games at city 32 within a few turns; a table moves it a few cities at a time
            pick = rng.choice(nodes[:3])
        else:
            pick = rng.choice(nodes)
        path.append(pick.key)
        if pick.action is not None:
            if _held_by_another(state, pick):
                # a real table holds each ticket once (tests/games/table_leaf.py): pick again
                return _walk(tally, tree, rng, seed=seed, step=step, state=state)
            return path, pick
        nodes = _timed(tally, "/".join(path), seed, step, pick.expand)
        if not nodes:
            tally.findings.append(f"seed {seed} step {step}: {'/'.join(path)} offers nothing")
            return None
    return None


def _ttr_game(seed: int, players: int, options: dict[str, Any], tally: Tally) -> None:
    from companion.games.ticket_to_ride_europe.rules import GAME

    rng = random.Random(seed)
    state = GAME.setup([PlayerSpec(f"P{i}") for i in range(players)], options)
    taps = 0
    for step in range(5000):
        tally.steps += 1
        if GAME.is_over(state) and not state.face_up_due:
            tally.ended += 1
            return
        active = GAME.status(state).active_players
        viewer = rng.choice(active) if active else None
        tree = _timed(tally, "", seed, step, lambda s=state, v=viewer: GAME.choices(s, v))
        try:
            check_tree(tree, deep=False)
        except ValueError as exc:
            tally.findings.append(f"seed {seed} step {step}: {exc}")
            return
        if not tree:
            tally.findings.append(f"seed {seed} step {step}: empty tree, phase {state.phase}")
            return
        walked = _walk(tally, tree, rng, seed=seed, step=step, state=state)
        if walked is None:
            return
        path, leaf = walked
        assert leaf.action is not None
        before = (state.phase, state.turn)
        try:
            state = GAME.apply(state, leaf.action)
        except IllegalActionError as exc:
            tally.findings.append(f"seed {seed} step {step}: {'/'.join(path)} refused: {exc}")
            return
        if before[0] == "play":
            taps += len(path)
            if state.turn != before[1] or state.phase != "play":
                tally.taps.append(taps)
                taps = 0
    tally.findings.append(f"seed {seed}: no end after 5000 steps")


def _me_game(seed: int, players: int, options: dict[str, Any], tally: Tally) -> None:
    from companion.games.mini_express.rules import GAME

    rng = random.Random(seed)
    opts = {**_MAPS[seed % len(_MAPS)], **options}
    state = GAME.setup([PlayerSpec(f"P{i}") for i in range(players)], opts)
    taps = 0
    for step in range(3000):
        tally.steps += 1
        tree = _timed(tally, "", seed, step, lambda s=state: GAME.choices(s))
        try:
            check_tree(tree, deep=False)
        except ValueError as exc:
            tally.findings.append(f"{opts} seed {seed} step {step}: {exc}")
            return
        if GAME.is_over(state) and not tree:
            tally.ended += 1
            return
        if not tree:
            tally.findings.append(f"{opts} seed {seed} step {step}: empty tree ({state.phase})")
            return
        walked = _walk(tally, tree, rng, seed=seed, step=step, state=state)
        if walked is None:
            return
        path, leaf = walked
        assert leaf.action is not None
        who = state.current_player
        automa = state.players[who].is_automa
        playing = state.phase == "play"
        try:
            state = GAME.apply(state, leaf.action)
        except IllegalActionError as exc:
            tally.findings.append(f"{opts} seed {seed} step {step}: {'/'.join(path)}: {exc}")
            return
        problems = GAME.problems(state)
        if problems:
            tally.findings.append(f"{opts} seed {seed} step {step}: problems {problems}")
            return
        if playing:
            taps += len(path)
            if state.current_player != who or state.phase != "play":
                (tally.automa_taps if automa else tally.taps).append(taps)
                taps = 0
    tally.findings.append(f"{opts} seed {seed}: no end after 3000 steps")


def _summary(name: str, tally: Tally) -> dict[str, Any]:
    nodes = sorted(tally.nodes)

    def pct(p: float) -> float:
        return round(nodes[min(len(nodes) - 1, int(p * len(nodes)))] * 1000, 2) if nodes else 0

    out: dict[str, Any] = {
        "variant": name,
        "games": tally.games,
        "ended": tally.ended,
        "steps": tally.steps,
        "cpu_s": round(tally.cpu, 1),
        "taps_per_turn_median": statistics.median(tally.taps) if tally.taps else None,
        "taps_per_turn_max": max(tally.taps) if tally.taps else None,
        "node_ms_median": pct(0.5),
        "node_ms_p99": pct(0.99),
        "node_ms_max": pct(1.0),
        "nodes": len(nodes),
        "over_50ms": sum(1 for n in nodes if n > 0.05),
        "slowest": [
            (round(s * 1000, 1), where, seed, step)
            for s, where, seed, step in sorted(tally.slowest, reverse=True)[:5]
        ],
        "findings": tally.findings[:20],
        "finding_count": len(tally.findings),
    }
    if tally.automa_taps:
        out["automa_taps_median"] = statistics.median(tally.automa_taps)
        out["automa_taps_max"] = max(tally.automa_taps)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", choices=("ttr", "me"), required=True)
    parser.add_argument("--games", type=int, default=50, help="games per variant")
    parser.add_argument("--start", type=int, default=0, help="first seed")
    parser.add_argument("--variant", action="append", help="only these variants (by name)")
    args = parser.parse_args(argv)
    variants = TTR_VARIANTS if args.game == "ttr" else ME_VARIANTS
    play = _ttr_game if args.game == "ttr" else _me_game
    failed = 0
    for name, players, options in variants:
        if args.variant and name not in args.variant:
            continue
        tally = Tally()
        for seed in range(args.start, args.start + args.games):
            tally.games += 1
            started = time.process_time()
            try:
                play(seed, players, options, tally)
            except Exception:  # a crash is a finding, the hunt goes on
                tally.findings.append(f"seed {seed}: {traceback.format_exc(limit=3)}")
            tally.cpu += time.process_time() - started
        summary = _summary(name, tally)
        failed += summary["finding_count"]
        print(json.dumps(summary, ensure_ascii=False), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
