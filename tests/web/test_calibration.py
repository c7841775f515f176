"""The camera's calibration step on the table page (/table/camera), against a running Trackside
whose camera replays synthetic table scenes: the PIN, the still, Calibrate, the result, a
refusal that changes nothing, back to the default palette; in Chromium at TV and phone size."""

from __future__ import annotations

import re
import time
from pathlib import Path

import cv2
import numpy as np
import pytest
from flask.testing import FlaskClient
from playwright.sync_api import Browser, Page, expect

from companion.service.config import parse_settings
from companion.service.runtime import Trackside
from vision.calibrate import CALIBRATION_ORDER
from vision.palette import DEFAULT_PALETTE, load_palette
from vision.synthetic import SceneSpec, render_scene

from .conftest import ARTIFACTS, PIN

# A printing whose orange is redder and whose red is darker than the default palette assumes,
# under a warm bulb: what calibration is for (the default palette reads this orange as red).
OTHER_PRINTING = (("orange", (215, 75, 35)), ("red", (165, 25, 50)))
REVEAL_AREA = [0.0, 0.2, 1.0, 0.6]


def scene(cards: tuple[str, ...], seed: int) -> np.ndarray:
    spec = SceneSpec(
        width=1280,
        height=720,
        background="wood",
        light="warm",
        cards=cards,
        layout="row",
        rotation_deg=5,
        card_width_px=100,
        inks=OTHER_PRINTING,
        seed=seed,
    )
    return render_scene(spec).image


def frames(folder: Path, image: np.ndarray, count: int = 3) -> Path:
    folder.mkdir(parents=True)
    for index in range(count):
        cv2.imwrite(str(folder / f"frame{index:04d}.png"), image)
    return folder


def running(data_dir: Path, folder: Path) -> Trackside:
    """A Trackside whose camera "overhead" has played ``folder`` (its last frames are kept)."""
    settings = parse_settings(
        {
            "web": {"host": "127.0.0.1", "port": 0, "pin": PIN},
            "camera": {
                "name": "overhead",
                "source": f"replay:{folder}",
                "fps_max": 50,
                "reveal_area": REVEAL_AREA,
            },
        },
        data_dir=data_dir,
    )
    service = Trackside(settings)
    service.start()
    deadline = time.monotonic() + 30
    camera = service.camera_calibration
    assert camera is not None
    while not camera.overview().status.finished:
        assert time.monotonic() < deadline, "the replay did not finish"
        time.sleep(0.02)
    return service


def csrf(page: str) -> str:
    match = re.search(r'name="csrf" value="([^"]+)"', page)
    assert match, page
    return match.group(1)


def signed_in(service: Trackside) -> FlaskClient:
    client = service.app.test_client()
    token = csrf(client.get("/table").get_data(as_text=True))
    assert client.post("/table/login", data={"csrf": token, "pin": PIN}).status_code == 303
    return client


def test_the_camera_page_and_its_pictures_need_the_pin(tmp_path: Path) -> None:
    service = running(tmp_path, frames(tmp_path / "nine", scene(CALIBRATION_ORDER, 7)))
    try:
        stranger = service.app.test_client()
        response = stranger.get("/table/camera")
        assert response.status_code == 303 and response.location.endswith("/table")
        assert stranger.get("/table/camera/still.jpg").status_code == 403
        assert stranger.get("/table/camera/sample/0.jpg").status_code == 403
        assert stranger.post("/table/camera/calibrate", data={}).status_code == 400  # no CSRF
        token = csrf(stranger.get("/table").get_data(as_text=True))
        response = stranger.post("/table/camera/calibrate", data={"csrf": token})
        assert response.status_code == 303
        assert "Enter the table PIN first" in stranger.get("/table").get_data(as_text=True)
        assert not Path(service.camera_calibration_path()).exists()
        client = signed_in(service)
        still = client.get("/table/camera/still.jpg")
        assert still.status_code == 200 and still.mimetype == "image/jpeg"
        assert "no-store" in still.headers["Cache-Control"]
        picture = cv2.imdecode(np.frombuffer(still.data, np.uint8), cv2.IMREAD_COLOR)
        assert picture.shape == (540, 960, 3)
        assert client.get("/table/camera/sample/0.jpg").status_code == 404  # not calibrated yet
    finally:
        service.stop()


def test_without_a_camera_the_page_says_so_and_shows_the_command(
    service: Trackside, tmp_path: Path
) -> None:
    client = signed_in(service)
    assert 'id="camera"' not in client.get("/table").get_data(as_text=True)  # no camera panel
    page = client.get("/table/camera").get_data(as_text=True)
    assert "No camera is configured" in page
    command = (
        "trackside vision calibrate nine.jpg --camera camera --output "
        f"{tmp_path / 'calibration' / 'camera.json'}"
    )
    assert command in page
    token = csrf(client.get("/table").get_data(as_text=True))  # the page itself has no form
    response = client.post("/table/camera/calibrate", data={"csrf": token})
    assert response.status_code == 303
    assert "Not calibrated — no camera is configured." in client.get("/table/camera").get_data(
        as_text=True
    )
    assert client.get("/table/camera/still.jpg").status_code == 404


def test_a_file_that_cannot_be_written_is_a_message_and_the_palette_stays(tmp_path: Path) -> None:
    service = running(tmp_path, frames(tmp_path / "nine", scene(CALIBRATION_ORDER, 7)))
    try:
        (tmp_path / "calibration").write_text("a file where the folder should be")
        client = signed_in(service)
        token = csrf(client.get("/table/camera").get_data(as_text=True))
        client.post("/table/camera/calibrate", data={"csrf": token})
        page = client.get("/table/camera").get_data(as_text=True)
        assert "Not calibrated — cannot write" in page and "The palette in use is unchanged" in page
        assert service.devices["overhead"].status().palette == "default"
    finally:
        service.stop()


def sign_in(page: Page, base: str) -> None:
    page.goto(f"{base}/table")
    page.fill("input[name=pin]", PIN)
    page.fill("input[name=who]", "Dana")
    page.click("form button[type=submit]")
    expect(page.locator(".who")).to_contain_text("Signed in")


def no_sideways_scrolling(page: Page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= 360


def shoot(page: Page, name: str) -> None:
    """A full-page screenshot at TV size and at phone size (no sideways scrolling there)."""
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.wait_for_function("[...document.images].every(i => i.complete)")
    page.screenshot(path=str(ARTIFACTS / f"{name}-1920x1080.png"), full_page=True)
    page.set_viewport_size({"width": 360, "height": 740})
    no_sideways_scrolling(page)
    page.screenshot(path=str(ARTIFACTS / f"{name}-360x740.png"), full_page=True)
    page.set_viewport_size({"width": 1920, "height": 1080})


def pictures_loaded(page: Page, selector: str) -> list[int]:
    page.wait_for_function(f"[...document.querySelectorAll({selector!r})].every(i => i.complete)")
    widths: list[int] = page.eval_on_selector_all(selector, "all => all.map(i => i.naturalWidth)")
    return widths


@pytest.mark.slow
def test_calibrating_from_the_table_page_then_a_refusal_then_the_default_again(
    tmp_path: Path, browser: Browser
) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    path = tmp_path / "calibration" / "overhead.json"

    # Game night, first start: the nine cards lie in a row under a warm bulb.
    service = running(tmp_path, frames(tmp_path / "nine", scene(CALIBRATION_ORDER, 7)))
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    try:
        page = context.new_page()
        base = f"http://127.0.0.1:{service.web_port}"
        sign_in(page, base)
        panel = page.locator("#camera")
        expect(panel).to_contain_text("overhead")
        expect(panel).to_contain_text("default colours")
        shoot(page, "table-camera-link")
        panel.get_by_role("link", name="Calibrate the camera").click()
        expect(page.locator("h1")).to_have_text("Camera “overhead”")
        expect(page.locator("#palette")).to_have_text("the default palette")
        expect(page.locator(".order li")).to_have_text(
            [f"{i} {c}" for i, c in enumerate(CALIBRATION_ORDER, start=1)]
        )
        assert pictures_loaded(page, "img.still") == [960]
        shoot(page, "camera-before")

        started = time.perf_counter()
        page.get_by_role("button", name="Calibrate", exact=True).click()
        expect(page.locator(".flash.ok")).to_contain_text("Calibrated: 9 colours measured")
        took_s = time.perf_counter() - started
        names = [f"{i}. {colour}" for i, colour in enumerate(CALIBRATION_ORDER, start=1)]
        expect(page.locator("#result .sample .name")).to_have_text(names)
        expect(page.locator("#result")).to_contain_text(f"Saved to {path}")
        # The default palette reads this printing's orange as red: the page says so.
        expect(page.locator("#result .warning").first).to_contain_text(
            "card 5 ('orange' by its place) looks 'red'"
        )
        assert pictures_loaded(page, "#result .sample img") == [88] * 9
        swatch = page.locator("#result .swatch.yellow").get_attribute("style") or ""
        assert re.fullmatch(r"background: #[0-9a-f]{6}", swatch), swatch
        expect(page.locator("#palette")).to_have_text("calibrated (“overhead”)")
        shoot(page, "camera-calibrated")
        print(f"calibration from the page, click to result: {took_s * 1000:.0f} ms")

        # The file is there, valid, and the running camera reads with it.
        saved = load_palette(str(path))
        assert saved.source == "overhead" and saved != DEFAULT_PALETTE
        camera = service.devices["overhead"]
        assert camera.status().palette == "overhead"
        assert service.camera_calibration is not None
        assert service.camera_calibration.camera.palette == saved
        page.goto(f"{base}/table")
        expect(page.locator("#camera")).to_contain_text("calibrated colours")
    finally:
        context.close()
        service.stop()
    before = path.read_bytes()

    # The next start: the file is read at start; a table with only five cards is refused.
    five = scene(CALIBRATION_ORDER[:5], 8)
    service = running(tmp_path, frames(tmp_path / "five", five))
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    try:
        page = context.new_page()
        base = f"http://127.0.0.1:{service.web_port}"
        sign_in(page, base)
        page.goto(f"{base}/table/camera")
        expect(page.locator("#palette")).to_have_text("calibrated (“overhead”)")
        page.get_by_role("button", name="Calibrate", exact=True).click()
        refusal = page.locator(".flash.error")
        expect(refusal).to_contain_text(
            "Not calibrated — found 5 cards in the outlined area of camera 'overhead'; lay out "
            "exactly 9"
        )
        expect(refusal).to_contain_text("The palette in use is unchanged.")
        expect(page.locator("#palette")).to_have_text("calibrated (“overhead”)")
        assert page.locator("#result").count() == 0
        shoot(page, "camera-refused")
        assert path.read_bytes() == before
        assert service.devices["overhead"].status().palette == "overhead"

        # Back to the default palette: now, and in the file read at the next start.
        page.get_by_role("button", name="Use the default palette").click()
        expect(page.locator(".flash.ok")).to_contain_text("uses the default palette again")
        expect(page.locator("#palette")).to_have_text("the default palette")
        assert load_palette(str(path)) == DEFAULT_PALETTE
        assert service.devices["overhead"].status().palette == "default"
    finally:
        context.close()
        service.stop()


@pytest.mark.slow
def test_the_page_without_a_camera_at_tv_and_phone_size(
    service: Trackside, browser: Browser
) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    try:
        page = context.new_page()
        base = f"http://127.0.0.1:{service.web_port}"
        sign_in(page, base)
        page.goto(f"{base}/table/camera")
        expect(page.locator("#no-camera")).to_contain_text("No camera is configured")
        expect(page.locator("#no-camera .command")).to_contain_text("trackside vision calibrate")
        shoot(page, "camera-none")
    finally:
        context.close()
