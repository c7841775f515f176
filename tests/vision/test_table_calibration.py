"""Calibrating a running camera: its newest frames on request, a palette swapped while it runs,
the calibration file written atomically, calibrating from in-memory frames, and the table
page's calibration step (vision.table_calibration) over a replayed camera."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.core import ConfigError, Observation, ObservationKind
from vision.calibrate import CALIBRATION_ORDER, CalibrationError, calibrate
from vision.camera import RECENT_FRAMES, Camera, CameraConfig, open_camera
from vision.capture import CaptureError
from vision.palette import (
    DEFAULT_PALETTE,
    NOMINAL_CARD_SRGB,
    ColourClass,
    Palette,
    features_to_srgb,
    load_palette,
    save_palette,
)
from vision.synthetic import SceneSpec, render_scene
from vision.table_calibration import LiveCalibration, steady_view

# A printing whose orange is redder and whose red is darker than the default palette assumes
# (as in test_see_and_calibrate): the default palette reads its orange as red.
OTHER_PRINTING = (("orange", (215, 75, 35)), ("red", (165, 25, 50)))
NINE = SceneSpec(
    cards=CALIBRATION_ORDER,
    layout="row",
    rotation_deg=5,
    light="warm",
    card_width_px=52,
    inks=OTHER_PRINTING,
    seed=11,
)


class Collected:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.items: list[Observation] = []

    def __call__(self, observation: Observation) -> None:
        with self._lock:
            self.items.append(observation)

    def readings(self) -> list[tuple[str, ...]]:
        with self._lock:
            return [
                tuple(o.payload["colours"]) for o in self.items if o.kind is ObservationKind.CARDS
            ]


def _wait(predicate: Callable[[], bool], timeout_s: float = 20.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.01)


def _replay(folder: Path, images: list[np.ndarray]) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    for index, image in enumerate(images):
        cv2.imwrite(str(folder / f"frame{index:04d}.png"), image)
    return f"replay:{folder}"


def _finished_camera(source: str, **options: object) -> Camera:
    camera = open_camera(
        CameraConfig(name="overhead", source=source, fps_max=100, **options),  # type: ignore[arg-type]
        Collected(),
    )
    camera.start()
    _wait(lambda: camera.status().finished)
    assert camera.stop()
    return camera


class LoopingCamera:
    """A live camera showing one scene forever (a new array per read, like real back ends)."""

    is_live = True
    description = "looping"

    def __init__(self, frame: np.ndarray) -> None:
        self.frame = frame
        self.reads = 0
        self.lose_at = -1

    def open(self) -> None:
        pass

    def read(self) -> np.ndarray:
        self.reads += 1
        if self.reads == self.lose_at:
            raise CaptureError("looping: unplugged")
        return self.frame.copy()

    def lock_exposure(self) -> bool:
        return True

    def close(self) -> None:
        pass


# -- the camera's newest frames --------------------------------------------------------------


def test_the_newest_frames_are_copies_handed_out_on_request(tmp_path: Path) -> None:
    scenes = [render_scene(SceneSpec(cards=("red",), seed=seed)).image for seed in range(7)]
    camera = open_camera(
        CameraConfig(name="cam", source=_replay(tmp_path / "f", scenes), fps_max=100),
        Collected(),
    )
    assert camera.latest_frame() is None and not camera.has_frame()
    assert camera.recent_frames(3) == []
    camera.start()
    _wait(lambda: camera.status().finished)
    camera.stop()
    assert camera.has_frame()
    newest = camera.latest_frame()
    assert newest is not None and np.array_equal(newest, scenes[-1])  # PNG is lossless
    newest[:] = 0  # a copy: the camera's own frame is untouched
    again = camera.latest_frame()
    assert again is not None and np.array_equal(again, scenes[-1])
    three = camera.recent_frames(3)
    assert [np.array_equal(a, b) for a, b in zip(three, scenes[-3:], strict=True)] == [True] * 3
    assert len(camera.recent_frames(100)) == RECENT_FRAMES
    with pytest.raises(ValueError, match="count"):
        camera.recent_frames(0)


def test_warm_up_frames_are_not_kept_and_a_lost_camera_forgets_what_it_saw() -> None:
    frame = render_scene(SceneSpec(cards=("blue",))).image
    fake = LoopingCamera(frame)
    config = CameraConfig(name="cam", source="v4l2:0", fps_max=50, warmup_s=1.0)
    camera = open_camera(config, Collected(), source_factory=lambda _: fake)
    camera.start()
    try:
        _wait(lambda: fake.reads >= 5)
        assert not camera.has_frame()  # warming up: exposure not locked yet
        _wait(camera.has_frame)
        fake.lose_at = fake.reads + 3
        _wait(lambda: camera.status().last_error == "looping: unplugged")
        # What it saw before the cable went is dropped; the reopened camera warms up again.
        assert not camera.has_frame() and camera.latest_frame() is None
        _wait(camera.has_frame)
    finally:
        camera.stop()


# -- swapping the palette while the camera runs --------------------------------------------------


def test_a_new_palette_takes_effect_at_the_next_frame_without_a_restart(tmp_path: Path) -> None:
    nine = render_scene(NINE).image
    result = calibrate([nine], str(tmp_path / "cal.json"), camera="overhead")
    tunnel = render_scene(
        SceneSpec(
            cards=("orange", "red", "orange"),
            layout="row",
            light="warm",
            inks=OTHER_PRINTING,
            rotation_deg=5,
            seed=2,
        )
    ).image
    sink = Collected()
    fake = LoopingCamera(tunnel)
    config = CameraConfig(name="overhead", source="v4l2:0", fps_max=50, warmup_s=0)
    camera = open_camera(config, sink, source_factory=lambda _: fake)
    camera.start()
    try:
        _wait(lambda: len(sink.readings()) == 1)
        assert camera.status().palette == "default"
        assert sink.readings()[0] != ("orange", "red", "orange")  # the default palette misreads
        camera.use_palette(result.palette)
        assert camera.palette is result.palette and camera.status().palette == "overhead"
        _wait(lambda: len(sink.readings()) == 2)
        assert sink.readings()[1] == ("orange", "red", "orange")
    finally:
        camera.stop()


# -- the file -------------------------------------------------------------------------------------


def test_the_calibration_file_is_replaced_whole_or_not_at_all(tmp_path: Path) -> None:
    path = tmp_path / "cal" / "overhead.json"
    save_palette(DEFAULT_PALETTE, str(path), measured_from=["first"])
    before = path.read_bytes()
    # A palette that fails half-way through writing (a value JSON cannot hold, in the last
    # class): as if the power went in the middle of the write.
    broken = Palette(
        (
            *DEFAULT_PALETTE.classes[:-1],
            ColourClass("locomotive", (0.5, 0.0, 0.0, complex(1, 1)), (0.3, 0.3, 0.3, 0.1)),
        ),  # type: ignore[arg-type]
        "overhead",
    )
    with pytest.raises(TypeError):
        save_palette(broken, str(path))
    assert path.read_bytes() == before
    assert sorted(os.listdir(path.parent)) == ["overhead.json"]  # no half-written temp file left
    assert load_palette(str(path)) == DEFAULT_PALETTE


# -- calibrating from in-memory frames ------------------------------------------------------------


def test_calibrate_reads_in_memory_frames_like_image_files(tmp_path: Path) -> None:
    nine = render_scene(NINE).image
    on_disk = tmp_path / "nine.png"
    cv2.imwrite(str(on_disk), nine)
    from_file = calibrate([str(on_disk)], str(tmp_path / "a.json"), camera="overhead")
    from_frame = calibrate(
        [nine], str(tmp_path / "b.json"), camera="overhead", names=["the overhead camera"]
    )
    assert from_frame.palette == from_file.palette
    assert [s.features for s in from_frame.samples] == [s.features for s in from_file.samples]
    assert {s.image for s in from_frame.samples} == {"the overhead camera"}
    assert json.loads((tmp_path / "b.json").read_text())["measured_from"] == ["the overhead camera"]
    # Several frames (the cards shown a few at a time), unnamed: numbered; and a file among them.
    left = render_scene(replace(NINE, cards=CALIBRATION_ORDER[:4], seed=1)).image
    right = render_scene(replace(NINE, cards=CALIBRATION_ORDER[4:], seed=2)).image
    cv2.imwrite(str(tmp_path / "right.png"), right)
    parts = calibrate([left, str(tmp_path / "right.png")], str(tmp_path / "c.json"))
    assert [s.colour for s in parts.samples] == list(CALIBRATION_ORDER)
    assert [s.image for s in parts.samples] == ["frame 1"] * 4 + [str(tmp_path / "right.png")] * 5
    # Each card's outline is kept (the table page crops it) and its measured colour.
    sample = from_frame.samples[0]
    assert len(sample.corners) == 4 and sample.swatch_hex.startswith("#")


def test_a_frame_that_is_no_colour_image_is_refused_by_its_name(tmp_path: Path) -> None:
    grey = np.zeros((480, 640), np.uint8)
    with pytest.raises(CalibrationError, match=r"camera view: expected an 8-bit BGR image"):
        calibrate([grey], str(tmp_path / "x.json"), names=["camera view"])
    with pytest.raises(CalibrationError, match="1 names for 2 images"):
        calibrate([grey, grey], str(tmp_path / "x.json"), names=["one"])
    assert not (tmp_path / "x.json").exists()


def test_the_measured_colour_of_a_default_class_is_its_printed_colour() -> None:
    for cls in DEFAULT_PALETTE.classes:
        if cls.name in NOMINAL_CARD_SRGB:
            assert features_to_srgb(cls.centre) == NOMINAL_CARD_SRGB[cls.name]


def test_the_steady_view_is_the_median_of_three_frames() -> None:
    table = np.full((40, 60, 3), 50, np.uint8)
    hand = table.copy()
    hand[10:30, 20:40] = 200  # a hand over the cards in one frame
    view, used = steady_view([table, hand, table])
    assert used == 3 and np.array_equal(view, table)
    view, used = steady_view([table, hand])
    assert used == 1 and view is hand
    bigger = np.zeros((50, 60, 3), np.uint8)
    assert steady_view([table, hand, bigger])[1] == 1  # a resolution change: the newest only


# -- the table page's calibration step ----------------------------------------------------------


def test_a_live_calibration_stores_the_palette_and_the_camera_uses_it(tmp_path: Path) -> None:
    nine = render_scene(NINE).image
    camera = _finished_camera(_replay(tmp_path / "f", [nine] * 3))
    path = tmp_path / "calibration" / "overhead.json"
    live = LiveCalibration(camera, str(path), clock=lambda: 1234.5)
    assert not live.overview().saved and live.overview().last is None
    result = live.calibrate()
    assert [s.colour for s in result.samples] == list(CALIBRATION_ORDER)
    assert any("'orange'" in w and "'red'" in w for w in result.warnings)
    assert load_palette(str(path)) == result.palette == camera.palette
    overview = live.overview()
    assert overview.saved and overview.status.palette == "overhead"
    assert overview.last is not None and (overview.last.at, overview.last.frames) == (1234.5, 3)
    crop = cv2.imdecode(np.frombuffer(live.sample_jpeg(4) or b"", np.uint8), cv2.IMREAD_COLOR)
    assert crop.shape == (136, 88, 3)
    assert live.sample_jpeg(9) is None
    # Back to the default palette: in the file (read at the next start) and in the camera.
    assert live.reset() == str(path)
    assert load_palette(str(path)) == DEFAULT_PALETTE and camera.status().palette == "default"
    assert live.overview().last is None


def test_a_refused_live_calibration_changes_nothing(tmp_path: Path) -> None:
    nine = render_scene(NINE).image
    five = render_scene(
        SceneSpec(cards=CALIBRATION_ORDER[:5], layout="row", rotation_deg=5, seed=3)
    ).image
    path = tmp_path / "overhead.json"
    first = LiveCalibration(_finished_camera(_replay(tmp_path / "a", [nine])), str(path))
    assert first.calibrate().palette.source == "overhead"
    before = path.read_bytes()
    camera = open_camera(
        CameraConfig(name="overhead", source=_replay(tmp_path / "b", [five]), fps_max=100),
        Collected(),
        default_calibration_path=str(path),
    )
    live = LiveCalibration(camera, str(path))
    with pytest.raises(CalibrationError, match="has no picture yet"):
        live.calibrate()  # not started: no frame
    camera.start()
    _wait(lambda: camera.status().finished)
    camera.stop()
    with pytest.raises(CalibrationError, match=r"found 5 cards in the view of camera 'overhead'"):
        live.calibrate()
    assert path.read_bytes() == before
    assert camera.status().palette == "overhead"  # the file read at start is still in use
    with pytest.raises(ValueError, match="frames"):
        live.calibrate(frames=2)


def test_the_still_outlines_the_reveal_area_and_the_cards_found(tmp_path: Path) -> None:
    nine = render_scene(
        SceneSpec(
            width=1280,
            height=720,
            cards=CALIBRATION_ORDER,
            layout="row",
            rotation_deg=5,
            card_width_px=100,
            seed=4,
        )
    ).image
    camera = _finished_camera(_replay(tmp_path / "f", [nine]), reveal_area=(0.0, 0.25, 1.0, 0.5))
    live = LiveCalibration(camera, str(tmp_path / "cal.json"))
    still = cv2.imdecode(np.frombuffer(live.still_jpeg() or b"", np.uint8), cv2.IMREAD_COLOR)
    assert still.shape == (540, 960, 3)  # scaled to 960 px wide
    # The reveal area's top edge (a quarter down) is drawn amber across the picture.
    b, g, r = (int(v) for v in still[135, 480])
    assert r > 200 and g > 150 and b < 90
    # Green outlines around the cards (none drawn on an empty table).
    green = (still[:, :, 1] > 180) & (still[:, :, 0] < 140) & (still[:, :, 2] < 140)
    assert green.sum() > 2000
    assert live.overview().reveal_area == (0.0, 0.25, 1.0, 0.5)
    assert (
        LiveCalibration(
            open_camera(CameraConfig(name="c", source="replay:/x"), Collected()), "x.json"
        ).still_jpeg()
        is None
    )


# -- the calibration read at start ------------------------------------------------------------


def test_the_default_calibration_file_is_read_at_start_when_there_is_one(tmp_path: Path) -> None:
    config = CameraConfig(name="overhead", source="replay:/nowhere")
    default = tmp_path / "calibration" / "overhead.json"
    camera = open_camera(config, Collected(), default_calibration_path=str(default))
    assert camera.palette == DEFAULT_PALETTE  # no file yet: the default palette
    result = calibrate([render_scene(NINE).image], str(default), camera="overhead")
    camera = open_camera(config, Collected(), default_calibration_path=str(default))
    assert camera.palette == result.palette and camera.status().palette == "overhead"
    # A configured file wins over the default location.
    configured = tmp_path / "mine.json"
    save_palette(DEFAULT_PALETTE, str(configured))
    mine = CameraConfig(name="overhead", source="replay:/nowhere", calibration_path=str(configured))
    assert open_camera(mine, Collected(), default_calibration_path=str(default)).palette == (
        DEFAULT_PALETTE
    )
    # A damaged file at the default location stops start-up, naming it (never a silent default).
    default.write_text('{"format": 1, "camera": "overhead", "classes": {"red": {"centre": [1]}}}')
    with pytest.raises(ConfigError, match=r"classes\.red\.centre.*default calibration file"):
        open_camera(config, Collected(), default_calibration_path=str(default))
