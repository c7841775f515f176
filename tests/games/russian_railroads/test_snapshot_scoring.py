"""`trackside score` for Russian Railroads: the contract snapshot scored exactly, the rulebook's
worked examples, every bonus card, and malformed snapshots refused with the field path."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from companion.core import SnapshotError
from companion.core.messages import render_text
from companion.games import find_game
from companion.games.russian_railroads.board_data import BONUS_CARDS

GAME = find_game("russian-railroads")


def red() -> dict[str, Any]:
    """Red's board from the rulebook's scoring example (seed 000, "VYHODNOCENÍ A ZÍSKÁVÁNÍ
    BODŮ") — the contract's own example."""
    return {
        "name": "Red",
        "rails": {
            "trans_siberian": {"black": 9, "grey": 7, "brown": 3},
            "st_petersburg": {"black": 1},
            "kiev": {"black": 4},
        },
        "locomotives": {"trans_siberian": [6, 2], "st_petersburg": [], "kiev": [2]},
        "doublers": 1,
        "revaluation": False,
        "kiev_medal": False,
        "factories": 1,
        "industry": [5],
    }


def snapshot(*players: dict[str, Any], scoring: str = "round") -> dict[str, Any]:
    return {
        "game": "russian-railroads",
        "format": 1,
        "scoring": scoring,
        "players": list(players),
    }


def board(name: str, **fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "name": name,
        "rails": {
            "trans_siberian": {"black": 1},
            "st_petersburg": {"black": 1},
            "kiev": {"black": 1},
        },
        "locomotives": {"trans_siberian": [1]},
        "industry": [0],
    }
    base.update(fields)
    return base


def final(name: str, **fields: Any) -> dict[str, Any]:
    defaults: dict[str, Any] = {
        "engineers": [],
        "bonus_cards": [],
        "extra_workers": 0,
        "tokens_used": 0,
    }
    defaults.update(fields)
    return board(name, **defaults)


def test_reds_round_is_12_plus_0_plus_3_plus_5_equals_20() -> None:
    sheet = GAME.score_snapshot(snapshot(red()))
    player = sheet.player("Red")
    assert [(line.category, line.points) for line in player.lines] == [
        ("trans_siberian", 12),
        ("st_petersburg", 0),
        ("kiev", 3),
        ("industry", 5),
    ]
    assert player.total == 20
    ts = render_text(player.lines[0].note)
    assert "reach 8 (locomotives 6+2)" in ts
    assert "brown 1–3 ×2, doubler on 1 → 8" in ts
    assert "grey 4–7 ×1 → 4" in ts
    assert "black 8 → 0" in ts
    assert "bonus stars 1+2 → 3" in render_text(player.lines[2].note)
    assert "factory 1" in render_text(player.lines[3].note)
    assert sheet.winners == ()


def test_the_sheet_is_json_and_says_the_industry_values_are_unverified() -> None:
    data = GAME.score_snapshot(json.loads(json.dumps(snapshot(red())))).to_json()
    assert json.loads(json.dumps(data)) == data
    assert any("industry track values" in n for n in data["notes"])  # type: ignore[union-attr]


def test_engineer_majority_example_red_40_yellow_20() -> None:
    """Seed 000, "NEJVÍCE INŽENÝRŮ": Red 3 engineers, Blue 2, Yellow 2 (with the 13), Green 0."""
    sheet = GAME.score_snapshot(
        snapshot(
            final("Red", engineers=[1, 5, 9]),
            final("Blue", engineers=[2, 11]),
            final("Yellow", engineers=[4, 13]),
            final("Green"),
            scoring="final",
        )
    )
    assert [sheet.player(n).points("engineers") for n in ("Red", "Blue", "Yellow", "Green")] == [
        40,
        0,
        20,
        0,
    ]
    assert "most → 40" in render_text(sheet.player("Red").lines[-1].note)
    assert "no engineer" in render_text(sheet.player("Green").lines[-1].note)


def test_final_scoring_lists_every_category_even_at_zero() -> None:
    sheet = GAME.score_snapshot(snapshot(final("A"), final("B"), scoring="final"))
    for player in sheet.players:
        assert [line.category for line in player.lines] == [
            "trans_siberian",
            "st_petersburg",
            "kiev",
            "industry",
            "bonus_cards",
            "engineers",
        ]
        assert player.total == 0


def test_a_tie_for_most_engineers_goes_to_the_highest_number_and_the_other_is_second() -> None:
    sheet = GAME.score_snapshot(
        snapshot(
            final("A", engineers=[3, 7]),
            final("B", engineers=[2, 12]),
            final("C", engineers=[5]),
            scoring="final",
        )
    )
    assert [p.points("engineers") for p in sheet.players] == [20, 40, 0]


def test_the_engineer_count_card_counts_for_the_count_but_not_the_tie_break() -> None:
    sheet = GAME.score_snapshot(
        snapshot(
            final("A", engineers=[14], bonus_cards=["engineer_count"]),
            final("B", engineers=[2, 3]),
            final("C", engineers=[1]),
            scoring="final",
        )
    )
    # A and B both count 2; B's highest number 3 loses to A's 14.
    assert [p.points("engineers") for p in sheet.players] == [40, 20, 0]
    assert sheet.player("A").points("bonus_cards") == 0


def test_the_engineer_count_card_alone_is_one_engineer() -> None:
    sheet = GAME.score_snapshot(
        snapshot(final("A", bonus_cards=["engineer_count"]), final("B"), scoring="final")
    )
    assert [p.points("engineers") for p in sheet.players] == [40, 0]


@pytest.mark.parametrize(
    ("card", "fields", "points"),
    [
        ("points_15", {}, 15),
        ("extra_workers", {"extra_workers": 2}, 20),
        ("extra_workers", {"extra_workers": 3}, 30),
        ("doublers", {"doublers": 3}, 0),
        ("doublers", {"doublers": 4}, 20),
        ("doublers", {"doublers": 7}, 30),
        (
            "terminus",
            {
                "rails": {
                    "trans_siberian": {"black": 15},
                    "st_petersburg": {"black": 9},
                    "kiev": {"black": 4},
                }
            },
            20,
        ),
        (
            "black_rails",
            {
                "rails": {
                    "trans_siberian": {"black": 11},
                    "st_petersburg": {"black": 5},
                    "kiev": {"black": 7},
                }
            },
            23,
        ),
        ("engineer_count", {"engineers": [3]}, 0),
        ("factories", {"factories": 3}, 12),
        ("factories", {"factories": 5}, 20),
        (
            "locomotives",
            {"locomotives": {"trans_siberian": [6, 2], "kiev": [3], "st_petersburg": [5]}},
            16,
        ),
        ("tokens", {"tokens_used": 3}, 21),
        ("tokens", {"tokens_used": 4}, 28),
        ("engineers_6", {"engineers": [3, 8, 10], "bonus_cards": []}, 18),
    ],
)
def test_every_final_bonus_card(card: str, fields: dict[str, Any], points: int) -> None:
    fields = {**fields, "bonus_cards": [*fields.get("bonus_cards", []), card]}
    sheet = GAME.score_snapshot(snapshot(final("A", **fields), scoring="final"))
    assert sheet.player("A").points("bonus_cards") == points


def test_engineers_6_does_not_count_the_engineer_count_card() -> None:
    sheet = GAME.score_snapshot(
        snapshot(
            final("A", engineers=[3, 8], bonus_cards=["engineers_6", "engineer_count"]),
            scoring="final",
        )
    )
    assert sheet.player("A").points("bonus_cards") == 12


def test_final_includes_the_last_rounds_scoring_and_winners_when_scores_are_given() -> None:
    sheet = GAME.score_snapshot(
        snapshot(
            {
                **red(),
                "engineers": [7],
                "bonus_cards": ["points_15"],
                "extra_workers": 0,
                "tokens_used": 0,
                "score": 100,
            },
            final("Blue", score=150),
            scoring="final",
        )
    )
    assert sheet.player("Red").total == 100 + 20 + 15 + 40
    assert sheet.player("Blue").total == 150
    assert sheet.winners == ("Red",)


def test_revaluation_raises_brown_natural_and_white() -> None:
    player = board(
        "A",
        rails={"trans_siberian": {"black": 15, "grey": 14, "brown": 12, "natural": 8, "white": 3}},
        locomotives={"trans_siberian": [9, 6]},
        revaluation=True,
    )
    sheet = GAME.score_snapshot(snapshot(player))
    # white 1–3 ×10, natural 4–8 ×6, brown 9–12 ×3, grey 13–14 ×1, black 15
    assert sheet.player("A").points("trans_siberian") == 30 + 30 + 12 + 2
    plain = GAME.score_snapshot(snapshot({**player, "revaluation": False}))
    assert plain.player("A").points("trans_siberian") == 21 + 20 + 8 + 2


def test_doublers_double_only_their_own_spaces_in_reach() -> None:
    player = board(
        "A",
        rails={"trans_siberian": {"black": 6, "grey": 5}},
        locomotives={"trans_siberian": [3]},
        doublers=8,
    )
    sheet = GAME.score_snapshot(snapshot(player))
    assert sheet.player("A").points("trans_siberian") == 6  # grey 1–3 ×1, each doubled
    assert "doublers on 1–3" in render_text(sheet.player("A").lines[0].note)


def test_st_petersburg_7_with_grey_and_locomotive_doubles_the_track() -> None:
    player = board(
        "A",
        # brown needs black on Trans-Siberian 6 (seed 000, "BUDOVÁNÍ KOLEJÍ DALŠÍCH BAREV")
        rails={
            "trans_siberian": {"black": 6},
            "st_petersburg": {"black": 9, "grey": 7, "brown": 2},
        },
        locomotives={"st_petersburg": [7]},
    )
    sheet = GAME.score_snapshot(snapshot(player))
    # brown 1–2 ×2 = 4, grey 3–7 ×1 = 5 → 9, doubled → 18
    assert sheet.player("A").points("st_petersburg") == 18
    short = GAME.score_snapshot(snapshot({**player, "locomotives": {"st_petersburg": [6]}}))
    assert short.player("A").points("st_petersburg") == 8  # reach 6: no doubling


def test_kiev_medal_needs_the_token_grey_and_a_locomotive_at_5() -> None:
    player = board(
        "A",
        rails={"trans_siberian": {"black": 2}, "kiev": {"black": 6, "grey": 5}},
        locomotives={"kiev": [5]},
        kiev_medal=True,
    )
    sheet = GAME.score_snapshot(snapshot(player))
    # grey 1–5 = 5, stars 1+2+3+4 = 10 (4 unverified), medal 20
    assert sheet.player("A").points("kiev") == 35
    assert any("Kiev space 4" in render_text(n) for n in sheet.notes)
    no_medal = GAME.score_snapshot(snapshot({**player, "kiev_medal": False}))
    assert no_medal.player("A").points("kiev") == 15


def test_kiev_space_8_is_unknown_so_it_is_not_counted_and_the_sheet_says_so() -> None:
    player = board("A", rails={"kiev": {"black": 9}}, locomotives={"kiev": [9]})
    sheet = GAME.score_snapshot(snapshot(player))
    assert sheet.player("A").points("kiev") == 1 + 2 + 3 + 4
    assert any(
        "Kiev space 8" in render_text(n) and "not counted" in render_text(n) for n in sheet.notes
    )
    assert "bonus star 8: value unknown" in render_text(sheet.player("A").lines[2].note)


def test_an_owner_correction_counts_and_removes_the_note() -> None:
    player = board("A", rails={"kiev": {"black": 9}}, locomotives={"kiev": [9]})
    data = {**snapshot(player), "board": {"kiev_bonus_8": 5, "kiev_bonus_4": 4}}
    sheet = GAME.score_snapshot(data)
    assert sheet.player("A").points("kiev") == 1 + 2 + 3 + 4 + 5
    assert not any("Kiev" in n for n in sheet.notes)


def test_two_industry_markers_score_separately() -> None:
    player = board("A", factories=2, industry=[8, 3])
    sheet = GAME.score_snapshot(snapshot(player))
    assert sheet.player("A").points("industry") == 15 + 3


@pytest.mark.parametrize(
    ("edit", "path", "reason"),
    [
        (
            lambda p: p["rails"]["kiev"].update(white=1),
            "players[0].rails.kiev.white",
            "Kiev allows black, grey, brown only",
        ),
        (
            lambda p: p["rails"]["kiev"].update(pink=1),
            "players[0].rails.kiev.pink",
            "unknown rail colour",
        ),
        (
            lambda p: p["rails"]["trans_siberian"].update(grey=9),
            "players[0].rails.trans_siberian.grey",
            "strictly behind black",
        ),
        (
            lambda p: p["rails"]["st_petersburg"].update(brown=1),
            "players[0].rails.st_petersburg.brown",
            "no grey rail",
        ),
        (
            lambda p: p["rails"]["trans_siberian"].update(black=16),
            "players[0].rails.trans_siberian.black",
            "above the maximum 15",
        ),
        (
            lambda p: p["locomotives"].update(kiev=[2, 3]),
            "players[0].locomotives.kiev",
            "at most 1 locomotive",
        ),
        (
            lambda p: p["locomotives"].update(kiev=[10]),
            "players[0].locomotives.kiev[0]",
            "above the maximum 9",
        ),
        (lambda p: p.update(doublers=9), "players[0].doublers", "above the maximum 8"),
        (lambda p: p.update(industry=[7]), "players[0].industry[0]", "factory gap 2"),
        (lambda p: p.update(industry=[2, 2]), "players[0].industry[1]", "never share"),
        (lambda p: p.update(industry=[]), "players[0].industry", "at least one"),
        (lambda p: p.update(revaluation="yes"), "players[0].revaluation", "true or false"),
        (lambda p: p.update(colour="red"), "players[0].colour", "unknown field"),
        (lambda p: p.pop("rails"), "players[0].rails", "missing"),
    ],
)
def test_malformed_snapshots_are_refused_with_the_field_path(
    edit: Any, path: str, reason: str
) -> None:
    player = copy.deepcopy(red())
    edit(player)
    with pytest.raises(SnapshotError) as info:
        GAME.score_snapshot(snapshot(player))
    assert info.value.path == path
    assert reason in str(info.value)
    assert str(info.value).startswith(f"{path}: ")


@pytest.mark.parametrize(
    ("data", "path"),
    [
        ({**snapshot(red()), "scoring": "halftime"}, "scoring"),
        ({**snapshot(red()), "format": 2}, "format"),
        ({**snapshot(red()), "game": "ticket-to-ride-europe"}, "game"),
        ({**snapshot(red()), "extra": 1}, "extra"),
        (snapshot(red(), red()), "players"),
        (snapshot(), "players"),
        (snapshot(red(), scoring="final"), "players[0].engineers"),
        (snapshot(final("A", bonus_cards=["gold"]), scoring="final"), "players[0].bonus_cards[0]"),
        (
            snapshot(final("A", engineers=[3]), final("B", engineers=[3]), scoring="final"),
            "players",
        ),
        (snapshot(final("A", tokens_used=5), scoring="final"), "players[0].tokens_used"),
        (snapshot(*(board(n, locomotives={"trans_siberian": [9, 9]}) for n in "ABC")), "players"),
    ],
)
def test_malformed_documents_name_the_field(data: dict[str, Any], path: str) -> None:
    with pytest.raises(SnapshotError) as info:
        GAME.score_snapshot(data)
    assert info.value.path == path


# --- impossible boards the scorer refuses (each names the field and the rule) -------------


def test_a_colour_before_black_reached_its_trans_siberian_space_is_refused() -> None:
    """Seed 000, "BUDOVÁNÍ KOLEJÍ DALŠÍCH BAREV": grey at 2, brown 6, natural 10, white 15."""
    cases = (
        ({"trans_siberian": {"black": 1}, "kiev": {"black": 3, "grey": 1}}, "kiev.grey", 2),
        ({"trans_siberian": {"black": 5, "grey": 4, "brown": 1}}, "trans_siberian.brown", 6),
        ({"trans_siberian": {"black": 9, "grey": 4, "brown": 3, "natural": 1}}, "natural", 10),
        (
            {"trans_siberian": {"black": 14, "grey": 5, "brown": 4, "natural": 3, "white": 1}},
            "white",
            15,
        ),
    )
    for rails, where, space in cases:
        with pytest.raises(SnapshotError, match=rf"rails.*{where}.*reaches space {space}"):
            GAME.score_snapshot(snapshot(board("A", rails=rails)))
    fine = {"trans_siberian": {"black": 10, "grey": 4, "brown": 3, "natural": 1}}
    GAME.score_snapshot(snapshot(board("A", rails=fine)))


def test_more_engineers_than_the_rounds_allow_are_refused() -> None:
    """One engineer a round plus the one on its "?" card: 8 in a 4-player game of 7 rounds."""
    players = [
        final(n, engineers=list(range(i * 3 + 1, i * 3 + 4))) for i, n in enumerate(("A", "B", "C"))
    ]  # 9 engineers, 3 players: 6 rounds + 1 = 7 allowed
    with pytest.raises(SnapshotError, match=r"9 engineers hired.*allows 7"):
        GAME.score_snapshot(snapshot(*players, scoring="final"))


def test_more_than_eight_bonus_cards_are_refused() -> None:
    """Seed 000, "KARTY CÍLOVÝCH BONUSŮ": ten cards, two removed unseen."""
    players = [
        final("A", bonus_cards=list(BONUS_CARDS[:5])),
        final("B", bonus_cards=list(BONUS_CARDS[5:])),
    ]
    with pytest.raises(SnapshotError, match="10 bonus cards held; 8 are in play"):
        GAME.score_snapshot(snapshot(*players, scoring="final"))


def test_token_effects_need_as_many_tokens_used() -> None:
    """Seed 000, "ŽETONY": the revaluation, the Kiev medal and the second industry marker each
    come from a "?" token."""
    three = final(
        "A",
        revaluation=True,
        kiev_medal=True,
        industry=[2, 1],
        rails={"trans_siberian": {"black": 2}, "kiev": {"black": 6, "grey": 5}},
        locomotives={"kiev": [5]},
        tokens_used=2,
    )
    with pytest.raises(SnapshotError, match=r"tokens_used: 2 .* need 3"):
        GAME.score_snapshot(snapshot(three, scoring="final"))
    GAME.score_snapshot(snapshot({**three, "tokens_used": 3}, scoring="final"))


def test_two_level_1_locomotives_are_refused() -> None:
    """Every player's level-1 locomotive comes out at setup; the supply starts at level 2."""
    two = board("A", locomotives={"trans_siberian": [1], "kiev": [1]})
    with pytest.raises(SnapshotError, match="2 level-1 locomotives"):
        GAME.score_snapshot(snapshot(two))


def test_final_snapshots_default_extra_workers_and_tokens_used_to_0() -> None:
    player = final("A")
    del player["extra_workers"], player["tokens_used"]
    sheet = GAME.score_snapshot(snapshot(player, scoring="final"))
    assert sheet.player("A").points("bonus_cards") == 0
