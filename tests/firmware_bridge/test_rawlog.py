"""A reader's raw log replays into the observations the reader made live."""

from __future__ import annotations

import json
from pathlib import Path

from firmware_bridge.rawlog import RawRecord, read_raw_log, replay_raw_log
from firmware_bridge.readers import Backoff, ReaderConfig, open_reader
from tests.firmware_bridge.frame_fixtures import pn532_response, pn532_target, rdm6300_frame
from tests.firmware_bridge.ptys import Collector, PtyDevice, wait_until


def record(m: float, **fields: object) -> str:
    return json.dumps({"t": 1_700_000_000 + m, "m": m, **fields})


def test_a_logged_evening_replays_into_the_same_observations() -> None:
    config = ReaderConfig("red-seat", "rdm6300", "/dev/ttyUSB0", seat=1, removal_timeout_s=0.5)
    frame = rdm6300_frame("0F002A7F8A")
    log = [
        record(10.0, event="open", device="/dev/ttyUSB0"),
        record(10.5, rx=frame[:5].hex()),
        record(10.51, rx=frame[5:].hex()),
        record(10.6, rx=frame.hex()),
        record(12.0, rx=rdm6300_frame("1A00C3B2D4", checksum=0).hex()),
        record(13.0, event="close", device="/dev/ttyUSB0"),
    ]
    observations = list(replay_raw_log(config, log))
    assert [(o.kind.value, o.tag, round(o.monotonic_s, 2), o.seat) for o in observations] == [
        ("tag_present", "0F002A7F8A", 10.51, 1),
        ("tag_removed", "0F002A7F8A", 11.1, 1),
        ("error", None, 12.0, 1),
    ]


def test_a_pn532_log_replays_from_the_chips_answers() -> None:
    config = ReaderConfig("nfc", "pn532", "/dev/ttyUSB1", removal_timeout_s=0.3)
    log = [
        record(1.0, event="open", device="/dev/ttyUSB1"),
        record(1.0, tx="55550000"),
        record(1.01, rx=(bytes.fromhex("0000FF00FF00") + pn532_response(0x15, b"")).hex()),
        record(1.1, rx=pn532_target("04A224B2C15E80").hex()),
        record(1.2, rx=pn532_target("04A224B2C15E80").hex()),
        record(1.3, rx=pn532_response(0x4B, b"\x00").hex()),
    ]
    assert [(o.kind.value, o.tag) for o in replay_raw_log(config, log)] == [
        ("tag_present", "04A224B2C15E80"),
        ("tag_removed", "04A224B2C15E80"),
    ]


def test_lines_that_are_not_records_are_named() -> None:
    assert list(read_raw_log(['{"m": 1, "rx": "02"}', "", "garbage", '{"rx": "02"}'])) == [
        RawRecord(1.0, b"\x02"),
        "line 3: not a raw log record (JSONDecodeError('Expecting value: line 1 column 1 (char 0)'))",
        "line 4: not a raw log record (KeyError('m'))",
    ]
    config = ReaderConfig("r", "rdm6300", "/dev/x")
    (error,) = replay_raw_log(config, ["nonsense"])
    assert error.kind.value == "error" and "line 1: not a raw log record" in str(
        error.payload["message"]
    )


def test_a_live_raw_log_replays_to_what_the_live_reader_saw(tmp_path: Path) -> None:
    device = PtyDevice(tmp_path / "dev").plug()
    raw = tmp_path / "raw.jsonl"
    config = ReaderConfig("r", "rdm6300", str(device.link), removal_timeout_s=0.2, raw_log=str(raw))
    live = Collector()
    reader = open_reader(config, live, backoff=Backoff(0.02, 0.1))
    reader.start()
    try:
        wait_until(lambda: reader.status().state == "connected")
        device.write(rdm6300_frame("0F002A7F8A") + b"\xff\xfe" + rdm6300_frame("1A00C3B2D4"))
        wait_until(lambda: len(live.observations) == 5)
    finally:
        reader.stop()
        device.unplug()
    replayed = list(replay_raw_log(config, raw.read_text().splitlines()))
    assert [(o.kind, o.payload) for o in replayed] == [
        (o.kind, o.payload) for o in live.observations
    ]
