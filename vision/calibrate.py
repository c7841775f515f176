"""``trackside vision calibrate``: measure one card of each colour under this camera and light.

Lay the nine cards in one row, left to right in the order of :data:`CALIBRATION_ORDER`
(purple, white, blue, yellow, orange, black, red, green, locomotive), or show them over several
images (a few at a time, each image read left to right, images in order). Each card's features
(after white balance against its own margin) become its class centre; the palette is stored as
JSON per camera (``vision.palette`` documents the file) and used by the camera and ``see``.

The order, not the default palette, says which card is which: calibration exists for lights
and printings where the default palette is wrong. The default palette is still asked for a
second opinion, and a card it confidently reads as another colour gives a warning (cards laid
in the wrong order).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from companion.core import TracksideError
from vision.cards import read_train_cards
from vision.palette import CARD_CLASSES, DEFAULT_PALETTE, Palette, calibrated_palette, save_palette
from vision.see import read_image

CALIBRATION_ORDER: Final[tuple[str, ...]] = CARD_CLASSES
# Two calibrated classes nearer than this (in spreads) are hard to tell apart: a warning.
_CLOSE: Final = 3.0


class CalibrationError(TracksideError, ValueError):
    """The images do not show one card of each colour (or cannot be read)."""


@dataclass(frozen=True, slots=True)
class CalibrationSample:
    colour: str
    image: str
    box: tuple[int, int, int, int]
    features: tuple[float, float, float, float]


@dataclass(frozen=True, slots=True)
class CalibrationResult:
    path: str
    palette: Palette
    samples: tuple[CalibrationSample, ...]
    warnings: tuple[str, ...]


def calibrate(
    source_images: Sequence[str],
    output_path: str,
    *,
    camera: str = "camera",
    order: Sequence[str] = CALIBRATION_ORDER,
) -> CalibrationResult:
    """Measure the cards in ``source_images`` and store the palette at ``output_path``.

    Raises :class:`CalibrationError` (nothing is written) when an image cannot be read or the
    images do not hold exactly one card per class in ``order``."""
    if sorted(order) != sorted(CARD_CLASSES):
        raise CalibrationError(f"the order must name each of {', '.join(CARD_CLASSES)} once")
    if not source_images:
        raise CalibrationError("no image given: show one card of each colour")
    found: list[tuple[str, tuple[int, int, int, int], tuple[float, float, float, float]]] = []
    for path in source_images:
        image = read_image(path)
        if image is None:
            raise CalibrationError(f"cannot read {path!r} as an image")
        found.extend((path, card.box, card.features) for card in read_train_cards(image))
    if len(found) != len(order):
        where = ", ".join(f"{p!r}" for p in source_images)
        raise CalibrationError(
            f"found {len(found)} cards in {where}; lay out exactly {len(order)}, one of each "
            f"colour, left to right: {', '.join(order)}"
        )
    samples = tuple(
        CalibrationSample(colour, path, box, features)
        for colour, (path, box, features) in zip(order, found, strict=True)
    )
    warnings = []
    for i, sample in enumerate(samples, start=1):
        guess, confidence = DEFAULT_PALETTE.classify(sample.features)
        if guess != sample.colour and confidence > 0.9:
            warnings.append(
                f"card {i} ({sample.colour!r} by its place) looks {guess!r}: check the order"
            )
    palette = calibrated_palette({s.colour: s.features for s in samples}, camera)
    for a_index, a in enumerate(palette.classes):
        for b in palette.classes[a_index + 1 :]:
            gap = math.sqrt(
                sum(
                    ((x - y) / max(sa, sb)) ** 2
                    for x, y, sa, sb in zip(a.centre, b.centre, a.spread, b.spread, strict=True)
                )
            )
            if gap < _CLOSE:
                warnings.append(
                    f"{a.name!r} and {b.name!r} are hard to tell apart under this light "
                    f"({gap:.1f} spreads apart): more, whiter light helps"
                )
    save_palette(palette, output_path, measured_from=[str(p) for p in source_images])
    return CalibrationResult(output_path, palette, samples, tuple(warnings))
