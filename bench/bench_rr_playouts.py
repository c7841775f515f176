"""Russian Railroads by taps: 200 random playouts (2–4 players) through the choices tree, every
offered leaf applied; counts the engineer actions taken (tiles named, hires, public and own
engineer spaces, repeats) and times every tree level opened (run on demand:
``PYTHONPATH=. python bench/bench_rr_playouts.py [games]``; never part of the test suite).

Prints: games that used engineers, the engineer actions by kind, and the tree levels' build
times (median / p99 / max) with the widest and the slowest node met (their children and
time), then three heavier boards built by hand (every colour open, the black worker, many
engineers) at their widest level. Times are
the process's CPU time (``time.process_time``): on a machine shared with other work the wall
clock mostly measures the wait for a core; the widest node is also given in wall time.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Sequence

from companion.core import Action, PlayerSpec
from companion.core.choices import Choice
from companion.games.russian_railroads import GAME, RussianRailroadsState


def engineer_kind(state: RussianRailroadsState, action: Action) -> str | None:
    """Which engineer action this is, if any."""
    if action.kind == "engineer_tile":
        return "tile named"
    if action.kind == "hire_engineer":
        return "hire"
    if action.kind == "question_card" and action.arg("card") == "engineer_and_coin":
        return "hire (? card)"
    if action.kind == "take_space":
        space = str(action.arg("space"))
        first = state.pending[0] if state.pending else None
        if first is not None and first.kind == "space" and "repeat" in first.grants:
            if first.source.startswith("own_engineer_"):
                return "repeat (own engineer)"
            if first.source.startswith("engineer_"):
                return "repeat (public engineer)"
            return "repeat (factory)"
        if space.startswith("own_engineer_"):
            return "own engineer"
        if space.startswith("engineer_"):
            return "public engineer"
    return None


WIDEST: list[tuple[int, RussianRailroadsState | None, tuple[str, ...]]] = [(0, None, ())]
"""The widest node met: its children, the state and the path of keys to it (re-timed at the
end)."""
SLOWEST: list[tuple[float, RussianRailroadsState | None, tuple[str, ...]]] = [(0.0, None, ())]
"""The slowest level met (CPU seconds), its state and path (re-timed at the end)."""

KINDS: dict[str, str] = {
    "hire": "hire",
    "hire (? card)": "hire",
    "own engineer": "own",
    "public engineer": "public",
    "repeat (own engineer)": "repeat",
    "repeat (public engineer)": "repeat",
    "repeat (factory)": "repeat",
}
"""Engineer action kinds by the issue's four uses (hire, own, public, repeat); naming a tile
is none of them."""


def timed_expand(
    node: Choice,
    times: list[float],
    widest: list[tuple[int, float]],
    state: RussianRailroadsState | None = None,
    path: tuple[str, ...] = (),
) -> tuple[Choice, ...]:
    start = time.process_time()
    kids = node.expand()
    took = time.process_time() - start
    times.append(took)
    widest.append((len(kids), took))
    if state is not None and len(kids) > WIDEST[0][0]:
        WIDEST[0] = (len(kids), state, path)
    if state is not None and took > SLOWEST[0][0]:
        SLOWEST[0] = (took, state, path)
    return kids


def node_children(state: RussianRailroadsState, path: tuple[str, ...]) -> Sequence[Choice]:
    """Build the node at ``path`` from scratch (the top level when empty)."""
    nodes: Sequence[Choice] = GAME.choices(state)
    for key in path:
        nodes = next(n for n in nodes if n.key == key).expand()
    return nodes


def playout(
    seed: int, players: int, times: list[float], widest: list[tuple[int, float]]
) -> Counter[str]:
    rng = random.Random(seed)
    names = ["Anna", "Boris", "Cleo", "Dana"][:players]
    state = GAME.setup([PlayerSpec(n) for n in names], {})
    used: Counter[str] = Counter()
    for _ in range(3000):
        if GAME.is_over(state):
            return used
        start = time.process_time()
        nodes: Sequence[Choice] = GAME.choices(state)
        took = time.process_time() - start
        times.append(took)
        widest.append((len(nodes), took))
        if len(nodes) > WIDEST[0][0]:
            WIDEST[0] = (len(nodes), state, ())
        if took > SLOWEST[0][0]:
            SLOWEST[0] = (took, state, ())
        path: tuple[str, ...] = ()
        while True:
            pick = rng.choice(nodes)
            if pick.is_leaf:
                break
            path = (*path, pick.key)
            nodes = timed_expand(pick, times, widest, state, path)
        assert pick.action is not None
        kind = engineer_kind(state, pick.action)
        if kind:
            used[kind] += 1
        state = GAME.apply(state, pick.action)  # every offered leaf is accepted
        assert GAME.problems(state) == (), (seed, pick.key)
    raise AssertionError(f"seed {seed}: the game did not end")


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    times: list[float] = []
    widest: list[tuple[int, float]] = []
    total: Counter[str] = Counter()
    games_with: Counter[str] = Counter()
    with_engineers = 0
    start = time.perf_counter()
    for seed in range(games):
        used = playout(seed, 2 + seed % 3, times, widest)
        total.update(used)
        with_engineers += bool(used.keys() - {"tile named"})
        games_with.update({KINDS[k] for k in used if k in KINDS})
    took = time.perf_counter() - start
    times.sort()
    print(f"{games} games (2–4 players) in {took:.0f} s; every offered leaf accepted")
    print(f"games that used engineers (hire, own, public or repeat): {with_engineers}/{games}")
    print(
        "games with each use:",
        {k: f"{games_with[k]}/{games}" for k in ("hire", "own", "public", "repeat")},
    )
    print("engineer actions:", dict(sorted(total.items())), "total", sum(total.values()))
    print(
        f"tree levels opened: {len(times)}; median {statistics.median(times) * 1e3:.2f} ms, "
        f"p99 {times[int(len(times) * 0.99)] * 1e3:.1f} ms, max {times[-1] * 1e3:.1f} ms"
    )
    size, state, path = WIDEST[0]
    assert state is not None
    retime(f"widest node: {size} children", state, path)
    _, state, path = SLOWEST[0]
    assert state is not None
    retime(f"slowest level: {len(node_children(state, path))} children", state, path)
    for what, state in constructed():
        path = widest_path(state)
        retime(f"{what}: {len(node_children(state, path))} children", state, path)


def constructed() -> list[tuple[str, RussianRailroadsState]]:
    """Heavier boards than random games reach: every colour open, the black worker, many
    hired engineers, coins and temporary workers at once."""
    from dataclasses import replace

    from companion.games.russian_railroads.state import Engineer, Pending
    from tests.games.russian_railroads.helpers import new_game, with_board

    row = ["two_any", "black_grey", "grey_brown", "industry_two", "any_black", "two_black",
           "industry_black"]  # fmt: skip
    hired = ["two_any", "black_grey", "any_3points", "black_3points", "grey_5points",
             "locomotive_or_factory", "repeat_action", "doubler_3points"]  # fmt: skip

    def board(**fields: object) -> RussianRailroadsState:
        return with_board(
            new_game(4, engineer_row=row),
            0,
            colours=frozenset({"black", "grey", "brown", "natural", "white"}),
            rails=((8, 5, 3, 2, 1), (3, 2, 1, 0, 0), (3, 2, 1, 0, 0)),
            fired=frozenset({"rails:2", "rails:6", "rails:10"}),
            locomotives=((9, 9), (5, 5), (4,)),
            **fields,
        )

    token = board()
    token = replace(
        token, pending=(Pending("space", 0, "token four_steps", grants=("steps:any:4:upto",)),)
    )
    own = board(black_worker=True, extra_workers=1, engineers=(Engineer(3, "two_any"),))
    own = GAME.apply(
        own,
        Action("take_space", 0, {"space": "own_engineer_3", "workers": 1, "black_worker": True}),
    )
    top = board(
        black_worker=True,
        extra_workers=2,
        coins=4,
        temporary=2,
        engineers=tuple(Engineer(i + 1, a) for i, a in enumerate(hired)),
    )
    return [
        ("the 4-steps token, every colour open (widest level)", token),
        ("own 2-steps-any engineer with the black worker", own),
        ("a turn with 8 own engineers, 4 coins, 2 temporary workers, the black worker", top),
    ]


def widest_path(state: RussianRailroadsState) -> tuple[str, ...]:
    """The path to the widest level under the top (the top itself when it is the widest)."""
    best: tuple[int, tuple[str, ...]] = (len(GAME.choices(state)), ())
    stack: list[tuple[tuple[str, ...], Sequence[Choice]]] = [((), GAME.choices(state))]
    while stack:
        path, nodes = stack.pop()
        for node in nodes:
            if node.is_leaf:
                continue
            kids = node.expand()
            here = (*path, node.key)
            if len(kids) > best[0]:
                best = (len(kids), here)
            stack.append((here, kids))
    return best[1]


def retime(what: str, state: RussianRailroadsState, path: tuple[str, ...]) -> None:
    """The node rebuilt 200 times from scratch: the tree above it, then its children."""
    cpu: list[float] = []
    wall: list[float] = []
    for _ in range(200):
        start, start_wall = time.process_time(), time.perf_counter()
        node_children(state, path)
        cpu.append(time.process_time() - start)
        wall.append(time.perf_counter() - start_wall)
    cpu.sort()
    wall.sort()
    print(
        f"{what} at {'/'.join(path) or 'the top level'}; built from "
        f"scratch in median {statistics.median(cpu) * 1e3:.1f} ms, "
        f"p99 {cpu[int(len(cpu) * 0.99)] * 1e3:.1f} ms CPU (wall: median "
        f"{statistics.median(wall) * 1e3:.1f} ms, p99 {wall[int(len(wall) * 0.99)] * 1e3:.1f} ms; "
        f"n={len(cpu)})"
    )


if __name__ == "__main__":
    main()
