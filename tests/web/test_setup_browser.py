"""The setup page in a real browser (Debian's Chromium) against a running service with a real
config file and SQLite database: tap-to-enrol, export / remove / import the registry, a config
change refused naming the option and a good one saved, a backup downloaded and restored (put in
place by the next start), and screenshots at TV and phone size."""

from __future__ import annotations

import json
import sqlite3
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from companion.service.cli import settings_for_run
from companion.service.runtime import Trackside

from .conftest import ARTIFACTS, PIN

CONFIG = f"""
[web]
host = "127.0.0.1"
port = 0
pin = "{PIN}"

[[readers]]
name = "red-seat"
protocol = "virtual"
seat = 1

[[readers]]
name = "blue-seat"
protocol = "rdm6300"
port = "/dev/serial/by-id/usb-FTDI_FT232R_A10K3XYZ-if00-port0"
seat = 2
"""
PORT = {
    "device": "/dev/ttyUSB7",
    "vid_pid": "0403:6001",
    "description": "FT232R USB UART",
    "serial_number": "A10K3XYZ",
    "by_id": ("/dev/serial/by-id/usb-FTDI_FT232R_A10K3XYZ-if00-port0",),
    "by_path": ("/dev/serial/by-path/platform-fd500000.pcie-usb-0:1.2:1.0-port0",),
}
UID = "04AABBCCDD11"


def start(tmp_path: Path) -> Trackside:
    config = tmp_path / "config" / "trackside.toml"
    settings = settings_for_run(config)  # what `trackside run` does: a restore goes in first
    svc = Trackside(settings)
    svc.start()
    return svc


@pytest.fixture
def setup_service(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Trackside]:
    # a USB-serial adapter as udev names it (this machine has none plugged in)
    monkeypatch.setattr(Trackside, "serial_ports", lambda self: [dict(PORT)])
    log = tmp_path / "trackside.log"
    log.write_text("".join(f"2026-11-23 20:00:{i:02d} INFO line {i}\n" for i in range(300)))
    monkeypatch.setenv("TRACKSIDE_LOG_FILE", str(log))
    config = tmp_path / "config" / "trackside.toml"
    config.parent.mkdir(parents=True)
    config.write_text(CONFIG + f'\n[database]\npath = "{tmp_path / "trackside.sqlite3"}"\n')
    svc = start(tmp_path)
    yield svc
    svc.stop()


def shoot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    for width, height in ((1920, 1080), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.screenshot(path=str(ARTIFACTS / f"{name}-{width}x{height}.png"), full_page=True)
        assert page.evaluate("document.documentElement.scrollWidth") <= width, (name, width)
    page.set_viewport_size({"width": 1920, "height": 1080})


def sign_in(page: Page, base: str) -> None:
    page.goto(f"{base}/table")
    page.fill("input[name=pin]", PIN)
    page.fill("input[name=who]", "Ann")
    page.click("main form button[type=submit]")
    expect(page.locator(".who")).to_contain_text("Signed in as Ann")


@pytest.mark.slow
def test_setup_page_enrol_registry_config_and_backup(
    setup_service: Trackside, browser: Browser, tmp_path: Path
) -> None:
    svc = setup_service
    base = f"http://127.0.0.1:{svc.web_port}"
    context = browser.new_context(accept_downloads=True)
    page = context.new_page()
    # without the PIN the page sends you to sign in
    page.goto(f"{base}/setup")
    expect(page.locator("input[name=pin]")).to_be_visible()
    sign_in(page, base)

    # tap to enrol: an unknown tag held on the seat reader shows up to be bound
    svc.scan("red-seat", UID)
    svc.wait_idle()
    page.goto(f"{base}/setup")
    expect(page.locator("#readers")).to_contain_text("red-seat")
    # the log's last lines, newest at the bottom
    expect(page.locator("#log pre")).to_contain_text("INFO line 299")
    assert "INFO line 99\n" not in page.locator("#log pre").inner_text()
    # the configured port is matched to the adapter found, by its by-id name; the reader that
    # cannot open its port says why
    expect(page.locator("#readers .ports")).to_contain_text("used by blue-seat")
    expect(page.locator("#readers tr").filter(has_text="blue-seat")).to_contain_text(
        "/dev/serial/by-id"
    )
    form = page.locator("form.enrol").filter(has_text=UID)
    form.locator("select[name=component]").select_option(index=1)
    chosen = form.locator("select[name=component]").input_value()
    form.locator("button").click()
    expect(page.locator(".flash.ok")).to_contain_text(UID)
    expect(page.locator("#registry")).to_contain_text(UID)
    game, component = chosen.split("|")
    assert svc.store.tag(UID) is not None and svc.store.tag(UID).component == component
    shoot(page, "setup")

    # export the registry
    with page.expect_download() as download:
        page.click("text=Export tags file")
    exported = tmp_path / "tags.json"
    download.value.save_as(exported)
    document = json.loads(exported.read_text())
    assert document["tags"] == [{"uid": UID, "game": game, "component": component}]

    # remove it, with the reason kept in the input log
    row = page.locator("#registry tr").filter(has_text=UID)
    row.locator("input[name=reason]").fill("sticker peeled off")
    row.locator("button").click()
    expect(page.locator(".flash.ok")).to_contain_text("sticker peeled off")
    assert svc.store.tag(UID) is None
    assert any(i["payload"].get("reason") == "sticker peeled off" for i in svc.store.inputs(20))

    # and import it back
    page.set_input_files("#tags form.inline input[type=file]", str(exported))
    page.click("#tags form.inline button")
    expect(page.locator(".flash.ok")).to_contain_text("1 enrolled")
    assert svc.store.tag(UID) is not None

    # config: a bad value is refused naming the option, the file untouched; a good one saved
    config_file = Path(svc.settings.source)
    before = config_file.read_text()
    page.goto(f"{base}/setup#config")
    page.fill("textarea[name=config]", before.replace("seat = 1", "seat = 0"))
    page.click("#config button")
    expect(page.locator("#config-error")).to_contain_text("readers[0].seat")
    assert config_file.read_text() == before
    shoot(page, "setup-config-refused")
    page.fill("textarea[name=config]", before.replace("seat = 1", "seat = 2"))
    page.click("#config button")
    expect(page.locator(".flash.ok")).to_contain_text("Config saved")
    assert "seat = 2" in config_file.read_text()
    assert config_file.with_name("trackside.toml.bak").read_text() == before

    # a backup downloaded now has the tag; remove the tag, restore the backup, restart
    with page.expect_download() as download:
        page.click("text=Download a backup")
    backup = tmp_path / "backup.zip"
    download.value.save_as(backup)
    database = tmp_path / "backup.sqlite3"
    database.write_bytes(zipfile.ZipFile(backup).read("trackside.sqlite3"))
    with sqlite3.connect(database) as conn:
        assert conn.execute("SELECT uid FROM tags").fetchall() == [(UID,)]
    row = page.locator("#registry tr").filter(has_text=UID)
    row.locator("input[name=reason]").fill("test")
    row.locator("button").click()
    expect(page.locator(".flash.ok")).to_contain_text("removed")
    # a file that is not a Trackside database is refused, nothing changes
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"not a database at all")
    page.set_input_files("#database input[type=file]", str(junk))
    page.click("#database form.inline button")
    expect(page.locator(".flash.error")).to_contain_text("Restore refused")
    page.set_input_files("#database input[type=file]", str(backup))
    page.click("#database form.inline button")
    expect(page.locator("#restore-pending")).to_be_visible()
    shoot(page, "setup-restore-pending")
    context.close()
    svc.stop()
    restarted = start(tmp_path)
    try:
        assert restarted.store.tag(UID) is not None  # the backup's registry is back
        assert list(tmp_path.glob("trackside.sqlite3.before-restore-*"))
    finally:
        restarted.stop()
