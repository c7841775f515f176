"""`trackside see` on still images, and `trackside vision calibrate` round trips."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.service.cli import main
from vision.calibrate import CALIBRATION_ORDER, CalibrationError, calibrate
from vision.cards import read_train_cards
from vision.palette import load_palette
from vision.see import see
from vision.synthetic import SceneSpec, render_scene, seen_at_a_slant, stick_marker

# A printing whose orange is redder and whose red is darker than the default palette assumes.
OTHER_PRINTING = (("orange", (215, 75, 35)), ("red", (165, 25, 50)))


def _write(tmp_path: Path, name: str, spec: SceneSpec) -> str:
    path = tmp_path / name
    cv2.imwrite(str(path), render_scene(spec).image)
    return str(path)


def test_see_prints_one_json_object_per_image_with_markers_and_cards(tmp_path: Path) -> None:
    tunnel = _write(
        tmp_path,
        "tunnel.png",
        SceneSpec(cards=("red", "white", "locomotive"), layout="row", rotation_deg=8),
    )
    tickets = _write(tmp_path, "tickets.png", SceneSpec(markers=((12, 40.0), (3, 40.0)), seed=1))
    out = io.StringIO()
    assert see([tunnel, tickets], out) == 0
    first, second = (json.loads(line) for line in out.getvalue().splitlines())
    assert first["image"] == tunnel
    assert [c["colour"] for c in first["train_cards"]] == ["red", "white", "locomotive"]
    for card in first["train_cards"]:
        assert 0.75 <= card["confidence"] <= 1.0
        assert len(card["box"]) == 4 and all(isinstance(v, int) for v in card["box"])
    assert first["markers"] == []
    assert second["train_cards"] == []
    assert [m["id"] for m in second["markers"]] == [3, 12]
    assert all(len(m["corners"]) == 4 for m in second["markers"])


def test_see_names_an_unreadable_image_in_one_line_describes_the_rest_and_is_status_2(
    tmp_path: Path,
) -> None:
    good = _write(tmp_path, "good.png", SceneSpec(cards=("red",)))
    not_an_image = tmp_path / "notes.txt"
    not_an_image.write_text("tunnel: red, red, locomotive")
    for bad in (str(not_an_image), str(tmp_path / "missing.png")):
        out, err = io.StringIO(), io.StringIO()
        # Streaming: images are described as they come, so the good ones on either side of a
        # bad one are still printed.
        assert see([good, bad, good], out, err=err) == 2
        lines = [json.loads(line) for line in out.getvalue().splitlines()]
        assert [line["image"] for line in lines] == [good, good]
        assert [c["colour"] for c in lines[0]["train_cards"]] == ["red"]
        assert err.getvalue().count("\n") == 1 and repr(bad) in err.getvalue()


def test_see_prints_each_image_before_reading_the_next(tmp_path: Path) -> None:
    first = _write(tmp_path, "first.png", SceneSpec(cards=("blue",)))
    second = _write(tmp_path, "second.png", SceneSpec(cards=("green",)))

    class Watch(io.StringIO):
        def __init__(self) -> None:
            super().__init__()
            self.lines_when_second_was_read = -1

    out = Watch()
    import vision.see as see_module

    real_read = see_module.read_photo

    def read(path: str):  # type: ignore[no-untyped-def]
        if path == second:
            out.lines_when_second_was_read = out.getvalue().count("\n")
        return real_read(path)

    see_module.read_photo = read  # type: ignore[assignment]
    try:
        assert see([first, second], out) == 0
    finally:
        see_module.read_photo = real_read  # type: ignore[assignment]
    assert out.lines_when_second_was_read == 1


def test_a_photo_of_many_megapixels_is_decoded_smaller_and_its_boxes_are_its_own_pixels(
    tmp_path: Path,
) -> None:
    """A 48- or 108-megapixel phone photo is decoded at a half or a quarter of its size at once
    (decoded whole, one took 352 or 705 MB); what ``see`` says is still in the photo's own
    pixels, as for the same scene photographed smaller."""
    from vision.see import MAX_SIDE, read_photo, reduction

    assert [reduction(side) for side in (4032, 4608, 6000, 8000, 12000, 16320, 32000)] == [
        1, 1, 1, 2, 2, 4, 8,
    ]  # fmt: skip
    scene = render_scene(SceneSpec(cards=("red", "green", "blue"), layout="row", seed=4)).image
    small = tmp_path / "small.jpg"
    big = tmp_path / "big.jpg"
    cv2.imwrite(str(small), scene, [cv2.IMWRITE_JPEG_QUALITY, 95])
    h, w = scene.shape[:2]
    grown = cv2.resize(scene, (w * 14, h * 14), interpolation=cv2.INTER_CUBIC)  # 60 megapixels
    cv2.imwrite(str(big), grown, [cv2.IMWRITE_JPEG_QUALITY, 95])
    assert reduction(w * 14) == 2  # decoded at half its size, then made MAX_SIDE long
    read = read_photo(str(big))
    assert read is not None
    image, scale = read
    assert max(image.shape) == MAX_SIDE and scale == pytest.approx(MAX_SIDE / (w * 14))
    out = io.StringIO()
    assert see([str(small), str(big)], out) == 0
    near, far = (json.loads(line)["train_cards"] for line in out.getvalue().splitlines())
    assert [c["colour"] for c in far] == [c["colour"] for c in near] == ["red", "green", "blue"]
    for a, b in zip(near, far, strict=True):
        assert np.allclose(np.asarray(b["box"]) / 14, a["box"], atol=3)


def test_an_unreadable_image_says_why_an_iphones_heic_photo_how_to_save_it(
    tmp_path: Path,
) -> None:
    """An iPhone saves its photos as HEIC unless told otherwise, and nothing here reads HEIC:
    ``see`` and calibration say so and how to get a JPEG, not just "cannot read"."""
    heic = tmp_path / "IMG_0042.HEIC"
    heic.write_bytes(b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + bytes(64))
    empty = tmp_path / "empty.jpg"
    empty.write_bytes(b"")
    notes = tmp_path / "notes.txt"
    notes.write_text("tunnel: red, red, locomotive")
    out, err = io.StringIO(), io.StringIO()
    paths = [str(p) for p in (heic, empty, notes, tmp_path / "missing.jpg")]
    assert see(paths, out, err=err) == 2
    lines = err.getvalue().splitlines()
    assert len(lines) == 4 and out.getvalue() == ""
    assert "HEIC photo" in lines[0] and "Most Compatible" in lines[0]
    assert lines[1].endswith("the file is empty")
    assert lines[2].endswith("it is not a JPEG, PNG or other image OpenCV reads")
    assert lines[3].endswith("No such file or directory")
    with pytest.raises(CalibrationError, match="HEIC photo"):
        calibrate([str(heic)] * 9, str(tmp_path / "palette.json"))


def _png_header(width: int, height: int) -> np.ndarray:
    """The first bytes of a PNG of that size: its signature, its header chunk and no pixels."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    return np.frombuffer(b"\x89PNG\r\n\x1a\n" + header + chunk(b"IDAT", b""), np.uint8)


def test_a_photo_size_is_read_from_its_header_even_past_pillows_bomb_limits() -> None:
    """Over 89 megapixels Pillow warns, over 178 it refuses: neither stops ``see``, which needs
    only the size (a warning would be an error under the tests' settings)."""
    from vision.see import _longest_side, reduction

    assert _longest_side(_png_header(12000, 9000)) == 12000  # 108 megapixels: a warning
    assert _longest_side(_png_header(20000, 10000)) == 16_000  # 200: refused, taken as huge
    assert reduction(16_000) == 4
    assert _longest_side(np.frombuffer(b"tunnel: red, red", np.uint8)) is None


def test_see_explain_says_why_a_card_too_close_was_not_taken(tmp_path: Path) -> None:
    close = _write(
        tmp_path,
        "close.png",
        SceneSpec(
            cards=("red",), card_width_px=300, rotation_deg=0.0, width=400, height=560, layout="row"
        ),
    )
    out = io.StringIO()
    assert see([close], out, explain=True) == 0
    result = json.loads(out.getvalue())
    assert result["train_cards"] == []
    assert any("move the camera back" in r["reason"] for r in result["rejected"])
    plain = io.StringIO()
    assert see([close], plain) == 0
    assert "rejected" not in json.loads(plain.getvalue())


def test_see_with_no_image_or_a_bad_calibration_is_status_2(tmp_path: Path) -> None:
    err = io.StringIO()
    assert see([], io.StringIO(), err=err) == 2
    assert "no image" in err.getvalue()
    good = _write(tmp_path, "good.png", SceneSpec())
    err = io.StringIO()
    assert see([good], io.StringIO(), err=err, calibration_path=str(tmp_path / "x.json")) == 2
    assert "calibration" in err.getvalue()


def test_calibration_at_game_start_fixes_a_printing_the_default_palette_misreads(
    tmp_path: Path,
) -> None:
    warm_row = SceneSpec(
        cards=CALIBRATION_ORDER,
        layout="row",
        rotation_deg=5,
        light="warm",
        card_width_px=52,
        inks=OTHER_PRINTING,
        seed=11,
    )
    shown = _write(tmp_path, "nine.png", warm_row)
    result = calibrate([shown], str(tmp_path / "cameras" / "overhead.json"), camera="overhead")
    assert [s.colour for s in result.samples] == list(CALIBRATION_ORDER)
    # The default palette reads this orange as red, and says so.
    assert any("'orange'" in w and "'red'" in w for w in result.warnings)
    palette = load_palette(result.path)
    assert palette == result.palette and palette.source == "overhead"

    tunnel = SceneSpec(
        cards=("orange", "red", "orange"), light="warm", inks=OTHER_PRINTING, blur_sigma=0.7
    )
    for seed in range(3):
        scene = render_scene(replace(tunnel, seed=seed))
        truth = [c.colour for c in sorted(scene.cards, key=lambda c: min(x for x, _ in c.corners))]
        assert [c.colour for c in read_train_cards(scene.image, palette)] == truth
    default_reads = [c.guess for c in read_train_cards(render_scene(tunnel).image)]
    assert default_reads.count("orange") < 2


def test_calibration_over_several_images_in_order(tmp_path: Path) -> None:
    paths = [
        _write(
            tmp_path,
            f"part{i}.png",
            SceneSpec(cards=CALIBRATION_ORDER[i : i + 3], layout="row", rotation_deg=5, seed=i),
        )
        for i in (0, 3, 6)
    ]
    result = calibrate(paths, str(tmp_path / "cal.json"))
    assert [s.colour for s in result.samples] == list(CALIBRATION_ORDER)
    assert [s.image for s in result.samples] == [p for p in paths for _ in range(3)]
    assert result.warnings == ()


def test_a_camera_at_a_slant_is_measured_by_its_calibration_and_then_reads_the_cards(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A camera 45° from straight down (on a shelf beside the table): every card looks nearly
    square, so none is found as the camera sees them. Calibration knows it is shown nine cards:
    it stretches the picture's height back until the nine are there, measures the slant on
    them, and stores it with the colours; see and the camera then read cards with it."""
    row = SceneSpec(
        width=960,
        height=720,
        cards=CALIBRATION_ORDER,
        layout="row",
        rotation_deg=4,
        card_width_px=80,
        seed=3,
    )
    shown = seen_at_a_slant(render_scene(row), 45)
    assert len(read_train_cards(shown.image)) < len(CALIBRATION_ORDER)
    path = tmp_path / "beside.json"
    result = calibrate([shown.image], str(path), camera="beside")
    assert [s.colour for s in result.samples] == list(CALIBRATION_ORDER)
    assert result.palette.view == pytest.approx(1.4, abs=0.1)
    palette = load_palette(str(path))
    assert palette.view == result.palette.view
    reveal = seen_at_a_slant(
        render_scene(replace(row, cards=("red", "blue", "locomotive", "green"), seed=7)), 45
    )
    assert read_train_cards(reveal.image) == []
    assert [c.colour for c in read_train_cards(reveal.image, palette)] == [
        "red",
        "blue",
        "locomotive",
        "green",
    ]
    nine = tmp_path / "nine.png"
    cv2.imwrite(str(nine), shown.image)
    assert (
        main(["vision", "calibrate", str(nine), "--camera", "beside", "--output", str(path)]) == 0
    )
    said = capsys.readouterr().out
    assert "at a slant" in said and f"×{palette.view:.2f}" in said
    image = tmp_path / "reveal.png"
    cv2.imwrite(str(image), reveal.image)
    out = io.StringIO()
    assert see([str(image)], out, calibration_path=str(path)) == 0
    assert [c["colour"] for c in json.loads(out.getvalue())["train_cards"]] == [
        "red",
        "blue",
        "locomotive",
        "green",
    ]


def test_calibration_with_a_card_missing_writes_nothing(tmp_path: Path) -> None:
    eight = _write(
        tmp_path,
        "eight.png",
        SceneSpec(cards=CALIBRATION_ORDER[:8], layout="row", rotation_deg=5, card_width_px=52),
    )
    output = tmp_path / "cal.json"
    with pytest.raises(CalibrationError, match="found 8 cards"):
        calibrate([eight], str(output))
    assert not output.exists()
    with pytest.raises(CalibrationError, match="cannot read"):
        calibrate([str(tmp_path / "missing.png")], str(output))
    with pytest.raises(CalibrationError, match="no image"):
        calibrate([], str(output))


def test_cards_without_a_white_margin_are_not_calibrated(tmp_path: Path) -> None:
    # The older printing's black border: the nine are found (their fields inside the border),
    # but their colours would be measured against no white margin, and the palette written
    # would misread every card. Nothing is written; the error says why.
    bordered = _write(
        tmp_path,
        "bordered.png",
        SceneSpec(
            cards=CALIBRATION_ORDER,
            layout="row",
            rotation_deg=5,
            card_width_px=52,
            width=640,
            margin=(25, 25, 28),
        ),
    )
    output = tmp_path / "cal.json"
    with pytest.raises(CalibrationError, match="no white margin all round"):
        calibrate([bordered], str(output))
    assert not output.exists()


def test_a_calibration_that_finds_no_card_says_why_the_outline_seen_was_not_one(
    tmp_path: Path,
) -> None:
    close = _write(
        tmp_path,
        "close.png",
        SceneSpec(
            cards=("red",), card_width_px=300, rotation_deg=0.0, width=400, height=560, layout="row"
        ),
    )
    output = tmp_path / "cal.json"
    with pytest.raises(CalibrationError, match="found 0 cards") as caught:
        calibrate([close], str(output))
    assert "move the camera back" in str(caught.value)
    assert not output.exists()
    empty = _write(tmp_path, "empty.png", SceneSpec())
    with pytest.raises(CalibrationError, match="Nothing card-sized stood out"):
        calibrate([empty], str(output))


def test_calibration_warns_when_two_colours_look_alike_under_this_light(tmp_path: Path) -> None:
    # A faded deck whose orange is printed almost like its red.
    alike = SceneSpec(
        cards=CALIBRATION_ORDER,
        layout="row",
        rotation_deg=5,
        card_width_px=52,
        inks=(("orange", (207, 45, 40)),),
        seed=5,
    )
    result = calibrate([_write(tmp_path, "alike.png", alike)], str(tmp_path / "cal.json"))
    assert any("'orange' and 'red' are hard to tell apart" in w for w in result.warnings)
    assert Path(result.path).exists()  # stored all the same: the players were warned


def test_see_reads_a_photo_larger_than_a_phones_at_a_phones_size_in_its_own_pixels(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A 16-megapixel photo took 285 MB alone; larger photos are read at MAX_SIDE. The limit is
    # lowered here so that a small synthetic scene crosses it: the answers are the same, in
    # the photo's own pixels.
    import vision.see

    scene = render_scene(
        SceneSpec(width=1280, height=720, cards=("red", "blue"), markers=((7, 60.0),), seed=2)
    )
    path = str(tmp_path / "big.png")
    cv2.imwrite(path, scene.image)
    whole = io.StringIO()
    assert see([path], whole) == 0
    monkeypatch.setattr(vision.see, "MAX_SIDE", 960)
    reduced = io.StringIO()
    assert see([path], reduced) == 0
    full, small = json.loads(whole.getvalue()), json.loads(reduced.getvalue())
    assert [c["colour"] for c in small["train_cards"]] == [c["colour"] for c in full["train_cards"]]
    assert sorted(c["colour"] for c in full["train_cards"]) == ["blue", "red"]
    for a, b in zip(full["train_cards"], small["train_cards"], strict=True):
        assert all(abs(x - y) <= 4 for x, y in zip(a["box"], b["box"], strict=True))
    assert [m["id"] for m in small["markers"]] == [m["id"] for m in full["markers"]] == [7]
    for x, y in zip(full["markers"][0]["corners"], small["markers"][0]["corners"], strict=True):
        assert abs(x[0] - y[0]) <= 3 and abs(x[1] - y[1]) <= 3


def test_a_card_carrying_our_marker_is_a_component_not_a_train_card(tmp_path: Path) -> None:
    # A ticket with its sticker laid beside two train cards: a card-shaped outline with a white
    # margin like theirs. The marker is reported; the card is not read as a train card, and
    # --explain says why.
    scene = render_scene(
        SceneSpec(cards=("red", "white", "green"), layout="row", rotation_deg=4, seed=5)
    )
    middle = scene.cards[1]
    centre = tuple(float(v) for v in np.mean(middle.corners, axis=0))
    image = stick_marker(scene.image, (centre[0], centre[1]), 7, side_px=30)
    path = tmp_path / "ticket.png"
    cv2.imwrite(str(path), image)
    out = io.StringIO()
    assert see([str(path)], out, explain=True) == 0
    result = json.loads(out.getvalue())
    assert [m["id"] for m in result["markers"]] == [7]
    assert [c["colour"] for c in result["train_cards"]] == ["red", "green"]
    assert any("marker sticker" in r["reason"] for r in result["rejected"])
    # the finder alone takes the marked card for a train card: the marker is what tells
    assert len(read_train_cards(image)) == 3


def test_see_gives_the_heap_back_after_each_image(tmp_path: Path) -> None:
    # glibc keeps freed heap for later allocations, and a large photo's work images do not fit
    # the holes the last one left: over the 100 largest real photos the peak grew from 243 MB
    # (the largest alone) to 296 MB; given back after each image, 275 MB (docs/vision.md).
    import sys

    import vision.see as see_module

    if sys.platform.startswith("linux"):  # Raspberry Pi OS and Debian: glibc
        assert see_module._heap_trim() is not None
    calls: list[int] = []
    real = see_module.give_back_memory
    see_module.give_back_memory = lambda: calls.append(1)  # type: ignore[assignment]
    try:
        image = _write(tmp_path, "one.png", SceneSpec(cards=("blue",)))
        assert see([image, image], io.StringIO()) == 0
    finally:
        see_module.give_back_memory = real  # type: ignore[assignment]
    assert calls == [1, 1]
    real()  # and it is safe to call


def test_a_large_still_is_read_for_markers_in_parts_with_the_same_reads(tmp_path: Path) -> None:
    """A 4032 × 3024 still is looked at for markers in four overlapping parts and once at half
    size (OpenCV's search of the whole took 100 MB on a textured table, a part 22 MB): markers
    of 32 to 900 px, some across the parts' seams, are read as reading the whole photo reads
    them, their corners within a pixel and a half, none twice."""
    from vision.markers import ARUCO_DICTIONARY, MarkerDetector
    from vision.see import still_markers

    dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICTIONARY)
    still = np.full((3024, 4032), 170, np.uint8)
    rng = np.random.default_rng(3)
    still = np.clip(still + rng.normal(0, 12, still.shape), 0, 255).astype(np.uint8)  # grain
    # (id, side, left, top): the parts reach to x 2016 ± 256 and y 1512 ± 256; 5 lies across
    # both seams and is in no part whole: the half-size look reads it
    placed = [
        (1, 32, 300, 300), (2, 40, 1990, 400), (3, 90, 2040, 600), (4, 150, 1900, 2700),
        (5, 600, 1716, 1212), (6, 300, 3500, 200), (7, 420, 2600, 1300), (8, 900, 400, 1800),
    ]  # fmt: skip
    for marker_id, side, left, top in placed:
        quiet = side // 4
        code = cv2.aruco.generateImageMarker(dictionary, marker_id, side)
        sticker = np.pad(np.where(code > 127, 235, 25).astype(np.uint8), quiet, constant_values=235)
        n = sticker.shape[0]
        still[top - quiet : top - quiet + n, left - quiet : left - quiet + n] = sticker
    image = cv2.cvtColor(cv2.GaussianBlur(still, (0, 0), 0.7), cv2.COLOR_GRAY2BGR)
    detector = MarkerDetector()
    whole = detector.detect(image)
    parts = still_markers(image, detector)
    assert [m.marker_id for m in whole] == [m.marker_id for m in parts] == list(range(1, 9))
    for a, b in zip(whole, parts, strict=True):
        assert np.abs(np.asarray(a.corners) - np.asarray(b.corners)).max() <= 1.5, a.marker_id
