"""Availability on a shared Wi-Fi: live-update streams shared fairly between devices, and the
expensive public pages (a game's history page and its exports) worked out once per change.

Streams (``GET /api/events``). Each open stream holds a server thread (web/server.py), and
there are ``SSE_MAX_STREAMS`` of them for everyone. Without more, three devices holding 55
streams left no live updates for a new scoreboard (issue 52). So:

- one address holds at most ``SSE_PER_ADDRESS`` streams (``[web] streams_per_address``,
  docs/config.md). A club night behind one NAT address (a TV, a tablet and six phones, each
  with a page or two open) fits in the default of 12; a further one from that address is
  refused with 429, a ``Retry-After`` and a sentence saying why;
- every stream ends after ``SSE_LIFETIME_S`` (give or take a tenth, so the pages do not all
  come back at once). The pages' EventSource reconnects by itself; the new stream's first
  message carries the table's current version, and each page fetches what it shows when that
  differs from the version it shows, so nothing is missed in between. A stream left open by
  a script (or a tab nobody looks at) gives its thread back within the lifetime;
- a closed page gives its slot back within ``GONE_CHECK_S`` (the server reads ahead on a
  connection with a stream, so it sees the close at once): before, it held the slot until two
  keep-alives had failed, 30–45 s, and a phone reloading its page a few times would have
  used up its address's share.

Pages (``/history/N``, ``/api/games/N/export``). A game's record is a replay of its whole log;
200 requests for it at once took the scoreboard 10 s to answer. The log is only ever appended
to (an undo or a reopened game is one more event), so a game's record is the same for as long
as its last log seq is: :class:`PageCache` keeps each page per (game, last seq, language), a
finished game's for good. Requests for a page being worked out wait for that one computation;
at most ``RENDERS_AT_ONCE`` different pages are worked out at a time, and a request for yet
another is answered 503 with a ``Retry-After`` (a few are enough for the screens in a room;
a script asking for every game at once must not take every thread).
"""

from __future__ import annotations

import ipaddress
import logging
import random
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from flask import Flask, Response

from companion.core.errors import TracksideError
from web import i18n
from web.i18n import _

log = logging.getLogger(__name__)

STREAMS_PER_ADDRESS = 12
"""A table's club night behind one address: a TV, a tablet and six phones, each with a page
or two open (``[web] streams_per_address``)."""
STREAM_LIFETIME_S = 600.0
GONE_CHECK_S = 2.0
"""How often a quiet stream looks whether its page was closed (its slot then goes back)."""
STREAM_RETRY_AFTER_S = 30
"""What a refused stream is told to wait; the pages ask again after 30 s (web/static/*.js)."""
RENDERS_AT_ONCE = 2
RENDER_WAIT_S = 10.0
"""How long a request waits for the same page being worked out by another request."""
RENDER_RETRY_AFTER_S = 2
PAGES_KEPT = 64
PAGE_BYTES_KEPT = 16 * 1024 * 1024
"""The kept pages' text in all (a Pi Zero 2 has 512 MB): the oldest go first."""

MAX_STOPPING = 4
"""Streams being ended for other addresses at once: each holds its thread up to
``GONE_CHECK_S`` more, out of the threads kept for pages (web/server.py)."""

MAX_STREAMS = "SSE_MAX_STREAMS"
PER_ADDRESS = "SSE_PER_ADDRESS"
LIFETIME = "SSE_LIFETIME_S"


@dataclass(eq=False)
class Stream:
    """One open event stream: it ends when ``stop`` is set (its place given to another
    address, :meth:`StreamSlots.acquire`), looked at every ``GONE_CHECK_S``."""

    address: str
    started: float
    stop: threading.Event = field(default_factory=threading.Event)


class StreamSlots:
    """Open event streams: at most ``SSE_MAX_STREAMS`` in all, ``SSE_PER_ADDRESS`` per address
    (the app's config, set by the service from ``[web]``). When every slot is taken, a page
    from an address holding fewer streams than the one holding the most takes the oldest of
    that one's (fair shares: five addresses at their cap do not shut a sixth out); at most
    ``MAX_STOPPING`` are being ended at a time, each within ``GONE_CHECK_S``."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.lock = threading.Lock()
        self.streams: dict[str, list[Stream]] = {}
        self.open = 0
        self.refused_per_address = 0
        self.refused_full = 0
        self.taken_over = 0

    def acquire(self, address: str) -> Stream | Response:
        """The stream (:meth:`release` it when it ends), or the refusal. ``address``:
        :func:`device_of` the client's address."""
        per_address = int(self.app.config.get(PER_ADDRESS, STREAMS_PER_ADDRESS))
        with self.lock:
            held = len(self._live(address))
            if held >= per_address:
                self.refused_per_address += 1
                message = _(
                    "This device already has as many live pages open as one address may "
                    "have; close one, or this page asks again by itself in {s} seconds.",
                    s=STREAM_RETRY_AFTER_S,
                )
                return _refusal(message, 429, STREAM_RETRY_AFTER_S)
            if self.open >= int(self.app.config.get(MAX_STREAMS, 56)):
                victim = self._fair_share(held)
                if victim is None:
                    self.refused_full += 1
                    message = _(
                        "Too many live pages are open on this table; this page asks again by "
                        "itself in {s} seconds.",
                        s=STREAM_RETRY_AFTER_S,
                    )
                    return _refusal(message, 503, STREAM_RETRY_AFTER_S)
                victim.stop.set()  # its page reconnects, and is refused while this holds
                self.taken_over += 1
            stream = Stream(address, time.monotonic())
            self.streams.setdefault(address, []).append(stream)
            self.open += 1
            return stream

    def _live(self, address: str) -> list[Stream]:
        return [s for s in self.streams.get(address, ()) if not s.stop.is_set()]

    def _fair_share(self, held: int) -> Stream | None:
        """The stream to end for a page from an address holding ``held``: the oldest of the
        address holding the most, if that is more than ``held + 1``; None otherwise, or
        while ``MAX_STOPPING`` are still ending."""
        stopping = sum(s.stop.is_set() for streams in self.streams.values() for s in streams)
        if stopping >= MAX_STOPPING:
            return None
        most = max((self._live(a) for a in self.streams), key=len, default=[])
        if len(most) <= held + 1:
            return None
        return min(most, key=lambda s: s.started)

    def release(self, stream: Stream) -> None:
        with self.lock:
            self.open -= 1
            mine = self.streams.get(stream.address, [])
            if stream in mine:
                mine.remove(stream)
            if not mine:
                self.streams.pop(stream.address, None)

    def lifetime_s(self) -> float:
        """This stream's lifetime: the configured one, give or take a tenth."""
        lifetime = float(self.app.config.get(LIFETIME, STREAM_LIFETIME_S))
        return lifetime * random.uniform(0.9, 1.1)


def device_of(address: str | None) -> str:
    """What the per-address cap counts by: an IPv4 address; for IPv6 its /64 (one device
    picks new addresses in its network at will, and a network is one home or one club)."""
    try:
        ip = ipaddress.ip_address(address or "")
    except ValueError:
        return address or "?"
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def _refusal(message: str, status: int, retry_after_s: int) -> Response:
    return Response(
        message + "\n",
        status=status,
        mimetype="text/plain",
        headers={"Retry-After": str(retry_after_s), "Cache-Control": "no-store"},
    )


class PageBusyError(Exception):
    """Other pages are being worked out; answer 503 (:func:`busy_response`)."""


def busy_response() -> Response:
    return _refusal(
        _("The table is busy working out other pages; try again in a moment."),
        503,
        RENDER_RETRY_AFTER_S,
    )


class PageCache:
    """Pages by key, each worked out once: concurrent requests for the same key wait for the
    one computation (and get its answer; if it fails, the request that ran it gets the
    exception and those waiting :class:`PageBusyError`); at most ``renders`` keys are
    worked out at once (:class:`PageBusyError` beyond); the ``kept`` newest are kept."""

    def __init__(
        self,
        renders: int = RENDERS_AT_ONCE,
        kept: int = PAGES_KEPT,
        kept_bytes: int = PAGE_BYTES_KEPT,
    ) -> None:
        self.renders = renders
        self.kept = kept
        self.kept_bytes = kept_bytes
        self.bytes = 0
        self.lock = threading.Lock()
        self.pages: OrderedDict[Hashable, Any] = OrderedDict()
        self.working: dict[Hashable, threading.Event] = {}
        self.hits = 0
        self.misses = 0
        self.refused = 0

    def get(self, key: Hashable, compute: Callable[[], Any], wait_s: float = RENDER_WAIT_S) -> Any:
        with self.lock:
            found = self._found(key)
            if found is not None:
                return found[0]
            other = self.working.get(key)
            if other is None and len(self.working) >= self.renders:
                self.refused += 1
                raise PageBusyError
            done = self.working[key] = threading.Event() if other is None else other
        if other is not None:
            done.wait(wait_s)
            with self.lock:
                found = self._found(key)
            if found is None:  # the computation failed or did not finish in time
                raise PageBusyError
            return found[0]
        try:
            value = compute()
        except BaseException:
            with self.lock:
                del self.working[key]
            done.set()  # those waiting are told the page is busy; the next request tries again
            raise
        with self.lock:
            self.misses += 1
            if key not in self.pages:
                self.pages[key] = value
                self.bytes += _size(value)
            while self.pages and (len(self.pages) > self.kept or self.bytes > self.kept_bytes):
                self.bytes -= _size(self.pages.popitem(last=False)[1])
            del self.working[key]
        done.set()
        return value

    def _found(self, key: Hashable) -> tuple[Any] | None:
        if key not in self.pages:
            return None
        self.hits += 1
        self.pages.move_to_end(key)
        return (self.pages[key],)


def _size(value: Any) -> int:
    """About what a kept page holds: its text's length (a page, or an export's pair)."""
    if isinstance(value, str | bytes):
        return len(value)
    if isinstance(value, tuple):
        return sum(_size(v) for v in value)
    return 1024


def cached_page(
    cache: PageCache, service: Any, key: tuple[Hashable, ...], render: Callable[[], Any]
) -> Any:
    """What ``render`` gives for game ``key[1]``, kept in ``cache`` per change of that game's
    log and per language; None when there is no such game (the reason only in the log); a 503
    :class:`Response` when other pages are being worked out. A service that cannot say its
    games' versions (a test's) has every page rendered anew."""
    game_id = key[1]
    version_of = getattr(service, "game_version", None)
    try:
        if version_of is None:
            return render()
        version = version_of(game_id)
        if version is None:
            return None
        return cache.get((*key, version, i18n.language()), render)
    except PageBusyError:
        return busy_response()
    except TracksideError:
        log.warning("web: game %s: no page", game_id, exc_info=True)
        return None
