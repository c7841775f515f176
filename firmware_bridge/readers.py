"""Readers: the configured devices, their port loops, and what they tell the engine.

:func:`open_reader` turns one ``[[readers]]`` entry (:class:`ReaderConfig`) into a
:class:`Reader` with its own daemon thread. The thread never gives up: it opens the port
(``exclusive=True``), waits out an Arduino-class reset, flushes what came before, then reads;
on any error it closes the port, backs off (2 s growing to 30 s by default) and tries again,
forever, publishing ``searching | connected | error`` with the last error text. Bytes go
through the pure parsers (:mod:`firmware_bridge.frames`, :mod:`firmware_bridge.pn532`) and the
presence model (:mod:`firmware_bridge.presence`); the sink receives
:class:`companion.core.Observation` values, never raw bytes.

Observations: ``tag_present`` / ``tag_removed`` with ``{"uid": "UPPERHEX"}``; ``text`` with
``{"text": …}`` (and ``"uid"`` when a ``SCAN`` line carried one); ``error`` with
``{"message": …}`` for a rejected frame. Each carries ``source=config.name`` and
``seat=config.seat``. Barcode texts are not de-duplicated: the same card scanned twice is two
scans on purpose.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import IO, Any, Literal, Protocol, get_args

from companion.core import ConfigError, Observation, ObservationKind
from companion.core.ids import ReaderId, Seat
from firmware_bridge.frames import FrameRejected, ParsedEvent, TagSeen, TextSeen
from firmware_bridge.ports import (
    VID_PID,
    PortLister,
    PortNotFoundError,
    candidate_devices,
    detected_ports,
)
from firmware_bridge.presence import PresenceChange, PresenceTracker
from firmware_bridge.sessions import Session, new_session

log = logging.getLogger(__name__)

ProtocolName = Literal["rdm6300", "id12la", "pn532", "line", "hid"]
PROTOCOLS: tuple[str, ...] = get_args(ProtocolName)
ReaderState = Literal["searching", "connected", "error"]

DEFAULT_BAUD = {"rdm6300": 9600, "id12la": 9600, "pn532": 115200, "line": 9600}
# Opening a USB-serial port toggles DTR, which resets an Arduino: it boots for about 2 s and may
# print anything meanwhile. Our line-protocol sketches run on such boards; the RFID modules and
# the PN532 sit behind plain USB-UART adapters and need no wait.
DEFAULT_RESET_WAIT_S = {"rdm6300": 0.0, "id12la": 0.0, "pn532": 0.0, "line": 2.0, "hid": 0.0}
LAYOUTS = ("us", "uk", "de", "cz")

Sink = Callable[[Observation], None]


@dataclass(frozen=True, slots=True)
class ReaderConfig:
    """One ``[[readers]]`` entry; validated on construction (``ConfigError`` names the field).

    ``port``: a device path, a ``/dev/serial/by-id`` or ``by-path`` name, or empty to take the
    first port whose USB id is in ``vid_pid`` (``"1a86:7523"``); for ``hid`` an evdev path
    (``/dev/input/by-id/…-event-kbd``) or the device's name. ``baud`` and ``reset_wait_s``
    default by protocol. ``removal_timeout_s``: a tag not seen again for this long has left.
    ``raw_log``: a file to append the raw bytes to (JSON lines), off by default. ``layout``: the
    keyboard layout a HID scanner is set to type in (``us``, ``uk``, ``de``, ``cz`` built in;
    ``sk``, ``es`` or any other xkeyboard-config layout through libxkbcommon).
    """

    name: str
    protocol: ProtocolName
    port: str
    seat: int | None = None
    baud: int | None = None
    vid_pid: tuple[str, ...] = ()
    reset_wait_s: float | None = None
    removal_timeout_s: float = 0.5
    raw_log: str | None = None
    layout: str = "us"

    def __post_init__(self) -> None:
        where = f"readers.{self.name or '?'}"
        if not self.name:
            raise ConfigError("readers.name", "a reader needs a name")
        if self.protocol not in PROTOCOLS:
            raise ConfigError(
                f"{where}.protocol", f"{self.protocol!r} is not one of {', '.join(PROTOCOLS)}"
            )
        if not self.port and not self.vid_pid:
            raise ConfigError(f"{where}.port", "give a port (or a vid_pid allow-list)")
        if not self.port and self.protocol == "hid":
            raise ConfigError(f"{where}.port", "a HID scanner needs its event device or name")
        if self.seat is not None and (isinstance(self.seat, bool) or self.seat < 1):
            raise ConfigError(f"{where}.seat", f"expected a seat number ≥ 1, got {self.seat!r}")
        if self.baud is not None and self.baud <= 0:
            raise ConfigError(f"{where}.baud", f"expected a positive baud rate, got {self.baud!r}")
        object.__setattr__(self, "vid_pid", tuple(v.lower() for v in self.vid_pid))
        for value in self.vid_pid:
            if not VID_PID.match(value):
                raise ConfigError(f"{where}.vid_pid", f"{value!r} is not like '1a86:7523'")
        if self.reset_wait_s is not None and self.reset_wait_s < 0:
            raise ConfigError(f"{where}.reset_wait_s", f"must be ≥ 0, got {self.reset_wait_s!r}")
        if not self.removal_timeout_s > 0:
            raise ConfigError(
                f"{where}.removal_timeout_s", f"must be > 0, got {self.removal_timeout_s!r}"
            )
        if self.layout not in LAYOUTS:
            from firmware_bridge.keymaps import layout_table

            try:  # a layout from the system's xkeyboard-config (sk, es, …)
                layout_table(self.layout)
            except ValueError as exc:
                raise ConfigError(f"{where}.layout", str(exc)) from None

    @property
    def effective_baud(self) -> int:
        return self.baud or DEFAULT_BAUD.get(self.protocol, 9600)

    @property
    def effective_reset_wait_s(self) -> float:
        if self.reset_wait_s is not None:
            return self.reset_wait_s
        return DEFAULT_RESET_WAIT_S[self.protocol]


@dataclass(frozen=True, slots=True)
class ReaderStatus:
    """What a reader is doing, for the table page and ``trackside readers``."""

    state: ReaderState = "searching"
    last_error: str = ""
    frames_ok: int = 0
    frames_bad: int = 0
    device: str = ""
    connections: int = 0


class Reader(Protocol):
    def start(self) -> None: ...

    def stop(self, timeout_s: float = 2.0) -> None: ...

    def status(self) -> ReaderStatus: ...


@dataclass
class Backoff:
    """Delays between attempts: ``initial_s``, doubling up to ``max_s``; reset on success."""

    initial_s: float = 2.0
    max_s: float = 30.0
    factor: float = 2.0
    _next_s: float = field(default=0.0, init=False)

    def next_delay(self) -> float:
        delay = self._next_s or self.initial_s
        self._next_s = min(self.max_s, delay * self.factor)
        return delay

    def reset(self) -> None:
        self._next_s = 0.0


class ObservationMaker:
    """Parsed events → observations for one reader, through its presence model. Pure."""

    def __init__(self, config: ReaderConfig) -> None:
        self.source = ReaderId(config.name)
        self.seat = None if config.seat is None else Seat(config.seat)
        self.tracker = PresenceTracker(config.removal_timeout_s)

    def make(self, kind: ObservationKind, payload: dict[str, Any], now: float) -> Observation:
        return Observation(
            source=self.source,
            kind=kind,
            payload=payload,
            seat=self.seat,
            monotonic_s=now,
            wall_time_s=time.time(),
        )

    def from_events(self, events: list[ParsedEvent], now: float) -> list[Observation]:
        out: list[Observation] = []
        for event in events:
            if isinstance(event, TagSeen):
                out += self.from_changes(self.tracker.seen(event.uid, now), now)
            elif isinstance(event, TextSeen):
                payload: dict[str, Any] = {"text": event.text}
                if event.uid is not None:
                    payload["uid"] = event.uid
                out.append(self.make(ObservationKind.TEXT, payload, now))
            elif isinstance(event, FrameRejected):
                out.append(self.make(ObservationKind.ERROR, {"message": event.message}, now))
        return out

    def from_changes(self, changes: list[PresenceChange], now: float) -> list[Observation]:
        return [
            self.make(ObservationKind(change.kind), {"uid": change.uid}, now) for change in changes
        ]

    def tick(self, now: float) -> list[Observation]:
        return self.from_changes(self.tracker.tick(now), now)


class RawLog:
    """Raw bytes of one reader, appended as JSON lines (``rx``/``tx`` hex, ``event``)."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self._file: IO[str] | None = None
        self.problem = ""

    def write(self, **record: Any) -> None:
        if self.path is None:
            return
        try:
            if self._file is None:
                self._file = open(self.path, "a", encoding="utf-8", buffering=1)  # noqa: SIM115
            record = {"t": round(time.time(), 6), "m": round(time.monotonic(), 6), **record}
            self._file.write(json.dumps(record, sort_keys=True) + "\n")
        except OSError as error:
            self.problem = f"raw log {self.path} disabled: {error}"
            log.warning("%s", self.problem)
            self.path = None

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


class _ThreadedReader(ABC):
    """The thread, the stop flag and the published status shared by every reader kind."""

    def __init__(self, config: ReaderConfig, sink: Sink, backoff: Backoff | None) -> None:
        self.config = config
        self._sink = sink
        self._backoff = backoff or Backoff()
        self._stop_event = threading.Event()
        self._lock = threading.Lock()
        self._status = ReaderStatus()
        self._thread: threading.Thread | None = None
        self._errors_logged: set[str] = set()
        self.maker = ObservationMaker(config)

    def start(self) -> None:
        if self._thread is not None:
            raise RuntimeError(f"reader {self.config.name!r} already started")
        self._thread = threading.Thread(
            target=self._run_forever, name=f"reader-{self.config.name}", daemon=True
        )
        self._thread.start()

    def stop(self, timeout_s: float = 2.0) -> None:
        self._stop_event.set()
        if self._thread is not None:
            self._thread.join(timeout_s)

    def status(self) -> ReaderStatus:
        with self._lock:
            return self._status

    def _publish(self, **changes: Any) -> None:
        with self._lock:
            new = replace(self._status, **changes)
            if new == self._status:
                return
            self._status = new
        if "state" in changes or "last_error" in changes:
            log.info("reader %s: %s %s", self.config.name, new.state, new.last_error)

    def _emit(self, observations: list[Observation]) -> None:
        for observation in observations:
            try:
                self._sink(observation)
            except Exception:
                log.exception("reader %s: the sink refused %r", self.config.name, observation)

    def _note_error(self, state: ReaderState, message: str) -> None:
        self._publish(state=state, last_error=message)
        if message not in self._errors_logged:  # log each distinct error once
            self._errors_logged.add(message)
            log.warning("reader %s: %s", self.config.name, message)

    def _run_forever(self) -> None:
        while not self._stop_event.is_set():
            try:
                self._attempt()
            except PortNotFoundError as error:
                self._note_error("searching", str(error))
            except Exception as error:  # readers never die: any failure is retried
                self._note_error("error", str(error) or type(error).__name__)
            if self._stop_event.is_set():
                break
            self._stop_event.wait(self._backoff.next_delay())

    @abstractmethod
    def _attempt(self) -> None:
        """Find and open the device, then read until an error or :meth:`stop`."""


def with_hint(message: str, group: str) -> str:
    """A permission error says which group the service user is missing."""
    if "Permission denied" in message or "Errno 13" in message:
        return f"{message} (is the service user in the {group!r} group?)"
    return message


class SerialReader(_ThreadedReader):
    """A serial reader (RDM6300, ID-12LA, PN532 over HSU, line readers) on one port."""

    read_timeout_s = 0.05

    def __init__(
        self,
        config: ReaderConfig,
        sink: Sink,
        *,
        backoff: Backoff | None = None,
        port_lister: PortLister = detected_ports,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(config, sink, backoff)
        self._port_lister = port_lister
        self._clock = clock
        self._raw = RawLog(config.raw_log)
        self._counted = (0, 0)

    def _attempt(self) -> None:
        import serial

        candidates = candidate_devices(self.config.port, self.config.vid_pid, self._port_lister)
        port = None
        problems = []
        for device in candidates:
            try:
                port = serial.Serial(
                    device,
                    baudrate=self.config.effective_baud,
                    timeout=self.read_timeout_s,
                    exclusive=True,
                )
            except (serial.SerialException, OSError) as error:
                problems.append(with_hint(f"{device}: {error}", "dialout"))
                continue
            self._read_port(port, device)
            return
        raise OSError("; ".join(problems) or "no port could be opened")

    def _read_port(self, port: Any, device: str) -> None:
        try:
            self._raw.write(event="open", device=device)
            wait_s = self.config.effective_reset_wait_s
            if wait_s and self._stop_event.wait(wait_s):
                return
            port.reset_input_buffer()  # whatever came before (boot chatter) is not a scan
            session = new_session(self.config.protocol)
            now = self._clock()
            self.maker.tracker.resume(now)
            self._backoff.reset()
            with self._lock:
                connections = self._status.connections + 1
            self._publish(state="connected", device=device, connections=connections)
            self._write(port, session.begin(now))
            self._loop(port, session)
        finally:
            self._raw.write(event="close", device=device)
            port.close()

    def _loop(self, port: Any, session: Session) -> None:
        base_ok, base_bad = self._counted
        while not self._stop_event.is_set():
            data = port.read(port.in_waiting or 1)
            if data and port.in_waiting:  # the rest of a frame that was arriving
                data += port.read(port.in_waiting)
            now = self._clock()
            events: list[ParsedEvent] = []
            to_write = b""
            if data:
                self._raw.write(rx=data.hex())
                events, to_write = session.feed(data, now)
            tick_events, tick_write = session.tick(now)
            self._write(port, to_write + tick_write)
            self._emit(self.maker.from_events(events + tick_events, now) + self.maker.tick(now))
            self._counted = (base_ok + session.frames_ok, base_bad + session.frames_bad)
            problem = session.problem or self._raw.problem
            self._publish(
                state="error" if session.problem else "connected",
                frames_ok=self._counted[0],
                frames_bad=self._counted[1],
                **({"last_error": problem} if problem else {}),
            )

    def _write(self, port: Any, data: bytes) -> None:
        # Only sessions that must talk (the PN532) ever produce bytes to write.
        if data:
            self._raw.write(tx=data.hex())
            port.write(data)

    def stop(self, timeout_s: float = 2.0) -> None:
        super().stop(timeout_s)
        self._raw.close()


def open_reader(
    config: ReaderConfig,
    sink: Sink,
    *,
    backoff: Backoff | None = None,
    port_lister: PortLister = detected_ports,
) -> Reader:
    """A reader for ``config`` that sends its observations to ``sink``; call ``start()``."""
    if config.protocol == "hid":
        from firmware_bridge.hid import HidReader

        return HidReader(config, sink, backoff=backoff)
    return SerialReader(config, sink, backoff=backoff, port_lister=port_lister)
