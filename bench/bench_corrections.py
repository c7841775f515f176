"""The table's correction nodes (``table-correct`` and every step under it), per node, over long
games (on demand, never a timed test).

    .venv/bin/python bench/bench_corrections.py [--games ticket-to-ride-europe,trains-and-stations]
        [--seeds 1,2] [--every 10] [--paths 3]

For each game and seed: a whole random game through the table's own tree (a random active
player's view at each step, as ``tests/service/test_correction_listing.py`` plays it). Every
``--every`` entries (and at every step a secret choice is pending: a Trains & Stations
speculation), as ``GET /api/choices?at=…`` answers a fresh request:

- ``list``: ``table-correct`` opened on a table just changed (the listing is built anew);
- ``line``: each listed line opened (``table-correct/seq-N``);
- (``look``, until issue 48's last pass: the table page looked into each step under a line for
  one with a single option, web/app.py ``_only_option``; it no longer does under
  ``table-correct``, so a line is shown with ``line``'s work alone);
- ``deep``: ``--paths`` random walks from each line down to a leaf, every node on the way.

Each figure is the CPU time (``time.process_time``) of ``children_at(table_tree(...), path)``,
the work one request does, in ms; printed: count, median, p99 and max per kind, and the slowest
node with its path; each listing as it is measured (a long run shows its progress). The machine
may be shared: CPU time, not wall time. The heap is settled after start-up as ``trackside run``
settles it (``companion.service.cli.settle_heap``). Interrupted (``timeout -s INT``), a game's figures so
far are printed and the next game is played.

Run of 2026-11-29 (seed 1, ``--every 20``, 3 players; shared 2-core machine, load 3-13: CPU
times vary by up to 2x from run to run), median / p99 / max ms, before (9b7c0c8) → after
(issue 48):

    Ticket to Ride    list  92 / 150 / 150       → 29 / 51 / 51
                      line  0.04 / 482 / 851     → 0.21 / 19 / 87
                      look  1.2 / 206 / 438      → 1.1 / 67 / 140
                      deep  0.07 / 5 / 19        → 0.08 / 6 / 59
    Trains & Stations list  119 / 54802 / 54802  → 31 / 102 / 102
                      line  0.17 / 42058 / 65730 → 0.22 / 17 / 79
                      look  2.4 / 7629 / 10824   → 1.6 / 51 / 104
                      deep  0.15 / 455 / 22073   → 0.14 / 23 / 177
    Mini Express      list  670 / 1140 / 1140    → 58 / 75 / 75
                      line  763 / 6324 / 6324    → 20 / 166 / 166
                      look  77 / 2044 / 2044     → 17 / 75 / 75
                      deep  1.1 / 222 / 543      → 0.42 / 137 / 264
    Russian Railroads list  148 / 180 / 180      → 105 / 264 / 264
                      line  1.8 / 10 / 16        → 1.2 / 15 / 16
                      look  0.01 / 35 / 66       → 0.01 / 31 / 96
                      deep  0.06 / 5 / 38        → 0.06 / 0.4 / 17

(A Russian Railroads listing builds, for each new line, the turn's top level, which tries every
space's payments, ~10 ms: here each move is entered in its player's own view and listed in
another's, whose tree is then needed to be sure of the move's place in it.)

Run of 2026-11-29 13:55 (same settings, two runs side by side on the 2-core machine, load 0.5-1),
median / p99 / max ms, main 653a754 → h48d; in brackets the max without the garbage
collector's time (printed since h48d):

    Ticket to Ride    list  31 / 68 / 68         → 24 / 37 / 37     (36)
                      line  0.20 / 20 / 128      → 0.41 / 16 / 35   (20)
                      look  0.96 / 72 / 149      → 0.80 / 67 / 87   (82)
                      deep  0.07 / 5.8 / 23      → 0.07 / 5.1 / 21  (21)
    Trains & Stations list  30 / 96 / 96         → 25 / 90 / 90     (82)
                      line  0.20 / 18 / 79       → 0.54 / 9 / 20    (19)
                      look  1.5 / 46 / 105       → 1.8 / 30 / 52    (28)
                      deep  0.11 / 22 / 180      → 0.09 / 14 / 57   (26)
    Mini Express      list  50 / 69 / 69         → 49 / 63 / 63     (58)
                      line  17 / 148 / 148       → 16 / 38 / 38     (37)
                      look  15 / 68 / 68         → 15 / 97 / 97     (65)
                      deep  0.29 / 125 / 246     → 0.27 / 92 / 138  (95)
    Russian Railroads list  80 / 133 / 133       → 2.7 / 5.3 / 5.3  (5.3)
                      line  1.0 / 15 / 49        → 3.3 / 11 / 13    (12)
                      look  0.01 / 28 / 90       → 0.08 / 22 / 50   (49)
                      deep  0.06 / 0.5 / 14      → 0.06 / 0.8 / 13  (13)

A rerun three minutes later (with the faster ``evolve``, 8554814) gave maxima TTR look 129
(121), ME look 108 (65) / deep 141 (111), T&S list 94 (84), RR look 43: single slowest nodes
vary by up to 50% from run to run here; the same TTR look timed 5 times alone: 79-89 ms.

Before, most maxima over 100 ms were a full garbage collection (120-230 ms: every line kept
the game's nodes it built, ~350k objects in a Mini Express game) landing on that request;
now only the lines built last keep them (``table_choices.BUILT_KEPT``; a line opened again
builds its nodes again: the medians of ``line`` rose by a few tenths of a ms, RR's by 2 ms).
What is left over 50 ms is the work the definition asks for: a Ticket to Ride claim corrected
after a tunnel's reveals tries every route's payments (each route is left out only after its
first 24 leaves fail), Mini Express build steps whose ~20 siblings each try up to 24 leaves
with ~30 later actions to replay, and a Trains & Stations listing that looks for moves
entered in another player's view (its views differ: private moves).

Run of 2026-11-29 15:29 (issue 48's last pass; seeds 1,2,3, ``--every 10``, quiet machine, load
~1), median / p99 / max ms, 47,000 requests; the garbage collected between requests as the
service does (none in any request):

    Ticket to Ride    list  1.9 / 3.9 / 4.0     line  0.29 / 10 / 16    deep  0.08 / 15 / 34
    Trains & Stations list  3.2 / 16 / 16       line  0.66 / 4.5 / 21   deep  0.13 / 8.9 / 22
    Mini Express      list  1.5 / 1.9 / 1.9     line  7.2 / 20 / 27     deep  0.58 / 17 / 34
    Russian Railroads list  2.8 / 5.6 / 5.6     line  2.0 / 7.3 / 8.5   deep  0.07 / 6.8 / 32

(no ``look``: the page no longer looks into correction steps.) Collections between requests, at
most 8 / 12 / 24 / 18 ms. What made the difference: another player's view trusted outside its
own nodes (``own_view_choices``: the T&S listing 55-88 → 16 ms, Mini Express's 34-56 → 2 ms);
96 leaves tried between one node's children (Mini Express build steps 75 → 34 ms); Mini Express
reading an action's arguments once (apply 33 → 20 us); and no collection inside a request (with
CPython's own collector, ``--automatic-gc``, single requests reached 55-100 ms, 20-90 of it
collecting).
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import time
from dataclasses import dataclass, field

from companion.core.choices import Choice, children_at
from companion.core.events import ActionApplied, GameStarted, LogEntry
from companion.core.game import PlayerSpec
from companion.core.session import TableSession
from companion.games import find_game
from companion.service import table_choices
from companion.service.cli import settle_heap
from companion.service.collector import IdleCollector
from companion.service.table_choices import table_tree

PLAYERS = ("Ann", "Ben", "Cat")


class Collections:
    """The CPU time the garbage collector took (``gc.callbacks``): a full collection walks
    every object the process keeps (the listing's caches too) and lands on whichever request
    happens to allocate then."""

    def __init__(self) -> None:
        self.ms = 0.0
        self._start = 0.0
        gc.callbacks.append(self._note)

    def _note(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._start = time.process_time()
        else:
            self.ms += (time.process_time() - self._start) * 1000


COLLECTIONS = Collections()
IDLE = IdleCollector(quiet_s=0.0)
"""As the service collects garbage (``trackside run``: companion/service/collector.py): the
automatic collector off, the same collections run between requests (a table is idle between
taps); ``--automatic-gc``: CPython's own, in whichever request allocates."""
AUTOMATIC = [False]


@dataclass
class Figures:
    samples: dict[str, list[float]] = field(default_factory=dict)
    own: dict[str, list[float]] = field(default_factory=dict)
    """The same without the garbage collector's time in it."""
    slowest: tuple[float, float, str] = (0.0, 0.0, "")
    slowest_own: tuple[float, str] = (0.0, "")
    between: list[float] = field(default_factory=list)
    """The idle collector's work after each request (not in any request)."""

    def add(self, kind: str, ms: float, where: str, collected: float = 0.0) -> None:
        self.samples.setdefault(kind, []).append(ms)
        self.own.setdefault(kind, []).append(ms - collected)
        if ms > self.slowest[0]:
            self.slowest = (ms, collected, where)
        if ms - collected > self.slowest_own[0]:
            self.slowest_own = (ms - collected, where)

    def report(self, title: str) -> None:
        print(title)
        every: list[float] = []
        for kind, values in self.samples.items():
            every += values
            print("  " + line(kind, values))
        print("  " + line("all", every))
        print("  without the garbage collector's time:")
        for kind, values in self.own.items():
            print("  " + line(kind, values))
        ms, collected, where = self.slowest
        print(f"  slowest {ms:.1f} ms ({collected:.1f} of it collecting garbage) at {where}")
        print(f"  slowest without it {self.slowest_own[0]:.1f} ms at {self.slowest_own[1]}")
        if self.between:
            ran = self.between
            print(
                f"  collected between requests: {len(ran)} times, median "
                f"{statistics.median(ran) if ran else 0:.2f}, max {max(ran, default=0):.2f} ms"
            )


def line(kind: str, values: list[float]) -> str:
    values = sorted(values)
    p99 = values[min(len(values) - 1, int(0.99 * len(values)))]
    return (
        f"{kind:5} n={len(values):5}  median {statistics.median(values):7.2f}  "
        f"p99 {p99:7.2f}  max {values[-1]:7.2f} ms"
    )


def timed(
    session: TableSession, viewer: int | None, path: str
) -> tuple[float, tuple[Choice, ...], float]:
    """The CPU ms of one request, its nodes, and the garbage collector's ms in it."""
    collected = COLLECTIONS.ms
    start = time.process_time()
    with IDLE.busy():
        nodes = children_at(table_tree(session, viewer), path)
    return (time.process_time() - start) * 1000, nodes, COLLECTIONS.ms - collected


def between(figures: Figures) -> None:
    """What the idle collector does once a request is answered (every collection due)."""
    if AUTOMATIC[0]:
        return
    start, ran = time.process_time(), 0
    while IDLE.step() is not None:
        ran += 1
    if ran:
        figures.between.append((time.process_time() - start) * 1000)


def measure(
    session: TableSession, viewer: int | None, *, rng: random.Random, paths: int,
    figures: Figures, where: str,
) -> None:  # fmt: skip
    table_choices._LISTED.clear()  # a table just changed: nothing listed yet
    ms, lines, collected = timed(session, viewer, "table-correct")
    between(figures)
    figures.add("list", ms, f"{where} table-correct", collected)
    print(f"  {where}: table-correct {ms:.1f} ms, {len(lines)} lines", flush=True)
    for node in lines:
        path = f"table-correct/{node.key}"
        ms, below, collected = timed(session, viewer, path)
        between(figures)
        figures.add("line", ms, f"{where} {path}", collected)
        assert below, f"{where} {path}: listed but empty"
        for _ in range(paths):
            nodes, walk = below, path
            while nodes:
                pick = rng.choice(nodes)
                if pick.is_leaf:
                    break
                walk = f"{walk}/{pick.key}"
                ms, nodes, collected = timed(session, viewer, walk)
                between(figures)
                figures.add("deep", ms, f"{where} {walk}", collected)
                assert nodes, f"{where} {walk}: listed but empty"


def play(name: str, seed: int, every: int, paths: int, figures: Figures) -> int:
    rng = random.Random(seed)
    game = find_game(name)
    started = GameStarted(name, tuple(PlayerSpec(n) for n in PLAYERS))
    session = TableSession.start(game, LogEntry(1, started))
    steps = 0
    for steps in range(5000):
        if game.is_over(session.state):
            break
        active = game.status(session.state).active_players
        viewer = rng.choice(active) if active else None
        pending = getattr(session.state, "speculation", None) is not None
        if session.applied and (steps % every == 0 or pending):
            tag = "speculation" if pending else "play"
            where = f"{name} seed {seed} step {steps} ({tag})"
            walks = random.Random(seed * 100_003 + steps)  # the game played does not depend on
            # what the listing offers (before and after a change play the same game)
            measure(session, viewer, rng=walks, paths=paths, figures=figures, where=where)
        tree = tuple(c for c in table_tree(session, viewer) if not c.key.startswith("table-"))
        nodes, pick = tree, None
        while nodes:
            pick = rng.choice(nodes)
            if pick.is_leaf:
                break
            nodes = pick.expand()
        assert pick is not None and pick.action is not None, f"{name} seed {seed}: empty tree"
        session = session.append(LogEntry(session.next_seq, ActionApplied(pick.action)))
        between(figures)  # (the tap entered: the table is idle until the next)
    return steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--games",
        default="ticket-to-ride-europe,trains-and-stations,mini-express,russian-railroads",
    )
    parser.add_argument("--seeds", default="1,2")
    parser.add_argument("--every", type=int, default=10)
    parser.add_argument("--paths", type=int, default=3)
    parser.add_argument(
        "--automatic-gc", action="store_true", help="CPython's own collector, not the service's"
    )
    args = parser.parse_args()
    settle_heap()  # as the service, once started
    AUTOMATIC[0] = args.automatic_gc
    if not args.automatic_gc:
        gc.disable()  # (IdleCollector.start, without its thread: ``between`` runs its steps)
    for name in args.games.split(","):
        figures = Figures()
        lengths = []
        try:
            for seed in (int(s) for s in args.seeds.split(",")):
                lengths.append(play(name, seed, args.every, args.paths, figures))
        except KeyboardInterrupt:  # (``timeout -s INT``): what was measured so far
            print(f"{name}: stopped", flush=True)
            lengths.append(-1)
        if figures.samples:
            figures.report(f"{name}: seeds {args.seeds}, {lengths} entries (CPU ms per request)")


if __name__ == "__main__":
    main()
