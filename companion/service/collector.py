"""Garbage collection between requests, not in them.

CPython's collector runs in whichever thread allocates when a generation's count is past its
threshold: a full collection walks every object the service keeps (the table's states, the
correction listing's caches) and lands on a tap's request (issue 48: 12-28 ms here, 3-4x that on
a Raspberry Pi 4, on top of the request's own work). A table is idle between taps nearly all the
time, so :class:`IdleCollector` turns the automatic collector off and runs the same collections
itself, from its own thread, when no request is being answered: the oldest generation whose count
is past its threshold, as CPython would choose it. When requests never stop coming (a script, a
flood) it collects anyway once the youngest count is :data:`FORCE_FACTOR` times its threshold,
so memory stays bounded.

Only a serving process uses it (``trackside run``, the demo, the hub: ``companion.service.cli``);
the requests are counted by :meth:`IdleCollector.wrap` around the web app.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

log = logging.getLogger(__name__)

POLL_S = 0.05
"""How often the collector looks at the counts."""
QUIET_S = 0.1
"""How long after the last request ended the service counts as idle."""
FORCE_FACTOR = 20
"""A collection is run even while requests are being answered once the youngest generation's
count is this many times its threshold (about 14,000 objects at CPython's 700)."""


_HOLDING = threading.Lock()
_HELD = [0, False]
"""How many searches run now, and whether the automatic collector was on when the first began."""


@contextlib.contextmanager
def no_collection() -> Iterator[None]:
    """No garbage collection while a correction is searched for (issue 48: no node over 50 ms).
    A search replays the later entries for every correction it tries: thousands of table states
    made and let go of at once, freed by reference counting (states hold no cycles). A
    collection set off in the middle walked every one still held and every state the listing
    keeps: 20-90 ms of one Mini Express request, of which the search itself took 10-30. Once no
    search is running it is on again (if it was), and the next collection finds the heap as the
    listing left it (3.5 ms here). Several searches at once (the web's threads): on again when
    the last ends. The idle collector (:class:`IdleCollector`) runs none meanwhile either, not
    even a forced one."""
    with _HOLDING:
        if _HELD[0] == 0:
            _HELD[1] = gc.isenabled()
            gc.disable()
        _HELD[0] += 1
    try:
        yield
    finally:
        with _HOLDING:
            _HELD[0] -= 1
            if _HELD[0] == 0 and _HELD[1]:
                gc.enable()


def held() -> bool:
    """Whether a search is running now (:func:`no_collection`)."""
    return _HELD[0] > 0


class IdleCollector:
    def __init__(
        self,
        *,
        poll_s: float = POLL_S,
        quiet_s: float = QUIET_S,
        counts: Callable[[], tuple[int, int, int]] = gc.get_count,
        thresholds: Callable[[], tuple[int, ...]] = gc.get_threshold,
        collect: Callable[[int], int] = gc.collect,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.poll_s = poll_s
        self.quiet_s = quiet_s
        self._counts = counts
        self._thresholds = thresholds
        self._collect = collect
        self._clock = clock
        self._lock = threading.Lock()
        self._in_flight = 0
        self._last_end = clock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._was_enabled = False
        self.collections = [0, 0, 0]
        """Collections run, by generation (for the tests and the bench)."""
        self.forced = 0
        """Of them, run while requests were being answered."""

    # -- the requests ----------------------------------------------------------------------------
    @contextlib.contextmanager
    def busy(self) -> Iterator[None]:
        """A request is being answered meanwhile."""
        with self._lock:
            self._in_flight += 1
        try:
            yield
        finally:
            with self._lock:
                self._in_flight -= 1
                self._last_end = self._clock()

    def wrap(self, app: Callable[..., Iterable[bytes]]) -> Callable[..., Iterable[bytes]]:
        """``app`` (a WSGI application) with every call counted as a request being answered.
        (A streamed body, the scoreboard's server-sent events, is made after the call: a page
        held open does not keep the service busy.)"""

        def counted(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
            with self.busy():
                return app(environ, start_response)

        return counted

    # -- collecting --------------------------------------------------------------------------------
    def due(self) -> int | None:
        """The generation CPython would collect now (the oldest whose count is past its
        threshold), or ``None``."""
        counts, thresholds = self._counts(), self._thresholds()
        for generation in (2, 1, 0):
            if counts[generation] > thresholds[generation]:
                return generation
        return None

    def step(self) -> int | None:
        """One look: the generation collected, or ``None``."""
        generation = self.due()
        if generation is None or held():
            return None
        with self._lock:
            idle = self._in_flight == 0 and self._clock() - self._last_end >= self.quiet_s
        forced = not idle and self._counts()[0] >= FORCE_FACTOR * self._thresholds()[0]
        if not idle and not forced:
            return None
        self._collect(generation)
        self.collections[generation] += 1
        self.forced += forced
        return generation

    def start(self) -> None:
        """Turn the automatic collector off and collect from this object's thread."""
        if self._thread is not None:
            return
        self._was_enabled = gc.isenabled()
        gc.disable()
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="idle-collector", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop collecting here; the automatic collector is on again if it was."""
        thread = self._thread
        if thread is None:
            return
        self._stop.set()
        thread.join(timeout=5)
        self._thread = None
        if self._was_enabled:
            gc.enable()

    def _run(self) -> None:
        while not self._stop.wait(self.poll_s):
            try:
                self.step()
            except Exception:  # never dies: a failed look is logged and the next one comes
                log.exception("the idle garbage collection failed")
