"""ArUco 4×4 markers: the printed stickers that identify components (tickets, engineers…).

A marker id becomes the uid ``ARUCO-<id>`` so the service's tag registry binds it to a component
exactly like an RFID reader's uid.
"""

from __future__ import annotations

import functools
import statistics
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


MIN_PERIMETER_RATE: Final = 0.03  # OpenCV's default: a marker's perimeter / longer side


class MarkerDetector:
    """Wraps ``cv2.aruco.ArucoDetector``; one per thread (the detector is not shared)."""

    def __init__(self, min_perimeter_rate: float = MIN_PERIMETER_RATE) -> None:
        dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICTIONARY)
        params = cv2.aruco.DetectorParameters()
        # The smallest outline looked at, as a share of the picture's longer side (OpenCV's
        # default); a part of a larger picture read alone passes the whole picture's share.
        params.minMarkerPerimeterRate = min_perimeter_rate
        # Sub-pixel corners are not needed to identify a component; the default (none) is fast.
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_NONE
        # Read each bit from the middle of its cell (the outer 0.3 of a cell ignored): optical
        # blur (in linear light, then gamma) bleeds white into black cells at their edges.
        # Four samples a cell, the default, with the threshold window below: eight (from
        # earlier tuning, with three windows) read fewer real markers with it (384 of 466,
        # four: 397) and fewer synthetic ones at blur (20 px at σ 0.8: 25 of 45, four: 34;
        # 28 px at σ 1.5: 24, four: 32), none wrong either way.
        params.perspectiveRemovePixelPerCell = 4
        params.perspectiveRemoveIgnoredMarginPerCell = 0.3
        # A white sticker on a dark mat makes a second, larger candidate (the sticker's edge)
        # whose "border" is mostly white; the default tolerance (0.35) let one such candidate
        # decode as a wrong id in 648 synthetic reads, 0.2 none (and 3 fewer true reads).
        params.maxErroneousBitsInBorderRate = 0.2
        # No bit correction: DICT_4X4_100 can correct 1 bit, and with it OpenCV 4.11 read a 5×5
        # marker of another dictionary as our id 48 (tests/vision/test_markers.py): on a table
        # a wrong component is worse than a marker read one frame later.
        params.errorCorrectionRate = 0.0
        # One adaptive-threshold window, 15 px, not the default three (3, 13, 23): the contours
        # of each window's threshold (every grain of a textured table: 17,000 on a real photo
        # of a leather sofa) are most of OpenCV's time. On the real photos (one thread, the
        # camera's 1280×720 frame) one window took the p95 from 21 to 6.8 ms on the marker
        # photos and 19 to 7.7 ms on the table photos, and read 397 of 466 markers where the
        # three read 388, none wrong. On synthetic scenes (bench/bench_vision.py) the smallest
        # size read 95 % of the time is as before or smaller: 18 px sharp (20 before), 24 px
        # at blur σ 0.8, 40 px at σ 1.5; at 20 px 97.8 % sharp (100), 75.6 % at σ 0.8 (80).
        # Two windows (13, 23) read 406 real markers but took 11.8 ms at p95; a single 13 px or
        # 11 px window read a ChArUco board's 6×6 marker as our id 36 (36 px), 15 px does not.
        params.adaptiveThreshWinSizeMin = 15
        params.adaptiveThreshWinSizeMax = 15
        self._detector = cv2.aruco.ArucoDetector(dictionary, params)

    def detect(self, frame: npt.NDArray[np.uint8]) -> list[Marker]:
        grey = np.asarray(
            frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), np.uint8
        )
        corners, ids, _rejected = self._detector.detectMarkers(grey)
        if ids is None:
            return []
        quads = np.asarray(corners, np.float32).reshape(-1, 4, 2)
        marker_ids = [int(i) for i in ids.reshape(-1)]
        # Every check of every read at once, one warp for all their squares: read by read (a
        # warp and a dozen numpy calls each) they cost 0.15 ms a read, 5.5 ms on a real photo
        # of a board of 35 markers; so about 1 ms for 33.
        squares = _squares(grey, quads)
        half_module = _ring_contrast(grey, quads, 1.0 / 6.0)
        passed = (
            _has_quiet_zones(half_module)
            & _edges_on_the_outline(grey, quads, half_module)
            & _cells_are_whole(squares, quads)
        )
        cells = _cell_means(squares)
        found = [
            Marker(marker_id, tuple((float(x), float(y)) for x, y in quad))
            for quad, marker_id, ok, cell in zip(quads, marker_ids, passed, cells, strict=True)
            if ok and _code_explains_cells(cell, marker_id) and _twin_cells_agree(cell, marker_id)
        ]
        return sorted(found, key=lambda m: m.marker_id)


# Where _ring_means samples each side (a constant: building it per call cost more than sampling).
_RING_STEPS: Final = np.linspace(0.0, 1.0, 16, endpoint=False)[None, None, :, None]


def _ring_means(
    grey: npt.NDArray[np.uint8], quads: npt.NDArray[np.float32], scale: float
) -> npt.NDArray[np.float64]:
    """Mean grey along each quad (n × 4 × 2) scaled about its centre (16 samples per side)."""
    centres = quads.mean(axis=1, keepdims=True)
    pts = centres + (quads - centres) * scale
    samples = pts[:, :, None, :] + _RING_STEPS * (np.roll(pts, -1, axis=1) - pts)[:, :, None, :]
    h, w = grey.shape[:2]
    xs = np.clip(np.rint(samples[..., 0]).astype(int), 0, w - 1)
    ys = np.clip(np.rint(samples[..., 1]).astype(int), 0, h - 1)
    return np.asarray(grey[ys, xs].reshape(len(quads), -1).mean(axis=1), np.float64)


def _ring_contrast(
    grey: npt.NDArray[np.uint8], quads: npt.NDArray[np.float32], by: float
) -> npt.NDArray[np.float64]:
    """Mean grey just outside each quad minus just inside it, ``by`` of its half-side away
    (1/6: half a module, 1/12: a quarter)."""
    return _ring_means(grey, quads, 1.0 + by) - _ring_means(grey, quads, 1.0 - by)


def _min_sides(quads: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """Each quad's shortest side, in pixels."""
    return np.asarray(np.linalg.norm(quads - np.roll(quads, 1, axis=1), axis=2).min(axis=1))


def _has_quiet_zones(half_module: npt.NDArray[np.float64]) -> npt.NDArray[np.bool_]:
    """A real marker's black border (half a module in) is darker than its white quiet zone
    (half a module out): ``half_module`` is that contrast (:func:`_ring_contrast` by 1/6). A
    candidate that is the edge of a sticker on a dark mat is not: it decoded as a wrong id on
    synthetic scenes (a 14 px marker read as another id)."""
    return np.asarray(half_module > 25.0, np.bool_)


def _edges_on_the_outline(
    grey: npt.NDArray[np.uint8],
    quads: npt.NDArray[np.float32],
    half_module: npt.NDArray[np.float64],
) -> npt.NDArray[np.bool_]:
    """The outline OpenCV found is the marker's own edge: a quarter of a module out is already
    most of the way to the quiet zone's white, a quarter in most of the way to the border's
    black. A marker's black border wider than the threshold window is hollowed by the adaptive
    threshold, and OpenCV may then take the hollow's outline, a few pixels inside the border,
    as the marker: a 3×3-bit marker (5 cells across) of 110–170 px read so decoded as our id 10
    in 213 of 384 synthetic views (and on a real photo at 4032 px), its outline 6 px inside
    the edge, black on both sides of it. Measured as the contrast a quarter of a module either
    side of the outline against the contrast half a module either side: on the 1,140 true
    reads of the real marker photos (1280 × 720, the camera's crop and their own size) at
    least 0.56 below 48 px (blur flattens a quarter module of a pixel or less) and 0.64 from
    48 px; the hollows' outlines 0.46 at most, all at 110 px and more."""
    quarter_module = _ring_contrast(grey, quads, 1.0 / 12.0)
    least = np.where(_min_sides(quads) >= _CELLS * 8, 0.6, 0.45)
    return np.asarray(quarter_module >= least * np.maximum(half_module, 1.0), np.bool_)


_CELLS = 6  # a 4×4 marker and its one-cell black border
_RING: Final = 8  # cells across: the white quiet-zone ring, the black border, the 4 × 4 bits
# Samples a cell across in the warped squares, at 0, 1/8 … 7/8 of the cell: their mean is the
# cell's, the three at 3/8 … 5/8 its middle, symmetric about its centre. On the real photos
# (798 true reads at 1280 × 720 and full size) a middle of 0.2–0.7 (ten samples) refused 6 as
# cells not whole, 0.3–0.7 refused 3, this one 4, 0.25–0.75 refused 9; ten samples cost half
# as much again (1.4 ms for the 33 reads of a board, 1.0 ms with eight).
_PX: Final = 8
_PIXELS: Final = np.arange(_RING * _PX, dtype=np.float32)


def _squares(grey: npt.NDArray[np.uint8], quads: npt.NDArray[np.float32]) -> npt.NDArray[np.uint8]:
    """Each quad and its quiet-zone ring warped square (n × 64 × 64: _RING cells of _PX samples,
    the marker's corners at _PX and 7 · _PX in its own order), sampled bilinearly (black outside
    the frame), all in one ``cv2.remap``."""
    n = _RING * _PX
    target = np.asarray(
        [[_PX, _PX], [n - _PX, _PX], [n - _PX, n - _PX], [_PX, n - _PX]], np.float32
    )
    # square → frame for each quad, applied to the squares' pixels:
    # x' = (h00 x + h01 y + h02) / (h20 x + h21 y + h22), and y' alike, x and y broadcast
    h = np.stack([cv2.getPerspectiveTransform(target, quad) for quad in quads]).astype(np.float32)
    h = h[:, :, :, None, None]
    xs = _PIXELS[None, :]
    ys = _PIXELS[:, None]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        w = h[:, 2, 0] * xs + h[:, 2, 1] * ys + h[:, 2, 2]
        map_x = ((h[:, 0, 0] * xs + h[:, 0, 1] * ys + h[:, 0, 2]) / w).reshape(-1, n)
        map_y = ((h[:, 1, 0] * xs + h[:, 1, 1] * ys + h[:, 1, 2]) / w).reshape(-1, n)
    squares = cv2.remap(grey, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    return np.asarray(squares, np.uint8).reshape(len(quads), n, n)


def _cells_are_whole(
    squares: npt.NDArray[np.uint8], quads: npt.NDArray[np.float32]
) -> npt.NDArray[np.bool_]:
    """Every one of the 6×6 cells is one colour in its middle. A marker of another dictionary
    (5×5, 6×6 bits) read on a 6×6 grid has cells that straddle two of its own: half black,
    half white. With OpenCV 4.11 a 5×5 marker decoded as our id 48 without any bit corrected;
    its cells gave it away. Judged only where a cell is at least 8 px wide: smaller, the
    uncorrected corners put a cell's middle too close to its neighbours to tell."""
    judged = np.flatnonzero(_min_sides(quads) >= _CELLS * 8)
    passed = np.ones(len(quads), np.bool_)
    if not len(judged):
        return passed
    count = len(judged)
    inside = slice(_PX, (_RING - 1) * _PX)
    marker = squares[judged, inside, inside].reshape(count, -1)
    size = marker.shape[1]
    low_k, high_k = round(0.05 * (size - 1)), round(0.95 * (size - 1))
    ordered = np.partition(marker, (low_k, high_k), axis=1)
    low = ordered[:, low_k].astype(np.float32)
    high = ordered[:, high_k].astype(np.float32)
    cut = ((low + high) / 2.0)[:, None, None, None, None]
    middle = slice(3, 6)  # the samples at 3/8 … 5/8 of a cell
    cells = marker.reshape(count, _CELLS, _PX, _CELLS, _PX)
    middles = cells[:, :, middle, :, middle]
    dark = (middles < cut).mean(axis=(2, 4))
    # a whole cell is mostly one side of the cut (blur softens its edges); a straddling one is
    # mixed
    passed[judged] = np.all((dark <= 0.35) | (dark >= 0.65), axis=(1, 2)) & (high - low >= 30.0)
    return passed


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
# by at most 0.24. The fit cannot see it (misfit 0.25): the rest of the glass is id 17. In the
# camera's own frame of that photo (scaled to cover 1280 × 720 and cropped, 40 px) the gap is
# 0.28: 0.3 let it through. The 1,144 true reads of the real marker photos, at all three
# scales, differ by 0.17 at most.
_MAX_TWIN_GAP: Final = 0.25


class _CodeModel(NamedTuple):
    residual: npt.NDArray[np.float64]  # 36 × 36: cell means → what the blur fit leaves
    step: npt.NDArray[np.float64]  # 36: cell means → the fitted black-to-white step
    twins: npt.NDArray[np.intp]  # k × 2: indices of twin cells
    white_cells: tuple[int, ...]  # indices of the code's white cells (of 36)
    black_cells: tuple[int, ...]  # and of its black ones


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
        white_cells=tuple(int(i) for i in np.flatnonzero(own.ravel() > 0.5)),
        black_cells=tuple(int(i) for i in np.flatnonzero(own.ravel() <= 0.5)),
    )


def _cell_means(squares: npt.NDArray[np.uint8]) -> npt.NDArray[np.float64]:
    """Mean grey of each of the 8 × 8 cells of each square: quiet-zone ring, border, bits (an
    area resize by a whole ratio averages each cell exactly)."""
    count, n = len(squares), _RING * _PX
    stacked = squares.reshape(count * n, n).astype(np.float32)
    means = cv2.resize(stacked, (_RING, count * _RING), interpolation=cv2.INTER_AREA)
    return np.asarray(means, np.float64).reshape(count, _RING, _RING)


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
    values: list[float] = inner.tolist()
    white = statistics.median(values[i] for i in model.white_cells)
    black = statistics.median(values[i] for i in model.black_cells)
    gaps = np.abs(inner[model.twins[:, 0]] - inner[model.twins[:, 1]])
    return float(gaps.max()) <= _MAX_TWIN_GAP * max(white - black, 1.0)
