"""Issue 46, point 5: the game ends when the rules say it is over, unless the table wants to
correct something. The move that makes the game over files it as finished at once (its own
input from the rules, after the move, in the log), a second "end the game" changes nothing, a
card turned up after it is kept and not refused, and a reopened game is ended by the table."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from companion.core import Observation, ObservationKind
from companion.core.events import ActionApplied, GameEnded, GameReopened
from companion.core.game import PlayerSpec
from companion.games.trains_and_stations.rules import TrainsAndStations
from companion.service.engine import RULES_SOURCE, Engine
from companion.service.store import EventStore

from .conftest import action, command, start_tiny


def _to_five(engine: Engine) -> None:
    """Tiny Race to 5: Red 3, Blue 1, then Red's 2 reaches the goal (the race is over)."""
    engine.handle(start_tiny(target=5))
    assert engine.handle(action("advance", 0, steps=3)).outcome == "applied"
    assert engine.handle(action("advance", 1, steps=1)).outcome == "applied"
    assert engine.handle(action("advance", 0, steps=2)).outcome == "applied"


def test_the_move_that_ends_the_game_files_it_as_finished(
    engine: Engine, store: EventStore
) -> None:
    _to_five(engine)
    session = engine.session()
    assert session is not None and session.ended == "finished"
    *_, last_move, ended = store.entries(1)
    assert isinstance(last_move.event, ActionApplied) and isinstance(ended.event, GameEnded)
    assert ended.seq == last_move.seq + 1 and ended.by == RULES_SOURCE
    newest = store.inputs(2)
    assert newest[0]["source"] == RULES_SOURCE and newest[0]["outcome"] == "applied"
    assert newest[1]["source"] == "table-page"  # the move itself, entered as it was
    _, snap = engine.latest()
    assert snap["over"] and snap["winners"] == ["Red"]
    assert store.games()[0].ended_at is not None and store.games()[0].result is not None
    # the TV's last moves say it ended, in the readers' words
    status = snap["status"]
    assert isinstance(status, dict) and isinstance(status["recent"], list)
    said = [r["message"] for r in status["recent"] if isinstance(r, dict)]
    assert any("final scoring done, filed as finished" in str(m) for m in said)


def test_a_second_end_and_a_late_scan_change_nothing_and_are_kept(
    engine: Engine, store: EventStore
) -> None:
    store.enrol("04D1E5000003", "tiny-race", "die-3")
    _to_five(engine)
    entries = len(store.entries(1))
    again = engine.handle(command({"command": "end_game"}))
    assert again.outcome == "logged" and "already over" in again.message
    late = Observation("red-seat", ObservationKind.TAG_PRESENT, {"uid": "04D1E5000003"}, 1)  # type: ignore[arg-type]
    scanned = engine.handle(late)
    assert scanned.outcome == "logged" and "a scan changes nothing" in scanned.message
    assert len(store.entries(1)) == entries  # nothing entered
    assert [i["outcome"] for i in store.inputs(2)] == ["logged", "logged"]  # both kept
    # abandoning a game the rules finished is refused: it stays as filed
    abandon = engine.handle(command({"command": "end_game", "reason": "abandoned"}))
    assert abandon.outcome == "rejected"
    assert store.games()[0].end_reason == "finished"
    # a scan longer than any tag is refused as such, over or not (the bound comes first)
    huge = Observation("red-seat", ObservationKind.TAG_PRESENT, {"uid": "A" * 5000}, 1)  # type: ignore[arg-type]
    refused = engine.handle(huge)
    assert refused.outcome == "rejected" and "5000 characters" in refused.message


def test_a_reopened_game_is_ended_by_the_table_after_its_correction(
    engine: Engine, store: EventStore
) -> None:
    _to_five(engine)
    assert engine.handle(command({"command": "reopen_game", "game_id": 1})).outcome == "applied"
    # the table corrects Blue's move (1 → 2): the game stays open until the table ends it
    fix = {
        "command": "correct",
        "target_seq": 3,
        "action": {"kind": "advance", "player": 1, "args": {"steps": 2}},
    }
    assert engine.handle(command(fix)).outcome == "applied"
    session = engine.session()
    assert session is not None and not session.is_ended and session.game.is_over(session.state)
    assert isinstance(store.entries(1)[-2].event, GameReopened)
    ended = engine.handle(command({"command": "end_game", "reason": "finished"}))
    assert ended.outcome == "applied"
    assert store.games()[0].end_reason == "finished"


def test_an_ended_game_replays_ended_after_a_restart(db_path: Path) -> None:
    store = EventStore(db_path)
    _to_five(Engine(store))
    store.close()
    store = EventStore(db_path)
    try:
        engine = Engine(store)
        session = engine.session(1)  # type: ignore[arg-type]
        assert session is not None and session.ended == "finished"
        assert engine.latest()[1]["winners"] == ["Red"]
    finally:
        store.close()


def test_trains_and_stations_waits_for_the_special_cards_to_be_told() -> None:
    """ "Bodování": the special cards in hand count toward the monopolies; their owners tell
    which show two goods on their own phones after the last move, so a game over with special
    cards in hand is not settled and the table ends it itself."""
    game = TrainsAndStations()
    state = game.setup([PlayerSpec("Ann"), PlayerSpec("Ben"), PlayerSpec("Cat")], {})
    assert any(p.special_cards for p in state.players)
    over = replace(state, over=True)
    assert game.is_over(over) and not game.settled(over)
    none_held = replace(over, players=tuple(replace(p, special_cards=0) for p in over.players))
    assert game.settled(none_held)
