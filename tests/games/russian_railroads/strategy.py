"""A small scripted Russian Railroads player that plays through the choices tree.

Each seat has a simple plan (Trans-Siberian rush, industry, Kiev/St. Petersburg, engineers);
every turn it looks one action ahead: for every space it can pay for (workers before coins), it
spends the space the best way and values the board it would have: the points so far, plus what
the board scores at a round end times the rounds still to come, plus the seat's plan. It passes
when no space helps. Every entry it makes is a leaf the tree offered, so every turn is legal.
Used to write the golden game (``make_golden.py``) and in tests.
"""

from __future__ import annotations

from companion.core.actions import Action
from companion.core.choices import Choice
from companion.games.russian_railroads import GAME, RussianRailroadsState
from companion.games.russian_railroads.board_data import COLOURS, TRACKS
from companion.games.russian_railroads.scoring import FigureUse, score_round

PLANS = ("trans_siberian", "industry", "kiev_st_petersburg", "engineers")


def value(state: RussianRailroadsState, p: int, plan: str) -> float:
    board = state.players[p]
    rounds_left = state.rounds - state.round + (0 if state.phase == "over" else 1)
    per_round = sum(
        line.points for line in score_round(board.scoring_input(), state.board, FigureUse())
    )
    v = board.score + per_round * max(rounds_left, 1) * 0.9
    black = {t: board.rail(t, "black") for t in TRACKS}
    v += 0.6 * sum(black.values()) + 0.4 * sum(
        board.rail(t, c) for t in TRACKS for c in COLOURS[1:]
    )
    v += 1.2 * sum(sum(board.locos(t)) for t in TRACKS)
    v += 1.5 * board.coins + 0.5 * (board.temporary - board.temporary_used)
    v += 6 * len(board.engineers) + 3 * board.doublers + 2 * len(board.tokens_used)
    match plan:
        case "trans_siberian":
            v += 2.0 * black["trans_siberian"] + 1.0 * sum(board.locos("trans_siberian"))
        case "industry":
            v += 3.0 * sum(board.industry) + 5.0 * len(board.factories)
        case "kiev_st_petersburg":
            v += 1.5 * (black["kiev"] + black["st_petersburg"]) + 1.0 * (
                sum(board.locos("kiev")) + sum(board.locos("st_petersburg"))
            )
        case "engineers":
            v += 8 * len(board.engineers)
    return v


def _leaves(node: Choice, limit: int = 400) -> list[Action]:
    out: list[Action] = []
    stack = [node]
    while stack and len(out) < limit:
        n = stack.pop()
        if n.action is not None:
            out.append(n.action)
        else:
            stack.extend(reversed(n.expand()))
    return out


def best_finish(
    state: RussianRailroadsState, p: int, plan: str, depth: int = 0
) -> tuple[float, RussianRailroadsState]:
    """Spend what the space still gives the best way (greedy, each part in turn)."""
    if (
        depth > 6
        or not state.pending
        or state.pending[0].player != p
        or state.pending[0].kind != "space"
    ):
        return value(state, p, plan), state
    options = [a for node in GAME.choices(state) for a in _leaves(node)]
    best: tuple[float, RussianRailroadsState] | None = None
    for action in options:
        after = GAME.apply(state, action)
        v, end = (
            best_finish(after, p, plan, depth + 1)
            if after.pending[:1] and after.pending[0].kind == "space"
            else (value(after, p, plan), after)
        )
        if best is None or v > best[0]:
            best = (v, end)
    assert best is not None
    return best


def choose(state: RussianRailroadsState, plans: tuple[str, ...] = PLANS) -> Action:
    """The seat's next entry: a leaf of the current tree."""
    tree = GAME.choices(state)
    assert tree, GAME.status(state)
    first = state.pending[0] if state.pending else None
    p = tree[0].player if tree[0].player is not None else 0
    plan = plans[p % len(plans)]
    if first is not None and first.kind not in ("turn_order_move",):
        # a part of the space, or a decision owed: the best leaf one step ahead
        leaves = [a for node in tree for a in _leaves(node)]
        return max(leaves, key=lambda a: _after_value(state, a, p, plan))
    here = value(state, p, plan)
    best: tuple[float, Action] | None = None
    for node in tree:
        if node.key == "pass":
            continue
        # one way to pay: the node is the tap (the hiring space: one coin)
        pay = node.action if node.action is not None else node.expand()[0].action
        # (several: own workers first, coins last)
        assert pay is not None
        after = GAME.apply(state, pay)
        v, _ = best_finish(after, p, plan)
        if best is None or v > best[0]:
            best = (v, pay)
    pass_node = next((n for n in tree if n.key == "pass"), None)
    if best is None or (best[0] - here < 0.5 and pass_node is not None):
        assert pass_node is not None and pass_node.action is not None
        return pass_node.action
    return best[1]


def _after_value(state: RussianRailroadsState, action: Action, p: int, plan: str) -> float:
    after = GAME.apply(state, action)
    if after.pending[:1] and after.pending[0].kind == "space" and after.pending[0].player == p:
        return best_finish(after, p, plan)[0]
    return value(after, p, plan)
