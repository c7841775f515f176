"""The choices tree of Trains & Stations (``choices.py``): every move of the rulebook (seed 003,
"Vlaky a stanice") reached by taps, in small steps, each leaf one ``apply`` accepts.

Each scenario walks the tree by its keys, as a person taps, and applies the leaf it reaches."""

from __future__ import annotations

import random
from dataclasses import replace
from itertools import product
from typing import Any

import pytest

from companion.core import Action
from companion.core.choices import Choice, check_tree, children_at, leaves, node_at
from companion.core.errors import TracksideError
from companion.core.jsonvalue import thaw
from companion.games.trains_and_stations import GAME, TSState
from companion.games.trains_and_stations.data import GOODS, TASK_POINTS_MAX
from companion.games.trains_and_stations.state import Offer, Speculation, Station, counts
from tests.games.trains_and_stations.helpers import act, at_deliver, give, table


def tap(state: TSState, path: str, viewer: int | None = None) -> Action:
    """The action at the end of ``path`` (keys joined by "/"), as the table or ``viewer``
    taps it; the tree is checked one level at a time on the way."""
    tree = GAME.choices(state, viewer)
    keys = path.split("/")
    for i in range(1, len(keys)):
        check_tree(children_at(tree, "/".join(keys[:i])), deep=False)
    leaf = node_at(tree, path)
    assert leaf.action is not None, path
    return leaf.action


def args(action: Action) -> Any:
    """The action's arguments as plain JSON values."""
    return thaw(action.args)


def keys(state: TSState, path: str, viewer: int | None = None) -> list[str]:
    return [c.key for c in children_at(GAME.choices(state, viewer), path)]


def leaf_actions(nodes: tuple[Choice, ...]) -> list[Action]:
    found = []
    for _, leaf in leaves(nodes):
        assert leaf.action is not None
        found.append(leaf.action)
    return found


# -- Krok 3: Vyhodnocení kostek — Schovávání kostek -------------------------------------------
def test_the_rulebook_keeps_two_hotels_for_the_next_turn() -> None:
    """ "Schovávání kostek: Můžete se rozhodnout schovat libovolný počet svých kostek se
    symbolem Budovy nebo Mince do příštího kola." Example: Erik rolled only 2 hotels, could not
    build, and keeps both; next turn he starts with them and rolls 3 of his dice."""
    state = table("Erik", "Bohouš", "Sára")
    state = act(state, "roll", 0, dice=["hotel", "hotel", "coin", "mine", "train"])
    kept = tap(state, "resolve/coins-1/keep-hotel-2/keep-mine-0")
    assert args(kept)["keep"] == ["hotel", "hotel"]
    after = GAME.apply(state, kept)
    assert after.players[0].dice_kept == ("hotel", "hotel")
    # every count of every face, up to what was rolled and not used
    assert keys(state, "resolve/coins-0/keep-coin-1") == ["keep-hotel-0", "keep-hotel-1", "keep-hotel-2"]  # fmt: skip
    # the one coin die was cashed: no coin to keep; keeping nothing is one tap
    assert keys(state, "resolve/coins-1")[:2] == ["keep-none", "keep-hotel-0"]
    assert args(tap(state, "resolve/coins-1/keep-none"))["keep"] == []


def test_bonus_dice_are_never_kept() -> None:
    """ "Není možné schovat bonusové kostky": three hotels, two of them on bonus dice."""
    state = give(table("Erik", "Bohouš", "Sára"), 0, bonus_dice=2)
    state = act(
        state, "roll", 0, dice=["hotel", "coin", "coin", "mine", "mine"], bonus=["hotel"] * 2
    )
    # no build: one own hotel to keep at most
    assert keys(state, "resolve/no-build/coins-1/keep-coin-0") == ["keep-hotel-0", "keep-hotel-1"]


# -- Krok 1 and Krok 2: bonus dice ------------------------------------------------------------
def test_bonus_dice_beyond_five_are_optional_and_rerolled_like_any_die() -> None:
    """ "Hrát s více než pěti kostkami je nepovinné; bonusové kostky si můžete schovat do
    příštích tahů" (Krok 1: Sběr kostek) and "zaplatit 1 minci a libovolný počet kostek
    přehodit (s výjimkou Zamčených vlaků)" (Krok 2: Přehazování) — bonus dice included."""
    state = give(table("Erik", "Bohouš", "Sára"), 0, bonus_dice=2)
    assert keys(state, "roll") == ["bonus-2", "bonus-1", "bonus-0"]
    one = tap(state, "roll/bonus-1/coin-5/coin-1")
    assert args(one) == {"dice": ["coin"] * 5, "bonus": ["coin"]}
    # the white dice's step says so: a person knows which dice they are counting
    bonus_step = node_at(GAME.choices(state), "roll/bonus-1/coin-5/coin-1")
    assert bonus_step.label.render() == "bonus dice: 1 coin"
    state = GAME.apply(state, one)
    reroll = tap(state, "reroll/coin-5/coin-0/hotel-1")
    assert args(reroll) == {"dice": ["coin"] * 5, "bonus": ["hotel"]}
    after = GAME.apply(state, reroll)
    assert after.turn.bonus == ("hotel",) and after.players[0].coins == 2


def test_a_locked_bonus_die_stays_locked_in_a_reroll() -> None:
    state = give(table("Erik", "Bohouš", "Sára"), 0, bonus_dice=2)
    state = act(state, "roll", 0, dice=["coin"] * 5, bonus=["locked", "mine"])
    rerolls = leaf_actions(children_at(GAME.choices(state), "reroll/coin-5"))
    assert rerolls and all(args(a)["bonus"].count("locked") >= 1 for a in rerolls)
    assert any(args(a)["bonus"] == ["train", "locked"] for a in rerolls)


def test_ten_bonus_dice_are_entered_in_small_fast_steps() -> None:
    """The roll with 10 bonus dice has 756,756 complete rolls: the tree offers them face by
    face as counts, so no step has more than 11 choices (each built in about 1 ms here: a
    figure measured for the issue, not a timed test)."""
    state = give(table("Erik", "Bohouš", "Sára"), 0, bonus_dice=10)
    rng = random.Random(3)
    for _ in range(40):
        nodes = GAME.choices(state)
        while nodes:
            assert len(nodes) <= 11
            pick = rng.choice(nodes)
            if pick.is_leaf:
                assert pick.action is not None
                GAME.apply(state, pick.action)
                break
            nodes = pick.expand()


# -- Spekulace při vylepšování ----------------------------------------------------------------
def at_speculation(state: TSState, goods: str = "food") -> TSState:
    offers: tuple[Offer | None, ...] = (None,) * len(state.players)
    return replace(state, speculation=Speculation(goods, offers))


def test_the_rulebook_speculations_with_mixed_goods() -> None:
    """Spekulace při vylepšování, the rulebook's example: Erik trades 4 cattle and 2 workers for
    3 food, Bohouš 1 cattle and 1 coal for 1 food, Sára 2 workers and 2 coal for 2 food."""
    state = table("Erik", "Bohouš", "Sára")
    state = give(state, 0, goods={"cattle": 6, "workers": 2})
    state = give(state, 1, goods={"cattle": 1, "coal": 1})
    state = give(state, 2, goods={"cattle": 3, "workers": 2, "coal": 2})
    state = at_speculation(state)
    erik = tap(state, "speculate/trade/workers-2/cattle-4", viewer=0)
    bohous = tap(state, "speculate/trade/coal-1/cattle-1", viewer=1)
    sara = tap(state, "speculate/trade/workers-2/coal-2/cattle-0", viewer=2)
    assert args(erik) == {"goods": {"workers": 2, "cattle": 4}}
    assert args(bohous) == {"goods": {"coal": 1, "cattle": 1}}
    assert args(sara) == {"goods": {"workers": 2, "coal": 2}}
    for action in (erik, bohous, sara):
        state = GAME.apply(state, action)
    assert [p.good("food") for p in state.players] == [3, 1, 2]
    assert [p.good("cattle") for p in state.players] == [2, 0, 3]


def test_an_odd_trade_is_never_offered_and_the_table_sees_no_trade() -> None:
    state = at_speculation(give(table("Erik", "Bohouš", "Sára"), 1, goods={"cattle": 1, "coal": 2}))
    offered = leaf_actions(children_at(GAME.choices(state, 1), "speculate/trade"))
    given = sorted(tuple(sorted(args(a)["goods"].items())) for a in offered)
    assert given == [(("cattle", 1), ("coal", 1)), (("coal", 2),)]
    # the table's own view (and another player's) never shows Bohouš's goods or his trade
    assert "speculate" not in [c.key for c in GAME.choices(state)]
    assert all(c.player != 1 for c in GAME.choices(state, 0))


def test_a_two_goods_special_card_trades_as_two_goods() -> None:
    """Speciální karty: "V průběhu spekulace při vylepšování je možné ji směnit, stejně jako 2
    karty zboží". The owner reports the card in their own view first, then trades it."""
    state = give(table("Erik", "Bohouš", "Sára"), 0, goods={"coal": 1})
    state = at_speculation(state)
    report = tap(state, "special-goods/cards-1/coal/coal-cattle", viewer=0)
    assert args(report) == {"cards": [["coal", "cattle"]]}
    state = GAME.apply(state, report)
    trade = tap(state, "speculate/trade/coal-0/card-coal-cattle-1", viewer=0)
    assert args(trade) == {"goods": {}, "special_goods": [["coal", "cattle"]]}
    state = GAME.apply(state, trade)
    assert state.speculation is not None and state.speculation.offers[0] is not None
    assert state.speculation.offers[0].cards == 2


# -- the short deck's share-out ---------------------------------------------------------------
def test_every_share_out_of_a_short_deck_is_offered_player_by_player() -> None:
    """ "Pokud není dostatek karet zboží …, hráč na tahu rozhodne o rozdělení karet": every
    legal share-out (here 3 players each traded for 6, 8 cards left: 36 ways per player count,
    more than the 60 an earlier tree stopped at with 5 players), one player at a time."""
    names = ("Erik", "Bohouš", "Sára", "Karel", "Petr")
    state = table(*names)
    offer = Offer(counts(GOODS, {"cattle": 8}))
    wanted = [4, 4, 4, 4, 0]
    offers = tuple(Offer(counts(GOODS, {"cattle": 2 * w})) if w else Offer(counts(GOODS, {})) for w in wanted)  # fmt: skip
    assert offer.cards == 8
    food = 8
    state = replace(
        state,
        speculation=Speculation("food", offers),
        goods_left=tuple((g, food if g == "food" else k) for g, k in state.goods_left),
    )
    legal = {given for given in product(*(range(w + 1) for w in wanted)) if sum(given) == food}
    tree = GAME.choices(state)
    check_tree(tree)
    offered = {tuple(args(a)["cards"]) for a in leaf_actions(children_at(tree, "allocate"))}
    assert offered == legal and len(legal) > 60
    for path, leaf in leaves(children_at(tree, "allocate"), "allocate"):
        assert leaf.action is not None
        GAME.apply(state, leaf.action)
        assert len(children_at(tree, path.rsplit("/", 1)[0])) <= 5
    # Petr traded nothing: he is never asked about
    assert keys(state, "allocate")[0].startswith("p0-")
    assert all("p4" not in p for p, _ in leaves(children_at(tree, "allocate")))


# -- Krok 4: Doručení! ------------------------------------------------------------------------
def seattle_billings_detroit() -> TSState:
    """Erik's delivery in the rulebook (Krok 4: Doručení!): Erik and Bohouš have trains on the
    route Seattle – Los Angeles – Billings, with 2 bonus dice; the table named the stations."""
    state = table("Erik", "Bohouš", "Sára", "Karel")
    state = give(state, 0, dice_on_board=3)
    state = give(state, 1, dice_on_board=3)
    named = tuple(Station(n, 2, ()) for n in ("Seattle", "Los Angeles", "Billings", "Detroit"))
    state = replace(state, bonus_on_board=2, stations=named)
    return at_deliver(replace(state, turn=replace(state.turn, placed=(3, 0))))


def test_the_rulebook_delivery_of_three_cities_with_bonus_dice_and_a_tie() -> None:
    state = seattle_billings_detroit()
    assert keys(state, "deliver") == [f"cities-{n}" for n in range(2, 6)]
    path = "deliver/cities-3/c0/b-special/c1/b-die/c2/b-vp/dice-3/dice-3/bonus-2/majority-0/done"
    action = tap(state, path)
    assert args(action)["cities"] == [
        {"name": "Seattle", "bonus": "special"},
        {"name": "Los Angeles", "bonus": "die"},
        {"name": "Billings", "bonus": "vp"},
    ]
    assert args(action)["dice"] == [3, 3, 0, 0] and args(action)["bonus_dice"] == 2
    after = GAME.apply(state, action)
    erik, bohous, sara, karel = after.players
    assert (erik.vp, bohous.vp, sara.vp, karel.vp) == (3 + 3 + 1, 3 + 3, 3, 3)
    assert after.bonus_on_board == 0 and erik.bonus_dice == 1
    # the tie is the active player's to break, his own or another's
    assert keys(state, "deliver/cities-3/c0/b-special/c1/b-die/c2/b-vp/dice-3/dice-3/bonus-2") == [
        "majority-0",
        "majority-1",
    ]


def test_a_route_filled_by_a_bonus_die_needs_none_of_the_active_players_dice() -> None:
    """A delivery happens when this turn's placement fills a route: a bonus die placed this turn
    may be the one (Krok 4: Doručení!)."""
    state = seattle_billings_detroit()
    state = replace(state, turn=replace(state.turn, placed=(0, 1)))
    action = tap(state, "deliver/cities-2/c2/b-vp/c3/b-vp/dice-0/dice-2/bonus-1/done")
    assert args(action)["dice"] == [0, 2, 0, 0] and args(action)["bonus_dice"] == 1
    GAME.apply(state, action)
    # without a bonus die on it this route was not filled this turn: not offered
    assert keys(state, "deliver/cities-2/c2/b-vp/c3/b-vp/dice-0/dice-2") == ["bonus-1", "bonus-2"]


def test_the_rulebook_coal_payout_in_the_order_the_active_player_picks() -> None:
    """Vyzvednutí zboží: "aktivní hráč rozhoduje o pořadí vyplácení" — Erik, Bohouš, Sára and
    Karel each have a mine in the joined stations, 3 coal are left: Erik pays Karel last, and
    Karel gets 1 VP instead."""
    state = table("Erik", "Bohouš", "Sára", "Karel")
    mines = tuple((i, "mine") for i in range(2)), tuple((i, "mine") for i in range(2, 4))
    state = replace(
        give(state, 0, dice_on_board=1),
        stations=(Station("Denver", 2, mines[0]), Station("Omaha", 2, mines[1])),
        goods_left=tuple((g, 3 if g == "coal" else k) for g, k in state.goods_left),
    )
    state = at_deliver(replace(state, turn=replace(state.turn, placed=(1, 0))))
    route = "deliver/cities-2/c0/b-vp/c1/b-vp"
    assert keys(state, route) == ["pay-0", "pay-1", "pay-2", "pay-3"]
    action = tap(state, f"{route}/pay-0/pay-1/pay-2/done")
    assert args(action)["goods_order"] == [0, 1, 2, 3]
    after = GAME.apply(state, action)
    assert [p.good("coal") for p in after.players] == [1, 1, 1, 0]
    assert after.players[3].vp == 3 + 1
    first_karel = GAME.apply(state, tap(state, f"{route}/pay-3/pay-0/pay-1/done"))
    assert [p.good("coal") for p in first_karel.players] == [1, 1, 0, 1]


def test_the_rulebook_task_seattle_detroit_in_saras_own_view() -> None:
    """Ukončení úkolů: after Seattle – Los Angeles – Billings and Billings – Detroit, Sára lays
    her Seattle – Detroit task card though she has no train on either route. A task card is a
    face-down special card, so only Sára's own view offers it."""
    state = seattle_billings_detroit()
    state = GAME.apply(state, tap(state, "deliver/cities-3/c0/b-special/c1/b-die/c2/b-vp/dice-2/dice-1/bonus-0/done"))  # fmt: skip
    state = replace(state, turn=replace(state.turn, placed=(1, 0)))
    state = GAME.apply(state, tap(state, "deliver/cities-2/c2/b-vp/c3/b-vp/dice-0/bonus-0/done"))  # fmt: skip
    assert "task" not in keys(state, "")
    # this turn's cities: Billings, Detroit, Los Angeles, Seattle
    assert node_at(GAME.choices(state, 2), "task/from-1").label.render() == "Detroit"
    task = tap(state, "task/from-1/to-3/points-10-19/points-12", viewer=2)
    assert task == Action("complete_task", 2, {"cities": ["Detroit", "Seattle"], "points": 12})
    after = GAME.apply(state, task)
    assert after.players[2].task_points == 12
    # the same pair once per turn ("Pokud hráč má dvě stejné karty úkolu, může vyložit pouze
    # jednu z nich")
    assert "to-3" not in keys(after, "task/from-1", viewer=2)


def test_every_task_value_the_engine_takes_is_offered() -> None:
    """Ukončení úkolů: "na konci hry za ní dostane její hodnotu ve VB" — the value printed on the
    card, which the rulebook does not list: the tree offers every value the engine takes (1–99,
    the tens first), and the engine refuses what the tree does not offer."""
    state = seattle_billings_detroit()
    state = GAME.apply(state, tap(state, "deliver/cities-3/c0/b-special/c1/b-die/c2/b-vp/dice-2/dice-1/bonus-0/done"))  # fmt: skip
    tree = GAME.choices(state, 2)
    tens = children_at(tree, "task/from-0/to-1")
    assert [c.key for c in tens][:3] == ["points-1-9", "points-10-19", "points-20-29"]
    assert all(len(c.expand()) <= 10 for c in tens)
    offered = {args(a)["points"] for a in leaf_actions(tens)}
    assert offered == set(range(1, TASK_POINTS_MAX + 1))
    for points in (1, TASK_POINTS_MAX):
        GAME.apply(state, Action("complete_task", 2, {"cities": ["Los Angeles", "Seattle"], "points": points}))  # fmt: skip
    for points in (0, TASK_POINTS_MAX + 1):
        with pytest.raises(TracksideError):
            GAME.apply(state, Action("complete_task", 2, {"cities": ["Los Angeles", "Seattle"], "points": points}))  # fmt: skip


# -- every kind of move, through the tree -----------------------------------------------------
def short_speculation() -> TSState:
    """Every player holds cattle and workers when the ranch's food deck comes into play with one
    card left: a trade of 2 for 1 by two players leaves the active player to share it out."""
    state = table("P0", "P1", "P2")
    for i in range(3):
        state = give(state, i, goods={"cattle": 3, "workers": 2})
    state = replace(
        state,
        goods_in_play=(*state.goods_in_play, "food"),
        goods_left=tuple((g, 1 if g == "food" else k) for g, k in state.goods_left),
    )
    return at_speculation(state)


def drained(seed: int) -> TSState:
    """Part of every deck already traded away, so upgrades, speculation and short decks come
    up within a game (as in test_random_play)."""
    rng = random.Random(seed)
    state = table("P0", "P1", "P2")
    gone = {g: rng.randint(4, 10) if g in state.goods_in_play else 0 for g in GOODS}
    return replace(
        state,
        goods_left=tuple((g, k - gone[g]) for g, k in state.goods_left),
        goods_removed=tuple((g, gone[g]) for g, _ in state.goods_removed),
    )


def test_every_action_kind_the_engine_takes_is_reached_through_the_tree() -> None:
    """Random playouts through the tree (a random player's own view at each step) reach every
    kind of move the engine accepts (read from ``apply``'s own handlers): nothing needs the
    advanced form at a real table. The path that first reached each kind is printed (-s)."""
    kinds = set(GAME.action_kinds)
    assert "complete_task" in kinds and "no-such-move" not in kinds
    seen: dict[str, str] = {}
    starts = [*(short_speculation() for _ in range(5)), *(drained(seed) for seed in range(20))]
    for seed, start in enumerate(starts):
        state = start
        rng = random.Random(seed)
        for _ in range(3000):
            if state.over:
                break
            views = [v for v in range(len(state.players)) if GAME.choices(state, v)]
            viewer = rng.choice(views)
            nodes, path = GAME.choices(state, viewer), []
            while True:
                pick = rng.choice(nodes)
                path.append(pick.key)
                if pick.is_leaf:
                    break
                nodes = pick.expand()
            assert pick.action is not None
            state = GAME.apply(state, pick.action)  # raises (fails the test) when refused
            seen.setdefault(pick.action.kind, "/".join(path))
        if set(seen) >= kinds:
            break
    for kind in sorted(seen):
        print(f"{kind}: {seen[kind]}")
    assert set(seen) >= kinds, (sorted(kinds - set(seen)), seen)


# -- Veřejná informace: a pending secret trade ------------------------------------------------
def tree_json(state: TSState, viewer: int | None) -> list[tuple[str, Any]]:
    return [(path, leaf.to_json()) for path, leaf in leaves(GAME.choices(state, viewer))]


def test_a_pending_secret_trade_changes_nothing_the_others_see() -> None:
    """Spekulace při vylepšování: "všichni hráči tajně a současně směnit": while others still
    answer, what Erik gave is not on any public surface, nor in another player's view."""
    state = table("Erik", "Bohouš", "Sára")
    for i in range(3):
        state = give(state, i, goods={"cattle": 2, "coal": 1})
    state = at_speculation(state)
    traded = GAME.apply(state, tap(state, "speculate/trade/coal-1/cattle-1", viewer=0))
    kept = GAME.apply(state, tap(state, "speculate/none", viewer=0))
    assert traded != kept
    for viewer in (None, 1, 2):
        assert tree_json(traded, viewer) == tree_json(kept, viewer)
    assert GAME.public_json(traded) == GAME.public_json(kept)
    assert GAME.status(traded) == GAME.status(kept)
