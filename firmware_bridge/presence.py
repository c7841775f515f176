"""The one reader model: tag sightings in, de-duplicated tag-present / tag-removed out. Pure.

Serial readers only *repeat* what they see (an RDM6300 sends its frame again and again while a
tag is in the field; our PN532 driver polls; an ID-12LA says it once). A uid is present from
its first sighting until no sighting came for ``removal_timeout_s``. Readers hold one tag at a
time (``single_target``): a different uid means the previous tag left, so it is removed first.

When the port is lost, present tags are neither confirmed nor denied: the clock for their
removal stops and restarts on reconnection (:meth:`resume`), so a card resting on a seat pad
through a cable hiccup is one scan, not two.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Change = Literal["tag_present", "tag_removed"]


@dataclass(frozen=True, slots=True)
class PresenceChange:
    kind: Change
    uid: str


class PresenceTracker:
    """Which tags a reader has in its field right now."""

    def __init__(self, removal_timeout_s: float, *, single_target: bool = True) -> None:
        if removal_timeout_s <= 0:
            raise ValueError(f"removal_timeout_s must be > 0, got {removal_timeout_s!r}")
        self.removal_timeout_s = removal_timeout_s
        self.single_target = single_target
        self._last_seen: dict[str, float] = {}

    @property
    def present(self) -> tuple[str, ...]:
        return tuple(self._last_seen)

    def seen(self, uid: str, now: float) -> list[PresenceChange]:
        """A reader read ``uid`` at ``now``: present if it is new, else just refreshed."""
        changes = self.tick(now)
        if uid in self._last_seen:
            self._last_seen[uid] = now
            return changes
        if self.single_target:
            changes.extend(PresenceChange("tag_removed", old) for old in self._last_seen)
            self._last_seen.clear()
        self._last_seen[uid] = now
        changes.append(PresenceChange("tag_present", uid))
        return changes

    def tick(self, now: float) -> list[PresenceChange]:
        """Time passed: tags not seen for the timeout are removed (in the order they came)."""
        gone = [
            uid for uid, seen in self._last_seen.items() if now - seen >= self.removal_timeout_s
        ]
        for uid in gone:
            del self._last_seen[uid]
        return [PresenceChange("tag_removed", uid) for uid in gone]

    def resume(self, now: float) -> None:
        """The port is back: every present tag gets a fresh timeout to be seen again."""
        for uid in self._last_seen:
            self._last_seen[uid] = now
