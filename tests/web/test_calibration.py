"""The camera's calibration step on the table page (/table/camera), against a running Trackside
whose camera replays synthetic table scenes: the PIN, the still, shots (nine cards at once, or
three shots of three cards in a reveal area sized for the tunnel), the result, refusals that
change nothing, start over, two browsers, back to the default palette; in Chromium at TV and
phone size."""

from __future__ import annotations

import json
import os
import re
import time
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest
from flask.testing import FlaskClient
from playwright.sync_api import Browser, Page, expect

from companion.service.config import parse_settings
from companion.service.runtime import Trackside
from vision.calibrate import CALIBRATION_ORDER
from vision.cards import read_train_cards
from vision.palette import DEFAULT_PALETTE, load_palette
from vision.synthetic import SceneSpec, render_scene, seen_at_a_slant

from .conftest import ARTIFACTS, PIN

# A printing whose orange is redder and whose red is darker than the default palette assumes,
# under a warm bulb: what calibration is for (the default palette reads this orange as red).
OTHER_PRINTING = (("orange", (215, 75, 35)), ("red", (165, 25, 50)))
REVEAL_AREA = [0.0, 0.2, 1.0, 0.6]
# A reveal area sized for the three tunnel cards: 480 × 432 px of a 1280 × 720 frame (from
# x 400, y 144); nine cards do not fit in it side by side.
TUNNEL_AREA = [0.3125, 0.2, 0.375, 0.6]


# Cards in a row on wood under a warm bulb, in the other printing: every scene below.
CARD_ROW = SceneSpec(
    width=1280,
    height=720,
    background="wood",
    light="warm",
    layout="row",
    rotation_deg=5,
    card_width_px=100,
    inks=OTHER_PRINTING,
)


def scene(cards: tuple[str, ...], seed: int) -> np.ndarray:
    return render_scene(replace(CARD_ROW, cards=cards, seed=seed)).image


def tunnel_area_view(cards: tuple[str, ...], seed: int) -> np.ndarray:
    """A 1280 × 720 frame of the table (wood, warm bulb) with ``cards`` in a row inside the
    tunnel-sized reveal area (the same physical cards each time: no print jitter)."""
    table = render_scene(
        SceneSpec(width=1280, height=720, background="wood", light="warm", seed=99)
    ).image
    area = replace(CARD_ROW, width=480, height=432, cards=cards, print_jitter=0.0, seed=seed)
    table[144:576, 400:880] = render_scene(area).image
    return table


def frames(folder: Path, image: np.ndarray, count: int = 3) -> Path:
    folder.mkdir(parents=True)
    for index in range(count):
        cv2.imwrite(str(folder / f"frame{index:04d}.png"), image)
    return folder


def running(
    data_dir: Path, folder: Path, *, loop: bool = False, area: list[float] = REVEAL_AREA
) -> Trackside:
    """A Trackside whose camera "overhead" has played ``folder`` (its last frames are kept),
    or plays it in a loop (``loop``: the folder is listed again at each pass)."""
    camera_options: dict[str, object] = {
        "name": "overhead",
        "source": f"replay:{folder}",
        "fps_max": 10 if loop else 50,
        "reveal_area": area,
    }
    if loop:
        camera_options["loop"] = True
    settings = parse_settings(
        {"web": {"host": "127.0.0.1", "port": 0, "pin": PIN}, "camera": camera_options},
        data_dir=data_dir,
    )
    service = Trackside(settings)
    service.start()
    deadline = time.monotonic() + 30
    camera = service.camera_calibration
    assert camera is not None
    while not (camera.camera.has_frame() if loop else camera.overview().status.finished):
        assert time.monotonic() < deadline, "no picture from the replay"
        time.sleep(0.02)
    return service


def show(service: Trackside, folder: Path, image: np.ndarray) -> None:
    """Lay other cards: replace the looping replay's only image (written under a name that is
    no image, then renamed: never read half-written) and wait until the camera's last three
    frames show it."""
    ok, encoded = cv2.imencode(".png", image)
    assert ok
    (folder / "view.png.part").write_bytes(encoded.tobytes())
    os.replace(folder / "view.png.part", folder / "view.png")
    desk = service.camera_calibration
    assert desk is not None
    deadline = time.monotonic() + 30
    while True:
        recent = desk.camera.recent_frames(3)
        if len(recent) == 3 and all(np.array_equal(f, image) for f in recent):
            return
        assert time.monotonic() < deadline, "the camera does not show the new cards"
        time.sleep(0.05)


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
        assert stranger.get("/table/camera/collected/0.jpg").status_code == 403
        for form in ("shot", "start-over", "default"):
            assert stranger.post(f"/table/camera/{form}", data={}).status_code == 400  # no CSRF
        token = csrf(stranger.get("/table").get_data(as_text=True))
        for form in ("shot", "start-over", "default"):
            response = stranger.post(
                f"/table/camera/{form}", data={"csrf": token, "collected": "0"}
            )
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
        assert client.get("/table/camera/collected/0.jpg").status_code == 404  # no shot yet
        # The form's count of collected cards is checked: a bad one is named.
        token = csrf(client.get("/table/camera").get_data(as_text=True))
        for bad in ("three", "³", "10", ""):
            client.post("/table/camera/shot", data={"csrf": token, "collected": bad})
            page = client.get("/table/camera").get_data(as_text=True)
            assert "Shot not taken — collected: expected the number of cards the page" in page
        assert service.camera_calibration is not None
        assert service.camera_calibration.collection().collected == ()
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
    response = client.post("/table/camera/shot", data={"csrf": token, "collected": "0"})
    assert response.status_code == 303
    assert "Shot not taken — no camera is configured." in client.get("/table/camera").get_data(
        as_text=True
    )
    client.post("/table/camera/start-over", data={"csrf": token})
    assert "No camera is configured." in client.get("/table/camera").get_data(as_text=True)
    assert client.get("/table/camera/still.jpg").status_code == 404
    assert client.get("/table/camera/collected/0.jpg").status_code == 404


def test_a_file_that_cannot_be_written_is_a_message_and_the_palette_stays(tmp_path: Path) -> None:
    service = running(tmp_path, frames(tmp_path / "nine", scene(CALIBRATION_ORDER, 7)))
    try:
        (tmp_path / "calibration").write_text("a file where the folder should be")
        client = signed_in(service)
        token = csrf(client.get("/table/camera").get_data(as_text=True))
        client.post("/table/camera/shot", data={"csrf": token, "collected": "0"})
        page = client.get("/table/camera").get_data(as_text=True)
        assert "Not calibrated — cannot write" in page
        assert "The last shot was not kept; the palette in use is unchanged." in page
        assert service.devices["overhead"].status().palette == "default"
    finally:
        service.stop()


def test_shots_on_the_page_and_what_it_says_when_they_were_dropped(tmp_path: Path) -> None:
    view = tunnel_area_view(CALIBRATION_ORDER[:3], 1)
    service = running(tmp_path, frames(tmp_path / "three", view), area=TUNNEL_AREA)
    try:
        client = signed_in(service)
        token = csrf(client.get("/table/camera").get_data(as_text=True))
        client.post("/table/camera/shot", data={"csrf": token, "collected": "0"})
        page = client.get("/table/camera").get_data(as_text=True)
        assert "Shot 1 kept: 1 purple, 2 white, 3 blue." in page
        assert '<input type="hidden" name="collected" value="3">' in page
        crop = client.get("/table/camera/collected/2.jpg")
        assert crop.status_code == 200 and crop.mimetype == "image/jpeg"
        assert client.get("/table/camera/collected/3.jpg").status_code == 404
        # The shots outlive their time (as if ten minutes had passed): the page says so once.
        desk = service.camera_calibration
        assert desk is not None
        desk.shots_kept_s = 0.0
        page = client.get("/table/camera").get_data(as_text=True)
        assert "The 1 shot taken earlier (3 cards) was dropped: the first was taken more" in page
        assert "Next shot: <b>1 purple, 2 white" in page and 'id="collected"' not in page
        assert client.get("/table/camera/collected/0.jpg").status_code == 404
        desk.shots_kept_s = 600.0
        client.post("/table/camera/shot", data={"csrf": token, "collected": "0"})
        client.post("/table/camera/start-over", data={"csrf": token})
        page = client.get("/table/camera").get_data(as_text=True)
        assert "Started over: the 3 cards collected were dropped." in page
        assert "was dropped" not in page and desk.collection().collected == ()
        assert not Path(service.camera_calibration_path()).exists()
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
def test_one_shot_of_nine_from_the_table_page_then_a_refusal_then_the_default_again(
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

        expect(page.locator("#progress")).to_have_text(
            "Next shot: 1 purple, 2 white, 3 blue, 4 yellow, 5 orange, 6 black, 7 red, 8 green, "
            "9 locomotive — or the first few of them."
        )
        assert page.locator("#calibrate").get_by_role("button", name="Start over").count() == 0
        started = time.perf_counter()
        page.get_by_role("button", name="Take shot").click()
        expect(page.locator(".flash.ok")).to_contain_text("Calibrated: 9 colours measured")
        took_s = time.perf_counter() - started
        names = [f"{i}. {colour}" for i, colour in enumerate(CALIBRATION_ORDER, start=1)]
        expect(page.locator("#result .sample .name")).to_have_text(names)
        expect(page.locator("#result")).to_contain_text(
            f"Saved to {path} · measured in 1 shot, each the median of the last 3 frames."
        )
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

    # The next start: the file is read at start; a shot of ten cards is refused.
    ten = scene((*CALIBRATION_ORDER, "red"), 8)
    service = running(tmp_path, frames(tmp_path / "ten", ten))
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    try:
        page = context.new_page()
        base = f"http://127.0.0.1:{service.web_port}"
        sign_in(page, base)
        page.goto(f"{base}/table/camera")
        expect(page.locator("#palette")).to_have_text("calibrated (“overhead”)")
        page.get_by_role("button", name="Take shot").click()
        refusal = page.locator(".flash.error")
        expect(refusal).to_have_text(
            "Shot not taken — found 10 cards in the outlined area of camera 'overhead', but there "
            "are only 9 colours (1 purple, 2 white, 3 blue, 4 yellow, 5 orange, 6 black, 7 red, "
            "8 green, 9 locomotive): lay just those, left to right, one of each colour. Nothing "
            "changed."
        )
        expect(page.locator("#palette")).to_have_text("calibrated (“overhead”)")
        assert page.locator("#result").count() == 0 and page.locator("#collected").count() == 0
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
def test_three_shots_of_three_cards_in_a_tunnel_sized_area_calibrate_the_camera(
    tmp_path: Path, browser: Browser
) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    path = tmp_path / "calibration" / "overhead.json"
    folder = tmp_path / "table"
    folder.mkdir()
    cv2.imwrite(str(folder / "view.png"), tunnel_area_view(CALIBRATION_ORDER[:3], 1))
    service = running(tmp_path, folder, loop=True, area=TUNNEL_AREA)
    tablet = browser.new_context(viewport={"width": 1920, "height": 1080})
    phone = browser.new_context(viewport={"width": 360, "height": 740})
    took: dict[str, float] = {}

    def take_shot(page: Page, name: str) -> None:
        started = time.perf_counter()
        with page.expect_navigation(wait_until="load"):  # the page after the redirect
            page.get_by_role("button", name="Take shot").click()
        took[name] = time.perf_counter() - started

    try:
        page = tablet.new_page()
        base = f"http://127.0.0.1:{service.web_port}"
        sign_in(page, base)
        page.goto(f"{base}/table/camera")
        other = phone.new_page()
        sign_in(other, base)
        other.goto(f"{base}/table/camera")  # a second browser, showing no shot yet

        # Shot 1: purple, white, blue in the box.
        take_shot(page, "shot 1")
        expect(page.locator(".flash.ok")).to_have_text(
            "Shot 1 kept: 1 purple, 2 white, 3 blue. Next: 4 yellow, 5 orange, 6 black, 7 red, "
            "8 green, 9 locomotive — lay them (or the first few) left to right in place of these "
            "and take the next shot."
        )
        expect(page.locator("#progress")).to_have_text(
            "3 of 9 collected in 1 shot. Next shot: 4 yellow, 5 orange, 6 black, 7 red, 8 green, "
            "9 locomotive — or the first few of them."
        )
        expect(page.locator(".order li.done")).to_have_text(["1 purple ✓", "2 white ✓", "3 blue ✓"])
        expect(page.locator(".order li.next")).to_have_text("4 yellow")
        expect(page.locator("#collected .name")).to_have_text(["1. purple", "2. white", "3. blue"])
        assert pictures_loaded(page, "#collected img") == [88] * 3
        assert not path.exists()
        shoot(page, "camera-shot-1")

        # The second browser still shows no shot: its Take shot is refused, nothing changes.
        other.get_by_role("button", name="Take shot").click()
        expect(other.locator(".flash.error")).to_have_text(
            "Shot not taken — the shots changed since this page was shown (another browser, or a "
            "second click): 3 of 9 cards are collected now; look at the page again before the "
            "next shot. Nothing changed."
        )
        expect(other.locator("#progress")).to_contain_text("3 of 9 collected in 1 shot")
        no_sideways_scrolling(other)

        # Start over, and the same three again.
        page.reload()
        page.get_by_role("button", name="Start over").click()
        expect(page.locator(".flash.ok")).to_have_text(
            "Started over: the 3 cards collected were dropped. The next shot starts with 1 purple."
        )
        expect(page.locator("#progress")).to_contain_text("Next shot: 1 purple, 2 white")
        assert page.locator("#collected").count() == 0
        take_shot(page, "shot 1 again")
        expect(page.locator(".flash.ok")).to_contain_text("Shot 1 kept: 1 purple, 2 white, 3 blue.")

        # Shot 2: yellow, orange, black.
        show(service, folder, tunnel_area_view(CALIBRATION_ORDER[3:6], 2))
        page.reload()
        take_shot(page, "shot 2")
        expect(page.locator(".flash.ok")).to_contain_text(
            "Shot 2 kept: 4 yellow, 5 orange, 6 black. Next: 7 red, 8 green, 9 locomotive"
        )
        expect(page.locator("#collected .name")).to_have_text(
            [f"{i}. {c}" for i, c in enumerate(CALIBRATION_ORDER[:6], start=1)]
        )

        # Four cards where three are missing: refused, nothing changes.
        show(service, folder, tunnel_area_view((*CALIBRATION_ORDER[6:], "red"), 3))
        page.reload()
        take_shot(page, "refused")
        expect(page.locator(".flash.error")).to_have_text(
            "Shot not taken — found 4 cards in the outlined area of camera 'overhead', but only 3 "
            "are still missing (7 red, 8 green, 9 locomotive): lay just those, left to right, one "
            "of each colour. Nothing changed."
        )
        expect(page.locator("#progress")).to_contain_text("6 of 9 collected in 2 shots")
        shoot(page, "camera-shot-refused")

        # Shot 3: red, green, locomotive: the nine are there, the camera is calibrated.
        show(service, folder, tunnel_area_view(CALIBRATION_ORDER[6:], 4))
        page.reload()
        expect(page.locator("#palette")).to_have_text("the default palette")
        take_shot(page, "shot 3 and calibration")
        expect(page.locator(".flash.ok")).to_have_text(
            f"Calibrated from 3 shots: 9 colours measured, saved to {path}; the camera reads "
            "cards with them now."
        )
        expect(page.locator("#result .sample .name")).to_have_text(
            [f"{i}. {colour}" for i, colour in enumerate(CALIBRATION_ORDER, start=1)]
        )
        expect(page.locator("#result")).to_contain_text(
            f"Saved to {path} · measured in 3 shots, each the median of the last 3 frames."
        )
        assert pictures_loaded(page, "#result .sample img") == [88] * 9
        expect(page.locator("#palette")).to_have_text("calibrated (“overhead”)")
        expect(page.locator("#progress")).to_contain_text("Next shot: 1 purple")
        assert page.locator("#collected").count() == 0
        shoot(page, "camera-shots-calibrated")

        # The file is saved and the running camera reads with it: this printing's orange,
        # which the default palette reads as red, is orange now.
        saved = load_palette(str(path))
        desk = service.camera_calibration
        assert desk is not None
        assert saved.source == "overhead" and desk.camera.palette == saved
        assert service.devices["overhead"].status().palette == "overhead"
        measured_from = json.loads(path.read_text())["measured_from"]
        assert measured_from == [
            f"the outlined area of camera 'overhead', shot {i}" for i in (1, 2, 3)
        ]
        tunnel = tunnel_area_view(("orange", "red", "orange"), 5)[144:576, 400:880]
        assert [c.colour for c in read_train_cards(tunnel, DEFAULT_PALETTE)] != [
            "orange",
            "red",
            "orange",
        ]
        assert [c.colour for c in read_train_cards(tunnel, desk.camera.palette)] == [
            "orange",
            "red",
            "orange",
        ]
    finally:
        tablet.close()
        phone.close()
        service.stop()
    for name, seconds in took.items():
        print(f"{name}: click to page {seconds * 1000:.0f} ms")


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


@pytest.mark.slow
def test_a_camera_at_a_slant_is_calibrated_from_the_table_page_which_says_so(
    tmp_path: Path, browser: Browser
) -> None:
    """A camera on a shelf beside the table, 45° from straight down: the nine cards look nearly
    square and one is found as the camera sees them. The shot finds them at the slant that
    finds the most; the calibration measures the slant, keeps it, and the page says so in the
    players' language."""
    ARTIFACTS.mkdir(exist_ok=True)
    nine = seen_at_a_slant(render_scene(replace(CARD_ROW, cards=CALIBRATION_ORDER, seed=7)), 45)
    assert len(read_train_cards(nine.image)) < len(CALIBRATION_ORDER)
    service = running(tmp_path, frames(tmp_path / "nine", nine.image))
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    try:
        page = context.new_page()
        base = f"http://127.0.0.1:{service.web_port}"
        sign_in(page, base)
        page.goto(f"{base}/table/camera")
        page.get_by_role("button", name="Take shot").click()
        expect(page.locator(".flash.ok")).to_contain_text("Calibrated: 9 colours measured")
        expect(page.locator(".flash.info[role=status]")).to_contain_text(
            "The camera looks at the table at a slant: Trackside allows for it when it finds "
            "cards (the table's depth ×1.40)."
        )
        names = [f"{i}. {colour}" for i, colour in enumerate(CALIBRATION_ORDER, start=1)]
        expect(page.locator("#result .sample .name")).to_have_text(names)
        shoot(page, "camera-calibrated-at-a-slant")
        saved = load_palette(str(tmp_path / "calibration" / "overhead.json"))
        assert saved.view == pytest.approx(1.4)
        assert service.devices["overhead"].status().palette == "overhead"

        # The same sentence for a Czech table (a second calibration: the shots start afresh).
        client = signed_in(service)
        czech = {"Accept-Language": "cs"}
        token = csrf(client.get("/table/camera", headers=czech).get_data(as_text=True))
        client.post("/table/camera/shot", data={"csrf": token, "collected": "0"}, headers=czech)
        said = client.get("/table/camera", headers=czech).get_data(as_text=True)
        assert "Kamera míří na stůl šikmo" in said and "×1,40" in said
    finally:
        context.close()
        service.stop()
