"""The camera thread end to end: replayed frames in, observations out; bad frames, lost
devices, warm-up and exposure lock, the frame-rate bound, and the capture back ends."""

from __future__ import annotations

import math
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from companion.core import ConfigError, Observation, ObservationKind
from vision import camera as camera_module
from vision.camera import Camera, CameraConfig, open_camera
from vision.capture import (
    BadFrameError,
    CaptureError,
    Picamera2Source,
    ReplaySource,
    V4L2Source,
    open_source,
)
from vision.synthetic import SceneSpec, render_scene, stick_marker

TUNNEL = ("red", "white", "locomotive")


class Collected:
    """A thread-safe sink."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.items: list[Observation] = []

    def __call__(self, observation: Observation) -> None:
        with self._lock:
            self.items.append(observation)

    def kinds(self) -> list[tuple[str, object]]:
        with self._lock:
            out: list[tuple[str, object]] = []
            for o in self.items:
                if o.kind is ObservationKind.CARDS:
                    out.append(("cards", tuple(o.payload["colours"])))
                else:
                    out.append((o.kind.value, o.payload["uid"]))
            return out


def _wait(predicate: Callable[[], bool], timeout_s: float = 20.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.01)


def _frames(folder: Path, plan: list[tuple[int, SceneSpec]]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    index = 0
    for count, spec in plan:
        image = render_scene(spec).image
        for _ in range(count):
            cv2.imwrite(str(folder / f"frame{index:04d}.png"), image)
            index += 1


def test_a_replayed_tunnel_reveal_becomes_one_cards_observation_and_a_marker_a_tag(
    tmp_path: Path,
) -> None:
    empty = SceneSpec(seed=1)
    reveal = SceneSpec(cards=TUNNEL, layout="row", rotation_deg=8, markers=(), seed=2)
    half_turned = SceneSpec(cards=TUNNEL[:2], layout="row", rotation_deg=8, seed=2)
    ticket = SceneSpec(markers=((7, 40.0),), seed=3)
    _frames(
        tmp_path / "night",
        [(2, empty), (2, half_turned), (5, reveal), (3, empty), (4, reveal), (4, ticket)],
    )
    sink = Collected()
    config = CameraConfig(
        name="overhead", source=f"replay:{tmp_path / 'night'}", fps_max=100, stable_frames=3
    )
    camera = open_camera(config, sink)
    camera.start()
    _wait(lambda: camera.status().finished)
    assert camera.stop(timeout_s=5)
    # The half-turned pair held only two frames: not reported. The same three cards after the
    # area was cleared: reported again (a second tunnel).
    assert sink.kinds() == [("cards", TUNNEL), ("cards", TUNNEL), ("tag_present", "ARUCO-7")]
    first = sink.items[0]
    assert first.source == "overhead" and first.seat is None
    assert all(c >= 0.75 for c in first.payload["confidences"])
    assert list(first.payload["guesses"]) == list(TUNNEL)
    status = camera.status()
    assert (status.state, status.frames, status.bad_frames) == ("connected", 20, 0)


def test_only_cards_in_the_reveal_area_are_read(tmp_path: Path) -> None:
    # Three cards across the table; the reveal area is the right third.
    table = SceneSpec(cards=("blue", "green", "red"), layout="row", rotation_deg=5, seed=6)
    _frames(tmp_path / "f", [(3, table)])
    sink = Collected()
    config = CameraConfig(
        name="cam",
        source=f"replay:{tmp_path / 'f'}",
        fps_max=100,
        stable_frames=2,
        reveal_area=(2 / 3, 0.0, 1 / 3, 1.0),
    )
    camera = open_camera(config, sink)
    camera.start()
    _wait(lambda: camera.status().finished)
    camera.stop()
    assert sink.kinds() == [("cards", ("red",))]


def test_a_marker_taken_away_is_removed_after_about_a_second(tmp_path: Path) -> None:
    ticket = SceneSpec(markers=((31, 40.0),), seed=3)
    _frames(tmp_path / "f", [(3, ticket), (12, SceneSpec(seed=3))])
    sink = Collected()
    config = CameraConfig(
        name="cam", source=f"replay:{tmp_path / 'f'}", fps_max=10, stable_frames=2
    )
    camera = open_camera(config, sink)
    camera.start()
    _wait(lambda: camera.status().finished)
    camera.stop()
    assert sink.kinds() == [("tag_present", "ARUCO-31"), ("tag_removed", "ARUCO-31")]


def test_a_corrupt_frame_is_counted_and_the_camera_goes_on(tmp_path: Path) -> None:
    folder = tmp_path / "f"
    _frames(folder, [(4, SceneSpec(cards=TUNNEL, layout="row", rotation_deg=5))])
    (folder / "frame0001.png").write_bytes(b"\x89PNG truncated")
    (folder / "frame0002.png").write_bytes(b"")
    sink = Collected()
    camera = open_camera(
        CameraConfig(name="cam", source=f"replay:{folder}", fps_max=100, stable_frames=2), sink
    )
    camera.start()
    _wait(lambda: camera.status().finished)
    camera.stop()
    status = camera.status()
    assert (status.frames, status.bad_frames) == (2, 2)
    assert status.last_error is not None and "not an image" in status.last_error
    assert sink.kinds() == [("cards", TUNNEL)]


def test_markers_are_read_beside_the_cards_and_a_failure_there_is_one_bad_frame(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The markers are read on a thread of their own while the camera's thread finds the cards;
    # the detector failing on one frame there is counted like any detector error.
    seen_on: set[str] = set()
    calls = [0]

    class Failing(camera_module.MarkerDetector):
        def detect(self, frame: np.ndarray) -> list[Any]:
            seen_on.add(threading.current_thread().name)
            calls[0] += 1
            if calls[0] == 2:
                raise RuntimeError("the detector's bad day")
            return super().detect(frame)

    monkeypatch.setattr(camera_module, "MarkerDetector", Failing)
    ticket = SceneSpec(cards=TUNNEL, layout="row", rotation_deg=5, markers=((9, 40.0),), seed=4)
    _frames(tmp_path / "f", [(6, ticket)])
    camera, sink = _played(tmp_path / "f")
    status = camera.status()
    assert (status.frames, status.bad_frames) == (6, 1)
    assert status.last_error is not None and "bad day" in status.last_error
    assert sorted(sink.kinds()) == [("cards", TUNNEL), ("tag_present", "ARUCO-9")]
    assert len(seen_on) == 1 and seen_on != {threading.current_thread().name}
    assert all(name.startswith("camera-markers") for name in seen_on)


def test_a_video_file_replays_too(tmp_path: Path) -> None:
    path = tmp_path / "tunnel.avi"
    frame = render_scene(SceneSpec(cards=TUNNEL, layout="row", rotation_deg=5, seed=4)).image
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10, (640, 480))
    for _ in range(5):
        writer.write(frame)
    writer.release()
    sink = Collected()
    camera = open_camera(CameraConfig(name="cam", source=f"replay:{path}", fps_max=100), sink)
    camera.start()
    _wait(lambda: camera.status().finished)
    camera.stop()
    assert sink.kinds() == [("cards", TUNNEL)]


def test_a_failing_sink_does_not_stop_the_camera(tmp_path: Path) -> None:
    _frames(
        tmp_path / "f", [(3, SceneSpec(markers=((1, 40.0),))), (3, SceneSpec(markers=((2, 40.0),)))]
    )

    def refuse(_: Observation) -> None:
        raise RuntimeError("queue full")

    camera = open_camera(
        CameraConfig(name="cam", source=f"replay:{tmp_path / 'f'}", fps_max=100, stable_frames=2),
        refuse,
    )
    camera.start()
    _wait(lambda: camera.status().finished)
    camera.stop()
    assert camera.status().frames == 6
    assert "queue full" in (camera.status().last_error or "")


class FakeLiveCamera:
    """A live camera that fails to open at first, then loses its cable once."""

    is_live = True
    description = "fake"

    def __init__(self, frame: np.ndarray, fail_opens: int, lose_after: int) -> None:
        self.frame = frame
        self.fail_opens = fail_opens
        self.lose_after = lose_after
        self.reads = 0
        self.locks = 0
        self.opens = 0
        self.closes = 0

    def open(self) -> None:
        self.opens += 1
        if self.opens <= self.fail_opens:
            raise CaptureError("fake: no such device")

    def read(self) -> np.ndarray:
        self.reads += 1
        if self.reads == self.lose_after:
            raise CaptureError("fake: unplugged")
        return self.frame

    def lock_exposure(self) -> bool:
        self.locks += 1
        return True

    def close(self) -> None:
        self.closes += 1


def test_a_missing_camera_is_retried_and_a_lost_one_reopened() -> None:
    frame = render_scene(SceneSpec(cards=TUNNEL, layout="row", rotation_deg=5)).image
    fake = FakeLiveCamera(frame, fail_opens=1, lose_after=5)
    sink = Collected()
    config = CameraConfig(name="cam", source="v4l2:9", fps_max=50, warmup_s=0, stable_frames=2)
    camera = open_camera(config, sink, source_factory=lambda _: fake)
    states = []
    camera.start()
    _wait(lambda: states.append(camera.status().state) or fake.reads >= 12)
    assert camera.stop()
    assert fake.opens == 3  # failed, opened, reopened after the unplug
    assert fake.locks == 2  # locked again after reopening
    assert fake.closes == 2
    assert "error" in states or "searching" in states
    assert camera.status().state == "connected"
    # Once reported; the same cards after a reconnection are the same cards lying there.
    assert sink.kinds() == [("cards", TUNNEL)]


class SurprisingCamera(FakeLiveCamera):
    """A driver that raises its own errors: once on open, then on every third read."""

    def open(self) -> None:
        self.opens += 1
        if self.opens == 1:
            raise PermissionError("/dev/video0: permission denied")

    def read(self) -> np.ndarray:
        self.reads += 1
        if self.reads % 3 == 0:
            raise RuntimeError("driver hiccup")
        return self.frame


def test_errors_of_any_kind_from_a_driver_are_counted_and_the_camera_goes_on() -> None:
    frame = render_scene(SceneSpec(markers=((9, 40.0),))).image
    fake = SurprisingCamera(frame, fail_opens=0, lose_after=-1)
    sink = Collected()
    config = CameraConfig(name="cam", source="v4l2:0", fps_max=100, warmup_s=0, stable_frames=2)
    camera = open_camera(config, sink, source_factory=lambda _: fake)
    camera.start()
    _wait(lambda: fake.reads >= 9)
    assert camera.stop()
    status = camera.status()
    assert status.bad_frames >= 3
    assert "driver hiccup" in (status.last_error or "")
    assert fake.opens == 2
    assert sink.kinds() == [("tag_present", "ARUCO-9")]


def test_warm_up_frames_are_not_read_and_exposure_is_locked_once_after_it() -> None:
    frame = render_scene(SceneSpec(markers=((4, 40.0),))).image
    fake = FakeLiveCamera(frame, fail_opens=0, lose_after=-1)
    sink = Collected()
    config = CameraConfig(name="cam", source="picamera2", fps_max=40, warmup_s=0.5, stable_frames=1)
    camera = open_camera(config, sink, source_factory=lambda _: fake)
    started = time.monotonic()
    camera.start()
    _wait(lambda: bool(sink.items))
    elapsed = time.monotonic() - started
    camera.stop()
    assert elapsed >= 0.5
    assert fake.locks == 1 and camera.status().exposure_locked
    assert sink.kinds() == [("tag_present", "ARUCO-4")]


def test_the_frame_rate_is_bounded() -> None:
    frame = np.zeros((120, 160, 3), np.uint8)
    fake = FakeLiveCamera(frame, fail_opens=0, lose_after=-1)
    camera = open_camera(
        CameraConfig(name="cam", source="v4l2:0", fps_max=20, warmup_s=0),
        Collected(),
        source_factory=lambda _: fake,
    )
    camera.start()
    time.sleep(0.5)
    camera.stop()
    assert 5 <= fake.reads <= 12


def test_bad_options_are_refused_with_their_name(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"camera\.fps_max"):
        CameraConfig(name="cam", source="picamera2", fps_max=0)
    with pytest.raises(ConfigError, match=r"camera\.stable_frames"):
        CameraConfig(name="cam", source="picamera2", stable_frames=0)
    with pytest.raises(ConfigError, match=r"camera\.width"):
        CameraConfig(name="cam", source="picamera2", width=True)
    with pytest.raises(ConfigError, match=r"camera\.reveal_area"):
        CameraConfig(name="cam", source="picamera2", reveal_area=(0.5, 0.0, 0.6, 1.0))
    with pytest.raises(ConfigError, match=r"camera\.name"):
        CameraConfig(name="", source="picamera2")
    with pytest.raises(ConfigError, match=r"camera\.source"):
        open_camera(CameraConfig(name="cam", source="usb0"), Collected())
    with pytest.raises(ConfigError, match=r"camera\.calibration_path"):
        open_camera(
            CameraConfig(
                name="cam", source="picamera2", calibration_path=str(tmp_path / "no.json")
            ),
            Collected(),
        )


def test_a_camera_is_started_once() -> None:
    camera = open_camera(CameraConfig(name="cam", source="replay:/nonexistent"), Collected())
    camera.start()
    with pytest.raises(RuntimeError, match="already started"):
        camera.start()
    _wait(lambda: camera.status().state == "error")
    assert "no such file" in (camera.status().last_error or "")
    assert camera.stop()
    assert isinstance(camera, Camera)


def test_source_names() -> None:
    assert isinstance(open_source("replay:/tmp/x", 640, 480, 10), ReplaySource)
    usb = open_source("v4l2:/dev/video2", 640, 480, 10)
    assert isinstance(usb, V4L2Source) and usb.device == "/dev/video2"
    index = open_source("v4l2:1", 640, 480, 10)
    assert isinstance(index, V4L2Source) and index.device == 1
    assert isinstance(open_source("picamera2", 640, 480, 10), Picamera2Source)
    for bad in ("", "replay:", "v4l2", "webcam:0"):
        with pytest.raises(ConfigError, match=r"camera\.source"):
            open_source(bad, 640, 480, 10)


def test_picamera2_is_imported_only_when_opened_and_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # As on a machine without the library (a None entry makes the import fail).
    monkeypatch.setitem(sys.modules, "picamera2", None)
    source = Picamera2Source(640, 480, 10)  # constructing imports nothing
    with pytest.raises(CaptureError, match="apt install python3-picamera2"):
        source.open()


class FakeVideoCapture:
    """Enough of cv2.VideoCapture's V4L2 behaviour: properties, one size, reads."""

    def __init__(self, width: int, height: int, frames: int) -> None:
        self.props: dict[int, float] = {
            cv2.CAP_PROP_FRAME_WIDTH: width,
            cv2.CAP_PROP_FRAME_HEIGHT: height,
            cv2.CAP_PROP_EXPOSURE: 156.0,
            cv2.CAP_PROP_WB_TEMPERATURE: 4600.0,
            cv2.CAP_PROP_AUTO_EXPOSURE: 3.0,
            cv2.CAP_PROP_AUTO_WB: 1.0,
        }
        self.sizes = {(width, height)}
        self.frames = frames
        self.released = False

    def isOpened(self) -> bool:  # noqa: N802 (OpenCV's name)
        return True

    def set(self, prop: int, value: float) -> bool:
        if prop in (cv2.CAP_PROP_FRAME_WIDTH, cv2.CAP_PROP_FRAME_HEIGHT):
            return True  # this camera keeps its one mode
        self.props[prop] = value
        return True

    def get(self, prop: int) -> float:
        return self.props.get(prop, 0.0)

    def read(self) -> tuple[bool, Any]:
        if self.frames <= 0:
            return False, None
        self.frames -= 1
        return True, np.zeros((480, 640, 3), np.uint8)

    def release(self) -> None:
        self.released = True


def test_v4l2_opens_at_the_asked_size_reads_and_locks_exposure() -> None:
    fake = FakeVideoCapture(640, 480, frames=1)
    source = V4L2Source("/dev/video0", 640, 480, 10, capture_factory=lambda dev, api: fake)
    source.open()
    frame = source.read()
    assert frame is not None and frame.shape == (480, 640, 3)
    assert source.lock_exposure()
    assert fake.props[cv2.CAP_PROP_AUTO_EXPOSURE] == 1  # V4L2 manual exposure
    assert fake.props[cv2.CAP_PROP_EXPOSURE] == 156.0  # where auto-exposure had settled
    assert fake.props[cv2.CAP_PROP_AUTO_WB] == 0
    with pytest.raises(CaptureError, match="unplugged"):
        source.read()
    source.close()
    assert fake.released


def test_v4l2_refuses_a_size_the_camera_does_not_offer() -> None:
    fake = FakeVideoCapture(640, 480, frames=1)
    source = V4L2Source(0, 1280, 720, 10, capture_factory=lambda dev, api: fake)
    with pytest.raises(CaptureError, match="offers 640×480"):
        source.open()
    assert fake.released


def test_a_replay_of_an_empty_folder_or_odd_frames(tmp_path: Path) -> None:
    with pytest.raises(CaptureError, match="no images"):
        ReplaySource(str(tmp_path)).open()
    cv2.imwrite(str(tmp_path / "a.png"), np.zeros((8, 8), np.uint8))
    cv2.imwrite(str(tmp_path / "b.png"), np.zeros((40, 40), np.uint8))
    source = ReplaySource(str(tmp_path))
    source.open()
    with pytest.raises(BadFrameError, match="shape"):
        source.read()
    frame = source.read()
    assert frame is not None and frame.shape == (40, 40, 3)
    assert source.read() is None


def test_a_looping_replay_lists_its_folder_again_at_each_pass(tmp_path: Path) -> None:
    def image(value: int) -> np.ndarray:
        return np.full((40, 60, 3), value, np.uint8)

    cv2.imwrite(str(tmp_path / "a.png"), image(10))
    cv2.imwrite(str(tmp_path / "b.png"), image(20))
    source = open_source(f"replay:{tmp_path}", 640, 480, 10, loop=True)
    assert isinstance(source, ReplaySource) and source.loop
    source.open()
    seen = [int(frame[0, 0, 0]) for frame in (source.read(), source.read()) if frame is not None]
    # Between passes a file is replaced (atomically: written under a name that is no image,
    # then renamed) and one removed: the next pass shows the folder as it is now.
    ok, encoded = cv2.imencode(".png", image(30))
    assert ok
    (tmp_path / "a.png.part").write_bytes(encoded.tobytes())
    (tmp_path / "a.png.part").replace(tmp_path / "a.png")
    (tmp_path / "b.png").unlink()
    for _ in range(3):
        frame = source.read()
        assert frame is not None
        seen.append(int(frame[0, 0, 0]))
    assert seen == [10, 20, 30, 30, 30]
    (tmp_path / "a.png").unlink()  # the folder emptied: the replay is lost (and retried)
    with pytest.raises(CaptureError, match="no images"):
        source.read()


def test_a_looping_video_starts_again_and_only_replays_loop(tmp_path: Path) -> None:
    path = tmp_path / "tunnel.avi"
    frame = render_scene(SceneSpec(cards=TUNNEL, layout="row", rotation_deg=5, seed=4)).image
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10, (640, 480))
    for _ in range(2):
        writer.write(frame)
    writer.release()
    source = ReplaySource(str(path), loop=True)
    source.open()
    assert all(source.read() is not None for _ in range(5))  # more frames than the video has
    source.close()
    once = ReplaySource(str(path))
    once.open()
    assert [once.read() is not None for _ in range(3)] == [True, True, False]
    once.close()
    # The camera keeps going and never finishes; loop is refused for a live camera.
    sink = Collected()
    camera = open_camera(
        CameraConfig(name="cam", source=f"replay:{path}", fps_max=100, loop=True), sink
    )
    camera.start()
    try:
        _wait(lambda: camera.status().frames >= 6)
        assert not camera.status().finished and sink.kinds() == [("cards", TUNNEL)]
    finally:
        assert camera.stop()
    with pytest.raises(ConfigError, match=r"camera\.loop: only a replay: source can loop"):
        CameraConfig(name="cam", source="v4l2:0", loop=True)
    with pytest.raises(ConfigError, match=r"camera\.loop: expected true or false"):
        CameraConfig(name="cam", source="replay:/x", loop="yes")  # type: ignore[arg-type]


def test_a_ticket_with_its_sticker_in_the_reveal_area_is_a_tag_not_a_train_card(
    tmp_path: Path,
) -> None:
    # The tunnel's three cards and a marked ticket beside them, all in the reveal area: the
    # ticket is reported as its tag, and the cards as three, not four with an unsure one.
    scene = render_scene(SceneSpec(cards=(*TUNNEL, "white"), layout="row", rotation_deg=4, seed=5))
    ticket = scene.cards[3]
    centre = np.mean(ticket.corners, axis=0)
    frame = stick_marker(scene.image, (float(centre[0]), float(centre[1])), 9, side_px=30)
    folder = tmp_path / "f"
    folder.mkdir()
    for i in range(4):
        cv2.imwrite(str(folder / f"frame{i:04d}.png"), frame)
    sink = Collected()
    config = CameraConfig(
        name="cam",
        source=f"replay:{folder}",
        fps_max=100,
        stable_frames=2,
        reveal_area=(0.02, 0.1, 0.96, 0.85),  # a crop: the markers are moved into it
    )
    camera = open_camera(config, sink)
    camera.start()
    _wait(lambda: camera.status().finished)
    camera.stop()
    assert sorted(sink.kinds(), key=str) == [("cards", TUNNEL), ("tag_present", "ARUCO-9")]


def _count_reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the frames the camera reads cards on (a list, so the test sees it change)."""
    from vision.cards import read_train_cards

    reads = [0]

    def counted(*args: Any, **kwargs: Any) -> Any:
        reads[0] += 1
        return read_train_cards(*args, **kwargs)

    monkeypatch.setattr(camera_module, "read_train_cards", counted)
    monkeypatch.setattr(camera_module, "_STILL_LOOK_S", 60.0)  # no look for time's sake here
    return reads


def _played(folder: Path) -> tuple[Camera, Collected]:
    """A replay of ``folder`` played to its end, as fast as it reads (stable frames: 3)."""
    sink = Collected()
    camera = open_camera(CameraConfig(name="cam", source=f"replay:{folder}", fps_max=100), sink)
    camera.start()
    _wait(lambda: camera.status().finished)
    camera.stop()
    return camera, sink


def test_a_still_table_is_read_until_its_reading_holds_then_not_until_it_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads = _count_reads(monkeypatch)
    reveal = SceneSpec(cards=TUNNEL, layout="row", rotation_deg=8, seed=2)
    other = SceneSpec(cards=("blue", "green"), layout="row", rotation_deg=3, seed=4)
    _frames(tmp_path / "f", [(8, reveal), (8, other)])
    camera, sink = _played(tmp_path / "f")
    # Each view is read until three frames agree, then its five still frames are not.
    assert sink.kinds() == [("cards", TUNNEL), ("cards", ("blue", "green"))]
    assert reads[0] == 6
    status = camera.status()
    assert (status.frames, status.still_frames) == (16, 10)


def test_sensor_noise_is_no_change_but_a_hand_over_the_table_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads = _count_reads(monkeypatch)
    image = render_scene(SceneSpec(cards=TUNNEL, layout="row", rotation_deg=8, seed=2)).image
    rng = np.random.default_rng(7)
    folder = tmp_path / "f"
    folder.mkdir()
    for i in range(14):
        noisy = image.astype(np.float32) + rng.normal(0.0, 4.0, image.shape)  # σ 4 levels
        frame = np.clip(noisy, 0, 255).astype(np.uint8)
        if i in (8, 9):  # a hand over the cards for two frames
            cv2.rectangle(frame, (300, 200), (700, 500), (90, 120, 170), -1)
        cv2.imwrite(str(folder / f"frame{i:04d}.png"), frame)
    camera, sink = _played(folder)
    # Three reads to settle; the hand's two frames and the three after it (the vote starts
    # again) are read; the rest are still. The hand did not hold long enough to count.
    assert sink.kinds() == [("cards", TUNNEL)]
    assert reads[0] == 3 + 2 + 3
    assert camera.status().still_frames == 14 - reads[0]


def test_the_smallest_card_laid_on_a_still_table_is_a_change() -> None:
    from vision.camera import _STILL_LOOK_S, _StillView
    from vision.cards import MIN_AREA_FRACTION
    from vision.palette import DEFAULT_PALETTE, Palette

    table = render_scene(SceneSpec(cards=TUNNEL, layout="row", rotation_deg=8, seed=2)).image
    view = _StillView()
    assert not view.same(table, DEFAULT_PALETTE, 0.0, settled=True)  # nothing to compare with
    assert view.same(table.copy(), DEFAULT_PALETTE, 0.1, settled=True)
    # The smallest card looked for (its area MIN_AREA_FRACTION of the frame), a faint one:
    # 20 grey levels off the table.
    h, w = table.shape[:2]
    short = round(math.sqrt(MIN_AREA_FRACTION * h * w / 1.55))
    card = table.copy()
    patch = card[40 : 40 + round(1.55 * short), 60 : 60 + short]
    patch[:] = np.clip(patch.astype(np.int16) + 20, 0, 255).astype(np.uint8)
    assert not view.same(card, DEFAULT_PALETTE, 0.2, settled=True)
    # Now compared with the frame holding it.
    assert view.same(card.copy(), DEFAULT_PALETTE, 0.3, settled=True)
    # Looked at all the same: while the reading has not settled, with another palette (a new
    # calibration), and once in a while.
    assert not view.same(card, DEFAULT_PALETTE, 0.4, settled=False)
    other = Palette(DEFAULT_PALETTE.classes, source="cam")
    assert not view.same(card, other, 0.5, settled=True)
    assert view.same(card, other, 0.6, settled=True)
    assert not view.same(card, other, 0.5 + _STILL_LOOK_S, settled=True)
    view.forget()  # the device was lost: the view may have moved
    assert not view.same(card, other, 1.6, settled=True)
