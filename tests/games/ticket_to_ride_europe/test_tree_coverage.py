"""Every move by taps (issue 48): each kind of action the Ticket to Ride: Europe engine accepts
is reached through the choices tree in random playouts, so the Advanced JSON form is never
needed at a real table. Also counts the taps a turn takes."""

from __future__ import annotations

import random
import statistics
from collections import Counter

from companion.core.choices import check_tree, leaves, random_leaf
from companion.core.game import PlayerSpec
from companion.games.ticket_to_ride_europe.rules import _HANDLERS, GAME

ACTION_KINDS = frozenset(
    {
        "reveal_face_up",  # LÍZNUTÍ KARET VAGÓNŮ: a card turned face up
        "draw_blind",
        "take_face_up",
        "claim_route",  # OBSAZOVÁNÍ TRATÍ, TRAJEKTY, TUNELY
        "reveal_tunnel",  # TUNELY: the three cards turned
        "declare_hand",  # TUNELY: the claimant's own odds (their view only)
        "pay_tunnel",
        "withdraw_tunnel",
        "draw_tickets",  # LÍZNUTÍ KARET CÍLOVÝCH STANIC
        "keep_ticket",  # ZAČÁTEK HRY too (the player's own view)
        "done_tickets",
        "build_station",  # STAVBA NÁDRAŽÍ
        "pass_turn",  # LÍZNUTÍ KARET VAGÓNŮ: nothing to draw, nothing to pay for (scripted)
    }
)


def test_the_list_is_every_action_the_engine_accepts() -> None:
    assert frozenset(_HANDLERS) == ACTION_KINDS


def playout(seed: int, players: int) -> tuple[dict[str, str], list[int]]:
    """One game through the tree, each step a random leaf of the active player's own view:
    the first path that reached each action kind, and the taps of each turn (every tap on
    the way to a leaf, the table's card reveals included, from one player's turn to the
    next)."""
    rng = random.Random(seed)
    state = GAME.setup([PlayerSpec(f"P{i}") for i in range(players)], {})
    reached: dict[str, str] = {}
    turns: list[int] = []
    taps = 0
    for step in range(5000):
        if GAME.is_over(state) and not state.face_up_due:
            return reached, turns
        active = GAME.status(state).active_players
        tree = GAME.choices(state, rng.choice(active) if active else None)
        check_tree(tree, deep=False)
        picked = random_leaf(tree, rng)
        assert picked is not None, f"seed {seed} step {step}: nothing to enter"
        path, leaf = picked
        assert leaf.action is not None
        reached.setdefault(leaf.action.kind, path)
        before = (state.phase, state.turn)
        state = GAME.apply(state, leaf.action)
        if before[0] == "play":
            taps += path.count("/") + 1
            if state.turn != before[1] or state.phase != "play":
                turns.append(taps)
                taps = 0
    raise AssertionError(f"seed {seed}: no end")


def test_every_action_kind_is_reached_by_taps() -> None:
    """Fails for any action kind only the Advanced form reaches (naming it)."""
    reached: dict[str, str] = {}
    turns: list[int] = []
    for seed in range(4):  # 2, 3, 4 and 5 players; seed 2 pays a tunnel's extra cards
        found, taps = playout(seed, 2 + seed % 4)
        for kind, path in found.items():
            reached.setdefault(kind, path)
        turns += taps
    # a random game does not reach a turn with no move (test_deadlocks.nothing_to_draw):
    # that table, played on through the tree
    from tests.games.ticket_to_ride_europe.test_deadlocks import nothing_to_draw

    state = nothing_to_draw()
    pass_path, pass_leaf = next(leaves(GAME.choices(state, 0)))
    assert pass_leaf.action is not None
    GAME.apply(state, pass_leaf.action)
    reached.setdefault(pass_leaf.action.kind, pass_path)
    # the kinds are the engine's own dispatch table: a kind added there and never offered by
    # the tree fails here, whatever the list above says
    missing = sorted(set(_HANDLERS) - set(reached))
    assert not missing, f"only the Advanced form reaches: {missing}"
    for kind in _HANDLERS:
        assert reached[kind]  # the tree path that reached it
        print(f"{kind}: {reached[kind]}")  # pytest -s: the path that reached each kind
    # a turn is a few taps: the median turn is two cards (two or three taps each, with the
    # face-up card turned after a take); the longest is a tunnel claimed by its city, the hand
    # told kind by kind, the three cards turned and paid (counted here without the table page's
    # one-option shortcut)
    spread = Counter(turns)
    print("taps per turn: median", statistics.median(turns), "max", max(turns))
    assert statistics.median(turns) <= 6, spread
    assert max(turns) <= 26, spread


def test_the_claimant_tells_the_hand_by_taps_in_their_own_view_only() -> None:
    """TUNELY: before the cards are turned the claimant may tell Trackside the rest of the
    hand for their own odds; cards in hand lie face down, so only the claimant's own view
    offers it. The hand is told a kind at a time, each count one the hand can hold; a count
    the rest forces is filled in without a tap."""
    from companion.core.choices import children_at, leaves, node_at
    from companion.games.ticket_to_ride_europe import cards as tc
    from tests.games.ticket_to_ride_europe.test_table import act, edit, started

    state = edit(started(), hands=[{"cards": 4, "known": {"red": 1}}])
    state = act(state, "claim_route", 0, route="munchen-venezia", cards={"blue": 2})
    assert state.players[0].hand == 2  # 1 red seen going in, 1 card unknown
    assert [c.key for c in GAME.choices(state)] == ["tunnel-card"]
    assert [c.key for c in GAME.choices(state, 1)] == ["tunnel-card"]
    mine = GAME.choices(state, 0)
    assert [c.key for c in mine] == ["declare", "tunnel-card"]
    # purple first (the rulebook's order of colours): none or one; the red seen is forced
    first = children_at(mine, "declare")
    assert [c.key for c in first][:2] == ["purple-0", "purple-1"]
    told = node_at(mine, "declare/purple-1")
    assert told.action is not None  # one purple + the red seen: the hand is whole
    assert dict(told.action.arg("cards")) == {"purple": 1, "red": 1}
    hands = [dict(leaf.action.arg("cards")) for _, leaf in leaves(mine) if leaf.action
             and leaf.action.kind == "declare_hand"]  # fmt: skip
    assert {"red": 2} in hands and all(h.get("red", 0) >= 1 and sum(h.values()) == 2 for h in hands)
    for _, leaf in leaves(mine):
        assert leaf.action is not None
        GAME.apply(state, leaf.action)
    after = GAME.apply(state, told.action)
    assert after.tunnel is not None and after.tunnel.declared == tc.cards_of(["purple", "red"])
    assert [c.key for c in GAME.choices(after, 0)] == ["tunnel-card"]
