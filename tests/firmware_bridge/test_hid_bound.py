"""Issue 52, point 8: a keyboard-wedge scanner (or anything posing as a keyboard) typing
200,000 characters before Enter: the decoder keeps at most ``MAX_SCAN_CHARS`` of them and the
scan is refused as an error naming the length and the limit, never entered as a text."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from evdev import ecodes

from companion.core import ObservationKind
from firmware_bridge.hid import HidReader
from firmware_bridge.keymaps import MAX_SCAN_CHARS, KeyDecoder
from firmware_bridge.readers import ReaderConfig
from tests.firmware_bridge.ptys import Collector, wait_until
from tests.firmware_bridge.test_hid import FakeScanner, hid_reader


@pytest.fixture
def scanners() -> Iterator[list[HidReader]]:
    started: list[HidReader] = []
    yield started
    for reader in started:
        reader.stop()


def test_the_decoder_keeps_at_most_a_scans_worth() -> None:
    decoder = KeyDecoder("us")
    for _ in range(200_000):
        decoder.key(ecodes.KEY_A, 1)
        decoder.key(ecodes.KEY_A, 0)
        decoder.key(ecodes.KEY_F5, 1)  # a key the layout types nothing for
    assert len(decoder._text) == MAX_SCAN_CHARS and len(decoder._unmapped) == MAX_SCAN_CHARS
    scan = decoder.key(ecodes.KEY_ENTER, 1)
    assert scan is not None and scan.dropped == 2 * (200_000 - MAX_SCAN_CHARS)
    assert len(scan.text) == MAX_SCAN_CHARS
    assert decoder.key(ecodes.KEY_B, 1) is None and decoder.finish().text == "b"  # type: ignore[union-attr]


def test_a_scan_of_200000_characters_is_an_error(scanners: list[HidReader]) -> None:
    device, sink = FakeScanner(), Collector()
    reader = hid_reader(scanners, ReaderConfig("s", "hid", "x", layout="us"), sink, [device])
    wait_until(lambda: reader.status().state == "connected")
    device.play([[0, 1, ecodes.KEY_A, 1], [0, 1, ecodes.KEY_A, 0]] * 200_000)
    device.play([[0, 1, ecodes.KEY_ENTER, 1]])
    wait_until(lambda: len(sink.observations) == 1, timeout_s=60)
    (obs,) = sink.observations
    assert obs.kind is ObservationKind.ERROR
    message = str(obs.payload["message"])
    assert message.startswith("hid: scan of 200000 characters; a scan is at most 1024")
    assert len(message) < 200
