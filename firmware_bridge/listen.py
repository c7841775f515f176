"""``trackside listen`` and ``trackside readers``: the first things to run after wiring a reader.

:func:`listen` opens one reader through the same port loop the service uses and prints one
JSON object per line for every observation (``/work``'s public contract)::

    {"kind": "tag_present", "uid": "0F002A7F8A", "reader": "/dev/ttyUSB0", "seat": 1, "at": …}
    {"kind": "text", "text": "TTRE-TRAIN-RED-07", "reader": …, "seat": …, "at": …}
    {"kind": "error", "message": "rdm6300: bad checksum …", "reader": …, "seat": …, "at": …}

It also prints the reader's state whenever it changes, as ``{"kind": "status", "state":
"searching" | "connected" | "error", "error": "…", "device": "…", …}``, so a wrong path or a
missing ``dialout`` group shows at once. :func:`list_ports` prints the detected serial ports
with their ``/dev/serial/by-id`` and ``by-path`` names, and the keyboard-like input devices (HID
scanners), and what each is configured as.
"""

from __future__ import annotations

import json
import os
import queue
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from companion.core import ConfigError, Observation
from firmware_bridge.hid import InputInfo, detected_input_devices
from firmware_bridge.ports import PortInfo, detected_ports
from firmware_bridge.readers import Backoff, ReaderConfig, ReaderStatus, open_reader


def observation_line(observation: Observation) -> dict[str, Any]:
    """The ``listen`` JSON object for one observation."""
    line: dict[str, Any] = {"kind": observation.kind.value}
    payload = observation.payload
    for key in ("uid", "text", "message"):
        if key in payload:
            line[key] = payload[key]
    line["reader"] = observation.source
    line["seat"] = observation.seat
    line["at"] = round(observation.wall_time_s, 3)
    return line


def _status_line(name: str, seat: int | None, status: ReaderStatus) -> dict[str, Any]:
    return {
        "kind": "status",
        "state": status.state,
        "error": status.last_error,
        "device": status.device,
        "frames_ok": status.frames_ok,
        "frames_bad": status.frames_bad,
        "reader": name,
        "seat": seat,
        "at": round(time.time(), 3),
    }


def _print(out: TextIO, line: dict[str, Any]) -> None:
    out.write(json.dumps(line, ensure_ascii=False) + "\n")
    out.flush()


def listen(  # noqa: PLR0917  (the CLI passes these positionally)
    protocol: str,
    port: str,
    baud: int | None,
    seat: int | None,
    out: TextIO,
    stop: threading.Event | None = None,
    *,
    backoff: Backoff | None = None,
) -> int:
    """Print every observation of one reader until ``stop`` is set or Ctrl-C; returns 0.

    A bad protocol, seat or baud raises :class:`companion.core.ConfigError` naming it.
    """
    try:
        config = ReaderConfig(
            name=port or "listen",
            protocol=protocol,  # type: ignore[arg-type]  # validated by ReaderConfig
            port=port,
            seat=seat,
            baud=baud,
        )
    except ConfigError as error:
        option = error.path.rsplit(".", 1)[-1]  # readers.<name>.seat → --seat
        raise ConfigError(f"--{option}", error.reason) from None
    observations: queue.Queue[Observation] = queue.Queue()
    reader = open_reader(config, observations.put, backoff=backoff)
    stop = stop or threading.Event()
    shown: tuple[str, str] | None = None
    reader.start()
    try:
        while not stop.is_set():
            status = reader.status()
            if (status.state, status.last_error) != shown:
                shown = (status.state, status.last_error)
                _print(out, _status_line(config.name, seat, status))
            try:
                observation = observations.get(timeout=0.05)
            except queue.Empty:
                continue
            _print(out, observation_line(observation))
    except KeyboardInterrupt:
        pass
    finally:
        reader.stop()
    while not observations.empty():
        _print(out, observation_line(observations.get_nowait()))
    return 0


def _describe(config: ReaderConfig) -> str:
    seat = f", seat {config.seat}" if config.seat is not None else ""
    return f"{config.name} ({config.protocol}{seat})"


def _configured_for(port: PortInfo, configured: Sequence[ReaderConfig]) -> list[ReaderConfig]:
    real = os.path.realpath(port.device)
    names = {os.path.basename(n) for n in (*port.by_id, *port.by_path)}
    found = []
    for config in configured:
        if config.protocol == "hid":
            continue
        if config.port:
            if os.path.realpath(config.port) == real or config.port in names:
                found.append(config)
        elif port.vid_pid in config.vid_pid:
            found.append(config)
    return found


def _input_devices() -> Sequence[InputInfo]:
    try:
        return detected_input_devices()
    except (ImportError, OSError):
        return []  # no evdev, or no /dev/input: nothing to list


def list_ports(
    out: TextIO,
    configured: Sequence[ReaderConfig] = (),
    *,
    lister: Callable[[], Sequence[PortInfo]] = detected_ports,
    inputs: Callable[[], Sequence[InputInfo]] = _input_devices,
) -> int:
    """Print the detected serial ports and keyboard-like input devices, their stable names
    and the readers configured on them; returns 0."""
    ports = list(lister())
    matched: set[str] = set()
    if not ports:
        out.write("no serial ports detected\n")
    for port in ports:
        usb = port.vid_pid or "no USB id"
        out.write(f"{port.device}  [{usb}]  {port.description}\n")
        for name in port.by_id:
            out.write(f"    by-id:   {name}\n")
        for name in port.by_path:
            out.write(f"    by-path: {name}\n")
        readers = _configured_for(port, configured)
        matched.update(r.name for r in readers)
        if readers:
            out.write(f"    configured as: {', '.join(_describe(r) for r in readers)}\n")
        else:
            out.write("    not configured\n")
    missing = [c for c in configured if c.protocol != "hid" and c.name not in matched]
    for config in missing:
        where = config.port or f"USB id {', '.join(config.vid_pid)}"
        out.write(f"configured but not detected: {_describe(config)} at {where}\n")
    hid_readers = [c for c in configured if c.protocol == "hid"]
    hid_matched: set[str] = set()
    for device in inputs():
        names = {device.path, device.name, *device.by_id}
        users = [c for c in hid_readers if c.port in names]
        hid_matched.update(c.name for c in users)
        out.write(f"{device.path}  input device  {device.name}\n")
        for name in device.by_id:
            out.write(f"    by-id:   {name}\n")
        if users:
            out.write(f"    configured as: {', '.join(_describe(c) for c in users)}\n")
        else:
            out.write("    not configured\n")
    for config in hid_readers:
        if config.name not in hid_matched:
            out.write(f"configured but not detected: {_describe(config)} at {config.port}\n")
    out.flush()
    return 0
