"""The log is the truth: replay, undo, redo and corrections as appended events."""

from __future__ import annotations

import pytest

from companion.core import (
    Action,
    ActionApplied,
    ActionCorrected,
    ActionRedone,
    ActionUndone,
    GameEnded,
    GameStarted,
    IllegalActionError,
    LogEntry,
    PlayerSpec,
    TableSession,
    TracksideError,
)
from companion.core.events import event_from_json, event_to_json
from companion.games import find_game

GAME = find_game("tiny-race")
PLAYERS = (PlayerSpec("Red", "red", 1), PlayerSpec("Blue", "blue", 2))


def advance(player: int, steps: int) -> ActionApplied:
    return ActionApplied(Action("advance", player, {"steps": steps}))


def started() -> TableSession:
    return TableSession.start(GAME, LogEntry(1, GameStarted("tiny-race", PLAYERS, {"target": 10})))


def play(*events: object) -> TableSession:
    session = started()
    for event in events:
        session = session.append(LogEntry(session.next_seq, event))  # type: ignore[arg-type]
    return session


def positions(session: TableSession) -> tuple[int, ...]:
    return session.state.positions  # type: ignore[no-any-return]


def test_actions_fold_into_state() -> None:
    session = play(advance(0, 3), advance(1, 2))
    assert positions(session) == (3, 2)
    assert [a.seq for a in session.applied] == [2, 3]


def test_refused_action_leaves_session_unchanged() -> None:
    session = play(advance(0, 3))
    with pytest.raises(IllegalActionError, match="seat order"):
        session.append(LogEntry(3, advance(0, 1)))
    assert positions(session) == (3, 0) and session.next_seq == 3


def test_undo_then_redo_restores_exactly() -> None:
    session = play(advance(0, 3), advance(1, 2), ActionUndone(3))
    assert positions(session) == (3, 0)
    session = session.append(LogEntry(5, ActionRedone(3)))
    assert positions(session) == (3, 2)
    # the log keeps all five entries: nothing was deleted
    assert [e.seq for e in session.entries] == [1, 2, 3, 4, 5]


def test_undo_must_name_the_last_action_in_effect() -> None:
    session = play(advance(0, 3), advance(1, 2))
    with pytest.raises(IllegalActionError, match="last action in effect is #3"):
        session.append(LogEntry(4, ActionUndone(2)))


def test_new_action_clears_redo() -> None:
    session = play(advance(0, 3), ActionUndone(2), advance(0, 1))
    with pytest.raises(IllegalActionError, match="nothing to redo"):
        session.append(LogEntry(5, ActionRedone(2)))


def test_correction_replays_later_actions() -> None:
    session = play(advance(0, 3), advance(1, 2), advance(0, 1))
    corrected = session.append(LogEntry(5, ActionCorrected(2, Action("advance", 0, {"steps": 1}))))
    assert positions(corrected) == (2, 2)


def test_correction_that_breaks_a_later_action_is_refused() -> None:
    # Red reaches 10 on a corrected move: the game would be over, so Blue's later move is illegal
    session = play(advance(0, 3), advance(1, 2))
    session = TableSession.start(
        GAME, LogEntry(1, GameStarted("tiny-race", PLAYERS, {"target": 3}))
    ).append(LogEntry(2, advance(0, 2)))
    session = session.append(LogEntry(3, advance(1, 1)))
    with pytest.raises(IllegalActionError, match=r"#3 .* would no longer be legal"):
        session.append(LogEntry(4, ActionCorrected(2, Action("advance", 0, {"steps": 3}))))


def test_nothing_applies_after_the_end() -> None:
    session = play(advance(0, 3), GameEnded("abandoned"))
    assert session.is_ended
    with pytest.raises(IllegalActionError, match="ended"):
        session.append(LogEntry(4, advance(1, 1)))


def test_replay_equals_incremental_folding() -> None:
    session = play(advance(0, 3), advance(1, 2), ActionUndone(3), advance(1, 3), advance(0, 2))
    again = TableSession.replay(GAME, session.entries)
    assert again.state == session.state and again.applied == session.applied


def test_out_of_order_entry_is_refused() -> None:
    with pytest.raises(TracksideError, match="out of order"):
        started().append(LogEntry(5, advance(0, 1)))


@pytest.mark.parametrize(
    "event",
    [
        GameStarted("tiny-race", PLAYERS, {"target": 7}),
        advance(0, 2),
        ActionUndone(4),
        ActionRedone(4),
        ActionCorrected(3, Action("advance", 1, {"steps": 1})),
        GameEnded("finished"),
    ],
)
def test_events_round_trip_through_json(event: object) -> None:
    assert event_from_json(event_to_json(event)) == event  # type: ignore[arg-type]
