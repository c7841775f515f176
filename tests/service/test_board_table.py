"""Mini Express's board table through the engine, on a real SQLite file: saved for future games
(``save_board_table``), used when a game starts (config → saved → start form), and filled
mid-game or after the game end by the ``share_values`` action, which undo, redo and correct
treat like any other log entry.

Board figures are FICTIONAL (the printed table is not public) except the rulebook's four cells
(12/other 4, 5/other 2, 7/2nd 5, 9/1st 8)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from companion.core import Observation, ObservationKind
from companion.core.messages import render_json, render_text
from companion.service.engine import Engine
from companion.service.store import EventStore

from .conftest import action, command

GOLDEN = Path(__file__).resolve().parents[1] / "games" / "golden" / "mini-express.json"
RULEBOOK = {"5": {"other": 2}, "7": {"2nd": 5}, "9": {"1st": 8}, "12": {"other": 4}}
THREE = [{"name": "Ann"}, {"name": "Ben"}, {"name": "Cat"}]


def save(share_values: Any, game: str = "mini-express") -> Observation:
    return command({"command": "save_board_table", "game": game, "share_values": share_values})


def start_three(options: dict[str, Any] | None = None) -> Observation:
    payload: dict[str, Any] = {"command": "start_game", "game": "mini-express", "players": THREE}
    if options is not None:
        payload["options"] = options
    return command(payload)


def started_options(engine: Engine) -> dict[str, Any]:
    session = engine.session()
    assert session is not None
    return dict(session.started.options)


def end(engine: Engine) -> None:
    assert engine.handle(command({"command": "end_game", "reason": "abandoned"})).outcome == (
        "applied"
    )


def test_a_saved_table_survives_a_restart_and_new_games_start_with_it(db_path: Path) -> None:
    store = EventStore(db_path)
    engine = Engine(store)
    outcome = engine.handle(save({"3": {"1st": 6, "2nd": 4}, "9": {"1st": 8}}))
    assert outcome.outcome == "saved"
    assert outcome.message == (
        "board table saved for new Mini Express games: 6 of 48 cells known, 42 unknown"
    )
    store.close()

    store = EventStore(db_path)  # a restart (or a power cut after the acknowledgement)
    engine = Engine(store)
    saved = {"3": {"1st": 6, "2nd": 4}, **RULEBOOK}
    assert store.game_defaults("mini-express") == {"share_values": saved}
    assert engine.handle(start_three()).outcome == "applied"
    assert started_options(engine) == {"share_values": saved}
    session = engine.session()
    assert session is not None
    assert session.state.share_values.value(3, "2nd") == 4
    # the options went into the log: the game replays the same after another restart
    store.close()
    store = EventStore(db_path)
    session = Engine(store).session()
    assert session is not None and session.state.share_values.value(3, "1st") == 6
    store.close()


def test_config_then_saved_table_then_start_form(store: EventStore) -> None:
    config = {"mini-express": {"map": "europe", "share_values": {"3": {"1st": 6}}}}
    engine = Engine(store, game_options=config)
    engine.handle(start_three())
    assert started_options(engine) == {"map": "europe", "share_values": {"3": {"1st": 6}}}
    end(engine)

    # the page's form was pre-filled with the config's cells: the saved table replaces them
    # whole (3/1st cleared there stays cleared)
    engine.handle(save({"4": {"2nd": 2}}))
    engine.handle(start_three())
    options = started_options(engine)
    assert options == {"map": "europe", "share_values": {"4": {"2nd": 2}, **RULEBOOK}}
    session = engine.session()
    assert session is not None and session.state.share_values.value(3, "1st") is None
    assert session.state.map == "europe"
    end(engine)

    # what the start form says wins over both
    engine.handle(start_three({"map": "usa", "share_values": {"0": {"other": 1}}}))
    assert started_options(engine) == {"map": "usa", "share_values": {"0": {"other": 1}}}
    assert engine.setup_defaults("mini-express") == (
        config["mini-express"],
        {"share_values": {"4": {"2nd": 2}, **RULEBOOK}},
    )


def test_a_refused_save_changes_nothing_and_its_input_is_kept(store: EventStore) -> None:
    engine = Engine(store)
    engine.handle(save({"3": {"1st": 6}}))
    kept = store.game_defaults("mini-express")
    refused = [
        (
            {"3": {"1st": 6}, "12": {"other": 5}},
            "track length 12, 3rd place or lower = 5, but the rulebook's scoring example shows 4 — "
            "rule: cells printed in the rulebook cannot be changed",
        ),
        ({"3": {"1st": "six"}}, "payload.share_values.3.1st: expected a whole number, got 'six'"),
        ({"16": {"1st": 1}}, "payload.share_values.16: a track length 0–15"),
        ({"3": {"best": 1}}, "payload.share_values.3.best: unknown field"),
        ({"3": {"1st": 100}}, "payload.share_values.3.1st: 100 is above the maximum 99"),
        ([], "payload.share_values: expected an object"),
    ]
    for share_values, message in refused:
        outcome = engine.handle(save(share_values))
        assert outcome.outcome == "rejected" and message in outcome.message, outcome
        raw = store.inputs(1)[0]
        assert raw["outcome"] == "rejected" and raw["payload"]["share_values"] == share_values
        assert store.game_defaults("mini-express") == kept
    outcome = engine.handle(save({"3": {"1st": 6}}, game="tiny-race"))
    assert outcome.outcome == "rejected" and "payload.game: 'tiny-race' is not one of" in (
        outcome.message
    )
    outcome = engine.handle(
        command({"command": "save_board_table", "game": "mini-express", "map": "usa"})
    )
    assert "payload.map: unknown field" in outcome.message
    assert store.game_defaults("mini-express") == kept
    _, snapshot = engine.latest()
    assert snapshot["status"]["recent"][-1]["outcome"] == "rejected"


def test_clearing_a_cell_in_a_later_save_and_the_rulebook_cells_always_stay(
    store: EventStore,
) -> None:
    engine = Engine(store)
    engine.handle(save({"3": {"1st": 6}, "4": {"2nd": 2}}))
    engine.handle(save({"3": {"1st": 6}}))
    assert store.game_defaults("mini-express") == {"share_values": {"3": {"1st": 6}, **RULEBOOK}}
    engine.handle(save({}))
    assert store.game_defaults("mini-express") == {"share_values": RULEBOOK}


# -- the share_values action on a real log ---------------------------------------------------
def play_golden(engine: Engine, share_values: dict[str, Any]) -> None:
    """The golden solo game (Turista), started with ``share_values`` instead of its own."""
    golden = json.loads(GOLDEN.read_text())
    start = {
        "command": "start_game",
        "game": "mini-express",
        "players": golden["players"],
        "options": {**golden["options"], "share_values": share_values},
    }
    assert engine.handle(command(start)).outcome == "applied"
    for step in golden["steps"]:
        if "refused" in step:
            continue
        if "scan" in step:
            uid = f"TS:mini-express:{step['scan']['component']}"
            obs = Observation("seat-1", ObservationKind.TEXT, {"text": uid}, 1)  # type: ignore[arg-type]
        else:
            obs = Observation("test", ObservationKind.ACTION, {"action": step["action"]})  # type: ignore[arg-type]
        outcome = engine.handle(obs)
        assert outcome.outcome == "applied", (step, outcome)


def totals(engine: Engine) -> list[int]:
    """Ann's and the automa's totals (the snapshot lists the seated players only)."""
    session = engine.session()
    assert session is not None
    return [p.total for p in session.game.score(session.state).players]


def test_after_the_game_end_a_missing_cell_is_entered_undone_redone_and_corrected(
    db_path: Path,
) -> None:
    store = EventStore(db_path)
    engine = Engine(store)
    # the golden game's cells (FICTIONAL) without 2/2nd, which Ann's Cotton needs
    play_golden(engine, {"0": {"2nd": 2, "other": 1}, "3": {"other": 2}})
    _, snap = engine.latest()
    assert snap["over"] and snap["winners"] == []
    assert render_json(snap["notes"]) == [
        "share values missing from the board table: track length 2, 2nd place"
    ]
    assert "track length 2, 2nd place" in render_text(snap["status"]["waiting_for"])
    assert totals(engine) == [1, 4]
    # filing it as finished now would freeze a sheet without a winner: refused, nothing changes
    refused = engine.handle(command({"command": "end_game", "reason": "finished"}))
    assert refused.outcome == "rejected"
    assert "the final scoring is incomplete: share values missing from the board table: " in (
        refused.message
    )
    assert "track length 2, 2nd place" in refused.message and "as abandoned" in refused.message
    assert engine.latest()[1]["status"]["unfinished_games"] == [snap["game_id"]]

    fill = action("share_values", cells={"2": {"2nd": 3}})
    outcome = engine.handle(fill)
    assert outcome.outcome == "applied"
    assert outcome.message == "The table fills in cells of the board's share-value table"
    fill_seq = outcome.seq
    _, snap = engine.latest()
    # 4–4: the automa wins the tie (Závěrečné bodování sólové hry)
    assert snap["winners"] == ["automa"] and totals(engine) == [4, 4] and snap["notes"] == []
    assert snap["table"]["share_values"]["2"] == {"2nd": 3}

    # a second, different value for the same cell is refused; the game is unchanged
    outcome = engine.handle(action("share_values", cells={"2": {"2nd": 4}}))
    assert outcome.outcome == "rejected"
    assert "track length 2, 2nd place is already 3, not 4" in outcome.message
    assert store.inputs(1)[0]["outcome"] == "rejected"

    # undo takes the cell out again; redo puts it back
    assert engine.handle(command({"command": "undo"})).outcome == "applied"
    _, snap = engine.latest()
    assert snap["winners"] == [] and "track length 2, 2nd place" in render_json(snap["notes"])[0]
    assert engine.handle(command({"command": "redo"})).outcome == "applied"
    assert engine.latest()[1]["winners"] == ["automa"]

    # the cell was misread: correct the entry (appended, the original stays in the log)
    fix = {
        "command": "correct",
        "target_seq": fill_seq,
        "action": {"kind": "share_values", "args": {"cells": {"2": {"2nd": 1}}}},
    }
    assert engine.handle(command(fix)).outcome == "applied"
    # Ann 1×1 + 1×1 = 2; the automa 1×2 + 1×2 = 4
    assert totals(engine) == [2, 4] and engine.latest()[1]["winners"] == ["automa"]
    before = engine.latest()[1]
    store.close()

    store = EventStore(db_path)  # the log replays to the same final sheet
    after = Engine(store).latest()[1]
    for key in ("seq", "players", "winners", "notes", "table"):
        assert after[key] == before[key]
    kinds = [e.event for e in store.entries(before["game_id"])][-4:]
    assert [type(e).__name__ for e in kinds] == [
        "ActionApplied",
        "ActionUndone",
        "ActionRedone",
        "ActionCorrected",
    ]
    store.close()


def test_the_action_fills_a_running_game_between_turns(store: EventStore) -> None:
    engine = Engine(store)
    engine.handle(start_three())
    waiting = engine.latest()[1]["status"]["waiting_for"]
    outcome = engine.handle(action("share_values", cells={"0": {"1st": 3}}))
    assert outcome.outcome == "applied"
    _, snap = engine.latest()
    assert snap["table"]["share_values"]["0"] == {"1st": 3}
    assert snap["status"]["waiting_for"] == waiting  # nobody's turn was used
    # a player's seat reader cannot enter the board table
    outcome = engine.handle(action("share_values", 1, cells={"0": {"2nd": 2}}))
    assert outcome.outcome == "rejected" and "entered by the table" in outcome.message
