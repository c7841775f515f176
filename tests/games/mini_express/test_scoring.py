"""Final scoring from the contract snapshot (ZÁVĚREČNÉ BODOVÁNÍ and the variants' scoring).

Only four cells of the printed table are known (the rulebook's example). Scenarios that need
other cells use FICTIONAL test figures, marked as such: they are not the printed board.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.core import SnapshotError
from companion.core.messages import render_text
from companion.games import find_game
from companion.games.mini_express import MissingShareValueError
from companion.games.mini_express.scoring import influence_ranks, two_column_ranks

GAME = find_game("mini-express")
COMPANIES = ("leather", "lumber", "steel", "cotton")

# FICTIONAL figures for the scenarios below (the printed table is not public): one value per
# rank at every track length, so a test can tell the columns apart.
FICTIONAL = {str(n): {"1st": 30 + n, "2nd": 20 + n, "other": 10 + n} for n in range(16)}


def per_company(**values: int) -> dict[str, int]:
    return {c: values.get(c, 0) for c in COMPANIES}


def player(
    name: str, seat: int, shares: dict[str, int], influence: dict[str, int]
) -> dict[str, Any]:
    return {"name": name, "seat_from_start": seat, "shares": shares, "influence": influence}


def snapshot(
    players: list[dict[str, Any]],
    *,
    variant: str = "standard",
    lengths: dict[str, int] | None = None,
    share_values: dict[str, Any] | None = None,
) -> dict[str, Any]:
    lengths = lengths or {"leather": 3, "lumber": 3, "steel": 3, "cotton": 3}
    return {
        "game": "mini-express",
        "format": 1,
        "variant": variant,
        "share_values": FICTIONAL if share_values is None else share_values,
        "companies": {c: {"track_length": n} for c, n in lengths.items()},
        "players": players,
    }


def daniels_game() -> dict[str, Any]:
    """The rulebook's example (Příklad závěrečného bodování): Daniel is 4th in Lumber, 3rd in
    Steel, 2nd in Leather and 1st in Cotton; the other three players' influence is chosen to
    give him exactly those ranks (the example does not show them), and they hold no shares so
    no cell beyond the printed four is needed."""
    none = per_company()
    return snapshot(
        [
            player(
                "Daniel",
                0,
                per_company(lumber=1, steel=1, leather=1, cotton=2),
                per_company(lumber=2, steel=3, leather=5, cotton=7),
            ),
            player("Alena", 1, none, per_company(lumber=5, steel=6, leather=8, cotton=4)),
            player("Bedřich", 2, none, per_company(lumber=4, steel=5, leather=1, cotton=2)),
            player("Cyril", 3, none, per_company(lumber=3, steel=1, leather=0, cotton=1)),
        ],
        lengths={"lumber": 12, "steel": 5, "leather": 7, "cotton": 9},
        share_values={"12": {"other": 4}, "5": {"other": 2}, "7": {"2nd": 5}, "9": {"1st": 8}},
    )


def test_the_rulebooks_example_daniel_scores_4_2_5_8_8_is_27() -> None:
    sheet = GAME.score_snapshot(daniels_game())
    daniel = sheet.player("Daniel")
    assert daniel.points("lumber") == 4
    assert daniel.points("steel") == 2
    assert daniel.points("leather") == 5
    assert daniel.points("cotton") == 8 + 8
    assert daniel.total == 27
    assert [line.category for line in daniel.lines] == list(COMPANIES)
    assert sheet.winners == ("Daniel",)


def test_a_missing_needed_cell_is_named() -> None:
    data = daniels_game()
    del data["share_values"]["7"]
    with pytest.raises(MissingShareValueError) as info:
        GAME.score_snapshot(data)
    assert str(info.value) == "share_values.7.2nd missing"
    assert info.value.path == "share_values.7.2nd"
    assert isinstance(info.value, SnapshotError)


def test_every_missing_cell_is_listed_not_only_the_first() -> None:
    data = daniels_game()
    data["share_values"] = {"12": {"other": 4}}
    with pytest.raises(MissingShareValueError) as info:
        GAME.score_snapshot(data)
    assert str(info.value) == (
        "share_values.5.other missing (also needed: share_values.7.2nd, share_values.9.1st)"
    )


def test_cells_nobody_needs_may_be_missing() -> None:
    # Alena is 1st in Leather at 7 but holds no Leather share: 7.1st is not needed
    assert GAME.score_snapshot(daniels_game()).player("Alena").total == 0


def test_the_contracts_one_player_example_is_refused_because_ranks_need_every_player() -> None:
    data = daniels_game()
    data["players"] = data["players"][:1]
    with pytest.raises(SnapshotError, match=r"players: standard is scored for 3–5 players"):
        GAME.score_snapshot(data)


def three(
    influence: list[dict[str, int]], shares: list[dict[str, int]] | None = None
) -> dict[str, Any]:
    names = ("Ann", "Ben", "Cat", "Dan", "Eva")
    shares = shares or [per_company(lumber=1) for _ in influence]
    return snapshot([player(names[i], i, shares[i], influence[i]) for i in range(len(influence))])


def lumber_points(data: dict[str, Any]) -> list[int]:
    return [p.points("lumber") for p in GAME.score_snapshot(data).players]


def test_a_tie_for_first_gives_all_of_them_first_and_nobody_second() -> None:
    data = three([per_company(lumber=5), per_company(lumber=5), per_company(lumber=4)])
    # track length 3 (fictional values): 1st 33, 2nd 23, other 13
    assert lumber_points(data) == [33, 33, 13]


def test_one_first_and_tied_seconds_all_score_second() -> None:
    data = three(
        [per_company(lumber=6), per_company(lumber=4), per_company(lumber=4), per_company(lumber=1)]
    )
    assert lumber_points(data) == [33, 23, 23, 13]


def test_third_to_fifth_score_other() -> None:
    data = three([per_company(lumber=n) for n in (9, 7, 5, 3, 1)])
    assert lumber_points(data) == [33, 23, 13, 13, 13]


def test_influence_zero_scores_zero_whatever_the_rank() -> None:
    data = three([per_company(lumber=0), per_company(lumber=0), per_company(lumber=0)])
    sheet = GAME.score_snapshot(data)
    assert [p.points("lumber") for p in sheet.players] == [0, 0, 0]
    assert "influence 0" in render_text(sheet.players[0].lines[1].note)


def test_influence_zero_needs_no_cell() -> None:
    data = three([per_company(lumber=0), per_company(lumber=2), per_company(lumber=1)])
    data["share_values"] = {"3": {"1st": 33, "2nd": 23}}
    assert lumber_points(data) == [0, 33, 23]


def test_tied_players_the_one_with_fewer_shares_wins_even_after_the_start_player() -> None:
    data = three(
        [
            per_company(lumber=4, steel=1),
            per_company(lumber=5, steel=5),
            per_company(lumber=1, steel=1),
        ],
        [per_company(lumber=2), per_company(steel=1), per_company()],
    )
    data["share_values"] = {"3": {"1st": 10, "2nd": 5, "other": 2}}  # FICTIONAL figures
    sheet = GAME.score_snapshot(data)
    # Ann: 2 Lumber shares as 2nd = 10; Ben: 1 Steel share as 1st = 10
    assert sheet.totals == (10, 10, 0)
    assert sheet.winners == ("Ben",)


def test_equal_points_fewer_shares_wins_then_closer_to_the_start_player() -> None:
    # Ann and Ben tie for 1st in Lumber with one share each: 33 points each
    data = three(
        [per_company(lumber=5), per_company(lumber=5), per_company(lumber=1)],
        [per_company(lumber=1), per_company(lumber=1), per_company()],
    )
    sheet = GAME.score_snapshot(data)
    assert sheet.totals == (33, 33, 0)
    # same points, same number of shares: the player closer to the start player wins
    assert sheet.winners == ("Ann",)
    data["players"][0]["seat_from_start"], data["players"][1]["seat_from_start"] = 1, 0
    assert GAME.score_snapshot(data).winners == ("Ben",)
    # fewer shares beats seat order: give Ann a worthless extra share (influence 0 in steel)
    data["players"][0]["seat_from_start"], data["players"][1]["seat_from_start"] = 0, 1
    data["players"][0]["shares"] = per_company(lumber=1, steel=1)
    assert GAME.score_snapshot(data).totals == (33, 33, 0)
    assert GAME.score_snapshot(data).winners == ("Ben",)


def duel(
    variant: str, a: dict[str, int], b: dict[str, int], names: tuple[str, str] = ("Ann", "Ben")
) -> dict[str, Any]:
    return snapshot(
        [
            player(names[0], 0, per_company(lumber=1, steel=1), a),
            player(names[1], 1, per_company(lumber=1, steel=1), b),
        ],
        variant=variant,
    )


@pytest.mark.parametrize("variant", ["two_experienced", "solo:cestujici"])
def test_two_player_scoring_ignores_the_first_column(variant: str) -> None:
    second = "automa" if variant.startswith("solo") else "Ben"
    data = duel(
        variant, per_company(lumber=5, steel=4), per_company(lumber=2, steel=4), ("Ann", second)
    )
    sheet = GAME.score_snapshot(data)
    # Lumber: Ann higher → 2nd (23), Ben lower → other (13); Steel tie: both 2nd (23)
    assert [p.points("lumber") for p in sheet.players] == [23, 13]
    assert [p.points("steel") for p in sheet.players] == [23, 23]


def test_two_experienced_tie_goes_to_fewer_shares_then_the_start_player() -> None:
    data = duel("two_experienced", per_company(lumber=3, steel=3), per_company(lumber=3, steel=3))
    assert GAME.score_snapshot(data).winners == ("Ann",)


def solo(level: str, mine: dict[str, int], automa: dict[str, int]) -> dict[str, Any]:
    return snapshot(
        [
            player("Ann", 0, per_company(lumber=1, steel=1, cotton=1), mine),
            player("automa", 1, per_company(leather=1), automa),
        ],
        variant=f"solo:{level}",
    )


@pytest.mark.parametrize("level", ["cestujici", "turista"])
def test_easy_solo_levels_score_low_influence(level: str) -> None:
    data = solo(
        level,
        per_company(lumber=3, steel=1, cotton=4),
        per_company(lumber=9, steel=9, cotton=1, leather=1),
    )
    sheet = GAME.score_snapshot(data)
    assert [line.points for line in sheet.player("Ann").lines] == [0, 13, 13, 23]


@pytest.mark.parametrize("level", ["sotous", "pruvodci", "ajznbonak"])
def test_from_sotous_up_influence_3_or_less_scores_zero_for_the_player(level: str) -> None:
    data = solo(
        level,
        per_company(lumber=3, steel=4, cotton=4),
        per_company(lumber=1, steel=1, cotton=1, leather=1),
    )
    sheet = GAME.score_snapshot(data)
    ann = sheet.player("Ann")
    assert [line.points for line in ann.lines] == [0, 0, 23, 23]
    assert "≤ 3" in render_text(ann.lines[1].note)
    # the automa's own influence 1 still scores (the rule is about "you")
    assert sheet.player("automa").points("leather") == 23


def test_sotous_does_not_zero_influence_below_the_automa() -> None:
    data = solo(
        "sotous",
        per_company(lumber=5, steel=5, cotton=5),
        per_company(lumber=9, steel=1, cotton=1, leather=1),
    )
    assert GAME.score_snapshot(data).player("Ann").points("lumber") == 13


@pytest.mark.parametrize("level", ["pruvodci", "ajznbonak"])
def test_from_pruvodci_up_less_influence_than_the_automa_scores_zero(level: str) -> None:
    data = solo(
        level,
        per_company(lumber=5, steel=6, cotton=6),
        per_company(lumber=6, steel=6, cotton=1, leather=1),
    )
    ann = GAME.score_snapshot(data).player("Ann")
    assert [line.points for line in ann.lines] == [0, 0, 23, 23]
    assert "below the Mašinfíra" in render_text(ann.lines[1].note)


def test_solo_the_automa_wins_a_tie() -> None:
    data = snapshot(
        [
            player("Ann", 0, per_company(lumber=1), per_company(lumber=2)),
            player("automa", 1, per_company(lumber=1), per_company(lumber=2)),
        ],
        variant="solo:cestujici",
    )
    sheet = GAME.score_snapshot(data)
    assert sheet.totals == (23, 23)
    assert sheet.winners == ("automa",)


def test_two_player_automa_game_scores_the_automa_as_a_third_player() -> None:
    data = snapshot(
        [
            player("Ann", 0, per_company(lumber=1), per_company(lumber=5)),
            player("Ben", 1, per_company(lumber=1), per_company(lumber=3)),
            player("automa", 2, per_company(lumber=2), per_company(lumber=4)),
        ],
        variant="two_player_automa",
    )
    sheet = GAME.score_snapshot(data)
    assert sheet.totals == (33, 13, 2 * 23)
    assert sheet.winners == ("automa",)


def test_a_value_unlike_the_rulebooks_example_is_noted() -> None:
    data = daniels_game()
    data["share_values"]["9"]["1st"] = 9
    sheet = GAME.score_snapshot(data)
    assert sheet.player("Daniel").total == 4 + 2 + 5 + 18
    assert any("track length 9, 1st place differs" in render_text(note) for note in sheet.notes)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(variant="solo:easy"), "variant: unknown solo level 'easy'"),
        (lambda d: d.update(variant="3p"), "variant: '3p' is not one of"),
        (lambda d: d["companies"].pop("steel"), "companies.steel: missing"),
        (lambda d: d["companies"]["steel"].update(track_length=16), "companies.steel.track_length"),
        (
            lambda d: d["players"][1]["shares"].update(coal=1),
            r"players\[1\].shares.coal: unknown field",
        ),
        (lambda d: d["players"][1]["influence"].update(steel=-1), r"players\[1\].influence.steel"),
        (lambda d: d["players"][1].update(seat_from_start=0), "seat_from_start must be 0–3"),
        (lambda d: d["share_values"].update({"16": {"1st": 1}}), "share_values.16"),
        (lambda d: d["share_values"]["9"].update(first=1), "share_values.9.first: unknown field"),
        (
            lambda d: d["share_values"]["9"].update({"1st": "8"}),
            r"share_values.9.1st: expected a whole",
        ),
        (lambda d: d.update(bonus=1), "bonus: unknown field"),
        (lambda d: d.update(format=2), "format"),
        (lambda d: d["players"][2].update(name="automa"), "standard has no automa"),
        (
            lambda d: [p["shares"].update(lumber=3) for p in d["players"]],
            "12 lumber shares held by the players; standard with 4 player.s. has 9 of each",
        ),
    ],
)
def test_malformed_snapshots_name_the_field(change: Any, message: str) -> None:
    data = copy.deepcopy(daniels_game())
    change(data)
    with pytest.raises(SnapshotError, match=message):
        GAME.score_snapshot(data)


def test_solo_needs_the_automa_by_name() -> None:
    data = duel("solo:turista", per_company(lumber=1), per_company(lumber=1))
    with pytest.raises(SnapshotError, match="named 'automa'"):
        GAME.score_snapshot(data)


@given(st.lists(st.integers(min_value=0, max_value=12), min_size=1, max_size=5))
def test_rank_rules_hold_for_any_influence(influence: list[int]) -> None:
    ranks = influence_ranks(influence)
    top = max(influence)
    assert all((r == "1st") == (v == top) for r, v in zip(ranks, influence, strict=True))
    if ranks.count("1st") > 1:
        assert "2nd" not in ranks
    seconds = {v for r, v in zip(ranks, influence, strict=True) if r == "2nd"}
    assert len(seconds) <= 1  # everyone tied for 2nd gets 2nd, nobody else
    if seconds:
        assert all(v < min(seconds) for r, v in zip(ranks, influence, strict=True) if r == "other")
    # the columns never depend on the order players are listed in
    assert influence_ranks(influence[::-1]) == ranks[::-1]


@given(st.integers(min_value=0, max_value=12), st.integers(min_value=0, max_value=12))
def test_two_columns_the_higher_2nd_the_lower_other_a_tie_both_2nd(a: int, b: int) -> None:
    ranks = two_column_ranks([a, b])
    if a == b:
        assert ranks == ("2nd", "2nd")
    else:
        assert ranks == (("2nd", "other") if a > b else ("other", "2nd"))


@pytest.mark.parametrize(
    ("variant", "names", "limit"),
    [
        # PŘÍPRAVA HRY 3.: "ve hře 3 hráčů odložte stranou pouze 2 akcie … třetí akcii …
        # vraťte zpět do krabice": 6 on the board + 2 set aside
        ("standard", ("Ann", "Ben", "Cat"), 8),
        ("standard", ("Ann", "Ben", "Cat", "Dan"), 9),
        # HRA PRO 2 HRÁČE (s Mašinfírou): 6 + 2
        ("two_player_automa", ("Ann", "Ben", "automa"), 8),
        # HRA PRO 2 ZKUŠENÉ HRÁČE and SÓLOVÁ HRA: 5 + 2
        ("two_experienced", ("Ann", "Ben"), 7),
        ("solo:turista", ("Ann", "automa"), 7),
    ],
)
def test_a_snapshot_holding_more_shares_than_the_variant_has_is_refused(
    variant: str, names: tuple[str, ...], limit: int
) -> None:
    """Shares per company depend on the variant (the rest of the 9 go back to the box)."""

    def holding(lumber: int) -> dict[str, Any]:
        shares = [per_company(lumber=0) for _ in names]
        for i in range(lumber):
            shares[i % len(names)]["lumber"] += 1
        return snapshot(
            [player(n, i, shares[i], per_company(lumber=1)) for i, n in enumerate(names)],
            variant=variant,
            share_values={"3": {"1st": 8, "2nd": 5, "other": 2}},
        )

    GAME.score_snapshot(holding(limit))
    with pytest.raises(
        SnapshotError, match=rf"{limit + 1} lumber shares held .* has {limit} of each"
    ):
        GAME.score_snapshot(holding(limit + 1))


def test_with_the_automa_a_snapshot_that_seats_it_elsewhere_than_last_is_refused() -> None:
    """HRA PRO 2 HRÁČE (s Mašinfírou) / SÓLOVÁ HRA: the automa plays last."""
    data = snapshot(
        [
            player("automa", 0, per_company(lumber=2), per_company(lumber=4)),
            player("Ann", 1, per_company(lumber=1), per_company(lumber=5)),
            player("Ben", 2, per_company(lumber=1), per_company(lumber=3)),
        ],
        variant="two_player_automa",
    )
    with pytest.raises(SnapshotError, match=r"the automa plays last \(seat_from_start 2\), not 0"):
        GAME.score_snapshot(data)
