"""PN532 over HSU (its UART): the frame codec and a small polling driver, both pure.

Frames (NXP PN532 User Manual UM0701-02, §6.2): preamble ``00``, start code ``00 FF``, ``LEN``,
``LCS`` (``LEN + LCS ≡ 0 mod 256``), ``TFI`` (``D4`` host → PN532, ``D5`` PN532 → host), data,
``DCS`` (``TFI + data + DCS ≡ 0``), postamble ``00``. ``LEN`` counts TFI and data. ACK is
``00 00 FF 00 FF 00``, NACK ``00 00 FF FF 00 00``; an extended frame has ``FF FF`` then
``LENM LENL LCS``; an application error frame has TFI ``7F``.

The driver (:class:`Pn532Driver`) is sans-IO: it is handed received bytes and the time, and
returns parsed events and the bytes to write. It wakes the chip from its HSU sleep (``55 55``
and a long preamble, §7.2.11), configures the SAM for normal mode (``SAMConfiguration``),
bounds the passive-activation retries (``RFConfiguration`` item 5) so a poll with no card
answers instead of waiting forever, and then polls ``InListPassiveTarget`` (one ISO 14443-A
target at 106 kbps) at a steady interval. Each answer with a target is a :class:`TagSeen`
carrying the NFCID1 (UID); an answer without one says nothing, so removal is by timeout in the
presence model. A missing answer restarts the sequence from the wake-up.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from firmware_bridge.frames import FrameRejected, ParsedEvent, TagSeen, _show

HOST_TO_PN532 = 0xD4
PN532_TO_HOST = 0xD5
ERROR_TFI = 0x7F

_MAX_STRAY = 1024

ACK = bytes.fromhex("0000FF00FF00")
NACK = bytes.fromhex("0000FFFF0000")
WAKE_UP = bytes.fromhex("5555") + bytes(14)

SAM_CONFIGURATION = 0x14
RF_CONFIGURATION = 0x32
IN_LIST_PASSIVE_TARGET = 0x4A


@dataclass(frozen=True, slots=True)
class Ack:
    """The PN532 accepted a command frame."""


@dataclass(frozen=True, slots=True)
class Nack:
    """Asks for the last frame again."""


@dataclass(frozen=True, slots=True)
class Response:
    """An information frame from the PN532: ``command`` is the response code (request + 1)."""

    command: int
    data: bytes


@dataclass(frozen=True, slots=True)
class ErrorFrame:
    """The PN532's application-level error frame (a syntax error in what we sent)."""


Pn532Frame = Ack | Nack | Response | ErrorFrame


def build_frame(command: int, params: bytes = b"") -> bytes:
    """A normal information frame from host to PN532 (up to 254 bytes of data)."""
    body = bytes([HOST_TO_PN532, command]) + params
    if len(body) > 255:
        raise ValueError(f"PN532 frame body of {len(body)} bytes needs an extended frame")
    length = len(body)
    return (
        b"\x00\x00\xff"
        + bytes([length, (-length) & 0xFF])
        + body
        + bytes([(-sum(body)) & 0xFF, 0x00])
    )


class Pn532FrameParser:
    """Frames from the PN532, resynchronising on the ``00 FF`` start code."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._resyncing = False
        self.frames_ok = 0
        self.frames_bad = 0

    @property
    def has_partial(self) -> bool:
        return any(self._buf)  # zeros alone are pre/postamble, not a partial frame

    def _reject(self, message: str) -> FrameRejected:
        self.frames_bad += 1
        return FrameRejected(f"pn532: {message}")

    def feed(self, data: bytes) -> list[Pn532Frame | FrameRejected]:
        self._buf += data
        out: list[Pn532Frame | FrameRejected] = []
        while True:
            start = self._buf.find(b"\x00\xff")
            if start < 0:
                # Wait for a start code; stray bytes are reported when it comes (or on flush),
                # unless a line of pure noise grows past any frame's size.
                if len(self._buf) > _MAX_STRAY:
                    self._drop_garbage(len(self._buf) - 1, out)
                break
            self._drop_garbage(start, out)
            self._resyncing = False
            parsed = self._parse_at_start()
            if parsed is None:
                break
            frame, used = parsed
            if isinstance(frame, FrameRejected):
                out.append(self._reject(frame.message))
                del self._buf[:1]
                self._resyncing = True
                continue
            self.frames_ok += 1
            out.append(frame)
            del self._buf[:used]
            if self._buf[:1] == b"\x00":
                del self._buf[:1]  # the postamble
        return out

    def _drop_garbage(self, count: int, out: list[Pn532Frame | FrameRejected]) -> None:
        if count <= 0:
            return
        stray = bytes(self._buf[:count])
        del self._buf[:count]
        if any(stray) and not self._resyncing:
            out.append(
                self._reject(f"stray byte(s) outside a frame: {_show(stray.rstrip(bytes(1)))}")
            )

    def _parse_at_start(self) -> tuple[Pn532Frame | FrameRejected, int] | None:
        """The frame starting at ``00 FF``, how many bytes it used; None when incomplete."""
        buf = self._buf
        if len(buf) < 4:
            return None
        length, lcs = buf[2], buf[3]
        if (length, lcs) == (0x00, 0xFF):
            return Ack(), 4
        if (length, lcs) == (0xFF, 0x00):
            return Nack(), 4
        header = 4
        if (length, lcs) == (0xFF, 0xFF):
            if len(buf) < 7:
                return None
            length = buf[4] << 8 | buf[5]
            if (buf[4] + buf[5] + buf[6]) & 0xFF:
                return FrameRejected(f"bad extended length checksum in {_show(buf[:7])}"), 0
            header = 7
        elif (length + lcs) & 0xFF:
            return FrameRejected(f"bad length checksum in {_show(buf[:4])}"), 0
        if length == 0:
            return FrameRejected("empty information frame"), 0
        end = header + length + 1
        if len(buf) < end:
            return None
        body = bytes(buf[header : header + length])
        if (sum(body) + buf[end - 1]) & 0xFF:
            return FrameRejected(f"bad data checksum in {_show(buf[:end])}"), 0
        tfi = body[0]
        if tfi == ERROR_TFI:
            return ErrorFrame(), end
        if tfi != PN532_TO_HOST or length < 2:
            return FrameRejected(f"unexpected frame identifier {tfi:02X}"), 0
        return Response(body[1], body[2:]), end

    def flush(self) -> list[FrameRejected]:
        """Reject whatever is buffered: a truncated frame, or stray bytes."""
        buffered, self._buf = bytes(self._buf), bytearray()
        resyncing, self._resyncing = self._resyncing, False
        if not any(buffered):
            return []
        if b"\x00\xff" in buffered:
            return [self._reject(f"truncated frame: {_show(buffered)}")]
        if resyncing:
            return []
        return [self._reject(f"stray byte(s) outside a frame: {_show(buffered)}")]


class _Step(Enum):
    SAM = "sam"
    RF = "rf"
    POLL = "poll"
    IDLE = "idle"


def parse_target_list(data: bytes) -> list[str] | str:
    """UIDs in an ``InListPassiveTarget`` answer (ISO 14443-A), or what is wrong with it.

    Layout per target (UM0701-02 §7.3.5): Tg, SENS_RES (2), SEL_RES, NFCIDLength, NFCID1…,
    then optionally ATSLength and ATS.
    """
    if not data:
        return "empty InListPassiveTarget answer"
    count, index, uids = data[0], 1, []
    for _ in range(count):
        if index + 5 > len(data):
            return f"short target record in {_show(data)}"
        sel_res, uid_len = data[index + 3], data[index + 4]
        uid = data[index + 5 : index + 5 + uid_len]
        if uid_len == 0 or len(uid) != uid_len:
            return f"bad NFCID length {uid_len} in {_show(data)}"
        uids.append(uid.hex().upper())
        index += 5 + uid_len
        if sel_res & 0x20 and index < len(data):
            index += max(1, data[index])  # ATS (ISO 14443-4 cards): first byte is its length
    return uids


class Pn532Driver:
    """Wake, configure and poll a PN532 over HSU; sans-IO (see the module docstring)."""

    def __init__(
        self,
        *,
        poll_interval_s: float = 0.1,
        response_timeout_s: float = 1.0,
        passive_activation_retries: int = 2,
    ) -> None:
        self.poll_interval_s = poll_interval_s
        self.response_timeout_s = response_timeout_s
        self.retries = passive_activation_retries
        self.parser = Pn532FrameParser()
        self._step = _Step.SAM
        self._deadline = 0.0
        self.restarts = 0
        self.problem = ""
        """What is wrong right now (the chip is silent or refuses), or empty."""

    @property
    def frames_ok(self) -> int:
        return self.parser.frames_ok

    @property
    def frames_bad(self) -> int:
        return self.parser.frames_bad

    def begin(self, now: float) -> bytes:
        """Bytes to write right after opening the port: wake up and configure the SAM."""
        self._step = _Step.SAM
        self._deadline = now + self.response_timeout_s
        # Normal mode, virtual-card timeout 20 × 50 ms, use the IRQ pin (UM0701-02 §7.2.10).
        return WAKE_UP + build_frame(SAM_CONFIGURATION, b"\x01\x14\x01")

    def _send(self, step: _Step, frame: bytes, now: float) -> bytes:
        self._step = step
        self._deadline = now + self.response_timeout_s
        return frame

    def _poll(self, now: float) -> bytes:
        # One target, 106 kbps type A (UM0701-02 §7.3.5).
        return self._send(_Step.POLL, build_frame(IN_LIST_PASSIVE_TARGET, b"\x01\x00"), now)

    def feed(self, data: bytes, now: float) -> tuple[list[ParsedEvent], bytes]:
        events: list[ParsedEvent] = []
        to_write = b""
        for frame in self.parser.feed(data):
            if isinstance(frame, FrameRejected):
                events.append(frame)
                continue
            if isinstance(frame, Ack):
                continue
            if isinstance(frame, Nack | ErrorFrame):
                self.problem = f"PN532 answered {type(frame).__name__} in step {self._step.value}"
                to_write += self._restart(now)
                continue
            expected = {
                _Step.SAM: SAM_CONFIGURATION + 1,
                _Step.RF: RF_CONFIGURATION + 1,
                _Step.POLL: IN_LIST_PASSIVE_TARGET + 1,
            }.get(self._step)
            if frame.command != expected:
                continue  # a late answer to an abandoned command
            if self._step is _Step.SAM:
                # MxRtyATR, MxRtyPSL, MxRtyPassiveActivation (UM0701-02 §7.3.1, item 5).
                params = bytes([0x05, 0xFF, 0x01, self.retries & 0xFF])
                to_write += self._send(_Step.RF, build_frame(RF_CONFIGURATION, params), now)
            elif self._step is _Step.RF:
                to_write += self._poll(now)
            else:
                self.problem = ""
                uids = parse_target_list(frame.data)
                if isinstance(uids, str):
                    events.append(FrameRejected(f"pn532: {uids}"))
                else:
                    events.extend(TagSeen(uid) for uid in uids)
                self._step = _Step.IDLE
                self._deadline = now + self.poll_interval_s
        return events, to_write

    def _restart(self, now: float) -> bytes:
        self.restarts += 1
        return self.begin(now)

    def tick(self, now: float) -> tuple[list[ParsedEvent], bytes]:
        """Time passes: poll again when due; restart from the wake-up after a silent chip."""
        if now < self._deadline:
            return [], b""
        if self._step is _Step.IDLE:
            return [], self._poll(now)
        events: list[ParsedEvent] = list(self.parser.flush())
        self.problem = (
            f"PN532 did not answer in step {self._step.value} "
            f"(wiring, baud rate, or the board's interface switches not on HSU?)"
        )
        return events, self._restart(now)
