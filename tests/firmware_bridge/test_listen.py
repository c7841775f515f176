"""``trackside listen`` and ``trackside readers`` as a hobbyist sees them."""

from __future__ import annotations

import io
import json
import threading
from pathlib import Path

import pytest

from companion.core import ConfigError
from firmware_bridge.hid import InputInfo
from firmware_bridge.listen import list_ports, listen
from firmware_bridge.ports import PortInfo
from firmware_bridge.readers import Backoff, ReaderConfig
from tests.firmware_bridge.frame_fixtures import rdm6300_frame
from tests.firmware_bridge.ptys import PtyDevice, wait_until


class Lines(io.StringIO):
    def lines(self) -> list[dict[str, object]]:
        return [json.loads(line) for line in self.getvalue().splitlines()]


def test_listen_prints_one_json_object_per_observation_and_its_status(tmp_path: Path) -> None:
    device = PtyDevice(tmp_path / "usb-rdm6300").plug()
    out, stop = Lines(), threading.Event()
    args = ("rdm6300", str(device.link), None, 1, out, stop)
    thread = threading.Thread(target=listen, args=args, kwargs={"backoff": Backoff(0.02, 0.1)})
    thread.start()
    try:
        wait_until(lambda: any(line.get("state") == "connected" for line in out.lines()))
        device.write(rdm6300_frame("0F002A7F8A") + rdm6300_frame("0F002A7F8A", checksum=0))
        wait_until(lambda: len([x for x in out.lines() if x["kind"] == "tag_removed"]) == 1)
    finally:
        stop.set()
        thread.join(5)
        device.unplug()
    lines = [x for x in out.lines() if x["kind"] != "status"]
    for line in lines:
        assert line.pop("at")
    assert lines == [
        {"kind": "tag_present", "uid": "0F002A7F8A", "reader": str(device.link), "seat": 1},
        {
            "kind": "error",
            "message": "rdm6300: bad checksum 00, expected D0 in 02 30 46 30 30 32 41 37 46 38 41 30 30 03",
            "reader": str(device.link),
            "seat": 1,
        },
        {"kind": "tag_removed", "uid": "0F002A7F8A", "reader": str(device.link), "seat": 1},
    ]


def test_listen_shows_a_missing_port_as_searching(tmp_path: Path) -> None:
    out, stop = Lines(), threading.Event()
    thread = threading.Thread(
        target=listen, args=("line", str(tmp_path / "nope"), 9600, None, out, stop)
    )
    thread.start()
    try:
        wait_until(lambda: any(line.get("error") for line in out.lines()))
    finally:
        stop.set()
        thread.join(5)
    status = next(x for x in out.lines() if x.get("error"))
    assert status["state"] == "searching"
    assert str(status["error"]).startswith(f"{tmp_path / 'nope'} not found")
    assert status["seat"] is None


def test_listen_refuses_bad_options_naming_them() -> None:
    known = "rdm6300, id12la, pn532, line, hid"
    with pytest.raises(ConfigError, match=f"^--protocol: 'wiegand' is not one of {known}$"):
        listen("wiegand", "/dev/ttyUSB0", None, None, io.StringIO())
    with pytest.raises(ConfigError, match=r"^--seat: expected a seat number ≥ 1, got 0$"):
        listen("rdm6300", "/dev/ttyUSB0", None, 0, io.StringIO())
    with pytest.raises(ConfigError, match=r"^--port: give a port"):
        listen("rdm6300", "", None, None, io.StringIO())


def test_readers_lists_ports_with_stable_names_and_configuration() -> None:
    ports = [
        PortInfo(
            device="/dev/ttyUSB0",
            vid_pid="1a86:7523",
            description="USB Serial",
            by_id=("/dev/serial/by-id/usb-1a86_USB_Serial-if00-port0",),
            by_path=("/dev/serial/by-path/platform-fd500000.pcie-usb-0:1.2:1.0-port0",),
        ),
        PortInfo(device="/dev/ttyAMA0", description="ttyAMA0"),
        PortInfo(device="/dev/ttyACM0", vid_pid="2341:0043", description="Arduino Uno"),
    ]
    configured = [
        ReaderConfig("red-seat", "rdm6300", "usb-1a86_USB_Serial-if00-port0", seat=1),
        ReaderConfig("blue-seat", "line", "", seat=2, vid_pid=("2341:0043",)),
        ReaderConfig("green-seat", "pn532", "/dev/serial/by-id/usb-FTDI-gone", seat=3),
        ReaderConfig("scanner", "hid", "Honeywell Scanner"),
    ]
    inputs = [
        InputInfo(
            "/dev/input/event3",
            "Honeywell Scanner",
            ("/dev/input/by-id/usb-Honeywell_Scanner-event-kbd",),
        ),
        InputInfo("/dev/input/event0", "AT Translated Set 2 keyboard"),
    ]
    out = io.StringIO()
    assert list_ports(out, configured, lister=lambda: ports, inputs=lambda: inputs) == 0
    assert out.getvalue().splitlines() == [
        "/dev/ttyUSB0  [1a86:7523]  USB Serial",
        "    by-id:   /dev/serial/by-id/usb-1a86_USB_Serial-if00-port0",
        "    by-path: /dev/serial/by-path/platform-fd500000.pcie-usb-0:1.2:1.0-port0",
        "    configured as: red-seat (rdm6300, seat 1)",
        "/dev/ttyAMA0  [no USB id]  ttyAMA0",
        "    not configured",
        "/dev/ttyACM0  [2341:0043]  Arduino Uno",
        "    configured as: blue-seat (line, seat 2)",
        "configured but not detected: green-seat (pn532, seat 3) at /dev/serial/by-id/usb-FTDI-gone",
        "/dev/input/event3  input device  Honeywell Scanner",
        "    by-id:   /dev/input/by-id/usb-Honeywell_Scanner-event-kbd",
        "    configured as: scanner (hid)",
        "/dev/input/event0  input device  AT Translated Set 2 keyboard",
        "    not configured",
    ]


def test_readers_with_nothing_attached_says_so() -> None:
    out = io.StringIO()
    assert list_ports(out, lister=list, inputs=list) == 0
    assert out.getvalue() == "no serial ports detected\n"


def test_readers_on_this_machine_does_not_fail() -> None:
    out = io.StringIO()
    assert list_ports(out) == 0
    assert out.getvalue()
