"""A recording may carry a seat reader's raw bytes: the replay runs them through the real
RDM6300 parser and presence model on the recording's own clock, so a card lying on the reader
(its frame repeated, sometimes split across two USB reads) is one tag_present and one
tag_removed, a damaged frame is an error, and the same file gives the same observations (and so
the same resume points after a crash) every time."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from companion.core.errors import SnapshotError
from firmware_bridge.virtual import ReplayReader, read_recording
from tests.firmware_bridge.frame_fixtures import rdm6300_frame

CARD_A = "0F002A7F8A"
CARD_B = "1A00C3B2D4"
HEADER = {
    "format": "trackside-recording",
    "version": 2,
    "readers": [
        {"source": "red-seat", "protocol": "rdm6300", "seat": 1},
        {"source": "blue-seat", "protocol": "rdm6300", "seat": 2},
    ],
}


def write(tmp_path: Path, lines: list[dict[str, Any]], header: dict[str, Any] = HEADER) -> Path:
    path = tmp_path / "night.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in [header, *lines]) + "\n")
    return path


def raw(at_s: float, source: str, data: bytes) -> dict[str, Any]:
    return {"at_s": at_s, "raw": {"source": source, "hex": data.hex()}}


def summary(path: Path) -> list[tuple[float, str, str, str | None, int | None]]:
    _, inputs = read_recording(path)
    return [
        (
            round(i.at_s, 2),
            i.observation.source,
            i.observation.kind.value,
            i.observation.tag,
            i.observation.seat,
        )
        for i in inputs
    ]


def test_a_card_lying_on_a_seat_reader_is_one_scan(tmp_path: Path) -> None:
    frame = rdm6300_frame(CARD_A)
    path = write(
        tmp_path,
        [
            raw(10.0, "red-seat", frame),
            raw(10.1, "red-seat", frame[:6]),  # one frame in two USB reads
            raw(10.104, "red-seat", frame[6:]),
            raw(10.2, "red-seat", frame),
            {
                "at_s": 30.0,
                "observation": {
                    "source": "table-page",
                    "kind": "command",
                    "payload": {"command": "end_game"},
                },
            },
        ],
    )
    assert summary(path) == [
        (10.0, "red-seat", "tag_present", CARD_A, 1),
        (10.7, "red-seat", "tag_removed", CARD_A, 1),  # 0.5 s after the last frame
        (30.0, "table-page", "command", None, None),
    ]


def test_two_readers_interleave_and_a_damaged_frame_is_an_error(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        [
            raw(1.0, "red-seat", rdm6300_frame(CARD_A)),
            raw(1.05, "blue-seat", rdm6300_frame(CARD_B)),
            raw(1.1, "red-seat", rdm6300_frame(CARD_A)),
            raw(5.0, "blue-seat", rdm6300_frame(CARD_A, checksum=0x00)),
        ],
    )
    rows = summary(path)
    assert [r[1:4] for r in rows] == [
        ("red-seat", "tag_present", CARD_A),
        ("blue-seat", "tag_present", CARD_B),
        ("blue-seat", "tag_removed", CARD_B),
        ("red-seat", "tag_removed", CARD_A),
        ("blue-seat", "error", None),
    ]
    assert [r[0] for r in rows] == sorted(r[0] for r in rows)
    _, inputs = read_recording(path)
    assert "bad checksum" in str(inputs[-1].observation.payload["message"])


def test_the_same_file_gives_the_same_observations_and_a_restart_resumes_exactly(
    tmp_path: Path,
) -> None:
    lines = []
    for n in range(12):
        card = CARD_A if n % 2 else CARD_B
        for k in range(3):
            lines.append(
                raw(n * 3.0 + k * 0.1, "red-seat" if n % 3 else "blue-seat", rdm6300_frame(card))
            )
    path = write(tmp_path, lines)
    assert summary(path) == summary(path)

    def play(resume_after: int) -> list[str]:
        got: list[str] = []
        reader = ReplayReader(
            "replay",
            path,
            lambda o: got.append(str(o.ref)),
            speed=10000,
            resume_after=lambda _prefix: resume_after,
        )
        reader.start()
        reader.join(30)
        return got

    whole = play(-1)
    assert len(whole) == 24  # 12 cards: present and removed each
    assert play(9) == whole[10:]  # killed after the 10th observation: the rest, once


@pytest.mark.parametrize(
    ("header", "line", "message"),
    [
        ({**HEADER, "version": 1}, raw(1, "red-seat", b"\x02"), "raw readers need a version 2"),
        (HEADER, raw(1, "green-seat", b"\x02"), "'green-seat' is not a raw reader"),
        (HEADER, {"at_s": 1, "raw": {"source": "red-seat", "hex": "zz"}}, "not hex bytes"),
        (HEADER, {"at_s": 1, "raw": "02AB03"}, 'expected {"source": …, "hex": …}'),
        (
            {**HEADER, "readers": [{"source": "nfc", "protocol": "pn532"}]},
            raw(1, "nfc", b""),
            "'pn532' is not one of rdm6300, id12la, line",
        ),
        (
            {**HEADER, "readers": [{"source": "r", "protocol": "rdm6300", "seat": 0}]},
            raw(1, "r", b""),
            "expected a seat number ≥ 1, got 0",
        ),
    ],
)
def test_a_bad_raw_line_or_reader_names_where(
    tmp_path: Path, header: dict[str, Any], line: dict[str, Any], message: str
) -> None:
    path = write(tmp_path, [line], header)
    with pytest.raises(SnapshotError) as error:
        read_recording(path)
    assert message in str(error.value)
    assert "night.jsonl:" in str(error.value)
