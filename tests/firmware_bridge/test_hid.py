"""Keyboard-wedge scanners: key events to text per layout, and the grabbed-device loop.

``/dev/uinput`` is not available where these tests were written, so the loop is driven by
key-event streams laid out as the Linux input layer delivers them (fixtures/hid_streams.json)
through a fake device with a real file descriptor.
"""

from __future__ import annotations

import errno
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from evdev import ecodes
from hypothesis import given
from hypothesis import strategies as st

from companion.core import ObservationKind
from firmware_bridge import keymaps
from firmware_bridge.hid import HidReader, find_event_device
from firmware_bridge.keymaps import KeyDecoder, Scan
from firmware_bridge.ports import PortNotFoundError
from firmware_bridge.readers import Backoff, ReaderConfig
from tests.firmware_bridge.ptys import Collector, wait_until

STREAMS: dict[str, Any] = json.loads(
    (Path(__file__).parent / "fixtures" / "hid_streams.json").read_text(encoding="utf-8")
)
RECORDINGS = [name for name in STREAMS if not name.startswith("_")]


def decode(layout: str, events: list[list[float]]) -> list[Scan]:
    decoder = KeyDecoder(layout)
    scans = []
    for _, type_, code, value in events:
        if type_ == ecodes.EV_KEY:
            scan = decoder.key(int(code), int(value))
            if scan is not None:
                scans.append(scan)
    return scans


@pytest.mark.parametrize("name", RECORDINGS)
def test_each_layouts_stream_types_its_text(name: str) -> None:
    stream = STREAMS[name]
    assert decode(stream["layout"], stream["events"]) == [Scan(stream["text"])]


def test_a_german_scan_read_as_us_swaps_y_and_z_which_is_why_layout_is_configured() -> None:
    stream = STREAMS["de_zug"]
    (scan,) = decode("us", stream["events"])
    assert scan.text.startswith("Yug/Zak?")


def test_key_codes_match_the_kernel() -> None:
    for name in (
        "KEY_ENTER",
        "KEY_KPENTER",
        "KEY_RIGHTALT",
        "KEY_102ND",
        "KEY_CAPSLOCK",
        "KEY_GRAVE",
    ):
        assert getattr(keymaps, name) == getattr(ecodes, name)
    assert keymaps.TOP_ROW[0] == ecodes.KEY_Q and keymaps.BOTTOM_ROW[-1] == ecodes.KEY_SLASH
    assert (
        keymaps.HOME_ROW[-1] == ecodes.KEY_APOSTROPHE and keymaps.NUMBER_ROW[-1] == ecodes.KEY_EQUAL
    )


def press(decoder: KeyDecoder, code: int, *held: int) -> Scan | None:
    for h in held:
        decoder.key(h, 1)
    result = decoder.key(code, 1)
    decoder.key(code, 0)
    for h in held:
        decoder.key(h, 0)
    return result


def test_keypad_digits_caps_lock_and_backspace() -> None:
    decoder = KeyDecoder("us")
    press(decoder, ecodes.KEY_KP4)
    press(decoder, ecodes.KEY_KP2)
    press(decoder, ecodes.KEY_CAPSLOCK)
    press(decoder, ecodes.KEY_A)
    press(decoder, ecodes.KEY_A, ecodes.KEY_LEFTSHIFT)  # Shift undoes Caps Lock
    press(decoder, ecodes.KEY_1)  # Caps Lock leaves digits alone
    press(decoder, ecodes.KEY_X)
    press(decoder, ecodes.KEY_BACKSPACE)
    assert press(decoder, ecodes.KEY_KPENTER) == Scan("42Aa1")


def test_czech_caps_lock_capitalises_the_number_row_letters() -> None:
    decoder = KeyDecoder("cz")
    press(decoder, ecodes.KEY_CAPSLOCK)
    press(decoder, ecodes.KEY_2)
    press(decoder, ecodes.KEY_2, ecodes.KEY_LEFTSHIFT)
    assert press(decoder, ecodes.KEY_ENTER) == Scan("Ě2")


def test_a_dead_key_before_a_space_or_a_letter_it_cannot_carry() -> None:
    decoder = KeyDecoder("de")
    press(decoder, ecodes.KEY_GRAVE)  # dead circumflex
    press(decoder, ecodes.KEY_SPACE)
    press(decoder, ecodes.KEY_GRAVE)
    press(decoder, ecodes.KEY_X)
    press(decoder, ecodes.KEY_GRAVE)
    assert press(decoder, ecodes.KEY_ENTER) == Scan("^^x^")


def test_keys_the_layout_cannot_type_are_reported_and_repeats_ignored() -> None:
    decoder = KeyDecoder("us")
    press(decoder, ecodes.KEY_A)
    decoder.key(ecodes.KEY_A, 2)  # auto-repeat
    press(decoder, ecodes.KEY_F5)
    press(decoder, ecodes.KEY_E, ecodes.KEY_RIGHTALT)  # US has no AltGr level
    assert press(decoder, ecodes.KEY_ENTER) == Scan("a", unmapped=(ecodes.KEY_F5, ecodes.KEY_E))
    assert press(decoder, ecodes.KEY_ENTER) is None  # an empty Enter is no scan


def test_unknown_layout_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown layout 'xx'"):
        KeyDecoder("xx")


@given(
    st.sampled_from(["us", "uk", "de", "cz"]),
    st.lists(st.tuples(st.integers(0, 300), st.integers(0, 2)), max_size=200),
)
def test_any_key_events_never_raise_and_scans_never_hold_enter(
    layout: str, events: list[tuple[int, int]]
) -> None:
    decoder = KeyDecoder(layout)
    for code, value in events:
        scan = decoder.key(code, value)
        if scan is not None:
            assert "\n" not in scan.text and (scan.text or scan.unmapped)


# --- the grabbed device loop -------------------------------------------------------------------


class FakeScanner:
    """An input device that plays key events: a pipe's fd wakes the reader's select."""

    def __init__(self, name: str = "Honeywell Scanner") -> None:
        self.name = name
        self._r, self._w = os.pipe()
        self.fd = self._r
        self._lock = threading.Lock()
        self._queued: list[SimpleNamespace] = []
        self.grabbed = False
        self.grab_error: OSError | None = None
        self.unplugged = False
        self.closed = False

    def play(self, events: list[list[float]]) -> None:
        with self._lock:
            self._queued += [
                SimpleNamespace(type=int(t), code=int(c), value=int(v)) for _, t, c, v in events
            ]
        os.write(self._w, b"x")

    def unplug(self) -> None:
        self.unplugged = True
        os.write(self._w, b"x")

    def grab(self) -> None:
        if self.grab_error is not None:
            raise self.grab_error
        self.grabbed = True

    def ungrab(self) -> None:
        if self.unplugged:
            raise OSError(errno.ENODEV, "No such device")
        self.grabbed = False

    def read(self) -> list[SimpleNamespace]:
        os.read(self._r, 4096)
        if self.unplugged:
            raise OSError(errno.ENODEV, "No such device")
        with self._lock:
            events, self._queued = self._queued, []
        return events

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def scanners() -> Iterator[list[HidReader]]:
    started: list[HidReader] = []
    yield started
    for reader in started:
        reader.stop()


def hid_reader(
    started: list[HidReader], config: ReaderConfig, sink: Collector, devices: list[FakeScanner]
) -> HidReader:
    plugged = list(devices)

    def find(port: str) -> str:
        if not plugged:
            raise PortNotFoundError(f"no input device named {port!r}")
        return f"/dev/input/event{len(devices) - len(plugged)}"

    def opener(path: str) -> FakeScanner:
        return plugged.pop(0)

    reader = HidReader(config, sink, backoff=Backoff(0.02, 0.1), find=find, opener=opener)
    reader.scan_gap_s = 0.2
    reader.start()
    started.append(reader)
    return reader


def test_a_grabbed_scanner_types_scans_for_its_seat(scanners: list[HidReader]) -> None:
    device, sink = FakeScanner(), Collector()
    config = ReaderConfig("blue-seat", "hid", "Honeywell Scanner", seat=2, layout="de")
    reader = hid_reader(scanners, config, sink, [device])
    wait_until(lambda: reader.status().state == "connected")
    assert device.grabbed
    device.play(STREAMS["de_zug"]["events"])
    wait_until(lambda: len(sink.observations) == 1)
    (obs,) = sink.observations
    assert (obs.kind, dict(obs.payload), obs.source, obs.seat) == (
        ObservationKind.TEXT,
        {"text": "Zug-Yak_ÄÖÜß@€"},
        "blue-seat",
        2,
    )
    reader.stop()
    assert not device.grabbed and device.closed


def test_a_scan_in_the_wrong_layout_or_without_enter_is_an_error_not_a_text(
    scanners: list[HidReader],
) -> None:
    device, sink = FakeScanner(), Collector()
    reader = hid_reader(scanners, ReaderConfig("s", "hid", "x", layout="us"), sink, [device])
    wait_until(lambda: reader.status().state == "connected")
    device.play([[0, 1, ecodes.KEY_A, 1], [0, 1, ecodes.KEY_F5, 1], [0, 1, ecodes.KEY_ENTER, 1]])
    device.play([[0, 1, ecodes.KEY_B, 1], [0, 1, ecodes.KEY_B, 0]])
    wait_until(lambda: len(sink.observations) == 2)
    messages = [str(o.payload["message"]) for o in sink.observations]
    assert all(o.kind is ObservationKind.ERROR for o in sink.observations)
    assert "key code(s) 63 that layout 'us' has no character for" in messages[0]
    assert messages[1] == "hid: scan without Enter, dropped: 'b'"
    assert reader.status().frames_bad == 2


def test_an_unplugged_scanner_is_searched_for_and_picked_up_again(
    scanners: list[HidReader],
) -> None:
    first, second, sink = FakeScanner(), FakeScanner(), Collector()
    reader = hid_reader(scanners, ReaderConfig("s", "hid", "x"), sink, [first, second])
    wait_until(lambda: reader.status().connections == 1)
    first.play(STREAMS["us_rr_engineer"]["events"])
    wait_until(lambda: len(sink.observations) == 1)
    first.unplug()
    wait_until(lambda: reader.status().connections == 2)
    assert first.closed
    second.play(STREAMS["us_rr_engineer"]["events"])
    wait_until(lambda: len(sink.observations) == 2)
    assert sink.summary() == [("text", "RR-ENGINEER-3")] * 2


def test_a_scanner_grabbed_by_another_program_is_an_error(scanners: list[HidReader]) -> None:
    device, sink = FakeScanner(), Collector()
    device.grab_error = OSError(errno.EBUSY, "Device or resource busy")
    reader = hid_reader(scanners, ReaderConfig("s", "hid", "x"), sink, [device])
    wait_until(lambda: reader.status().state == "error")
    assert "busy" in reader.status().last_error
    assert device.closed


def test_a_scanner_we_may_not_read_names_the_input_group(scanners: list[HidReader]) -> None:
    def opener(path: str) -> FakeScanner:
        raise PermissionError(errno.EACCES, "Permission denied")

    reader = HidReader(
        ReaderConfig("s", "hid", "/dev/input/event3"),
        Collector(),
        backoff=Backoff(0.02, 0.1),
        find=lambda port: port,
        opener=opener,
    )
    reader.start()
    scanners.append(reader)
    wait_until(lambda: reader.status().state == "error")
    assert reader.status().last_error == (
        "/dev/input/event3: [Errno 13] Permission denied "
        "(is the service user in the 'input' group?)"
    )


def test_finding_an_event_device_that_is_not_there(tmp_path: Path) -> None:
    with pytest.raises(PortNotFoundError, match="not found"):
        find_event_device(str(tmp_path / "event99"))
    with pytest.raises(PortNotFoundError, match="no input device named 'No Such Scanner'"):
        find_event_device("No Such Scanner")
