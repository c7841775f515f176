"""Calibrating the running camera from the table page (``/table/camera``).

:class:`LiveCalibration` wraps one running :class:`~vision.camera.Camera` and the file its
calibration lives in. It

- draws a still of the camera's newest frame as JPEG: the reveal area outlined (where the cards
  go) and the cards the camera finds there now outlined and numbered with the colour expected at
  that place (:data:`~vision.calibrate.CALIBRATION_ORDER`, left to right);
- calibrates from the newest frames: the per-pixel median of the last three (a hand passing
  through one of them is gone), cut to the reveal area, measured by
  :func:`vision.calibrate.calibrate` (which writes the file atomically), and hands the new
  palette to the camera, so it takes effect at the next frame, without a restart;
- keeps the last calibration (its result and the view it was measured in) to show each card
  found, and goes back to the default palette on request.

A refused calibration (no frame yet, not nine cards) raises :class:`CalibrationError`, and
the palette in use and the file stay as they were.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.calibrate import CALIBRATION_ORDER, CalibrationError, CalibrationResult, calibrate
from vision.camera import Camera, CameraStatus
from vision.cards import find_card_quads, warp_card
from vision.palette import DEFAULT_PALETTE, save_palette

Image = npt.NDArray[np.uint8]

STILL_MAX_WIDTH: Final = 960
STILL_JPEG_QUALITY: Final = 80
_AREA_BGR: Final = (0, 200, 255)  # the reveal area: amber
_CARD_BGR: Final = (90, 230, 90)  # a card found: green
_EXTRA_BGR: Final = (60, 60, 255)  # a card beyond the ninth: red


@dataclass(frozen=True, slots=True)
class LastCalibration:
    result: CalibrationResult
    at: float  # wall-clock time (s)
    frames: int  # frames combined into the view
    image: Image = field(repr=False, compare=False)  # the view the cards were measured in


@dataclass(frozen=True, slots=True)
class CalibrationOverview:
    """What the calibration page shows about the camera."""

    camera: str
    source: str
    status: CameraStatus
    path: str  # where the calibration is read at start and written
    saved: bool  # a file exists there
    order: tuple[str, ...]
    has_frame: bool
    reveal_area: tuple[float, float, float, float] | None
    last: LastCalibration | None


def steady_view(frames: list[Image]) -> tuple[Image, int]:
    """One view from the newest frames, and how many went into it: the per-pixel median of the
    last three when there are three of one size (a hand or a shadow in one of them is dropped),
    else the newest alone."""
    if len(frames) >= 3:
        a, b, c = frames[-3:]
        if a.shape == b.shape == c.shape:
            median = np.maximum(np.minimum(a, b), np.minimum(np.maximum(a, b), c))
            return np.asarray(median, np.uint8), 3
    return frames[-1], 1


def _label(image: Image, text: str, origin: tuple[int, int], colour: tuple[int, int, int]) -> None:
    """``text`` in ``colour`` on a dark box (readable on any table), kept inside the picture."""
    scale = max(0.45, image.shape[1] / 1600)
    thickness = max(1, round(scale * 2))
    (width, height), baseline = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thickness)
    pad = max(2, thickness * 2)
    x = max(pad, min(origin[0], image.shape[1] - width - pad))
    y = max(height + pad, min(origin[1], image.shape[0] - baseline - pad))
    cv2.rectangle(
        image, (x - pad, y - height - pad), (x + width + pad, y + baseline + pad), (20, 20, 20), -1
    )
    cv2.putText(
        image, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thickness, cv2.LINE_AA
    )


def _jpeg(image: Image) -> bytes:
    ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, STILL_JPEG_QUALITY])
    if not ok:
        raise ValueError("the picture could not be encoded as JPEG")
    return bytes(encoded.tobytes())


class LiveCalibration:
    """The calibration step for one running camera; see the module's documentation."""

    def __init__(self, camera: Camera, path: str, clock: Callable[[], float] = time.time) -> None:
        self.camera = camera
        self.path = path
        self._clock = clock
        self._busy = threading.Lock()  # one calibration (or reset) at a time
        self._last: LastCalibration | None = None

    @property
    def _where(self) -> str:
        name = self.camera.config.name
        if self.camera.config.reveal_area is None:
            return f"the view of camera {name!r}"
        return f"the outlined area of camera {name!r}"

    def _area(self, image: Image) -> tuple[slice, slice]:
        return self.camera.config.reveal_pixels(image.shape[1], image.shape[0])

    def overview(self) -> CalibrationOverview:
        config = self.camera.config
        return CalibrationOverview(
            camera=config.name,
            source=config.source,
            status=self.camera.status(),
            path=self.path,
            saved=os.path.isfile(self.path),
            order=CALIBRATION_ORDER,
            has_frame=self.camera.has_frame(),
            reveal_area=config.reveal_area,
            last=self._last,
        )

    def calibrate(self, frames: int = 3) -> CalibrationResult:
        """Measure the nine cards in the camera's newest view, store the palette, use it.

        ``frames``: how many of the newest frames to combine (1, or 3 for their median).
        Raises :class:`CalibrationError` when there is no frame yet or the view does not show
        exactly nine cards; the palette in use and the file are then unchanged."""
        if frames not in (1, 3):
            raise ValueError(f"frames: expected 1 or 3, got {frames!r}")
        with self._busy:
            recent = self.camera.recent_frames(frames)
            if not recent:
                status = self.camera.status()
                why = status.last_error or f"the camera is {status.state}"
                raise CalibrationError(
                    f"camera {self.camera.config.name!r} has no picture yet ({why}): wait a "
                    "moment and try again"
                )
            view, used = steady_view(recent)
            rows, columns = self._area(view)
            area = np.ascontiguousarray(view[rows, columns])
            result = calibrate(
                [area], self.path, camera=self.camera.config.name, names=[self._where]
            )
            self.camera.use_palette(result.palette)
            self._last = LastCalibration(result, self._clock(), used, area)
            return result

    def reset(self) -> str:
        """Back to the default palette: the file is rewritten with it (atomically: the camera
        reads it at the next start too) and the camera uses it now. Returns the file's path."""
        with self._busy:
            save_palette(DEFAULT_PALETTE, self.path, measured_from=["the default palette"])
            self.camera.use_palette(DEFAULT_PALETTE)
            self._last = None
            return self.path

    def still_jpeg(self, max_width: int = STILL_MAX_WIDTH) -> bytes | None:
        """The newest frame as JPEG (at most ``max_width`` wide) with the reveal area and the
        cards found in it outlined; None before the camera's first frame."""
        frame = self.camera.latest_frame()
        if frame is None:
            return None
        rows, columns = self._area(frame)
        quads = find_card_quads(np.ascontiguousarray(frame[rows, columns]))
        offset = np.asarray([columns.start, rows.start], np.float32)
        scale = min(1.0, max_width / frame.shape[1])
        still = frame
        if scale < 1.0:
            size = (round(frame.shape[1] * scale), round(frame.shape[0] * scale))
            still = np.asarray(cv2.resize(frame, size, interpolation=cv2.INTER_AREA), np.uint8)
        thick = max(2, round(still.shape[1] / 320))
        if self.camera.config.reveal_area is not None:
            x0, y0 = round(columns.start * scale), round(rows.start * scale)
            x1, y1 = round(columns.stop * scale) - 1, round(rows.stop * scale) - 1
            cv2.rectangle(still, (x0, y0), (x1, y1), _AREA_BGR, thick)
            _label(still, "lay the cards here", (x0 + 2 * thick, y0 + 10 * thick), _AREA_BGR)
        for index, quad in enumerate(quads):
            points = np.rint((quad + offset) * scale).astype(np.int32)
            extra = index >= len(CALIBRATION_ORDER)
            colour = _EXTRA_BGR if extra else _CARD_BGR
            cv2.polylines(still, [points.reshape(-1, 1, 2)], True, colour, thick)
            name = "extra" if extra else CALIBRATION_ORDER[index]
            left, top = int(points[:, 0].min()), int(points[:, 1].min())
            _label(still, f"{index + 1} {name}", (left, max(12, top - 2 * thick)), colour)
        return _jpeg(still)

    def sample_jpeg(self, index: int) -> bytes | None:
        """The last calibration's card ``index`` (0-based, in the calibration order) as the
        camera saw it, straightened, as JPEG; None when there is no such card."""
        last = self._last
        if last is None or not 0 <= index < len(last.result.samples):
            return None
        corners = np.asarray(last.result.samples[index].corners, np.float32)
        return _jpeg(warp_card(last.image, corners))
