"""The production web server: waitress, with the limits a table on a shared Wi-Fi needs.

Why waitress (README, "Dependencies"): it is in Debian and Raspberry Pi OS (``python3-waitress``),
pure Python, maintained by the Pylons project, runs inside our process on a thread (the engine
stays the one writer: no forking server), streams a WSGI iterator chunk by chunk (server-sent
events), and reads requests in its asynchronous loop, so a half-sent request costs a socket but
no thread. On top of its own limits (connections, idle time, header and body size) this module
adds two that a guest's script needs and waitress lacks:

- a **request deadline**: a request whose headers and body have not all arrived within
  ``REQUEST_DEADLINE_S`` of its first byte is dropped, however slowly it trickles (slowloris);
- a **per-address connection cap**: one device holds at most ``PER_ADDRESS_CONNECTIONS`` sockets,
  so one script cannot take every connection the table has.

Server-sent events hold a worker thread each for as long as the page is open; ``threads`` is
sized for every phone at a big table plus the screens, and :func:`sse_slots` leaves
``RESERVED_THREADS`` for ordinary pages, so a crowd of streams never stops the scoreboard.
"""

from __future__ import annotations

import contextlib
import copy
import errno
import logging
import socket
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from waitress.adjustments import Adjustments
from waitress.channel import HTTPChannel
from waitress.parser import HTTPRequestParser
from waitress.server import TcpWSGIServer
from waitress.task import ThreadedTaskDispatcher

log = logging.getLogger(__name__)

REQUEST_DEADLINE_S = 15.0
IDLE_TIMEOUT_S = 30
PER_ADDRESS_CONNECTIONS = 24
RESERVED_THREADS = 8
MAX_HEADER_BYTES = 16 * 1024


MAX_RESTORE_BYTES = 32 * 1024 * 1024
"""A whole table's backup (database, config, calibration; compressed) as the setup page's
restore takes it. A database of a club's year of game nights packs to a few MB."""
LARGE_BODIES: Mapping[str, int] = {"/setup/restore": MAX_RESTORE_BYTES}
"""The only paths whose request bodies may be larger than ``ServerLimits.max_body_bytes``,
each with its own bound (the server here, the app's ``protect`` in web/guard.py again). Any
other path keeps the small limit, so a guest cannot make the server spool big bodies."""


@dataclass(frozen=True, slots=True)
class ServerLimits:
    """``[web] threads`` and ``[web] max_connections`` (docs/config.md) plus fixed limits."""

    threads: int = 64
    max_connections: int = 400
    max_body_bytes: int = 256 * 1024
    idle_timeout_s: int = IDLE_TIMEOUT_S
    request_deadline_s: float = REQUEST_DEADLINE_S
    per_address: int = PER_ADDRESS_CONNECTIONS
    trusted_proxy: str | None = None
    """``[web] trusted_proxy``: the address of the HTTPS proxy in front (nginx on the Pi,
    ``docs/security.md``). Its ``X-Forwarded-For``/``-Proto``/``-Host`` are believed (from it
    only), so the PIN limits see each guest's own address; its connections are exempt from the
    per-address cap (the proxy caps each guest itself: ``limit_conn``)."""


class _Channel(HTTPChannel):  # type: ignore[misc]
    """Notes when the request being received began (``partial_since``)."""

    partial_since: float | None = None

    def received(self, data: bytes) -> bool:
        if data and self.request is None and not self.requests:
            self.partial_since = time.monotonic()
        result = bool(super().received(data))
        if self.request is None:
            self.partial_since = None
        return result


class _Parser(HTTPRequestParser):  # type: ignore[misc]
    """Takes a body up to :data:`LARGE_BODIES`' bound on those paths; the server's own limit
    everywhere else. waitress checks the length against ``self.adj`` right after the header."""

    large: Mapping[str, Adjustments] = {}

    def parse_header(self, header_plus: bytes) -> None:
        super().parse_header(header_plus)
        bigger = self.large.get(self.path)
        if bigger is not None:
            self.adj = bigger


def _large_body_channel(adj: Adjustments) -> type[_Channel]:
    large = {}
    for path, limit in LARGE_BODIES.items():
        large[path] = copy.copy(adj)
        large[path].max_request_body_size = max(limit, adj.max_request_body_size)
    parser = type("_LargeBodyParser", (_Parser,), {"large": large})
    return type("_LargeBodyChannel", (_Channel,), {"parser_class": parser})


class _Server(TcpWSGIServer):  # type: ignore[misc]
    channel_class = _Channel
    limits: ServerLimits = ServerLimits()
    refused_per_address = 0
    dropped_slow = 0
    evicted = 0
    next_channel_cleanup: float = 0.0

    def readable(self) -> bool:
        """Always accept (waitress would stop at the limit and leave everyone waiting behind a
        flood in the backlog): at the limit, :meth:`handle_accept` makes room instead."""
        now = time.time()
        if now >= self.next_channel_cleanup:
            self.next_channel_cleanup = now + self.adj.cleanup_interval
            self.maintenance(now)
        return bool(self.accepting)

    def _make_room(self) -> bool:
        """At the connection limit, close the connection that has waited longest without a
        request being served (half-sent or idle); never a page being answered or a live
        stream. False when every connection is busy."""
        if len(self.active_channels) < self.limits.max_connections:
            return True
        idle = [c for c in self.active_channels.values() if not c.requests]
        if not idle:
            return False
        oldest = min(idle, key=lambda c: c.last_activity)
        self.evicted += 1
        oldest.handle_close()
        return True

    def handle_accept(self) -> None:
        try:
            pair = self.accept()
        except OSError:
            return
        if pair is None:
            return
        conn, addr = pair
        host = addr[0] if isinstance(addr, tuple) else str(addr)
        held = sum(
            1
            for channel in self.active_channels.values()
            if isinstance(channel.addr, tuple) and channel.addr[0] == host
        )
        cap = self.limits.max_connections if host == self.limits.trusted_proxy else None
        if held >= (cap or self.limits.per_address) or not self._make_room():
            self.refused_per_address += 1
            conn.close()  # this device holds its share of the sockets, or all are busy
            return
        try:
            self.set_socket_options(conn)
        except OSError:
            conn.close()
            return
        self.channel_class(self, conn, self.fix_addr(addr), self.adj, map=self._map)

    def maintenance(self, now: float) -> None:
        super().maintenance(now)
        deadline = time.monotonic() - self.limits.request_deadline_s
        for channel in list(self.active_channels.values()):
            since = getattr(channel, "partial_since", None)
            if since is not None and since < deadline and not channel.requests:
                self.dropped_slow += 1
                channel.will_close = True  # closed by the loop on its next pass


class TableServer:
    """One listening server on its own thread: ``port``, ``serve_forever`` and ``close``."""

    def __init__(
        self, host: str, port: int, app: Callable[..., Any], limits: ServerLimits | None = None
    ) -> None:
        self.limits = limits or ServerLimits()
        sock = _bound_socket(host, port)  # errors here, before any thread or trigger exists
        adj = Adjustments(
            sockets=[sock],
            threads=self.limits.threads,
            connection_limit=self.limits.max_connections,
            channel_timeout=self.limits.idle_timeout_s,
            cleanup_interval=1,
            max_request_header_size=MAX_HEADER_BYTES,
            max_request_body_size=self.limits.max_body_bytes,
            # read on while a request runs, so a closed live page is seen at once (its event
            # stream ends and gives its slot back: web/limits.py), not after failed writes
            channel_request_lookahead=1,
            ident="trackside",
            expose_tracebacks=False,
            clear_untrusted_proxy_headers=True,
            **_proxy(self.limits.trusted_proxy),
        )
        dispatcher = ThreadedTaskDispatcher()
        self._map: dict[int, Any] = {}
        sockinfo = (sock.family, sock.type, sock.proto, sock.getsockname())
        self.server = _Server(
            app,
            self._map,
            True,
            sock,
            dispatcher=dispatcher,
            adj=adj,
            bind_socket=False,
            sockinfo=sockinfo,
        )
        self.server.limits = self.limits
        self.server.channel_class = _large_body_channel(adj)
        dispatcher.set_thread_count(adj.threads)
        self._stopped = threading.Event()
        self._closed = False

    @property
    def port(self) -> int:
        return int(self.server.effective_port)

    def serve_forever(self) -> None:
        try:
            self.server.run()
        except OSError as exc:
            if not (self._closed and exc.errno == errno.EBADF):
                raise
            # close() found the wake-up pipe gone and closed the loop's files from the stopping
            # thread: the loop's select, waiting on them, then fails. That is the loop's end (it
            # was raised in this thread, unhandled, on a slow CI machine).
            log.debug("web: the server loop ended on its closed files (%s)", exc)
        finally:
            self._stopped.set()

    def close(self, timeout_s: float = 5.0) -> None:
        """Stop accepting, close every connection, and let the worker threads finish (an event
        stream ends when the service says it is closing). A second call does nothing (a
        service stopped twice must not write to the closed trigger's pipe)."""
        if self._closed:
            return
        self._closed = True

        def close_all() -> None:
            for channel in list(self._map.values()):
                try:
                    channel.close()
                except Exception:
                    log.debug("web: closing a connection failed", exc_info=True)

        try:
            self.server.trigger.pull_trigger(close_all)
        except OSError as exc:
            # The loop's wake-up pipe is gone (once, in CI, at the end of a test that had run
            # its disk full): the loop cannot be asked, so the connections are closed here.
            log.warning("web: the server loop could not be woken (%s); closing here", exc)
            close_all()
            # The trigger's own close stopped at the dead pipe end, before waitress's copy of
            # the read end (a file wrapper, which it then warns about when collected).
            wrapper = getattr(self.server.trigger, "socket", None)
            if wrapper is not None:
                with contextlib.suppress(OSError):
                    wrapper.close()
        self._stopped.wait(timeout_s)
        self.server.task_dispatcher.shutdown(cancel_pending=True, timeout=min(timeout_s, 2.0))


def _bound_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to (host, port): OSError (socket.gaierror for a name that does not
    resolve) with nothing left open."""
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except OSError:
        sock.close()
        raise
    return sock


def _proxy(address: str | None) -> dict[str, Any]:
    """waitress's proxy settings: believe the forwarded headers of ``address`` only, one hop."""
    if not address:
        return {}
    return {
        "trusted_proxy": address,
        "trusted_proxy_count": 1,
        "trusted_proxy_headers": {"x-forwarded-for", "x-forwarded-proto", "x-forwarded-host"},
    }


def sse_slots(limits: ServerLimits) -> int:
    """How many event streams may be open at once: the threads less those kept for pages."""
    return max(1, limits.threads - RESERVED_THREADS)
