"""Train-card colour classes, the features a card is judged by, and the palette (default or
calibrated per camera, stored as JSON).

A card's features are measured after white-balancing it against its own printed white margin
(:mod:`vision.cards`), so the light's colour and brightness largely cancel:

- ``lightness``: median of (r + g + b) / 3 over the card's field, relative to the margin;
- ``red_green`` and ``yellow_blue``: medians of r − g and (r + g) / 2 − b (opponent colours);
- ``multicolour``: how spread the hues of the field's coloured pixels are (circular variance ×
  the share of coloured pixels): near 0 for a one-colour card, high for the locomotive.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from companion.core import SnapshotError

TRAIN_COLOURS: Final[tuple[str, ...]] = (
    "purple",
    "white",
    "blue",
    "yellow",
    "orange",
    "black",
    "red",
    "green",
)
LOCOMOTIVE: Final = "locomotive"
CARD_CLASSES: Final[tuple[str, ...]] = (*TRAIN_COLOURS, LOCOMOTIVE)
UNSURE: Final = "unsure"

FEATURES: Final[tuple[str, ...]] = ("lightness", "red_green", "yellow_blue", "multicolour")

# The printed colours we assume (sRGB 0–255, R, G, B). OUR ESTIMATE of Ticket to Ride: Europe's
# train cards from their look, not a measurement of real cards: the default palette is computed
# from it and the synthetic scenes are drawn with it. A calibration replaces it with measurements.
NOMINAL_CARD_SRGB: Final[Mapping[str, tuple[int, int, int]]] = {
    "purple": (185, 85, 175),
    "white": (228, 228, 222),
    "blue": (40, 105, 200),
    "yellow": (240, 208, 40),
    "orange": (238, 135, 30),
    "black": (48, 48, 54),
    "red": (205, 38, 40),
    "green": (55, 155, 70),
}
NOMINAL_MARGIN_SRGB: Final[tuple[int, int, int]] = (246, 245, 240)
# The locomotive's field: diagonal stripes of these colours behind a dark engine.
LOCOMOTIVE_STRIPES: Final[tuple[str, ...]] = ("red", "orange", "yellow", "green", "blue", "purple")

# How far a card may sit from its class centre, per feature (one "standard deviation").
_SPREAD: Final[tuple[float, float, float, float]] = (0.08, 0.07, 0.07, 0.12)
_LOCOMOTIVE_SPREAD: Final[tuple[float, float, float, float]] = (0.35, 0.35, 0.35, 0.12)

CALIBRATION_FORMAT: Final = 1
MARGINS: Final = ("white", "black")  # a printing's margin: the current one, the older one
# A camera's slant as calibrations store it (``depth_stretch``): 1.0 looks straight down; 2.0
# is 60° from straight down, where a card's depth is half its width's share.
MIN_VIEW: Final = 1.0
MAX_VIEW: Final = 2.0
_SATURATED: Final = 0.2  # a class whose centre has this chroma or more has a hue
_EXCESS_KEPT: Final = 0.3  # share of a card's extra saturation (beyond its class) still counted
# Reading by hue alone (Palette.classify_by_hue): at least this chroma, at most this spread of
# hues, within this many degrees of a class's hue; the confidence grows by 0.5 per this many
# degrees the next class's hue is farther.
_HUE_MIN_CHROMA: Final = 0.15
# Below this chroma a hue read alone must be one no light makes (see _OFF_LIGHT_COLOUR): on the
# 15 real photos never tuned on, three Set purples printed near navy (chroma 0.15–0.22) read blue
# and a pale red under a warm cast (0.16) read orange, all at full confidence. At 0.25 one right
# read of the 197 on the tuned photos is unsure instead; at 0.3, five.
_HUE_PALE: Final = 0.25
_HUE_MAX_SPREAD: Final = 0.1
_HUE_MAX_OFF: Final = 45.0
_HUE_MARGIN_SCALE: Final = 40.0
# Reading a white-looking card by its ink's hue (Palette.classify_ink, the ink's tint from
# vision.cards.card_ink). Below this tint the ink's hue may be the light's or the camera's, and
# only a colour no light makes is read (purple, green: see _OFF_LIGHT below): Set's dull violet
# outlines on warm-lit cards (AviH0/Set-Solver test_image_16 and _20) measured hues between red
# and orange at tints up to 0.14, elsewhere hues towards blue at up to 0.13, and under a warm
# light (vimalloc/set-solver's set.jpg, a photo never tuned on) a red hue at 0.29, read "red"
# at 1.0. The red outlines on the real photos measured 0.57–1.63; Set outlines read right by
# their ink's hue (violet, green; pfsh-, nhs- and avi- in bench/real_photos.json) 0.21–0.52.
_INK_LIGHTS_MIN_TINT: Final = 0.45
# The ink's hue must lie this near a class's hue (a thin line's colour is weaker evidence than a
# field's; classify_by_hue allows 45°): Set's violet measured -72° (48° from purple, 44° from
# blue) or -53° (29° from purple) is not read so; the violets read purple lay within 15° of it.
# (Faint, such a violet is read purple by _INK_VIOLET_OFF_LIGHT below; strong, it stays unsure.)
_INK_HUE_MAX_OFF: Final = 25.0
# The light's colour moves those faint hues along one line only: a warmer light parts red from
# blue (r − g = 1, (r + g) / 2 − b = 1.5 in these features: 56°), a cooler one the other way
# (−124°); the faint hues above measured 35–55° on warm-lit violet outlines and −122 to −146°
# on black pips in cool light. No light turns grey ink violet-magenta or green: a faint ink
# whose hue is this far off that line is the ink's own colour, whatever its tint, when it is a
# colour no light makes either (purple, green; not red, blue, orange or yellow, which lie
# nearer the line). Set's faint violet stripes and outlines (AviH0/Set-Solver, piratefsh/set-solver)
# measured −9° to −93° (31° to 65° off the line) at tints of 0.07–0.14, a faint green outline
# 169° (65° off); −93° is nearest our blue, and so stays unsure (too near the line for the
# violet rule below).
_LIGHT_LINE: Final = 56.0
_OFF_LIGHT: Final = 30.0
# Faint ink on a white-looking card whose hue lies between purple's and the cool end of that line
# is purple, though nearer blue's hue (Set's violet measured -47° to -95°, tints 0.07-0.34, on
# 54 cards of the real photos, all unsure before): blue is a hue a cool light gives grey ink, so
# faint ink is never read blue (a Ticket to Ride blue card is a blue field, not blue lines on
# white), and no light makes a hue this far off its line. How far: black and grey inks on
# white cards in cool light (bench/real_photos.json) measured up to 25° off it: -99° to -106°
# on playing cards' black pips (their coloured pixels, chroma 0.19-0.21;
# alkenderesi/playing-card-detection), -105° (ink, tint 0.13) on a Magic card, -122° to -146°
# elsewhere. 40° keeps 15° from them; a violet at -84°
# is read, one at -89° is not (one card of the 54 between the two).
_INK_VIOLET_OFF_LIGHT: Final = 40.0
# An ink's hue names a colour only when known within this many degrees (vision.cards.Ink's
# hue_error): the inks read on the real photos agreed within 4.4° (the violets within 2.6°); the
# grey wagon of a white synthetic card in dim light, taken alone for a card (36 ink pixels,
# noise of 3.5 levels on paper of 70), measured a tint of 0.27 at -64° give or take 8.5°, and
# read purple by the violet rule.
_INK_HUE_MOST_ERROR: Final = 5.0
# A colour no light makes lies farther off: beyond what light makes (22°) and the ink's own
# spread (_INK_HUE_MAX_OFF) together. Purple (80°) and green (74°) do; red (30°) does not: a
# faint violet stripe on a warm-lit Set card measured 19°, nearest red.
_OFF_LIGHT_COLOUR: Final = 60.0


# The colours whose own hue lies on that line (within _OFF_LIGHT of it: orange 1°, blue 8°,
# yellow 24°; red lies 30° off) are read only from a card at least this share of its class's
# own strength (chroma): less is a paler card under a light's cast, or a thin line's colour.
# On the real photos never tuned on (the batch of 2026-11-27, night), Set's green outlines
# under tungsten read yellow at chroma 0.19–0.23 (three, at full confidence), a red outline
# orange at 0.26, and earlier Set's violet printed near navy read blue at 0.26–0.27; every
# yellow and blue card read right on the real photos (UNO's) measured 0.60 or more, against a
# class strength of 0.6 (blue) and 0.76 (yellow, orange). Red is not held to it: Set's red
# prints pale and reads right from 0.19 (eleven cards under 0.25).
_LIGHT_COLOUR_STRENGTH: Final = 0.5
# A card read black whose dark pixels keep a tint of this chroma or more, at a hue no light
# makes (off its line), is a dark colour in shade, not black: a Set violet in a shadow beside
# sunlight (nakkstar123/set-solver IMG_6055.jpg, never tuned on) read black at 0.14 (-61°);
# the black cards of the synthetic scenes, in every light and on every table, measured 0.04 at
# most off the line. (Such a card is not black; Palette.classify_violet reads it purple when its
# hue is a violet's.)
_BLACK_MOST_TINT: Final = 0.1


@dataclass(frozen=True, slots=True)
class ColourClass:
    name: str
    centre: tuple[float, float, float, float]
    spread: tuple[float, float, float, float]

    @property
    def chroma(self) -> float:
        """How strongly coloured the class's centre is (its red_green, yellow_blue length)."""
        return math.hypot(self.centre[1], self.centre[2])

    @property
    def hued(self) -> bool:
        """Whether the class is one colour with a hue (_SATURATED): not white, black or the
        many-coloured locomotive."""
        return self.name != LOCOMOTIVE and self.chroma > _SATURATED


@dataclass(frozen=True, slots=True)
class Palette:
    classes: tuple[ColourClass, ...]
    source: str  # "default" or the calibration's camera name
    # How much the camera's slant shortens the table's depth (the picture's height), as the
    # calibration measured it from the cards it was shown; 1.0 for a camera looking down.
    view: float = 1.0
    # The colours the deck in play has (its printing's), when not all of CARD_CLASSES: a card
    # nearest another colour is unsure, and a colour the deck lacks is never a card's reading.
    colours: tuple[str, ...] = CARD_CLASSES
    # The printing's margin: "white" (the current printing), or "black" (the older printing's
    # black border, which the finder then looks for on a light table too).
    margin: str = "white"

    @property
    def black_bordered(self) -> bool:
        """Whether the printing has a black border rather than a white margin."""
        return self.margin == "black"

    def for_deck(self, colours: Sequence[str]) -> Palette:
        """This palette for a deck with only ``colours``: the others' classes are dropped, so a
        hue between two of the palette's colours (Set's violet, between our purple and blue) is
        the deck's nearer one. White and black stay classes (a white-looking card's ink is read
        from there) but are readings only when the deck has them."""
        unknown = sorted(set(colours) - set(CARD_CLASSES))
        if unknown:
            raise ValueError(f"not a card class: {unknown[0]}; known: {', '.join(CARD_CLASSES)}")
        kept = tuple(c for c in self.classes if c.name in colours or c.name in ("white", "black"))
        deck = tuple(c for c in CARD_CLASSES if c in colours)
        return Palette(kept, self.source, self.view, deck, self.margin)

    def _class(self, name: str) -> ColourClass | None:
        """The palette's class of that name, if it has one."""
        return next((c for c in self.classes if c.name == name), None)

    def distances(self, features: Sequence[float]) -> list[tuple[float, str]]:
        """(normalised distance, class name) for every class, nearest first."""
        out = []
        for cls in self.classes:
            delta = [f - c for f, c in zip(features, cls.centre, strict=True)]
            if cls.hued:
                chroma = cls.chroma
                # A printing more saturated than the class's centre, in the class's own hue, is
                # that colour all the more (real UNO or Set inks are stronger than our estimate
                # of Ticket to Ride's): most of the excess along the hue's direction is forgiven.
                ux, uy = cls.centre[1] / chroma, cls.centre[2] / chroma
                along = delta[1] * ux + delta[2] * uy
                if along > 0:
                    cut = along * (1.0 - _EXCESS_KEPT)
                    delta[1] -= cut * ux
                    delta[2] -= cut * uy
            d2 = sum((d / s) ** 2 for d, s in zip(delta, cls.spread, strict=True))
            out.append((math.sqrt(d2), cls.name))
        return sorted(out)

    def classify(self, features: Sequence[float]) -> tuple[str, float]:
        """The nearest class and a confidence in [0, 1].

        The confidence is the nearest class's share of the (Gaussian) likelihood of all classes,
        lowered further when the card is far from every class (something that is not a card, or
        a light the palette never saw)."""
        ranked = self.distances(features)
        best_d, best = ranked[0]
        weights = [math.exp(-0.5 * (d * d - best_d * best_d)) for d, _ in ranked]
        share = 1.0 / sum(weights)
        outlier = math.exp(-0.5 * max(0.0, best_d - 3.0) ** 2)
        return best, share * outlier

    def classify_by_hue(self, features: Sequence[float]) -> tuple[str, float] | None:
        """For a card whose coloured pixels are clearly coloured but far from every class (a
        printing darker, lighter or more saturated than the palette's: Set's dark violet, a
        pale red): the class whose hue is nearest, with a confidence from how much nearer it
        is than the next hue. None when the card is not clearly one hue (too little chroma,
        several hues like the locomotive) or no class hue is near."""
        _, red_green, yellow_blue, multicolour = (float(v) for v in features[:4])
        chroma = math.hypot(red_green, yellow_blue)
        if chroma < _HUE_MIN_CHROMA or multicolour > _HUE_MAX_SPREAD:
            return None
        nearest = self._nearest_hue(red_green, yellow_blue, _HUE_MAX_OFF)
        if nearest is None or chroma >= _HUE_PALE:
            return nearest
        # Pale: as for faint ink, only a hue no light makes, and only a colour no light makes
        # (a pale red under a warm cast measured 52°, orange's hue; a Set purple printed near
        # navy, blue's)
        return nearest if self._off_light_class(red_green, yellow_blue, nearest[0]) else None

    def classify_ink(
        self, red_green: float, yellow_blue: float, hue_error: float = 0.0
    ) -> tuple[str, float] | None:
        """For a card that looks white but carries tinted ink (thin outlines, faint stripes):
        the class whose hue is nearest the ink's tint (red_green, yellow_blue per unit of the
        ink's darkness, :func:`vision.cards.card_ink`), with a confidence as in
        :meth:`classify_by_hue`. None when the ink is too faint for its hue to be its own
        (unless that hue lies off the line a light's colour moves hues along, nearest a colour
        no light makes) or its hue is not near one class's, and whenever the ink's pixels do not
        agree on its hue within _INK_HUE_MOST_ERROR (``hue_error``, in degrees:
        :class:`vision.cards.Ink`)."""
        if hue_error > _INK_HUE_MOST_ERROR:
            return None
        nearest = self._nearest_hue(red_green, yellow_blue, _INK_HUE_MAX_OFF)
        if math.hypot(red_green, yellow_blue) >= _INK_LIGHTS_MIN_TINT:
            return nearest
        # Faint: only a hue no light makes, and only a colour no light makes (a faint red, blue,
        # orange or yellow ink cannot be told from the light's own cast)
        if nearest is not None and self._off_light_class(red_green, yellow_blue, nearest[0]):
            return nearest
        return self._violet_ink(red_green, yellow_blue)

    def classify_violet(self, features: Sequence[float]) -> tuple[str, float] | None:
        """Purple, for a card whose coloured pixels are one violet hue no light makes (as
        :meth:`_violet_ink` for faint ink) and tinted at least _BLACK_MOST_TINT, when neither
        the nearest class nor the nearest hue read it: Set's dark violet, its coloured pixels
        nearest black (in shade, or printed near navy) or between our purple's hue and blue's:
        on the real photos 33 cards at -61° to -98° (chroma 0.13 to 0.61), all unsure before;
        those at -84° or nearer purple's hue are read (22 more cards right, card by card; a
        cool light turns black print towards -99° to -106°). Blue lies on the line a light
        moves hues along, black has no tint: neither is read so. None elsewhere."""
        _, red_green, yellow_blue, multicolour = (float(v) for v in features[:4])
        if math.hypot(red_green, yellow_blue) < _BLACK_MOST_TINT or multicolour > _HUE_MAX_SPREAD:
            return None
        return self._violet_ink(red_green, yellow_blue)

    def _violet_ink(self, red_green: float, yellow_blue: float) -> tuple[str, float] | None:
        """Purple, for a faint ink whose hue lies between purple's own and the cool end of the
        line a light's colour moves hues along, at least _INK_VIOLET_OFF_LIGHT off that line:
        the only colour a white-looking card can carry there, since faint ink is never read
        blue. None elsewhere, or when the palette has no purple off that line."""
        purple = self._class("purple")
        if purple is None or not _off_light(purple.centre[1], purple.centre[2], _OFF_LIGHT_COLOUR):
            return None
        cool = _LIGHT_LINE - 180.0
        # Degrees from the cool end of the line, turning towards purple's hue (through blue's).
        span = (_hue(purple.centre[1], purple.centre[2]) - cool) % 360.0
        at = (_hue(red_green, yellow_blue) - cool) % 360.0
        if span < 180.0 and _INK_VIOLET_OFF_LIGHT <= at <= span:
            return "purple", 1.0
        return None

    def too_pale_for(self, name: str, features: Sequence[float]) -> bool:
        """Whether a card with these features is too pale to be read as ``name``: a colour on
        the line a light's colour moves hues along (orange, blue, yellow), where the card shows
        less than _LIGHT_COLOUR_STRENGTH of the class's own chroma (a paler card under a cast,
        or a thin line's colour, would pass for it)."""
        cls = self._class(name)
        if cls is None or not cls.hued or _off_light(cls.centre[1], cls.centre[2]):
            return False
        return math.hypot(float(features[1]), float(features[2])) < (
            _LIGHT_COLOUR_STRENGTH * cls.chroma
        )

    def hue_disagrees(self, name: str, features: Sequence[float]) -> bool:
        """Whether a card read ``name`` from its coloured pixels (a hued class, nearest in all
        four features) has a hue clearly another class's: its hue lies within _HUE_MAX_OFF of
        another class's hue and nearer it than ``name``'s. The two readings disagree, and the
        nearest class won by the card's lightness: a thin red outline blended with the white
        paper around it is as light as our pale purple (gab-set1_s.png in
        bench/real_photos.json, Set's red ovals under a bluish light, measured a hue of 4°, 26°
        from purple's and nearer red's, and read purple at 0.79)."""
        cls = self._class(name)
        if cls is None or not cls.hued:
            return False
        nearest = self._nearest_hue(float(features[1]), float(features[2]), _HUE_MAX_OFF)
        return nearest is not None and nearest[0] != name

    @staticmethod
    def too_tinted_for(name: str, features: Sequence[float]) -> bool:
        """Whether a card with these features is too tinted to be read as ``name``: black
        whose dark pixels keep a colour no light makes (_BLACK_MOST_TINT)."""
        red_green, yellow_blue = float(features[1]), float(features[2])
        return (
            name == "black"
            and math.hypot(red_green, yellow_blue) >= _BLACK_MOST_TINT
            and _off_light(red_green, yellow_blue)
        )

    def _off_light_class(self, red_green: float, yellow_blue: float, name: str) -> bool:
        """Whether the hue lies off the line a light's colour moves hues along, and the class
        ``name``'s own hue far off it: a colour no light makes."""
        cls = self._class(name)
        assert cls is not None  # (a name from the palette's own classes)
        return _off_light(red_green, yellow_blue) and _off_light(
            cls.centre[1], cls.centre[2], _OFF_LIGHT_COLOUR
        )

    def _nearest_hue(
        self, red_green: float, yellow_blue: float, max_off: float
    ) -> tuple[str, float] | None:
        """The coloured class whose hue is nearest, if within ``max_off`` degrees, with a
        confidence from how much nearer it is than the next class's hue."""
        hue = _hue(red_green, yellow_blue)
        ranked = []
        for cls in self.classes:
            if not cls.hued:
                continue
            centre = _hue(cls.centre[1], cls.centre[2])
            ranked.append((abs((hue - centre + 180.0) % 360.0 - 180.0), cls.name))
        ranked.sort()
        if len(ranked) < 2 or ranked[0][0] > max_off:
            return None
        margin = ranked[1][0] - ranked[0][0]
        return ranked[0][1], min(1.0, 0.5 + margin / _HUE_MARGIN_SCALE)


def _hue(red_green: float, yellow_blue: float) -> float:
    """The hue of a tint, in degrees from the red–green axis towards yellow (-180 to 180)."""
    return math.degrees(math.atan2(yellow_blue, red_green))


def _off_light(red_green: float, yellow_blue: float, least: float = _OFF_LIGHT) -> bool:
    """The hue lies at least ``least`` degrees off the line a light's colour moves hues along
    (warm to cool), so no light made it."""
    hue = _hue(red_green, yellow_blue)
    off = abs((hue - _LIGHT_LINE + 90.0) % 180.0 - 90.0)  # from the line, either way along it
    return off >= least


def _nominal_features(rgb: tuple[int, int, int]) -> tuple[float, float, float, float]:
    r, g, b = (v / m for v, m in zip(rgb, NOMINAL_MARGIN_SRGB, strict=True))
    return ((r + g + b) / 3, r - g, (r + g) / 2 - b, 0.0)


def features_to_srgb(
    features: Sequence[float], white: tuple[int, int, int] = NOMINAL_MARGIN_SRGB
) -> tuple[int, int, int]:
    """The colour (R, G, B, 0–255) a card with these features has after white balance, shown
    against a margin of colour ``white``: what the camera measured, for people to compare with
    the card (the calibration page's swatches). The inverse of the first three features:
    r + g + b = 3 · lightness, r − g = red_green, (r + g) / 2 − b = yellow_blue."""
    lightness, red_green, yellow_blue = (float(v) for v in features[:3])
    r_plus_g = 2.0 * lightness + 2.0 * yellow_blue / 3.0
    r = (r_plus_g + red_green) / 2
    g = (r_plus_g - red_green) / 2
    b = lightness - 2.0 * yellow_blue / 3.0

    def channel(value: float, scale: int) -> int:
        return max(0, min(255, round(value * scale)))

    return channel(r, white[0]), channel(g, white[1]), channel(b, white[2])


def _default_palette() -> Palette:
    classes = [
        ColourClass(name, _nominal_features(NOMINAL_CARD_SRGB[name]), _SPREAD)
        for name in TRAIN_COLOURS
    ]
    stripes = [_nominal_features(NOMINAL_CARD_SRGB[n]) for n in LOCOMOTIVE_STRIPES]
    mean = tuple(sum(f[i] for f in stripes) / len(stripes) for i in range(3))
    # Six hues spread round the circle, on most of the field: a circular variance near 0.7.
    classes.append(ColourClass(LOCOMOTIVE, (mean[0], mean[1], mean[2], 0.7), _LOCOMOTIVE_SPREAD))
    return Palette(tuple(classes), "default")


DEFAULT_PALETTE: Final = _default_palette()


def calibrated_palette(
    measured: Mapping[str, Sequence[float]], camera: str, base: Palette = DEFAULT_PALETTE
) -> Palette:
    """The base palette with each measured class centred on its measurement."""
    classes = []
    for cls in base.classes:
        m = measured.get(cls.name)
        if m is None:
            classes.append(cls)
            continue
        if len(m) != len(FEATURES):
            raise ValueError(f"{cls.name}: expected {len(FEATURES)} features, got {list(m)!r}")
        centre = (float(m[0]), float(m[1]), float(m[2]), float(m[3]))
        classes.append(ColourClass(cls.name, centre, cls.spread))
    return Palette(tuple(classes), camera)


def palette_to_json(palette: Palette, measured_from: Sequence[str] = ()) -> dict[str, Any]:
    return {
        "format": CALIBRATION_FORMAT,
        "camera": palette.source,
        "features": list(FEATURES),
        "measured_from": list(measured_from),
        "depth_stretch": palette.view,
        **({"colours": list(palette.colours)} if palette.colours != CARD_CLASSES else {}),
        **({"margin": palette.margin} if palette.margin != "white" else {}),
        "classes": {
            cls.name: {"centre": list(cls.centre), "spread": list(cls.spread)}
            for cls in palette.classes
        },
    }


def palette_from_json(data: Any, path: str = "calibration") -> Palette:
    """Read a calibration file's JSON; every bad field is named (``classes.red.centre``)."""
    if not isinstance(data, Mapping):
        raise SnapshotError(path, f"expected an object, got {data!r}")
    if data.get("format") != CALIBRATION_FORMAT:
        raise SnapshotError(
            f"{path}.format", f"expected {CALIBRATION_FORMAT}, got {data.get('format')!r}"
        )
    camera = data.get("camera")
    if not isinstance(camera, str) or not camera:
        raise SnapshotError(f"{path}.camera", f"expected a camera name, got {camera!r}")
    classes = data.get("classes")
    if not isinstance(classes, Mapping):
        raise SnapshotError(f"{path}.classes", f"expected an object, got {classes!r}")
    unknown = sorted(set(classes) - set(CARD_CLASSES))
    if unknown:
        raise SnapshotError(
            f"{path}.classes.{unknown[0]}", f"not a card class; known: {', '.join(CARD_CLASSES)}"
        )
    out = []
    for cls in DEFAULT_PALETTE.classes:
        entry = classes.get(cls.name)
        if entry is None:
            out.append(cls)
            continue
        where = f"{path}.classes.{cls.name}"
        if not isinstance(entry, Mapping):
            raise SnapshotError(where, f"expected an object, got {entry!r}")
        centre = _vector(entry.get("centre"), f"{where}.centre", positive=False)
        spread = _vector(entry.get("spread", list(cls.spread)), f"{where}.spread", positive=True)
        out.append(ColourClass(cls.name, centre, spread))
    view = data.get("depth_stretch", 1.0)
    if (
        not isinstance(view, int | float)
        or isinstance(view, bool)
        or not MIN_VIEW <= view <= MAX_VIEW
    ):
        raise SnapshotError(
            f"{path}.depth_stretch",
            f"expected a number from {MIN_VIEW} (a camera looking down) to {MAX_VIEW}, "
            f"got {view!r}",
        )
    margin = data.get("margin", "white")
    if margin not in MARGINS:
        raise SnapshotError(
            f"{path}.margin", f"expected one of {', '.join(MARGINS)}, got {margin!r}"
        )
    palette = Palette(tuple(out), camera, float(view), margin=margin)
    colours = data.get("colours")
    if colours is None:
        return palette
    if (
        not isinstance(colours, list)
        or not colours
        or not all(isinstance(c, str) and c in CARD_CLASSES for c in colours)
    ):
        raise SnapshotError(
            f"{path}.colours",
            f"expected the deck's colours, a list of {', '.join(CARD_CLASSES)}; got {colours!r}",
        )
    return palette.for_deck(colours)


def _vector(value: Any, path: str, *, positive: bool) -> tuple[float, float, float, float]:
    if (
        not isinstance(value, list)
        or len(value) != len(FEATURES)
        or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)
        or not all(math.isfinite(v) for v in value)
    ):
        raise SnapshotError(path, f"expected {len(FEATURES)} numbers, got {value!r}")
    if positive and not all(v > 0 for v in value):
        raise SnapshotError(path, f"every spread must be > 0, got {value!r}")
    return (float(value[0]), float(value[1]), float(value[2]), float(value[3]))


def load_palette(path: str | None) -> Palette:
    """The calibration at ``path``, or the default palette when there is none configured.

    A configured file that is missing or malformed is an error (``SnapshotError`` naming the
    file and field), never a silent fall-back to the default."""
    if path is None:
        return DEFAULT_PALETTE
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_CALIBRATION_BYTES + 1)  # bounded before parsing
    except OSError as exc:
        raise SnapshotError(path, f"cannot read the calibration: {exc.strerror}") from None
    if len(raw) > MAX_CALIBRATION_BYTES:
        raise SnapshotError(
            path, f"larger than {MAX_CALIBRATION_BYTES} bytes: not a calibration this table wrote"
        )
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise SnapshotError(
            path, f"not UTF-8 text: byte {exc.start} is 0x{raw[exc.start]:02x}"
        ) from None
    except json.JSONDecodeError as exc:
        raise SnapshotError(path, f"not JSON: {exc.msg} at line {exc.lineno}") from None
    return palette_from_json(data, path)


MAX_CALIBRATION_BYTES = 64 * 1024
"""A saved calibration is about a kilobyte; anything far larger is not one."""


def save_palette(palette: Palette, path: str, measured_from: Sequence[str] = ()) -> None:
    """Write atomically (a power cut leaves the old file or the new one, never half)."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".calibration-", suffix=".json", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(palette_to_json(palette, measured_from), f, indent=2)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
