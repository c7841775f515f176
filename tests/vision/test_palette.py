"""The default palette and calibration files."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from companion.core import SnapshotError
from vision.cards import read_train_cards
from vision.palette import (
    CARD_CLASSES,
    DEFAULT_PALETTE,
    MAX_CALIBRATION_BYTES,
    UNSURE,
    calibrated_palette,
    load_palette,
    palette_from_json,
    palette_to_json,
    save_palette,
)
from vision.synthetic import SceneSpec, render_scene


def test_no_calibration_configured_means_the_default_palette() -> None:
    assert load_palette(None) is DEFAULT_PALETTE


def test_a_palette_survives_its_file(tmp_path: Path) -> None:
    measured = {"red": (0.4, 0.6, 0.3, 0.01), "locomotive": (0.5, 0.1, 0.2, 0.65)}
    palette = calibrated_palette(measured, "overhead")
    path = tmp_path / "cameras" / "overhead.json"
    save_palette(palette, str(path), measured_from=["cal.png"])
    assert load_palette(str(path)) == palette
    data = json.loads(path.read_text())
    assert data["format"] == 1 and data["camera"] == "overhead"
    assert data["measured_from"] == ["cal.png"]
    assert sorted(data["classes"]) == sorted(CARD_CLASSES)


def test_a_camera_slant_survives_the_file_and_a_file_without_one_looks_straight_down(
    tmp_path: Path,
) -> None:
    path = tmp_path / "slanted.json"
    save_palette(replace(calibrated_palette({}, "beside"), view=1.4), str(path))
    assert json.loads(path.read_text())["depth_stretch"] == 1.4
    assert load_palette(str(path)).view == 1.4
    older = palette_to_json(DEFAULT_PALETTE)
    del older["depth_stretch"]  # a calibration written before cameras at a slant were measured
    assert palette_from_json(older).view == 1.0


def test_a_calibration_moves_a_class_centre_and_keeps_the_others() -> None:
    palette = calibrated_palette({"red": (0.4, 0.6, 0.3, 0.0)}, "cam")
    red = next(c for c in palette.classes if c.name == "red")
    assert red.centre == (0.4, 0.6, 0.3, 0.0)
    assert palette.classes[0] == DEFAULT_PALETTE.classes[0]


@pytest.mark.parametrize(
    ("mutate", "path"),
    [
        (lambda d: d.update(format=2), "calibration.format"),
        (lambda d: d.update(camera=""), "calibration.camera"),
        (lambda d: d["classes"].update(pink={"centre": [0, 0, 0, 0]}), "calibration.classes.pink"),
        (lambda d: d["classes"]["red"].update(centre=[1, 2]), "calibration.classes.red.centre"),
        (
            lambda d: d["classes"]["blue"].update(spread=[0.1, 0.1, 0.0, 0.1]),
            "calibration.classes.blue.spread",
        ),
        (lambda d: d.update(classes=[]), "calibration.classes"),
        (lambda d: d.update(depth_stretch=0.7), "calibration.depth_stretch"),
        (lambda d: d.update(depth_stretch="1.4"), "calibration.depth_stretch"),
        (lambda d: d.update(depth_stretch=True), "calibration.depth_stretch"),
    ],
)
def test_a_bad_calibration_names_the_field(
    mutate: Callable[[dict[str, Any]], None], path: str
) -> None:
    data = palette_to_json(DEFAULT_PALETTE)
    mutate(data)
    with pytest.raises(SnapshotError) as caught:
        palette_from_json(data)
    assert caught.value.path == path


def test_a_missing_or_broken_calibration_file_is_an_error_not_the_default(tmp_path: Path) -> None:
    with pytest.raises(SnapshotError, match="cannot read"):
        load_palette(str(tmp_path / "absent.json"))
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    with pytest.raises(SnapshotError, match="not JSON"):
        load_palette(str(broken))
    latin = tmp_path / "latin.json"
    latin.write_bytes(b'{"name": "stul \xe8"}')  # saved by an editor in Latin-2
    with pytest.raises(SnapshotError, match="not UTF-8 text: byte 15 is 0xe8"):
        load_palette(str(latin))
    huge = tmp_path / "huge.json"
    huge.write_bytes(b" " * (MAX_CALIBRATION_BYTES + 1))
    with pytest.raises(SnapshotError, match="larger than"):
        load_palette(str(huge))


def test_ink_is_read_by_its_hue_only_when_tinted_and_near_one_class() -> None:
    """classify_ink, with ink tints measured on Set cards in AviH0/Set-Solver photos."""
    # A green outline (tint 0.43, hue 172°) and a clear green or red.
    assert DEFAULT_PALETTE.classify_ink(-0.43, 0.06) == ("green", 1.0)
    guess = DEFAULT_PALETTE.classify_ink(0.5, 0.22)
    assert guess is not None and guess[0] == "red"
    # A violet outline on a warm-lit card: tint 0.14 at a hue between red and orange. Too
    # near grey for its hue to be its own.
    assert DEFAULT_PALETTE.classify_ink(0.095, 0.10) is None
    # Set's grey-violet (tint 0.34, hue -72°): half-way between purple and blue, but faint ink
    # is never read blue (a light's cast looks the same), and a hue this far off the light's
    # line is no cast: purple.
    assert DEFAULT_PALETTE.classify_ink(0.105, -0.32) == ("purple", 1.0)


def _ink(tint: float, hue_degrees: float) -> tuple[float, float]:
    """(red_green, yellow_blue) of an ink of this tint and hue."""
    hue = math.radians(hue_degrees)
    return tint * math.cos(hue), tint * math.sin(hue)


@pytest.mark.parametrize(
    ("tint", "hue", "expected"),
    [
        # Faint violet stripes and outlines on Set cards (AviH0/Set-Solver test images 18, 23,
        # 25; piratefsh/set-solver): far off the line a light's colour moves hues along, and
        # nearest purple, a colour no light makes.
        (0.12, -36.0, "purple"),
        (0.12, -25.0, "purple"),
        (0.07, -9.0, "purple"),
        # A faint green outline (test image 16, 169°).
        (0.08, 169.0, "green"),
        # What warm and cool light make of grey or violet ink: on the light's line.
        (0.14, 47.0, None),
        (0.08, 35.0, None),
        (0.07, -125.0, None),
        # Off the line but nearest a colour near it: a violet stripe on a warm-lit card measured
        # 19° (nearest red), a violet outline -93° (nearest blue). Neither is said.
        (0.11, 19.0, None),
        (0.09, -93.0, None),
        # Between purple and blue, faint: Set's violet outlines and stripes on the real photos
        # (-47° to -95°; 54 cards unsure before). Faint ink is never read blue, so purple, down
        # to 40° off the light's line (-84°); beyond, a cool light's cast on black ink is near
        # (playing cards' pips in cool light: -99° to -106°).
        (0.12, -70.0, "purple"),
        (0.30, -52.0, "purple"),
        (0.15, -83.0, "purple"),
        (0.15, -88.0, None),
        (0.13, -105.0, None),
        # Strong ink that far from both: blue lines on white are possible, so neither.
        (0.5, -70.0, None),
        # Set's violet outlines under a warm light (vimalloc/set-solver's set.jpg): a red hue at
        # a tint of 0.29, and a navy one (filter_cards3.jpg, -93° at 0.32). A light makes such
        # hues of faint ink, and needs a stronger tint for a colour it makes too: neither is said.
        (0.29, 18.0, None),
        (0.32, -93.0, None),
        # Red outlines on the real photos measured a tint of 0.57 or more: red.
        (0.57, 22.0, "red"),
        # A colour no light makes, at the same tint: green and purple are said.
        (0.29, 172.0, "green"),
        (0.29, -40.0, "purple"),
    ],
)
def test_a_faint_ink_is_read_by_its_hue_only_where_no_light_makes_that_hue(
    tint: float, hue: float, expected: str | None
) -> None:
    read = DEFAULT_PALETTE.classify_ink(*_ink(tint, hue))
    if expected is None:
        assert read is None or read[1] < 0.75, read
    else:
        assert read is not None and read[0] == expected and read[1] >= 0.75, read


def test_faint_violet_ink_is_purple_only_for_a_deck_with_purple() -> None:
    """A deck without purple (its palette from Palette.for_deck) reads no colour from violet
    ink: the rule says purple because purple is the one colour there, not because of the hue."""
    violet = _ink(0.12, -70.0)
    assert DEFAULT_PALETTE.for_deck(("purple", "green")).classify_ink(*violet) == ("purple", 1.0)
    assert DEFAULT_PALETTE.for_deck(("red", "green", "blue")).classify_ink(*violet) is None


@pytest.mark.parametrize(("tint", "hue"), [(0.27, -64.0), (0.12, -36.0), (0.6, 22.0)])
def test_an_ink_whose_hue_is_not_known_well_names_no_colour(tint: float, hue: float) -> None:
    """Every ink reading (the violet rule's, a faint purple's, a strong red's) needs the ink's
    pixels to agree on its hue within a few degrees (vision.cards.Ink)."""
    ink = _ink(tint, hue)
    assert DEFAULT_PALETTE.classify_ink(*ink, hue_error=2.0) is not None
    assert DEFAULT_PALETTE.classify_ink(*ink, hue_error=8.5) is None


@pytest.mark.parametrize(
    ("chroma", "hue", "expected"),
    [
        # A pale red under a warm cast (AviH0/Set-Solver test_image_6.jpg: chroma 0.16 at 52°,
        # orange's hue) and a Set purple printed near navy (test_image_4.jpg: 0.15–0.22 near
        # blue's hue): a light's cast moves a pale hue along that line, so neither is said.
        (0.16, 52.0, None),
        (0.18, -100.0, None),
        # Strongly coloured, the same hues are the colours.
        (0.6, 52.0, "orange"),
        (0.5, -116.0, "blue"),
        # Pale, but a hue no light makes, nearest a colour no light makes: Set's violet.
        (0.18, -30.0, "purple"),
    ],
)
def test_a_pale_card_is_read_by_its_hue_only_where_no_light_makes_that_hue(
    chroma: float, hue: float, expected: str | None
) -> None:
    read = DEFAULT_PALETTE.classify_by_hue((0.7, *_ink(chroma, hue), 0.0))
    if expected is None:
        assert read is None or read[1] < 0.75, read
    else:
        assert read is not None and read[0] == expected and read[1] >= 0.75, read


@pytest.mark.parametrize(
    ("name", "features", "too_pale"),
    [
        # Measured on the real photos never tuned on (bench/real_photos.json, the batch of
        # 2026-11-27, night): Set's green outlines under tungsten (rtpike/SetSolver
        # cards_floor2_small.jpg) read yellow, a red outline there orange; Set's violet printed
        # near navy (vimalloc/set-solver filter_cards1.jpg) blue.
        ("yellow", (0.594, -0.055, 0.227, 0.0), True),
        ("orange", (0.693, 0.173, 0.198, 0.0), True),
        ("blue", (0.45, *_ink(0.27, -84.0), 0.0), True),
        # UNO's yellow and blue on the real photos: chroma 0.60 and more.
        ("yellow", (0.7, *_ink(0.93, 75.0), 0.0), False),
        ("blue", (0.45, *_ink(0.6, -116.0), 0.0), False),
        # Red lies 30° off the light's line and Set's red prints pale (read right from 0.19):
        # not held to it. Nor are purple and green, colours no light makes.
        ("red", (0.7, *_ink(0.19, 20.0), 0.0), False),
        ("purple", (0.5, *_ink(0.17, -40.0), 0.0), False),
        ("green", (0.6, *_ink(0.16, 170.0), 0.0), False),
        # Neither the colourless classes nor the locomotive (many colours).
        ("white", (0.95, 0.0, 0.0, 0.0), False),
        ("locomotive", (0.5, *_ink(0.05, 50.0), 0.7), False),
    ],
)
def test_a_colour_a_light_makes_needs_half_its_strength(
    name: str, features: tuple[float, float, float, float], too_pale: bool
) -> None:
    assert DEFAULT_PALETTE.too_pale_for(name, features) is too_pale


@pytest.mark.parametrize(
    ("features", "too_tinted"),
    [
        # A Set violet in a shadow beside sunlight (nakkstar123/set-solver IMG_6055.jpg, never
        # tuned on): its dark pixels at 0.14, -61°, read black.
        ((0.32, 0.068, -0.122, 0.0), True),
        # Black cards in the synthetic scenes: 0.04 at most off the light's line.
        ((0.2, *_ink(0.04, -40.0), 0.0), False),
        # A warm or cool cast left on a black card lies on the light's line: still black.
        ((0.2, *_ink(0.15, 56.0), 0.0), False),
        ((0.2, *_ink(0.15, -124.0), 0.0), False),
    ],
)
def test_black_is_not_read_from_dark_pixels_of_a_colour_no_light_makes(
    features: tuple[float, float, float, float], too_tinted: bool
) -> None:
    assert DEFAULT_PALETTE.too_tinted_for("black", features) is too_tinted
    assert not DEFAULT_PALETTE.too_tinted_for("purple", features)


def test_a_card_whose_hue_is_another_colours_is_not_read_by_its_lightness() -> None:
    # Set's red ovals, thin outlines, under a bluish light (Gab601/SetSolver set1_s.png): the
    # coloured pixels, blended with the paper, are as light as our pale purple and nearest it
    # in all four features, but their hue (4°) is nearer red's. Read purple at 0.79 before.
    red_outline = (0.719, 0.273, 0.019, 0.003)
    assert DEFAULT_PALETTE.classify(red_outline)[0] == "purple"
    assert DEFAULT_PALETTE.hue_disagrees("purple", red_outline)
    set_deck = DEFAULT_PALETTE.for_deck(("red", "green", "purple"))
    assert set_deck.hue_disagrees("purple", red_outline)
    # Every colour's own centre agrees with its hue, and white, black and the locomotive have
    # no hue to disagree with.
    for cls in DEFAULT_PALETTE.classes:
        assert not DEFAULT_PALETTE.hue_disagrees(cls.name, cls.centre)
    assert not DEFAULT_PALETTE.hue_disagrees("white", red_outline)


@pytest.mark.parametrize(
    ("features", "violet"),
    [
        # Set's dark violets on the real photos, their coloured pixels nearest black or blue:
        # -61° at 0.14 (nakkstar123/set-solver IMG_6055.jpg), -75° at 0.26 (printed near navy,
        # danielmast/setsolver table1.jpg: by hue nearest blue, and too pale for blue).
        ((0.32, *_ink(0.14, -61.0), 0.0), True),
        ((0.34, *_ink(0.261, -75.0), 0.001), True),
        # Within 40° of the cool end of the line a light moves hues along (-124°): a black or
        # navy print in a cool light can make it.
        ((0.3, *_ink(0.18, -91.0), 0.0), False),
        ((0.3, *_ink(0.3, -116.0), 0.0), False),
        # Too faint to be a colour (black), or many hues (the locomotive).
        ((0.3, *_ink(0.08, -60.0), 0.0), False),
        ((0.3, *_ink(0.3, -60.0), 0.3), False),
    ],
)
def test_a_violet_no_light_makes_is_purple(
    features: tuple[float, float, float, float], violet: bool
) -> None:
    assert (DEFAULT_PALETTE.classify_violet(features) == ("purple", 1.0)) is violet
    # A deck without purple has no violet to read.
    assert DEFAULT_PALETTE.for_deck(("red", "blue")).classify_violet(features) is None
    if violet and features[2] < -0.2:
        by_hue = DEFAULT_PALETTE.classify_by_hue(features)
        assert by_hue is not None and by_hue[0] == "blue"
        assert DEFAULT_PALETTE.too_pale_for("blue", features)


def test_a_decks_palette_has_only_its_colours() -> None:
    # Set's violet printed near navy (chroma 0.27 at -84°, vimalloc/set-solver's
    # filter_cards1.jpg): with Ticket to Ride's eight colours nearest blue; a Set deck has no
    # blue, and 60° from our purple it is no colour by its hue alone (unsure).
    violet = (0.45, *_ink(0.27, -84.0), 0.0)
    by_hue = DEFAULT_PALETTE.classify_by_hue(violet)
    assert by_hue is not None and by_hue[0] == "blue"
    set_deck = DEFAULT_PALETTE.for_deck(("red", "green", "purple"))
    assert set_deck.colours == ("purple", "red", "green")
    assert {c.name for c in set_deck.classes} == {"purple", "white", "black", "red", "green"}
    assert set_deck.classify_by_hue(violet) is None
    assert set_deck.classify(violet)[0] != "blue"
    with pytest.raises(ValueError, match="not a card class: violet"):
        DEFAULT_PALETTE.for_deck(("violet",))


def test_a_white_or_black_reading_is_unsure_for_a_deck_without_them() -> None:
    scene = render_scene(
        SceneSpec(width=1280, height=720, cards=("white", "red"), layout="row", rotation_deg=0.0)
    )
    deck = DEFAULT_PALETTE.for_deck(("red", "green", "purple"))
    white, red = read_train_cards(scene.image, deck)
    assert (white.colour, white.guess, red.colour) == (UNSURE, "white", "red")


def test_a_decks_colours_survive_the_calibration_file(tmp_path: Path) -> None:
    path = tmp_path / "calibration.json"
    deck = calibrated_palette({}, "table-3").for_deck(("red", "green", "purple"))
    save_palette(deck, str(path))
    loaded = load_palette(str(path))
    assert loaded.colours == ("purple", "red", "green")
    assert {c.name for c in loaded.classes} == {"purple", "white", "black", "red", "green"}
    # A file without the field is a deck of every colour.
    assert "colours" not in palette_to_json(DEFAULT_PALETTE)
    data = palette_to_json(deck)
    data["colours"] = ["red", "violet"]
    with pytest.raises(SnapshotError, match=r"calibration\.colours.*'violet'"):
        palette_from_json(data)


def test_a_printings_black_margin_survives_the_file_and_a_bad_one_is_named(tmp_path: Path) -> None:
    path = tmp_path / "calibration.json"
    save_palette(replace(DEFAULT_PALETTE, source="old-deck", margin="black"), str(path))
    assert load_palette(str(path)).margin == "black"
    assert "margin" not in palette_to_json(DEFAULT_PALETTE)  # white: the current printing
    data = palette_to_json(DEFAULT_PALETTE)
    data["margin"] = "gold"
    with pytest.raises(SnapshotError, match=r"calibration\.margin.*'gold'"):
        palette_from_json(data)
