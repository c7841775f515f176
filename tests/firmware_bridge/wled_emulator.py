"""A WLED device as far as our payloads go, written from the rules of WLED's ``wled00/json.cpp``
(``deserializeState``/``deserializeSegment``) and ``mqtt.cpp``, so tests check what the LEDs
would show — including what a real strip does that a byte comparison would miss:

- ``bri`` 0 is off; ``{"on": true}`` from off restores the last brightness and **unfreezes
  every segment** (the effect runs again);
- ``seg.i`` on a segment that is not frozen freezes it and **clears it to black** before
  painting; on a frozen segment it paints over what is there;
- entries: one or two integers (start, stop exclusive; a stop not above start paints one LED),
  then a colour (hex ``RRGGBB`` here) applied to them;
- ``tt`` is a one-off transition time (in 100 ms); without it a change of brightness fades
  over the device's default transition (700 ms in WLED's defaults). ``seg.i`` itself
  disables the transition.
- every applied state is published on ``<device>/g`` (brightness) as ``publishMqtt`` does, via
  ``on_publish``.

An unfrozen segment shows its effect: here a solid "effect colour" on every LED of the segment,
which is what a running effect looks like to a test that asks whether our frame is on the strip.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

EFFECT_COLOUR = 0xFFA000  # WLED's default warm orange: plainly "not the table's frame"
DEFAULT_TRANSITION_MS = 700


class EmulatedStrip:
    def __init__(
        self,
        length: int,
        *,
        on: bool = False,
        frozen: bool = True,
        on_publish: Callable[[str, str], None] | None = None,
        device: str = "strip",
    ) -> None:
        self.length = length
        self._pixels: list[int] = [0] * length
        self.bri = 128 if on else 0
        self.bri_last = 128
        self.frozen = frozen
        self.messages = 0
        self.fades: list[int] = []
        """The transition time (ms) of each brightness change: 0 is a cut, more a fade."""
        self.on_publish = on_publish
        self.device = device

    @property
    def on(self) -> bool:
        return self.bri > 0

    @property
    def pixels(self) -> list[int]:
        """What the LEDs show (ignoring brightness): our frame when frozen, else the effect."""
        return list(self._pixels) if self.frozen else [EFFECT_COLOUR] * self.length

    def _set_bri(self, bri: int, transition_ms: int) -> None:
        if bri != self.bri:
            self.fades.append(transition_ms)
        if bri == 0 and self.bri > 0:
            self.bri_last = self.bri
        was_on = self.bri > 0
        self.bri = bri
        if bri > 0 and not was_on:
            self.frozen = False  # json.cpp: "unfreeze all segments when turning on"

    # -- what other people do to the strip ---------------------------------------------------
    def toggle(self) -> None:
        """Someone switches it off or on (Home Assistant, the WLED app, its button)."""
        self._set_bri(0 if self.on else self.bri_last, DEFAULT_TRANSITION_MS)
        self._published()

    def _published(self) -> None:
        if self.on_publish is not None:
            self.on_publish(f"wled/{self.device}/g", str(self.bri))

    # -- the JSON API over MQTT ---------------------------------------------------------------
    def apply(self, payload: str) -> None:
        data: Any = json.loads(payload)
        assert isinstance(data, dict), payload
        self.messages += 1
        tt = data.get("tt")
        transition = tt * 100 if isinstance(tt, int) and tt >= 0 else DEFAULT_TRANSITION_MS
        bri = data.get("bri", self.bri)
        if "on" in data:
            on = data["on"]
            assert isinstance(on, bool), payload
            if on and bri == 0:
                bri = self.bri_last
            elif not on:
                bri = 0
        self._set_bri(int(bri), transition)
        seg = data.get("seg")
        if seg is not None:
            self._segment(seg, payload)
        self._published()

    def _segment(self, seg: Any, payload: str) -> None:
        assert seg["id"] == 0, payload
        entries = seg.get("i")
        if entries is None:
            return
        if not self.frozen:
            self.frozen = True
            self._pixels = [0] * self.length  # "freeze and init to black"
        numbers: list[int] = []
        for entry in entries:
            if isinstance(entry, int) and not isinstance(entry, bool):
                numbers.append(abs(entry))
                assert len(numbers) <= 2, f"three indexes in a row in {payload}"
                continue
            assert isinstance(entry, str) and len(entry) == 6, f"bad colour {entry!r}"
            colour = int(entry, 16)
            assert numbers, f"colour {entry!r} without an index in {payload}"
            start = numbers[0]
            stop = numbers[1] if len(numbers) == 2 and numbers[1] > start else start + 1
            assert stop <= self.length, f"range {start}..{stop} in {payload}"
            for index in range(start, stop):
                self._pixels[index] = colour
            numbers = []
        assert not numbers, f"trailing index in {payload}"
