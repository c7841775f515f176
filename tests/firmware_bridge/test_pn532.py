"""PN532 over HSU: the codec, and the driver talking to a simulated chip."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge.frames import FrameRejected, ParsedEvent, TagSeen
from firmware_bridge.pn532 import (
    ACK,
    NACK,
    WAKE_UP,
    Ack,
    ErrorFrame,
    Nack,
    Pn532Driver,
    Pn532FrameParser,
    Response,
    build_frame,
    parse_target_list,
)
from tests.firmware_bridge.frame_fixtures import datasheet_frames, pn532_response, pn532_target


def test_build_frame_matches_the_manual_sam_configuration_example() -> None:
    # UM0701-02 §7.2.10 host frame: D4 14 01 (normal mode) with its checksums.
    assert build_frame(0x14, b"\x01").hex(" ") == "00 00 ff 03 fd d4 14 01 17 00"


def test_parser_reads_ack_nack_responses_and_the_error_frame() -> None:
    fx = datasheet_frames()["pn532"]
    parser = Pn532FrameParser()
    stream = (
        bytes.fromhex(fx["ack"])
        + bytes.fromhex(fx["sam_configuration_response"])
        + NACK
        + bytes.fromhex("0000FF01FF7F8100")
        + bytes.fromhex(fx["mifare_classic_1k"])
    )
    frames = parser.feed(stream)
    assert frames == [
        Ack(),
        Response(0x15, b""),
        Nack(),
        ErrorFrame(),
        Response(0x4B, bytes.fromhex("010100040804DEADBEEF")),
    ]
    assert (parser.frames_ok, parser.frames_bad) == (5, 0)


def test_target_lists_from_the_fixtures_give_their_uids() -> None:
    fx = datasheet_frames()["pn532"]
    parser = Pn532FrameParser()
    for name, uid in fx["uids"].items():
        (frame,) = parser.feed(bytes.fromhex(fx[name]))
        assert isinstance(frame, Response)
        assert parse_target_list(frame.data) == [uid]
    (none,) = parser.feed(bytes.fromhex(fx["no_target"]))
    assert isinstance(none, Response) and parse_target_list(none.data) == []


def test_malformed_target_lists_are_described() -> None:
    assert parse_target_list(b"") == "empty InListPassiveTarget answer"
    assert parse_target_list(bytes([1, 1, 0, 4])) == "short target record in 01 01 00 04"
    assert parse_target_list(bytes([1, 1, 0, 4, 8, 4, 0xDE])) == (
        "bad NFCID length 4 in 01 01 00 04 08 04 de"
    )


def test_parser_rejects_bad_checksums_and_resynchronises() -> None:
    good = pn532_target("DEADBEEF")
    bad_dcs = bytearray(good)
    bad_dcs[-2] ^= 0xFF
    bad_lcs = bytearray(good)
    bad_lcs[4] ^= 0x01
    parser = Pn532FrameParser()
    frames = parser.feed(b"\x13\x37" + bytes(bad_dcs) + bytes(bad_lcs) + good)
    assert [f for f in frames if not isinstance(f, FrameRejected)] == [
        Response(0x4B, bytes.fromhex("010100040804DEADBEEF"))
    ]
    messages = [f.message for f in frames if isinstance(f, FrameRejected)]
    assert messages[0] == "pn532: stray byte(s) outside a frame: 13 37"
    assert messages[1].startswith("pn532: bad data checksum")
    assert messages[2].startswith("pn532: bad length checksum")
    assert parser.frames_bad == 3


def test_parser_reads_an_extended_frame() -> None:
    body = bytes([0xD5, 0x41]) + bytes(300)
    n = len(body)
    frame = (
        b"\x00\x00\xff\xff\xff"
        + bytes([n >> 8, n & 0xFF, (-(n >> 8) - (n & 0xFF)) & 0xFF])
        + body
        + bytes([(-sum(body)) & 0xFF, 0])
    )
    assert Pn532FrameParser().feed(frame) == [Response(0x41, bytes(300))]


@given(st.binary(max_size=300), st.lists(st.integers(0, 10_000), max_size=8))
def test_parser_fuzz_never_raises_and_chunking_never_matters(
    stream: bytes, cuts: list[int]
) -> None:
    points = sorted({c % (len(stream) + 1) for c in cuts})
    edges = [0, *points, len(stream)]
    chunked = Pn532FrameParser()
    out: list[object] = []
    for a, b in itertools.pairwise(edges):
        out += chunked.feed(stream[a:b])
    out += chunked.flush()
    whole = Pn532FrameParser()
    assert whole.feed(stream) + whole.flush() == out


@given(st.binary(min_size=4, max_size=12), st.integers(0, 255))
def test_no_response_from_a_frame_with_a_bad_data_checksum(uid: bytes, flip: int) -> None:
    frame = bytearray(pn532_target(uid.hex()))
    frame[-2] = (frame[-2] + 1 + flip % 255) & 0xFF  # any other DCS
    parser = Pn532FrameParser()
    frames = parser.feed(bytes(frame)) + parser.flush()
    assert not [f for f in frames if isinstance(f, Response)]


class SimulatedPn532:
    """A chip that answers the driver's commands like the real one (after an ACK)."""

    def __init__(self) -> None:
        self.card: str | None = None
        self.awake = False
        self.commands: list[int] = []
        self.parser = Pn532FrameParser()

    def receive(self, data: bytes) -> bytes:
        if data.startswith(WAKE_UP):
            self.awake = True
            data = data[len(WAKE_UP) :]
        if not data:
            return b""
        # Host frames carry TFI D4; decode them by hand (the parser is for chip frames).
        assert data[:3] == b"\x00\x00\xff"
        command = data[6]
        self.commands.append(command)
        if not self.awake:
            return b""
        if command == 0x4A:
            answer = pn532_target(self.card) if self.card else pn532_response(0x4B, b"\x00")
        else:
            answer = pn532_response(command + 1, b"")
        return ACK + answer


def run(
    driver: Pn532Driver, chip: SimulatedPn532, now: float, to_write: bytes
) -> list[ParsedEvent]:
    events, more = driver.feed(chip.receive(to_write), now)
    while more:
        new, more = driver.feed(chip.receive(more), now)
        events += new
    return events


def test_driver_wakes_configures_and_polls_a_card_on_and_off_the_pad() -> None:
    chip = SimulatedPn532()
    driver = Pn532Driver(poll_interval_s=0.1)
    events = run(driver, chip, 0.0, driver.begin(0.0))
    assert chip.commands == [0x14, 0x32, 0x4A] and events == []
    chip.card = "04A224B2C15E80"
    seen: list[ParsedEvent] = []
    now = 0.0
    for _ in range(5):
        now += 0.1
        tick_events, to_write = driver.tick(now)
        seen += tick_events + run(driver, chip, now, to_write)
    assert seen == [TagSeen("04A224B2C15E80")] * 5
    chip.card = None
    now += 0.1
    _, to_write = driver.tick(now)
    assert run(driver, chip, now, to_write) == []
    assert driver.problem == "" and driver.frames_bad == 0


def test_driver_restarts_from_the_wake_up_when_the_chip_is_silent() -> None:
    driver = Pn532Driver(response_timeout_s=1.0)
    driver.begin(0.0)
    assert driver.tick(0.5) == ([], b"")
    events, to_write = driver.tick(1.0)
    assert events == []
    assert to_write.startswith(WAKE_UP)
    assert "did not answer in step sam" in driver.problem
    assert driver.restarts == 1


def test_driver_restarts_after_a_nack_and_ignores_late_answers() -> None:
    chip = SimulatedPn532()
    driver = Pn532Driver()
    run(driver, chip, 0.0, driver.begin(0.0))
    _, to_write = driver.tick(0.2)
    assert to_write  # a poll is on its way; the chip answers NACK instead
    events, again = driver.feed(NACK, 0.2)
    assert events == [] and again.startswith(WAKE_UP)
    assert driver.problem == "PN532 answered Nack in step poll"
    # A late poll answer arriving while waiting for SAMConfiguration is ignored.
    assert driver.feed(pn532_target("DEADBEEF"), 0.21) == ([], b"")
