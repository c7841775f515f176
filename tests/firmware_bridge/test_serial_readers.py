"""Serial readers end to end: real pyserial on pseudo-terminals, through the real port loop."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.core import ObservationKind
from firmware_bridge.ports import PortInfo
from firmware_bridge.readers import (
    Backoff,
    Reader,
    ReaderConfig,
    SerialReader,
    open_reader,
    with_hint,
)
from tests.firmware_bridge.frame_fixtures import pn532_response, pn532_target, rdm6300_frame
from tests.firmware_bridge.ptys import Collector, PtyDevice, wait_until

CARD_A = "0F002A7F8A"
CARD_B = "1A00C3B2D4"
FAST = Backoff(initial_s=0.02, max_s=0.1)


@pytest.fixture
def device(tmp_path: Path) -> Iterator[PtyDevice]:
    dev = PtyDevice(tmp_path / "usb-rdm6300-seat1").plug()
    yield dev
    if dev.master is not None:
        dev.unplug()


@pytest.fixture
def readers() -> Iterator[list[Reader]]:
    started: list[Reader] = []
    yield started
    for reader in started:
        reader.stop()


def start(readers: list[Reader], config: ReaderConfig, sink: Collector, **kw: object) -> Reader:
    reader = open_reader(config, sink, backoff=Backoff(0.02, 0.1), **kw)  # type: ignore[arg-type]
    reader.start()
    readers.append(reader)
    return reader


def connected(reader: Reader, connections: int = 1) -> None:
    wait_until(
        lambda: reader.status().state == "connected" and reader.status().connections >= connections,
        what=f"connection {connections}",
    )


def hold_card(device: PtyDevice, uid: str, times: int = 4, every_s: float = 0.05) -> None:
    """An RDM6300 repeats its frame while the card stays in the field."""
    for _ in range(times):
        device.write(rdm6300_frame(uid))
        time.sleep(every_s)


def test_a_card_held_on_the_seat_pad_is_one_present_then_removed(
    device: PtyDevice, readers: list[Reader]
) -> None:
    sink = Collector()
    config = ReaderConfig("red-seat", "rdm6300", str(device.link), seat=1, removal_timeout_s=0.5)
    reader = start(readers, config, sink)
    connected(reader)
    hold_card(device, CARD_A, times=6)
    wait_until(lambda: len(sink.observations) == 2, what="present and removed")
    assert sink.summary() == [("tag_present", CARD_A), ("tag_removed", CARD_A)]
    present, removed = sink.observations
    assert (present.source, present.seat) == ("red-seat", 1)
    assert dict(present.payload) == {"uid": CARD_A}
    assert removed.monotonic_s - present.monotonic_s >= 0.5
    assert reader.status().frames_ok == 6
    assert device.read() == b""  # a passive reader never writes to its port


def test_a_different_card_replaces_the_first_at_once(
    device: PtyDevice, readers: list[Reader]
) -> None:
    sink = Collector()
    reader = start(
        readers, ReaderConfig("r", "rdm6300", str(device.link), removal_timeout_s=5), sink
    )
    connected(reader)
    device.write(rdm6300_frame(CARD_A) + rdm6300_frame(CARD_B))
    wait_until(lambda: len(sink.observations) == 3)
    assert sink.summary() == [
        ("tag_present", CARD_A),
        ("tag_removed", CARD_A),
        ("tag_present", CARD_B),
    ]


def test_a_bad_frame_is_counted_and_reported_never_a_scan(
    device: PtyDevice, readers: list[Reader]
) -> None:
    sink = Collector()
    reader = start(readers, ReaderConfig("r", "rdm6300", str(device.link)), sink)
    connected(reader)
    device.write(rdm6300_frame(CARD_A, checksum=0x00))
    device.write(rdm6300_frame(CARD_A)[:7])  # cut off: reported after the silent gap
    wait_until(lambda: reader.status().frames_bad == 2)
    kinds = [o.kind for o in sink.observations]
    assert kinds == [ObservationKind.ERROR, ObservationKind.ERROR]
    assert "bad checksum" in str(sink.observations[0].payload["message"])
    assert "truncated" in str(sink.observations[1].payload["message"])


def test_unplugged_and_plugged_back_the_reader_reconnects_without_lost_or_doubled_scans(
    device: PtyDevice, readers: list[Reader]
) -> None:
    sink = Collector()
    config = ReaderConfig("r", "rdm6300", str(device.link), removal_timeout_s=0.4)
    reader = start(readers, config, sink)
    connected(reader)
    hold_card(device, CARD_A, times=2)
    wait_until(lambda: len(sink.observations) == 2, what="card A gone")
    device.unplug()
    wait_until(lambda: reader.status().state == "searching", what="searching")
    assert "not found" in reader.status().last_error
    device.plug()
    connected(reader, connections=2)
    hold_card(device, CARD_B, times=2)
    wait_until(lambda: len(sink.observations) == 4, what="card B gone")
    time.sleep(0.3)
    assert sink.summary() == [
        ("tag_present", CARD_A),
        ("tag_removed", CARD_A),
        ("tag_present", CARD_B),
        ("tag_removed", CARD_B),
    ]


def test_a_card_resting_on_the_pad_through_a_cable_hiccup_is_one_scan(
    device: PtyDevice, readers: list[Reader]
) -> None:
    sink = Collector()
    config = ReaderConfig("r", "rdm6300", str(device.link), removal_timeout_s=0.6)
    reader = start(readers, config, sink)
    connected(reader)
    hold_card(device, CARD_A, times=2)
    device.unplug()
    time.sleep(0.9)  # longer than the removal timeout: the reader cannot see, so it waits
    device.plug()
    connected(reader, connections=2)
    hold_card(device, CARD_A, times=3)
    wait_until(lambda: len(sink.observations) == 2, what="card A gone")
    assert sink.summary() == [("tag_present", CARD_A), ("tag_removed", CARD_A)]


def test_a_port_that_is_not_there_yet_is_searched_for_until_it_appears(
    tmp_path: Path, readers: list[Reader]
) -> None:
    sink = Collector()
    device = PtyDevice(tmp_path / "late")
    reader = start(readers, ReaderConfig("r", "rdm6300", str(device.link)), sink)
    wait_until(lambda: reader.status().last_error != "")
    assert reader.status().state == "searching"
    assert reader.status().last_error.startswith(f"{device.link} not found")
    device.plug()
    try:
        connected(reader)
        device.write(rdm6300_frame(CARD_A))
        wait_until(lambda: sink.summary() == [("tag_present", CARD_A)])
    finally:
        device.unplug()


def test_the_arduino_reset_wait_is_honoured_and_its_boot_chatter_ignored(
    tmp_path: Path, readers: list[Reader]
) -> None:
    sink = Collector()
    device = PtyDevice(tmp_path / "arduino")
    config = ReaderConfig("pad", "line", str(device.link), seat=2, reset_wait_s=0.5)
    assert ReaderConfig("pad", "line", "/dev/x").effective_reset_wait_s == 2.0
    reader = start(readers, config, sink)
    plugged_at = time.monotonic()
    device.plug()
    try:
        for _ in range(5):  # the sketch boots and prints whatever it likes
            device.write(b"\x00\xffSCAN\tuid=0BAD\r\nbooting...\r\n")
            time.sleep(0.05)
        connected(reader)
        assert time.monotonic() - plugged_at >= 0.5
        device.write(b"SCAN\tuid=04a224b2c15e80\r\nTTRE-TRAIN-RED-07\r\n")
        wait_until(lambda: len(sink.observations) == 2)
        assert sink.summary() == [("tag_present", "04A224B2C15E80"), ("text", "TTRE-TRAIN-RED-07")]
        assert all(o.seat == 2 for o in sink.observations)
    finally:
        device.unplug()


def test_a_port_already_open_elsewhere_is_an_error_not_a_shared_port(
    device: PtyDevice, readers: list[Reader]
) -> None:
    first_sink, second_sink = Collector(), Collector()
    first = start(readers, ReaderConfig("one", "rdm6300", str(device.link)), first_sink)
    connected(first)
    second = start(readers, ReaderConfig("two", "rdm6300", str(device.link)), second_sink)
    wait_until(lambda: second.status().state == "error")
    assert "lock" in second.status().last_error.lower()
    device.write(rdm6300_frame(CARD_A))
    wait_until(lambda: len(first_sink.observations) == 1)
    assert second_sink.observations == []


def test_a_usb_id_outside_the_allow_list_is_never_opened(
    device: PtyDevice, readers: list[Reader]
) -> None:
    def ftdi() -> list[PortInfo]:
        return [PortInfo(device=device.tty, vid_pid="0403:6001")]

    sink = Collector()
    config = ReaderConfig("r", "rdm6300", str(device.link), vid_pid=("1A86:7523",))
    reader = start(readers, config, sink, port_lister=ftdi)
    wait_until(lambda: reader.status().state == "error")
    assert "0403:6001, not in the allow-list 1a86:7523" in reader.status().last_error
    assert reader.status().connections == 0


def test_an_allow_listed_usb_id_finds_the_port_without_a_path(
    device: PtyDevice, readers: list[Reader]
) -> None:
    def ch340() -> list[PortInfo]:
        return [PortInfo(device=device.tty, vid_pid="1a86:7523")]

    sink = Collector()
    config = ReaderConfig("r", "rdm6300", "", vid_pid=("1a86:7523",))
    reader = start(readers, config, sink, port_lister=ch340)
    connected(reader)
    assert reader.status().device == device.tty
    device.write(rdm6300_frame(CARD_B))
    wait_until(lambda: sink.summary() == [("tag_present", CARD_B)])


def test_a_failing_sink_does_not_stop_the_reader(device: PtyDevice, readers: list[Reader]) -> None:
    got: list[str | None] = []

    def sink(observation: object) -> None:
        got.append(getattr(observation, "tag", None))
        if len(got) == 1:
            raise RuntimeError("the engine queue is full")

    reader = start(
        readers, ReaderConfig("r", "rdm6300", str(device.link), removal_timeout_s=0.1), sink
    )  # type: ignore[arg-type]
    connected(reader)
    device.write(rdm6300_frame(CARD_A))
    wait_until(lambda: len(got) == 2)
    device.write(rdm6300_frame(CARD_B))
    wait_until(lambda: len(got) == 4)
    assert got == [CARD_A, CARD_A, CARD_B, CARD_B]


def test_raw_bytes_are_logged_when_asked(
    device: PtyDevice, readers: list[Reader], tmp_path: Path
) -> None:
    raw = tmp_path / "raw.jsonl"
    sink = Collector()
    config = ReaderConfig("r", "rdm6300", str(device.link), raw_log=str(raw))
    reader = start(readers, config, sink)
    connected(reader)
    device.write(rdm6300_frame(CARD_A))
    wait_until(lambda: len(sink.observations) == 1)
    reader.stop()
    records = [json.loads(line) for line in raw.read_text().splitlines()]
    assert records[0]["event"] == "open"
    assert b"".join(bytes.fromhex(r["rx"]) for r in records if "rx" in r) == rdm6300_frame(CARD_A)
    assert records[-1]["event"] == "close"


class ChipOnTheOtherEnd(threading.Thread):
    """A PN532 at the far end of the pty: answers wake-up, configuration and polls."""

    def __init__(self, device: PtyDevice) -> None:
        super().__init__(daemon=True)
        self.device = device
        self.card: str | None = None
        self.commands: list[int] = []
        self.running = True

    def run(self) -> None:
        buffer = b""
        while self.running:
            buffer += self.device.read(0.02)
            while (start := buffer.find(b"\x00\xff")) >= 0 and len(buffer) >= start + 5:
                buffer = buffer[start:]  # the wake-up (55 55 00 …) and preambles go
                end = 2 + 2 + buffer[2] + 1
                if len(buffer) < end:
                    break
                command = buffer[5]
                buffer = buffer[end:]
                self.commands.append(command)
                if command == 0x4A:
                    answer = pn532_target(self.card) if self.card else pn532_response(0x4B, b"\0")
                else:
                    answer = pn532_response(command + 1, b"")
                self.device.write(bytes.fromhex("0000FF00FF00") + answer)


def test_a_pn532_is_woken_configured_and_polled_through_the_port(
    device: PtyDevice, readers: list[Reader]
) -> None:
    chip = ChipOnTheOtherEnd(device)
    chip.start()
    sink = Collector()
    config = ReaderConfig("nfc", "pn532", str(device.link), seat=3, removal_timeout_s=0.4)
    reader = start(readers, config, sink)
    try:
        connected(reader)
        wait_until(lambda: chip.commands[:3] == [0x14, 0x32, 0x4A], what="configured")
        chip.card = "04A224B2C15E80"
        wait_until(lambda: len(sink.observations) == 1, what="card read")
        time.sleep(0.3)
        chip.card = None
        wait_until(lambda: len(sink.observations) == 2, what="card gone")
        assert sink.summary() == [
            ("tag_present", "04A224B2C15E80"),
            ("tag_removed", "04A224B2C15E80"),
        ]
        assert chip.commands.count(0x4A) >= 3
        assert reader.status().state == "connected" and reader.status().frames_bad == 0
    finally:
        chip.running = False
        chip.join()


def test_a_silent_pn532_is_shown_as_an_error_while_the_port_is_fine(
    device: PtyDevice, readers: list[Reader]
) -> None:
    sink = Collector()
    reader = start(readers, ReaderConfig("nfc", "pn532", str(device.link)), sink)
    wait_until(lambda: reader.status().state == "error", timeout_s=5)
    assert "did not answer" in reader.status().last_error
    assert sink.observations == []


def test_stop_ends_the_thread_promptly(device: PtyDevice) -> None:
    reader = SerialReader(ReaderConfig("r", "rdm6300", str(device.link)), Collector(), backoff=FAST)
    reader.start()
    connected(reader)
    started = time.monotonic()
    reader.stop(timeout_s=2)
    assert time.monotonic() - started < 1.5  # the read timeout is 50 ms; generous under load
    assert not any(t.name == "reader-r" for t in threading.enumerate())
    assert os.path.exists(device.tty)


class SocatCable:
    """``socat`` joining two ptys: the reader's side and the side the test types into."""

    def __init__(self, directory: Path) -> None:
        self.dev = directory / "dev"
        self.feed = directory / "feed"
        self.process: subprocess.Popen[bytes] | None = None

    def connect(self) -> None:
        self.process = subprocess.Popen(
            ["socat", f"PTY,raw,echo=0,link={self.dev}", f"PTY,raw,echo=0,link={self.feed}"]
        )
        wait_until(lambda: self.dev.exists() and self.feed.exists(), what="socat ptys")

    def send(self, data: bytes) -> None:
        fd = os.open(self.feed, os.O_WRONLY | os.O_NOCTTY)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)

    def cut(self) -> None:
        assert self.process is not None
        self.process.terminate()
        self.process.wait(5)
        self.process = None


@pytest.mark.slow
def test_through_socat_the_reader_survives_the_cable_being_cut_and_restored(
    tmp_path: Path, readers: list[Reader]
) -> None:
    cable = SocatCable(tmp_path)
    cable.connect()
    try:
        sink = Collector()
        config = ReaderConfig("scanner", "line", str(cable.dev), seat=4, reset_wait_s=0)
        reader = start(readers, config, sink)
        connected(reader)
        cable.send(b"TTRE-TICKET-1\r\nTTRE-TICKET-2\r\n")
        wait_until(lambda: len(sink.observations) == 2)
        cable.cut()
        wait_until(lambda: reader.status().state != "connected", what="loss noticed")
        cable.connect()
        connected(reader, connections=2)
        cable.send(b"TTRE-TICKET-3\r\n")
        wait_until(lambda: len(sink.observations) == 3)
        time.sleep(0.2)
        assert sink.summary() == [
            ("text", "TTRE-TICKET-1"),
            ("text", "TTRE-TICKET-2"),
            ("text", "TTRE-TICKET-3"),
        ]
    finally:
        if cable.process is not None:
            cable.cut()


def test_a_permission_error_names_the_missing_group() -> None:
    message = with_hint("/dev/ttyUSB0: [Errno 13] Permission denied: '/dev/ttyUSB0'", "dialout")
    assert message.endswith("(is the service user in the 'dialout' group?)")
    assert with_hint("/dev/ttyUSB0: [Errno 16] Device or resource busy", "dialout").endswith("busy")
