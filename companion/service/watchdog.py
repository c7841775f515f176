"""systemd's notify protocol and watchdog, fed by the engine thread's heartbeat.

The unit runs with ``Type=notify`` and ``WatchdogSec=``: systemd hands the service
``$NOTIFY_SOCKET`` (a unix datagram socket; a leading ``@`` is the abstract namespace) and
``$WATCHDOG_USEC``. We say ``READY=1`` once the table is up, then ``WATCHDOG=1`` only while the
engine thread — the one writer everything depends on — answers: each beat puts a barrier on its
queue (``Engine.barrier``) and waits for the thread to reach it. An engine thread that hangs or
has ended misses the beat: we say ``WATCHDOG=trigger`` (systemd's "act now") with the reason in
``STATUS=``, and systemd restarts the service (``Restart=always``); a missed ping after
``WatchdogSec`` does the same if even this thread is stuck. The protocol is a few lines over a
socket (``sd_notify(3)``), so no library is needed. Outside systemd (no ``$NOTIFY_SOCKET``)
nothing here does anything.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Mapping

log = logging.getLogger(__name__)


class Notifier:
    """``sd_notify``: send ``KEY=value`` lines to ``$NOTIFY_SOCKET``; a no-op without one."""

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        env = os.environ if environ is None else environ
        address = env.get("NOTIFY_SOCKET", "")
        if address.startswith("@"):
            address = "\0" + address[1:]
        self.address = address or None

    @property
    def enabled(self) -> bool:
        return self.address is not None

    def send(self, *lines: str) -> bool:
        """True when the datagram was sent. Errors are logged, never raised: a notify socket
        that went away must not stop the table."""
        if self.address is None:
            return False
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
                sock.connect(self.address)
                sock.sendall("\n".join(lines).encode("utf-8"))
        except OSError as err:
            log.warning("systemd notify failed: %s", err)
            return False
        return True


def watchdog_interval_s(environ: Mapping[str, str] | None = None) -> float | None:
    """Half of ``$WATCHDOG_USEC`` (sd_watchdog_enabled's advice), when it is meant for us
    (``$WATCHDOG_PID`` absent or ours); None without a watchdog."""
    env = os.environ if environ is None else environ
    usec = env.get("WATCHDOG_USEC")
    pid = env.get("WATCHDOG_PID")
    if not usec or (pid and pid != str(os.getpid())):
        return None
    try:
        value = int(usec)
    except ValueError:
        return None
    return value / 2_000_000 if value > 0 else None


HEARTBEAT_SHARE = 0.5
"""The engine gets this share of the beat interval to answer. A beat starts every interval
(half of ``WatchdogSec``) and pings when the engine answered, so two pings are at most
``interval × (1 + share)`` apart: 0.75 × ``WatchdogSec`` (22.5 s of 30), a quarter of it to
spare. Given the whole interval, a quick answer followed by a slow one put the pings a whole
``WatchdogSec`` apart, and systemd killed a table that was only busy."""


class Watchdog:
    """Beats every ``interval_s``: ``heartbeat(timeout_s)`` must return within ``timeout_s``
    (:data:`HEARTBEAT_SHARE` of the interval; the engine's barrier); then ``WATCHDOG=1``, else
    ``WATCHDOG=trigger``."""

    def __init__(
        self,
        notifier: Notifier,
        heartbeat: Callable[[float], None],
        interval_s: float,
    ) -> None:
        self.notifier = notifier
        self.heartbeat = heartbeat
        self.interval_s = interval_s
        self.timeout_s = interval_s * HEARTBEAT_SHARE
        self.beats = 0
        self.missed: str | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="systemd-watchdog", daemon=True)
        self._thread.start()

    def stop(self, timeout_s: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout_s)

    def beat(self) -> bool:
        """One beat; True when the engine answered and systemd was told so."""
        try:
            self.heartbeat(self.timeout_s)
        except Exception as exc:  # TimeoutError from the barrier, or anything worse
            self.missed = f"the engine thread did not answer within {self.timeout_s:.1f} s: {exc}"
            log.error("watchdog: %s; asking systemd to restart the service", self.missed)
            self.notifier.send("STATUS=" + self.missed, "WATCHDOG=trigger")
            return False
        self.beats += 1
        self.notifier.send("WATCHDOG=1")
        return True

    def _run(self) -> None:
        while not self._stop.is_set():
            started = time.monotonic()
            if not self.beat():
                return  # systemd restarts us; beating on would only hide the hang
            self._stop.wait(max(0.0, self.interval_s - (time.monotonic() - started)))
