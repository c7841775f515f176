"""``trackside see IMAGE…``: the vision detectors on still images, one JSON object per image.

For users checking their set-up (is the marker big enough, does the red card read red under this
lamp?) and for tests. Contract: ``{"image": "…", "markers": [{"id": N, "corners": [[x, y]…]}],
"train_cards": [{"colour": "red", "confidence": 0.97, "box": [x, y, w, h]}]}``; a card below the
confidence threshold has ``"colour": "unsure"`` and its nearest class in ``"guess"``. With
``--explain`` each object also has ``"rejected": [{"box": [x, y, w, h], "reason": "…"}]``: the
card-sized outlines not taken as cards, and why, the most card-like first.

Images are read, described and printed one at a time (memory stays flat over many large photos);
an unreadable image is a message on stderr, the others are still described, and the exit status
is then 2.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import io
import json
import math
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import Any, Final, TextIO

import cv2
import numpy as np
import numpy.typing as npt

from companion.core import SnapshotError
from vision.cards import (
    DEFAULT_UNSURE_BELOW,
    Rejection,
    carries_marker,
    classify_card,
    find_cards_explained,
)
from vision.markers import MIN_PERIMETER_RATE, Marker, MarkerDetector
from vision.palette import Palette, load_palette

# Larger photos are read at this longest side (a 12-megapixel phone photo's): a 16-megapixel
# one (4608 × 3456) took 285 MB on its own, the marker detector's work images included; at
# 4032 px, 186 MB. Coordinates are given in the photo's own pixels all the same.
MAX_SIDE: Final = 4032

# A photo with a longest side of twice that or more (a 48- or 108-megapixel phone's) is decoded
# at a half, a quarter or an eighth of its size straight away (JPEG decodes at those sizes
# directly): decoded whole, a 48-megapixel photo alone took 352 MB and a 108-megapixel one
# 705 MB before it was made smaller. It keeps at least three quarters of MAX_SIDE.
_LEAST_REDUCED_SIDE: Final = MAX_SIDE * 3 // 4
_REDUCED: Final = {
    1: cv2.IMREAD_COLOR,
    2: cv2.IMREAD_REDUCED_COLOR_2,
    4: cv2.IMREAD_REDUCED_COLOR_4,
    8: cv2.IMREAD_REDUCED_COLOR_8,
}


def _file_bytes(path: str) -> npt.NDArray[np.uint8] | None:
    try:
        data = np.fromfile(path, dtype=np.uint8)
    except OSError:
        return None
    return data if data.size else None


def _decoded(data: npt.NDArray[np.uint8], flag: int) -> npt.NDArray[np.uint8] | None:
    image = cv2.imdecode(data, flag)
    return None if image is None else np.asarray(image, np.uint8)


def read_image(path: str) -> npt.NDArray[np.uint8] | None:
    """The image as 8-bit BGR, or None when it cannot be read as an image."""
    data = _file_bytes(path)
    return None if data is None else _decoded(data, cv2.IMREAD_COLOR)


# HEIF brands (ISO/IEC 23008-12) in an ISO media file's "ftyp" box, bytes 8-12: an iPhone's
# photo by default. OpenCV and Pillow read none of them.
_HEIF_BRANDS: Final = (b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"mif1", b"msf1")


def unreadable_because(path: str) -> str:
    """Why an image could not be read, for people: the file is missing or empty, or an HEIC
    photo (an iPhone's own format, which the phone can save as JPEG instead), or not an image
    this reads."""
    try:
        with open(path, "rb") as file:
            head = file.read(12)
    except OSError as exc:
        return exc.strerror or "it cannot be opened"
    if not head:
        return "the file is empty"
    if head[4:8] == b"ftyp" and head[8:12] in _HEIF_BRANDS:
        return (
            "it is an HEIC photo (an iPhone's own format), which is not read here: save it as "
            "JPEG (on the iPhone: Settings → Camera → Formats → Most Compatible)"
        )
    return "it is not a JPEG, PNG or other image OpenCV reads"


# What Pillow is given to find the size: a JPEG's size comes after its EXIF and colour profile
# segments (64 kB each at most), not after its pixels; the whole file would be a copy of it.
_HEADER_BYTES: Final = 1 << 20


def _longest_side(data: npt.NDArray[np.uint8]) -> int | None:
    """The photo's longest side from its header alone (Pillow reads no pixel for it); None when
    the header does not say. A photo Pillow calls a decompression bomb (over 178 megapixels)
    counts as 16,000 px on its longest side: it is read at a quarter of its size."""
    import PIL.Image  # here, not at start-up: only `trackside see` reads photos this way

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PIL.Image.DecompressionBombWarning)
        try:
            with PIL.Image.open(io.BytesIO(data[:_HEADER_BYTES].tobytes())) as header:
                return max(header.size)
        except PIL.Image.DecompressionBombError:
            return 16_000
        except (OSError, ValueError, SyntaxError):  # Pillow does not know the format
            return None


def reduction(longest: int) -> int:
    """By how much to decode a photo whose longest side is ``longest``: 8, 4, 2 or 1, the most
    that keeps its longest side at three quarters of :data:`MAX_SIDE` or more."""
    return next((f for f in (8, 4, 2) if longest // f >= _LEAST_REDUCED_SIDE), 1)


def read_photo(path: str) -> tuple[npt.NDArray[np.uint8], float] | None:
    """The photo at most :data:`MAX_SIDE` on its longest side, and its scale against the photo's
    own size (a large JPEG decoded smaller at once), or None when it cannot be read as an
    image."""
    data = _file_bytes(path)
    if data is None:
        return None
    longest = _longest_side(data)
    factor = 1 if longest is None else reduction(longest)
    image = _decoded(data, _REDUCED[factor])
    if image is None:
        return None
    image, scale = bounded(image)
    if factor == 1 or longest is None:
        return image, scale
    # the decoder's own orientation (EXIF) may have turned it: compare the longest sides
    return image, max(image.shape[:2]) / longest


# A still photo of more than twice the camera's 1280 px is looked at for markers in four parts,
# each reaching _TILE_REACH px past the middle, and once at half its size for the large ones:
# OpenCV's search of one 12-megapixel picture of a textured table took 100 MB on its own (its
# outlines), a part of it 22 MB. A marker up to about 300 px with its quiet zone lies wholly in
# one part; one of _HALF_FROM px or more at half size (twice that in the photo) is read there.
_PARTS_FROM: Final = 2 * 1280
_TILE_REACH: Final = 256
_HALF_FROM: Final = 60


@functools.lru_cache(maxsize=4)
def _part_detector(rate: float) -> MarkerDetector:
    return MarkerDetector(rate)


def _moved(marker: Marker, dx: float, dy: float) -> Marker:
    """A part's read in the whole photo's pixels."""
    return Marker(marker.marker_id, tuple((x + dx, y + dy) for x, y in marker.corners))


def _grown(marker: Marker, sx: float, sy: float) -> Marker:
    """A read at a smaller size in the photo's pixels (pixel centres on whole numbers)."""
    corners = tuple(((x + 0.5) * sx - 0.5, (y + 0.5) * sy - 0.5) for x, y in marker.corners)
    return Marker(marker.marker_id, corners)


def still_markers(image: npt.NDArray[np.uint8], detector: MarkerDetector) -> list[Marker]:
    """The markers in a still photo, as ``detector`` reads them (the same outlines and checks),
    a large photo looked at in parts so that OpenCV's search stays small."""
    grey = np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), np.uint8)
    h, w = grey.shape
    if max(h, w) < _PARTS_FROM:
        return detector.detect(grey)
    # each part keeps the whole photo's smallest outline in pixels
    rows = ((0, min(h, h // 2 + _TILE_REACH)), (max(0, h // 2 - _TILE_REACH), h))
    columns = ((0, min(w, w // 2 + _TILE_REACH)), (max(0, w // 2 - _TILE_REACH), w))
    longest_part = max(rows[0][1], h - rows[1][0], columns[0][1], w - columns[1][0])
    part = _part_detector(MIN_PERIMETER_RATE * max(h, w) / longest_part)
    found = [
        _moved(m, x0, y0)
        for y0, y1 in rows
        for x0, x1 in columns
        for m in part.detect(np.ascontiguousarray(grey[y0:y1, x0:x1]))
    ]
    half = cv2.resize(grey, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    found += [
        _grown(m, w / (w // 2), h / (h // 2))
        for m in detector.detect(np.asarray(half, np.uint8))
        if m.side_px >= _HALF_FROM
    ]
    kept: list[Marker] = []
    for m in found:  # the parts' reads first, at the photo's own size
        x, y = m.centre
        if not any(
            k.marker_id == m.marker_id and math.dist(k.centre, (x, y)) < k.side_px / 2 for k in kept
        ):
            kept.append(m)
    return sorted(kept, key=lambda m: m.marker_id)


def describe(
    image: npt.NDArray[np.uint8],
    name: str,
    palette: Palette,
    detector: MarkerDetector,
    unsure_below: float = DEFAULT_UNSURE_BELOW,
    *,
    explain: bool = False,
    scale: float = 1.0,
) -> dict[str, Any]:
    """The contract's JSON object for one image (read at ``scale`` of the photo's own size:
    coordinates are given in the photo's own pixels)."""
    back = 1.0 / scale

    def box(b: tuple[int, int, int, int] | list[int]) -> list[int]:
        return [round(v * back) for v in b]

    found_markers = still_markers(image, detector)
    markers = [
        {
            "id": m.marker_id,
            "corners": [[round(x * back, 1), round(y * back, 1)] for x, y in m.corners],
        }
        for m in found_markers
    ]
    quads, rejected = find_cards_explained(image, palette.view, palette.black_bordered)
    centres = [m.centre for m in found_markers]
    cards = []
    for quad in quads:
        if carries_marker(quad, centres):
            x, y, w, h = cv2.boundingRect(np.asarray(quad, np.float32).reshape(-1, 1, 2))
            rejected.append(Rejection("marked", (int(x), int(y), int(w), int(h))))
            continue
        card = classify_card(image, quad, palette, unsure_below)
        entry: dict[str, Any] = {
            "colour": card.colour,
            "confidence": round(card.confidence, 3),
            "box": box(card.box),
        }
        if card.is_unsure:
            entry["guess"] = card.guess
        cards.append(entry)
    out: dict[str, Any] = {"image": name, "markers": markers, "train_cards": cards}
    if explain:
        out["rejected"] = [{"box": box(r.box), "reason": r.sentence()} for r in rejected]
    return out


@functools.cache
def _heap_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None where the C library has none."""
    name = ctypes.util.find_library("c")
    try:
        trim: Callable[[int], int] = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError, TypeError):
        return None
    return trim


def give_back_memory() -> None:
    """Return the heap freed by the last image to the system. glibc keeps it for the next
    allocation, and large photos' work images (the marker detector's, 100 MB for a 12-megapixel
    photo) do not fit the holes they left: over the 100 largest real photos the peak grew to
    296 MB, where the largest one alone takes 243 MB (with this, 275 MB)."""
    trim = _heap_trim()
    if trim is not None:
        trim(0)


def bounded(image: npt.NDArray[np.uint8]) -> tuple[npt.NDArray[np.uint8], float]:
    """The image at most ``MAX_SIDE`` on its longest side, and the scale it was read at."""
    h, w = image.shape[:2]
    scale = min(1.0, MAX_SIDE / max(h, w))
    if scale >= 1.0:
        return image, 1.0
    size = (round(w * scale), round(h * scale))
    return np.asarray(cv2.resize(image, size, interpolation=cv2.INTER_AREA), np.uint8), scale


def see(
    images: Sequence[str],
    out: TextIO,
    *,
    err: TextIO | None = None,
    calibration_path: str | None = None,
    explain: bool = False,
) -> int:
    """Print one JSON object per image to ``out``, as each is done; 0 on success.

    One image at a time is decoded (29 large photos read up front took 700 MB). An unreadable
    image (or a bad calibration file, which stops everything) is a one-line message on ``err``
    (default stderr) and makes the exit status 2; the other images are still described."""
    err = sys.stderr if err is None else err
    if not images:
        print("trackside see: no image given", file=err)
        return 2
    try:
        palette = load_palette(calibration_path)
    except SnapshotError as exc:
        print(f"trackside see: bad calibration: {exc}", file=err)
        return 2
    detector = MarkerDetector()
    status = 0
    for path in images:
        photo = read_photo(path)
        if photo is None:
            why = unreadable_because(path)
            print(f"trackside see: cannot read {path!r} as an image: {why}", file=err)
            status = 2
            continue
        image, scale = photo
        result = describe(image, path, palette, detector, explain=explain, scale=scale)
        del image
        give_back_memory()
        out.write(json.dumps(result, ensure_ascii=False) + "\n")
        out.flush()
    return status
