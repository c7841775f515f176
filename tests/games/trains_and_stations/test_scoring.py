"""Final scoring of Trains & Stations from the contract snapshot ("Bodování", seed
003_4080579fd62f6692.txt; shared/contracts/trains-and-stations.md)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from companion.core import SnapshotError
from companion.core.messages import render_text
from companion.games import find_game

GAME = find_game("trains-and-stations")
NO_GOODS = {"workers": 0, "coal": 0, "silver": 0, "food": 0, "cattle": 0, "gold": 0}


def player(name: str, vp: int, tasks: int = 0, special: Any = (), **goods: int) -> dict[str, Any]:
    return {
        "name": name,
        "vp": vp,
        "task_points": tasks,
        "goods": NO_GOODS | goods,
        "special_goods": [list(p) for p in special],
    }


def snapshot(*players: dict[str, Any]) -> dict[str, Any]:
    return {"game": "trains-and-stations", "format": 1, "players": list(players)}


def lines(sheet: Any, name: str) -> dict[str, int]:
    p = sheet.player(name)
    return {cat: p.points(cat) for cat in ("vp", "tasks", "monopolies")}


def test_the_contract_example_scores_vp_tasks_and_monopolies() -> None:
    # Erik as in the contract: 23 VP, 8 task points; his special card shows cattle + coal, so
    # he counts 5 cattle and 4 coal. Sára and Bohouš hold less of everything but workers.
    erik = player("Erik", 23, 8, [("cattle", "coal")], workers=2, coal=3, food=1, cattle=4, gold=1)
    sara = player("Sára", 30, 0, workers=3, coal=1, cattle=2)
    bohous = player("Bohouš", 25, 5, silver=2)
    sheet = GAME.score_snapshot(snapshot(erik, sara, bohous))
    # Erik: coal 6 + food 7 + cattle 6 + gold 9 = 28 in monopolies.
    assert lines(sheet, "Erik") == {"vp": 23, "tasks": 8, "monopolies": 28}
    assert lines(sheet, "Sára") == {"vp": 30, "tasks": 0, "monopolies": 4}  # workers
    assert lines(sheet, "Bohouš") == {"vp": 25, "tasks": 5, "monopolies": 7}  # silver
    assert sheet.totals == (59, 34, 37)
    assert sheet.winners == ("Erik",)


def test_the_contract_example_is_refused_alone_and_scored_at_a_table_of_three() -> None:
    """ "pro 3-5 železničních baronů": shared/contracts/trains-and-stations.md lists Erik alone;
    the rulebook wins — a scoring snapshot is of a whole table of 3–5 players. With two more
    players holding nothing, every type Erik holds is his monopoly (coal 3 + 1 and cattle
    4 + 1 from his special card; no silver)."""
    doc: dict[str, Any] = {
        "game": "trains-and-stations",
        "format": 1,
        "players": [
            {
                "name": "Erik",
                "vp": 23,
                "task_points": 8,
                "goods": {"workers": 2, "coal": 3, "silver": 0, "food": 1, "cattle": 4, "gold": 1},
                "special_goods": [["cattle", "coal"]],
            }
        ],
    }
    with pytest.raises(SnapshotError, match=r"players: Trains & Stations takes 3–5 players"):
        GAME.score_snapshot(doc)
    doc["players"] += [player("Sára", 10), player("Bohouš", 5)]
    sheet = GAME.score_snapshot(doc)
    assert lines(sheet, "Erik") == {"vp": 23, "tasks": 8, "monopolies": 4 + 6 + 7 + 6 + 9}
    assert sheet.totals == (63, 10, 5) and sheet.winners == ("Erik",)
    assert sheet.notes == ()


def test_every_player_tied_for_most_gets_the_full_monopoly_bonus() -> None:
    # "Pokud nejvyšší počet karet zboží mají dva nebo více hráčů, získávají plný bonus…"
    sheet = GAME.score_snapshot(
        snapshot(
            player("A", 10, coal=3),
            player("B", 10, coal=3),
            player("C", 10, coal=2),
        )
    )
    assert [sheet.player(n).points("monopolies") for n in "ABC"] == [6, 6, 0]


def test_nobody_gets_a_monopoly_on_goods_nobody_holds() -> None:
    sheet = GAME.score_snapshot(snapshot(player("A", 4), player("B", 3), player("C", 2)))
    assert sheet.totals == (4, 3, 2)
    assert all(sheet.player(n).points("monopolies") == 0 for n in "ABC")
    assert render_text(sheet.player("A").lines[-1].note) == "no monopoly"


def test_a_two_goods_special_card_counts_one_of_each_and_ties_the_speculation_example() -> None:
    # The rulebook's speculation example ends with cattle: Bohouš 0, Erik 2, Sára 3 — "but
    # nobody knows whether someone has cattle on their special cards". Erik does: 3 = 3.
    erik = player("Erik", 20, special=[("cattle", "food")], cattle=2, food=3)
    sara = player("Sára", 20, cattle=3, workers=2)
    bohous = player("Bohouš", 20, food=1)
    sheet = GAME.score_snapshot(snapshot(erik, sara, bohous))
    assert sheet.player("Erik").points("monopolies") == 6 + 7  # cattle (tied) + food
    assert sheet.player("Sára").points("monopolies") == 6 + 4  # cattle (tied) + workers
    assert sheet.player("Bohouš").points("monopolies") == 0


def test_a_tie_on_points_goes_to_the_most_gold_cards_special_cards_only_for_monopolies() -> None:
    """Bodování: "V případě shody vyhrává hráč s více zlata"; Speciální karty: a two-goods
    special card counts "při určování bonusů za monopol" — for the monopolies only."""
    a = player("A", 30, gold=1)
    b = player("B", 39, special=[("gold", "coal")])  # 39 + coal 6 = 45; gold tied 1–1 → both 9
    c = player("C", 45)
    sheet = GAME.score_snapshot(snapshot(a, b, c))
    assert sheet.totals == (39, 54, 45)
    # A: 31 + gold 9 (tied 1–1 with B's special card) = 40; B: 24 + gold 9 + silver 7 = 40.
    # Tied on points: A holds a gold card, B's gold is on a special card → A wins (counting the
    # special card, they would have shared the win)
    a2 = player("A", 31, gold=1)
    b2 = player("B", 24, special=[("gold", "silver")])
    sheet = GAME.score_snapshot(snapshot(a2, b2, player("C", 20)))
    assert sheet.totals == (40, 40, 20)
    assert sheet.winners == ("A",)


def test_still_tied_players_share_the_victory() -> None:
    sheet = GAME.score_snapshot(
        snapshot(player("A", 20, gold=1), player("B", 20, gold=1), player("C", 10))
    )
    assert sheet.totals == (29, 29, 10)
    assert sheet.winners == ("A", "B")


def test_the_sheet_is_json_with_every_category_for_every_player() -> None:
    sheet = GAME.score_snapshot(snapshot(player("A", 1), player("B", 2, coal=1), player("C", 3)))
    data = json.loads(json.dumps(sheet.to_json()))
    assert data["game"] == "trains-and-stations"
    for p in data["players"]:
        assert {line["category"] for line in p["lines"]} == {"vp", "tasks", "monopolies"}
        assert p["total"] == sum(line["points"] for line in p["lines"])


def _with(path: list[Any], value: Any) -> dict[str, Any]:
    doc = snapshot(player("A", 5, coal=2), player("B", 4), player("C", 3))
    target: Any = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return doc


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        (_with(["game"], "mini-express"), "game: expected 'trains-and-stations'"),
        (_with(["format"], 2), "format: 2 is above the maximum 1"),
        (
            _with(["players"], []),
            "players: Trains & Stations takes 3–5 players (pro 3-5 železničních baronů), got 0",
        ),
        (_with(["players", 1, "vp"], -1), "players[1].vp: -1 is below the minimum 0"),
        (_with(["players", 2, "vp"], "7"), "players[2].vp: expected a whole number"),
        (_with(["players", 0, "goods", "coal"], 11), "players[0].goods.coal: 11 is above"),
        (_with(["players", 0, "goods", "oil"], 1), "players[0].goods.oil: unknown field"),
        (_with(["players", 1, "task_points"], None), "players[1].task_points: expected"),
        (_with(["players", 1, "colour"], "red"), "players[1].colour: unknown field"),
        (_with(["players", 2, "name"], "A"), "players[2].name: 'A' appears twice"),
        (_with(["players", 1, "special_goods"], [["coal"]]), "players[1].special_goods[0]"),
        (
            _with(["players", 1, "special_goods"], [["coal", "oil"]]),
            "players[1].special_goods[0][1]: 'oil' is not one of",
        ),
        (_with(["extra"], 1), "extra: unknown field"),
    ],
)
def test_a_malformed_snapshot_is_refused_with_the_field_path(doc: Any, message: str) -> None:
    with pytest.raises(SnapshotError) as info:
        GAME.score_snapshot(doc)
    assert str(info.value).startswith(message)


def test_more_goods_than_the_game_has_is_refused() -> None:
    doc = snapshot(player("A", 1, coal=6), player("B", 1, coal=5), player("C", 1))
    with pytest.raises(SnapshotError, match=r"players\[1\]\.goods\.coal: the players hold 11"):
        GAME.score_snapshot(doc)


def test_a_missing_field_is_named() -> None:
    doc = snapshot(player("A", 1), player("B", 1), player("C", 1))
    del doc["players"][2]["goods"]
    with pytest.raises(SnapshotError, match=r"^players\[2\]\.goods: missing"):
        GAME.score_snapshot(doc)
