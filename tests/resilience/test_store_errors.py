"""The database cannot take a write — the SD card is full, or it turned read-only — while the
service runs: the scoreboard (page and /api/state) and the log say so, every input meanwhile is
refused whole (nothing half-written), the readers and the page keep working, and the first input
after the space returns is recorded again.

How each is produced, honestly:
- full disk: a real 4 MB tmpfs holding the database, filled with a file (needs root to mount,
  which this test machine has); without the right to mount, SQLite's ``max_page_count`` caps the
  file instead, which SQLite reports with the same SQLITE_FULL;
- read-only while running: a real kernel-forced read-only remount cannot be made in a test
  (``mount -o remount,ro`` refuses while the file is open for writing), so the connection is put
  in ``PRAGMA query_only``, which SQLite reports with SQLITE_READONLY, as for a read-only file;
- read-only at start: a real read-only bind mount (root) or file permissions (others); the
  service refuses to start with one clear line, and systemd's Restart=always retries.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import DIE_UIDS, PIN, Running, ServiceFactory, scan

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]
ROOT = Path(__file__).resolve().parents[2]


def _mount(*args: str) -> bool:
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    return subprocess.run(["mount", *args], capture_output=True, check=False).returncode == 0


class TinyDisk:
    """A folder that can run out of space."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir()
        self.folder = folder
        self.filler = folder / "filler"
        self.tmpfs = _mount("-t", "tmpfs", "-o", "size=4m", "tmpfs", str(folder))

    def fill(self, running: Running) -> None:
        if self.tmpfs:
            with self.filler.open("wb") as f, contextlib.suppress(OSError):
                while True:
                    f.write(b"\0" * 65536)
                    f.flush()
                    os.fsync(f.fileno())
        else:
            store = running.service.store
            with store._lock:
                pages = store._conn.execute("PRAGMA page_count").fetchone()[0]
                store._conn.execute(f"PRAGMA max_page_count={pages}")

    def free(self, running: Running) -> None:
        if self.tmpfs:
            self.filler.unlink()
        else:
            store = running.service.store
            with store._lock:
                store._conn.execute("PRAGMA max_page_count=1073741823")

    def unmount(self) -> None:
        if self.tmpfs:
            subprocess.run(["umount", "-l", str(self.folder)], check=False)


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[TinyDisk]:
    tiny = TinyDisk(tmp_path / "disk")
    yield tiny
    tiny.unmount()


def advance(player: int, steps: int) -> dict[str, Any]:
    return {
        "kind": "action",
        "payload": {"action": {"kind": "advance", "player": player, "args": {"steps": steps}}},
    }


def scoreboard_html(running: Running) -> str:
    import urllib.request

    with urllib.request.urlopen(running.base_url + "/partials/scoreboard", timeout=10) as r:
        return str(r.read().decode())


def test_a_full_disk_refuses_inputs_whole_says_so_and_recovers(
    run_service: ServiceFactory, disk: TinyDisk, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR)
    running = run_service(
        {"readers": [{"name": "red-seat", "protocol": "virtual", "seat": 1}]},
        db=disk.folder / "trackside.sqlite3",
    )
    running.start_tiny_race(target=100)
    accepted = 1
    turn = 0
    for _ in range(3):
        status, outcome = running.post(advance(turn, 1))
        assert status == 200, outcome
        turn, accepted = 1 - turn, accepted + 1
    before = running.totals()

    disk.fill(running)
    refused: dict[str, Any] | None = None
    for _ in range(150):  # the WAL may still have room for a few: play until a write fails
        status, outcome = running.post(advance(turn, 1))
        if status == 409:
            refused = outcome
            break
        assert status == 200, outcome
        turn, accepted = 1 - turn, accepted + 1
        before = running.totals()
    assert refused is not None, "the disk never filled"
    assert refused["message"].startswith("not recorded, nothing changed: database ")
    assert "full" in refused["message"]
    state = running.state()
    assert "full" in state["status"]["store_error"]
    assert "Database problem — inputs are refused" in scoreboard_html(running)
    assert any(
        "not recorded" in r.getMessage() and "full" in r.getMessage() for r in caplog.records
    )
    # still full: a reader's scan is refused too, and the game did not move
    running.service.scan("red-seat", DIE_UIDS[1])
    running.service.wait_idle()
    assert running.totals() == before
    assert "full" in running.state()["status"]["store_error"]

    disk.free(running)
    status, outcome = running.post(advance(turn, 2))
    assert status == 200, outcome
    accepted += 1
    assert running.state()["status"]["store_error"] is None
    after = running.totals()
    assert sum(after) == sum(before) + 2

    # nothing half-written: the file is sound and holds exactly the accepted inputs, each with
    # its outcome and (for a move) its event; a fresh service resumes the same scores
    conn = sqlite3.connect(f"file:{running.db}?mode=ro", uri=True)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        counts = [
            conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            for table in ("inputs", "outcomes", "events")
        ]
    finally:
        conn.close()
    assert counts == [accepted, accepted, accepted]  # start + every applied move, one event each
    running.service.stop()
    again = run_service(db=running.db, enrol=False)
    assert again.totals() == after


def test_a_database_that_turns_read_only_refuses_inputs_and_recovers(
    run_service: ServiceFactory, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR)
    running = run_service({"readers": [{"name": "red-seat", "protocol": "virtual", "seat": 1}]})
    running.start_tiny_race()
    scan(running, "red-seat", DIE_UIDS[2])
    store = running.service.store
    with store._lock:
        store._conn.execute("PRAGMA query_only=ON")
    recorded = len(running.inputs())

    status, outcome = running.post(advance(1, 3))
    assert status == 409
    assert "readonly" in outcome["message"] or "read-only" in outcome["message"]
    assert "readonly" in running.state()["status"]["store_error"]
    scan(running, "red-seat", DIE_UIDS[1])
    assert running.totals() == [2, 0]
    assert len(running.inputs()) == recorded  # refused whole: not even the input row
    assert any("not recorded" in r.getMessage() for r in caplog.records)

    with store._lock:
        store._conn.execute("PRAGMA query_only=OFF")
    status, outcome = running.post(advance(1, 3))
    assert status == 200, outcome
    assert running.state()["status"]["store_error"] is None
    assert running.totals() == [2, 3]


def test_a_read_only_database_at_start_is_one_clear_line_and_exit_2(tmp_path: Path) -> None:
    folder = tmp_path / "db"
    folder.mkdir()
    database = folder / "trackside.sqlite3"
    from companion.service.store import EventStore

    EventStore(database).close()
    bound = _mount("--bind", str(folder), str(folder)) and _mount(
        "-o", "remount,ro,bind", str(folder)
    )
    if not bound:
        database.chmod(0o444)
        folder.chmod(0o555)
    config = tmp_path / "trackside.toml"
    config.write_text(
        f'[web]\nhost = "127.0.0.1"\nport = 0\npin = "{PIN}"\n[database]\npath = "{database}"\n'
    )
    try:
        result = subprocess.run(
            [sys.executable, "-m", "companion.service.cli", "run", "--config", str(config)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    finally:
        if bound:
            subprocess.run(["umount", str(folder)], check=False)
        else:
            folder.chmod(0o755)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1] == (
        f"trackside: error: {database}: read-only; Trackside must write its database file "
        "(check the disk, its owner and permissions)"
    )
    assert "Traceback" not in result.stderr
