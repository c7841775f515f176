"""Taps per turn, every game the table enters by taps (issue 48), from random playouts through
the table's own tree, as the table page taps it (on demand, never a timed test):

    PYTHONPATH=. python bench/bench_taps.py [--games ticket-to-ride-europe,...] [--seeds 1-5]
        [--players 3]

Each move: a random active player's view (their own private choices added, as on their phone),
then a random path from the top of the tree to a leaf; the table's own steps (undo, correct,
end) are not taken. A tap is one node chosen; a step whose one option is a last step is entered
with the tap on the step, as the page does (web/app.py ``_only_option``: not for a list to look
a name up in, and only among at most 12 steps). A turn is every move until another player (or
set of players) is the one the rules wait for (``status().active_players``); what the rules
wait for from everyone (a card the table turns face up, the set-up's tickets) counts in the
turn it comes in.

Printed per game: games, moves, taps per turn (median / p90 / max), taps per move (median /
max), and the turn with the most taps.

Run of 2026-11-29 (seeds 1-5, 3 players), taps per turn median / p90 / max (per move median /
max): Ticket to Ride 6 / 9 / 22 (2 / 5; the most: the set-up's tickets and the five face-up
cards), Russian Railroads 3 / 5 / 30 (1 / 3), Mini Express 4 / 7 / 9 (4 / 9), Trains & Stations
12 / 27 / 93 (4 / 15; a random playout rerolls, delivers and shows task cards far more than
people do).
"""

from __future__ import annotations

import argparse
import random
import statistics
from collections.abc import Sequence

from companion.core.choices import Choice
from companion.core.events import ActionApplied, GameStarted, LogEntry
from companion.core.game import PlayerSpec
from companion.core.session import TableSession
from companion.games import find_game
from companion.service.table_choices import table_tree

GAMES = "ticket-to-ride-europe,russian-railroads,mini-express,trains-and-stations"
ONE_OPTION_SIBLINGS = 12
"""web/app.py: the page looks into the steps it shows when there are at most this many."""
MAX_MOVES = 5000


def only_option(choice: Choice, siblings: Sequence[Choice]) -> Choice | None:
    """web/app.py ``_only_option``: the one last step under ``choice``, entered with its tap."""
    if choice.is_leaf or choice.key.startswith("table-") or choice.by_name:
        return None
    if sum(1 for c in siblings if not c.is_leaf) > ONE_OPTION_SIBLINGS:
        return None
    below = choice.expand()
    return below[0] if len(below) == 1 and below[0].is_leaf else None


def move(tree: Sequence[Choice], rng: random.Random) -> tuple[Choice, int, str]:
    """A random path to a leaf: the leaf, the taps it took, the path."""
    nodes = tuple(c for c in tree if not c.key.startswith("table-"))
    taps, path = 0, []
    while True:
        pick = rng.choice(nodes)
        taps += 1
        path.append(pick.key)
        only = only_option(pick, nodes)
        if only is not None:
            path.append(only.key)
            return only, taps, "/".join(path)
        if pick.is_leaf:
            return pick, taps, "/".join(path)
        nodes = pick.expand()
        assert nodes, f"{'/'.join(path)}: offered with nothing under it"


def play(name: str, seed: int, players: int) -> tuple[int, list[int], list[int], tuple[int, str]]:
    """One game: its moves, the taps of each turn and of each move, the turn with most taps."""
    rng = random.Random(seed)
    game = find_game(name)
    started = GameStarted(name, tuple(PlayerSpec(f"P{i}") for i in range(players)))
    session = TableSession.start(game, LogEntry(1, started))
    turns: list[int] = []
    moves: list[int] = []
    worst = (0, "")
    turn_taps, turn_paths = 0, []
    owner = game.status(session.state).active_players
    for step in range(MAX_MOVES):
        if game.is_over(session.state):
            break
        active = game.status(session.state).active_players
        viewer = rng.choice(active) if active else None
        leaf, taps, path = move(table_tree(session, viewer), rng)
        assert leaf.action is not None, f"{name} seed {seed} step {step}: {path}"
        session = session.append(LogEntry(session.next_seq, ActionApplied(leaf.action)))
        moves.append(taps)
        turn_taps += taps
        turn_paths.append(path)
        now = game.status(session.state).active_players
        if now and len(now) < players and now != owner:
            turns.append(turn_taps)
            if turn_taps > worst[0]:
                worst = (turn_taps, f"seed {seed} step {step}: " + " | ".join(turn_paths))
            turn_taps, turn_paths, owner = 0, [], now
    if turn_taps:
        turns.append(turn_taps)
    return len(moves), turns, moves, worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=GAMES)
    parser.add_argument("--seeds", default="1-5")
    parser.add_argument("--players", type=int, default=3)
    args = parser.parse_args()
    lo, _, hi = args.seeds.partition("-")
    seeds = range(int(lo), int(hi or lo) + 1)
    for name in args.games.split(","):
        turns: list[int] = []
        moves: list[int] = []
        total = 0
        worst = (0, "")
        for seed in seeds:
            n, t, m, w = play(name, seed, args.players)
            total += n
            turns += t
            moves += m
            worst = max(worst, w)
        turns.sort()
        print(
            f"{name}: {len(seeds)} games ({args.players} players), {total} moves, "
            f"{len(turns)} turns; taps per turn median {statistics.median(turns)}, "
            f"p90 {turns[int(0.9 * (len(turns) - 1))]}, max {turns[-1]}; taps per move "
            f"median {statistics.median(moves)}, max {max(moves)}",
            flush=True,
        )
        print(f"  most taps in a turn ({worst[0]}): {worst[1][:400]}", flush=True)


if __name__ == "__main__":
    main()
