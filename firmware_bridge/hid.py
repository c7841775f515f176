"""Keyboard-wedge scanners through evdev: grabbed, so scans never leak into the console.

Thin: find the device (an event path such as ``/dev/input/by-id/usb-…-event-kbd``, or the
device's name as the kernel reports it), ``grab()`` it so its key presses reach only us, read
``EV_KEY`` events and hand them to the pure :class:`~firmware_bridge.keymaps.KeyDecoder`. A
scan that ends with Enter becomes a ``text`` observation; a scan with keys the configured layout
cannot type, or one left hanging without Enter, becomes an ``error`` observation. The device
vanishing (unplugged) is retried forever like a serial port.

Needs read access to ``/dev/input/event*``: run as a user in the ``input`` group.
"""

from __future__ import annotations

import contextlib
import os
import select
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from companion.core import ObservationKind
from firmware_bridge.keymaps import KEY_ENTER, MAX_SCAN_CHARS, KeyDecoder, Scan
from firmware_bridge.ports import PortNotFoundError
from firmware_bridge.readers import Backoff, ReaderConfig, Sink, _ThreadedReader, with_hint

EV_KEY = 1


class KeyEventSource(Protocol):
    """What we use of ``evdev.InputDevice``."""

    fd: int
    name: str

    def grab(self) -> None: ...

    def ungrab(self) -> None: ...

    def read(self) -> Iterable[Any]: ...

    def close(self) -> None: ...


def _evdev() -> Any:
    """python-evdev, imported only when a HID scanner is configured (``trackside[hid]``)."""
    try:
        import evdev
    except ModuleNotFoundError:
        raise ModuleNotFoundError(
            "HID scanners need python-evdev: pip install 'trackside[hid]' "
            "(it builds from source: apt-get install gcc python3-dev)",
            name="evdev",
        ) from None
    return evdev


def find_event_device(port: str) -> str:
    """The event device path for a configured path or device name."""
    if "/" in port:
        if not Path(port).exists():
            raise PortNotFoundError(f"{port} not found")
        return port
    evdev = _evdev()

    names = []
    for path in evdev.list_devices():
        try:
            device = evdev.InputDevice(path)
        except OSError:
            continue
        try:
            if device.name == port:
                return str(path)
            names.append(device.name)
        finally:
            device.close()
    seen = ", ".join(repr(n) for n in sorted(names)) or "none readable"
    raise PortNotFoundError(f"no input device named {port!r} (found: {seen})")


@dataclass(frozen=True, slots=True)
class InputInfo:
    """A keyboard-like input device (a candidate HID scanner) and its stable names."""

    path: str
    name: str
    by_id: tuple[str, ...] = ()


def detected_input_devices(by_id: Path = Path("/dev/input/by-id")) -> list[InputInfo]:
    """Readable input devices that can type Enter (keyboards and keyboard-wedge scanners)."""
    evdev = _evdev()

    links: dict[str, list[str]] = {}
    with contextlib.suppress(OSError):
        for entry in sorted(by_id.iterdir()):
            links.setdefault(os.path.realpath(entry), []).append(str(entry))
    found = []
    for path in sorted(evdev.list_devices()):
        try:
            device = evdev.InputDevice(path)
        except OSError:
            continue
        try:
            keys = device.capabilities().get(EV_KEY, [])
            if KEY_ENTER in keys:
                real = os.path.realpath(path)
                found.append(InputInfo(str(path), device.name, tuple(links.get(real, ()))))
        finally:
            device.close()
    return found


def _open_evdev(path: str) -> KeyEventSource:
    evdev = _evdev()

    device: KeyEventSource = evdev.InputDevice(path)
    return device


class HidReader(_ThreadedReader):
    """A keyboard-wedge barcode (or 125 kHz keyboard-emulating RFID) scanner."""

    poll_s = 0.05
    scan_gap_s = 1.0  # keys stop mid-scan this long: the scan is cut off (no Enter suffix?)

    def __init__(
        self,
        config: ReaderConfig,
        sink: Sink,
        *,
        backoff: Backoff | None = None,
        find: Callable[[str], str] = find_event_device,
        opener: Callable[[str], KeyEventSource] = _open_evdev,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(config, sink, backoff)
        self._find = find
        self._opener = opener
        self._clock = clock
        self._ok = 0
        self._bad = 0

    def _attempt(self) -> None:
        path = self._find(self.config.port)
        try:
            device = self._opener(path)
        except PermissionError as error:
            raise PermissionError(with_hint(f"{path}: {error}", "input")) from error
        try:
            device.grab()  # EBUSY when another program holds it: an error, retried
            self._backoff.reset()
            with self._lock:
                connections = self._status.connections + 1
            self._publish(state="connected", device=path, connections=connections)
            self._read_keys(device)
        finally:
            with contextlib.suppress(OSError):  # already gone with the device
                device.ungrab()
            device.close()

    def _read_keys(self, device: KeyEventSource) -> None:
        decoder = KeyDecoder(self.config.layout)
        last_key_at = self._clock()
        while not self._stop_event.is_set():
            ready, _, _ = select.select([device.fd], [], [], self.poll_s)
            now = self._clock()
            if ready:
                for event in device.read():  # OSError (ENODEV) when unplugged
                    if event.type != EV_KEY:
                        continue
                    last_key_at = now
                    scan = decoder.key(event.code, event.value)
                    if scan is not None:
                        self._scanned(scan, now)
            elif decoder.has_partial and now - last_key_at >= self.scan_gap_s:
                cut = decoder.finish()
                if cut is not None:
                    self._reject(f"scan without Enter, dropped: {cut.text!r}", now)

    def _scanned(self, scan: Scan, now: float) -> None:
        if scan.dropped:
            self._reject(
                f"scan of {len(scan.text) + scan.dropped} characters; a scan is at most "
                f"{MAX_SCAN_CHARS}; dropped {scan.text[:24]!r}…",
                now,
            )
            return
        if scan.unmapped:
            codes = ", ".join(str(c) for c in scan.unmapped)
            self._reject(
                f"scan typed key code(s) {codes} that layout {self.config.layout!r} has no "
                f"character for; dropped {scan.text!r} (is the scanner set to this layout?)",
                now,
            )
            return
        self._ok += 1
        self._publish(frames_ok=self._ok)
        self._emit([self.maker.make(ObservationKind.TEXT, {"text": scan.text}, now)])

    def _reject(self, message: str, now: float) -> None:
        self._bad += 1
        self._publish(frames_bad=self._bad)
        self._emit([self.maker.make(ObservationKind.ERROR, {"message": f"hid: {message}"}, now)])
