"""ArUco 4×4 markers: the printed stickers that identify components (tickets, engineers…).

A marker id becomes the uid ``ARUCO-<id>`` so the service's tag registry binds it to a component
exactly like an RFID reader's uid.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Final, NamedTuple

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
    def centre(self) -> tuple[float, float]:
        xs, ys = zip(*self.corners, strict=True)
        return sum(xs) / len(xs), sum(ys) / len(ys)

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
        found = []
        for c, i in zip(corners, ids.reshape(-1), strict=True):
            quad = np.asarray(c, np.float32).reshape(-1, 2)
            if not _has_quiet_zone(grey, quad) or not _cells_are_whole(grey, quad):
                continue
            cells = _cell_means(grey, quad)
            if _code_explains_cells(cells, int(i)) and _twin_cells_agree(cells, int(i)):
                found.append(Marker(int(i), tuple((float(x), float(y)) for x, y in quad)))
        return sorted(found, key=lambda m: m.marker_id)


# Where _ring_mean samples each side (a constant: building it per call cost more than sampling).
_RING_STEPS: Final = np.linspace(0.0, 1.0, 16, endpoint=False)[None, :, None]


def _ring_mean(grey: npt.NDArray[np.uint8], quad: npt.NDArray[np.float32], scale: float) -> float:
    """Mean grey along the quad scaled about its centre (16 samples per side)."""
    centre = quad.mean(axis=0)
    pts = centre + (quad - centre) * scale
    samples = (
        pts[:, None, :] + _RING_STEPS * (np.roll(pts, -1, axis=0) - pts)[:, None, :]
    ).reshape(-1, 2)
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
    low, high = (float(v) for v in np.percentile(square, (5, 95)))
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


# The code's own look, checked against the cells: OpenCV decides each bit alone (the middle of
# its cell against one threshold), so anything whose cells fall on the right sides of that
# threshold passes. On real photos (bench/bench_markers_real.py) that read a 6×6 marker of
# OpenCV's tutorial board as our id 44 (41 px, the photo at its own 640×480), a 6×6 ChArUco
# marker as 43 (26 px), and the "fragile" glass printed on a carton as 17 (20 and 30 px), all
# below the 48 px where the cells check above applies. Two checks on the mean of every cell of
# the marker and its quiet-zone ring (8 × 8 cells, warped at _PX px a cell). Measured on the 50
# ChArUco photos of jorgerobles/aruco_cnc_registration (DICT_4X4_50; 14 are in
# bench/real_markers.json) at their own size and at 1280×720: 3,123 reads of 16–139 px, and 401
# synthetic reads (12–64 px, blur σ 0–1.5); both checks together refuse none of them.
# They do not make a marker of another dictionary safe below 48 px: on synthetic sheets of 5×5,
# 6×6, 7×7, AprilTag and ARUCO_ORIGINAL markers at 20–52 px (bench_markers_real.py --sheets)
# they refuse about 40 % of the misreads the checks above let through (docs/vision.md, limits).
_PX: Final = 8  # enough pixels to average a cell; the 64 × 64 warp costs about 0.05 ms a read
_RING: Final = 8  # cells across: the white quiet-zone ring, the black border, the 4 × 4 bits
# The code seen through blur must explain the cells: each cell is fitted as its own colour plus
# what its four side and four corner neighbours spill into it (the quiet zone white), one
# least-squares fit per read. On the reads above the worst cell was off by at most 0.57 of the
# fitted black-to-white step; the 6×6 ChArUco marker read as 43 by 8 steps, and for the board
# read as 44 the fitted step is not even positive.
_MAX_MISFIT: Final = 1.5
# Twin cells must look alike: two neighbouring cells of the same colour whose own neighbours are
# the same (quiet zone white) receive the same blur whatever its size, so they differ only by
# noise. The carton's glass has the cells of id 17 but its foot lights two border cells whose
# twins are black: 0.38–0.42 of the black-to-white step apart, where the reads above differed
# by at most 0.24. The fit cannot see it (misfit 0.25): the rest of the glass is id 17.
_MAX_TWIN_GAP: Final = 0.3


class _CodeModel(NamedTuple):
    residual: npt.NDArray[np.float64]  # 36 × 36: cell means → what the blur fit leaves
    step: npt.NDArray[np.float64]  # 36: cell means → the fitted black-to-white step
    twins: npt.NDArray[np.intp]  # k × 2: indices of twin cells
    white: npt.NDArray[np.bool_]  # 36: the code's white cells


@functools.lru_cache(maxsize=128)
def _code_model(marker_id: int) -> _CodeModel:
    """The blur fit of one code as matrices (the same for every read of that id)."""
    dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICTIONARY)
    bits = cv2.aruco.generateImageMarker(dictionary, marker_id, _CELLS, borderBits=1) > 127
    code = np.pad(bits.astype(np.float64), 1, constant_values=1.0)
    own = code[1:7, 1:7]
    sides = (code[0:6, 1:7] + code[2:8, 1:7] + code[1:7, 0:6] + code[1:7, 2:8]) / 4
    corners = (code[0:6, 0:6] + code[0:6, 2:8] + code[2:8, 0:6] + code[2:8, 2:8]) / 4
    design = np.stack([np.ones(36), own.ravel(), sides.ravel(), corners.ravel()], axis=1)
    pinv = np.linalg.pinv(design)
    twins = [
        (r * 6 + c, r2 * 6 + c2)
        for r in range(6)
        for c in range(6)
        for r2, c2 in ((r, c + 1), (r + 1, c))
        if r2 < 6
        and c2 < 6
        and np.array_equal(code[r : r + 3, c : c + 3], code[r2 : r2 + 3, c2 : c2 + 3])
    ]
    return _CodeModel(
        residual=np.eye(36) - design @ pinv,
        step=pinv[1] + pinv[2] + pinv[3],
        twins=np.asarray(twins, np.intp).reshape(-1, 2),
        white=own.ravel() > 0.5,
    )


def _cell_means(
    grey: npt.NDArray[np.uint8], quad: npt.NDArray[np.float32]
) -> npt.NDArray[np.float64]:
    """Mean grey of each of the 8 × 8 cells: quiet-zone ring, border, bits (marker's own order)."""
    n = _RING * _PX
    target = np.asarray(
        [[_PX, _PX], [n - _PX, _PX], [n - _PX, n - _PX], [_PX, n - _PX]], np.float32
    )
    warp = cv2.getPerspectiveTransform(quad, target)
    square = cv2.warpPerspective(grey, warp, (n, n), flags=cv2.INTER_LINEAR)
    return np.asarray(
        square.reshape(_RING, _PX, _RING, _PX).mean(axis=(1, 3), dtype=np.float64), np.float64
    )


def _code_explains_cells(cells: npt.NDArray[np.float64], marker_id: int) -> bool:
    """The blur fit of the code leaves no cell far off (in steps of its black-to-white)."""
    model = _code_model(marker_id)
    inner = cells[1:7, 1:7].ravel()
    step = float(model.step @ inner)
    if step <= 1.0:  # the code's white is not lighter than its black: not this code at all
        return False
    return float(np.abs(model.residual @ inner).max()) <= _MAX_MISFIT * step


def _twin_cells_agree(cells: npt.NDArray[np.float64], marker_id: int) -> bool:
    """No two twin cells differ by more than _MAX_TWIN_GAP of the code's black-to-white."""
    model = _code_model(marker_id)
    if not len(model.twins):  # a code without twins has nothing to compare
        return True
    inner = cells[1:7, 1:7].ravel()
    white = float(np.median(inner[model.white]))
    black = float(np.median(inner[~model.white]))
    gaps = np.abs(inner[model.twins[:, 0]] - inner[model.twins[:, 1]])
    return float(gaps.max()) <= _MAX_TWIN_GAP * max(white - black, 1.0)
