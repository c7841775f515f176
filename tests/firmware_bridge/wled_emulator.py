"""A WLED strip as far as our payloads go: applies ``seg.i`` (index/colour and
start/stop/colour entries, hex colours) the way WLED's JSON API does, so tests check what the
LEDs would show rather than the bytes."""

from __future__ import annotations

import json
from typing import Any


class EmulatedStrip:
    def __init__(self, length: int) -> None:
        self.pixels: list[int] = [0] * length
        self.on = False
        self.messages = 0

    def apply(self, payload: str) -> None:
        data: Any = json.loads(payload)
        assert isinstance(data, dict), payload
        self.messages += 1
        if "on" in data:
            assert data["on"] is True, payload
            self.on = True
        seg = data.get("seg")
        if seg is None:
            return
        assert seg["id"] == 0, payload
        entries = seg["i"]
        numbers: list[int] = []
        for entry in entries:
            if isinstance(entry, int):
                numbers.append(entry)
                assert len(numbers) <= 2, f"three indexes in a row in {payload}"
                continue
            assert isinstance(entry, str) and len(entry) == 6, f"bad colour {entry!r}"
            colour = int(entry, 16)
            assert numbers, f"colour {entry!r} without an index in {payload}"
            start = numbers[0]
            stop = numbers[1] if len(numbers) == 2 else start + 1
            assert 0 <= start < stop <= len(self.pixels), f"range {start}..{stop} in {payload}"
            for index in range(start, stop):
                self.pixels[index] = colour
            numbers = []
        assert not numbers, f"trailing index in {payload}"
