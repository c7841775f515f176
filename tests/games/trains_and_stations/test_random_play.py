"""Whole games of random (but reported-as-legal) play: whatever the table does, the cards, dice
and buildings always add up, every state survives the snapshot round trip, and the game ends
with equal turns (hypothesis drives the choices)."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.core import Action, IllegalActionError, PlayerSpec, SnapshotError
from companion.games.trains_and_stations import GAME, TSState
from companion.games.trains_and_stations.data import BUILDINGS, FACES, GOODS

CITIES = ["Seattle", "Boise", "Denver", "Omaha", "Reno", "Billings", "Detroit"]


def choose_action(state: TSState, rng: random.Random) -> Action:
    t = state.turn
    me = t.player
    p = state.players[me]
    n = len(state.players)
    if state.speculation is not None:
        waiting = [i for i, o in enumerate(state.speculation.offers) if o is None]
        if not waiting:
            left = state.left(state.speculation.goods)
            wanted = [o.cards // 2 for o in state.speculation.offers if o is not None]
            cards = [0] * n
            for _ in range(left):
                i = rng.choice([i for i in range(n) if cards[i] < wanted[i]])
                cards[i] += 1
            return Action("allocate_speculation", me, {"cards": cards})
        who = rng.choice(waiting)
        holder = state.players[who]
        give: dict[str, int] = {}
        for g in GOODS:
            if g != state.speculation.goods and holder.good(g) and rng.random() < 0.5:
                give[g] = rng.randint(0, holder.good(g))
        if sum(give.values()) % 2:
            give = {}
        return Action("speculate", who, {"goods": give})
    if t.phase == "gather":
        if p.dice_on_board >= 5 and rng.random() < 0.3:
            return Action("withdraw", me)
        own = min(5, 8 - p.dice_on_board)
        bonus = p.bonus_dice if rng.random() < 0.7 else rng.randint(0, p.bonus_dice)
        return Action(
            "roll",
            me,
            {
                "dice": [rng.choice(FACES) for _ in range(own)],
                "bonus": [rng.choice(FACES) for _ in range(bonus)],
            },
        )
    if t.phase == "rolled":
        if rng.random() < 0.3 and p.coins and not t.struck:
            dice = [f if f == "locked" else rng.choice(FACES) for f in t.dice]
            return Action("reroll", me, {"dice": dice})
        faces = list(t.dice) + list(t.bonus)
        build = []
        for b in BUILDINGS:
            for _ in range(faces.count(b) // 3):
                station = rng.choice(CITIES)
                build.append({"building": b, "station": station, "capacity": 2 + len(station) % 2})
        coins = faces.count("coin")
        keep = [f for f in t.dice if f in ("hotel", "mine", "ranch") and rng.random() < 0.3]
        return Action("resolve", me, {"build": build, "coins": coins, "keep": keep[:1]})
    if t.phase == "deliver" and rng.random() < 0.5:
        on_route = [rng.randint(0, q.dice_on_board) for q in state.players]
        cities = rng.sample(CITIES, rng.randint(2, 4))
        most = max(on_route)
        tied = [i for i, d in enumerate(on_route) if d == most]
        deliver_args: dict[str, Any] = {
            "cities": [{"name": c, "bonus": rng.choice(["vp", "special", "die"])} for c in cities],
            "dice": on_route,
            "bonus_dice": rng.randint(0, state.bonus_on_board),
            "goods_order": rng.sample(range(n), n),
        }
        if most and len(tied) > 1:
            deliver_args["majority"] = rng.choice(tied)
        if sum(on_route) + deliver_args["bonus_dice"] == 0:
            deliver_args["bonus_dice"] = 0
            on_route[me] = min(1, state.players[me].dice_on_board)
        return Action("deliver", me, deliver_args)
    if t.phase == "deliver" and t.deliveries and rng.random() < 0.3:
        who = rng.randrange(n)
        a, b = t.deliveries[-1][:2]
        return Action("complete_task", who, {"cities": [a, b], "points": rng.randint(1, 12)})
    args: dict[str, Any] = {}
    exhausted = [b for b in BUILDINGS if (on := state.deck(b)) and state.left(on) == 0]
    if exhausted:
        args["upgrade"] = rng.choice(exhausted)
        args["printed_next"] = "silver" if args["upgrade"] == "mine" else None
        if args["upgrade"] == "hotel":
            args["hotel_to"] = rng.choice(["silver", "food"])
        args = {k: v for k, v in args.items() if v is not None}
    return Action("end_turn", me, args)


@settings(max_examples=25, deadline=None)
@given(st.integers(3, 5), st.integers(0, 2**32))
def test_random_games_stay_consistent(players: int, seed: int) -> None:
    rng = random.Random(seed)
    state = GAME.setup(
        [PlayerSpec(f"P{i}") for i in range(players)], {"conductor": rng.randrange(players)}
    )
    # start with part of every deck already gone (traded away), so exhaustion, upgrades and
    # speculation come up within a game
    drained = {g: rng.randint(0, 10) if g in state.goods_in_play else 0 for g in GOODS}
    state = replace(
        state,
        goods_left=tuple((g, k - drained[g]) for g, k in state.goods_left),
        goods_removed=tuple((g, drained[g]) for g, _ in state.goods_removed),
    )
    turns = [0] * players
    applied = 0
    for _ in range(1500):
        if GAME.is_over(state):
            break
        action = choose_action(state, rng)
        try:
            new = GAME.apply(state, action)
        except (IllegalActionError, SnapshotError):
            continue
        if new.turn.player != state.turn.player or new.over:
            turns[state.turn.player] += 1
        state = new
        applied += 1
        assert GAME.problems(state) == (), (action, GAME.problems(state))
        if applied % 25 == 0:
            assert GAME.from_json(json.loads(json.dumps(GAME.to_json(state)))) == state
    assert applied > 0
    if GAME.is_over(state):
        # everybody played the same number of turns; the sheet scores every player
        assert len(set(turns)) == 1, turns
        sheet = GAME.score(state)
        assert sheet.winners
