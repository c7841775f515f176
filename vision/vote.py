"""Stable-frame votes: a camera result counts only when several consecutive frames agree.

A card being turned over, a hand passing, a flicker in one frame: none of them reach the game.
Pure (no OpenCV), so the timing rules are tested frame by frame.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Generic, Literal, TypeVar

T = TypeVar("T", bound=Hashable)


class StableVote(Generic[T]):
    """Emits a value once it has held for ``frames`` consecutive frames, and only when it differs
    from the value emitted last (the same three cards lying there are reported once)."""

    def __init__(self, frames: int) -> None:
        if frames < 1:
            raise ValueError(f"stable frames must be ≥ 1, got {frames!r}")
        self.frames = frames
        self._candidate: T | None = None
        self._count = 0
        self._settled: T | None = None

    @property
    def settled(self) -> T | None:
        """The last value that held long enough (emitted or not)."""
        return self._settled

    @property
    def steady(self) -> bool:
        """The latest value has held for ``frames`` frames: the same value again changes
        nothing (it is neither emitted nor restarts a count)."""
        return self._candidate is not None and self._count >= self.frames

    def update(self, value: T) -> T | None:
        if value == self._candidate:
            self._count += 1
        else:
            self._candidate, self._count = value, 1
        if self._count == self.frames and value != self._settled:
            self._settled = value
            return value
        return None


MarkerChange = tuple[Literal["tag_present", "tag_removed"], int]


class MarkerPresence:
    """Turns per-frame marker ids into present/removed changes, like a reader's tag events.

    A marker is present after ``frames`` consecutive frames with it, and removed after
    ``absent_frames`` consecutive frames without it (a hand over a card for a moment is not a
    removal)."""

    def __init__(self, frames: int, absent_frames: int) -> None:
        if frames < 1 or absent_frames < 1:
            raise ValueError(f"frame counts must be ≥ 1, got {frames!r} and {absent_frames!r}")
        self.frames = frames
        self.absent_frames = absent_frames
        self._seen: dict[int, int] = {}
        self._missing: dict[int, int] = {}
        self._present: set[int] = set()

    @property
    def present(self) -> frozenset[int]:
        return frozenset(self._present)

    @property
    def steady(self) -> bool:
        """Every marker seen last is present and none present was missed: the same ids again
        change nothing."""
        return not self._missing and self._seen.keys() == self._present

    def update(self, ids: Iterable[int]) -> list[MarkerChange]:
        now = set(ids)
        changes: list[MarkerChange] = []
        for marker_id in sorted(now):
            self._missing.pop(marker_id, None)
            self._seen[marker_id] = self._seen.get(marker_id, 0) + 1
            if marker_id not in self._present and self._seen[marker_id] >= self.frames:
                self._present.add(marker_id)
                changes.append(("tag_present", marker_id))
        for marker_id in sorted(set(self._seen) - now):
            del self._seen[marker_id]
        for marker_id in sorted(self._present - now):
            self._missing[marker_id] = self._missing.get(marker_id, 0) + 1
            if self._missing[marker_id] >= self.absent_frames:
                self._present.discard(marker_id)
                del self._missing[marker_id]
                changes.append(("tag_removed", marker_id))
        return changes

    def clear(self) -> list[MarkerChange]:
        """Everything present is removed (the camera stopped or lost its view)."""
        changes: list[MarkerChange] = [("tag_removed", i) for i in sorted(self._present)]
        self._present.clear()
        self._seen.clear()
        self._missing.clear()
        return changes
