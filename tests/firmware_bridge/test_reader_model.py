"""The reader model, config validation, port naming and back-off: the pure parts."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.core import ConfigError
from firmware_bridge.ports import PortInfo, PortNotFoundError, PortRefusedError, candidate_devices
from firmware_bridge.presence import PresenceChange, PresenceTracker
from firmware_bridge.readers import Backoff, ObservationMaker, ReaderConfig

present = lambda uid: PresenceChange("tag_present", uid)  # noqa: E731
removed = lambda uid: PresenceChange("tag_removed", uid)  # noqa: E731


def test_a_repeating_reader_gives_one_present_and_one_removed() -> None:
    tracker = PresenceTracker(0.5)
    assert tracker.seen("A", 0.0) == [present("A")]
    assert tracker.seen("A", 0.1) == []
    assert tracker.seen("A", 0.55) == []  # refreshed at 0.1, so still here
    assert tracker.tick(1.0) == []
    assert tracker.tick(1.05) == [removed("A")]
    assert tracker.present == ()


def test_a_new_card_on_a_single_target_reader_removes_the_old_one_first() -> None:
    tracker = PresenceTracker(5.0)
    tracker.seen("A", 0.0)
    assert tracker.seen("B", 0.2) == [removed("A"), present("B")]


def test_a_multi_target_reader_keeps_both() -> None:
    tracker = PresenceTracker(1.0, single_target=False)
    tracker.seen("A", 0.0)
    assert tracker.seen("B", 0.5) == [present("B")]
    assert tracker.tick(1.0) == [removed("A")]


def test_resume_gives_present_tags_a_fresh_timeout() -> None:
    tracker = PresenceTracker(0.5)
    tracker.seen("A", 0.0)
    tracker.resume(10.0)  # the port came back after a long outage
    assert tracker.tick(10.4) == []
    assert tracker.seen("A", 10.45) == []
    assert tracker.tick(11.0) == [removed("A")]


def test_a_removal_timeout_must_be_positive() -> None:
    with pytest.raises(ValueError, match="removal_timeout_s must be > 0"):
        PresenceTracker(0)


def test_observations_carry_reader_and_seat() -> None:
    maker = ObservationMaker(ReaderConfig("red-seat", "rdm6300", "/dev/ttyUSB0", seat=1))
    from firmware_bridge.frames import FrameRejected, TagSeen, TextSeen

    observations = maker.from_events(
        [TagSeen("A1"), TextSeen("x", uid="B2"), FrameRejected("rdm6300: noise")], 3.0
    )
    assert [(o.kind.value, dict(o.payload), o.seat, o.source) for o in observations] == [
        ("tag_present", {"uid": "A1"}, 1, "red-seat"),
        ("text", {"text": "x", "uid": "B2"}, 1, "red-seat"),
        ("error", {"message": "rdm6300: noise"}, 1, "red-seat"),
    ]
    assert observations[0].monotonic_s == 3.0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"protocol": "wiegand"}, "readers.r.protocol: 'wiegand' is not one of"),
        ({"port": ""}, "readers.r.port: give a port (or a vid_pid allow-list)"),
        ({"seat": 0}, "readers.r.seat: expected a seat number ≥ 1, got 0"),
        ({"baud": -9600}, "readers.r.baud: expected a positive baud rate"),
        ({"vid_pid": ("1a86-7523",)}, "readers.r.vid_pid: '1a86-7523' is not like '1a86:7523'"),
        ({"reset_wait_s": -1.0}, "readers.r.reset_wait_s: must be ≥ 0"),
        ({"removal_timeout_s": 0.0}, "readers.r.removal_timeout_s: must be > 0"),
        ({"layout": "xx"}, "readers.r.layout: unknown layout 'xx'"),
        ({"protocol": "hid", "port": "", "vid_pid": ("1a86:7523",)}, "HID scanner needs"),
    ],
)
def test_bad_reader_config_names_the_option(kwargs: dict[str, object], message: str) -> None:
    fields: dict[str, object] = {"name": "r", "protocol": "rdm6300", "port": "/dev/ttyUSB0"}
    fields.update(kwargs)
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        ReaderConfig(**fields)  # type: ignore[arg-type]


def test_protocol_defaults_for_baud_and_the_arduino_wait() -> None:
    assert ReaderConfig("r", "rdm6300", "x").effective_baud == 9600
    assert ReaderConfig("r", "pn532", "x").effective_baud == 115200
    assert ReaderConfig("r", "line", "x", baud=115200).effective_baud == 115200
    assert ReaderConfig("r", "line", "x").effective_reset_wait_s == 2.0
    assert ReaderConfig("r", "rdm6300", "x").effective_reset_wait_s == 0.0
    assert ReaderConfig("r", "line", "x", reset_wait_s=0).effective_reset_wait_s == 0.0
    assert ReaderConfig("r", "line", "x", vid_pid=("1A86:7523",)).vid_pid == ("1a86:7523",)


def test_backoff_grows_from_two_to_thirty_seconds_and_resets() -> None:
    backoff = Backoff()
    assert [backoff.next_delay() for _ in range(6)] == [2.0, 4.0, 8.0, 16.0, 30.0, 30.0]
    backoff.reset()
    assert backoff.next_delay() == 2.0


def test_bare_by_id_and_by_path_names_are_found(tmp_path: Path) -> None:
    by_id, by_path = tmp_path / "by-id", tmp_path / "by-path"
    by_id.mkdir()
    by_path.mkdir()
    (by_id / "usb-FTDI_FT232R-if00-port0").symlink_to("/dev/null")
    (by_path / "platform-usb-0:1.2:1.0-port0").symlink_to("/dev/null")
    kw = {"by_id": by_id, "by_path": by_path, "lister": list}
    assert candidate_devices("usb-FTDI_FT232R-if00-port0", **kw) == [  # type: ignore[arg-type]
        str(by_id / "usb-FTDI_FT232R-if00-port0")
    ]
    assert candidate_devices("platform-usb-0:1.2:1.0-port0", **kw) == [  # type: ignore[arg-type]
        str(by_path / "platform-usb-0:1.2:1.0-port0")
    ]
    with pytest.raises(PortNotFoundError, match="usb-gone not found"):
        candidate_devices("usb-gone", **kw)  # type: ignore[arg-type]


def test_usb_id_allow_lists() -> None:
    ports = [
        PortInfo("/dev/null", vid_pid="0403:6001"),
        PortInfo("/dev/zero", vid_pid="1a86:7523"),
        PortInfo("/dev/full", vid_pid="1a86:7523"),
    ]
    assert candidate_devices("", ("1a86:7523",), lambda: ports) == ["/dev/zero", "/dev/full"]
    assert candidate_devices("/dev/null", ("0403:6001",), lambda: ports) == ["/dev/null"]
    with pytest.raises(
        PortRefusedError, match="/dev/null has USB id 0403:6001, not in the allow-list"
    ):
        candidate_devices("/dev/null", ("1a86:7523",), lambda: ports)
    with pytest.raises(PortNotFoundError, match="no serial port with USB id 2341:0043"):
        candidate_devices("", ("2341:0043",), lambda: ports)
