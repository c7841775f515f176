"""Scans → actions: each component id becomes the effect it means now, or a question whose
options are the legal actions."""

from __future__ import annotations

from dataclasses import replace

import pytest

from companion.core import Action, PlayerSpec, Prompt, UnknownComponentError
from companion.core.messages import render_text
from companion.games.russian_railroads import GAME
from tests.games.russian_railroads.helpers import act, board_of, new_game, with_board

TS, SP, KV = "trans_siberian", "st_petersburg", "kiev"


def test_every_component_kind_is_listed_with_an_id() -> None:
    kinds = {c.kind for c in GAME.components}
    assert kinds == {
        "engineer",
        "bonus_card",
        "question_card",
        "locomotive",
        "token",
        "starting_bonus",
    }
    assert len([c for c in GAME.components if c.kind == "engineer"]) == 15
    assert len([c for c in GAME.components if c.kind == "bonus_card"]) == 10


def test_an_engineer_scan_hires_when_the_owner_set_its_number_else_asks() -> None:
    s = new_game(board={"engineer_number_two_black": 12})
    # before the hiring space is taken, the scan asks for it (a turn is one action space)
    first = GAME.interpret(s, 0, "engineer:two_black")
    assert isinstance(first, Prompt) and "first say which action space" in render_text(
        first.question
    )
    assert first.options == (
        Action("take_space", 0, {"space": "hire_engineer", "workers": 0, "temporary": 0,
                                 "coins": 1}),
    )  # fmt: skip
    s = GAME.apply(s, first.options[0])
    result = GAME.interpret(s, 0, "engineer:two_black")
    assert result == Action("hire_engineer", 0, {"number": 12, "ability": "two_black"})
    assert board_of(GAME.apply(s, result), 0).engineers[0].number == 12
    ask = GAME.interpret(s, 0, "engineer:grey_brown")
    assert isinstance(ask, Prompt) and "which number" in render_text(ask.question)


def test_a_locomotive_tile_scan_offers_every_legal_placement_and_the_factory() -> None:
    s = new_game()
    first = GAME.interpret(s, 0, "locomotive:2")
    assert isinstance(first, Prompt)
    assert {o.arg("space") for o in first.options} == {
        "locomotive_1",
        "locomotive_2",
        "locomotive_and_factory",
    }
    for option in first.options:
        GAME.apply(s, option)
    s = GAME.apply(s, first.options[0])
    ask = GAME.interpret(s, 0, "locomotive:2")
    assert isinstance(ask, Prompt)
    kinds = [(o.kind, o.arg("placements")) for o in ask.options]
    assert ("build_factory", None) in kinds
    assert len([k for k in kinds if k[0] == "take_locomotive"]) == 3  # TS free slot, SP, Kiev
    for option in ask.options:
        GAME.apply(s, option)  # every option offered is legal


def test_a_full_board_offers_the_chains_and_the_optional_stop() -> None:
    s = with_board(new_game(), 0, locomotives=((3, 2), (4,), (2,)))
    s = replace(s, locomotive_supply=(0, 0, 0, 0, 4, 4, 4, 4, 4))
    s = GAME.apply(s, Action("take_space", 0, {"space": "locomotive_1", "workers": 1}))
    ask = GAME.interpret(s, 0, "locomotive:5")
    assert isinstance(ask, Prompt)
    chains = [list(o.arg("placements")) for o in ask.options if o.kind == "take_locomotive"]
    assert [{"track": TS, "replace": 3}, {"factory": True}] in [
        [dict(step) for step in chain] for chain in chains
    ]
    for option in ask.options:
        GAME.apply(s, option)


def test_a_returned_factory_tile_can_be_built() -> None:
    s = replace(new_game(), returned_factories=(1,))
    s = GAME.apply(s, Action("take_space", 0, {"space": "locomotive_1", "workers": 1}))
    ask = GAME.interpret(s, 0, "locomotive:1")
    assert isinstance(ask, Prompt)
    assert ask.options == (Action("build_factory", 0, {"from": "returned", "level": 1}),)


def test_token_bonus_and_question_card_scans_answer_what_is_owed() -> None:
    s = with_board(
        new_game(),
        0,
        rails=((1, 0, 0, 0, 0), (3, 0, 0, 0, 0), (1, 0, 0, 0, 0)),
        locomotives=((1,), (5,), ()),
    )
    s = act(s, "build", 0, moves=[{"track": SP, "colour": "black", "steps": 1}])
    token = GAME.interpret(s, None, "token:question_card")
    assert token == Action("use_token", 0, {"token": "question_card"})
    s = GAME.apply(s, token)
    card = GAME.interpret(s, 0, "question:black_worker")
    assert card == Action("question_card", 0, {"card": "black_worker"})
    s = GAME.apply(s, card)
    bonus = GAME.interpret(s, 0, "bonus:tokens")
    assert bonus == Action("bonus_card", 0, {"card": "tokens"})
    s = GAME.apply(s, bonus)
    assert board_of(s, 0).bonus_cards == ("tokens",)


def test_scans_out_of_place_become_questions() -> None:
    s = new_game()
    assert isinstance(GAME.interpret(s, 0, "bonus:points_15"), Prompt)
    assert isinstance(GAME.interpret(s, 0, "question:locomotive_9"), Prompt)
    industry = GAME.interpret(s, 0, "token:industry_five")
    assert isinstance(industry, Prompt)
    assert industry.options == (
        Action("use_token", 0, {"token": "industry_five", "space": "industry"}),
    )


def test_starting_bonus_scans() -> None:
    s = GAME.setup([PlayerSpec(n) for n in "AB"], {})
    ask = GAME.interpret(s, 1, "start:black_step")
    assert isinstance(ask, Prompt) and len(ask.options) == 3
    assert GAME.interpret(s, 1, "start:coin") == Action("starting_bonus", 1, {"card": "coin"})


def test_an_unknown_component_is_refused() -> None:
    with pytest.raises(UnknownComponentError):
        GAME.interpret(new_game(), 0, "meeple:blue")
