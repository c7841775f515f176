"""Shared fixtures."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """Debian's Chromium, headless, no sandbox (no browser download): one Playwright for the
    whole run, shared by every package's browser tests (a second sync Playwright in the same
    thread is refused)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        yield b
        b.close()


# -- running in parallel (pytest-xdist, scripts/test.sh) ---------------------------------------
# Seconds a test takes alone on a 2-core machine, for the few that take far longer than the rest
# (measured with --durations; a hint for the order, never a limit). Under xdist the longest
# start first, each on its own worker, so the run is not left waiting on one long game at the
# end; the rest keep their files' order (their module fixtures are set up once).
LONG_TESTS_S: dict[str, float] = {
    "tests/web/test_table_browser.py::test_a_whole_game_by_taps_only[trains-and-stations]": 200,
    "tests/web/test_table_browser.py::test_a_whole_game_by_taps_only[ticket-to-ride-europe]": 220,
    "tests/games/russian_railroads/test_choices.py::"
    "test_random_playouts_through_the_tree_end_the_game_on_legal_boards": 40,
    "tests/games/test_conformance.py::test_every_leaf_of_the_first_trees_is_accepted[mini-express]": 25,
    "tests/service/test_correction_listing.py::": 20,
    "tests/web/test_table_browser.py::test_a_whole_game_by_taps_only[mini-express]": 70,
    "tests/web/test_table_browser.py::test_a_whole_game_by_taps_only[russian-railroads]": 70,
    "tests/resilience/test_crash_raw_night.py::test_sigkill_during_the_raw_demo_night_then_resume": 30,
    "tests/hub/test_club_night.py::": 30,
    "tests/web/test_scoreboard_layout.py::": 25,
    "tests/resilience/test_web_flood.py::": 20,
    "tests/games/test_conformance.py::test_random_playouts_through_the_tree": 15,
    "tests/i18n/test_same_in_both.py::test_no_text_reads_the_same": 60,
    "tests/web/test_live_table_browser.py::": 12,
}
SLOW_S = 3.0  # any other test marked slow


def expected_seconds(item: pytest.Item) -> float:
    for prefix, seconds in LONG_TESTS_S.items():
        if item.nodeid.startswith(prefix):
            return seconds
    return SLOW_S if item.get_closest_marker("slow") else 0.0


def longest_first(items: list[pytest.Item], workers: int) -> list[pytest.Item]:
    """``items`` with the long ones first, longest first (a stable sort), and the first
    ``2 * workers`` paired so that each worker starts with one of the ``workers`` longest and
    one of the next (xdist's load scheduler hands each worker two tests to begin with: tests
    ``2k`` and ``2k + 1`` go to worker ``k``)."""
    ordered = sorted(items, key=lambda item: -expected_seconds(item))
    head = ordered[: 2 * workers]
    if len(head) < 2 * workers:
        return ordered
    paired = [head[i // 2] if i % 2 == 0 else head[-1 - i // 2] for i in range(2 * workers)]
    return paired + ordered[2 * workers :]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0"))
    if workers > 1:
        items[:] = longest_first(items, workers)


# -- where the time goes (issue 44): TRACKSIDE_CPU_REPORT=path writes one JSON line per test -----
# with its wall time and the CPU its worker spent on it (and on the children it waited for: a
# service started for the test, a subprocess). Chromium renders in its own processes, shared by
# the whole run: its CPU is in none of these lines.
CPU_REPORT = os.environ.get("TRACKSIDE_CPU_REPORT")
if CPU_REPORT:
    import json
    import resource
    import time

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
        def cpu() -> tuple[float, float]:
            own = resource.getrusage(resource.RUSAGE_SELF)
            kids = resource.getrusage(resource.RUSAGE_CHILDREN)
            return own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime

        start, (own, kids) = time.monotonic(), cpu()
        yield
        wall, (own2, kids2) = time.monotonic() - start, cpu()
        line = {"test": item.nodeid, "wall": wall, "cpu": own2 - own, "children": kids2 - kids}
        with open(CPU_REPORT, "a", encoding="utf-8") as out:
            out.write(json.dumps(line) + "\n")
