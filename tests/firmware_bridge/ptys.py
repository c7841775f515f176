"""Serial devices for end-to-end tests: real pseudo-terminals behind stable names.

A :class:`PtyDevice` behaves like a USB-serial reader as udev shows it: a stable symlink
(like ``/dev/serial/by-id/…``) to a tty that appears on ``plug()`` and vanishes on
``unplug()`` (the reader's next read fails, as with a pulled cable). The test writes what the
reader would send on the master side; the code under test opens the slave with real pyserial.
"""

from __future__ import annotations

import os
import select
import threading
import time
from collections.abc import Callable
from pathlib import Path

from companion.core import Observation


class PtyDevice:
    def __init__(self, link: Path) -> None:
        self.link = link
        self.master: int | None = None
        self.tty = ""

    def plug(self) -> PtyDevice:
        master, slave = os.openpty()
        self.tty = os.ttyname(slave)
        os.close(slave)
        self.master = master
        self.link.symlink_to(self.tty)
        return self

    def unplug(self) -> None:
        self.link.unlink()
        if self.master is not None:
            os.close(self.master)
            self.master = None

    def write(self, data: bytes) -> None:
        assert self.master is not None, "device is unplugged"
        os.write(self.master, data)

    def read(self, timeout_s: float = 0.0) -> bytes:
        """What the code under test wrote to the device (empty when nothing came)."""
        assert self.master is not None
        ready, _, _ = select.select([self.master], [], [], timeout_s)
        if not ready:
            return b""
        try:
            return os.read(self.master, 4096)
        except OSError:  # EIO: the reader side is closed
            return b""


class Collector:
    """A thread-safe sink that remembers what it got."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.observations: list[Observation] = []

    def __call__(self, observation: Observation) -> None:
        with self._lock:
            self.observations.append(observation)

    def summary(self) -> list[tuple[str, str | None]]:
        with self._lock:
            return [(o.kind.value, o.tag) for o in self.observations]


def wait_until(condition: Callable[[], bool], timeout_s: float = 5.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.005)
    raise AssertionError(f"timed out waiting for {what or condition}")
