"""``trackside vision calibrate``: measure one card of each colour under this camera and light.

Lay the nine cards in one row, left to right in the order of :data:`CALIBRATION_ORDER`
(purple, white, blue, yellow, orange, black, red, green, locomotive), or show them over several
images (a few at a time, each image read left to right, images in order). An image is a file
or an in-memory frame (the table page calibrates the running camera's view this way:
:mod:`vision.table_calibration`). Each card's features
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
from dataclasses import dataclass, replace
from typing import Final

import numpy as np
import numpy.typing as npt

from companion.core import TracksideError
from vision.cards import (
    TrainCard,
    find_card_quads,
    find_cards_explained,
    has_white_margin,
    measure_view,
    read_train_cards,
)
from vision.palette import (
    CARD_CLASSES,
    DEFAULT_PALETTE,
    MAX_VIEW,
    Palette,
    calibrated_palette,
    features_to_srgb,
    save_palette,
)
from vision.see import read_image, unreadable_because

Image = npt.NDArray[np.uint8]

CALIBRATION_ORDER: Final[tuple[str, ...]] = CARD_CLASSES
# Two calibrated classes nearer than this (in spreads) are hard to tell apart: a warning.
_CLOSE: Final = 3.0
# The camera slants tried when the cards are not all found as the camera sees them.
VIEW_STEPS: Final = tuple(round(1.1 + 0.1 * k, 2) for k in range(round((MAX_VIEW - 1.1) / 0.1) + 1))


class CalibrationError(TracksideError, ValueError):
    """The images do not show one card of each colour (or cannot be read)."""


@dataclass(frozen=True, slots=True)
class CalibrationSample:
    colour: str
    image: str  # the image's path, or the name given to an in-memory frame
    box: tuple[int, int, int, int]
    features: tuple[float, float, float, float]
    corners: tuple[tuple[float, float], ...] = ()  # the card's outline in its image

    @property
    def swatch_hex(self) -> str:
        """The card's colour as measured (after white balance), ``#rrggbb``."""
        return "#{:02x}{:02x}{:02x}".format(*features_to_srgb(self.features))


@dataclass(frozen=True, slots=True)
class CalibrationResult:
    path: str
    palette: Palette
    samples: tuple[CalibrationSample, ...]
    warnings: tuple[str, ...]


def _loaded(source: str | Image, name: str) -> Image:
    if isinstance(source, str):
        image = read_image(source)
        if image is None:
            why = unreadable_because(source)
            raise CalibrationError(f"cannot read {source!r} as an image: {why}")
        return image
    if (
        not isinstance(source, np.ndarray)
        or source.dtype != np.uint8
        or source.ndim != 3
        or source.shape[2] != 3
    ):
        shape = getattr(source, "shape", None)
        raise CalibrationError(f"{name}: expected an 8-bit BGR image, got shape {shape!r}")
    return source


_MAX_REASONS = 5  # rejected outlines named in an error


def _cards(
    frames: Sequence[Image], labels: Sequence[str], view: float
) -> list[tuple[str, TrainCard]]:
    return [
        (label, card)
        for label, frame in zip(labels, frames, strict=True)
        for card in read_train_cards(frame, replace(DEFAULT_PALETTE, view=view))
    ]


def most_cards(image: Image, view: float) -> list[npt.NDArray[np.float32]]:
    """The card outlines in ``image`` at the camera slant that finds the most of them: the
    slant in use (``view``) first, then the steps a calibration tries (the first of equals).
    A camera at a slant shows far cards square or too long; cards laid out to be measured are
    found at their own slant, fewer at any other."""
    best = find_card_quads(image, view)
    for step in VIEW_STEPS:
        if step != view:
            found = find_card_quads(image, step)
            if len(found) > len(best):
                best = found
    return best


def _view_and_cards(
    frames: Sequence[Image], labels: Sequence[str], wanted: int
) -> tuple[float, list[tuple[str, TrainCard]]]:
    """The camera's slant (see :func:`vision.cards.measure_view`) and the cards seen with it.
    A camera at a slant shows far cards square or too long: when the cards are not all found
    as the camera sees them, the picture's height is stretched back step by step until they
    are. The slant is then measured on the cards themselves (all nine, portrait or landscape)
    and kept if the cards are all found with it too."""
    view, found = 1.0, _cards(frames, labels, 1.0)
    if len(found) != wanted:
        for step in VIEW_STEPS:
            tried = _cards(frames, labels, step)
            if len(tried) == wanted:
                view, found = step, tried
                break
    if len(found) == wanted:
        # measured on the picture as the camera sees it: each card's corners, unstretched
        measured = measure_view([np.asarray(c.corners, np.float32) for _, c in found])
        if measured != view:
            again = _cards(frames, labels, measured)
            if len(again) == wanted:
                view, found = measured, again
    return view, found


def calibrate(
    source_images: Sequence[str | Image],
    output_path: str,
    *,
    camera: str = "camera",
    order: Sequence[str] = CALIBRATION_ORDER,
    names: Sequence[str] | None = None,
) -> CalibrationResult:
    """Measure the cards in ``source_images`` and store the palette at ``output_path``.

    Each source is an image file's path or an in-memory 8-bit BGR frame (a camera's); a frame
    is called by its entry in ``names`` in messages, the samples and the file's
    ``measured_from`` (default ``frame 1``, ``frame 2`` …).

    Raises :class:`CalibrationError` (nothing is written) when an image cannot be read or the
    images do not hold exactly one card per class in ``order``."""
    if sorted(order) != sorted(CARD_CLASSES):
        raise CalibrationError(f"the order must name each of {', '.join(CARD_CLASSES)} once")
    if not source_images:
        raise CalibrationError("no image given: show one card of each colour")
    if names is not None and len(names) != len(source_images):
        raise CalibrationError(f"{len(names)} names for {len(source_images)} images")
    labels = [
        source if isinstance(source, str) else (names[i] if names else f"frame {i + 1}")
        for i, source in enumerate(source_images)
    ]
    frames = [_loaded(source, label) for label, source in zip(labels, source_images, strict=True)]
    view, found = _view_and_cards(frames, labels, len(order))
    if len(found) != len(order):
        rejected: list[str] = []
        for label, frame in zip(labels, frames, strict=True):
            if len(rejected) < _MAX_REASONS:
                rejected.extend(
                    f"at x {r.box[0]}, y {r.box[1]} in {label}: {r.sentence()}"
                    for r in find_cards_explained(frame, view)[1][: _MAX_REASONS - len(rejected)]
                )
        where = ", ".join(
            repr(label) if isinstance(source, str) else label
            for label, source in zip(labels, source_images, strict=True)
        )
        # Never a bare count: say what was seen and not taken as a card, and why.
        why = (
            " Not taken as cards: " + "; ".join(rejected) + "."
            if rejected
            else (
                " Nothing card-sized stood out from the table: more light, or a card covering "
                "more of the picture, helps."
                if not found
                else " The missing cards did not stand out from the table (no outline was seen "
                "where they lie): more even light, or a darker or plainer cloth under them, helps."
            )
        )
        raise CalibrationError(
            f"found {len(found)} cards in {where}; lay out exactly {len(order)}, one of each "
            f"colour, left to right: {', '.join(order)}.{why}"
        )
    frame_of = dict(zip(labels, frames, strict=True))
    bare = [
        str(i)
        for i, (label, card) in enumerate(found, start=1)
        if not has_white_margin(frame_of[label], np.asarray(card.corners, np.float32))
    ]
    if bare:
        # A card's colours are measured against its white margin: without one (the older,
        # black-bordered printing) the measurement would be of its border or its picture, and
        # the palette written would misread every card.
        raise CalibrationError(
            f"{'cards' if len(bare) > 1 else 'card'} {', '.join(bare)} of {len(order)} "
            f"{'show' if len(bare) > 1 else 'shows'} no white margin all round: colours are "
            "measured against it. Cards of the older, black-bordered printing cannot be "
            "calibrated (their colours read unsure); lay out cards with a white margin"
        )
    samples = tuple(
        CalibrationSample(colour, label, card.box, card.features, card.corners)
        for colour, (label, card) in zip(order, found, strict=True)
    )
    warnings = []
    for i, sample in enumerate(samples, start=1):
        guess, confidence = DEFAULT_PALETTE.classify(sample.features)
        if guess != sample.colour and confidence > 0.9:
            warnings.append(
                f"card {i} ({sample.colour!r} by its place) looks {guess!r} to the default "
                "palette: check the order (if it is right, this calibration is what fixes it)"
            )
    palette = replace(
        calibrated_palette({s.colour: s.features for s in samples}, camera), view=view
    )
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
    save_palette(palette, output_path, measured_from=labels)
    return CalibrationResult(output_path, palette, samples, tuple(warnings))
