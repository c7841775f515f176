"""Finding serial ports: by path, by ``/dev/serial/by-id`` or ``by-path`` name, by USB id.

Thin and read-only: it looks at the file system and pyserial's port list, never opens a port.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

BY_ID = Path("/dev/serial/by-id")
BY_PATH = Path("/dev/serial/by-path")
VID_PID = re.compile(r"^[0-9a-f]{4}:[0-9a-f]{4}$")


class PortNotFoundError(LookupError):
    """The configured device is not there (yet): the reader keeps searching."""


class PortRefusedError(PermissionError):
    """The device is there but not allowed (its USB id is not in the allow-list)."""


@dataclass(frozen=True, slots=True)
class PortInfo:
    """One detected serial port and the stable names udev gave it."""

    device: str
    vid_pid: str | None = None
    description: str = ""
    serial_number: str | None = None
    by_id: tuple[str, ...] = ()
    by_path: tuple[str, ...] = ()


def _links(directory: Path) -> dict[str, list[str]]:
    """Real device → the symlinks in ``directory`` that point at it."""
    found: dict[str, list[str]] = {}
    try:
        entries = sorted(directory.iterdir())
    except OSError:
        return found
    for entry in entries:
        found.setdefault(os.path.realpath(entry), []).append(str(entry))
    return found


def detected_ports(by_id: Path = BY_ID, by_path: Path = BY_PATH) -> list[PortInfo]:
    """Serial ports the system knows (pyserial's list), with their by-id and by-path names."""
    from serial.tools import list_ports

    ids, paths = _links(by_id), _links(by_path)
    ports = []
    for port in sorted(list_ports.comports(), key=lambda p: str(p.device)):
        device = str(port.device)
        real = os.path.realpath(device)
        vid_pid = f"{port.vid:04x}:{port.pid:04x}" if port.vid is not None else None
        ports.append(
            PortInfo(
                device=device,
                vid_pid=vid_pid,
                description=str(port.description or ""),
                serial_number=port.serial_number,
                by_id=tuple(ids.get(real, ())),
                by_path=tuple(paths.get(real, ())),
            )
        )
    return ports


PortLister = Callable[[], Sequence[PortInfo]]


def candidate_devices(
    port: str,
    vid_pid: Sequence[str] = (),
    lister: PortLister = detected_ports,
    *,
    by_id: Path = BY_ID,
    by_path: Path = BY_PATH,
) -> list[str]:
    """The paths to try opening for a configured ``port`` and USB-id allow-list.

    ``port`` is a path (``/dev/ttyUSB0``, ``/dev/serial/by-id/usb-…``), or a bare by-id or
    by-path name, or empty to take any port whose USB id is allowed. Raises
    :class:`PortNotFoundError` (keep searching) or :class:`PortRefusedError` (there, not ours).
    """
    allowed = {v.lower() for v in vid_pid}
    if not port:
        matches = [p.device for p in lister() if p.vid_pid in allowed]
        if not matches:
            raise PortNotFoundError(f"no serial port with USB id {', '.join(sorted(allowed))}")
        return matches
    tried = [Path(port)] if "/" in port else [by_id / port, by_path / port, Path("/dev") / port]
    path = next((p for p in tried if p.exists()), None)
    if path is None:
        raise PortNotFoundError(f"{port} not found (looked for {', '.join(map(str, tried))})")
    if allowed:
        real = os.path.realpath(path)
        info = next((p for p in lister() if os.path.realpath(p.device) == real), None)
        usb_id = info.vid_pid if info else None
        if usb_id not in allowed:
            raise PortRefusedError(
                f"{path} has USB id {usb_id or 'unknown'}, not in the allow-list "
                f"{', '.join(sorted(allowed))}; not opened"
            )
    return [str(path)]
