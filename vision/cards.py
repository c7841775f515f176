"""Train cards: find them, warp each to a canonical card, read its colour.

Finding works on edges, not on a threshold against the background, so it does not need a dark
mat: the card's white margin against a dark mat, wood or a light table gives an outline; closed
outlines with four corners (or a near-rectangular hull) and a card's proportions are candidates.
Each side is snapped onto the margin's outer edge, and a candidate whose margin is not brighter
than its surroundings is dropped (an outline inside the artwork, or a card whose margin cannot
be seen well enough to white-balance it). Finding runs on a copy at most 640 px wide; the warp samples the full frame.

The colour is read after white-balancing the card against its own printed white margin: the
brightest neutral pixels of the ring just inside the card's edge give a per-channel gain, which
cancels the light's colour (warm bulbs) and strength (dim rooms). See :mod:`vision.palette` for
the features and the classes.
"""

from __future__ import annotations

import functools
import itertools
import math
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Final, NamedTuple

import cv2
import numpy as np
import numpy.typing as npt

from vision.palette import DEFAULT_PALETTE, UNSURE, Palette

Image = npt.NDArray[np.uint8]
Quad = npt.NDArray[np.float32]  # (4, 2): corners in order, the first edge a short one
Point = tuple[float, float]

# Canonical card: 2 px per mm of a 44 × 68 mm card, portrait.
CARD_W: Final = 88
CARD_H: Final = 136
FIND_MAX_SIDE: Final = 640
# Card proportions accepted (long side / short side); nominal 68 / 44 ≈ 1.55, tilt distorts.
ASPECT_MIN: Final = 1.2
ASPECT_MAX: Final = 2.0
MIN_AREA_FRACTION: Final = 0.0012  # of the frame: a card at least ~2 % of the width
MAX_AREA_FRACTION: Final = 0.5  # a close-up card; beyond, a reason is given
DEFAULT_UNSURE_BELOW: Final = 0.75
# A table this share of the picture or more takes the cards' white level (the white masks see
# one sheet): a white, cream or light stone table. There a card's margin may be no brighter than
# what it lies on.
_LIGHT_TABLE: Final = 0.6

_RING = 0.09  # the margin ring sampled for white balance, as a fraction of the card's size
_FIELD = 0.18  # the field is sampled this far inside every edge
_MIN_COLOURED_SHARE = 0.01  # of the field, for the coloured pixels to decide the colour
_SOME_COLOURED_SHARE = 0.002  # white synthetic cards in any light: at most 0.0014
_NEUTRAL: Final = ("white", "black")
_MIN_DARK_SHARE = 0.3  # of the field, for its dark pixels to make a colourless card black
_SOME_DARK_SHARE = 0.12  # between the two: a colourless card is unsure (white or black?)
# The ink on a card read as white (card_ink), measured against the field's own paper rather
# than the margin: a printed field whiter or greyer than its margin (print variation, up to 0.18
# of tint on the synthetic white cards against the margin) then is not ink, and the margin's
# warm cast from a wood table is not taken for the ink's colour. Set cards in AviH0/Set-Solver
# photos whose shapes are only thin outlines or faint stripes (purple or green: 16 read
# confidently "white") have pale, thin ink that the coloured pixels (chroma > 0.15) miss.
# A field pixel this much darker than the paper (a share of its lightness) is ink. Lower, the
# white synthetic cards' tint (below) is no longer small: up to 0.56 at 0.1 (little colour over
# little darkness); at 0.2 at most 0.064, and the Set outlines are still 0.045–0.17 of the field.
_INK_DARKNESS = 0.2
# Ink this share of the field or more is a drawing, not a speck of dirt or noise (those
# outlines and stripes: 0.045–0.17 of the field; the synthetic wagon on a white card: ~0.27).
_INK_MIN_SHARE = 0.02
# The ink's tint: the chroma of its mean colour against the paper per unit of its darkness (0 for
# grey or black ink at any darkness; a hue diluted by a thin line's blending with the paper keeps
# its tint). Measured: white synthetic cards (every table, light, blur, tilt; 720 cards) at most
# 0.064, in dim light (0.055 among those read white); black clubs and spades on real playing
# cards (GerryGekao/cards) 0.044–0.068, one ornate ace 0.083 (already unsure: much dark ink);
# the Set outline and stripe cards read "white" 0.077–0.34 (Set's dull grey-violet the least),
# but a near-black violet outline on the rose cloth (AviH0/Set-Solver test image 25) 0.070.
# Just above the white synthetic cards: a white card with more tint than this is not surely
# white. A grey-inked card above it (some black pips, 0.066–0.068) is unsure, not wrong.
_INK_MIN_TINT = 0.066
# The ink's hue tells the colour only when it is clearly one class's: thin or faint ink blends
# with the paper, and glare and the paper's warmth turn its hue (pale red stripes on a Set card
# under glare read orange at 0.77 on a photo never tuned on). On the real photos the ink's
# reads were at 0.94 or more, or under 0.78.
_INK_SURE = 0.9
# Below that, ink from this tint up is not surely grey, whatever its hue: a faint violet outline
# on a small Set card measured 0.056 and read "white" at full confidence, and a navy one 0.063
# (a hue a cool light gives grey ink too: it had been trusted on that line, and was the one
# confidently wrong colour left on the photos never tuned on). Of 1,001 synthetic white cards
# (every table, light and blur), 41 are unsure, 4 more than when hues on the light's line were
# trusted.
_INK_FAINT_TINT = 0.05
# A very thin coloured line, under _INK_MIN_SHARE of the field, is still ink when its tint is
# this strong (green outlines on a small, blurred Set card: 0.8 % of the field, tint 0.44): not
# enough to read its colour, too much to say white. The synthetic white cards' wagons are a
# quarter of the field or more, grey.
_INK_THIN_SHARE = 0.004
_INK_THIN_TINT = 0.2


@dataclass(frozen=True, slots=True)
class TrainCard:
    colour: str  # a class of vision.palette.CARD_CLASSES, or "unsure"
    guess: str  # the nearest class even when unsure
    confidence: float
    corners: tuple[tuple[float, float], ...]
    box: tuple[int, int, int, int]  # x, y, w, h in the frame
    features: tuple[float, float, float, float]

    @property
    def is_unsure(self) -> bool:
        return self.colour == UNSURE


def _order(quad: npt.NDArray[np.float32]) -> Quad:
    """Clockwise (in image coordinates) from the corner nearest the top left, then turned so
    that the first edge is a short one (the canonical card is portrait).

    Plain Python on four points: called for every candidate outline (over a hundred per frame
    on wood), where numpy's per-call cost was most of the time."""
    pts: list[list[float]] = np.asarray(quad, np.float32).reshape(4, 2).tolist()
    cx = (pts[0][0] + pts[1][0] + pts[2][0] + pts[3][0]) / 4.0
    cy = (pts[0][1] + pts[1][1] + pts[2][1] + pts[3][1]) / 4.0
    pts.sort(key=lambda p: math.atan2(p[1] - cy, p[0] - cx))
    start = min(range(4), key=lambda i: pts[i][0] + pts[i][1])
    pts = pts[start:] + pts[:start]
    sides = [math.dist(pts[k], pts[(k + 1) % 4]) for k in range(4)]
    if sides[0] + sides[2] > sides[1] + sides[3]:
        pts = pts[1:] + pts[:1]
    return np.asarray(pts, np.float32)


def _aspect(quad: Quad) -> float:
    pts = quad.tolist()
    sides = [math.dist(pts[k], pts[(k + 1) % 4]) for k in range(4)]
    return (sides[1] + sides[3]) / max(sides[0] + sides[2], 1e-6)


Lines = npt.NDArray[np.float64]  # (4, 4): per side a point (x, y) and a unit direction (dx, dy)


# Finding-scale pixels: a sample this far off the first fit is a stray step (a shadow, ink); at
# 1–2.5 px true edge samples of slanted cards were dropped and cards changed on real photos.
_OUTLIER_PX: Final = 4.0


def _fit_lines(points: npt.NDArray[np.float32], weight: npt.NDArray[np.bool_]) -> Lines:
    """Lines through edge samples (M, K, 2), one per row, robust to a stray sample: a
    least-squares fit (the principal axis through the samples' centre, as OpenCV's DIST_L2 fit),
    then again without the samples more than ``_OUTLIER_PX`` off it. All sides of all quads at
    once: OpenCV's Huber fit did the job at 50 µs a line, four lines a card."""
    use = weight.astype(np.float32)
    for first in (True, False):
        total = np.maximum(use.sum(axis=1), 1e-6)
        centre = (points * use[:, :, None]).sum(axis=1) / total[:, None]  # (M, 2)
        d = points - centre[:, None, :]
        sxx = (use * d[:, :, 0] ** 2).sum(axis=1)
        syy = (use * d[:, :, 1] ** 2).sum(axis=1)
        sxy = (use * d[:, :, 0] * d[:, :, 1]).sum(axis=1)
        theta = 0.5 * np.arctan2(2.0 * sxy, sxx - syy)
        vx, vy = np.cos(theta), np.sin(theta)
        if first:
            off = np.abs(d[:, :, 0] * vy[:, None] - d[:, :, 1] * vx[:, None])
            keep = (off <= _OUTLIER_PX) & weight
            kept, had = keep.sum(axis=1), weight.sum(axis=1)
            refit = (kept >= 3) & (kept < had)
            use = np.where(refit[:, None], keep, weight).astype(np.float32)
    return np.asarray(np.stack([centre[:, 0], centre[:, 1], vx, vy], axis=1), np.float64)


_PREV = np.asarray([3, 0, 1, 2])
_NEXT = np.asarray([1, 2, 3, 0])
_TURN = np.asarray([-1.0, 1.0], np.float32)


def _corners(lines: Lines) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_]]:
    """Corner k of each quad where its side k-1 meets side k (lines (N, 4, 4): a point and a
    direction each), and whether every pair of sides meets (not parallel)."""
    x1, y1, dx1, dy1 = np.moveaxis(lines[:, _PREV], 2, 0)
    x2, y2, dx2, dy2 = np.moveaxis(lines, 2, 0)
    det = dx2 * dy1 - dx1 * dy2
    meets = (np.abs(det) >= 1e-6).all(axis=1)
    t1 = (dx2 * (y2 - y1) - dy2 * (x2 - x1)) / np.where(np.abs(det) >= 1e-6, det, 1.0)
    return np.stack([x1 + t1 * dx1, y1 + t1 * dy1], axis=2).astype(np.float32), meets


def _sides(
    quads: npt.NDArray[np.float32],
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], npt.NDArray[np.bool_]]:
    """Each side's vector (corner k to k+1), its unit normal pointing into the quad, and
    whether the quad has no side of zero length: (N, 4, 2), (N, 4, 2), (N,)."""
    along = quads[:, _NEXT] - quads
    lengths = np.hypot(along[..., 0], along[..., 1])
    whole = lengths.min(axis=1) >= 1e-6
    normals = along[..., ::-1] * _TURN / np.maximum(lengths, 1e-6)[..., None]
    outward = ((quads.mean(axis=1, keepdims=True) - quads) * normals).sum(axis=2) < 0
    inward = np.asarray(np.where(outward[..., None], -normals, normals), np.float32)
    return np.asarray(along, np.float32), inward, np.asarray(whole, np.bool_)


def _gather(grey: Image, pts: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """Grey values at the nearest pixels of ``pts`` (..., 2), clamped into the picture."""
    h, w = grey.shape[:2]
    xs = np.rint(pts[..., 0]).astype(np.intp)
    ys = np.rint(pts[..., 1]).astype(np.intp)
    np.minimum(np.maximum(xs, 0, out=xs), w - 1, out=xs)
    np.minimum(np.maximum(ys, 0, out=ys), h - 1, out=ys)
    return np.asarray(grey[ys, xs], np.float32)


_SNAP_T = np.linspace(0.2, 0.8, 9, dtype=np.float32)  # where along each side
_SNAP_OFFSETS = np.arange(-6.0, 6.01, 0.5, dtype=np.float32)  # across it, outside → inside


def _snap_many(grey: Image, quads: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """Move each side onto the card's edge: the outline found is that of a dilated edge map,
    a pixel or two outside (and a soft shadow can widen it). Along each side's normal, the
    card's edge is the strongest dark-to-bright step going inwards (the white margin).
    All quads (N, 4, 2) at once: per card, numpy's per-call cost was most of the time."""
    quads = np.asarray(quads, np.float32).reshape(-1, 4, 2)
    along, normals, whole = _sides(quads)
    base = quads[:, :, None, :] + _SNAP_T[None, None, :, None] * along[:, :, None, :]
    pts = base[:, :, :, None, :] + _SNAP_OFFSETS[:, None] * normals[:, :, None, None, :]
    profile = _gather(grey, pts)  # (N, 4, 9, 25)
    step = profile[..., 2:] - profile[..., :-2]  # inside minus outside, one pixel apart
    best = np.argmax(step, axis=3)
    strong = step.max(axis=3) > 4.0
    moved = base + _SNAP_OFFSETS[best + 1][..., None] * normals[:, :, None, :]
    # A side with fewer than three clear steps keeps the outline's own side.
    found = strong.sum(axis=2) >= 3
    points = np.where(found[..., None, None], moved, base).astype(np.float32)
    weight = np.where(found[..., None], strong, True)
    n = len(quads)
    lines = _fit_lines(points.reshape(n * 4, -1, 2), weight.reshape(n * 4, -1))
    snapped, meets = _corners(lines.reshape(n, 4, 4))
    ok = whole & meets & (np.abs(snapped - quads).max(axis=(1, 2)) <= 8.0)
    return np.asarray(np.where(ok[:, None, None], snapped, quads), np.float32)


_SIDE_T = np.linspace(0.1, 0.9, 12, dtype=np.float32)
# Lines just inside the edge (the margin is a thin band: the brightest of them is taken) and one
# just outside, as scales about the card's centre.
_MARGIN_SCALES = np.asarray([0.985, 0.97, 0.955, 1.06], np.float32)


@functools.cache
def _side_weights(scales: tuple[float, ...]) -> npt.NDArray[np.float32]:
    """The sample points along each side of a quad scaled about its centre are a fixed linear
    mix of its four corners: (scales × 4 sides × samples, 4 corners). Sampling is then one
    matrix product instead of a dozen small array operations per quad."""
    t = _SIDE_T.astype(np.float64)
    weights = np.zeros((len(scales), 4, len(t), 4), np.float64)
    for i, scale in enumerate(scales):
        for k in range(4):
            weights[i, k, :, :] += (1.0 - scale) / 4.0  # the centre's share
            weights[i, k, :, k] += scale * (1.0 - t)
            weights[i, k, :, (k + 1) % 4] += scale * t
    return weights.reshape(-1, 4).astype(np.float32)


def _side_samples(
    grey: Image, quads: npt.NDArray[np.float32], scales: npt.NDArray[np.float32]
) -> npt.NDArray[np.float32]:
    """Grey at ``_SIDE_T`` along each side of each quad (N, 4, 2) scaled about its centre, per
    scale: (N, scales, 4, T)."""
    quads = np.asarray(quads, np.float32).reshape(-1, 4, 2)
    line = _side_weights(tuple(scales.tolist())) @ quads  # (N, S·4·T, 2)
    return _gather(grey, line).reshape(len(quads), len(scales), 4, len(_SIDE_T))


def _side_means(
    grey: Image, quads: npt.NDArray[np.float32], scales: npt.NDArray[np.float32]
) -> npt.NDArray[np.float32]:
    """Mean grey along each side of each quad (N, 4, 2) scaled about its centre, per scale:
    (N, scales, 4)."""
    return _mean_along(_side_samples(grey, quads, scales))


def _mean_along(samples: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """Per side, the mean of :func:`_side_samples`' places along it: (N, scales, 4)."""
    means: npt.NDArray[np.float32] = samples.sum(axis=3) / np.float32(len(_SIDE_T))
    return means


# A side's margin is bright along at least half its length: a card's white margin runs the
# whole side (a shadow or a die may cover part of it: 7 of 12 places on the real photos' worst
# card). The inside of a printed marker's black frame, bright only where its code is white, made
# a card-shaped outline whose sides were brighter than the frame on average, at 5 of 12 places.
_MARGIN_ALONG: Final = 0.5


def _bright_margins(
    grey: Image, quads: npt.NDArray[np.float32], sides: int = 3
) -> npt.NDArray[np.bool_]:
    """A card's white margin is brighter than what it lies on, on at least three sides (glare
    may wash out one), and along most of each of them. An outline inside a card's artwork (a
    wagon whose card edge glare broke) has a brighter surround and is no card. Per quad
    (N, 4, 2)."""
    samples = _side_samples(grey, quads, _MARGIN_SCALES)
    means = _mean_along(samples)
    outer = means[:, -1]  # (N, 4)
    brighter = (means[:, :-1].max(axis=1) - outer) > 1.0
    along = (samples[:, :-1].max(axis=1) - outer[:, :, None] > 1.0).mean(axis=2) >= _MARGIN_ALONG
    return np.asarray((brighter & along).sum(axis=1) >= sides)


@dataclass(frozen=True, slots=True)
class Rejection:
    """A card-sized outline that was not taken as a card, and why (for ``see --explain`` and
    calibration: a card is never dropped silently)."""

    reason: str  # one of REJECTION_REASONS
    box: tuple[int, int, int, int]  # x, y, w, h in the frame

    def sentence(self) -> str:
        return REJECTION_REASONS[self.reason]


REJECTION_REASONS: Final[dict[str, str]] = {
    "too_close": "an outline covering more than half of the picture: a card this close cannot be "
    "told from the table; move the camera back so a card covers less than half of it",
    "not_card_shaped": "an outline with other proportions than a card's (two cards touching, or a "
    "card partly hidden or cut by the picture's edge)",
    "ragged_outline": "an outline that is not a clean four-sided shape (the table's texture or "
    "another object joined the card's edge)",
    "no_white_margin": "a card-shaped outline without a margin brighter than what it lies on "
    "(a shape inside a card's picture, or a card whose edge cannot be seen in this light)",
    "too_small": "a card-shaped outline much smaller than the other cards in the picture (a "
    "shape printed on a card, or a smaller piece of paper)",
    "blank": "a card-shaped piece with nothing printed in its middle (blank paper, a square of "
    "a printed board, or a card whose picture glare washes out): a train card always has its "
    "picture",
    "marked": "a card carrying one of Trackside's marker stickers: a marked component (a ticket), "
    "not a train card",
}


def carries_marker(quad: Quad | Sequence[Sequence[float]], centres: Sequence[Point]) -> bool:
    """Whether one of the markers' ``centres`` lies inside the card's outline ``quad`` (both in
    the same frame's coordinates). A train card never carries one of our markers; a ticket or
    another component with its sticker, laid in the reveal area, is a card-shaped outline with a
    white margin like any train card, and must not be read as one."""
    if not centres:
        return False
    contour = np.asarray(quad, np.float32).reshape(-1, 1, 2)
    return any(cv2.pointPolygonTest(contour, (x, y), False) >= 0 for x, y in centres)


_NOMINAL_ASPECT: Final = 68.0 / 44.0
# Between two cards side by side (2 × 44 / 68 ≈ 1.29) and one card (≈ 1.55): an outline below
# is first looked at as a pair.
_PAIR_ASPECT: Final = 1.36
# A slanted card's outline is its four corners' quadrilateral: they hold nearly all of it (a
# clean outline 0.97–1.0 on real photos of cards seen at a slant); a blob of table texture that
# happens to reduce to four corners leaves out more.
_QUAD_FILL: Final = 0.92


_Rect = tuple[tuple[float, float], tuple[float, float], float]  # cv2.minAreaRect's


def _row_ks(rect: _Rect) -> list[int]:
    """Cards lying edge to edge in a row make one outline: how many equal parts along its long
    side a well-filled rectangle may be split into, each with a card's proportions (either way
    up), the closest first. A row of five cards side by side has the proportions of two lying
    end to end: both are given."""
    rw, rh = rect[1]
    long_, short = max(rw, rh), min(rw, rh)

    def misfit(k: int) -> float:
        piece = long_ / k
        return abs(max(piece, short) / max(min(piece, short), 1e-6) - _NOMINAL_ASPECT)

    return sorted((k for k in range(2, 13) if misfit(k) <= 0.15 * _NOMINAL_ASPECT), key=misfit)


def _split_row(rect: _Rect, k: int) -> list[Quad]:
    """The rectangle split into ``k`` equal parts along its long side."""
    box = cv2.boxPoints(rect).astype(np.float32)
    # Along the long side from one corner, and across.
    if np.linalg.norm(box[1] - box[0]) >= np.linalg.norm(box[2] - box[1]):
        a0, a1, b0 = box[0], box[1], box[3]
    else:
        a0, a1, b0 = box[1], box[2], box[0]
    step = (a1 - a0) / k
    across = b0 - a0
    return [
        _order(
            np.asarray(
                [
                    a0 + i * step,
                    a0 + (i + 1) * step,
                    a0 + (i + 1) * step + across,
                    a0 + i * step + across,
                ],
                np.float32,
            )
        )
        for i in range(k)
    ]


# The seams between white cards touching in a row (the field inside such a card is as light as
# its margin, so the pieces' margins cannot show the cuts). At the camera's resolution a seam is
# a dark line a pixel or three wide between two white margins: in pclewis/set-solver's photo of
# nine Set cards side by side, 21 grey levels deep at the median, 9 at the 10th percentile, 5
# where the cards press together and up to 100 where their rounded corners leave a notch; at
# the finding scale, halved and blurred, it is lost among the print. A seam is looked for near
# each cut of the equal split (within _SEAM_BAND of a piece), at the camera's resolution: a
# straight line, slanted by at most _SEAM_SLANT of the row's width (cards are laid a little
# askew: that row's seams ran at -5 to +5 %), darker by _SEAM_DIP than the paper _SEAM_REACH px
# to either side, on _SEAM_ALONG of its _SEAM_SCANLINES places or more. That row's seams
# measured 0.97-1.0; the 548 cards found on the real photos, each cut into two and into three
# as if it were a row, showed seams at every cut at 0.7 for none, at 0.6 for one (a Set card).
_SEAM_SCANLINES: Final = 20
_SEAM_REACH: Final = 3
_SEAM_DIP: Final = 4.0
_SEAM_SLANT: Final = 0.08
_SEAM_BAND: Final = 0.15  # of a piece's length, either side of the equal cut
_SEAM_ALONG: Final = 0.85


class _Fine:
    """The picture at the camera's resolution (its grey made when a seam is first looked for)
    and the map to it from one look's coordinates: what the finding scale blurs away."""

    def __init__(self, frame: Image) -> None:
        self._frame = frame
        self._grey: Image | None = None

    @property
    def grey(self) -> Image:
        if self._grey is None:
            frame = self._frame
            self._grey = np.asarray(
                cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame, np.uint8
            )
        return self._grey


@dataclass(frozen=True, slots=True)
class _FineMap:
    """A look's coordinates to the camera's picture: ``fine = look × mul + add``."""

    fine: _Fine
    mul: tuple[float, float]
    add: tuple[float, float]

    def there(self, pts: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        mul, add = np.asarray(self.mul, np.float32), np.asarray(self.add, np.float32)
        return np.asarray(pts * mul + add, np.float32)

    def back(self, pts: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        mul, add = np.asarray(self.mul, np.float32), np.asarray(self.add, np.float32)
        return np.asarray((pts - add) / mul, np.float32)


@dataclass(frozen=True, slots=True)
class _Row:
    """A row outline in the camera's picture, to be cut into ``k`` cards: one long side a0 → a1,
    the other b0 → b1 (its cards may fan out a little: the sides need not be parallel)."""

    a0: npt.NDArray[np.float32]
    a1: npt.NDArray[np.float32]
    b0: npt.NDArray[np.float32]
    b1: npt.NDArray[np.float32]
    length: int  # px along the row
    k: int
    most: int  # the slant looked for, px over the row's width
    band: int  # px either side of each equal cut

    @staticmethod
    def of(corners: npt.NDArray[np.float32], k: int) -> _Row | None:
        pts = corners.tolist()
        if math.dist(pts[1], pts[0]) < math.dist(pts[2], pts[1]):
            pts = pts[1:] + pts[:1]
        length = round(max(math.dist(pts[1], pts[0]), math.dist(pts[2], pts[3])))
        if length < 4 * k * _SEAM_REACH:
            return None
        most = round(_SEAM_SLANT * math.dist(pts[3], pts[0]))
        a0, a1, b1, b0 = np.asarray(pts, np.float32)
        return _Row(a0, a1, b0, b1, length, k, most, int(_SEAM_BAND * length / k))

    @property
    def centres(self) -> npt.NDArray[np.intp]:
        return np.asarray(np.rint(np.arange(1, self.k) * self.length / self.k), np.intp)

    @property
    def reach(self) -> int:
        return self.band + self.most + _SEAM_REACH


_SEAM_ACROSS = np.linspace(0.04, 0.96, _SEAM_SCANLINES, dtype=np.float32)
_SEAM_ACROSS_FIRST = _SEAM_ACROSS[::2]  # the first, cheap look: every other scanline


def _seam_darks(
    grey: Image, rows: Sequence[_Row], reach: int, scanlines: npt.NDArray[np.float32]
) -> npt.NDArray[np.bool_]:
    """Per cut of every row, a window across the row round its equal cut, ``reach`` px either
    side, one scanline per line of the array: where a pixel is darker than the paper
    ``_SEAM_REACH`` px to either side along the row (cuts, scanlines, window)."""
    cut_rows = [row for row in rows for _ in range(row.k - 1)]
    a0, a1, b0, b1 = (
        np.asarray([getattr(row, end) for row in cut_rows], np.float32)[:, None, None, :]
        for end in ("a0", "a1", "b0", "b1")
    )
    centres = np.concatenate([row.centres for row in rows])
    lengths = np.asarray([row.length - 1 for row in cut_rows], np.float32)
    along = (centres[:, None] + np.arange(-reach, reach + 1)) / lengths[:, None]
    along = along.astype(np.float32)[:, None, :, None]  # (cuts, 1, window, 1)
    across = scanlines[None, :, None, None]
    pts = (1 - across) * (a0 + along * (a1 - a0)) + across * (b0 + along * (b1 - b0))
    # cv2.remap: numpy's gather took 0.6 ms for a frame's rows, most of their time.
    values = (
        cv2.remap(
            grey,
            np.ascontiguousarray(pts[..., 0]).reshape(-1, pts.shape[2]),
            np.ascontiguousarray(pts[..., 1]).reshape(-1, pts.shape[2]),
            cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_REPLICATE,
        )
        .reshape(pts.shape[:3])
        .astype(np.float32)
    )
    r = _SEAM_REACH
    dark = np.zeros(values.shape, bool)
    dark[..., r:-r] = (
        np.minimum(values[..., : -2 * r], values[..., 2 * r :]) - values[..., r:-r] >= _SEAM_DIP
    )
    return dark


def _seamed_rows(
    fine: _FineMap,
    boxes: Sequence[Quad],
    ks: Sequence[int],
    along: float = _SEAM_ALONG,
    least: float = ASPECT_MIN,
) -> list[list[Quad] | None]:
    """Per row outline in ``boxes`` (a look's coordinates), its ``k`` white cards touching edge
    to edge, cut at the seams between them, or None where a cut has no seam. The rows are
    first looked at all together, cheaply: most are single cards seen at a slant, or pieces of
    table, and numpy's per-call cost was most of the time when each was looked at alone."""
    found: list[list[Quad] | None] = [None] * len(boxes)
    kept: list[int] = []
    some: list[_Row] = []
    for i, (box, k) in enumerate(zip(boxes, ks, strict=True)):
        row = _Row.of(fine.there(box), k)
        if row is not None:
            kept.append(i)
            some.append(row)
    if not some:
        return found
    reach = max(row.reach for row in some)
    dark = _seam_darks(fine.fine.grey, some, reach, _SEAM_ACROSS_FIRST)
    # A line slanted by up to ``most`` px strays at most half of that from the column through
    # its middle: a seam is dark within that of one column on nearly every scanline (noise on
    # the white, and a Set card's shapes, are not).
    # (The largest row's stray for all: a looser look, in one step.)
    stray = max(row.most for row in some) // 2 + 1
    counts = np.zeros((*dark.shape[:2], dark.shape[2] + 1), np.int32)
    np.cumsum(dark, axis=2, out=counts[..., 1:])
    near = (counts[..., 2 * stray + 1 :] > counts[..., : -2 * stray - 1]).mean(axis=1).max(
        axis=1
    ) >= along
    first = 0
    for i, row in zip(kept, some, strict=True):
        if near[first : first + row.k - 1].all():
            found[i] = _cut_at_seams(fine, row, along, least)
        first += row.k - 1
    return found


def _cut_at_seams(fine: _FineMap, row: _Row, along: float, least: float) -> list[Quad] | None:
    """The row's cards, cut at the best seam near each equal cut (None when a cut has none
    along ``along`` of its length, or a piece has no card's proportions: ``least`` of them)."""
    reach, k = row.reach, row.k
    dark = _seam_darks(fine.fine.grey, [row], reach, _SEAM_ACROSS)
    slants = np.arange(-row.most, row.most + 1)
    bend = np.rint(slants[:, None] * np.linspace(0.0, 1.0, _SEAM_SCANLINES)).astype(np.intp)
    starts = np.arange(-row.band, row.band + 1)
    at = reach + starts[:, None, None] + bend[None, :, :]  # (starts, slants, scanlines)
    score = dark[:, np.arange(_SEAM_SCANLINES), at].mean(axis=-1).reshape(k - 1, -1)
    best = score.argmax(axis=1)
    if (score[np.arange(k - 1), best] < along).any():
        return None
    start, slant = np.divmod(best, len(slants))
    cuts = [(0.0, 0.0)] + [  # (at the first scanline, at the last)
        (float(c + starts[i]), float(c + starts[i] + slants[j]))
        for c, i, j in zip(row.centres.tolist(), start.tolist(), slant.tolist(), strict=True)
    ]
    end = float(row.length - 1)
    cuts.append((end, end))
    top, bottom = (row.a1 - row.a0) / end, (row.b1 - row.b0) / end
    pieces: list[Quad] = []
    for (s0, e0), (s1, e1) in itertools.pairwise(cuts):
        quad = np.asarray(
            [row.a0 + s0 * top, row.a0 + s1 * top, row.b0 + e1 * bottom, row.b0 + e0 * bottom],
            np.float32,
        )
        piece = _order(fine.back(quad))
        if not least <= _aspect(piece) <= ASPECT_MAX:
            return None
        pieces.append(piece)
    return pieces


def _candidate(
    contour: npt.NDArray[np.int32], area: float, max_area: float
) -> tuple[Quad | list[Quad] | None, str | None]:
    """A contour's card quad (or quads, for cards touching in a row), or the reason it is none
    (None when it cannot be said); ``area`` is the contour's, at least a card's smallest."""
    hull = cv2.convexHull(contour)
    hull_area = cv2.contourArea(hull)
    if hull_area > max_area:
        # A card this close is a solid four-sided outline with a card's proportions; a light
        # table's region round the cards (its objects cut out of it) is not, and "move the camera
        # back" would send the players wrong.
        approx = cv2.approxPolyDP(hull, 0.04 * cv2.arcLength(hull, True), True)
        close_card = (
            len(approx) == 4
            and area >= 0.85 * hull_area
            and ASPECT_MIN <= _aspect(_order(approx.reshape(4, 2).astype(np.float32))) <= ASPECT_MAX
        )
        return None, "too_close" if close_card else None
    rect = cv2.minAreaRect(hull)
    rw, rh = rect[1]
    if rw * rh <= 0:
        return None, None
    aspect = max(rw, rh) / max(min(rw, rh), 1e-6)
    if area < 0.85 * hull_area:
        return None, "ragged_outline" if aspect <= ASPECT_MAX else "not_card_shaped"
    approx = cv2.approxPolyDP(hull, 0.04 * cv2.arcLength(hull, True), True)
    if hull_area < 0.85 * rw * rh:
        # Not a rectangle: perhaps a card seen at a slant (a camera beside the table sees a
        # parallelogram or a trapezoid, which fills its bounding rectangle badly). Taken when
        # four corners hold the whole outline.
        if len(approx) != 4 or cv2.contourArea(approx) < _QUAD_FILL * hull_area:
            return None, "ragged_outline" if aspect <= ASPECT_MAX else "not_card_shaped"
        quad = _order(approx.reshape(4, 2).astype(np.float32))
        if not ASPECT_MIN <= _aspect(quad) <= ASPECT_MAX:
            return None, "not_card_shaped"
        return quad, None
    if abs(aspect - _NOMINAL_ASPECT) > 0.15 * _NOMINAL_ASPECT:
        # Far from a card's proportions: perhaps cards touching in a row (each piece must then
        # show its own margin on all four sides); else, if still within the accepted range, a
        # card seen at a slant.
        row = ((rect[0][0], rect[0][1]), (rw, rh), rect[2])
        ks = _row_ks(row)
        if ks:
            return _split_row(row, ks[0]), None
        if aspect > ASPECT_MAX:
            return None, "not_card_shaped"
    quad = (
        approx.reshape(4, 2).astype(np.float32)
        if len(approx) == 4
        else cv2.boxPoints(rect).astype(np.float32)
    )
    quad = _order(quad)
    if not ASPECT_MIN <= _aspect(quad) <= ASPECT_MAX:
        return None, "not_card_shaped"
    return quad, None


def _filled(mask: Image) -> Image:
    """The mask's regions with their holes filled (the shapes printed on a card), then eroded by
    a pixel to cut regions apart where they touch. The holes are what a flood of the background
    from outside the picture does not reach (one flood: drawing every outer outline filled took
    twice as long on the speckled mask of a terrazzo floor, 0.13 against 0.07 ms)."""
    h, w = mask.shape[:2]
    outside = np.zeros((h + 2, w + 2), np.uint8)
    outside[1:-1, 1:-1] = mask
    cv2.floodFill(outside, None, (0, 0), (255,))
    filled = cv2.bitwise_or(mask, cv2.bitwise_not(outside[1:-1, 1:-1]))
    return np.asarray(cv2.erode(filled, np.ones((3, 3), np.uint8)), np.uint8)


def _white_masks(hsv: Image) -> list[Image]:
    """Where the picture is a card's white: bright and unsaturated against the picture (Otsu on
    value minus saturation), at two levels: the picture's split, and the split of what is above
    it (on a light table the first level takes in the wood's bright grain as well). Light wood
    is bright but saturated; leather or fleece grain, which makes edges everywhere, is one even
    region here. The gaps between touching cards are opened by an erosion. ``hsv``: the
    picture in HSV."""
    _, saturation, value = cv2.split(hsv)  # contiguous planes: subtracting views copied them
    whiteness = cv2.subtract(value, saturation)
    whiteness = np.asarray(cv2.GaussianBlur(whiteness, (5, 5), 0), np.uint8)
    first, mask = cv2.threshold(whiteness, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    masks = [mask]
    above = whiteness[whiteness > first]
    if above.size > 64:
        second, _ = cv2.threshold(above.reshape(1, -1), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        if second > first + 8:
            _, upper = cv2.threshold(whiteness, second, 255, cv2.THRESH_BINARY)
            masks.append(upper)
    # A coloured card's white is a thin ring round its field: fill what each outline holds, then
    # erode (a thin ring would break).
    return [_filled(np.asarray(m, np.uint8)) for m in masks]


# On a light table (_LIGHT_TABLE) two more masks of where the cards lie, looked at after the
# others. On a cream table the light side of a card has no edge at all (white on cream, in
# the grey picture a step of a level or two): the edges see three sides, the white masks one
# sheet. The card is less saturated than the cream it lies on: where the table's median
# saturation is this or more, the places half as saturated or less are a mask.
_TINTED_TABLE: Final = 10.0
# On terrazzo the chips' edges run into the cards' edges on every side; the card is smooth and
# the floor is not: places whose grey varies by under this standard deviation over a 5 × 5
# window are a mask (terrazzo: a median of 5–8 levels over 7 × 7; on the photos never tuned on,
# 2 levels over 5 × 5 found 3 cards more than 3 over 7 × 7, 2.5 or 3 over 5 × 5 none).
_SMOOTH_SD: Final = 2.0
_SMOOTH_WINDOW: Final = (5, 5)


# A dark border is a thin band: a tenth of the way in (scale 0.8) a card of the older printing
# is its field, lighter than the border by this much on average (black-bordered Magic cards on
# wood: 21–29 grey levels); a printed black square or a marker's border, solid far deeper, is
# as dark or darker there (on the marker photos, all of them).
_BORDER_SCALES = np.asarray([0.97, 0.94, 0.8], np.float32)
_LIGHTER_INSIDE: Final = 10.0


def _lighter_inside_border(grey: Image, quads: npt.NDArray[np.float32]) -> npt.NDArray[np.bool_]:
    """Per quad (N, 4, 2): a card's proportions, and its inside lighter than its dark border
    (a thin band along its edge, not a solid dark shape)."""
    means = _side_means(grey, quads, _BORDER_SCALES).mean(axis=2)  # (N, scales)
    lighter = means[:, 2] - means[:, :2].min(axis=1) >= _LIGHTER_INSIDE
    shaped = np.asarray([ASPECT_MIN <= _aspect(q) <= ASPECT_MAX for q in quads], bool)
    return np.asarray(lighter & shaped)


# A white card on a white or cream table in soft light shows no step at its edge on the lit
# sides, only the thin shadow line of its cut edge: 2-8 grey levels darker than the paper on
# either side, a pixel or two wide (on gorgeousone's off-white table: top and right sides 2-4
# levels, the shadowed sides 5-8). Those lines are a mask on a light table (a black-hat of the
# grey picture: what a closing by 5 px fills in), looked at last.
_LINE_DIP: Final = 3
_LINE_KERNEL = np.ones((5, 5), np.uint8)
# Lines on this share of the picture or more: a grained or textured light table, where such
# faint lines are everywhere; nothing is looked for in them.
_BUSY_LINES: Final = 0.15


def _line_mask(grey: Image) -> Image | None:
    """Where a light table's picture has a thin dark line (a card's edge in soft light), or
    None where such lines are everywhere."""
    dips = cv2.morphologyEx(grey, cv2.MORPH_BLACKHAT, _LINE_KERNEL)
    _, lines = cv2.threshold(dips, _LINE_DIP - 1, 255, cv2.THRESH_BINARY)
    if cv2.countNonZero(lines) >= _BUSY_LINES * lines.size:
        return None
    return np.asarray(cv2.dilate(lines, np.ones((3, 3), np.uint8)), np.uint8)


def _dark_mask(grey: Image) -> Image:
    """Where a light table's picture is dark (Otsu on grey), holes filled: the cards of a
    printing with a dark border, whatever lies on them."""
    _, mask = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    return _filled(np.asarray(mask, np.uint8))


def _light_table_masks(grey: Image, saturation: Image, light: Image) -> tuple[Image | None, Image]:
    """On a light table (``light``: the first white mask, the table and the cards on it): where
    it is neutral against a tinted table (None on a neutral one), and where it is smooth."""
    neutral = None
    values = saturation[::4, ::4][light[::4, ::4] > 0]  # a sample will do for the median
    table = float(np.median(values)) if values.size else 0.0
    if table >= _TINTED_TABLE:
        neutral = _filled(
            ((saturation <= table / 2) & (light > 0)).astype(np.uint8) * np.uint8(255)
        )
    level = grey.astype(np.float32)
    mean = cv2.blur(level, _SMOOTH_WINDOW)
    variance = cv2.blur(level * level, _SMOOTH_WINDOW) - mean * mean
    smooth = ((variance < _SMOOTH_SD**2) & (light > 0)).astype(np.uint8) * np.uint8(255)
    return neutral, _filled(smooth)


# The neutral mask's candidates are sampled this far inside (the mask follows the JPEG's
# coarser colour, a few pixels off the edge) and just outside.
_NEUTRAL_SCALES = np.asarray([0.97, 0.94, 0.91, 1.1], np.float32)


def _neutral_margins(saturation: Image, quads: npt.NDArray[np.float32]) -> npt.NDArray[np.bool_]:
    """On a tinted table a card's margin is less saturated than the table on every side and along
    most of it (its grey may be no different: on a cream table the cards were a level or two
    darker than the table, in the light or in shadow), by a third of the table's saturation on
    average (the far side of a table is less tinted than the near side). Per quad (N, 4, 2)."""
    samples = _side_samples(saturation, quads, _NEUTRAL_SCALES)
    means = _mean_along(samples)
    outer = means[:, -1]  # (N, 4)
    less = outer - means[:, :-1].min(axis=1)
    clear = (less > 1.0).all(axis=1) & (less.mean(axis=1) > 0.3 * outer.mean(axis=1))
    along = ((outer[:, :, None] - samples[:, :-1].min(axis=1)) > 1.0).mean(axis=2) >= _MARGIN_ALONG
    return np.asarray(clear & along.all(axis=1))


def _edge_mask(grey: Image) -> Image:
    edges = cv2.Canny(grey, 12, 36, L2gradient=True)
    return np.asarray(cv2.dilate(edges, np.ones((3, 3), np.uint8)), np.uint8)


# Edges on this share of the picture or more: a busy table (leather, carpet, a printed cloth),
# whose edges enclose thousands of specks (2,670 on a leather sofa): they are dropped by their
# box's size in one pass (connected components) rather than one by one (5.0 → 2.1 ms there;
# on a plain table, with a few dozen regions, the one-by-one way is cheaper: 0.2 ms).
_BUSY_EDGES: Final = 0.4


def _large_regions(mask: Image, min_area: float) -> Sequence[npt.NDArray[np.int32]]:
    """The outer outlines of the mask's regions whose bounding box holds ``min_area``: the
    others cannot hold a card's outline."""
    _, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    keep = (stats[:, cv2.CC_STAT_WIDTH] * stats[:, cv2.CC_STAT_HEIGHT] >= min_area).astype(
        np.uint8
    ) * np.uint8(255)
    keep[0] = 0  # label 0: the edges themselves
    contours, _ = cv2.findContours(keep[labels], cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    return [np.asarray(c, np.int32) for c in contours]


def _all_regions(mask: Image, min_area: float, max_area: float) -> Sequence[npt.NDArray[np.int32]]:
    """The outer outlines of all the mask's regions, those lying in another's hole included (a
    card's inside lies in a hole of the table's region), whose box holds ``min_area`` and whose
    outline holds no more than ``max_area`` (the table's own region)."""
    contours, hierarchy = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hierarchy is None:
        return []
    out = []
    for contour, (_, _, _, parent) in zip(contours, hierarchy[0].tolist(), strict=True):
        if parent != -1:
            continue  # a hole's outline
        _, _, w, h = cv2.boundingRect(contour)
        if w * h >= min_area and cv2.contourArea(contour) <= max_area:
            out.append(np.asarray(contour, np.int32))
    return out


def _enclosed(edges: Image) -> Image:
    """The regions the edges enclose. On a patterned cloth or a busy rug the table's own edges
    run into a card's outline from outside, so the card's outer outline is ragged; the inside
    of its edge is still a clean card-shaped region (the snap then moves each side out onto
    the card's edge)."""
    return np.asarray(cv2.bitwise_not(edges), np.uint8)


# The insides are shrunk by 3 px (finding scale) on every side: more than a gap
# in a card's edge on stone or grained wood (where a chip or a grain line breaks the edge, the
# inside runs out into the table through it and is not card-shaped); the snap, which looks
# 6 px either side of each side, moves them back out onto the card's edge. (On a light table
# they were shrunk by 2 px as well, for the thin places of a card's own inside on terrazzo;
# since the light-table masks and the cards whose edges show on three sides or two, that look
# found no card the others did not, on any real photo: it is gone.)
_OPENED_BY: Final = 3


def _opened(enclosed: Image, taken: Sequence[Quad], by: int) -> Image:
    """The regions the edges enclose, shrunk by ``by`` pixels to cut them apart where they meet
    through a narrow gap, without the cards ``taken`` already (their insides, and the shapes
    printed on them, which are regions too: looking at them again cost a busy table of 52 cards
    4 ms)."""
    kernel = np.ones((2 * by + 1, 2 * by + 1), np.uint8)
    opened = np.asarray(cv2.erode(enclosed, kernel), np.uint8)
    if taken:
        cv2.fillPoly(opened, [np.rint(q).astype(np.int32) for q in taken], (0,))
    return opened


# Up to this many cards taken, a loop in Python asks faster than numpy's per-call cost.
_FEW_TAKEN: Final = 12
# A card taken is the one a new outline shows when it is at least this share of the outline's
# area; a card taken inside one at least 1 / this as large is a shape printed on that one (Set
# cards' shapes, the upper halves of their ovals: 0.15 of the card; two cards side by side, one
# of them taken, a half: that outline stays the card taken).
_TAKEN_SHARE: Final = 0.3
# A dark-bordered card takes the place of a card taken inside it this share of its area or more:
# its picture, inside the border (synthetic black-bordered cards: 0.75–0.85).
_INSIDE_SHARE: Final = 0.6


class _Taken:
    """The cards taken so far, with each one's centre, shortest side and area kept (and, past
    _FEW_TAKEN cards, as one array), so that asking whether a candidate is one of them is a short
    loop or one numpy comparison (a table of 50 cards meets hundreds of candidates: recomputing
    every taken card's geometry per candidate, then looping over 50 in Python, was a good part
    of a frame's time)."""

    def __init__(self) -> None:
        self.quads: list[Quad] = []
        self._rows: list[tuple[float, float, float, float]] = []  # centre x, y, side, area
        self._table = np.zeros((0, 4), np.float64)

    @staticmethod
    def _place(quad: Quad) -> tuple[float, float, float]:
        pts = quad.tolist()
        side = min(math.dist(pts[k], pts[(k + 1) % 4]) for k in range(4))
        return sum(p[0] for p in pts) / 4.0, sum(p[1] for p in pts) / 4.0, side

    @property
    def areas(self) -> npt.NDArray[np.float64]:
        """Each card's area, in the order of :attr:`quads`."""
        return np.asarray([row[3] for row in self._rows], np.float64).reshape(-1)

    def add(self, quad: Quad) -> None:
        self.quads.append(quad)
        self._rows.append((*self._place(quad), float(cv2.contourArea(quad))))
        if len(self._rows) > _FEW_TAKEN:
            self._table = np.asarray(self._rows, np.float64)

    def holds(self, contour: npt.NDArray[np.int32], area: float) -> bool:
        """Whether an outline is a card already taken, judged before any work on it: its box
        is centred on that card and it is not much larger (an outline holding two or more
        cards, a row of them, is at least twice a card). Each card shows in both white levels
        and in the edges: without this, every copy cost a candidate's full examination."""
        if not self.quads:
            return False
        x, y, w, h = cv2.boundingRect(contour)
        cx, cy = x + w / 2.0, y + h / 2.0
        if len(self._rows) <= _FEW_TAKEN:
            return any(
                math.hypot(px - cx, py - cy) < 0.5 * side and area <= 1.5 * card
                for px, py, side, card in self._rows
            )
        t = self._table
        distance = np.hypot(t[:, 0] - cx, t[:, 1] - cy)
        return bool(((distance < 0.5 * t[:, 2]) & (area <= 1.5 * t[:, 3])).any())

    def overlaps(self, quad: Quad) -> bool:
        """Whether ``quad`` is a card already taken: centres closer than half the shorter side
        of the larger of the two, and the card taken not a shape printed on ``quad`` (under
        _TAKEN_SHARE of its area: on a white table the upper halves of Set cards' outlined
        ovals, taken from the edges for cards, hid the cards; they are dropped at the end,
        :meth:`without_printed_shapes`)."""
        return self.near(*self._place(quad), least=_TAKEN_SHARE * float(cv2.contourArea(quad)))

    def near(self, x: float, y: float, own_side: float = 0.0, least: float = 0.0) -> bool:
        """Whether a card taken, of area ``least`` or more, is centred near ``(x, y)``."""
        if not self.quads:
            return False
        if len(self._rows) <= _FEW_TAKEN:
            return any(
                math.hypot(cx - x, cy - y) < 0.5 * max(side, own_side) and area >= least
                for cx, cy, side, area in self._rows
            )
        t = self._table
        distance = np.hypot(t[:, 0] - x, t[:, 1] - y)
        return bool(((distance < 0.5 * np.maximum(t[:, 2], own_side)) & (t[:, 3] >= least)).any())

    def enclose(self, quad: Quad) -> bool:
        """Take ``quad`` in place of the one card taken inside it, of at least _INSIDE_SHARE of
        its area (the picture inside a dark border, taken first by its own outline): whether it
        was taken so."""
        area = float(cv2.contourArea(quad))
        outline = quad.reshape(-1, 1, 2)
        inside = [
            i
            for i, (cx, cy, _, taken) in enumerate(self._rows)
            if _INSIDE_SHARE * area <= taken < area
            and cv2.pointPolygonTest(outline, (cx, cy), False) >= 0
        ]
        if len(inside) != 1:
            return False
        del self.quads[inside[0]], self._rows[inside[0]]
        self._table = np.asarray(self._rows, np.float64).reshape(-1, 4)
        self.add(quad)
        return True

    def without_printed_shapes(self, rejected: Outlines) -> _Taken:
        """The cards taken less those lying inside a card taken 1 / _TAKEN_SHARE times as large
        or more: a shape printed on it (``rejected`` gets them, too small). A card holds them
        only when it is no larger than twice the median card taken: an outline round half the
        table or round two cards, taken for a card, does not hold cards (on a synthetic wood
        table under glare such an outline had held a card, which was lost)."""
        if len(self.quads) < 2:
            return self
        largest = 2.0 * float(np.median(self.areas))
        if not any(row[3] / _TAKEN_SHARE <= largest for row in self._rows):
            return self  # none small enough to lie in another
        kept = _Taken()
        for quad, (cx, cy, _, area) in zip(self.quads, self._rows, strict=True):
            inside = any(
                area / _TAKEN_SHARE <= big <= largest
                and cv2.pointPolygonTest(other.reshape(-1, 1, 2), (cx, cy), False) >= 0
                for other, (_, _, _, big) in zip(self.quads, self._rows, strict=True)
            )
            if inside:
                rejected.append(("too_small", quad))
            else:
                kept.add(quad)
        return kept


_EDGE_T = np.linspace(0.15, 0.85, 12, dtype=np.float32)
_EDGE_OFFSETS = np.arange(-2.0, 2.01, 1.0, dtype=np.float32)
_EDGE_STEP: Final = 6.0  # grey levels across 3 px: a card's cut edge against the table
_EDGE_SHARE: Final = 0.6  # of a side's samples
_EDGED_SIDES: Final = 4


_EDGE_OFFSETS_BOTH = np.concatenate([_EDGE_OFFSETS - 1.5, _EDGE_OFFSETS + 1.5])  # out, in


def _straight_edges(
    grey: Image, quads: npt.NDArray[np.float32], *, either_way: bool = False, sides: int = 4
) -> npt.NDArray[np.bool_]:
    """Each side of the quad (``sides`` of them at least) runs along a step from darker
    outside to brighter inside, over most of its length. A card's cut edge is straight; a patch
    of a patterned cloth between its flowers, which the edges also enclose, is bounded by
    curves: on a synthetic rose cloth such patches passed every other test, with one or two
    sides under a third of steps where the cards had all four over 0.9. ``either_way``: a step
    either way (a card on a white table may be darker than it). Per quad (N, 4, 2)."""
    return np.asarray(_edged_sides(grey, quads, either_way) >= min(sides, _EDGED_SIDES))


def _edged_sides(
    grey: Image, quads: npt.NDArray[np.float32], either_way: bool, lines: bool = False
) -> npt.NDArray[np.intp]:
    """How many sides of each quad (N, 4, 2) are straight edges (:func:`_straight_edges`);
    ``lines``: a side along a thin dark line counts too (:func:`_lined_sides`)."""
    values = _across_sides(grey, quads)
    n = len(_EDGE_OFFSETS)
    differences = values[..., n:] - values[..., :n]
    if either_way:
        differences = np.abs(differences)
    near = differences.max(axis=3) > _EDGE_STEP  # the best step near each point
    if lines:
        near |= _dips(values) >= _LINE_DIP
    edged = near.mean(axis=2) >= _EDGE_SHARE
    return np.asarray(edged.sum(axis=1), np.intp)


def _lined_sides(grey: Image, quads: npt.NDArray[np.float32]) -> npt.NDArray[np.intp]:
    """How many sides of each quad (N, 4, 2) run along a thin line darker than the paper on
    either side of it (_LINE_DIP), over _EDGE_SHARE of their length."""
    lined = (_dips(_across_sides(grey, quads)) >= _LINE_DIP).mean(axis=2) >= _EDGE_SHARE
    return np.asarray(lined.sum(axis=1), np.intp)


def _across_sides(grey: Image, quads: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """Grey across each side of each quad (N, 4, 2), at _EDGE_T along it, from outside to
    inside (_EDGE_OFFSETS_BOTH): (N, 4, T, 2·O)."""
    quads = np.asarray(quads, np.float32).reshape(-1, 4, 2)
    along, normals, _ = _sides(quads)
    base = quads[:, :, None, :] + _EDGE_T[None, None, :, None] * along[:, :, None, :]
    pts = base[:, :, :, None, :] + _EDGE_OFFSETS_BOTH[:, None] * normals[:, :, None, None, :]
    return _gather(grey, pts)


def _dips(values: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """How much darker than the paper on both sides the darkest place across a side is."""
    dips: npt.NDArray[np.float32] = np.minimum(values[..., 0], values[..., -1]) - values.min(axis=3)
    return dips


_FIELD_SCALES = np.asarray([0.985, 0.97, 0.955, 0.6], np.float32)


def _as_light_as_table(
    grey: Image, saturation: Image, quads: npt.NDArray[np.float32]
) -> npt.NDArray[np.bool_]:
    """On a white or light table a card's white margin may be a little darker than the table
    (the light falls off over its cut edge): still white, within a few grey levels of what it
    lies on, and no more saturated, on every side. A black printed square is far darker; the
    coloured field of a card whose margin dim light and blur hide (its outline then the field's
    own edge) is saturated. Per quad (N, 4, 2)."""
    means = _side_means(grey, quads, _MARGIN_SCALES)
    light = (means[:, :-1].max(axis=1) >= means[:, -1] - 25.0).all(axis=1)
    tints = _side_means(saturation, quads, _MARGIN_SCALES)
    neutral = (tints[:, :-1].min(axis=1) <= tints[:, -1] + 25.0).all(axis=1)
    return np.asarray(light & neutral)


# A row's pieces are whole cards when every side's margin is this much brighter than the field;
# before the pieces are snapped onto the cards' edges, a looser check (their sides lie a pixel
# or two off, on the table or in the gap: a yellow card's light field in a row on a light table
# measured 9 there and 23 snapped) only spares the snapping of splits that cannot be cards.
_FIELD_BELOW_MARGIN: Final = 12.0
_FIELD_BELOW_MARGIN_UNSNAPPED: Final = 6.0


def _margins_round_fields(
    grey: Image, quads: npt.NDArray[np.float32], least: float = _FIELD_BELOW_MARGIN
) -> bool:
    """Each side of every quad has a margin brighter than the field inside it by more than
    ``least``: the pieces of a row of touching cards are whole cards (a cut through one card's
    field has no margin along the cut)."""
    means = _side_means(grey, quads, _FIELD_SCALES)
    return bool((means[:, :-1].max(axis=1) - means[:, -1] > least).all())


# The field sampled for print: a grid over its middle (a fifth of the card in from each edge),
# as a fixed mix of the four corners (a slanted card's outline is a quadrilateral).
_PRINT_U, _PRINT_V = np.meshgrid(
    np.linspace(0.2, 0.8, 16, dtype=np.float32), np.linspace(0.2, 0.8, 24, dtype=np.float32)
)
_PRINT_WEIGHTS: Final = np.stack(
    [
        (1 - _PRINT_U) * (1 - _PRINT_V),
        _PRINT_U * (1 - _PRINT_V),
        _PRINT_U * _PRINT_V,
        (1 - _PRINT_U) * _PRINT_V,
    ],
    axis=-1,
).reshape(-1, 4)
# A place of the field is printed where one of its channels is this far from the field's own
# median (a plain field, whatever its colour or its border's, has none: a Set card's outlined
# oval taken for a card is white paper inside a red line).
_PRINT_STEP: Final = 25.0
# Of the field: the real cards found on the real photos had 4.5 % printed at least (the white
# middle of a playing card's 2 of hearts); the chessboard squares and blank paper taken for cards
# on the marker photos (36) and the insides of two outlined ovals on Set cards, none.
_PRINTED_SHARE: Final = 0.02


def _printed_share(frame: Image, quads: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """The share of each card's field (N, 4, 2; ``frame``'s coordinates, BGR) that is printed:
    away from the field's own median in some channel; or all of it, when that median is darker
    than the margin in some channel (a field of one colour inside the white border: the square
    of a chessboard is as white as its border or whiter, where its black neighbours come into
    the border's samples). Per quad (N,)."""
    # Gathered from the three channels at once: splitting a 1280 × 720 frame into its planes
    # cost more than the sampling.
    values = _gather(frame, _PRINT_WEIGHTS @ quads)  # (N, P, 3)
    middle = np.median(values, axis=1)  # (N, 3)
    printed = (np.abs(values - middle[:, None, :]) > _PRINT_STEP).any(axis=2)
    ring = _gather(frame, _side_weights((0.97, 0.955)) @ quads)
    sides = ring.reshape(len(quads), 2, 4, len(_SIDE_T), 3).mean(axis=3).max(axis=1)
    margin = np.median(sides, axis=1)  # (N, 3)
    coloured = (middle < margin - _PRINT_STEP).any(axis=1)
    return np.asarray(np.where(coloured, 1.0, printed.mean(axis=1)), np.float32)


def _printed(frame: Image, quads: npt.NDArray[np.float32]) -> npt.NDArray[np.bool_]:
    """Whether something is printed on each card: a train card always has its picture, a square
    of a chessboard or a piece of blank paper has nothing. Per quad (N,)."""
    return np.asarray(_printed_share(frame, quads) >= _PRINTED_SHARE)


# A camera at a slant to the table shortens the cards' depth (the picture's height) by the
# cosine of its angle from straight down: at 45° a portrait card looks square (1.55 × 0.71 =
# 1.1) and a landscape one too long (2.2), both outside ASPECT_MIN–ASPECT_MAX. The stretches of
# the picture's height tried to undo that; the cards found must fit a card's proportions
# clearly better (the median of |log(their aspect / 68:44)|) at the best one.
_STRETCHES: Final = np.linspace(1.0, 2.0, 21, dtype=np.float32)  # 1.0, 1.05 … 2.0
_STRETCHES_MOST: Final = 2.0
# Unasked (no calibration), a slant up to 1.8 is looked for (squared for the farther cards, the
# second look stretches up to 3.24); a calibration measures up to _STRETCHES_MOST. Capping the
# second look's stretch at 2.0 instead let the squares of chessboards at a slant pass as cards
# (64 false "cards" on the 29 real marker photos against 54).
_AUTO_MOST: Final = 1.8
_MIN_STRETCH: Final = 1.1
_STRETCH_GAIN: Final = 0.03
# The cards in one picture are one size, give or take the camera's slant (the far row of a
# table seen at 45° was 0.55 of the near one's area). A card-shaped outline under 0.4 of the
# upper quartile of the cards found (three or more) is a shape printed on a card: a Set card's
# squiggle, 0.13–0.18 of a card, was taken as a card of its own on real photos, four of them
# on one photo, which pulled the median down to let them pass.
_MIN_AREA_OF_FOUND: Final = 0.4
_SIZE_PEERS: Final = 3
# When the shapes outnumber the cards (a light table whose white cards are lost against it, the
# shapes printed on them found: nine Set ovals and four cards on a photo never tuned on), the
# quartile is a shape's. The areas found then fall into two sizes apart by this factor or more
# (Set shapes: a fifth of a card; a far row at a slant: 0.55 of the near one's area), and the
# smaller are shapes when the larger are _SIZE_PEERS cards or more. Found by placing every card
# on the real photos by eye (9 of 13 false outlines there were such shapes).
_SHAPE_GAP: Final = 2.5
# A camera at a slant and near the table makes the far cards much smaller: the far row of Set
# cards on vidagy's board1 was 0.29 of the near row's area, under _MIN_AREA_OF_FOUND of it, and
# its four cards were neither looked at again nor kept (dropped as printed shapes). On a flat
# table a card's size (the square root of its area) changes with its row in the picture along a
# straight line, near enough. Fitted on the cards of the others' size (Theil–Sen: the median of
# the slopes between two cards whose rows are _ROWS_APART of a card's size apart or more, which
# a card of another size does not move), that line says how large a card is in the rows beyond
# theirs; within their rows the cards found say it themselves. On the 188 real table photos this
# found those four cards and nothing else (fitted on every outline taken, the line followed the
# shapes and index digits among them: 4 false cards on one photo; used within the cards' rows
# too, it let in a price tag among Set cards); on synthetic rows seen at 50° from one picture
# width away, the far row 0.31 of the near one's area, 10 of 12 cards were found where 8 were.
_ROWS_APART: Final = 0.5
Band = tuple[float, float, float, float]  # top and bottom rows, left and right columns


def _area_beyond_rows(
    quads: Sequence[Quad], areas: Sequence[float], least: float
) -> Callable[[float], float] | None:
    """The area a card has at a picture row (its centre's y) beyond the rows of the cards among
    ``quads`` (of ``areas``) of area ``least`` or more, from how their size changes with the
    row; infinite within their rows (the cards there say what a card's size is). None with
    fewer than _SIZE_PEERS such cards, or none in rows apart."""
    corners = np.asarray(quads, np.float32).reshape(-1, 4, 2)
    area = np.asarray(areas, np.float64)
    cards = area >= least
    if np.count_nonzero(cards) < _SIZE_PEERS:
        return None
    rows = corners[cards, :, 1].mean(axis=1).astype(np.float64)
    sizes = np.sqrt(area[cards])
    i, j = np.triu_indices(len(rows), 1)
    apart = np.abs(rows[j] - rows[i]) >= _ROWS_APART * float(np.median(sizes))
    if not apart.any():
        return None
    slope = float(np.median((sizes[j] - sizes[i])[apart] / (rows[j] - rows[i])[apart]))
    offset = float(np.median(sizes - slope * rows))
    first, last = float(rows.min()), float(rows.max())

    def area_at(row: float) -> float:
        return max(offset + slope * row, 0.0) ** 2 if not first <= row <= last else math.inf

    return area_at


def _row_of(shape: Quad | npt.NDArray[np.int32]) -> float:
    """The picture row of an outline's centre (its points' mean y)."""
    return float(np.asarray(shape, np.float32).reshape(-1, 2)[:, 1].mean())


# The cards found unasked are the nearer, less shortened ones (a far card is shortened more):
# the second look stretches by the measured slant squared. By the slant itself, the real photos
# gave 97 % found, 5 false cards and 2 colours confidently wrong; squared, 98 %, 0 and 0.
_STRETCH_POWER: Final = 2.0
# The cards the second look finds are the farther ones, no larger than the largest card the
# first look found (give or take): a card's worth of rows of touching cards, stretched by a slant
# measured wrong, made one "card" of five on a real photo of a row of nine.
_LARGEST_FARTHER: Final = 1.3


def _proportion_misfits(
    quads: Sequence[Quad], stretches: npt.NDArray[np.float32]
) -> npt.NDArray[np.float32]:
    """Per stretch of the picture's height, the median of |log(aspect / 68:44)| of the quads
    (the aspect as :func:`_aspect` gives it: the longer pair of opposite sides over the other)."""
    steps = np.diff(
        np.asarray(quads, np.float32), axis=1, append=np.asarray(quads, np.float32)[:, :1]
    )
    lengths = np.hypot(steps[None, :, :, 0], steps[None, :, :, 1] * stretches[:, None, None])
    pair_a = lengths[:, :, 0] + lengths[:, :, 2]
    pair_b = lengths[:, :, 1] + lengths[:, :, 3]
    aspect = np.maximum(pair_a, pair_b) / np.maximum(np.minimum(pair_a, pair_b), 1e-6)
    return np.asarray(np.median(np.abs(np.log(aspect / _NOMINAL_ASPECT)), axis=1), np.float32)


def measure_view(quads: Sequence[Quad], most: float = _STRETCHES_MOST) -> float:
    """How much a camera's slant shortens the table's depth (the picture's height), judged by
    the proportions of the cards whose outlines are ``quads`` (two or more, portrait and
    landscape alike): the stretch of the height, up to ``most``, that gives them a card's
    proportions when it fits clearly better than none, else 1.0 (a camera looking down)."""
    if len(quads) < 2:
        return 1.0
    stretches = _STRETCHES[most + 1e-6 >= _STRETCHES]
    misfits = _proportion_misfits(quads, stretches)
    k = int(np.argmin(misfits))
    if stretches[k] < _MIN_STRETCH or misfits[k] > misfits[0] - _STRETCH_GAIN:
        return 1.0
    return round(float(stretches[k]), 2)


def _foreshortening(
    quads: Sequence[Quad], rejected: Outlines, size: tuple[int, int]
) -> tuple[float, list[Band]]:
    """How much the picture's height is shortened (a camera at a slant), judged by the cards
    found (two or more): the stretch that gives them a card's proportions; and the bands of
    rows (finding scale, ``size`` its width and height) round outlines of a card's size that
    were rejected for their proportions (far cards look square, or too long), as wide as those
    outlines and a card either side (the whole width made a table of 52 cards twice as slow). No
    bands for a camera looking down, or with nothing to look at again."""
    if len(quads) < 2:
        return 1.0, []
    areas = [cv2.contourArea(q) for q in quads]
    low, high = _MIN_AREA_OF_FOUND * float(np.median(areas)), 2.5 * max(areas)
    beyond = _area_beyond_rows(quads, areas, low)  # (a far card is smaller still)
    width, height = size
    rows: list[Band] = []
    for reason, shape in rejected:
        outline = np.asarray(shape, np.float32).reshape(-1, 2)
        area = cv2.contourArea(outline)
        if (
            reason == "not_card_shaped"
            and area <= high
            and (
                area >= low
                or (beyond is not None and area >= _MIN_AREA_OF_FOUND * beyond(_row_of(outline)))
            )
        ):
            top, bottom = float(outline[:, 1].min()), float(outline[:, 1].max())
            left, right = float(outline[:, 0].min()), float(outline[:, 0].max())
            pad = 0.5 * (bottom - top)
            across = max(bottom - top, 0.5 * (right - left))
            rows.append(
                (
                    max(0.0, top - pad),
                    min(float(height), bottom + pad),
                    max(0.0, left - across),
                    min(float(width), right + across),
                )
            )
    if not rows:
        return 1.0, []
    view = measure_view(quads, _AUTO_MOST)
    if view == 1.0:
        return 1.0, []
    bands: list[Band] = []
    for top, bottom, left, right in sorted(rows):  # bands overlapping in height become one
        if bands and top <= bands[-1][1]:
            t, b, lft, rgt = bands[-1]
            bands[-1] = (t, max(b, bottom), min(lft, left), max(rgt, right))
        else:
            bands.append((top, bottom, left, right))
    # The cards found are the nearer, less shortened ones; the ones missed are farther.
    return view**_STRETCH_POWER, bands


def _bgr(image: npt.NDArray[Any]) -> Image:
    return np.asarray(
        cv2.cvtColor(image, cv2.COLOR_GRAY2BGR) if image.ndim == 2 else image, np.uint8
    )


Outlines = list[tuple[str, Quad | npt.NDArray[np.int32]]]  # (reason, outline) rejected


def _finding_grey(small: Image) -> Image:
    """The finding-scale picture's grey, a little blurred (the print's fine detail is noise
    to the outlines)."""
    return np.asarray(
        cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), (5, 5), 0), np.uint8
    )


class _Helper:
    """One thread beside the finder's own, for the masks and outlines that are OpenCV's work
    alone (OpenCV lets go of Python's lock while it works, the finder's own Python does not):
    the edges and what they enclose are made there while the finder makes the white masks and
    looks at their outlines, a light table's masks while it looks at the edges'. The cards found
    and the reasons given are the same. On the real photos' camera frames (one OpenCV thread
    each, best of five, the old and the new way in turn) finding took 8.0 ms at the median and
    21.5 at p95, against 9.3 and 24.0 with everything on one thread. The helper works for
    about 3 ms of a median frame; the finder's own thread, not the helper, bounds the time. One
    helper serves every finder in the process; made when first needed, and again in a forked
    child (which has no copy of the parent's threads)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        os.register_at_fork(after_in_child=self._forget)

    def _forget(self) -> None:
        self._lock = threading.Lock()
        self._pool = None

    def submit(self, work: Callable[..., Any], *args: Any) -> Future[Any]:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="card-finder")
            return self._pool.submit(work, *args)


_HELPER: Final = _Helper()

Contours = Sequence[npt.NDArray[Any]]  # as cv2.findContours gives them


class _Look(NamedTuple):
    """A mask made beside the finder (:class:`_Helper`) and its outlines."""

    mask: Image
    outlines: dict[int, Contours]  # by the mask's id()


class _LightLook(NamedTuple):
    """A light table's masks (None where not made) and their outlines (:func:`_light_look`)."""

    neutral: Image | None
    smooth: Image
    lines: Image | None
    dark: Image | None
    outlines: dict[int, Contours]  # by the mask's id()


def _outer(mask: Image) -> Contours:
    """The outer outlines of the mask's regions."""
    return cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)[0]


def _edge_look(grey: Image) -> _Look:
    """The edges and their outlines."""
    edges = _edge_mask(grey)
    return _Look(edges, {id(edges): _outer(edges)})


def _inside_look(edge_job: Future[_Look], min_area: float) -> _Look:
    """The regions the edges enclose and their outlines (``edge_job``: the edges, submitted
    before, so made already: the helper works in turn)."""
    edges = edge_job.result().mask
    enclosed = _enclosed(edges)
    if cv2.countNonZero(edges) >= _BUSY_EDGES * edges.size:
        # (on a busy table they are thousands of specks: see _BUSY_EDGES)
        return _Look(enclosed, {id(enclosed): _large_regions(enclosed, min_area)})
    return _Look(enclosed, {id(enclosed): _outer(enclosed)})


def _light_look(
    grey: Image, saturation: Image, light: Image, min_area: float, dark_borders: bool
) -> _LightLook:
    """A light table's neutral, smooth, line and (for a dark-bordered printing) dark masks, and
    their outlines."""
    neutral, smooth = _light_table_masks(grey, saturation, light)
    lines = _line_mask(grey)
    dark = _dark_mask(grey) if dark_borders else None
    outlines = {id(m): _outer(m) for m in (neutral, smooth, dark) if m is not None}
    if lines is not None:
        # (the lines of a light table's grain or print are many specks, too)
        outlines[id(lines)] = _large_regions(lines, min_area)
    return _LightLook(neutral, smooth, lines, dark, outlines)


def _find_in(
    small: Image,
    areas: tuple[float, float] | None = None,
    *,
    first: bool = True,
    fine: _FineMap | None = None,
    dark_borders: bool = False,
) -> tuple[_Taken, Outlines]:
    """One look at the finding-scale picture: the cards taken, and the card-sized outlines
    rejected with their reasons (in ``small``'s coordinates). ``areas``: a card's smallest and
    largest area there (by default the fractions of ``small``'s own area); ``first``: the
    first look at the picture, rather than the second look at a band of slanted rows;
    ``dark_borders``: the deck's printing has a black border, looked for too; ``fine``:
    the camera's picture, where the seams between white cards in a row are looked for."""
    grey = _finding_grey(small)
    sh, sw = grey.shape[:2]
    min_area, max_area = areas or (MIN_AREA_FRACTION * sh * sw, MAX_AREA_FRACTION * sh * sw)
    taken = _Taken()
    rejected: list[tuple[str, Quad | npt.NDArray[np.int32]]] = []
    # The edges' masks are made beside this thread while it makes the white masks and looks at
    # their outlines; a light table's, while it looks at the edges'.
    edge_job = _HELPER.submit(_edge_look, grey)
    later: list[Future[Any]] = [edge_job]
    if first:
        # What the edges enclose, and that opened (by so many pixels; made when its turn comes,
        # without the cards taken by then), in the first look only: in the second look at
        # slanted rows the enclosed regions found no more card on the real photos, opened or not
        # (without them there and without the 2-px opening above, the real camera frames took 6 %
        # less time, 13 % less at p95).
        later.append(_HELPER.submit(_inside_look, edge_job, min_area))
    hsv = np.asarray(cv2.cvtColor(small, cv2.COLOR_BGR2HSV), np.uint8)
    whites = _white_masks(hsv)
    saturation = hsv[:, :, 1]  # sampled at points only: a view will do
    light_table = cv2.countNonZero(whites[0]) >= _LIGHT_TABLE * whites[0].size
    if light_table and first:
        # On a light table, last, the neutral, smooth and line masks (in the first look only: in
        # the second look at slanted rows they found no more card on the real photos); last of
        # all, where it is dark: cards of a printing with a dark border, when the deck's is (a
        # phone's dark bezel round its lit screen would pass for one).
        later.append(
            _HELPER.submit(_light_look, grey, saturation, whites[0], min_area, dark_borders)
        )
    # The sources in turn: the white masks, then each made beside as its turn comes.
    outlines: dict[int, Contours] = {}  # the outlines made beside, by the mask's id()
    edges: Image | None = None
    enclosed: Image | None = None
    neutral: Image | None = None
    lines: Image | None = None
    dark: Image | None = None
    sources: list[Image | int] = [*whites]
    at = 0
    while at < len(sources) or later:
        if at == len(sources):
            look = later.pop(0).result()
            outlines.update(look.outlines)
            if isinstance(look, _LightLook):
                neutral, lines, dark = look.neutral, look.lines, look.dark
                sources.extend(m for m in (neutral, look.smooth, lines, dark) if m is not None)
            elif edges is None:
                edges = look.mask
                sources.append(edges)
            else:
                enclosed = look.mask
                sources.extend([enclosed, _OPENED_BY])
            continue
        source = sources[at]
        at += 1
        inside = isinstance(source, int) or source is enclosed
        by_lines = source is lines
        # The regions the edges enclose, and a light table's faint lines, are second looks at
        # the same edges, whose outlines have their reasons already.
        quiet = inside or by_lines
        lined = source is edges or by_lines  # where an edge may show on three sides or two
        contours: Contours
        if isinstance(source, int):
            assert enclosed is not None  # (looked at before it is opened)
            mask = _opened(enclosed, taken.quads, source)
            contours = _all_regions(mask, min_area, max_area)
        else:
            mask = source
            contours = outlines[id(mask)] if id(mask) in outlines else _outer(mask)
        singles: list[Quad] = []
        open_sided: list[Quad] = []  # singles whose edge shows on three sides only
        two_sided: list[Quad] = []  # singles whose edge shows on two sides only
        # Outlines of rows perhaps of white cards: the outline, its box, how many cards it may
        # be, and the one card it is without seams (None: none)
        white_rows: list[tuple[npt.NDArray[np.int32], Quad, list[int], Quad | None]] = []
        got: Quad | list[Quad] | None
        reason: str | None
        for found_contour in contours:
            contour = np.asarray(found_contour, np.int32)
            area = cv2.contourArea(contour)
            # (A line's outline is a ring, open where the line is faint: its own area says
            # nothing of the card's.)
            if area < min_area or (
                mask is not dark and not by_lines and taken.holds(contour, area)
            ):
                continue
            x, y, bw, bh = cv2.boundingRect(contour)
            edges_met = (x <= 1) + (y <= 1) + (x + bw >= sw - 1) + (y + bh >= sh - 1)
            if edges_met >= 3:
                # The table itself (a light one, in the white masks), or the whole picture: no
                # card, and nothing to explain ("too close" sent players to move the camera).
                got, reason = None, None
            elif (x <= 1 and x + bw >= sw - 1) or (y <= 1 and y + bh >= sh - 1):
                # From one edge of the picture to the other: no whole card (a close-up card is
                # at most half of the picture); on terrazzo the floor between the picture's
                # edges and a seam between its tiles made a card-shaped region.
                got, reason = None, "not_card_shaped"
            else:
                got, reason = _candidate(contour, area, max_area)
                if reason == "ragged_outline" and lined and light_table:
                    got = _open_sided(mask, contour, min_area, max_area)
                    if got is not None:
                        reason = None
                        open_sided.append(got)
                if got is None and reason in _NOT_CARD and lined and light_table:
                    got = _two_sided(mask, contour, min_area, max_area)
                    if got is not None:
                        reason = None
                        two_sided.append(got)
            if got is None:
                # (Most of the second looks' outlines are pieces of the table.)
                if reason is not None and not quiet:
                    rejected.append((reason, contour))
                continue
            if isinstance(got, list) and by_lines:
                # Cards touching in a row share their lines: a row's outline there is a shape
                # printed on a card (an oval has three cards' proportions).
                continue
            pieces = got if isinstance(got, list) else [got]
            # (A dark-bordered card may hold its picture, taken already: looked at all the same.)
            if mask is not dark and all(taken.overlaps(piece) for piece in pieces):
                continue  # found already (by the other white level, or by the edges)
            # A strip of cards cut by the picture's edge along their row is no row of whole
            # cards (half the rows looked at on a photo of cards filling the picture).
            cut_along = (y <= 1 or y + bh >= sh - 1) if bw >= bh else (x <= 1 or x + bw >= sw - 1)
            seams = fine is not None and not cut_along
            if len(pieces) == 1 and _aspect(pieces[0]) < _PAIR_ASPECT:
                # Perhaps two cards side by side (1.29 long for wide), not one lying sideways
                # (1.55): on a wood table a red and a blue card 1–3 px apart were one
                # "locomotive", a yellow and a black one "yellow".
                (cx, cy), (rw, rh), turn = cv2.minAreaRect(cv2.convexHull(contour))
                pair = ((cx, cy), (rw, rh), turn)
                if 2 in _row_ks(pair):
                    if _took_row(grey, _split_row(pair, 2), taken):
                        continue
                    if seams:
                        box = _order(cv2.boxPoints(pair).astype(np.float32))
                        white_rows.append((contour, box, [2], pieces[0]))
                        continue
            if len(pieces) > 1:
                rect = cv2.minAreaRect(cv2.convexHull(contour))
                if _took_row(grey, pieces, taken):
                    continue
                whole = _order(cv2.boxPoints(rect).astype(np.float32))
                one = whole if ASPECT_MIN <= _aspect(whole) <= ASPECT_MAX else None
                if seams:
                    # Perhaps white cards (their fields as light as their margins): looked at
                    # below, all together. Three cards side by side are as long as one lying
                    # sideways (a tunnel's reveal with a white card was one "card"): their
                    # seams tell them apart; without seams the outline is one card, as before.
                    (cx, cy), (rw, rh), turn = rect
                    white_rows.append((contour, whole, _row_ks(((cx, cy), (rw, rh), turn)), one))
                    continue
                if one is None:
                    rejected.append(("not_card_shaped", contour))
                    continue
                pieces = [one]
            singles.extend(p for p in pieces if mask is dark or not taken.overlaps(p))
        if white_rows and fine is not None:
            # A row of white cards, white against the table, is cut at the seams between them;
            # else the outline is one card, if it has a card's proportions.
            boxes = np.asarray([box for _, box, _, _ in white_rows], np.float32)
            white = np.flatnonzero(_bright_margins(grey, boxes)).tolist()
            tried = [(i, k) for i in white for k in white_rows[i][2]]
            seamed: dict[int, list[Quad]] = {}
            for (i, _), cards in zip(
                tried,
                _seamed_rows(fine, [boxes[i] for i, _ in tried], [k for _, k in tried]),
                strict=True,
            ):
                if cards is not None and i not in seamed:
                    seamed[i] = cards
            for i, (contour, _, _, one) in enumerate(white_rows):
                cards = seamed.get(i)
                if cards is not None:
                    for q in _snap_many(grey, np.asarray(cards, np.float32)):
                        if not taken.overlaps(q):
                            taken.add(q)
                elif one is None:
                    rejected.append(("not_card_shaped", contour))
                elif not taken.overlaps(one):
                    singles.append(one)
        # This source's outlines are apart from each other: their checks are made all at once.
        if not singles:
            continue
        if mask is dark:
            # A dark-bordered card: its border darker than the table all round, straight.
            inverse = np.asarray(cv2.bitwise_not(grey), np.uint8)
            snapped_all = _snap_many(inverse, np.asarray(singles, np.float32))
            bordered = (
                _bright_margins(inverse, snapped_all)
                & _straight_edges(grey, snapped_all, either_way=True)
                & _lighter_inside_border(grey, snapped_all)
            )
            for quad, ok in zip(snapped_all, bordered.tolist(), strict=True):
                if not ok:
                    rejected.append(("no_white_margin", quad))
                elif not taken.overlaps(quad):
                    taken.add(quad)
                else:
                    taken.enclose(quad)
            continue
        snapped_all = _snap_many(grey, np.asarray(singles, np.float32))
        bright = _bright_margins(grey, snapped_all)
        # The regions the edges enclose are kept only with straight edges all round: the rest
        # are patches of a patterned table between its figures.
        edged = _straight_edges(grey, snapped_all) if inside else np.ones(len(snapped_all), bool)
        if light_table and (lined or inside):
            # A white table: straight edges all round, either way, and a margin about as light
            # as the table (four more cards on the photos never tuned on, no false one; a black
            # printed square on white paper has straight edges too; nor is the coloured field of
            # a card whose margin dim light and blur hide: in one synthetic scene such a field
            # was taken for an orange card on its own and, its margin ring the field, read
            # yellow).
            # A card whose edge shows on three sides or two (:func:`_open_sided`,
            # :func:`_two_sided`) needs straight edges on those only.
            needed = np.full(len(singles), _EDGED_SIDES)
            for few, sides in ((open_sided, 3), (two_sided, 2)):
                ids = {id(o) for o in few}
                needed[[i for i, q in enumerate(singles) if id(q) in ids]] = sides
            bright |= (
                _edged_sides(grey, snapped_all, either_way=True, lines=by_lines) >= needed
            ) & _as_light_as_table(grey, saturation, snapped_all)
        if mask is neutral:
            # A card on a cream table: less saturated than the table all round.
            bright |= _neutral_margins(saturation, snapped_all)
        if by_lines:
            # What the lines look takes shows a thin line on one side at least: a printed white
            # square among black ones on a sheet of markers is bounded by steps only.
            bright &= _lined_sides(grey, snapped_all) >= 1
        for quad, is_bright, is_edged in zip(
            snapped_all, bright.tolist(), edged.tolist(), strict=True
        ):
            if not is_bright:
                if not quiet:
                    rejected.append(("no_white_margin", quad))
            elif is_edged and not taken.overlaps(quad):
                taken.add(quad)
    return taken, rejected


# A card's edge seen on three sides at least: the share of each side's length along which the
# edges lie, just inside the outline's hull (the dilated edge is 3 px wide).
_OPEN_SIDE_SCALES = np.asarray([0.995, 0.985, 0.975, 0.965], np.float32)
_OPEN_SIDE_ALONG: Final = 0.6


def _open_sided(
    edges: Image, contour: npt.NDArray[np.int32], min_area: float, max_area: float
) -> Quad | None:
    """A card whose edge shows on three sides but not the fourth: on a light table, the side of
    a white card towards the light has no edge at all, and the edges are a U whose outline is
    ragged (its inside runs out through the open side). Its hull is the card, when four corners
    hold it and the edges run along three of its sides at least."""
    hull = cv2.convexHull(contour)
    hull_area = cv2.contourArea(hull)
    if not min_area <= hull_area <= max_area:
        return None
    approx = cv2.approxPolyDP(hull, 0.04 * cv2.arcLength(hull, True), True)
    if len(approx) != 4 or cv2.contourArea(approx) < _QUAD_FILL * hull_area:
        return None
    quad = _order(approx.reshape(4, 2).astype(np.float32))
    if not ASPECT_MIN <= _aspect(quad) <= ASPECT_MAX:
        return None
    samples = _side_samples(edges, quad[None], _OPEN_SIDE_SCALES)[0]  # (scales, 4, T)
    along = (samples > 0).any(axis=0).mean(axis=1)
    return quad if int((along >= _OPEN_SIDE_ALONG).sum()) >= 3 else None


# A card's edge seen on two sides only, meeting at a corner: the edges along at least this
# share of each of the two sides (just inside the quad they make), at a corner within
# _SQUARE_COS of a right angle (78–102°).
_TWO_SIDES_ALONG: Final = 0.8
_SQUARE_COS: Final = 0.2
_NOT_CARD: Final = ("ragged_outline", "not_card_shaped")


def _two_sided(
    edges: Image, contour: npt.NDArray[np.int32], min_area: float, max_area: float
) -> Quad | None:
    """A card whose edge shows on two sides only: on a light table lit from one corner, the
    sides towards the light have no edge, and the two away from it cast a thin shadow
    (GorgeousOne/Set-Card-Detection-js test12: a grey table, every card an "L" in the edges).
    The L's hull is a right triangle; the card is the parallelogram its two arms make, when
    the edges run along both arms."""
    hull = cv2.convexHull(contour)
    corners = cv2.approxPolyDP(hull, 0.04 * cv2.arcLength(hull, True), True).reshape(-1, 2)
    if len(corners) != 3:
        return None
    pts = corners.astype(np.float32)
    arms = [(pts[(i + 1) % 3] - pts[i], pts[(i + 2) % 3] - pts[i]) for i in range(3)]
    cosines = [
        abs(float(u @ v)) / max(1e-6, float(np.linalg.norm(u) * np.linalg.norm(v))) for u, v in arms
    ]
    i = int(np.argmin(cosines))  # the squarest corner
    if cosines[i] > _SQUARE_COS:
        return None
    corner, p, q = pts[i], pts[(i + 1) % 3], pts[(i + 2) % 3]
    quad = _order(np.asarray([corner, p, p + q - corner, q], np.float32))
    if not min_area <= cv2.contourArea(quad) <= max_area:
        return None
    if not ASPECT_MIN <= _aspect(quad) <= ASPECT_MAX:
        return None
    samples = _side_samples(edges, quad[None], _OPEN_SIDE_SCALES)[0]  # (scales, 4, T)
    along = ((samples > 0).any(axis=0).mean(axis=1) >= _TWO_SIDES_ALONG).tolist()
    return quad if any(along[k] and along[(k + 1) % 4] for k in range(4)) else None


def _took_row(grey: Image, pieces: list[Quad], taken: _Taken) -> bool:
    """Whether the pieces of a row outline are whole cards, each with its margin round a darker
    field (they are then ``taken``): checked before snapping too, so that a failed split (an
    elongated blob of table or of cut cards) costs little. Only the split closest to a card's
    proportions: with the others too, two "cards" lying end to end were taken across a row of
    five cards a little apart on wood, each half of it, and hid the five."""
    row = np.asarray(pieces, np.float32)
    if not _margins_round_fields(grey, row, _FIELD_BELOW_MARGIN_UNSNAPPED):
        return False
    snapped = _snap_many(grey, row)
    if not (bool(_bright_margins(grey, snapped).all()) and _margins_round_fields(grey, snapped)):
        return False
    for q in snapped:
        if not taken.overlaps(q):
            taken.add(q)
    return True


def _card_sized(taken: _Taken, rejected: Outlines) -> _Taken:
    """The cards taken that are of the others' size: a card-shaped outline much smaller than the
    upper quartile of three or more is a shape printed on a card, unless it lies beyond their
    rows and is of a card's size there (:func:`_area_beyond_rows`); and so are the smaller of two
    sizes _SHAPE_GAP apart whose larger has _SIZE_PEERS cards or more (``rejected`` gets
    them)."""
    if len(taken.quads) < _SIZE_PEERS:
        return taken
    areas = taken.areas.tolist()
    smallest = _MIN_AREA_OF_FOUND * float(np.percentile(areas, 75))
    ordered = sorted(areas)
    beyond: Callable[[float], float] | None = None
    for i in range(len(ordered) - _SIZE_PEERS, 0, -1):  # the largest gap wanted: from the top
        if ordered[i] >= _SHAPE_GAP * ordered[i - 1]:
            smallest = max(smallest, ordered[i])
            break
    else:  # one size, which a slant makes smaller along the rows
        beyond = _area_beyond_rows(taken.quads, areas, smallest)
    kept = _Taken()
    for quad, area in zip(taken.quads, areas, strict=True):
        if area >= smallest or (
            beyond is not None and area >= _MIN_AREA_OF_FOUND * beyond(_row_of(quad))
        ):
            kept.add(quad)
        else:
            rejected.append(("too_small", quad))
    return kept


# An outline round several cards found on their own (the edges round two rows of touching cards
# on wood, taken for one card of their proportions) is no card: one holding the centres of two
# cards or more, smaller than it, that cover _ROUND_CARDS of it or more (a Set card's printed
# ovals, which it may hold, are dropped before as shapes: :meth:`_Taken.without_printed_shapes`).
_ROUND_CARDS: Final = 0.5
# Two cards of a white-margined printing touching side by side, long side to long side, make one
# outline with nearly a card's proportions (poker cards: 2 × 63 / 88 ≈ 1.43 against 1.40 for one;
# on a webcam's stretched frame 1.7 against 1.23): in jaxon411's photos of poker cards on felt
# three such pairs were taken for cards lying sideways, and an ace and a two in notanumber11's
# grid of twelve. Such an outline has twice the area of the nearest card found of _PAIR_SIZE of
# its area (the nearest: a camera at a slant makes the far cards smaller), its halves have that
# card's shape (long and short side within _PAIR_FIT of its), and a seam runs between them.
# A near card seen at a slant may be twice a far one's area, its halves of the far one's shape
# (size alone cut six near Set cards on one real photo): the seam tells them. Size speaks
# already, so the seam need only be dark along _PAIR_SEAM of the cut, not a row's _SEAM_ALONG
# (of the 46 outlines so chosen on the 188 real table photos, the 36 single cards showed at most
# 0.55; the eight pairs cut, 0.7-1.0: two cards a little offset leave the cut's ends on the
# table; two pairs, a card turned against or lying over its neighbour, 0.5-0.55. A black-bordered
# Magic card's text-box rule ran along 0.9 of its middle: such printings are not looked at).
_PAIR_SIZE: Final = (0.38, 0.6)
_PAIR_FIT: Final = 0.15
_PAIR_SEAM: Final = 0.7


def _long_and_short(quads: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """Per quad (N, 4, 2), the mean lengths of its longer and its shorter pair of opposite
    sides: (N, 2)."""
    steps = np.roll(quads, -1, axis=1) - quads
    lengths = np.hypot(steps[..., 0], steps[..., 1])
    a = (lengths[:, 0] + lengths[:, 2]) / 2
    b = (lengths[:, 1] + lengths[:, 3]) / 2
    return np.stack([np.maximum(a, b), np.minimum(a, b)], axis=1)


def _without_groups_and_pairs(
    small: Image, fine: _FineMap, taken: _Taken, rejected: Outlines, *, pairs_of_white: bool
) -> _Taken:
    """The cards taken less the outlines round several of them, and, with ``pairs_of_white``
    (the printing's margin is white), with each outline of two cards side by side cut in two
    at the seam between their margins (snapped onto their edges in ``small``, the picture the
    cards were taken in)."""
    if len(taken.quads) < 2:
        return taken
    quads = np.asarray(taken.quads, np.float32)
    areas = taken.areas
    centres = quads.mean(axis=1)
    # Which cards' centres lie in which outline's box (a quick first sieve), and are smaller
    low, high = quads.min(axis=1), quads.max(axis=1)
    in_box = (
        (centres[None, :, :] >= low[:, None, :]).all(axis=2)
        & (centres[None, :, :] <= high[:, None, :]).all(axis=2)
        & (areas[None, :] < areas[:, None])
    )
    groups: set[int] = set()
    for i in np.flatnonzero(in_box.sum(axis=1) >= 2).tolist():
        outline = quads[i].reshape(-1, 1, 2)
        inside = [
            j
            for j in np.flatnonzero(in_box[i]).tolist()
            if cv2.pointPolygonTest(outline, (float(centres[j, 0]), float(centres[j, 1])), False)
            >= 0
        ]
        if len(inside) >= 2 and areas[inside].sum() >= _ROUND_CARDS * areas[i]:
            groups.add(i)
    pairs: dict[int, float] = {}  # outline: the least proportions of each of its cards
    if pairs_of_white:
        share = areas[None, :] / areas[:, None]
        peers = (share >= _PAIR_SIZE[0]) & (share <= _PAIR_SIZE[1]) & ~in_box
        distance = np.hypot(*(centres[None, :, :] - centres[:, None, :]).transpose(2, 0, 1))
        nearest = np.where(peers, distance, np.inf).argmin(axis=1)
        dims = _long_and_short(quads)
        halves = np.stack(
            [np.maximum(dims[:, 0] / 2, dims[:, 1]), np.minimum(dims[:, 0] / 2, dims[:, 1])], axis=1
        )
        typical = dims[nearest]
        fits = (np.abs(halves / typical - 1.0) <= _PAIR_FIT).all(axis=1) & peers.any(axis=1)
        for i in np.flatnonzero(fits & ~in_box.any(axis=1)).tolist():
            if i not in groups:
                # (Cards may be squat in the picture: a webcam's frame stretched to 16:9.)
                pairs[i] = min(ASPECT_MIN, (1 - _PAIR_FIT) * typical[i, 0] / typical[i, 1])
    if not groups and not pairs:
        return taken
    kept = _Taken()
    for i, quad in enumerate(taken.quads):
        if i in groups:
            rejected.append(("not_card_shaped", quad))
        elif i not in pairs:
            kept.add(quad)
    ids = list(pairs)
    grey = _finding_grey(small) if ids else small
    seamed = _seamed_rows(
        fine, [quads[i] for i in ids], [2] * len(ids), _PAIR_SEAM, min(pairs.values(), default=0.0)
    )
    for i, cards in zip(ids, seamed, strict=True):
        if cards is None or min(_aspect(q) for q in cards) < pairs[i]:
            kept.add(taken.quads[i])
            continue
        for q in _snap_many(grey, np.asarray(cards, np.float32)):
            if not kept.overlaps(q):
                kept.add(q)
    return kept


def _unlike_a_card(shape: Quad | npt.NDArray[np.int32], card_area: float) -> float:
    """How far an outline is from a card: its proportions' from a card's and, when cards were
    found (``card_area``, their median area), its size's from theirs (logarithmic, 0 for a
    card's)."""
    (_, _), (rw, rh), _ = cv2.minAreaRect(np.asarray(shape, np.float32).reshape(-1, 1, 2))
    if rw <= 0 or rh <= 0:
        return math.inf
    unlike = abs(math.log(max(rw, rh) / min(rw, rh) / _NOMINAL_ASPECT))
    if card_area > 0:
        unlike += abs(math.log(rw * rh / card_area))
    return unlike


def find_cards_explained(
    frame: Image, view: float = 1.0, dark_borders: bool = False
) -> tuple[list[Quad], list[Rejection]]:
    """Card outlines in ``frame`` (BGR), left to right, as quads in frame coordinates, and the
    card-sized outlines rejected, each with its reason (see :func:`_find_cards`)."""
    return _find_cards(frame, view, dark_borders, explain=True)


def _find_cards(
    frame: Image, view: float, dark_borders: bool, *, explain: bool
) -> tuple[list[Quad], list[Rejection]]:
    """Card outlines in ``frame`` (BGR), left to right, as quads in frame coordinates, and the
    card-sized outlines rejected, each with its reason.

    Two sources of outlines: the card's white (bright, unsaturated) against the table, which
    holds on light and textured surfaces, and edges, which hold where the white is uneven
    (glare, a shadow across the table). A card found by both counts once.

    ``view``: how much a camera at a slant shortens the table's depth (the picture's height),
    as its calibration measured it (:func:`vision.calibrate.calibrate`); the picture is looked
    at stretched back by it. Without it, the cards found may still say the camera is at a
    slant (:func:`_foreshortening`): where outlines were rejected for their proportions, the
    picture is looked at again stretched back.

    ``dark_borders``: the deck's printing has a black border, not a white margin (the older
    Ticket to Ride printing, :attr:`vision.palette.Palette.margin`): on a light table such
    cards are looked for where it is dark, too.

    ``explain``: give the reasons (:func:`_explain`); without, the list is empty."""
    h, w = frame.shape[:2]
    scale = min(1.0, FIND_MAX_SIDE / max(h, w))
    scale_y = scale * view
    size = (round(w * scale), round(h * scale_y))
    shrink = cv2.INTER_AREA if scale_y <= 1.0 else cv2.INTER_LINEAR  # a small frame, slanted
    small = _bgr(cv2.resize(frame, size, interpolation=shrink) if size != (w, h) else frame)
    fine = _Fine(frame)
    first_look = _FineMap(fine, (1 / scale, 1 / scale_y), (0.0, 0.0))
    taken, rejected = _find_in(small, fine=first_look, dark_borders=dark_borders)
    stretch, bands = _foreshortening(taken.quads, rejected, size)
    largest = max((cv2.contourArea(q) for q in taken.quads), default=0.0)
    for top, bottom, left, right in bands:
        y0, y1 = round(top / scale_y), round(bottom / scale_y)
        x0, x1 = round(left / scale), round(right / scale)
        # Linear, not by area: OpenCV's area resampling is fast only for whole factors (a
        # band halved across and shrunk by 0.6-0.9 down took 1.7 ms, linearly 0.34); on the real
        # and the synthetic photos the cards found, their colours and every figure are the same.
        tall = _bgr(
            cv2.resize(
                frame[y0:y1, x0:x1],
                (max(1, round(right - left)), max(1, round((bottom - top) * stretch))),
                interpolation=cv2.INTER_LINEAR,
            )
        )
        card_areas = (
            MIN_AREA_FRACTION * size[0] * size[1] * stretch,
            MAX_AREA_FRACTION * size[0] * size[1] * stretch,
        )
        # The white masks too: on three photos of rows of cards on wood seen at a slant never
        # tuned on, the far rows' cards were whole there and broken in the edges (10 more cards
        # found of 36); the squares of a chessboard they let in are blank (:func:`_printed`).
        on_frame = _FineMap(
            fine, ((x1 - x0) / tall.shape[1], (y1 - y0) / tall.shape[0]), (float(x0), float(y0))
        )
        more, _ = _find_in(tall, card_areas, first=False, fine=on_frame)
        back = np.asarray(
            [(x1 - x0) * scale / tall.shape[1], (y1 - y0) * scale_y / tall.shape[0]], np.float32
        )
        shift = np.asarray([x0 * scale, y0 * scale_y], np.float32)
        for quad in more.quads:
            unstretched = _order((quad * back + shift).astype(np.float32))
            if cv2.contourArea(unstretched) > _LARGEST_FARTHER * largest:
                rejected.append(("not_card_shaped", unstretched))
            elif not taken.overlaps(unstretched):
                taken.add(unstretched)
    taken = _card_sized(taken, rejected).without_printed_shapes(rejected)
    taken = _without_groups_and_pairs(
        small, first_look, taken, rejected, pairs_of_white=not dark_borders
    )
    to_small = np.asarray([scale, scale_y], np.float32)
    if taken.quads:
        printed = _printed(frame, np.asarray(taken.quads, np.float32) / to_small)
        kept = _Taken()
        for quad, is_printed in zip(taken.quads, printed.tolist(), strict=True):
            if is_printed:
                kept.add(quad)
            else:
                rejected.append(("blank", quad))
        taken = kept
    explained = _explain(rejected, taken, (h, w), to_small) if explain else []
    found = [_order((q / to_small).astype(np.float32)) for q in taken.quads]
    found.sort(key=lambda q: (float(q[:, 0].mean()), float(q[:, 1].mean())))
    return found, explained


def _explain(
    rejected: Outlines, taken: _Taken, size: tuple[int, int], to_small: npt.NDArray[np.float32]
) -> list[Rejection]:
    """The rejected outlines worth a reason, in the frame's coordinates (``size``: its height
    and width), most card-like first, one per place: only when asked for (finding alone skips
    this, up to a tenth of a slow frame's time)."""
    explained: list[Rejection] = []
    h, w = size
    # Half the short side of the smallest card looked for: a thinner outline (a line drawn on
    # the table, a seam between floor tiles) is not one that could be a card.
    thinnest = 0.5 * math.sqrt(MIN_AREA_FRACTION * h * w / _NOMINAL_ASPECT)
    places: list[tuple[float, str, tuple[int, int, int, int]]] = []  # (unlike a card, …)
    card_area = float(np.median([cv2.contourArea(q) for q in taken.quads])) if taken.quads else 0.0
    for reason, shape in rejected:
        pts = np.asarray(shape, np.float32).reshape(-1, 2)
        centre = pts.mean(axis=0)
        if taken.near(float(centre[0]), float(centre[1])):
            continue  # the other source found the card here
        x, y, bw, bh = cv2.boundingRect((pts / to_small).reshape(-1, 1, 2).astype(np.float32))
        if min(bw, bh) < thinnest:
            continue
        places.append((_unlike_a_card(pts, card_area), reason, (int(x), int(y), int(bw), int(bh))))
    # The most card-like outlines first: calibration names only the first few, and on a
    # terrazzo floor `see --explain` listed thirty, most of them pieces of floor.
    places.sort(key=lambda place: place[0])
    for _, reason, box in places:
        x, y, bw, bh = box
        cx, cy = x + bw / 2, y + bh / 2
        if not any(
            r.box[0] <= cx <= r.box[0] + r.box[2]
            and r.box[1] <= cy <= r.box[1] + r.box[3]
            # An outline round several cards is another place; a card too close holds its own
            # insides.
            and (r.reason == "too_close" or r.box[2] * r.box[3] <= 2 * bw * bh)
            for r in explained
        ):  # one reason per place (both sources and both levels may see the same outline)
            explained.append(Rejection(reason, box))
    return explained


def find_card_quads(frame: Image, view: float = 1.0, dark_borders: bool = False) -> list[Quad]:
    """Card outlines in ``frame`` (BGR), left to right, as quads in frame coordinates (``view``
    and ``dark_borders``: see :func:`find_cards_explained`)."""
    return _find_cards(frame, view, dark_borders, explain=False)[0]


def warp_card(frame: Image, quad: Quad) -> Image:
    """The card as a canonical ``CARD_W`` × ``CARD_H`` BGR image."""
    dst = np.asarray(
        [(0, 0), (CARD_W - 1, 0), (CARD_W - 1, CARD_H - 1), (0, CARD_H - 1)], np.float32
    )
    matrix = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
    card = cv2.warpPerspective(frame, matrix, (CARD_W, CARD_H), flags=cv2.INTER_AREA)
    return np.asarray(card, np.uint8)


def _ring_mask() -> npt.NDArray[np.bool_]:
    mask = np.zeros((CARD_H, CARD_W), bool)
    rx, ry = round(_RING * CARD_W), round(_RING * CARD_W)
    # Sides only, away from the rounded corners.
    cx0, cx1 = round(0.15 * CARD_W), round(0.85 * CARD_W)
    cy0, cy1 = round(0.12 * CARD_H), round(0.88 * CARD_H)
    mask[1:ry, cx0:cx1] = True
    mask[CARD_H - ry : CARD_H - 1, cx0:cx1] = True
    mask[cy0:cy1, 1:rx] = True
    mask[cy0:cy1, CARD_W - rx : CARD_W - 1] = True
    return mask


_RING_MASK: Final = _ring_mask()
_RING_INDEX: Final = np.flatnonzero(_RING_MASK)  # the ring's pixels, as indices into the card
_FY0, _FY1 = round(_FIELD * CARD_W), CARD_H - round(_FIELD * CARD_W)
_FX0, _FX1 = round(_FIELD * CARD_W), CARD_W - round(_FIELD * CARD_W)

# A card is read from a few thousand pixels; numpy's reductions along a short last axis (B, G,
# R) and np.median cost more there than the arithmetic (1.4 ms a card, most of a 16-card
# frame's time). Channels are taken as columns and combined elementwise; medians are two
# partitions. Same answers, about a fifth of the time.


def _median(values: npt.NDArray[np.float32]) -> float:
    """np.median of a non-empty 1-D array (the mean of the two middle values when even)."""
    n = len(values)
    half = n // 2
    if n % 2:
        return float(np.partition(values, half)[half])
    parted = np.partition(values, (half - 1, half))
    return float((parted[half - 1] + parted[half]) / 2)


def _brightest_white(pixels: Image) -> npt.NDArray[np.float32]:
    """The colour (B, G, R) of the brightest neutral quarter of ``pixels`` (one row each),
    unsaturated pixels preferred (glare clips them)."""
    b, g, r = pixels[:, 0], pixels[:, 1], pixels[:, 2]
    unsaturated = np.maximum(np.maximum(b, g), r) < 250
    if int(np.count_nonzero(unsaturated)) >= len(pixels) // 4:
        pixels = pixels[unsaturated]
        b, g, r = pixels[:, 0], pixels[:, 1], pixels[:, 2]
    score = np.minimum(np.minimum(b, g), r)
    k = (3 * len(score)) // 4
    top = score >= np.partition(score, k)[k]
    white = [max(_median(channel[top].astype(np.float32)), 1.0) for channel in (b, g, r)]
    return np.asarray(white, np.float32)


# The outer strip of each side of a canonical card (away from the corners), this many pixels
# deep from the second row or column in (the first may hold the table): a card's white margin
# is there even where the margin is narrow (UNO's), or the quad lies a pixel inside.
_OUTER_STRIP: Final = 3
_CX0, _CX1 = round(0.15 * CARD_W), round(0.85 * CARD_W)
_CY0, _CY1 = round(0.12 * CARD_H), round(0.88 * CARD_H)
# A side whose strip, balanced against the margin's white, has this chroma or more is coloured.
# On the real photos, of 563 cards found, 556 had no coloured side, 6 one (a shadow or a
# coloured table's light on one side), 1 three (a black-bordered Magic card); of 68 synthetic
# black-bordered cards (the outline found being the field inside the border), 54 had three.
_COLOURED_SIDE: Final = 0.2
_COLOURED_SIDES: Final = 2
# A field lighter than its margin by this factor has no white margin: of the 569 cards found on
# the real photos, every white-margined one measured 1.04 or less; black-bordered Magic cards
# 1.24–4.42 (two of them, whole on wood, read "orange" at 0.9 and 1.0).
_FIELD_ABOVE_MARGIN: Final = 1.2


# A card's edge this much darker than what it lies on, on three sides or more, is a dark
# border (black on a light table: 150 levels or more), not a white margin (on a white table
# a few levels darker at most, where the light falls off over its cut edge).
_BORDER_SCALES_OUT = np.asarray([0.985, 0.97, 1.06], np.float32)
_BORDER_DARKER: Final = 40.0


def _dark_bordered(frame: Image, quad: Quad) -> bool:
    """Whether the card whose corners (frame coordinates) are ``quad`` has a dark border."""
    pts = _side_weights(tuple(_BORDER_SCALES_OUT.tolist())) @ np.asarray(quad, np.float32)
    grey = _gather(frame, pts).mean(axis=-1).reshape(len(_BORDER_SCALES_OUT), 4, -1)
    means = grey.mean(axis=2)  # (scales, sides)
    darker = means[-1] - means[:-1].max(axis=0)
    return int((darker > _BORDER_DARKER).sum()) >= 3


def _coloured_margin_sides(card: Image, white: npt.NDArray[np.float32]) -> int:
    """How many sides of a canonical card's outer strip are coloured, balanced against the
    margin's ``white``: none on a card with a white margin all round."""
    s = 1 + _OUTER_STRIP
    across = np.stack([card[1:s, _CX0:_CX1], card[CARD_H - s : CARD_H - 1, _CX0:_CX1]])
    down = np.stack([card[_CY0:_CY1, 1:s], card[_CY0:_CY1, CARD_W - s : CARD_W - 1]])
    # The middle value of each side's channel (one partition each, the upper of two middles)
    middles = []
    for side in (across, down):
        channels = side.reshape(2, -1, 3).transpose(0, 2, 1)  # (2 sides, B G R, pixels)
        half = channels.shape[2] // 2
        middles.append(np.partition(channels, half, axis=2)[:, :, half])
    medians = np.concatenate(middles).astype(np.float32) / np.asarray(white, np.float32)
    b, g, r = medians[:, 0], medians[:, 1], medians[:, 2]
    chroma = np.hypot(r - g, (r + g) / 2 - b)
    return int(np.count_nonzero(chroma >= _COLOURED_SIDE))


def _no_white_margin(
    frame: Image, quad: Quad, card: Image, white: npt.NDArray[np.float32], lightness: float
) -> bool:
    """Whether the card (``card`` warped from ``frame`` at ``quad``, its margin's ``white``, its
    field's ``lightness`` against it) lacks a white margin all round: a dark border (the older
    black-bordered printing, found whole on a light table: far darker than the table, its field
    lighter than its "white"), or the field inside it, whose pale sky band was taken for the
    white (orange read yellow at 0.95)."""
    return (
        lightness > _FIELD_ABOVE_MARGIN
        or _coloured_margin_sides(card, white) >= _COLOURED_SIDES
        or _dark_bordered(frame, quad)
    )


def has_white_margin(frame: Image, quad: Quad) -> bool:
    """Whether the card whose corners (frame coordinates) are ``quad`` has a white margin all
    round: what its colours are balanced against (and measured against, in calibration)."""
    quad = _order(np.asarray(quad, np.float32).reshape(4, 2))
    card = warp_card(frame, quad)
    white = margin_white(card)
    lightness = _features_and_share(card, white)[0][0]
    return not _no_white_margin(frame, quad, card, white, lightness)


def margin_white(card: Image) -> npt.NDArray[np.float32]:
    """The margin's colour (B, G, R): the brightest neutral quarter of the ring, unsaturated
    pixels preferred (glare clips them)."""
    return _brightest_white(card.reshape(-1, 3)[_RING_INDEX])


def card_features(card: Image) -> tuple[float, float, float, float]:
    """The palette features of a canonical card (see :mod:`vision.palette`)."""
    return _features_and_share(card)[0]


def _field(card: Image) -> Image:
    """The card's field (every other pixel, away from the margin), one row per pixel."""
    return card[_FY0:_FY1:2, _FX0:_FX1:2].reshape(-1, 3)


def _features_and_share(
    card: Image, white: npt.NDArray[np.float32] | None = None
) -> tuple[tuple[float, float, float, float], float]:
    """The palette features, and the share of the field's pixels that are coloured (-1 when the
    card has no colour and large white and large dark parts alike); ``white``: the margin's, if
    known."""
    white = margin_white(card) if white is None else white
    field = _field(card)
    b, g, r = (field[:, c].astype(np.float32) / white[c] for c in range(3))
    lightness = (r + g + b) / np.float32(3.0)
    red_green = r - g
    yellow_blue = (r + g) / np.float32(2.0) - b
    chroma = np.hypot(red_green, yellow_blue)
    coloured = chroma > 0.15
    count = int(np.count_nonzero(coloured))
    share = count / len(chroma)
    if count:
        hue = np.arctan2(yellow_blue[coloured], red_green[coloured])
        resultant = math.hypot(float(np.cos(hue).mean()), float(np.sin(hue).mean()))
        multicolour = (1.0 - resultant) * share
    else:
        multicolour = 0.0
    # The colour is the coloured pixels' colour: a card with a large white or black element in
    # the middle (an UNO card's oval, a Set card's symbols on white) is still its colour. With
    # too few coloured pixels the card is white or black, and the whole field decides.
    if share >= _MIN_COLOURED_SHARE:
        # The more saturated half: pixels blending the ink with a white element or the margin
        # (at their borders, or a pale sky band) would pull the colour towards white.
        pick = coloured & (chroma >= _median(chroma[coloured]))
    else:
        # No colour: white or black. A black card with a white element (an oval, a number) is
        # black: its dark pixels decide when they cover a good part of the field.
        dark = lightness < 0.5
        dark_share = int(np.count_nonzero(dark)) / len(dark)
        pick = dark if dark_share >= _MIN_DARK_SHARE else np.ones_like(coloured)
        if _SOME_DARK_SHARE <= dark_share < _MIN_DARK_SHARE:
            share = -1.0  # large white and large black parts: neither answer is sure
    features = (
        _median(lightness[pick]),
        _median(red_green[pick]),
        _median(yellow_blue[pick]),
        float(multicolour),
    )
    return features, share


class Ink(NamedTuple):
    """The ink on a card's field (:func:`card_ink`)."""

    share: float  # of the field's pixels
    red_green: float  # the tint: the features' opponent colours per unit of the ink's darkness
    yellow_blue: float
    # How well the ink's pixels agree on its hue: the standard error of the mean tint's hue, in
    # degrees (its pixels' spread across the tint's direction over the square root of their
    # number). A thin line's hundreds of pixels know it within a degree or two; twenty noisy
    # pixels in dim light do not.
    hue_error: float

    @property
    def tint(self) -> float:
        """How coloured the ink is: the length of its tint (0 for grey or black ink)."""
        return math.hypot(self.red_green, self.yellow_blue)


def card_ink(card: Image) -> Ink:
    """The ink on the card's field, against the field's own paper (its brightest neutral
    quarter): the share of the field's pixels that are ink (darker than the paper by
    ``_INK_DARKNESS``), and the ink's tint, red_green and yellow_blue of its mean colour per unit
    of its mean darkness (the features' opponent colours, relative to the paper), with how
    surely its hue is known. Grey or black ink has no tint; a thin coloured line blended with the
    paper keeps its hue and most of its tint. No share and no tint when the field has no ink."""
    field = _field(card)
    paper = _brightest_white(field)
    b, g, r = (field[:, c].astype(np.float32) / paper[c] for c in range(3))
    darkness = np.float32(1.0) - (r + g + b) / np.float32(3.0)
    ink = darkness > _INK_DARKNESS
    count = int(np.count_nonzero(ink))
    if not count:
        return Ink(0.0, 0.0, 0.0, 180.0)
    r, g, b = r[ink], g[ink], b[ink]
    depth = float(darkness[ink].mean())
    pixel_red_green = (r - g) / np.float32(depth)
    pixel_yellow_blue = ((r + g) / np.float32(2.0) - b) / np.float32(depth)
    red_green = float(pixel_red_green.mean())
    yellow_blue = float(pixel_yellow_blue.mean())
    tint = math.hypot(red_green, yellow_blue)
    hue_error = 180.0
    if count > 1 and tint > 0.0:
        across = (pixel_yellow_blue * red_green - pixel_red_green * yellow_blue) / tint
        spread = float(across.std(ddof=1)) / math.sqrt(count)
        hue_error = math.degrees(math.atan2(spread, tint))
    return Ink(count / len(darkness), red_green, yellow_blue, hue_error)


def clipped_share(card: Image) -> float:
    """The share of the field's pixels clipped white (glare): their colour is lost."""
    field = _field(card)
    clipped = np.maximum(np.maximum(field[:, 0], field[:, 1]), field[:, 2]) >= 250
    return int(np.count_nonzero(clipped)) / len(clipped)


def classify_card(
    frame: Image,
    quad: Quad,
    palette: Palette = DEFAULT_PALETTE,
    unsure_below: float = DEFAULT_UNSURE_BELOW,
) -> TrainCard:
    """Read the colour of the card whose corners (frame coordinates) are ``quad``."""
    quad = _order(np.asarray(quad, np.float32).reshape(4, 2))
    card = warp_card(frame, quad)
    white = margin_white(card)
    features, share = _features_and_share(card, white)
    guess, confidence = palette.classify(features)
    if share < 0.0 or (_SOME_COLOURED_SHARE <= share < _MIN_COLOURED_SHARE and guess in _NEUTRAL):
        # Large white and large dark parts, or a little colour seen (a thin coloured line on a
        # white card): too little to read a colour, too much to say "white" for sure.
        confidence = min(confidence, 0.5 * unsure_below)
    elif share < _MIN_COLOURED_SHARE:
        # Under glare a card reads as white with full confidence: distrust clipped fields
        # (a quarter clipped halves the confidence, 40 % or more clipped gives none). When the
        # coloured pixels decide, clipped ones are a printed white element or glare beside them.
        confidence *= max(0.0, 1.0 - 2.5 * clipped_share(card))
    elif guess in _NEUTRAL:
        # Coloured pixels were found, yet the nearest class has no colour (a dark violet or a
        # thin coloured line that the palette puts nearer black or white): unsure, not wrong.
        confidence = min(confidence, 0.5 * unsure_below)
    if share >= _MIN_COLOURED_SHARE and confidence < unsure_below:
        # Clearly coloured pixels, yet far from every class: another printing (Set's dark
        # violet, a pale red). Its hue still tells the colour when one class's hue is clearly
        # the nearest; otherwise it stays unsure.
        by_hue = palette.classify_by_hue(features)
        if by_hue is not None and by_hue[1] >= unsure_below:
            guess, confidence = by_hue
        violet = palette.classify_violet(features)
        if violet is not None and (
            confidence < unsure_below or palette.too_pale_for(guess, features)
        ):
            # Nor by the nearest hue, or only as a colour a light makes and too pale for it
            # (blue): a violet no light makes is purple (Set's dark violet, or printed near navy).
            guess, confidence = violet
    elif share >= _MIN_COLOURED_SHARE and palette.hue_disagrees(guess, features):
        # The coloured pixels' nearest class, yet their hue is clearly another's: the two
        # readings disagree (a thin red line on white is as light as a pale purple). Unsure.
        confidence = min(confidence, 0.5 * unsure_below)
    if guess == "white":
        # A white card's field is paper with grey ink at most (a Ticket to Ride wagon's lines, a
        # playing card's black pips). A real share of tinted ink is a coloured drawing too thin
        # or pale for the coloured pixels (a Set card's outlines or faint stripes): its hue
        # tells the colour when it is clear; otherwise the card is unsure, never "white".
        ink = card_ink(card)
        ink_share, tint = ink.share, ink.tint
        if ink_share >= _INK_MIN_SHARE and tint >= _INK_MIN_TINT:
            by_ink = palette.classify_ink(ink.red_green, ink.yellow_blue, ink.hue_error)
            if by_ink is not None and by_ink[1] >= max(unsure_below, _INK_SURE):
                guess, confidence = by_ink
            else:
                confidence = min(confidence, 0.5 * unsure_below)
        elif (ink_share >= _INK_MIN_SHARE and tint >= _INK_FAINT_TINT) or (
            _INK_THIN_SHARE <= ink_share < _INK_MIN_SHARE and tint >= _INK_THIN_TINT
        ):
            confidence = min(confidence, 0.5 * unsure_below)
    if palette.too_pale_for(guess, features) or palette.too_tinted_for(guess, features):
        # Yellow, orange or blue from a pale card (its field, its hue or its ink): a light's
        # cast on a paler card, or a thin line's colour; black from dark pixels of a colour no
        # light makes: a dark violet or green in shade. Unsure, not wrong.
        confidence = min(confidence, 0.5 * unsure_below)
    if _no_white_margin(frame, quad, card, white, features[0]):
        # Nothing to balance the colours against. Unsure, not wrong.
        confidence = min(confidence, 0.5 * unsure_below)
    if guess not in palette.colours:
        confidence = 0.0  # white or black, which this deck has not
    x, y, w, h = cv2.boundingRect(quad.reshape(-1, 1, 2))
    return TrainCard(
        colour=guess if confidence >= unsure_below else UNSURE,
        guess=guess,
        confidence=confidence,
        corners=tuple((float(px), float(py)) for px, py in quad),
        box=(int(x), int(y), int(w), int(h)),
        features=features,
    )


def read_train_cards(
    frame: Image,
    palette: Palette = DEFAULT_PALETTE,
    unsure_below: float = DEFAULT_UNSURE_BELOW,
) -> list[TrainCard]:
    """Every train card in the frame, left to right, with its colour and confidence (the
    palette's calibration says how the camera sees the table: its colours and its slant)."""
    return [
        classify_card(frame, quad, palette, unsure_below)
        for quad in find_card_quads(frame, palette.view, palette.black_bordered)
    ]
