"""Synthetic table scenes for tests and the benchmark.

Draws Ticket-to-Ride-style train cards (nine classes: the eight colours and the multicolour
locomotive) and ArUco 4×4 marker stickers on a dark mat, wood or a light table, under neutral,
warm (≈2700 K), dim or glare light, with blur, sensor noise and camera tilt, and returns the
image with its ground truth.

What the cards look like here is OUR model of a TTR train card, not a scan of one: a white
printed margin around a coloured field with a darker train silhouette (the locomotive: stripes of
every colour behind a dark engine). Everything validated against these scenes is validated on
synthetic data only (``docs/vision.md`` says what that covers).

The scene is composed in linear light (reflectance × illuminant), then blurred, encoded with a
2.2 gamma, given sensor noise and quantised to 8-bit BGR, like OpenCV frames.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final, Literal

import cv2
import numpy as np
import numpy.typing as npt

from vision.markers import ARUCO_DICTIONARY
from vision.palette import LOCOMOTIVE_STRIPES, NOMINAL_CARD_SRGB, NOMINAL_MARGIN_SRGB

FloatImage = npt.NDArray[np.float32]
Image = npt.NDArray[np.uint8]

Background = Literal["dark", "wood", "light", "light_wood", "leather"]
Light = Literal["neutral", "warm", "dim", "glare"]

BACKGROUNDS: Final[tuple[Background, ...]] = ("dark", "wood", "light")
# Harder tables, as real photos showed them (bench/bench_vision_real.py): light wood, bright and
# strongly grained; leather or fleece, mottled with fine grain everywhere.
HARD_BACKGROUNDS: Final[tuple[Background, ...]] = ("light_wood", "leather")
LIGHTS: Final[tuple[Light, ...]] = ("neutral", "warm", "dim", "glare")

# The cards are drawn in the nominal printed colours the default palette assumes.
CARD_SRGB: Final = NOMINAL_CARD_SRGB
MARGIN_SRGB: Final = NOMINAL_MARGIN_SRGB

# Card size (a TTR Europe train card is about 44 × 68 mm) drawn at 4 px/mm.
CARD_W_MM: Final = 44.0
CARD_H_MM: Final = 68.0
_PX_PER_MM: Final = 4.0
_MARGIN_MM: Final = 2.5
_CORNER_MM: Final = 3.0
_EDGE_MM: Final = 0.5  # a card's cut edge, as it shows (card stock, its bevel and shadow)

# Light colour in linear RGB relative to the camera's fixed white balance (daylight).
# 2700 K against a D65 balance: red 1.0, green ≈0.63, blue ≈0.30 (blackbody ratio, rounded).
_ILLUMINANT: Final[dict[str, tuple[float, float, float]]] = {
    "neutral": (0.92, 0.92, 0.92),
    "warm": (0.95, 0.60, 0.29),
    "dim": (0.16, 0.16, 0.16),
    "glare": (0.88, 0.88, 0.88),
}
_NOISE_DN: Final[dict[str, float]] = {"neutral": 1.5, "warm": 1.5, "dim": 3.5, "glare": 1.5}


@dataclass(frozen=True, slots=True)
class CardTruth:
    colour: str  # one of the eight colours or "locomotive"
    corners: tuple[tuple[float, float], ...]  # four (x, y) in the final image


@dataclass(frozen=True, slots=True)
class MarkerTruth:
    marker_id: int
    size_px: float  # side of the black square (marker with its black border), before tilt
    corners: tuple[tuple[float, float], ...]


@dataclass(frozen=True, slots=True)
class SceneSpec:
    """What to draw. ``markers`` are (marker id, side in pixels) pairs."""

    width: int = 640
    height: int = 480
    background: Background = "dark"
    light: Light = "neutral"
    cards: tuple[str, ...] = ()
    card_width_px: float | None = None  # default: 9 % of the image width
    markers: tuple[tuple[int, float], ...] = ()
    blur_sigma: float = 0.0
    tilt: float = 0.0  # keystone: the far edge shrinks by this fraction of the width
    rotation_deg: float = 20.0  # cards are turned by up to ± this (and some lie sideways)
    print_jitter: float = 0.04  # relative colour variation between printed cards
    layout: Literal["scatter", "row"] = "scatter"  # row: left to right in the given order
    inks: tuple[tuple[str, tuple[int, int, int]], ...] = ()  # (class, sRGB): another printing
    # "oval": a large white oval across the middle of the field, as UNO-like art has (the field's
    # median is then white; only the coloured pixels tell the card's colour).
    art: Literal["wagon", "oval"] = "wagon"
    row_gap_px: float | None = None  # row layout: cards this far apart (0: touching), centred
    # The cards' cut edges darker by this share: real card stock's edge shows as a thin dark
    # line, which is the seam between cards touching in a row (0: none, as drawn before).
    card_edge: float = 0.0
    # The printing's margin (sRGB): white, as the current printing; the older printing's is
    # black (its field then runs to a black border).
    margin: tuple[int, int, int] = MARGIN_SRGB
    seed: int = 0


@dataclass(frozen=True, slots=True)
class Scene:
    spec: SceneSpec
    image: Image = field(repr=False)
    cards: tuple[CardTruth, ...]
    markers: tuple[MarkerTruth, ...]


def srgb_to_linear(rgb: tuple[int, int, int]) -> npt.NDArray[np.float32]:
    return (np.asarray(rgb, dtype=np.float32) / 255.0) ** 2.2


def _bgr_linear(rgb: tuple[int, int, int]) -> npt.NDArray[np.float32]:
    return srgb_to_linear(rgb)[::-1].copy()


def card_texture(
    colour: str,
    rng: np.random.Generator,
    jitter: float,
    inks: Mapping[str, tuple[int, int, int]] = CARD_SRGB,
    art: str = "wagon",
    *,
    edge: float = 0.0,
    margin_srgb: tuple[int, int, int] = MARGIN_SRGB,
) -> tuple[FloatImage, FloatImage]:
    """A canonical (portrait) card in linear BGR reflectance, and its alpha (rounded corners).
    ``edge``: the card's cut edge (its outermost half millimetre) darker by this share;
    ``margin_srgb``: the printing's margin colour."""
    w = round(CARD_W_MM * _PX_PER_MM)
    h = round(CARD_H_MM * _PX_PER_MM)
    margin = round(_MARGIN_MM * _PX_PER_MM)
    img = np.empty((h, w, 3), np.float32)
    img[:] = _bgr_linear(margin_srgb)

    def tint(rgb: tuple[int, int, int]) -> npt.NDArray[np.float32]:
        factor = 1.0 + rng.normal(0.0, jitter, 3).astype(np.float32)
        return np.clip(_bgr_linear(rgb) * factor, 0.0, 1.0)

    field_ = img[margin : h - margin, margin : w - margin]
    fh, fw = field_.shape[:2]
    if colour == "locomotive":
        # Diagonal rainbow stripes, then a dark engine.
        yy, xx = np.mgrid[0:fh, 0:fw]
        band = ((xx + yy) // max(1, (fw + fh) // 12)) % len(LOCOMOTIVE_STRIPES)
        for i, name in enumerate(LOCOMOTIVE_STRIPES):
            field_[band == i] = tint(inks[name])
        body = tint((40, 40, 45))
    else:
        base = tint(inks[colour])
        field_[:] = base
        # A lighter sky band at the top, like the artwork's background.
        field_[: fh // 5] = np.clip(base * 0.7 + 0.3 * _bgr_linear(MARGIN_SRGB), 0.0, 1.0)
        body = base * 0.45
    # A train wagon: a body and two wheels, across the middle of the field.
    x0, x1 = fw // 8, fw - fw // 8
    y0, y1 = int(fh * 0.42), int(fh * 0.62)
    field_[y0:y1, x0:x1] = body
    if art == "oval":
        white = tuple(float(v) for v in _bgr_linear(MARGIN_SRGB))
        cv2.ellipse(
            field_, (fw // 2, fh // 2), (int(fw * 0.46), int(fh * 0.36)), 0, 0, 360, white, -1
        )
        body = base * 0.9 if colour != "locomotive" else body
        field_[y0 + (y1 - y0) // 3 : y1 - (y1 - y0) // 3, fw // 3 : fw - fw // 3] = body
        y1 = y0  # no wheels
    radius = max(2, fw // 12)
    for cx in (x0 + 2 * radius, x1 - 2 * radius) if art == "wagon" else ():
        cv2.circle(field_, (cx, y1 + radius // 2), radius, tuple(float(v) for v in body * 0.6), -1)
    alpha = np.zeros((h, w), np.float32)
    r = round(_CORNER_MM * _PX_PER_MM)
    cv2.rectangle(alpha, (r, 0), (w - 1 - r, h - 1), (1.0,), -1)
    cv2.rectangle(alpha, (0, r), (w - 1, h - 1 - r), (1.0,), -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(alpha, (cx, cy), r, (1.0,), -1)
    if edge:
        rim = round(_EDGE_MM * _PX_PER_MM)
        kernel = np.ones((2 * rim + 1, 2 * rim + 1), np.uint8)
        inner = cv2.erode(alpha, kernel, borderType=cv2.BORDER_CONSTANT, borderValue=(0.0,))
        img *= (1.0 - edge * (alpha - inner))[:, :, None]
    return img, alpha


def marker_texture(marker_id: int, module_px: int = 12) -> tuple[FloatImage, FloatImage, float]:
    """An ArUco 4×4 sticker: the marker (6 modules with its black border) plus a one-module
    white quiet zone. Returns the texture, its alpha and the marker's side within it (px)."""
    dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICTIONARY)
    side = 6 * module_px
    marker = cv2.aruco.generateImageMarker(dictionary, marker_id, side)
    white = float(srgb_to_linear(MARGIN_SRGB)[1])
    black = float(srgb_to_linear((25, 25, 25))[1])
    sticker = np.full((side + 2 * module_px, side + 2 * module_px), white, np.float32)
    sticker[module_px : module_px + side, module_px : module_px + side] = np.where(
        marker > 127, white, black
    )
    tex = np.repeat(sticker[:, :, None], 3, axis=2)
    return tex, np.ones(sticker.shape, np.float32), float(side)


def _background(spec: SceneSpec, rng: np.random.Generator) -> FloatImage:
    h, w = spec.height, spec.width
    if spec.background == "dark":
        base = _bgr_linear((34, 46, 40))
        noise = rng.normal(1.0, 0.08, (h, w)).astype(np.float32)
        return base[None, None, :] * noise[:, :, None]
    if spec.background == "light":
        base = _bgr_linear((216, 212, 204))
        noise = rng.normal(1.0, 0.02, (h, w)).astype(np.float32)
        return base[None, None, :] * noise[:, :, None]
    if spec.background == "leather":
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        noise = rng.normal(0, 1, (h, w)).astype(np.float32)
        blurred = np.asarray(cv2.GaussianBlur(noise, (0, 0), 9.0), np.float32)
        blotch = blurred / max(float(np.abs(blurred).max()), 1e-6)
        fine = rng.normal(0, 0.09, (h, w)).astype(np.float32)
        creases = (np.sin(xx / 7.0 + 2.0 * np.sin(yy / 11.0)) > 0.96).astype(np.float32) * -0.25
        shade = 0.8 + 0.2 * blotch + fine + creases
        base = _bgr_linear((120, 72, 44))
        return np.asarray(base[None, None, :] * shade[:, :, None], np.float32)
    # Wood: grain along one axis, wavy, with a random angle.
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    angle = rng.uniform(0, math.pi)
    u = xx * math.cos(angle) + yy * math.sin(angle)
    v = -xx * math.sin(angle) + yy * math.cos(angle)
    grain = np.sin(u / rng.uniform(3.0, 6.0) + 3.0 * np.sin(v / 60.0)) * 0.5 + 0.5
    rings = np.sin(u / 23.0) * 0.5 + 0.5
    shade = 0.78 + 0.14 * grain + 0.10 * rings + rng.normal(0, 0.03, (h, w))
    base = _bgr_linear((214, 170, 112) if spec.background == "light_wood" else (165, 112, 66))
    return np.asarray(base[None, None, :] * shade[:, :, None], np.float32)


def _quad(cx: float, cy: float, w: float, h: float, angle_deg: float) -> npt.NDArray[np.float32]:
    """Corners (tl, tr, br, bl of the texture) of a w×h rectangle centred at (cx, cy)."""
    a = math.radians(angle_deg)
    ca, sa = math.cos(a), math.sin(a)
    pts = []
    for dx, dy in ((-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2)):
        pts.append((cx + dx * ca - dy * sa, cy + dx * sa + dy * ca))
    return np.asarray(pts, np.float32)


def _paste(
    canvas: FloatImage,
    tex: FloatImage,
    alpha: FloatImage,
    dst: npt.NDArray[np.float32],
    shadow: bool,
) -> None:
    th, tw = tex.shape[:2]
    src = np.asarray([(0, 0), (tw - 1, 0), (tw - 1, th - 1), (0, th - 1)], np.float32)
    matrix = cv2.getPerspectiveTransform(src, dst)
    size = (canvas.shape[1], canvas.shape[0])
    warped = cv2.warpPerspective(tex, matrix, size, flags=cv2.INTER_AREA)
    mask = cv2.warpPerspective(alpha, matrix, size, flags=cv2.INTER_LINEAR)
    if shadow:
        soft = cv2.GaussianBlur(mask, (0, 0), 3.0)
        soft = np.roll(soft, (3, 2), axis=(0, 1))
        canvas *= (1.0 - 0.35 * soft)[:, :, None]
    canvas[:] = canvas * (1.0 - mask[:, :, None]) + warped * mask[:, :, None]


def _place(
    rng: np.random.Generator,
    spec: SceneSpec,
    radius: float,
    taken: list[tuple[float, float, float]],
) -> tuple[float, float]:
    border = radius + 0.08 * min(spec.width, spec.height)
    if 2 * border >= min(spec.width, spec.height):
        raise ValueError(f"cannot place something {2 * radius:.0f} px wide in {spec!r}")
    for _ in range(500):
        cx = rng.uniform(border, spec.width - border)
        cy = rng.uniform(border, spec.height - border)
        if all(math.hypot(cx - x, cy - y) > radius + r + 4 for x, y, r in taken):
            taken.append((cx, cy, radius))
            return cx, cy
    raise ValueError(f"cannot place everything in {spec.width}×{spec.height}: {spec!r}")


def _keystone(spec: SceneSpec) -> npt.NDArray[np.float64]:
    w, h = spec.width, spec.height
    inset = spec.tilt * w / 2
    src = np.asarray([(0, 0), (w, 0), (w, h), (0, h)], np.float32)
    dst = np.asarray([(inset, 0), (w - inset, 0), (w, h), (0, h)], np.float32)
    return np.asarray(cv2.getPerspectiveTransform(src, dst), np.float64)


def _apply(
    matrix: npt.NDArray[np.float64], pts: npt.NDArray[np.float32]
) -> npt.NDArray[np.float32]:
    out = cv2.perspectiveTransform(pts.reshape(-1, 1, 2).astype(np.float32), matrix)
    return np.asarray(out, np.float32).reshape(-1, 2)


def render_scene(spec: SceneSpec) -> Scene:
    """Draw one scene (deterministic for a given spec, seed included)."""
    rng = np.random.default_rng(spec.seed)
    bg = _background(spec, rng)
    canvas = bg.copy()
    taken: list[tuple[float, float, float]] = []
    card_w = spec.card_width_px or 0.09 * spec.width
    card_h = card_w * CARD_H_MM / CARD_W_MM
    placed_cards: list[tuple[str, npt.NDArray[np.float32]]] = []
    inks = {**CARD_SRGB, **dict(spec.inks)}
    for index, colour in enumerate(spec.cards):
        if spec.layout == "row" and spec.row_gap_px is not None:
            pitch = card_w + spec.row_gap_px
            left = (spec.width - pitch * len(spec.cards) + spec.row_gap_px) / 2
            if left < 2:
                raise ValueError(f"cannot place {len(spec.cards)} cards in a row: {spec!r}")
            cx, cy = left + card_w / 2 + index * pitch, spec.height / 2
            taken.append((cx, cy, 0.5 * math.hypot(card_w, card_h)))
            angle = 0.0
        elif spec.layout == "row":
            slot = spec.width / len(spec.cards)
            if slot < card_w * 1.15:
                raise ValueError(f"cannot place {len(spec.cards)} cards in a row: {spec!r}")
            cx, cy = (index + 0.5) * slot, spec.height / 2 + rng.uniform(-0.05, 0.05) * spec.height
            taken.append((cx, cy, 0.5 * math.hypot(card_w, card_h)))
            angle = rng.uniform(-spec.rotation_deg, spec.rotation_deg)
        else:
            cx, cy = _place(rng, spec, 0.5 * math.hypot(card_w, card_h), taken)
            angle = rng.uniform(-spec.rotation_deg, spec.rotation_deg)
            if rng.random() < 0.3:
                angle += 90.0
        dst = _quad(cx, cy, card_w, card_h, angle)
        tex, alpha = card_texture(
            colour,
            rng,
            spec.print_jitter,
            inks,
            spec.art,
            edge=spec.card_edge,
            margin_srgb=spec.margin,
        )
        _paste(canvas, tex, alpha, dst, shadow=True)
        placed_cards.append((colour, dst))
    placed_markers: list[tuple[int, float, npt.NDArray[np.float32]]] = []
    for marker_id, size_px in spec.markers:
        tex, alpha, side = marker_texture(marker_id)
        sticker_px = size_px * tex.shape[0] / side
        cx, cy = _place(rng, spec, 0.75 * sticker_px, taken)
        angle = rng.uniform(-180.0, 180.0)
        dst = _quad(cx, cy, sticker_px, sticker_px, angle)
        _paste(canvas, tex, alpha, dst, shadow=False)
        inner = _quad(cx, cy, size_px, size_px, angle)
        placed_markers.append((marker_id, size_px, inner))

    keystone = _keystone(spec)
    if spec.tilt:
        size = (spec.width, spec.height)
        tilted = cv2.warpPerspective(canvas, keystone, size, flags=cv2.INTER_LINEAR)
        inside = cv2.warpPerspective(
            np.ones(canvas.shape[:2], np.float32), keystone, size, flags=cv2.INTER_LINEAR
        )
        canvas = (tilted * inside[:, :, None] + bg * (1.0 - inside[:, :, None])).astype(np.float32)

    # Light: illuminant colour × a soft gradient across the table (+ a glare spot).
    h, w = spec.height, spec.width
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    gangle = rng.uniform(0, 2 * math.pi)
    ramp = (xx / w - 0.5) * math.cos(gangle) + (yy / h - 0.5) * math.sin(gangle)
    light = (0.92 + 0.16 * ramp)[:, :, None] * np.asarray(_ILLUMINANT[spec.light][::-1], np.float32)
    linear = canvas * light
    if spec.light == "glare":
        # A specular highlight: near a card if there is one, saturating at its centre.
        if placed_cards:
            pick = placed_cards[int(rng.integers(len(placed_cards)))][1]
            gx, gy = _apply(keystone, pick).mean(axis=0) + rng.normal(0, card_w * 0.4, 2)
        else:
            gx, gy = rng.uniform(0, w), rng.uniform(0, h)
        radius = card_w * rng.uniform(0.35, 0.6)
        spot = np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * radius**2))
        linear = linear + (1.3 * spot)[:, :, None]
    if spec.blur_sigma > 0:
        linear = cv2.GaussianBlur(linear, (0, 0), spec.blur_sigma)
    encoded = np.clip(linear, 0.0, 1.0) ** (1 / 2.2) * 255.0
    encoded += rng.normal(0.0, _NOISE_DN[spec.light], encoded.shape).astype(np.float32)
    image = np.clip(np.rint(encoded), 0, 255).astype(np.uint8)

    def tup(pts: npt.NDArray[np.float32]) -> tuple[tuple[float, float], ...]:
        return tuple((float(x), float(y)) for x, y in _apply(keystone, pts))

    return Scene(
        spec=spec,
        image=image,
        cards=tuple(CardTruth(colour, tup(dst)) for colour, dst in placed_cards),
        markers=tuple(MarkerTruth(mid, size, tup(dst)) for mid, size, dst in placed_markers),
    )


def seen_at_a_slant(scene: Scene, degrees: float, distance: float = 1.5) -> Scene:
    """``scene`` as a camera sees it from ``degrees`` away from straight down, aimed at the
    middle of the table from ``distance`` picture widths away: the table's depth is shortened
    (by about the cosine of the angle; 45° shows a portrait card nearly square) and its far side
    is smaller (the nearer the camera, the smaller). Outside the table, the picture's edge rows
    are repeated."""
    h, w = scene.image.shape[:2]
    angle = math.radians(degrees)
    away = distance * w  # in pixels
    to_centre = np.asarray([[1, 0, -w / 2], [0, 1, -h / 2], [0, 0, 1]], np.float64)
    camera = np.asarray(
        [[away, 0, 0], [0, away * math.cos(angle), 0], [0, -math.sin(angle), away]],
        np.float64,
    )
    back = np.asarray([[1, 0, w / 2], [0, 1, h / 2], [0, 0, 1]], np.float64)
    matrix = back @ camera @ to_centre
    matrix /= matrix[2, 2]
    image = cv2.warpPerspective(
        scene.image, matrix, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )

    def moved(corners: tuple[tuple[float, float], ...]) -> tuple[tuple[float, float], ...]:
        pts = _apply(matrix, np.asarray(corners, np.float32))
        return tuple((float(x), float(y)) for x, y in pts)

    return Scene(
        spec=scene.spec,
        image=np.asarray(image, np.uint8),
        cards=tuple(CardTruth(c.colour, moved(c.corners)) for c in scene.cards),
        markers=tuple(MarkerTruth(m.marker_id, m.size_px, moved(m.corners)) for m in scene.markers),
    )


def stick_marker(
    image: npt.NDArray[np.uint8], centre: tuple[float, float], marker_id: int, side_px: int = 48
) -> npt.NDArray[np.uint8]:
    """A copy of a rendered ``image`` with one of our marker stickers (the marker and a
    one-module white quiet zone, upright) stuck with its centre at ``centre``: a ticket or
    another component marked with its sticker, lying where a card lies."""
    module = max(1, side_px // 6)
    side = 6 * module
    dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICTIONARY)
    marker = cv2.aruco.generateImageMarker(dictionary, marker_id, side)
    white = np.asarray(MARGIN_SRGB[::-1], np.uint8)
    sticker = np.empty((side + 2 * module, side + 2 * module, 3), np.uint8)
    sticker[:] = white
    inner = sticker[module : module + side, module : module + side]
    inner[:] = np.where(marker[:, :, None] > 127, white, np.uint8(25))
    out = image.copy()
    n = sticker.shape[0]
    x0, y0 = round(centre[0] - n / 2), round(centre[1] - n / 2)
    out[y0 : y0 + n, x0 : x0 + n] = sticker
    return out
