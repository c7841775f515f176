"""The shared Trains & Stations sequences (playthroughs.py) do what they say, by the rules."""

from __future__ import annotations

from typing import Any

from companion.core import Action, PlayerSpec
from companion.games.trains_and_stations import GAME, private_json, public_json
from tests.games.trains_and_stations.playthroughs import (
    HOLDINGS_AT_SPECULATION,
    PLAYERS,
    SPECULATION_ANSWERS,
    TO_SPECULATION,
    TO_THE_END,
)


def test_six_ranches_and_two_deliveries_drain_the_cattle_and_open_the_food_speculation() -> None:
    state = GAME.setup([PlayerSpec(p["name"]) for p in PLAYERS], {})
    for kind, player, args in TO_SPECULATION:
        state = GAME.apply(state, Action(kind, player, args))
    # Krok 5: the exhausted ranch deck (cattle) upgrades to food; everyone may speculate
    assert state.left("cattle") == 0
    assert state.speculation is not None and state.speculation.goods == "food"
    assert state.speculation.offers == (None, None, None)
    for p in state.players:
        expected = HOLDINGS_AT_SPECULATION[p.name]
        assert p.good("cattle") == expected["cattle"]
        assert p.special_cards == expected["special_cards"]
    assert "players[].goods" in public_json(state)["hidden"]
    assert private_json(state, 0)["players"][0]["goods"]["cattle"] == 4


def test_only_the_secret_moves_are_private_actions() -> None:
    # "Spekulace při vylepšování": traded "tajně a současně" (secretly, at the same time);
    # "Veřejná informace": goods and special cards lie face down
    assert GAME.private_actions == frozenset({"speculate", "report_special_goods"})


def test_the_answers_settle_the_trade_and_three_big_deliveries_end_the_game() -> None:
    state = GAME.setup([PlayerSpec(p["name"]) for p in PLAYERS], {})
    for kind, player, args in TO_SPECULATION + SPECULATION_ANSWERS:
        state = GAME.apply(state, Action(kind, player, args))
    # Spekulace při vylepšování: 2 for 1, the traded cards leave the game
    assert state.speculation is None and state.turn.player == 0
    assert [p.good("food") for p in state.players] == [2, 2, 0]
    assert [p.good("cattle") for p in state.players] == [0, 1, 3]
    assert state.players[1].special_goods == () and state.players[1].special_cards == 2
    assert dict(state.goods_removed)["cattle"] == 6 and state.special_removed == 1
    for kind, player, args in TO_THE_END[:-1]:
        state = GAME.apply(state, Action(kind, player, args))
        assert not state.over
    assert state.final_round and state.vp_supply == 0  # Konec hry: the last round runs
    kind, player, args = TO_THE_END[-1]
    state = GAME.apply(state, Action(kind, player, args))
    assert state.over  # before the conductor's (Ann's) turn
    assert "hidden" not in public_json(state)
    assert public_json(state)["players"][0]["goods"]["food"] == 2


def test_the_traded_cards_are_shown_face_up_once_everyone_has_answered() -> None:
    """Spekulace při vylepšování: the trade is made "tajně a současně"; then "Takto směněné zboží
    otočte lícem vzhůru tak, aby jej ostatní hráči viděli a poté vyřaďte ze hry". Before the last
    answer no offer is public; once everyone has answered the public view shows what each
    traded (``traded``), and the snapshot reads back the same."""
    state = GAME.setup([PlayerSpec(p["name"]) for p in PLAYERS], {})
    for kind, player, args in TO_SPECULATION:
        state = GAME.apply(state, Action(kind, player, args))
    for kind, player, args in SPECULATION_ANSWERS[:-1]:
        state = GAME.apply(state, Action(kind, player, args))
    public = public_json(state)
    assert public["traded"] is None and "offers" not in public["speculation"]  # type: ignore[operator]
    kind, player, args = SPECULATION_ANSWERS[-1]
    state = GAME.apply(state, Action(kind, player, args))
    public = public_json(state)
    assert public["speculation"] is None
    traded: Any = public["traded"]
    assert traded["goods"] == "food"
    shown = [
        ({g: n for g, n in o["goods"].items() if n}, o["special_goods"]) for o in traded["offers"]
    ]
    assert shown == [({"cattle": 4}, []), ({"cattle": 2}, [["silver", "gold"]]), ({}, [])]
    assert GAME.from_json(GAME.to_json(state)) == state
