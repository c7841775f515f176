"""web/limits.py on its own: what the per-address stream cap counts by, and the page cache's
bounds (one computation per key, at most a few at once, a bounded size)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from web.limits import PageBusyError, PageCache, device_of


def test_a_device_is_its_ipv4_address_or_its_ipv6_network() -> None:
    assert device_of("192.168.1.20") == "192.168.1.20"
    assert device_of("::ffff:192.168.1.20") == "192.168.1.20"
    # one phone picks new IPv6 addresses in its /64 at will: they count as one
    assert device_of("2001:db8:1:2:aaaa::1") == device_of("2001:db8:1:2:bbbb::7")
    assert device_of("2001:db8:1:2::1") != device_of("2001:db8:1:3::1")
    assert device_of(None) == "?" and device_of("unix") == "unix"


def test_one_computation_per_key_and_a_bounded_number_at_once() -> None:
    cache = PageCache(renders=2)
    started, release = threading.Event(), threading.Event()
    calls: list[str] = []

    def slow(name: str) -> str:
        calls.append(name)
        started.set()
        release.wait(10)
        return name * 3

    answers: list[str] = []
    workers = [
        threading.Thread(target=lambda: answers.append(cache.get("a", lambda: slow("a"))))
        for _ in range(5)
    ]
    for worker in workers:
        worker.start()
    assert started.wait(10)
    other = threading.Thread(target=lambda: cache.get("b", lambda: slow("b")))
    other.start()
    while len(cache.working) < 2:
        threading.Event().wait(0.01)
    with pytest.raises(PageBusyError):  # a third page while two are being worked out
        cache.get("c", lambda: "c")
    release.set()
    for worker in [*workers, other]:
        worker.join(10)
    assert answers == ["aaa"] * 5 and sorted(calls) == ["a", "b"]
    assert cache.get("c", lambda: "ccc") == "ccc"


def test_a_failed_computation_is_not_kept() -> None:
    cache = PageCache()

    def broken() -> str:
        raise KeyError("no")

    with pytest.raises(KeyError):
        cache.get("k", broken)
    assert cache.get("k", lambda: "fine") == "fine"


def test_the_kept_pages_are_bounded_in_bytes() -> None:
    cache = PageCache(kept=100, kept_bytes=1000)
    for n in range(10):
        cache.get(n, lambda: "x" * 300)
    assert cache.bytes <= 1000 and list(cache.pages) == [7, 8, 9]
    cache.get("pair", lambda: ("text/csv", "y" * 2000))  # more than all: served, not kept
    assert cache.bytes <= 1000


def test_streams_per_address_is_a_checked_config_option(tmp_path: Path) -> None:
    from companion.core.errors import ConfigError
    from companion.service.config import parse_settings
    from companion.service.runtime import Trackside

    assert parse_settings({}, data_dir=tmp_path).web.streams_per_address == 12
    settings = parse_settings({"web": {"streams_per_address": 20}}, data_dir=tmp_path)
    service = Trackside(settings)
    try:
        assert service.app.config["SSE_PER_ADDRESS"] == 20
    finally:
        service.stop()
    with pytest.raises(ConfigError) as refused:
        parse_settings({"web": {"streams_per_address": 1}}, data_dir=tmp_path)
    assert refused.value.path == "web.streams_per_address" and "2–1000" in str(refused.value)
