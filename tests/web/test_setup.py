"""The setup page's gates without a browser: the PIN, the upload bound, and a restore that is
put in place (WAL and all) only at the next start."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

import web.setup
from companion.service.backup import apply_pending_restore
from companion.service.runtime import Trackside
from companion.service.store import EventStore


def test_without_the_pin_nothing_is_shown_or_changed(service: Trackside) -> None:
    client = service.app.test_client()
    response = client.get("/setup")
    assert response.status_code == 303 and response.headers["Location"].endswith("/table")
    assert client.get("/setup/backup.zip").status_code == 303
    assert client.get("/setup/tags.json").status_code == 303
    service.store.enrol("04AA", "mini-express", "share-leather")
    client.post("/setup/tags/remove", data={"uid": "04AA", "reason": "x"})
    assert service.store.tag("04AA") is not None


def test_an_oversized_upload_is_refused_before_it_is_read(
    service: Trackside, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(web.setup, "MAX_UPLOAD_BYTES", 1000)
    response = service.app.test_client().post(
        "/setup/restore", data=b"x" * 200_000, content_type="application/octet-stream"
    )
    assert response.status_code == 413


def test_a_pending_restore_replaces_the_database_and_its_wal_at_start(tmp_path: Path) -> None:
    db = tmp_path / "trackside.sqlite3"
    live = EventStore(db)
    live.enrol("04OLD", "mini-express", "share-leather")
    live.close()
    backup = EventStore(tmp_path / "backup.sqlite3")
    backup.enrol("04NEW", "mini-express", "share-cotton")
    backup.close()
    # a WAL left beside the live database must never be applied to the restored one
    (tmp_path / "trackside.sqlite3-wal").write_bytes(b"stale wal")
    (tmp_path / "backup.sqlite3").replace(tmp_path / "trackside.sqlite3.restore")
    kept = apply_pending_restore(db)
    assert kept is not None and kept.exists()
    assert Path(str(kept) + "-wal").read_bytes() == b"stale wal"
    assert not (tmp_path / "trackside.sqlite3-wal").exists()
    assert not (tmp_path / "trackside.sqlite3.restore").exists()
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT uid FROM tags").fetchall() == [("04NEW",)]
    assert apply_pending_restore(db) is None  # nothing pending: nothing moves
    # a check cut short by a power cut left its private folder: cleared at the next start
    (tmp_path / ".restore-abc123").mkdir()
    (tmp_path / ".restore-abc123" / "trackside.sqlite3-wal").write_bytes(b"half")
    assert apply_pending_restore(db) is None
    assert not list(tmp_path.glob(".restore-*"))
