"""``trackside see IMAGE…``: the vision detectors on still images, one JSON object per image.

For users checking their set-up (is the marker big enough, does the red card read red under this
lamp?) and for tests. Contract: ``{"image": "…", "markers": [{"id": N, "corners": [[x, y]…]}],
"train_cards": [{"colour": "red", "confidence": 0.97, "box": [x, y, w, h]}]}``; a card below the
confidence threshold has ``"colour": "unsure"`` and its nearest class in ``"guess"``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any, TextIO

import cv2
import numpy as np
import numpy.typing as npt

from companion.core import SnapshotError
from vision.cards import DEFAULT_UNSURE_BELOW, read_train_cards
from vision.markers import MarkerDetector
from vision.palette import Palette, load_palette


def read_image(path: str) -> npt.NDArray[np.uint8] | None:
    """The image as 8-bit BGR, or None when it cannot be read as an image."""
    try:
        data = np.fromfile(path, dtype=np.uint8)
    except OSError:
        return None
    if data.size == 0:
        return None
    image = cv2.imdecode(data, cv2.IMREAD_COLOR)
    return None if image is None else np.asarray(image, np.uint8)


def describe(
    image: npt.NDArray[np.uint8],
    name: str,
    palette: Palette,
    detector: MarkerDetector,
    unsure_below: float = DEFAULT_UNSURE_BELOW,
) -> dict[str, Any]:
    """The contract's JSON object for one image."""
    markers = [
        {"id": m.marker_id, "corners": [[round(x, 1), round(y, 1)] for x, y in m.corners]}
        for m in detector.detect(image)
    ]
    cards = []
    for card in read_train_cards(image, palette, unsure_below):
        entry: dict[str, Any] = {
            "colour": card.colour,
            "confidence": round(card.confidence, 3),
            "box": list(card.box),
        }
        if card.is_unsure:
            entry["guess"] = card.guess
        cards.append(entry)
    return {"image": name, "markers": markers, "train_cards": cards}


def see(
    images: Sequence[str],
    out: TextIO,
    *,
    err: TextIO | None = None,
    calibration_path: str | None = None,
) -> int:
    """Print one JSON object per image to ``out``; 0 on success.

    Every image is read before anything is printed: an unreadable one (or a bad calibration
    file) is a one-line message on ``err`` (default stderr) and exit status 2."""
    err = sys.stderr if err is None else err
    if not images:
        print("trackside see: no image given", file=err)
        return 2
    try:
        palette = load_palette(calibration_path)
    except SnapshotError as exc:
        print(f"trackside see: bad calibration: {exc}", file=err)
        return 2
    loaded = []
    for path in images:
        image = read_image(path)
        if image is None:
            print(f"trackside see: cannot read {path!r} as an image", file=err)
            return 2
        loaded.append((path, image))
    detector = MarkerDetector()
    for path, image in loaded:
        out.write(json.dumps(describe(image, path, palette, detector), ensure_ascii=False) + "\n")
    return 0
