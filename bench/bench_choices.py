"""The choices tree and the table page built on it, for the heaviest state of each game (on
demand, never a timed test).

    .venv/bin/python bench/bench_choices.py [--runs 50]

For every game with ``choices``: a seeded random playout through its own tree; the state whose
fully expanded tree has the most leaves (Ticket to Ride late in the game: every route a big hand
can pay, every payment) is the one measured. Reported, median and p99 in ms:

- ``top``: the top of the tree (what ``GET /api/choices`` and the table page build first);
- ``widest``: opening its widest step (e.g. every route with a payment);
- ``all``: every node expanded (every leaf built and checked with ``apply``: the worst case,
  which no screen ever needs at once);
- ``page``/``page-widest``: ``GET /table`` and ``GET /table?at=<widest>`` server side, through
  Flask's test client on a Trackside replaying the same playout (engine thread, SQLite).

A Raspberry Pi 4 is roughly 3–4× slower per core than the machine this reports on.
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.core import PlayerSpec
from companion.core.choices import Choice, leaves, random_leaf
from companion.core.observation import Observation
from companion.games import find_game, game_names
from companion.service.config import parse_settings
from companion.service.runtime import Trackside

PIN = "471108"
PLAYERS = ("Ann", "Ben", "Cat")


def percentiles(call: Callable[[], object], runs: int) -> tuple[float, float]:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    return statistics.median(samples), samples[min(len(samples) - 1, int(0.99 * len(samples)))]


def heaviest(name: str, seed: int = 3) -> tuple[list[Any], Any, int]:
    """The playout's actions up to the state with the largest full tree, that state and its
    leaf count."""
    game = find_game(name)
    choose: Callable[..., tuple[Choice, ...]] = game.choices  # type: ignore[attr-defined]
    rng = random.Random(seed)
    state = game.setup([PlayerSpec(n) for n in PLAYERS], {})
    actions: list[Any] = []
    best: tuple[int, int, Any] = (-1, 0, state)
    for step in range(3000):
        if game.is_over(state):
            break
        if step % 7 == 0:
            size = sum(1 for _ in leaves(choose(state)))
            if size > best[0]:
                best = (size, len(actions), state)
        active = game.status(state).active_players
        picked = random_leaf(choose(state, active[0] if active else None), rng)
        if picked is None:
            break
        actions.append(picked[1].action)
        state = game.apply(state, picked[1].action)
    size, upto, state = best
    return actions[:upto], state, size


def widest(tree: tuple[Choice, ...]) -> tuple[str, int]:
    paths = [(c.key, len(c.expand())) for c in tree if not c.is_leaf]
    return max(paths, key=lambda p: p[1]) if paths else ("", 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    for name in game_names(include_hidden=True):
        if callable(getattr(find_game(name), "choices", None)):
            measure(name, args.runs)


def measure(name: str, runs: int) -> None:
    game = find_game(name)
    actions, state, size = heaviest(name)
    choose: Callable[..., tuple[Choice, ...]] = game.choices  # type: ignore[attr-defined]
    tree = choose(state)
    wide, width = widest(tree)
    top = percentiles(lambda: choose(state), runs)
    open_wide = percentiles(
        lambda: next(c for c in choose(state) if c.key == wide).expand() if wide else (),
        runs,
    )
    full = percentiles(lambda: sum(1 for _ in leaves(choose(state))), max(5, runs // 10))
    with tempfile.TemporaryDirectory() as folder:
        settings = parse_settings(
            {"web": {"host": "127.0.0.1", "port": 0, "pin": PIN}}, data_dir=Path(folder)
        )
        service = Trackside(settings)
        service.start(web=False)
        try:
            players = [{"name": n} for n in PLAYERS]
            start = {"command": "start_game", "game": name, "players": players}
            send(service, "command", start)
            for action in actions:
                send(service, "action", {"action": action.to_json()})
            client = service.app.test_client()  # signed in as the table is, with its PIN
            login = client.get("/table").get_data(as_text=True)
            token = re.search(r'name="csrf" value="([^"]+)"', login)
            assert token, login[:500]
            client.post("/table/login", data={"csrf": token.group(1), "pin": PIN, "who": "bench"})

            def page(at: str = "") -> object:
                response = client.get("/table", query_string={"at": at} if at else {})
                assert response.status_code == 200
                assert 'id="enter"' in response.get_data(as_text=True)
                return response

            page_top = percentiles(page, runs)
            page_wide = percentiles(lambda: page(wide), runs) if wide else (0.0, 0.0)
        finally:
            service.stop()
    print(
        f"{name}: {len(actions)} inputs in, {size} leaves in all, widest step {wide!r} "
        f"({width} choices)\n"
        f"  top {top[0]:.2f} / {top[1]:.2f} ms   widest {open_wide[0]:.2f} / "
        f"{open_wide[1]:.2f} ms   all {full[0]:.1f} / {full[1]:.1f} ms\n"
        f"  page {page_top[0]:.1f} / {page_top[1]:.1f} ms   page-widest "
        f"{page_wide[0]:.1f} / {page_wide[1]:.1f} ms   (median / p99)"
    )


def send(service: Trackside, kind: str, payload: dict[str, Any]) -> None:
    obs = Observation.from_json({"source": "bench", "kind": kind, "payload": payload})
    outcome = service.submit_and_wait(obs, 10)
    assert outcome.get("outcome") == "applied", outcome


if __name__ == "__main__":
    main()
