"""Frame parsers: a card held to a seat's reader becomes exactly one uid; noise never does."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge.frames import (
    FrameRejected,
    Id12laParser,
    LineParser,
    ParsedEvent,
    Rdm6300Parser,
    TagSeen,
    TextSeen,
    normalise_uid,
)
from tests.firmware_bridge.frame_fixtures import (
    datasheet_frames,
    id12la_frame,
    rdm6300_frame,
)


def tags(events: list[ParsedEvent]) -> list[str]:
    return [e.uid for e in events if isinstance(e, TagSeen)]


def rejected(events: list[ParsedEvent]) -> list[str]:
    return [e.message for e in events if isinstance(e, FrameRejected)]


def test_rdm6300_reads_the_datasheet_stream_of_a_card_held_then_another() -> None:
    fx = datasheet_frames()["rdm6300"]
    parser = Rdm6300Parser()
    events = parser.feed(bytes.fromhex(fx["stream"]))
    assert tags(events) == fx["uids"]
    assert (parser.frames_ok, parser.frames_bad) == (3, 0)


def test_rdm6300_rejects_a_bad_checksum_and_names_it() -> None:
    parser = Rdm6300Parser()
    events = parser.feed(bytes.fromhex(datasheet_frames()["rdm6300"]["bad_checksum"]))
    assert tags(events) == []
    assert rejected(events) == [
        "rdm6300: bad checksum 00, expected D0 in 02 30 46 30 30 32 41 37 46 38 41 30 30 03"
    ]
    assert parser.frames_bad == 1


def test_rdm6300_skips_power_up_noise_and_counts_it_once() -> None:
    fx = datasheet_frames()["rdm6300"]
    parser = Rdm6300Parser()
    events = parser.feed(bytes.fromhex(fx["power_up_noise"] + fx["stream"]))
    assert tags(events) == fx["uids"]
    assert rejected(events) == ["rdm6300: 5 stray byte(s) outside a frame: ff f8 80 00 00"]


def test_rdm6300_resynchronises_after_a_truncated_frame() -> None:
    good = rdm6300_frame("0F002A7F8A")
    parser = Rdm6300Parser()
    events = parser.feed(good[:6] + good + good[:9] + good)
    assert tags(events) == ["0F002A7F8A", "0F002A7F8A"]
    assert parser.frames_bad == 2 and parser.frames_ok == 2


def test_rdm6300_lower_case_hex_is_reported_upper_case() -> None:
    frame = b"\x02" + b"0f002a7f8a" + b"d0" + b"\x03"
    assert tags(Rdm6300Parser().feed(frame)) == ["0F002A7F8A"]


def test_rdm6300_a_frame_cut_off_is_rejected_on_flush_not_kept() -> None:
    parser = Rdm6300Parser()
    assert parser.feed(rdm6300_frame("0F002A7F8A")[:8]) == []
    assert parser.has_partial
    assert rejected(parser.flush()) == ["rdm6300: truncated frame: 02 30 46 30 30 32 41 37"]
    assert not parser.has_partial and parser.flush() == []


def test_id12la_reads_the_datasheet_stream() -> None:
    fx = datasheet_frames()["id12la"]
    parser = Id12laParser()
    assert tags(parser.feed(bytes.fromhex(fx["stream"]))) == fx["uids"]


def test_id12la_rejects_a_bad_checksum_and_a_missing_cr_lf() -> None:
    fx = datasheet_frames()["id12la"]
    parser = Id12laParser()
    events = parser.feed(bytes.fromhex(fx["bad_checksum"]))
    events += parser.feed(rdm6300_frame("7C0055F8E2") + b"\x00\x00")  # an RDM6300 frame
    assert tags(events) == []
    assert parser.frames_bad == 2


def test_id12la_frame_is_not_an_rdm6300_frame() -> None:
    parser = Rdm6300Parser()
    assert tags(parser.feed(id12la_frame("7C0055F8E2"))) == []
    assert parser.frames_bad == 1


def test_line_reader_reads_barcodes_with_every_line_ending() -> None:
    fx = datasheet_frames()["line"]
    parser = LineParser()
    events: list[ParsedEvent] = []
    for key in ("barcode_crlf", "barcode_stx_etx_cr", "gs1_with_group_separator_lf"):
        events += parser.feed(bytes.fromhex(fx[key]))
    assert events == [
        TextSeen("TTRE-TRAIN-RED-07"),
        TextSeen("RR-ENGINEER-3"),
        TextSeen("]C1010123456789012815\x1d1012345"),
    ]


def test_line_reader_understands_our_sketch() -> None:
    fx = datasheet_frames()["line"]
    parser = LineParser()
    events: list[ParsedEvent] = []
    for key in ("sketch_hello", "sketch_scan_uid", "sketch_scan_text"):
        events += parser.feed(bytes.fromhex(fx[key]))
    assert events == [
        TagSeen("04A224B2C15E80"),
        TextSeen("TTRE-TICKET-PARIS-WIEN", uid="DEADBEEF"),
    ]
    assert (parser.frames_ok, parser.frames_bad) == (3, 0)


def test_line_reader_rejects_malformed_scan_lines_with_reasons() -> None:
    parser = LineParser()
    events = parser.feed(
        b"SCAN\tuid=XYZ\n"
        b"SCAN\tuid=04\tuid=05\n"
        b"SCAN\tfoo\n"
        b"SCAN\tcolour=red\n"
        b"SCAN\ttext=\n"
        b"\xff\xfe\xfa\n"
        b"ab\x00cd\n"
    )
    assert rejected(events) == [
        "line: SCAN uid 'XYZ' is not hex bytes",
        "line: SCAN field 'uid' given twice",
        "line: SCAN field 'foo' is not key=value",
        "line: SCAN line with neither uid= nor text=",
        "line: SCAN text is empty",
        "line: not UTF-8 text (wrong baud rate?): ff fe fa",
        "line: NUL byte in line (wrong baud rate?): 61 62 00 63 64",
    ]


def test_line_reader_rejects_an_endless_line_and_recovers_at_its_end() -> None:
    parser = LineParser(max_line_bytes=16)
    events = parser.feed(b"A" * 10)
    events += parser.feed(b"A" * 10)
    events += parser.feed(b"AAAA\nOK\n")
    assert events == [FrameRejected("line: line longer than 16 bytes"), TextSeen("OK")]


def test_line_reader_a_line_cut_off_is_rejected_on_flush() -> None:
    parser = LineParser()
    assert parser.feed(b"TTRE-TRA") == []
    assert rejected(parser.flush()) == [
        "line: line without an end (CR or LF): 54 54 52 45 2d 54 52 41"
    ]


def test_uids_are_normalised_to_upper_case_hex_without_separators() -> None:
    assert normalise_uid("04:a2:24") == "04A224"
    assert normalise_uid("04 A2") == "04A2"
    assert normalise_uid("4A2") is None
    assert normalise_uid("") is None
    assert normalise_uid("0g") is None


# --- fuzzing ---------------------------------------------------------------------------------

VALID_DATA = st.text(alphabet="0123456789ABCDEF", min_size=10, max_size=10)


def split_into_chunks(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    edges = [0, *points, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(edges)]


def every_valid_window(stream: bytes, frame_len: int, tail: bytes) -> set[str]:
    """All uids that some valid frame in the stream carries."""
    found = set()
    for i in range(len(stream) - frame_len + 1):
        window = stream[i : i + frame_len]
        if window[0] != 2 or window[13:] != tail:
            continue
        try:
            body = window[1:13].decode("ascii")
            data = bytes.fromhex(body[:10])
            check = int(body[10:12], 16)
        except ValueError:
            continue
        if not all(c in "0123456789abcdefABCDEF" for c in body):
            continue
        x = 0
        for b in data:
            x ^= b
        if x == check:
            found.add(body[:10].upper())
    return found


noise = st.binary(max_size=40)
frames_and_noise = st.lists(
    st.one_of(
        VALID_DATA.map(rdm6300_frame),
        VALID_DATA.map(lambda d: rdm6300_frame(d)[: len(d) // 2]),
        st.tuples(VALID_DATA, st.integers(0, 255)).map(lambda t: rdm6300_frame(*t)),
        noise,
    ),
    max_size=12,
).map(b"".join)


@given(frames_and_noise, st.lists(st.integers(0, 10_000), max_size=8))
def test_rdm6300_fuzz_never_raises_and_every_uid_is_from_a_valid_frame(
    stream: bytes, cuts: list[int]
) -> None:
    parser = Rdm6300Parser()
    events: list[ParsedEvent] = []
    for chunk in split_into_chunks(stream, cuts):
        events += parser.feed(chunk)
    events += parser.flush()
    assert set(tags(events)) <= every_valid_window(stream, 14, b"\x03")
    whole = Rdm6300Parser()
    assert tags(whole.feed(stream) + whole.flush()) == tags(events)  # chunking never matters
    assert parser.frames_ok == len(tags(events))


@given(VALID_DATA, st.integers(0, 255), noise, noise)
def test_rdm6300_no_uid_from_a_bad_checksum(
    data: str, check: int, before: bytes, after: bytes
) -> None:
    frame = rdm6300_frame(data, check)
    parser = Rdm6300Parser()
    stream = before.replace(b"\x02", b"") + frame + after.replace(b"\x02", b"")
    got = tags(parser.feed(stream) + parser.flush())
    valid = check == int(rdm6300_frame(data)[11:13], 16)
    assert got == ([data] if valid else [])


@given(st.binary(max_size=200), st.lists(st.integers(0, 10_000), max_size=8))
def test_id12la_fuzz_never_raises(stream: bytes, cuts: list[int]) -> None:
    parser = Id12laParser()
    events: list[ParsedEvent] = []
    for chunk in split_into_chunks(stream, cuts):
        events += parser.feed(chunk)
    events += parser.flush()
    assert set(tags(events)) <= every_valid_window(stream, 16, b"\r\n\x03")


@given(
    st.lists(
        st.one_of(
            st.binary(max_size=30),
            st.sampled_from(
                [b"SCAN\tuid=04A1\r\n", b"SCAN\ttext=x\n", b"\r", b"\n", b"\x02a\x03\r\n"]
            ),
        ),
        max_size=10,
    ).map(b"".join),
    st.lists(st.integers(0, 10_000), max_size=8),
)
def test_line_reader_fuzz_never_raises_and_chunking_never_matters(
    stream: bytes, cuts: list[int]
) -> None:
    chunked = LineParser(max_line_bytes=40)
    events: list[ParsedEvent] = []
    for chunk in split_into_chunks(stream, cuts):
        events += chunked.feed(chunk)
    events += chunked.flush()
    whole = LineParser(max_line_bytes=40)
    assert whole.feed(stream) + whole.flush() == events
    for event in events:
        if isinstance(event, TextSeen):
            assert "\r" not in event.text and "\n" not in event.text
