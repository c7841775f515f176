"""ArUco 4×4 markers: the printed stickers that identify components (tickets, engineers…).

A marker id becomes the uid ``ARUCO-<id>`` so the service's tag registry binds it to a component
exactly like an RFID reader's uid.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import cv2
import numpy as np
import numpy.typing as npt

# 4×4 bits, 100 ids (0–99): room for one game's marked components (TTR Europe has 46 tickets)
# while keeping codes far apart. On blurred synthetic scenes the 250-id set misread a marker as
# another id (1 in 211 reads) where the 50- and 100-id sets misread none: a wrong component is
# worse than a missed one.
ARUCO_DICTIONARY: Final = cv2.aruco.DICT_4X4_100
MARKER_UID_PREFIX: Final = "ARUCO-"


def marker_uid(marker_id: int) -> str:
    return f"{MARKER_UID_PREFIX}{marker_id}"


@dataclass(frozen=True, slots=True)
class Marker:
    marker_id: int
    corners: tuple[tuple[float, float], ...]  # four (x, y), the marker's own corner order

    @property
    def uid(self) -> str:
        return marker_uid(self.marker_id)

    @property
    def side_px(self) -> float:
        pts = np.asarray(self.corners, np.float32)
        return float(np.mean(np.linalg.norm(pts - np.roll(pts, 1, axis=0), axis=1)))


class MarkerDetector:
    """Wraps ``cv2.aruco.ArucoDetector``; one per thread (the detector is not shared)."""

    def __init__(self) -> None:
        dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICTIONARY)
        params = cv2.aruco.DetectorParameters()
        # Sub-pixel corners are not needed to identify a component; the default (none) is fast.
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_NONE
        # Read each bit from the middle of its cell, sampled finer than the default: optical
        # blur (in linear light, then gamma) bleeds white into black cells at their edges.
        # On synthetic scenes at blur σ 1.5 this took 48 px markers from 11/18 to 18/18 read.
        params.perspectiveRemovePixelPerCell = 8
        params.perspectiveRemoveIgnoredMarginPerCell = 0.3
        # A white sticker on a dark mat makes a second, larger candidate (the sticker's edge)
        # whose "border" is mostly white; the default tolerance (0.35) let one such candidate
        # decode as a wrong id in 648 synthetic reads, 0.2 none (and 3 fewer true reads).
        params.maxErroneousBitsInBorderRate = 0.2
        # No bit correction: DICT_4X4_100 can correct 1 bit, and with it OpenCV 4.11 read a 5×5
        # marker of another dictionary as our id 48 (tests/vision/test_markers.py): on a table
        # a wrong component is worse than a marker read one frame later.
        params.errorCorrectionRate = 0.0
        # The default three adaptive-threshold windows (3, 13, 23 px) are kept: two (3, 23) were
        # a third faster at 1280×720 (5.8 → 3.8 ms) but read far fewer 28–32 px markers at
        # blur σ 1.5 (e.g. 28 px on a dark mat: 13/18 → 1/18).
        self._detector = cv2.aruco.ArucoDetector(dictionary, params)

    def detect(self, frame: npt.NDArray[np.uint8]) -> list[Marker]:
        grey = np.asarray(
            frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), np.uint8
        )
        corners, ids, _rejected = self._detector.detectMarkers(grey)
        if ids is None:
            return []
        found = [
            Marker(int(i), tuple((float(x), float(y)) for x, y in c.reshape(-1, 2)))
            for c, i in zip(corners, ids.reshape(-1), strict=True)
            if _has_quiet_zone(grey, np.asarray(c, np.float32).reshape(-1, 2))
            and _cells_are_whole(grey, np.asarray(c, np.float32).reshape(-1, 2))
        ]
        return sorted(found, key=lambda m: m.marker_id)


def _ring_mean(grey: npt.NDArray[np.uint8], quad: npt.NDArray[np.float32], scale: float) -> float:
    """Mean grey along the quad scaled about its centre (16 samples per side)."""
    centre = quad.mean(axis=0)
    pts = centre + (quad - centre) * scale
    t = np.linspace(0.0, 1.0, 16, endpoint=False)[:, None]
    samples = np.concatenate([pts[k] + t * (pts[(k + 1) % 4] - pts[k]) for k in range(4)])
    h, w = grey.shape[:2]
    xs = np.clip(np.rint(samples[:, 0]).astype(int), 0, w - 1)
    ys = np.clip(np.rint(samples[:, 1]).astype(int), 0, h - 1)
    return float(grey[ys, xs].mean())


def _has_quiet_zone(grey: npt.NDArray[np.uint8], quad: npt.NDArray[np.float32]) -> bool:
    """A real marker's black border (half a module in) is darker than its white quiet zone
    (half a module out). A candidate that is the edge of a sticker on a dark mat is not: it
    decoded as a wrong id on synthetic scenes (a 14 px marker read as another id)."""
    inner = _ring_mean(grey, quad, 1.0 - 1.0 / 6.0)
    outer = _ring_mean(grey, quad, 1.0 + 1.0 / 6.0)
    return outer - inner > 25.0


_CELLS = 6  # a 4×4 marker and its one-cell black border
_CELL_PX = 10


def _cells_are_whole(grey: npt.NDArray[np.uint8], quad: npt.NDArray[np.float32]) -> bool:
    """Every one of the 6×6 cells is one colour in its middle. A marker of another dictionary
    (5×5, 6×6 bits) read on a 6×6 grid has cells that straddle two of its own: half black,
    half white. With OpenCV 4.11 a 5×5 marker decoded as our id 48 without any bit corrected;
    its cells gave it away. Judged only where a cell is at least 8 px wide: smaller, the
    uncorrected corners put a cell's middle too close to its neighbours to tell."""
    sides = np.linalg.norm(quad - np.roll(quad, 1, axis=0), axis=1)
    if float(sides.min()) < _CELLS * 8:
        return True
    side = _CELLS * _CELL_PX
    target = np.asarray([[0, 0], [side, 0], [side, side], [0, side]], np.float32)
    warp = cv2.getPerspectiveTransform(quad.astype(np.float32), target)
    square = cv2.warpPerspective(grey, warp, (side, side), flags=cv2.INTER_LINEAR)
    low, high = float(np.percentile(square, 5)), float(np.percentile(square, 95))
    if high - low < 30.0:
        return False
    cut = (low + high) / 2.0
    margin = _CELL_PX // 4
    cells = square.reshape(_CELLS, _CELL_PX, _CELLS, _CELL_PX).swapaxes(1, 2)
    middles = cells[:, :, margin : _CELL_PX - margin, margin : _CELL_PX - margin]
    dark = (middles < cut).reshape(_CELLS, _CELLS, -1).mean(axis=2)
    # a whole cell is mostly one side of the cut (blur softens its edges); a straddling one is
    # mixed
    return bool(np.all((dark <= 0.35) | (dark >= 0.65)))
