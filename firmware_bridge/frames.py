"""Pure frame parsers for the serial readers: bytes in, parsed events out.

Every parser resynchronises after garbage, counts what it accepts (``frames_ok``) and rejects
(``frames_bad``), and never raises on input bytes. Feeding the same bytes in any chunking gives
the same events. A partial frame stays buffered until more bytes arrive or :meth:`flush` is
called (the port loop calls it after a silent gap, so a truncated frame is reported, not kept).

Formats:

* RDM6300 (125 kHz EM4100): ``STX`` (0x02), 10 ASCII hex data characters (version byte and
  the 4-byte card number), 2 ASCII hex characters of XOR checksum over the 5 data bytes,
  ``ETX`` (0x03). 14 bytes, 9600 baud 8N1. The module repeats the frame while a tag is in the
  field.
* ID-12LA / ID-20LA (ASCII output format): the same data and checksum, then CR LF before ETX.
  16 bytes, 9600 baud. Sends once per presentation.
* Text lines (USB-serial barcode scanners, our own sketches): ended by CR, LF or CRLF, with STX/
  ETX stripped from both ends. Our sketches speak tab-separated ``SCAN\\tuid=…\\ttext=…`` lines
  (``docs/protocols/line.md``).

The uid is reported as upper-case hex without separators: all 10 data characters for the
125 kHz readers (version byte included, so two cards never collide).
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from typing import Protocol

STX = 0x02
ETX = 0x03
_HEX_BYTES = frozenset(string.hexdigits.encode())


@dataclass(frozen=True, slots=True)
class TagSeen:
    """A reader read a tag uid (upper-case hex). Repeats while a tag stays are normal."""

    uid: str


@dataclass(frozen=True, slots=True)
class TextSeen:
    """A line reader read a text (a barcode); ``uid`` when a ``SCAN`` line carried one too."""

    text: str
    uid: str | None = None


@dataclass(frozen=True, slots=True)
class FrameRejected:
    """Bytes that did not make a valid frame; ``message`` says why, for the record."""

    message: str


ParsedEvent = TagSeen | TextSeen | FrameRejected


class FrameParser(Protocol):
    """What the port loop needs from a parser."""

    frames_ok: int
    frames_bad: int

    def feed(self, data: bytes) -> list[ParsedEvent]: ...

    def flush(self) -> list[ParsedEvent]: ...

    @property
    def has_partial(self) -> bool: ...


def xor_checksum(data_hex: str) -> int:
    """The XOR of the data bytes, as RDM6300 and ID-12LA frames carry it."""
    check = 0
    for byte in bytes.fromhex(data_hex):
        check ^= byte
    return check


def encode_rdm6300(data_hex: str) -> bytes:
    """What an RDM6300 sends for a tag: STX, 10 hex digits, their XOR checksum in hex, ETX.
    The inverse of :class:`Rdm6300Parser`, for recordings, virtual twins and tests."""
    return bytes([STX]) + f"{data_hex}{xor_checksum(data_hex):02X}".encode("ascii") + bytes([ETX])


def encode_id12la(data_hex: str) -> bytes:
    """What an ID-12LA/ID-20LA sends: as the RDM6300, with CR LF before ETX."""
    body = f"{data_hex}{xor_checksum(data_hex):02X}".encode("ascii")
    return bytes([STX]) + body + b"\r\n" + bytes([ETX])


def normalise_uid(text: str) -> str | None:
    """``"04:a1:b2:c3"`` → ``"04A1B2C3"``; None unless it is 1–32 whole bytes of hex."""
    digits = text.replace(":", "").replace("-", "").replace(" ", "")
    if not digits or len(digits) % 2 or len(digits) > 64:
        return None
    if any(c not in string.hexdigits for c in digits):
        return None
    return digits.upper()


def _show(data: bytes | bytearray, limit: int = 24) -> str:
    shown = bytes(data[:limit]).hex(" ")
    return shown + (" …" if len(data) > limit else "")


class _HexFrameParser:
    """STX, 10 hex data, 2 hex XOR checksum, a fixed tail ending in ETX."""

    _tail: bytes = b"\x03"
    _name: str = "frame"

    def __init__(self) -> None:
        self._buf = bytearray()
        self._resyncing = False  # stray bytes right after a rejected frame are part of it
        self.frames_ok = 0
        self.frames_bad = 0

    @property
    def frame_len(self) -> int:
        return 13 + len(self._tail)

    @property
    def has_partial(self) -> bool:
        return bool(self._buf)

    def _reject(self, message: str) -> FrameRejected:
        self.frames_bad += 1
        return FrameRejected(f"{self._name}: {message}")

    def feed(self, data: bytes) -> list[ParsedEvent]:
        self._buf += data
        out: list[ParsedEvent] = []
        while self._buf:
            start = self._buf.find(STX)
            if start < 0:
                # Wait for an STX; garbage is reported when the next frame starts or on flush.
                break
            if start > 0:
                if not self._resyncing:
                    out.append(
                        self._reject(
                            f"{start} stray byte(s) outside a frame: {_show(self._buf[:start])}"
                        )
                    )
                del self._buf[:start]
            self._resyncing = False
            if len(self._buf) < self.frame_len:
                break
            frame = bytes(self._buf[: self.frame_len])
            problem = self._check(frame)
            if problem:
                out.append(self._reject(f"{problem} in {_show(frame)}"))
                del self._buf[:1]
                self._resyncing = True
                continue
            del self._buf[: self.frame_len]
            self.frames_ok += 1
            out.append(TagSeen(frame[1:11].decode("ascii").upper()))
        return out

    def _check(self, frame: bytes) -> str:
        body = frame[1:13]
        if any(b not in _HEX_BYTES for b in body):
            return "non-hex character"
        if frame[13:] != self._tail:
            return f"expected end {_show(self._tail)}"
        data = bytes.fromhex(body[:10].decode("ascii"))
        expected = 0
        for byte in data:
            expected ^= byte
        got = int(body[10:12], 16)
        if got != expected:
            return f"bad checksum {got:02X}, expected {expected:02X}"
        return ""

    def flush(self) -> list[ParsedEvent]:
        """Reject whatever is buffered (a truncated frame or trailing garbage)."""
        if not self._buf:
            return []
        buffered, self._buf = bytes(self._buf), bytearray()
        resyncing, self._resyncing = self._resyncing, False
        if resyncing and STX not in buffered:
            return []
        what = "truncated frame" if buffered[0] == STX else "stray byte(s) outside a frame"
        return [self._reject(f"{what}: {_show(buffered)}")]


class Rdm6300Parser(_HexFrameParser):
    """RDM6300 125 kHz frames: STX, 10 hex, 2 hex XOR checksum, ETX."""

    _tail = b"\x03"
    _name = "rdm6300"


class Id12laParser(_HexFrameParser):
    """ID-12LA / ID-20LA ASCII frames: STX, 10 hex, 2 hex checksum, CR, LF, ETX."""

    _tail = b"\r\n\x03"
    _name = "id12la"


class LineParser:
    """Text lines ended by CR, LF or CRLF; STX/ETX stripped; ``SCAN``/``INFO`` lines parsed.

    A line holding a TAB whose first field is ``SCAN`` is a scan from one of our sketches:
    ``uid=`` (hex) and/or ``text=`` fields; a uid-only scan is a tag sighting, one with text is a
    text. ``INFO`` lines (a sketch saying hello) are accepted and ignored. Any other line is the
    text of a barcode, verbatim. A line longer than ``max_line_bytes`` is rejected.
    """

    def __init__(self, max_line_bytes: int = 1024) -> None:
        self.max_line_bytes = max_line_bytes
        self._buf = bytearray()
        self._discarding = False  # inside an over-long line, until its terminator
        self.frames_ok = 0
        self.frames_bad = 0

    @property
    def has_partial(self) -> bool:
        return bool(self._buf)

    def _reject(self, message: str) -> FrameRejected:
        self.frames_bad += 1
        return FrameRejected(f"line: {message}")

    def feed(self, data: bytes) -> list[ParsedEvent]:
        out: list[ParsedEvent] = []
        start = 0
        for index, byte in enumerate(data):
            if byte in (0x0A, 0x0D):
                self._take(data[start:index])
                out.extend(self._end_line())
                start = index + 1
        self._take(data[start:])
        if len(self._buf) > self.max_line_bytes:
            out.append(self._too_long())
        return out

    def _too_long(self) -> FrameRejected:
        self._buf.clear()
        self._discarding = True
        return self._reject(f"line longer than {self.max_line_bytes} bytes")

    def _take(self, chunk: bytes) -> None:
        if not self._discarding:
            self._buf += chunk

    def _end_line(self) -> list[ParsedEvent]:
        if len(self._buf) > self.max_line_bytes:
            rejected = self._too_long()
            self._discarding = False
            return [rejected]
        line, self._buf = bytes(self._buf), bytearray()
        if self._discarding:
            self._discarding = False
            return []
        return self._parse(line)

    def flush(self) -> list[ParsedEvent]:
        """A line cut off without its terminator is rejected, never guessed at."""
        self._discarding = False
        if not self._buf:
            return []
        line, self._buf = bytes(self._buf), bytearray()
        if not line.strip(b"\x02\x03"):
            return []
        return [self._reject(f"line without an end (CR or LF): {_show(line)}")]

    def _parse(self, raw: bytes) -> list[ParsedEvent]:
        raw = raw.strip(b"\x02\x03")
        if not raw:
            return []
        if b"\x00" in raw:
            return [self._reject(f"NUL byte in line (wrong baud rate?): {_show(raw)}")]
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            return [self._reject(f"not UTF-8 text (wrong baud rate?): {_show(raw)}")]
        verb, tab, rest = text.partition("\t")
        if tab and verb == "INFO":
            self.frames_ok += 1
            return []
        if not (tab and verb == "SCAN"):
            self.frames_ok += 1
            return [TextSeen(text)]
        return self._parse_scan(rest)

    def _parse_scan(self, rest: str) -> list[ParsedEvent]:
        fields: dict[str, str] = {}
        for item in rest.split("\t"):
            key, equals, value = item.partition("=")
            if not equals:
                return [self._reject(f"SCAN field {item!r} is not key=value")]
            if key in fields:
                return [self._reject(f"SCAN field {key!r} given twice")]
            fields[key] = value
        uid: str | None = None
        if "uid" in fields:
            uid = normalise_uid(fields["uid"])
            if uid is None:
                return [self._reject(f"SCAN uid {fields['uid']!r} is not hex bytes")]
        text = fields.get("text")
        if text is not None and text == "":
            return [self._reject("SCAN text is empty")]
        if text is None and uid is None:
            return [self._reject("SCAN line with neither uid= nor text=")]
        self.frames_ok += 1
        if text is None:
            assert uid is not None
            return [TagSeen(uid)]
        return [TextSeen(text, uid)]
