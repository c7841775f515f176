"""Capture back ends: they only move frames (8-bit BGR numpy arrays).

- ``replay:<folder or video file>``: the images of a folder in name order, or a video's frames;
  for tests, demos and replaying a table bug. Played once, or in a loop (``loop``): the folder
  is listed again at each pass, so a test or a demo can change the view by replacing a file.
- ``v4l2:/dev/video0`` (or ``v4l2:0``, an index): a USB camera through OpenCV's V4L2 back end.
- ``picamera2``: a Pi camera module through Picamera2, imported only when this back end is
  used (it comes from apt on the Pi, not from PyPI).

Live back ends run at a fixed resolution and lock auto-exposure and auto-white-balance when
asked (after the camera loop's warm-up), so the colours the calibration measured stay put.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import Any, Final, Protocol

import cv2
import numpy as np
import numpy.typing as npt

from companion.core import ConfigError, TracksideError

Frame = npt.NDArray[np.uint8]
log = logging.getLogger("trackside.vision")

IMAGE_SUFFIXES: Final = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


class CaptureError(TracksideError, OSError):
    """The camera cannot be opened or was lost; the camera loop retries with back-off."""


class BadFrameError(TracksideError, ValueError):
    """One frame is unusable (a corrupt file, a short read); the loop counts it and goes on."""


class FrameSource(Protocol):
    """What the camera loop needs from a back end."""

    description: str
    is_live: bool  # a real camera: warm up, then lock exposure and white balance

    def open(self) -> None: ...

    def read(self) -> Frame | None:
        """The next frame, a new array each time (the camera keeps references to recent frames
        and never copies them on the hot path); None when a replay has no more. Raises
        BadFrameError for one bad frame, CaptureError when the device is gone."""
        ...

    def lock_exposure(self) -> bool:
        """Fix exposure, gain and white balance at their current values; False if the back
        end cannot."""
        ...

    def close(self) -> None: ...


def _as_frame(image: Any, where: str) -> Frame:
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8:
        raise BadFrameError(f"{where}: not an 8-bit image")
    if image.ndim == 2:
        return np.asarray(cv2.cvtColor(image, cv2.COLOR_GRAY2BGR), np.uint8)
    if image.ndim != 3 or image.shape[2] not in (3, 4) or min(image.shape[:2]) < 16:
        raise BadFrameError(f"{where}: unexpected frame shape {image.shape!r}")
    if image.shape[2] == 4:
        return np.asarray(cv2.cvtColor(image, cv2.COLOR_BGRA2BGR), np.uint8)
    return image


class ReplaySource:
    """A folder of images (name order) or a video file, played once or in a loop.

    In a loop the folder is listed again at each pass (images added, removed or replaced
    between passes are seen; replace a file atomically, e.g. write ``view.png.part`` and
    ``os.replace`` it, so a half-written image is never read), and a video starts again."""

    is_live = False

    def __init__(self, path: str, *, loop: bool = False) -> None:
        self.path = path
        self.loop = loop
        self.description = f"replay:{path}"
        self._files: list[str] = []
        self._index = 0
        self._video: cv2.VideoCapture | None = None

    def _listing(self) -> list[str]:
        try:
            names = sorted(n for n in os.listdir(self.path) if n.lower().endswith(IMAGE_SUFFIXES))
        except OSError as exc:
            raise CaptureError(f"{self.description}: {exc.strerror or exc}") from None
        if not names:
            raise CaptureError(f"{self.description}: no images ({', '.join(IMAGE_SUFFIXES)})")
        return [os.path.join(self.path, n) for n in names]

    def _open_video(self) -> cv2.VideoCapture:
        video = cv2.VideoCapture(self.path)
        if not video.isOpened():
            raise CaptureError(f"{self.description}: not a video OpenCV can read")
        return video

    def open(self) -> None:
        if os.path.isdir(self.path):
            self._files = self._listing()
            self._index = 0
            return
        if not os.path.exists(self.path):
            raise CaptureError(f"{self.description}: no such file or folder")
        self._video = self._open_video()

    def _next_video_frame(self) -> Any:
        assert self._video is not None
        ok, image = self._video.read()
        if not ok and self.loop:
            self._video.release()
            self._video = self._open_video()
            ok, image = self._video.read()  # a video without a single frame ends even so
        return image if ok else None

    def read(self) -> Frame | None:
        if self._video is not None:
            image = self._next_video_frame()
            return None if image is None else _as_frame(image, self.description)
        if self._index >= len(self._files):
            if not self.loop:
                return None
            self._files = self._listing()  # the next pass sees the folder as it is now
            self._index = 0
        path = self._files[self._index]
        self._index += 1
        try:
            data = np.fromfile(path, dtype=np.uint8)
        except OSError as exc:  # removed between the listing and the read
            raise BadFrameError(f"{path}: {exc.strerror or exc}") from None
        decoded: Any = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
        if decoded is None:
            raise BadFrameError(f"{path}: not an image")
        return _as_frame(decoded, path)

    def lock_exposure(self) -> bool:
        return False

    def close(self) -> None:
        if self._video is not None:
            self._video.release()
            self._video = None


VideoCaptureFactory = Callable[[int | str, int], Any]


def _video_capture(device: int | str, api: int) -> Any:
    return cv2.VideoCapture(device, api)


class V4L2Source:
    """A USB camera through OpenCV's V4L2 back end, at a fixed resolution and rate."""

    is_live = True

    def __init__(
        self,
        device: int | str,
        width: int,
        height: int,
        fps: float,
        capture_factory: VideoCaptureFactory = _video_capture,
    ) -> None:
        self.device = device
        self.width, self.height, self.fps = width, height, fps
        self.description = f"v4l2:{device}"
        self._factory = capture_factory
        self._cap: Any = None

    def open(self) -> None:
        cap = self._factory(self.device, cv2.CAP_V4L2)
        if not cap.isOpened():
            raise CaptureError(f"{self.description}: cannot open the camera")
        # MJPG lets USB 2 cameras deliver 1280×720 at a useful rate.
        cap.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter.fourcc(*"MJPG"))
        cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.width)
        cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.height)
        cap.set(cv2.CAP_PROP_FPS, self.fps)
        cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)  # the newest frame, not a stale queue
        got = (int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT)))
        if got != (self.width, self.height):
            cap.release()
            raise CaptureError(
                f"{self.description}: asked for {self.width}×{self.height}, the camera offers "
                f"{got[0]}×{got[1]}; set camera width and height to a mode it supports"
            )
        self._cap = cap

    def read(self) -> Frame | None:
        if self._cap is None:
            raise CaptureError(f"{self.description}: not open")
        ok, image = self._cap.read()
        if not ok:
            raise CaptureError(f"{self.description}: no frame (unplugged?)")
        return _as_frame(image, self.description)

    def lock_exposure(self) -> bool:
        """V4L2 controls through OpenCV: exposure to manual at its current value (the V4L2
        menu value 1 is manual), white balance off at its current temperature."""
        cap = self._cap
        if cap is None:
            return False
        exposure = cap.get(cv2.CAP_PROP_EXPOSURE)
        temperature = cap.get(cv2.CAP_PROP_WB_TEMPERATURE)
        ok = bool(cap.set(cv2.CAP_PROP_AUTO_EXPOSURE, 1))
        ok = bool(cap.set(cv2.CAP_PROP_EXPOSURE, exposure)) and ok
        ok = bool(cap.set(cv2.CAP_PROP_AUTO_WB, 0)) and ok
        if temperature > 0:
            ok = bool(cap.set(cv2.CAP_PROP_WB_TEMPERATURE, temperature)) and ok
        return ok

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


class Picamera2Source:
    """A Pi camera module (libcamera) through Picamera2, imported on open."""

    is_live = True

    def __init__(self, width: int, height: int, fps: float) -> None:
        self.width, self.height, self.fps = width, height, fps
        self.description = "picamera2"
        self._camera: Any = None

    def open(self) -> None:
        try:
            from picamera2 import Picamera2
        except ImportError:
            raise CaptureError(
                "picamera2: not installed (on Raspberry Pi OS: sudo apt install python3-picamera2,"
                " and a venv made with --system-site-packages)"
            ) from None
        try:
            camera = Picamera2()
            frame_us = int(1_000_000 / self.fps)
            # "RGB888" is BGR in memory: what OpenCV expects.
            config = camera.create_video_configuration(
                main={"size": (self.width, self.height), "format": "RGB888"},
                controls={"FrameDurationLimits": (frame_us, frame_us)},
            )
            camera.configure(config)
            camera.start()
        except Exception as exc:  # libcamera raises RuntimeError, IndexError (no camera), …
            raise CaptureError(f"picamera2: cannot start the camera: {exc}") from None
        self._camera = camera

    def read(self) -> Frame | None:
        if self._camera is None:
            raise CaptureError("picamera2: not open")
        try:
            image = self._camera.capture_array("main")
        except Exception as exc:
            raise CaptureError(f"picamera2: capture failed: {exc}") from None
        return _as_frame(image, self.description)

    def lock_exposure(self) -> bool:
        camera = self._camera
        if camera is None:
            return False
        metadata = camera.capture_metadata()
        controls: dict[str, Any] = {"AeEnable": False, "AwbEnable": False}
        for key in ("ExposureTime", "AnalogueGain", "ColourGains"):
            if key in metadata:
                controls[key] = metadata[key]
        camera.set_controls(controls)
        return True

    def close(self) -> None:
        if self._camera is not None:
            try:
                self._camera.stop()
                self._camera.close()
            finally:
                self._camera = None


def open_source(
    source: str, width: int, height: int, fps: float, *, loop: bool = False
) -> FrameSource:
    """The back end a ``source`` string names (not yet opened). Bad names: ConfigError.
    ``loop``: a replay starts again at its end (live back ends ignore it)."""
    if source == "picamera2":
        return Picamera2Source(width, height, fps)
    kind, sep, rest = source.partition(":")
    if sep and kind == "replay" and rest:
        return ReplaySource(rest, loop=loop)
    if sep and kind == "v4l2" and rest:
        return V4L2Source(int(rest) if rest.isdigit() else rest, width, height, fps)
    raise ConfigError(
        "camera.source",
        f"{source!r} is not a camera; use picamera2, v4l2:/dev/video0 (or v4l2:0) or "
        "replay:<folder or video file>",
    )
