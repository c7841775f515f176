"""Garbage collection between requests (companion/service/collector.py, issue 48): the real
collector off, the same collections run from the idle collector's thread when no request is
being answered, never during a correction search, and forced when requests never stop."""

from __future__ import annotations

import gc
import threading
import time
import weakref
from collections.abc import Callable, Iterable
from typing import Any

import pytest

from companion.service import collector as collector_module
from companion.service.collector import FORCE_FACTOR, IdleCollector, no_collection

THRESHOLDS = (700, 10, 10)


class Counts:
    def __init__(self, counts: tuple[int, int, int]) -> None:
        self.counts = counts
        self.collected: list[int] = []
        self.now = 100.0

    def collector(self, quiet_s: float = 0.1) -> IdleCollector:
        return IdleCollector(
            quiet_s=quiet_s,
            counts=lambda: self.counts,
            thresholds=lambda: THRESHOLDS,
            collect=self.collect,
            clock=lambda: self.now,
        )

    def collect(self, generation: int) -> int:
        self.collected.append(generation)
        return 0


@pytest.mark.parametrize(
    ("counts", "generation"),
    [((10, 0, 0), None), ((701, 0, 0), 0), ((701, 11, 0), 1), ((701, 11, 11), 2), ((0, 0, 11), 2)],
)
def test_the_generation_collected_is_the_one_cpython_would_collect(
    counts: tuple[int, int, int], generation: int | None
) -> None:
    fake = Counts(counts)
    assert fake.collector().due() == generation


def test_it_collects_only_when_no_request_is_answered() -> None:
    fake = Counts((800, 0, 0))
    idle = fake.collector(quiet_s=0.1)
    fake.now += 1
    with idle.busy():
        assert idle.step() is None  # a request is being answered
    assert idle.step() is None  # one ended just now
    fake.now += 0.2
    assert idle.step() == 0
    assert fake.collected == [0]
    assert idle.collections == [1, 0, 0]
    assert idle.forced == 0


def test_requests_that_never_stop_do_not_stop_it_for_good() -> None:
    fake = Counts((FORCE_FACTOR * THRESHOLDS[0], 0, 0))
    idle = fake.collector()
    with idle.busy():
        assert idle.step() == 0
    assert idle.forced == 1


def test_none_runs_while_a_correction_is_searched_for() -> None:
    fake = Counts((FORCE_FACTOR * THRESHOLDS[0], 11, 11))
    idle = fake.collector()
    fake.now += 1
    with no_collection():
        assert collector_module.held()
        assert idle.step() is None
    assert not collector_module.held()
    assert idle.step() == 2


def test_a_wsgi_call_counts_as_a_request_being_answered() -> None:
    fake = Counts((800, 0, 0))
    idle = fake.collector()
    fake.now += 1
    seen: list[int | None] = []

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        seen.append(idle.step())
        return [b"ok"]

    assert idle.wrap(app)({}, lambda *a: None) == [b"ok"]
    assert seen == [None]
    fake.now += 1
    assert idle.step() == 0


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def test_the_real_collector_collects_a_cycle_once_idle() -> None:
    """With the real collector: the automatic one is off while it runs, a cycle let go of is
    collected from its thread once the process is idle, and the automatic one is on again after."""
    assert gc.isenabled()
    idle = IdleCollector(poll_s=0.01, quiet_s=0.01)
    idle.start()
    try:
        assert not gc.isenabled()
        assert any(t.name == "idle-collector" for t in threading.enumerate())
        a, b = Node(), Node()
        a.other, b.other = b, a
        gone = weakref.ref(a)
        del a, b
        assert gone() is not None  # a cycle: reference counting does not free it
        kept = [[i] for i in range(2000)]  # past the youngest threshold (kept: counts are net)
        deadline = time.monotonic() + 5
        while gone() is not None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert gone() is None, "the cycle was never collected"
        assert sum(idle.collections) >= 1
        del kept
    finally:
        idle.stop()
    assert gc.isenabled()
