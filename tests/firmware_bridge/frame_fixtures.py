"""Frames for tests: the datasheet fixtures and builders for valid and corrupted frames."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from firmware_bridge.frames import encode_id12la, encode_rdm6300

FIXTURES = Path(__file__).parent / "fixtures"


@cache
def datasheet_frames() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / "datasheet_frames.json").read_text())
    return data


def rdm6300_frame(data_hex: str, checksum: int | None = None) -> bytes:
    """The reader's frame; ``checksum`` replaces the right one (for corrupted frames)."""
    if checksum is None:
        return encode_rdm6300(data_hex)
    return b"\x02" + f"{data_hex}{checksum:02X}".encode() + b"\x03"


def id12la_frame(data_hex: str, checksum: int | None = None) -> bytes:
    if checksum is None:
        return encode_id12la(data_hex)
    return b"\x02" + f"{data_hex}{checksum:02X}".encode() + b"\r\n\x03"


def pn532_response(command: int, data: bytes) -> bytes:
    body = bytes([0xD5, command]) + data
    n = len(body)
    return b"\x00\x00\xff" + bytes([n, (-n) & 0xFF]) + body + bytes([(-sum(body)) & 0xFF, 0])


def pn532_target(uid_hex: str) -> bytes:
    uid = bytes.fromhex(uid_hex)
    return pn532_response(0x4B, bytes([1, 1, 0x00, 0x04, 0x08, len(uid)]) + uid)
