"""Backups of a whole table and their restore, through the running service on loopback: the
setup page's archive brings back the games, the tags, the config and the camera calibration on a
fresh data dir; a restore is checked completely before anything is staged (a database without
Trackside's application_id, one carrying a trigger or a view, a config whose port another
program holds: each refused, nothing changed, no file left behind); a real backup over the
pages' 256 KB body limit goes through, a body over the restore's own bound does not."""

from __future__ import annotations

import html
import http.client
import io
import json
import re
import secrets
import shutil
import socket
import sqlite3
import urllib.parse
import zipfile
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import cv2
import pytest

from companion.service.backup import RestoreRefusedError, stage_restore
from companion.service.cli import settings_for_run
from companion.service.runtime import Trackside
from companion.service.store import EventStore
from vision.palette import DEFAULT_PALETTE, save_palette
from vision.synthetic import SceneSpec, render_scene
from web.guard import MAX_BODY_BYTES
from web.server import MAX_RESTORE_BYTES

from .conftest import command

PIN = "582046"
PLAYERS = [
    {"name": "Red", "colour": "red", "seat": 1},
    {"name": "Blue", "colour": "blue", "seat": 2},
]


def config_text(data: Path, *, port: int = 0, camera: bool = True) -> str:
    text = f"""# the owner's own config
data_dir = "{data}"

[web]
host = "127.0.0.1"
port = {port}
pin = "{PIN}"

[database]
path = "{data / "db" / "trackside.sqlite3"}"

[[readers]]
name = "red-seat"
protocol = "virtual"
seat = 1
"""
    if camera:
        text += f"""
[camera]
name = "overhead"
source = "replay:{data / "frames"}"
"""
    return text


def install(data: Path, **options: object) -> Path:
    """A data dir as the installer leaves it, with one camera frame to replay."""
    (data / "config").mkdir(parents=True)
    (data / "frames").mkdir()
    cv2.imwrite(str(data / "frames" / "frame0000.png"), render_scene(SceneSpec(seed=1)).image)
    config = data / "config" / "trackside.toml"
    config.write_text(config_text(data, **options), encoding="utf-8")  # type: ignore[arg-type]
    return config


def start(config: Path) -> Trackside:
    """What ``trackside run --config`` does (a pending restore is put in place first)."""
    service = Trackside(settings_for_run(config))
    service.start()
    return service


@dataclass
class Browser:
    """A guest's browser on loopback: cookies, the CSRF token, forms, downloads."""

    port: int
    cookies: dict[str, str]

    def request(
        self, method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            sent = {"Host": f"127.0.0.1:{self.port}", **(headers or {})}
            if self.cookies:
                sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
            conn.request(method, path, body=body, headers=sent)
            response = conn.getresponse()
            data = response.read()
            for name, value in response.getheaders():
                if name.lower() == "set-cookie":
                    key, _, rest = value.partition("=")
                    self.cookies[key] = rest.split(";", 1)[0]
            return response.status, {k.lower(): v for k, v in response.getheaders()}, data
        finally:
            conn.close()

    def page(self, path: str) -> str:
        status, _, data = self.request("GET", path)
        assert status == 200, (path, status)
        return data.decode()

    def csrf(self) -> str:
        token = re.search(r'name="csrf" value="([^"]+)"', self.page("/table"))
        assert token, "no CSRF token on /table"
        return token.group(1)

    def post_form(self, path: str, fields: dict[str, str]) -> int:
        body = urllib.parse.urlencode(fields).encode()
        status, _, _ = self.request(
            "POST", path, body, {"Content-Type": "application/x-www-form-urlencoded"}
        )
        return status

    def upload(self, path: str, data: bytes, name: str = "backup.zip") -> int:
        boundary = secrets.token_hex(16)
        body = (
            (
                f'--{boundary}\r\nContent-Disposition: form-data; name="csrf"\r\n\r\n'
                f"{self.csrf()}\r\n--{boundary}\r\n"
                f'Content-Disposition: form-data; name="file"; filename="{name}"\r\n'
                "Content-Type: application/octet-stream\r\n\r\n"
            ).encode()
            + data
            + f"\r\n--{boundary}--\r\n".encode()
        )
        status, _, _ = self.request(
            "POST", path, body, {"Content-Type": f"multipart/form-data; boundary={boundary}"}
        )
        return status

    def flash(self) -> str:
        """The setup page's messages after a form (the flashes it shows once)."""
        found = re.findall(r'class="flash (?:ok|error)"[^>]*>(.*?)</', self.page("/setup"), re.S)
        return html.unescape(" ".join(found))


def signed_in(service: Trackside) -> Browser:
    assert service.web_port
    browser = Browser(service.web_port, {})
    assert browser.post_form("/table/login", {"csrf": browser.csrf(), "pin": PIN}) == 303
    return browser


@pytest.fixture
def table(tmp_path: Path) -> Iterator[tuple[Trackside, Path]]:
    data = tmp_path / "trackside"
    config = install(data)
    service = start(config)
    yield service, data
    service.stop()


def play_a_little(service: Trackside, data: Path) -> None:
    service.store.enrol("04D1E5000002", "tiny-race", "die-2")
    service.engine.handle(
        command({"command": "start_game", "game": "tiny-race", "players": PLAYERS})
    )
    save_palette(DEFAULT_PALETTE, str(data / "calibration" / "overhead.json"), ("test shot",))


def leftovers(folder: Path) -> list[str]:
    """What a restore may not leave: its private folders and temporary files, and any -wal,
    -shm or -journal of a staged file (the live database's own are the service's)."""
    return [
        p.name
        for p in folder.iterdir()
        if p.name.startswith(".restore-")
        or re.fullmatch(r".*\.restore(-wal|-shm|-journal)", p.name)
    ]


def test_a_backup_restored_on_a_fresh_data_dir_brings_back_games_tags_config_and_calibration(
    tmp_path: Path,
) -> None:
    data = tmp_path / "trackside"
    config = install(data)
    service = start(config)
    try:
        play_a_little(service, data)
        config.write_text(config.read_text() + "\n# the owner's note: table 7\n")
        game = service.store.unfinished_games()[0]
        status, headers, archive = signed_in(service).request("GET", "/setup/backup.zip")
        assert status == 200 and headers["content-type"] == "application/zip"
    finally:
        service.stop()
    calibration = (data / "calibration" / "overhead.json").read_bytes()
    names = set(zipfile.ZipFile(io.BytesIO(archive)).namelist())
    assert names == {"manifest.json", "trackside.sqlite3", "trackside.toml", "calibration.json"}

    shutil.rmtree(data)  # a new SD card: the installer's fresh data dir and config
    config = install(data)
    fresh = start(config)
    try:
        assert fresh.store.unfinished_games() == [] and fresh.store.tags() == []
        browser = signed_in(fresh)
        assert browser.upload("/setup/restore", archive) == 303
        assert "Backup checked and ready" in browser.flash()
        assert "trackside.toml" in browser.page("/setup")  # the waiting restore says what
        assert not leftovers(data / "db") and not leftovers(data / "config")
    finally:
        fresh.stop()

    restored = start(config)
    try:
        (back,) = restored.store.unfinished_games()
        assert (back.id, back.game, back.players) == (game.id, game.game, game.players)
        assert restored.store.tag("04D1E5000002") is not None
        assert restored.engine.session() is not None  # the game resumed where it was
        assert "table 7" in config.read_text()
        assert (data / "calibration" / "overhead.json").read_bytes() == calibration
        assert list((data / "config").glob("trackside.toml.before-restore-*"))
        assert list((data / "db").glob("trackside.sqlite3.before-restore-*"))
        assert not leftovers(data / "db") and not leftovers(data / "config")
        assert not list(data.rglob("*.restore")) and not list(data.rglob("*.restore-plan.json"))
    finally:
        restored.stop()


def database_with(data: Path, sql: str) -> bytes:
    """A real Trackside database (a game's tag in it), then changed by ``sql``."""
    path = data / "made.sqlite3"
    store = EventStore(path)
    store.enrol("04AA", "tiny-race", "die-2")
    store.close()
    with closing(sqlite3.connect(path)) as conn:
        conn.executescript(sql)
        conn.execute("PRAGMA journal_mode=DELETE")
    content = path.read_bytes()
    path.unlink()
    return content


def archive_of(database: bytes, config: str | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        files = ["trackside.sqlite3"] + (["trackside.toml"] if config else [])
        manifest = {"format": "trackside-backup", "version": 1, "files": files}
        archive.writestr("manifest.json", json.dumps(manifest))
        archive.writestr("trackside.sqlite3", database)
        if config:
            archive.writestr("trackside.toml", config)
    return buffer.getvalue()


def refused(service: Trackside, data: Path, upload: bytes, says: str) -> None:
    before = {p.name: p.read_bytes() for p in (data / "config").iterdir() if p.is_file()}
    db_files = sorted(p.name for p in (data / "db").iterdir())
    browser = signed_in(service)
    assert browser.upload("/setup/restore", upload) == 303
    message = browser.flash()
    assert "Restore refused" in message and says in message, message
    assert service.restore_pending() == ()
    assert sorted(p.name for p in (data / "db").iterdir()) == db_files  # nothing staged or left
    assert {p.name: p.read_bytes() for p in (data / "config").iterdir() if p.is_file()} == before
    assert service.store.tag("04AA") is None  # the live database is the same one


def test_a_database_without_trackside_s_application_id_is_refused(
    table: tuple[Trackside, Path],
) -> None:
    service, data = table
    upload = database_with(data, "PRAGMA application_id = 0;")
    refused(service, data, upload, "not a Trackside database (application_id 0x0")
    refused(service, data, archive_of(upload), "not a Trackside database (application_id 0x0")


def test_a_database_carrying_a_trigger_or_a_view_is_refused(table: tuple[Trackside, Path]) -> None:
    service, data = table
    trigger = database_with(
        data,
        "CREATE TRIGGER no_input BEFORE INSERT ON inputs "
        "BEGIN SELECT RAISE(ABORT, 'no more input'); END;",
    )
    refused(service, data, archive_of(trigger), "trigger 'no_input'")
    view = database_with(data, "CREATE VIEW everything AS SELECT * FROM tags;")
    refused(service, data, archive_of(view), "view 'everything'")
    # a table of Trackside's own name, defined otherwise (every insert refused)
    redefined = database_with(
        data,
        "DROP TABLE outcomes; CREATE TABLE outcomes (input_id INTEGER PRIMARY KEY "
        "CHECK (input_id < 0), outcome TEXT, message TEXT, game_id INTEGER, seq INTEGER);",
    )
    refused(service, data, archive_of(redefined), "table 'outcomes' is not defined as")


def test_a_config_whose_port_another_program_holds_is_refused(
    table: tuple[Trackside, Path],
) -> None:
    service, data = table
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        database = database_with(data, "")
        upload = archive_of(database, config_text(data, port=port))
        refused(service, data, upload, f"web.port {port} is in use")
    # the port the service itself holds now is let go at the restart: accepted
    browser = signed_in(service)
    upload = archive_of(database, config_text(data, port=service.web_port or 0))
    assert browser.upload("/setup/restore", upload) == 303
    assert "Backup checked and ready" in browser.flash()
    assert set(service.restore_pending()) == {"trackside.toml", "trackside.sqlite3"}


def test_a_config_that_fails_the_start_up_check_is_refused_naming_the_option(
    table: tuple[Trackside, Path],
) -> None:
    service, data = table
    bad = config_text(data).replace("seat = 1", "seat = 0")
    refused(service, data, archive_of(database_with(data, ""), bad), "readers[0].seat")


def test_a_real_backup_over_the_pages_body_limit_is_restored_and_a_cancel_removes_it(
    table: tuple[Trackside, Path],
) -> None:
    service, data = table
    for n in range(9000):  # a club's tag registry: random uids do not compress
        service.store.enrol(secrets.token_hex(12), "tiny-race", f"die-{n % 6 + 1}")
    browser = signed_in(service)
    status, _, archive = browser.request("GET", "/setup/backup.zip")
    assert status == 200
    assert MAX_BODY_BYTES < len(archive) < MAX_RESTORE_BYTES
    assert browser.upload("/setup/restore", archive) == 303
    assert "Backup checked and ready" in browser.flash()
    assert set(service.restore_pending()) == {"trackside.sqlite3", "trackside.toml"}
    assert not leftovers(data / "db")
    csrf = browser.csrf()
    assert browser.post_form("/setup/restore/cancel", {"csrf": csrf}) == 303
    assert service.restore_pending() == ()
    assert not list(data.rglob("*.restore")) and not list(data.rglob("*.restore-plan.json"))


def test_bodies_over_the_restore_s_bound_or_big_bodies_elsewhere_are_refused_unread(
    table: tuple[Trackside, Path],
) -> None:
    service, _ = table
    browser = signed_in(service)
    headers = {"Content-Type": "application/octet-stream"}
    # the server answers from the header alone: the body is never sent
    status, _, _ = browser.request(
        "POST", "/setup/restore", b"", {**headers, "Content-Length": str(MAX_RESTORE_BYTES + 1)}
    )
    assert status == 413
    status, _, _ = browser.request("POST", "/setup/config", b"x" * (MAX_BODY_BYTES + 1), headers)
    assert status == 413


def zipped(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return buffer.getvalue()


MANIFEST = json.dumps({"format": "trackside-backup", "version": 1}).encode()


@pytest.mark.parametrize(
    ("members", "says"),
    [
        ({"manifest.json": MANIFEST, "../../etc/passwd": b"x"}, "'../../etc/passwd', which is no"),
        # 2 MB of zeros pack to a few KB: the bound is on what comes out, checked while reading
        ({"manifest.json": MANIFEST, "calibration.json": bytes(2**21)}, "over 1024 KB unpacked"),
        ({"trackside.sqlite3": b"x"}, "no readable manifest.json"),
        ({"manifest.json": b'{"format": "trackside-backup", "version": 9}'}, "format version"),
        ({"manifest.json": MANIFEST}, "no trackside.sqlite3"),
    ],
)
def test_an_archive_is_read_within_its_bounds_and_names(
    tmp_path: Path, members: dict[str, bytes], says: str
) -> None:
    settings = settings_for_run(install(tmp_path / "t", camera=False))
    with pytest.raises(RestoreRefusedError, match=re.escape(says)):
        stage_restore(zipped(members), settings)
    assert not list((tmp_path / "t").rglob("*.restore"))
    assert not list((tmp_path / "t").rglob(".restore-*"))


def test_an_encrypted_archive_is_refused_not_raised(tmp_path: Path) -> None:
    data = bytearray(zipped({"manifest.json": MANIFEST, "trackside.sqlite3": b"x"}))
    for signature, flag_at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):  # local, central
        at = data.find(signature)
        while at >= 0:
            data[at + flag_at] |= 1  # "encrypted"
            at = data.find(signature, at + 4)
    settings = settings_for_run(install(tmp_path / "t", camera=False))
    with pytest.raises(RestoreRefusedError, match="is damaged"):
        stage_restore(bytes(data), settings)


@pytest.mark.parametrize(
    ("calibration", "says"),
    [
        (b"not json", "calibration.json: not JSON"),
        (b"\xff\xfe", "calibration.json: not UTF-8 text: byte 0 is 0xff"),
        (b'{"x": 1}', "calibration.json.format: expected 1"),
    ],
)
def test_a_calibration_the_camera_would_not_load_is_refused(
    tmp_path: Path, calibration: bytes, says: str
) -> None:
    data = tmp_path / "t"
    settings = settings_for_run(install(data))
    members = {
        "manifest.json": MANIFEST,
        "trackside.sqlite3": database_with(data, ""),
        "calibration.json": calibration,
    }
    with pytest.raises(RestoreRefusedError, match=re.escape(says)):
        stage_restore(zipped(members), settings)
    assert not list(data.rglob("*.restore")) and not list(data.rglob(".restore-*"))
