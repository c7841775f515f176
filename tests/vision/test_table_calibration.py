"""Calibrating a running camera: its newest frames on request, a palette swapped while it runs,
the calibration file written atomically, calibrating from in-memory frames, and the table
page's calibration step (vision.table_calibration) over a replayed camera."""

from __future__ import annotations

import json
import math
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
from vision.cards import read_train_cards
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
from vision.table_calibration import SHOTS_KEPT_S, LiveCalibration, steady_view

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


def test_one_shot_of_the_nine_calibrates_at_once_and_the_camera_uses_it(tmp_path: Path) -> None:
    nine = render_scene(NINE).image
    camera = _finished_camera(_replay(tmp_path / "f", [nine] * 3))
    path = tmp_path / "calibration" / "overhead.json"
    live = LiveCalibration(camera, str(path), clock=lambda: 1234.5)
    assert not live.overview().saved and live.overview().last is None
    assert live.overview().collection.missing == CALIBRATION_ORDER
    outcome = live.take_shot()
    assert (outcome.number, outcome.first_place, outcome.missing) == (1, 1, ())
    assert outcome.colours == CALIBRATION_ORDER
    result = outcome.result
    assert result is not None
    assert [s.colour for s in result.samples] == list(CALIBRATION_ORDER)
    assert {s.image for s in result.samples} == {"the view of camera 'overhead'"}
    assert any("'orange'" in w and "'red'" in w for w in result.warnings)
    assert load_palette(str(path)) == result.palette == camera.palette
    overview = live.overview()
    assert overview.saved and overview.status.palette == "overhead"
    # the still now checks the calibration: each card labelled with what the camera reads
    assert overview.checking
    assert live.still_labels() == [f"reads {c}" for c in CALIBRATION_ORDER]
    assert overview.last is not None and (overview.last.at, overview.last.frames) == (1234.5, 3)
    assert overview.last.shots == 1 and overview.collection.collected == ()
    crop = cv2.imdecode(np.frombuffer(live.sample_jpeg(4) or b"", np.uint8), cv2.IMREAD_COLOR)
    assert crop.shape == (136, 88, 3)
    assert live.sample_jpeg(9) is None
    # Back to the default palette: in the file (read at the next start) and in the camera.
    assert live.reset() == str(path)
    assert load_palette(str(path)) == DEFAULT_PALETTE and camera.status().palette == "default"
    assert live.overview().last is None


class Table:
    """A live camera (a fake device, no warm-up) above a table whose view the test changes."""

    def __init__(self, first: np.ndarray) -> None:
        self.device = LoopingCamera(first)
        config = CameraConfig(name="overhead", source="v4l2:0", fps_max=50, warmup_s=0)
        self.camera = open_camera(config, Collected(), source_factory=lambda _: self.device)
        self.camera.start()
        self.show(first)

    def show(self, image: np.ndarray) -> None:
        """Put ``image`` in front of the camera and wait until its last three frames show it."""
        self.device.frame = image

        def steady() -> bool:
            recent = self.camera.recent_frames(3)
            return len(recent) == 3 and all(np.array_equal(f, image) for f in recent)

        _wait(steady)

    def stop(self) -> None:
        assert self.camera.stop()


def _few(cards: tuple[str, ...], seed: int) -> np.ndarray:
    """Some of the same cards as ``NINE`` (the same printing, no print jitter: the same
    physical cards), in a row on the same table under the same warm light."""
    return render_scene(replace(NINE, cards=cards, seed=seed, print_jitter=0.0)).image


def _gaps_in_spreads(a: Palette, b: Palette) -> dict[str, float]:
    return {
        x.name: math.sqrt(
            sum(((p - q) / s) ** 2 for p, q, s in zip(x.centre, y.centre, x.spread, strict=True))
        )
        for x, y in zip(a.classes, b.classes, strict=True)
    }


def test_three_shots_of_three_cards_calibrate_like_one_shot_of_the_nine(tmp_path: Path) -> None:
    shots = [_few(CALIBRATION_ORDER[i : i + 3], seed=20 + i) for i in (0, 3, 6)]
    table = Table(shots[0])
    path = tmp_path / "overhead.json"
    wall = [1000.0]
    live = LiveCalibration(table.camera, str(path), clock=lambda: wall[0])
    try:
        first = live.take_shot(expect_collected=0)
        assert (first.number, first.first_place, first.result) == (1, 1, None)
        assert first.colours == ("purple", "white", "blue")
        assert first.missing == CALIBRATION_ORDER[3:]
        collection = live.collection()
        assert collection.collected == ("purple", "white", "blue") and collection.next_place == 4
        assert collection.kept_until == 1000.0 + SHOTS_KEPT_S
        assert not path.exists() and table.camera.status().palette == "default"
        crop = cv2.imdecode(
            np.frombuffer(live.collected_jpeg(2) or b"", np.uint8), cv2.IMREAD_COLOR
        )
        assert crop.shape == (136, 88, 3) and live.collected_jpeg(3) is None

        table.show(shots[1])
        wall[0] = 1060.0
        second = live.take_shot(expect_collected=3)
        assert (second.number, second.first_place, second.colours) == (
            2,
            4,
            ("yellow", "orange", "black"),
        )
        assert live.collection().shots == (
            ("purple", "white", "blue"),
            ("yellow", "orange", "black"),
        )
        assert live.collection().kept_until == 1000.0 + SHOTS_KEPT_S  # from the first shot

        table.show(shots[2])
        third = live.take_shot(expect_collected=6)
        result = third.result
        assert result is not None and third.missing == ()
        assert [s.colour for s in result.samples] == list(CALIBRATION_ORDER)
        names = [f"the view of camera 'overhead', shot {i}" for i in (1, 2, 3)]
        assert [s.image for s in result.samples] == [n for n in names for _ in range(3)]
        assert json.loads(path.read_text())["measured_from"] == names
        assert load_palette(str(path)) == result.palette == table.camera.palette
        overview = live.overview()
        assert overview.collection.collected == () and overview.collection.kept_until is None
        assert overview.last is not None and overview.last.shots == 3
        for index in (0, 4, 8):  # each card's crop comes from its own shot
            crop = cv2.imdecode(
                np.frombuffer(live.sample_jpeg(index) or b"", np.uint8), cv2.IMREAD_COLOR
            )
            assert crop.shape == (136, 88, 3)

        # One shot of the same nine cards, laid in one row under the same light.
        table.show(_few(CALIBRATION_ORDER, seed=11))
        one = live.take_shot().result
        assert one is not None
        gaps = _gaps_in_spreads(one.palette, result.palette)
        assert max(gaps.values()) < 0.3, gaps  # within a third of each class's spread
        # Both read this printing's tunnel right, where the default palette reads orange as red.
        tunnel = _few(("orange", "red", "orange"), seed=40)
        assert [c.colour for c in read_train_cards(tunnel)] != ["orange", "red", "orange"]
        for palette in (one.palette, result.palette):
            assert [c.colour for c in read_train_cards(tunnel, palette)] == [
                "orange",
                "red",
                "orange",
            ]
    finally:
        table.stop()


def test_refused_shots_change_nothing(tmp_path: Path) -> None:
    table = Table(render_scene(replace(NINE, cards=())).image)
    path = tmp_path / "overhead.json"
    live = LiveCalibration(table.camera, str(path))
    not_started = LiveCalibration(
        open_camera(CameraConfig(name="overhead", source="replay:/x"), Collected()), str(path)
    )
    try:
        with pytest.raises(CalibrationError, match="has no picture yet"):
            not_started.take_shot()
        with pytest.raises(
            CalibrationError,
            match=r"no card found in the view of camera 'overhead': lay the next cards "
            r"\(1 purple, 2 white, .*9 locomotive\) in it",
        ):
            live.take_shot()
        assert live.collection().collected == ()
        table.show(_few((*CALIBRATION_ORDER, "red"), seed=5))
        with pytest.raises(
            CalibrationError, match=r"found 10 cards .* but there are only 9 colours \(1 purple"
        ):
            live.take_shot()
        table.show(_few(CALIBRATION_ORDER[:3], seed=1))
        live.take_shot()
        before = live.collection()
        # More cards than are still missing: six missing, seven shown.
        table.show(_few(CALIBRATION_ORDER[:7], seed=2))
        with pytest.raises(
            CalibrationError,
            match=r"found 7 cards in the view of camera 'overhead', but only 6 are still missing "
            r"\(4 yellow, 5 orange, 6 black, 7 red, 8 green, 9 locomotive\): lay just those",
        ):
            live.take_shot()
        # A page that showed another collection (another browser took a shot since).
        table.show(_few(CALIBRATION_ORDER[3:6], seed=3))
        with pytest.raises(CalibrationError, match=r"changed since .*: 3 of 9 cards are collected"):
            live.take_shot(expect_collected=0)
        with pytest.raises(ValueError, match="frames"):
            live.take_shot(frames=2)
        assert live.collection() == before and len(before.shots) == 1
        assert not path.exists() and table.camera.status().palette == "default"

        # The file cannot be written when the last shot completes the nine: the last shot is
        # not kept, the earlier ones stay, and the palette in use is unchanged.
        live.take_shot(expect_collected=3)
        table.show(_few(CALIBRATION_ORDER[6:], seed=4))
        (tmp_path / "file").write_text("where the folder should be")
        live.path = str(tmp_path / "file" / "overhead.json")
        with pytest.raises(OSError):
            live.take_shot(expect_collected=6)
        assert len(live.collection().collected) == 6
        assert table.camera.status().palette == "default"
        live.path = str(path)  # the folder is fixed: the same shot now completes the nine
        assert live.take_shot(expect_collected=6).result is not None
        assert table.camera.status().palette == "overhead"
    finally:
        table.stop()


def test_two_browsers_taking_the_same_shot_at_once_keep_it_once(tmp_path: Path) -> None:
    table = Table(_few(CALIBRATION_ORDER[:3], seed=1))
    live = LiveCalibration(table.camera, str(tmp_path / "overhead.json"))
    outcomes: list[str] = []
    go = threading.Barrier(2)

    def click() -> None:
        go.wait()
        try:
            live.take_shot(expect_collected=0)
            outcomes.append("kept")
        except CalibrationError as exc:
            outcomes.append(str(exc))

    try:
        clicks = [threading.Thread(target=click) for _ in range(2)]
        for thread in clicks:
            thread.start()
        for thread in clicks:
            thread.join(20)
        kept = [o for o in outcomes if o == "kept"]
        refused = [o for o in outcomes if o != "kept"]
        assert len(kept) == 1 and len(refused) == 1 and "changed since" in refused[0]
        assert live.collection().collected == ("purple", "white", "blue")  # not six cards
    finally:
        table.stop()


def test_start_over_drops_the_shots(tmp_path: Path) -> None:
    table = Table(_few(CALIBRATION_ORDER[:3], seed=1))
    live = LiveCalibration(table.camera, str(tmp_path / "overhead.json"))
    try:
        live.take_shot()
        assert live.start_over() == 3
        assert live.collection().collected == () and live.collected_jpeg(0) is None
        assert live.collection().dropped is None
        assert live.start_over() == 0
        assert live.take_shot().first_place == 1  # the same three cards are 1–3 again
    finally:
        table.stop()


def test_shots_are_dropped_after_ten_minutes_or_when_the_camera_is_lost(tmp_path: Path) -> None:
    table = Table(_few(CALIBRATION_ORDER[:3], seed=1))
    now = [50.0]
    live = LiveCalibration(table.camera, str(tmp_path / "overhead.json"), monotonic=lambda: now[0])
    try:
        live.take_shot()
        table.show(_few(CALIBRATION_ORDER[3:5], seed=2))
        now[0] += SHOTS_KEPT_S - 1  # the second shot is still in time
        live.take_shot()
        assert len(live.collection().collected) == 5
        now[0] += 2  # ten minutes after the first
        collection = live.collection()
        assert collection.collected == () and collection.missing == CALIBRATION_ORDER
        assert collection.dropped == (
            "The 2 shots taken earlier (5 cards) were dropped: the first was taken more than 10 "
            "minutes ago. Start again with card 1."
        )
        assert live.take_shot().colours == ("purple", "white")  # the two cards in view
        assert live.collection().dropped is None

        # The camera is lost (unplugged): what it saw before is no view to build on.
        assert table.camera.times_lost() == 0
        table.device.lose_at = table.device.reads + 2
        _wait(lambda: table.camera.times_lost() == 1)
        collection = live.collection()
        assert collection.collected == ()
        assert "was dropped: the camera was lost since" in (collection.dropped or "")
    finally:
        table.stop()


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


def test_the_still_numbers_the_cards_on_from_those_collected(tmp_path: Path) -> None:
    def outlined(still: bytes | None) -> tuple[int, int]:
        """(green, red) outline pixels in the still."""
        image = cv2.imdecode(np.frombuffer(still or b"", np.uint8), cv2.IMREAD_COLOR)
        b, g, r = (image[:, :, i].astype(int) for i in range(3))
        green = (g > 180) & (b < 140) & (r < 140)
        red = (r > 200) & (g < 110) & (b < 110)
        return int(green.sum()), int(red.sum())

    four = _few(("red", "green", "locomotive", "red"), seed=3)
    table = Table(four)
    live = LiveCalibration(table.camera, str(tmp_path / "overhead.json"))
    try:
        green, red = outlined(live.still_jpeg())  # nine missing: four green outlines
        assert live.still_labels() == ["1 purple", "2 white", "3 blue", "4 yellow"]
        table.show(_few(CALIBRATION_ORDER[:6], seed=1))
        live.take_shot()
        table.show(four)
        assert live.still_labels() == ["7 red", "8 green", "9 locomotive", "extra"]
        green_after, red_after = outlined(live.still_jpeg())
        # Three missing: the fourth card is "extra", outlined in red instead of green.
        assert red_after - red > 300 and green - green_after > 300
    finally:
        table.stop()


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
