"""The stable-frame vote and marker presence, frame by frame."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vision.vote import MarkerPresence, StableVote

RED_WHITE_LOCO = ("red", "white", "locomotive")


def test_three_cards_are_reported_once_they_hold_for_three_frames() -> None:
    vote: StableVote[tuple[str, ...]] = StableVote(3)
    assert vote.update(RED_WHITE_LOCO) is None
    assert vote.update(RED_WHITE_LOCO) is None
    assert vote.update(RED_WHITE_LOCO) == RED_WHITE_LOCO
    # Lying there, they are not reported again.
    assert all(vote.update(RED_WHITE_LOCO) is None for _ in range(10))


def test_a_half_turned_card_or_a_flicker_restarts_the_count() -> None:
    vote: StableVote[tuple[str, ...]] = StableVote(3)
    vote.update(("red", "white"))
    vote.update(("red", "white"))
    # The third card is still being turned: two cards, then three.
    assert vote.update(RED_WHITE_LOCO) is None
    assert vote.update(("red", "white", "unsure")) is None
    assert vote.update(RED_WHITE_LOCO) is None
    assert vote.update(RED_WHITE_LOCO) is None
    assert vote.update(RED_WHITE_LOCO) == RED_WHITE_LOCO


def test_the_same_reveal_after_the_area_was_cleared_is_reported_again() -> None:
    vote: StableVote[tuple[str, ...]] = StableVote(2)
    for _ in range(2):
        vote.update(RED_WHITE_LOCO)
    assert vote.settled == RED_WHITE_LOCO
    vote.update(())
    assert vote.update(()) == ()
    vote.update(RED_WHITE_LOCO)
    assert vote.update(RED_WHITE_LOCO) == RED_WHITE_LOCO


def test_one_frame_votes_report_every_change() -> None:
    vote: StableVote[str] = StableVote(1)
    assert [vote.update(v) for v in "aabba"] == ["a", None, "b", None, "a"]


def test_a_vote_needs_at_least_one_frame() -> None:
    with pytest.raises(ValueError, match="≥ 1"):
        StableVote(0)
    with pytest.raises(ValueError, match="≥ 1"):
        MarkerPresence(1, 0)


@given(st.lists(st.sampled_from(["a", "b", "c"]), max_size=60), st.integers(1, 5))
def test_a_value_is_emitted_only_after_holding_n_frames(frames: list[str], n: int) -> None:
    vote: StableVote[str] = StableVote(n)
    for i, value in enumerate(frames):
        if vote.update(value) is not None:
            assert i + 1 >= n
            assert frames[i + 1 - n : i + 1] == [value] * n


def test_a_ticket_marker_is_present_after_two_frames_and_removed_after_five_missing() -> None:
    presence = MarkerPresence(frames=2, absent_frames=5)
    assert presence.update([7]) == []
    assert presence.update([7]) == [("tag_present", 7)]
    assert presence.update([7, 8]) == []
    # A hand covers ticket 7 for four frames while ticket 8 settles: 7 stays present.
    assert presence.update([8]) == [("tag_present", 8)]
    for _ in range(3):
        assert presence.update([8]) == []
    assert presence.present == frozenset({7, 8})
    assert presence.update([7, 8]) == []
    for _ in range(4):
        presence.update([8])
    assert presence.update([8]) == [("tag_removed", 7)]
    assert presence.present == frozenset({8})


def test_a_marker_seen_in_one_frame_only_is_never_reported() -> None:
    presence = MarkerPresence(frames=3, absent_frames=3)
    for ids in ([5], [], [5], [], [5, 6], [6]):
        assert presence.update(ids) == []


def test_stopping_the_camera_removes_everything_present() -> None:
    presence = MarkerPresence(frames=1, absent_frames=10)
    presence.update([3, 1])
    assert presence.clear() == [("tag_removed", 1), ("tag_removed", 3)]
    assert presence.present == frozenset()


@given(st.lists(st.sampled_from(["a", "b", ""]), max_size=40), st.integers(1, 4))
def test_a_steady_vote_is_unchanged_by_its_value_again(frames: list[str], n: int) -> None:
    # The camera skips the frames of a still table once its vote is steady: that must be the
    # same as reading the same value from them.
    vote: StableVote[str] = StableVote(n)
    for value in frames:
        vote.update(value)
        if vote.steady:
            settled = vote.settled
            assert vote.update(value) is None
            assert vote.steady and vote.settled == settled
    assert vote.steady == (len(frames) >= n and len(set(frames[-n:])) == 1)


@given(
    st.lists(st.frozensets(st.integers(0, 3), max_size=3), max_size=40),
    st.integers(1, 3),
    st.integers(1, 4),
)
def test_steady_marker_presence_is_unchanged_by_the_same_ids_again(
    frames: list[frozenset[int]], n: int, absent: int
) -> None:
    presence = MarkerPresence(n, absent)
    for ids in frames:
        presence.update(ids)
        if presence.steady:
            present = presence.present
            assert presence.update(ids) == []
            assert presence.steady and presence.present == present == ids


def test_marker_presence_is_not_steady_while_a_marker_settles_or_is_missed() -> None:
    presence = MarkerPresence(frames=2, absent_frames=3)
    assert presence.steady  # nothing seen, nothing present
    presence.update([4])
    assert not presence.steady  # seen once: present only after a second frame
    presence.update([4])
    assert presence.steady
    presence.update([])
    assert not presence.steady  # missed once: removed only after three frames
    presence.update([])
    presence.update([])
    assert presence.steady and presence.present == frozenset()
