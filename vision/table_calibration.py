"""Calibrating the running camera from the table page (``/table/camera``).

:class:`LiveCalibration` wraps one running :class:`~vision.camera.Camera` and the file its
calibration lives in. It

- draws a still of the camera's newest frame as JPEG: the reveal area outlined (where the cards
  go) and the cards the camera finds there now outlined and numbered with the colour expected at
  that place (:data:`~vision.calibrate.CALIBRATION_ORDER`, left to right, counting on from the
  cards already collected);
- collects the nine cards over one or more **shots**: a shot is the camera's steady view (the
  per-pixel median of the last three frames: a hand passing through one of them is gone), cut
  to the reveal area; its cards, read left to right, stand for the next colours still missing.
  A reveal area sized for the three tunnel cards thus takes e.g. three shots of three cards;
  nine cards in one shot finish at once;
- when the nine are collected, calibrates over the shots with one
  :func:`vision.calibrate.calibrate` call (which writes the file atomically), and hands the new
  palette to the camera, so it takes effect at the next frame, without a restart;
- keeps the last calibration (its result and the views it was measured in) to show each card
  found, and goes back to the default palette on request.

The shots live in memory only (they are frames, not game state), one collection per camera
(one table, one tablet), behind a lock: two browsers never interleave a shot. They are bounded:
each shot adds at least one card, so at most nine, and they are dropped
:data:`SHOTS_KEPT_S` after the first one or when the camera is lost (the view may have moved).

A refused shot (no frame yet, no card, more cards than are missing, a page showing an older
collection) raises :class:`CalibrationError` and changes nothing; the palette in use and the
file stay as they were until the nine are measured and saved.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.calibrate import (
    CALIBRATION_ORDER,
    CalibrationError,
    CalibrationResult,
    calibrate,
    most_cards,
)
from vision.camera import Camera, CameraStatus
from vision.cards import read_train_cards, warp_card
from vision.palette import DEFAULT_PALETTE, save_palette

Image = npt.NDArray[np.uint8]
Corners = tuple[tuple[float, float], ...]

STILL_MAX_WIDTH: Final = 960
STILL_JPEG_QUALITY: Final = 80
SHOTS_KEPT_S: Final = 600.0  # the shots of one calibration are dropped this long after the first
_AREA_BGR: Final = (0, 200, 255)  # the reveal area: amber
_CARD_BGR: Final = (90, 230, 90)  # a card found: green
_EXTRA_BGR: Final = (60, 60, 255)  # a card beyond the last one missing: red


def places(colours: Sequence[str], first: int) -> str:
    """``"4 yellow, 5 orange, 6 black"``: colours numbered by their place in the order."""
    return ", ".join(f"{first + i} {colour}" for i, colour in enumerate(colours))


@dataclass(frozen=True, slots=True)
class Shot:
    """One view kept towards the next calibration."""

    image: Image = field(repr=False, compare=False)  # the steady view, cut to the reveal area
    frames: int  # frames combined into the view
    colours: tuple[str, ...]  # what its cards stand for, left to right (by place in the order)
    corners: tuple[Corners, ...]  # each card's outline in ``image``


@dataclass(frozen=True, slots=True)
class Collection:
    """The shots collected so far, as the page shows them."""

    shots: tuple[tuple[str, ...], ...]  # per shot, the colours its cards stand for
    missing: tuple[str, ...]  # still to show, in order
    kept_until: float | None  # wall-clock time the shots are dropped (None: no shots)
    dropped: str | None  # why earlier shots were dropped (until the next shot or start over)

    @property
    def collected(self) -> tuple[str, ...]:
        return tuple(colour for shot in self.shots for colour in shot)

    @property
    def next_place(self) -> int:
        """The place (1–9) of the next card to show."""
        return len(self.collected) + 1


@dataclass(frozen=True, slots=True)
class ShotOutcome:
    """A shot that was kept; ``result`` is set when it completed the nine (calibrated)."""

    number: int  # 1 for the first shot of a calibration
    colours: tuple[str, ...]  # what its cards stand for
    first_place: int  # the place (1–9) of its first card
    missing: tuple[str, ...]  # still to show after it
    result: CalibrationResult | None


@dataclass(frozen=True, slots=True)
class LastCalibration:
    result: CalibrationResult
    at: float  # wall-clock time (s)
    frames: int  # frames combined into each view
    images: tuple[Image, ...] = field(repr=False, compare=False)  # the views (shots) measured
    names: tuple[str, ...] = ()  # each view's name (the samples' ``image``)

    @property
    def shots(self) -> int:
        return len(self.images)


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
    collection: Collection
    checking: bool = False  # the still shows what the camera reads now (see LiveCalibration)


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

    def __init__(
        self,
        camera: Camera,
        path: str,
        clock: Callable[[], float] = time.time,
        *,
        monotonic: Callable[[], float] = time.monotonic,
        shots_kept_s: float = SHOTS_KEPT_S,
    ) -> None:
        self.camera = camera
        self.path = path
        self.shots_kept_s = shots_kept_s
        self._clock = clock
        self._monotonic = monotonic
        # One shot, start over or reset at a time, and no one reads the shots half-changed.
        self._busy = threading.Lock()
        self._last: LastCalibration | None = None
        self._shots: list[Shot] = []
        self._first_shot_at = 0.0  # monotonic time of the first shot
        self._first_shot_wall = 0.0  # the same, wall-clock (for the page)
        self._lost_at_first_shot = 0  # the camera's times_lost() then
        self._dropped: str | None = None

    @property
    def _where(self) -> str:
        name = self.camera.config.name
        if self.camera.config.reveal_area is None:
            return f"the view of camera {name!r}"
        return f"the outlined area of camera {name!r}"

    def _area(self, image: Image) -> tuple[slice, slice]:
        return self.camera.config.reveal_pixels(image.shape[1], image.shape[0])

    # -- the shots (all under self._busy) ---------------------------------------------------

    def _collected(self) -> tuple[str, ...]:
        return tuple(colour for shot in self._shots for colour in shot.colours)

    def _forget_stale_shots(self) -> None:
        """Drop the shots when the camera was lost since the first (it may have moved) or the
        first is older than ``shots_kept_s`` (the light may have changed), saying why."""
        if not self._shots:
            return
        if self.camera.times_lost() != self._lost_at_first_shot:
            why = "the camera was lost since (it may have moved)"
        elif self._monotonic() - self._first_shot_at > self.shots_kept_s:
            why = f"the first was taken more than {self.shots_kept_s / 60:g} minutes ago"
        else:
            return
        count, cards = len(self._shots), len(self._collected())
        self._dropped = (
            f"The {count} shot{'s' if count != 1 else ''} taken earlier ({cards} "
            f"card{'s' if cards != 1 else ''}) {'were' if count != 1 else 'was'} dropped: {why}. "
            "Start again with card 1."
        )
        self._shots = []

    def _collection(self) -> Collection:
        collected = self._collected()
        return Collection(
            shots=tuple(shot.colours for shot in self._shots),
            missing=CALIBRATION_ORDER[len(collected) :],
            kept_until=self._first_shot_wall + self.shots_kept_s if self._shots else None,
            dropped=self._dropped,
        )

    def collection(self) -> Collection:
        """The shots collected so far (stale ones dropped first)."""
        with self._busy:
            self._forget_stale_shots()
            return self._collection()

    def take_shot(self, frames: int = 3, expect_collected: int | None = None) -> ShotOutcome:
        """Keep the camera's steady view as the next shot: its cards, left to right, stand for
        the next colours still missing. The shot that completes the nine calibrates over all
        the shots (one :func:`~vision.calibrate.calibrate` call: the file is written
        atomically), hands the palette to the camera and empties the collection.

        ``frames``: how many of the newest frames to combine (1, or 3 for their median).
        ``expect_collected``: the number of cards the asking page showed as collected; another
        number means someone else took a shot (or the click came twice) since, and the shot is
        refused rather than read as the wrong colours.

        Raises :class:`CalibrationError` (no frame yet, no card, more cards than are missing, a
        stale page) and OSError (the file cannot be written); then nothing changes: the shot is
        not kept, the earlier shots, the palette in use and the file stay as they were."""
        if frames not in (1, 3):
            raise ValueError(f"frames: expected 1 or 3, got {frames!r}")
        with self._busy:
            self._forget_stale_shots()
            collected = self._collected()
            if expect_collected is not None and expect_collected != len(collected):
                raise CalibrationError(
                    f"the shots changed since this page was shown (another browser, or a second "
                    f"click): {len(collected)} of {len(CALIBRATION_ORDER)} cards are collected "
                    "now; look at the page again before the next shot"
                )
            missing = CALIBRATION_ORDER[len(collected) :]
            first_place = len(collected) + 1
            lost = self.camera.times_lost()
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
            # The outlines only (calibrate() measures the cards, once, when the nine are there),
            # at the camera's slant that finds the most: a first calibration of a camera at a
            # slant finds only the nearest cards as the camera sees them.
            cards = most_cards(area, self.camera.palette.view)
            next_ones = places(missing, first_place)
            if not cards:
                raise CalibrationError(
                    f"no card found in {self._where}: lay the next cards ({next_ones}) in it, "
                    "left to right, apart from each other"
                )
            if len(cards) > len(missing):
                only = (
                    f"only {len(missing)} {'are' if len(missing) != 1 else 'is'} still missing"
                    if collected
                    else f"there are only {len(missing)} colours"
                )
                raise CalibrationError(
                    f"found {len(cards)} cards in {self._where}, but {only} ({next_ones}): lay "
                    "just those, left to right, one of each colour"
                )
            shot = Shot(
                area,
                used,
                missing[: len(cards)],
                tuple(tuple((float(x), float(y)) for x, y in quad) for quad in cards),
            )
            shots = [*self._shots, shot]
            if len(collected) + len(cards) < len(CALIBRATION_ORDER):
                if not self._shots:
                    self._first_shot_at, self._first_shot_wall = self._monotonic(), self._clock()
                    self._lost_at_first_shot = lost
                self._shots, self._dropped = shots, None
                return ShotOutcome(
                    len(shots), shot.colours, first_place, missing[len(cards) :], None
                )
            # The nine are there: one calibration over the shots (it reads each left to right,
            # shots in order, as this collection did).
            names = (
                [self._where]
                if len(shots) == 1
                else [f"{self._where}, shot {i}" for i in range(1, len(shots) + 1)]
            )
            result = calibrate(
                [s.image for s in shots], self.path, camera=self.camera.config.name, names=names
            )
            self.camera.use_palette(result.palette)
            self._last = LastCalibration(
                result, self._clock(), used, tuple(s.image for s in shots), tuple(names)
            )
            self._shots, self._dropped = [], None
            return ShotOutcome(len(shots), shot.colours, first_place, (), result)

    def start_over(self) -> int:
        """Drop the shots collected so far; returns how many cards they held."""
        with self._busy:
            cards = len(self._collected())
            self._shots, self._dropped = [], None
            return cards

    # -- the page -----------------------------------------------------------------------

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
            collection=self.collection(),
            checking=self.checking,
        )

    @property
    def checking(self) -> bool:
        """Just calibrated here and no new shot begun: the still labels each card with the
        colour the camera now reads (a check of the calibration), not the next places."""
        with self._busy:
            return self._last is not None and not self._shots

    def reset(self) -> str:
        """Back to the default palette: the file is rewritten with it (atomically: the camera
        reads it at the next start too) and the camera uses it now. Returns the file's path.
        Shots collected so far stay (they are not measured until the nine are there)."""
        with self._busy:
            save_palette(DEFAULT_PALETTE, self.path, measured_from=["the default palette"])
            self.camera.use_palette(DEFAULT_PALETTE)
            self._last = None
            return self.path

    def _outlines(self, frame: Image) -> list[tuple[npt.NDArray[np.float32], str, bool]]:
        """The cards in the frame's reveal area, left to right: (corners in the area, label,
        beyond the colours still missing). Labelled with the places the next shot fills, or,
        just after a calibration here, with the colour the camera now reads (a check)."""
        rows, columns = self._area(frame)
        area = np.ascontiguousarray(frame[rows, columns])
        if self.checking:
            return [
                (np.asarray(card.corners, np.float32), f"reads {card.colour}", False)
                for card in read_train_cards(area, self.camera.palette)
            ]
        missing = self.collection().missing
        first_place = len(CALIBRATION_ORDER) - len(missing) + 1
        return [
            (quad, f"{first_place + i} {missing[i]}", False)
            if i < len(missing)
            else (quad, "extra", True)
            for i, quad in enumerate(most_cards(area, self.camera.palette.view))
        ]

    def still_labels(self) -> list[str]:
        """The labels the still puts on the cards it finds now (empty before the first frame)."""
        frame = self.camera.latest_frame()
        return [] if frame is None else [text for _, text, _ in self._outlines(frame)]

    def still_jpeg(self, max_width: int = STILL_MAX_WIDTH) -> bytes | None:
        """The newest frame as JPEG (at most ``max_width`` wide) with the reveal area and the
        cards found in it outlined, numbered with the colours still missing; None before the
        camera's first frame."""
        frame = self.camera.latest_frame()
        if frame is None:
            return None
        rows, columns = self._area(frame)
        outlines = self._outlines(frame)
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
        for quad, text, extra in outlines:
            points = np.rint((quad + offset) * scale).astype(np.int32)
            colour = _EXTRA_BGR if extra else _CARD_BGR
            cv2.polylines(still, [points.reshape(-1, 1, 2)], True, colour, thick)
            left, top = int(points[:, 0].min()), int(points[:, 1].min())
            _label(still, text, (left, max(12, top - 2 * thick)), colour)
        return _jpeg(still)

    def collected_jpeg(self, index: int) -> bytes | None:
        """The collected card ``index`` (0-based, in the calibration order) as its shot saw
        it, straightened, as JPEG; None when there is no such card."""
        with self._busy:
            self._forget_stale_shots()
            cards = [(shot.image, corners) for shot in self._shots for corners in shot.corners]
        if not 0 <= index < len(cards):
            return None
        image, corners = cards[index]
        return _jpeg(warp_card(image, np.asarray(corners, np.float32)))

    def sample_jpeg(self, index: int) -> bytes | None:
        """The last calibration's card ``index`` (0-based, in the calibration order) as the
        camera saw it, straightened, as JPEG; None when there is no such card."""
        last = self._last
        if last is None or not 0 <= index < len(last.result.samples):
            return None
        sample = last.result.samples[index]
        image = last.images[last.names.index(sample.image)]
        return _jpeg(warp_card(image, np.asarray(sample.corners, np.float32)))
