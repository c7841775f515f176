"""A whole table in one file, and back (the setup page's "Download a backup" and "Restore").

A backup is a zip archive::

    manifest.json      {"format": "trackside-backup", "version": 1, "trackside": …, "files": […]}
    trackside.sqlite3  the database (games, their logs, tags, saved game options): SQLite's
                       online backup, consistent while the engine keeps writing
    trackside.toml     the config file, as it is on disk (secrets and all: the backup is the
                       owner's, behind the table PIN)
    calibration.json   the camera's colour calibration, when there is one

A plain SQLite file (a backup made before there were archives, or by ``backup.sh``) restores the
database alone.

A restore is checked **completely before anything is put in place**: sizes are bounded before
anything is decompressed; the database must carry Trackside's ``application_id`` and a schema
this version knows, pass ``PRAGMA integrity_check``, open and migrate as the service would open
it, and then have exactly the schema a new database has (no trigger, view, table or index of its
own: a trigger could refuse every input); the config must pass the start-up check, keep the
database where this table keeps it, and name a web port that is free (or the one the service
holds now); the calibration must load as the camera loads it. All of that happens in a private
folder beside the database, which is removed with every ``-wal``/``-shm`` SQLite made there.
Only then are the files staged as ``<file>.restore`` beside their targets; the next start puts
them in place (:func:`apply_pending_restore`), the replaced files kept beside them.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import shutil
import socket
import sqlite3
import tempfile
import time
import tomllib
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from companion import __version__
from companion.core import SnapshotError
from companion.core.errors import ConfigError, TracksideError
from companion.service.config import Settings, parse_settings
from companion.service.store import APPLICATION_ID, SCHEMA_VERSION, EventStore

log = logging.getLogger(__name__)

FORMAT = "trackside-backup"
FORMAT_VERSION = 1
DATABASE = "trackside.sqlite3"
CONFIG = "trackside.toml"
CALIBRATION = "calibration.json"
MANIFEST = "manifest.json"
MAX_MEMBER_BYTES = {
    MANIFEST: 64 * 1024,
    DATABASE: 1024 * 1024 * 1024,  # decompressed; the upload itself is bounded far lower
    CONFIG: 256 * 1024,
    CALIBRATION: 1024 * 1024,
}
RESTORE_SUFFIX = ".restore"
PLAN_SUFFIX = ".restore-plan.json"
"""Beside the database: where each staged file goes (the config and calibration may live
elsewhere), so a cancel or the next start finds them all."""
SQLITE_MAGIC = b"SQLite format 3\x00"
ZIP_MAGIC = b"PK\x03\x04"


class RestoreRefusedError(TracksideError, ValueError):
    """The upload is not a backup this table can restore; nothing was changed."""


# -- making one --------------------------------------------------------------------------
def write_backup(settings: Settings) -> bytes:
    """The table's backup archive (see the module's doc)."""
    buffer = io.BytesIO()
    files = []
    with (
        tempfile.TemporaryDirectory(prefix="trackside-backup-") as tmp,
        zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive,
    ):
        copy = Path(tmp) / DATABASE
        source = sqlite3.connect(f"file:{settings.database.path}?mode=ro", uri=True)
        target = sqlite3.connect(copy)
        try:
            source.backup(target)  # consistent while the engine keeps writing
            target.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
        finally:
            target.close()
            source.close()
        archive.write(copy, DATABASE)
        files.append(DATABASE)
        if settings.source and Path(settings.source).is_file():
            archive.write(settings.source, CONFIG)
            files.append(CONFIG)
        calibration = settings.calibration_path()
        if settings.camera is not None and calibration.is_file():
            archive.write(calibration, CALIBRATION)
            files.append(CALIBRATION)
        manifest = {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "trackside": __version__,
            "made_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "files": files,
        }
        archive.writestr(MANIFEST, json.dumps(manifest, indent=2) + "\n")
    return buffer.getvalue()


# -- checking one ------------------------------------------------------------------------
def _members(data: bytes) -> dict[str, bytes]:
    """The archive's files, each bounded while it is decompressed (a declared size can lie)."""
    if data.startswith(SQLITE_MAGIC):
        return {DATABASE: data}
    if not data.startswith(ZIP_MAGIC):
        raise RestoreRefusedError("not a Trackside backup (neither a backup archive nor SQLite)")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise RestoreRefusedError(f"the archive is damaged: {exc}") from None
    found: dict[str, bytes] = {}
    with archive:
        for info in infos:
            name = info.filename
            if name not in MAX_MEMBER_BYTES:
                raise RestoreRefusedError(
                    f"the archive holds {name[:80]!r}, which is no part of a Trackside backup "
                    f"(known: {', '.join(MAX_MEMBER_BYTES)})"
                )
            if name in found:
                raise RestoreRefusedError(f"the archive holds {name} twice")
            limit = MAX_MEMBER_BYTES[name]
            try:
                with archive.open(info) as member:
                    content = member.read(limit + 1)
            except (zipfile.BadZipFile, OSError, ValueError, EOFError, RuntimeError) as exc:
                # RuntimeError: an encrypted member; NotImplementedError (a RuntimeError): a
                # compression zipfile does not know
                raise RestoreRefusedError(f"{name} in the archive is damaged: {exc}") from None
            if len(content) > limit:
                raise RestoreRefusedError(f"{name} is over {limit // 1024} KB unpacked")
            found[name] = content
    try:
        manifest = json.loads(found.get(MANIFEST, b"").decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise RestoreRefusedError(f"the archive has no readable {MANIFEST}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise RestoreRefusedError(f"{MANIFEST} does not say {FORMAT!r}")
    if manifest.get("version") != FORMAT_VERSION:
        raise RestoreRefusedError(
            f"the backup's format version is {manifest.get('version')!r}; this Trackside "
            f"reads {FORMAT_VERSION} (upgrade Trackside)"
        )
    if DATABASE not in found:
        raise RestoreRefusedError(f"the archive has no {DATABASE}")
    return found


def _schema(conn: sqlite3.Connection) -> set[tuple[str, str, str, str | None]]:
    return {
        (kind, name, table, sql)
        for kind, name, table, sql in conn.execute(
            "SELECT type, name, tbl_name, sql FROM sqlite_master"
        )
        if not name.startswith("sqlite_stat")
    }


def _new_schema(folder: Path) -> set[tuple[str, str, str, str | None]]:
    EventStore(folder / "new.sqlite3").close()
    with contextlib.closing(sqlite3.connect(folder / "new.sqlite3")) as conn:
        return _schema(conn)


def check_database(path: Path, work: Path) -> None:
    """Refuse (RestoreRefusedError) a file the service could not open, or would open and then
    refuse every input with. ``work`` is a private folder for a new database to compare with.
    ``path`` is migrated in place when it is an older schema (it is a private copy)."""
    known = _new_schema(work)
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
            app_id = conn.execute("PRAGMA application_id").fetchone()[0]
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if app_id != APPLICATION_ID:
                raise RestoreRefusedError(
                    f"not a Trackside database (application_id {app_id:#x}, Trackside's is "
                    f"{APPLICATION_ID:#x})"
                )
            if not 1 <= version <= SCHEMA_VERSION:
                raise RestoreRefusedError(
                    f"the database has schema {version}; this Trackside knows 1 to "
                    f"{SCHEMA_VERSION} (a newer backup needs a newer Trackside)"
                )
            integrity = [row[0] for row in conn.execute("PRAGMA integrity_check")]
            if integrity != ["ok"]:
                raise RestoreRefusedError(f"the database is damaged: {'; '.join(integrity[:3])}")
            names = {(kind, name) for kind, name, _, _ in known}
            for kind, name, _, _ in _schema(conn):
                if (kind, name) not in names:
                    raise RestoreRefusedError(
                        f"the database has a {kind} {name[:60]!r} that Trackside's schema does "
                        "not have"
                    )
    except sqlite3.DatabaseError as exc:
        raise RestoreRefusedError(f"not a usable SQLite database: {exc}") from None
    try:
        EventStore(path).close()  # exactly how the service opens it (and migrates it)
    except TracksideError as exc:
        raise RestoreRefusedError(str(exc).replace(str(path), "the database")) from None
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        extra = _schema(conn) ^ known
    if extra:
        kind, name, _, _ = sorted(extra, key=lambda item: (item[0], item[1]))[0]
        raise RestoreRefusedError(
            f"the database's {kind} {name[:60]!r} is not defined as Trackside defines it"
        )


def _port_is_free(host: str, port: int) -> bool:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host or "0.0.0.0", port))
        except OSError:
            return False
    return True


def check_config(
    text: bytes, current: Settings, serving: tuple[str, int] | None
) -> tuple[str, Settings]:
    """The restored config's text and settings, checked as start-up checks them; it keeps the
    database where this table keeps it (the restored one goes there), and its web port is free
    or the one the service holds now (``serving``: host, port; let go at the restart)."""
    file = current.source or CONFIG
    try:
        decoded = text.decode("utf-8")
        settings = parse_settings(tomllib.loads(decoded), file=file)
    except UnicodeDecodeError:
        raise RestoreRefusedError(f"{CONFIG} is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise RestoreRefusedError(f"{CONFIG} is not valid TOML: {exc}") from None
    except ConfigError as exc:
        raise RestoreRefusedError(f"{CONFIG}: {exc}") from None
    if settings.database.path != current.database.path:
        raise RestoreRefusedError(
            f"{CONFIG}: database.path is {str(settings.database.path)!r}; this table keeps its "
            f"database at {str(current.database.path)!r} (edit the config after the restore)"
        )
    web = settings.web
    held = serving[1] if serving is not None else None  # let go at the restart, any address
    if web.port and web.port != held and not _port_is_free(web.host, web.port):
        raise RestoreRefusedError(
            f"{CONFIG}: web.port {web.port} is in use on this machine by another program; "
            "Trackside could not start with it"
        )
    return decoded, settings


def check_calibration(content: bytes, work: Path) -> None:
    from vision.palette import load_palette  # the camera's own loader (OpenCV not needed)

    path = work / CALIBRATION
    path.write_bytes(content)
    try:
        load_palette(str(path))  # refuses a file not in UTF-8 itself, naming the byte
    except (SnapshotError, ValueError) as exc:
        reason = str(exc).replace(str(path), CALIBRATION)
        raise RestoreRefusedError(
            reason if reason.startswith(CALIBRATION) else f"{CALIBRATION}: {reason}"
        ) from None


# -- staging and applying ------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class StagedRestore:
    files: tuple[str, ...]
    """What the backup brings back (``trackside.sqlite3``, ``trackside.toml``, …)."""


def _plan_path(db: Path) -> Path:
    return db.with_name(db.name + PLAN_SUFFIX)


@contextlib.contextmanager
def _private_folder(beside: Path) -> Iterator[Path]:
    """A folder on the database's own file system (so the staged database is renamed, not
    copied), removed with everything in it, -wal and -shm included."""
    beside.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".restore-", dir=beside.parent) as tmp:
        yield Path(tmp)


def _write_beside(target: Path, content: bytes) -> Path:
    """``content`` as ``<target>.restore``, written whole (a temporary file renamed)."""
    staged = target.with_name(target.name + RESTORE_SUFFIX)
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=target.parent, prefix=".restore-", delete=False) as tmp:
        tmp.write(content)
    os.chmod(tmp.name, 0o640)
    os.replace(tmp.name, staged)
    return staged


def stage_restore(
    data: bytes, settings: Settings, serving: tuple[str, int] | None = None
) -> StagedRestore:
    """Check the upload completely (RestoreRefusedError naming the file and the reason, with
    nothing changed), then stage each of its files beside its target for the next start."""
    found = _members(data)
    db = settings.database.path
    with _private_folder(db) as work:
        copy = work / DATABASE
        copy.write_bytes(found[DATABASE])
        check_database(copy, work)
        new_settings = settings
        config_text = None
        if CONFIG in found:
            if not settings.source:
                raise RestoreRefusedError(
                    "this table runs without a config file, so the backup's config has no "
                    "place to go (start Trackside with --config)"
                )
            config_text, new_settings = check_config(found[CONFIG], settings, serving)
        if CALIBRATION in found:
            if new_settings.camera is None:
                raise RestoreRefusedError(
                    "the backup has a camera calibration but the config has no [camera]"
                )
            check_calibration(found[CALIBRATION], work)
        # everything is checked: stage (nothing is in place until the next start)
        cancel_restore(db)
        plan: dict[str, str] = {}
        if config_text is not None:
            plan[CONFIG] = str(_write_beside(Path(settings.source), config_text.encode()))
        if CALIBRATION in found:
            target = new_settings.calibration_path()
            plan[CALIBRATION] = str(_write_beside(target, found[CALIBRATION]))
        with contextlib.closing(sqlite3.connect(copy)) as conn:
            conn.execute("PRAGMA journal_mode=DELETE")  # self-contained: no -wal to carry
        staged_db = db.with_name(db.name + RESTORE_SUFFIX)
        os.chmod(copy, 0o640)
        plan[DATABASE] = str(staged_db)
        _plan_path(db).write_text(json.dumps(plan, indent=2) + "\n", encoding="utf-8")
        os.replace(copy, staged_db)  # last: its presence says a restore is pending
    log.warning("restore staged for the next start: %s", ", ".join(plan))
    return StagedRestore(tuple(plan))


def pending_files(db: Path) -> dict[str, Path]:
    """The staged files of a pending restore of the database ``db`` (empty: none)."""
    staged = db.with_name(db.name + RESTORE_SUFFIX)
    plan: dict[str, Path] = {}
    with contextlib.suppress(OSError, ValueError):
        plan = {
            name: Path(path)
            for name, path in json.loads(_plan_path(db).read_text(encoding="utf-8")).items()
            if name in MAX_MEMBER_BYTES
        }
    if staged.exists():
        plan[DATABASE] = staged
    return {name: path for name, path in plan.items() if path.name.endswith(RESTORE_SUFFIX)}


def cancel_restore(db: Path) -> bool:
    """Remove every staged file of a pending restore of ``db``; whether there was one."""
    files = pending_files(db)
    for path in files.values():
        path.unlink(missing_ok=True)
    _plan_path(db).unlink(missing_ok=True)
    return bool(files)


def apply_pending_config(config: Path) -> Path | None:
    """At start, before the config is read: put a restored config in place (the replaced one
    kept as ``<config>.before-restore-<time>``). None: nothing pending."""
    staged = config.with_name(config.name + RESTORE_SUFFIX)
    if not staged.exists():
        return None
    kept = config.with_name(f"{config.name}.before-restore-{int(time.time())}")
    if config.exists():
        config.replace(kept)
    staged.replace(config)
    log.warning("config restored from a backup; the previous one is %s", kept)
    return kept


def apply_pending_restore(db: Path) -> Path | None:
    """At start, before the store opens: put the restored database in place of the live one
    (kept as ``<db>.before-restore-<time>`` with its -wal and -shm, which must never meet the
    new file) and the restored calibration in place of the camera's. Returns where the old
    database went (None: nothing to restore)."""
    pending = db.with_name(db.name + RESTORE_SUFFIX)
    plan = pending_files(db)
    if _plan_path(db).exists():  # nothing pending touches nothing (a read-only data dir)
        _plan_path(db).unlink()
    # a check cut short (a power cut mid-upload) leaves its private folder: nothing in it counts
    if db.parent.is_dir():
        for leftover in db.parent.glob(".restore-*"):
            if leftover.is_dir() and not leftover.is_symlink():
                shutil.rmtree(leftover, ignore_errors=True)
            else:
                leftover.unlink(missing_ok=True)
    calibration = plan.get(CALIBRATION)
    if calibration is not None and calibration.exists():
        target = calibration.with_name(calibration.name.removesuffix(RESTORE_SUFFIX))
        if target.exists():
            target.replace(target.with_name(f"{target.name}.before-restore-{int(time.time())}"))
        calibration.replace(target)
    if not pending.exists():
        return None
    kept = db.with_name(f"{db.name}.before-restore-{int(time.time())}")
    for suffix in ("", "-wal", "-shm"):
        old = db.with_name(db.name + suffix)
        if old.exists():
            old.replace(kept.with_name(kept.name + suffix))
    for suffix in ("-wal", "-shm", "-journal"):  # never the staged file's: it had none
        pending.with_name(pending.name + suffix).unlink(missing_ok=True)
    pending.replace(db)
    log.warning("database restored from a backup; the previous one is %s", kept)
    return kept
