"""A refusal quotes a short prefix of what it refuses, never the whole of a huge input."""

from __future__ import annotations

import pytest

from companion.core.errors import MAX_REASON, SnapshotError
from companion.core.observation import Observation


def test_a_huge_bad_field_is_refused_with_a_short_message() -> None:
    huge = "A" * 2_000_000
    with pytest.raises(SnapshotError) as err:
        Observation.from_json({"kind": "tag_present", "source": "pad", "seat": huge, "payload": {}})
    message = str(err.value)
    assert err.value.path.endswith("seat")
    assert len(message) < MAX_REASON + 100
    assert message.endswith("characters)")  # says how much was cut
