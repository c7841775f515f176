"""The engine: one writer, durable before acknowledged, refusals as visible records."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.core import Observation, ObservationKind
from companion.core.messages import render_text
from companion.service.engine import Engine
from companion.service.store import EventStore

from .conftest import action, command, start_tiny


def scan(uid: str, seat: int) -> Observation:
    return Observation(f"seat-{seat}", ObservationKind.TAG_PRESENT, {"uid": uid}, seat)  # type: ignore[arg-type]


def test_start_game_then_actions_update_the_snapshot(engine: Engine) -> None:
    assert engine.handle(start_tiny()).outcome == "applied"
    assert engine.handle(action("advance", 0, steps=3)).outcome == "applied"
    _, snap = engine.latest()
    assert snap["game"] == "tiny-race" and snap["seq"] == 2
    assert [(p["name"], p["total"]) for p in snap["players"]] == [("Red", 3), ("Blue", 0)]
    assert render_text(snap["status"]["waiting_for"]) == "Blue to advance 1–3"


def test_refused_action_is_a_visible_record_and_changes_nothing(
    engine: Engine, store: EventStore
) -> None:
    engine.handle(start_tiny())
    outcome = engine.handle(action("advance", 1, steps=2))
    assert outcome.outcome == "rejected" and "seat order" in outcome.message
    _, snap = engine.latest()
    assert snap["seq"] == 1
    assert snap["status"]["recent"][-1]["outcome"] == "rejected"
    # the raw input is kept with its outcome
    assert store.inputs(1)[0]["outcome"] == "rejected"
    assert store.inputs(1)[0]["payload"]["action"]["player"] == 1


def test_seat_scan_resolves_tag_and_player(engine: Engine, store: EventStore) -> None:
    store.enrol("04D1E5000003", "tiny-race", "die-3")
    engine.handle(start_tiny())
    assert engine.handle(scan("04D1E5000003", seat=1)).outcome == "applied"
    assert engine.session().state.positions == (3, 0)  # type: ignore[union-attr]
    # the seat says who: Red scanning again is out of turn
    assert "seat order" in engine.handle(scan("04D1E5000003", seat=1)).message


def test_self_describing_label_needs_no_enrolment(engine: Engine) -> None:
    engine.handle(start_tiny())
    text = Observation("scanner", ObservationKind.TEXT, {"text": "TS:tiny-race:die-2"}, 1)  # type: ignore[arg-type]
    assert engine.handle(text).outcome == "applied"
    wrong = Observation("scanner", ObservationKind.TEXT, {"text": "TS:russian-railroads:x"}, 2)  # type: ignore[arg-type]
    assert "belongs to russian-railroads" in engine.handle(wrong).message


def test_unknown_tag_becomes_a_prompt_never_a_silent_drop(engine: Engine) -> None:
    engine.handle(start_tiny())
    outcome = engine.handle(scan("DEADBEEF", seat=2))
    assert outcome.outcome == "rejected" and "unknown tag 'DEADBEEF'" in outcome.message
    _, snap = engine.latest()
    question = render_text(snap["status"]["prompt"]["question"])
    assert question == "unknown tag — enrol it on the table page"  # players read no tag id
    assert snap["status"]["unknown_tag"] == "DEADBEEF"  # the table page enrols it
    assert "DEADBEEF" not in str(snap["status"]["recent"][-1]["message"])
    enrol = command({"command": "enrol", "uid": "DEADBEEF", "component": "die-1"})
    assert engine.handle(enrol).outcome == "enrolled"
    assert engine.handle(scan("DEADBEEF", seat=1)).outcome == "applied"
    assert "already enrolled as tiny-race 'die-1'" in engine.handle(enrol).message


def test_undo_redo_correct_are_appended(engine: Engine, store: EventStore) -> None:
    engine.handle(start_tiny())
    engine.handle(action("advance", 0, steps=3))
    engine.handle(action("advance", 1, steps=2))
    assert engine.handle(command({"command": "undo"})).outcome == "applied"
    assert engine.session().state.positions == (3, 0)  # type: ignore[union-attr]
    assert engine.handle(command({"command": "redo"})).outcome == "applied"
    fix = {
        "command": "correct",
        "target_seq": 2,
        "action": {"kind": "advance", "player": 0, "args": {"steps": 1}},
    }
    assert engine.handle(command(fix)).outcome == "applied"
    assert engine.session().state.positions == (1, 2)  # type: ignore[union-attr]
    types = [type(e.event).__name__ for e in store.entries(1)]
    assert types == [
        "GameStarted",
        "ActionApplied",
        "ActionApplied",
        "ActionUndone",
        "ActionRedone",
        "ActionCorrected",
    ]


def test_restart_resumes_every_unfinished_game_exactly(db_path: Path) -> None:
    store = EventStore(db_path)
    engine = Engine(store)
    engine.handle(start_tiny())
    for player, steps in ((0, 3), (1, 1), (0, 2)):
        engine.handle(action("advance", player, steps=steps))
    engine.handle(command({"command": "undo"}))
    before = engine.latest()[1]
    store.close()
    store2 = EventStore(db_path)
    after = Engine(store2).latest()[1]
    for key in ("game", "game_id", "seq", "players", "table"):
        assert after[key] == before[key]
    store2.close()


def test_second_game_needs_the_first_ended(engine: Engine) -> None:
    engine.handle(start_tiny())
    assert "still running" in engine.handle(start_tiny()).message
    engine.handle(command({"command": "end_game"}))
    _, snap = engine.latest()
    assert snap["game_id"] == 1  # the ended game's sheet stays on the scoreboard
    assert "has ended" in engine.handle(action("advance", 0, steps=1)).message
    assert engine.handle(start_tiny()).outcome == "applied"
    assert engine.latest()[1]["game_id"] == 2


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ({"command": "start_game", "game": "chess", "players": []}, "unknown game 'chess'"),
        (
            {
                "command": "start_game",
                "game": "tiny-race",
                "players": [{"name": "A"}, {"name": "A"}],
            },
            "different",
        ),
        (
            {
                "command": "start_game",
                "game": "tiny-race",
                "players": [{"name": "A", "seat": 1}, {"name": "B", "seat": 1}],
            },
            "two players at one seat",
        ),
        ({"command": "fly"}, "payload.command: 'fly' is not one of"),
        ({"command": "undo"}, "no game is running"),
    ],
)
def test_bad_commands_are_refused_with_reason(
    engine: Engine, payload: dict[str, object], message: str
) -> None:
    outcome = engine.handle(command(payload))
    assert outcome.outcome == "rejected" and message in outcome.message


def test_engine_thread_acknowledges_after_commit(engine: Engine, store: EventStore) -> None:
    seen: list[int] = []
    engine.subscribe(lambda pub: seen.append(pub.version))
    engine.start()
    try:
        outcome = engine.submit(start_tiny()).wait(5)
        assert outcome.outcome == "applied"
        assert len(store.entries(1)) == 1  # on disk by the time it is acknowledged
        engine.barrier()
        assert len(seen) >= 2
    finally:
        engine.stop()


def test_full_database_refuses_inputs_then_recovers(db_path: Path) -> None:
    """SQLITE_FULL (a full disk) as SQLite reports it: capping the page count makes the next
    write fail exactly like a full SD card."""
    store = EventStore(db_path)
    engine = Engine(store)
    engine.handle(start_tiny())
    pages = store._conn.execute("PRAGMA page_count").fetchone()[0]
    store._conn.execute(f"PRAGMA max_page_count={pages}")
    big = "x" * 12_000  # more than the free pages can hold (under the 16 kB stored-input cap)
    outcome = engine.handle(action("advance", 0, steps=1, note=big))
    assert outcome.outcome == "rejected" and "full" in outcome.message
    assert "full" in engine.latest()[1]["status"]["store_error"]
    assert engine.session().state.positions == (0, 0)  # type: ignore[union-attr]
    assert len(store.entries(1)) == 1  # nothing half-written
    store._conn.execute("PRAGMA max_page_count=1073741823")  # space returns
    assert engine.handle(action("advance", 0, steps=1)).outcome == "applied"
    assert engine.latest()[1]["status"]["store_error"] is None
    store.close()


def test_camera_cards_go_to_the_game_or_are_refused(engine: Engine) -> None:
    cards = Observation("camera", ObservationKind.CARDS, {"colours": ["red", "blue"]})  # type: ignore[arg-type]
    engine.handle(start_tiny())
    outcome = engine.handle(cards)
    assert outcome.outcome == "rejected" and "does not read cards" in outcome.message
    engine.handle(command({"command": "end_game"}))
    players = [
        {"name": "Red", "colour": "red", "seat": 1},
        {"name": "Blue", "colour": "blue", "seat": 2},
    ]
    engine.handle(
        command({"command": "start_game", "game": "ticket-to-ride-europe", "players": players})
    )
    five = Observation(
        "camera", ObservationKind.CARDS, {"colours": ["red", "blue", "green", "white", "black"]}
    )  # type: ignore[arg-type]
    assert engine.handle(five).outcome == "applied"
    assert engine.session().state.face_up == ("red", "blue", "green", "white", "black")  # type: ignore[union-attr]


def test_a_camera_card_it_is_not_sure_of_is_one_tap_on_the_table_page(engine: Engine) -> None:
    """The camera reads four face-up cards and is unsure of one: nothing is applied, the table's
    tree asks which card it is (its answers are the rules' own, one per kind of card), and the
    answer tapped fills the face-up row as a reading would have."""
    from companion.core.choices import node_at

    players = [{"name": "Red", "colour": "red"}, {"name": "Blue", "colour": "blue"}]
    engine.handle(
        command({"command": "start_game", "game": "ticket-to-ride-europe", "players": players})
    )
    reading = ["red", "unsure", "green", "white", "black"]
    outcome = engine.handle(
        Observation("camera", ObservationKind.CARDS, {"colours": reading})  # type: ignore[arg-type]
    )
    assert outcome.outcome == "prompt"
    assert outcome.message == (
        "The camera read red, ?, green, white, black: which card is the “?”?"
    )
    assert engine.session().state.face_up == (None,) * 5  # type: ignore[union-attr]
    built = engine.choices()
    assert built is not None
    seq, _, _, tree = built
    asked = node_at(tree, "prompt")
    answers = [render_text(c.label) for c in asked.expand()]
    assert answers == [
        "purple", "white", "blue", "yellow", "orange", "black", "red", "green", "locomotive"
    ]  # fmt: skip
    yellow = asked.expand()[answers.index("yellow")]
    made = yellow.input_json()
    assert made is not None
    tapped = Observation(
        "table",
        ObservationKind(str(made["kind"])),
        {**made["payload"], "seq": seq},  # type: ignore[dict-item]
    )
    assert engine.handle(tapped).outcome == "applied"
    assert engine.session().state.face_up == ("red", "yellow", "green", "white", "black")  # type: ignore[union-attr]


def test_after_a_restart_the_last_ended_game_stays_on_the_scoreboard(db_path: Path) -> None:
    store = EventStore(db_path)
    engine = Engine(store)
    engine.handle(start_tiny())
    engine.handle(action("advance", 0, steps=3))
    engine.handle(command({"command": "end_game", "reason": "abandoned"}))
    before = engine.latest()[1]
    store.close()
    store2 = EventStore(db_path)
    engine2 = Engine(store2)
    after = engine2.latest()[1]
    for key in ("game", "game_id", "seq", "players", "table"):
        assert after[key] == before[key]
    assert after["status"]["unfinished_games"] == []
    # shown, not resumed: nothing more can be applied, and a new game may start at once
    assert "has ended" in engine2.handle(action("advance", 1, steps=1)).message
    assert engine2.handle(start_tiny()).outcome == "applied"
    assert engine2.latest()[1]["game_id"] == 2
    store2.close()
