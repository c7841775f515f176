"""Label sheets: the PDF is read back with PDFium, pages are rendered and every printed code is
decoded again (QR with OpenCV and zxing-cpp, Code 128 with zxing-cpp, ArUco with the camera's
own marker detector), and ArUco sheets enrol their markers in a real SQLite file."""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt
import pypdfium2 as pdfium
import pytest
import zxingcpp

from companion.core import Observation, ObservationKind
from companion.core.errors import ConfigError, UnknownComponentError
from companion.core.messages import render_text
from companion.games import find_game
from companion.service import labels
from companion.service.cli import main
from companion.service.engine import Engine
from companion.service.enrolment import enrol
from companion.service.store import EventStore, TagBinding
from tests.service.conftest import command
from vision.markers import MarkerDetector

ROOT = Path(__file__).resolve().parents[2]
TTR = "ticket-to-ride-europe"
RR = "russian-railroads"


def render(path: Path, page: int, dpi: int) -> npt.NDArray[np.uint8]:
    document = pdfium.PdfDocument(str(path))
    try:
        image = document[page].render(scale=dpi / 72, grayscale=True).to_numpy()
    finally:
        document.close()
    return np.asarray(image if image.ndim == 2 else image[..., 0], np.uint8)


def page_texts(path: Path) -> list[str]:
    document = pdfium.PdfDocument(str(path))
    try:
        return [document[i].get_textpage().get_text_range() for i in range(len(document))]
    finally:
        document.close()


def crop(image: npt.NDArray[np.uint8], box: tuple[float, float, float, float], dpi: int) -> Any:
    """The region (left, top, width, height in mm) with a white margin around it."""
    px = dpi / 25.4
    left, top, width, height = box
    region = image[
        int(top * px) : int((top + height) * px), int(left * px) : int((left + width) * px)
    ]
    return cv2.copyMakeBorder(region, 20, 20, 20, 20, cv2.BORDER_CONSTANT, value=255)


def make(tmp_path: Path, *args: str) -> Path:
    output = tmp_path / "labels.pdf"
    assert main(["labels", *args, "--output", str(output)]) == 0
    return output


# -- what goes on a sheet ----------------------------------------------------------------------
def test_ticket_to_ride_gets_a_sticker_per_train_card_ticket_route_and_station() -> None:
    sheet = labels.stickers(TTR, "qr")
    per_kind = Counter(find_kind(TTR, s.component) for s in sheet)
    assert per_kind == {"train-card": 110, "destination-ticket": 46, "route": 99, "station": 47}
    red = [s for s in sheet if s.component == "card:red"]
    assert [(s.copy, s.copies) for s in red] == [(n, 12) for n in range(1, 13)]
    assert {s.code for s in red} == {f"TS:{TTR}:card:red"}
    assert sum(1 for s in sheet if s.component == "card:locomotive") == 14


def test_russian_railroads_gets_its_tiles_cards_tokens_and_37_locomotives() -> None:
    per_kind = Counter(find_kind(RR, s.component) for s in labels.stickers(RR, "code128"))
    assert per_kind == {
        "engineer": 15,
        "bonus_card": 10,
        "question_card": 5,
        "locomotive": 37,
        "token": 28,
        "starting_bonus": 4,
    }


def find_kind(game: str, component: str) -> str:
    return next(c.kind for c in find_game(game).components if c.id == component)


def test_only_some_kinds_and_refusals_name_what_is_wrong() -> None:
    tickets = labels.stickers(TTR, "qr", ("destination-ticket",))
    assert len(tickets) == 46
    with pytest.raises(UnknownComponentError, match="no components of kind 'ticket'"):
        labels.stickers(TTR, "qr", ("ticket",))
    with pytest.raises(ConfigError, match="no ArUco markers are assigned to mini-express"):
        labels.stickers("mini-express", "aruco")


# -- the ArUco table ----------------------------------------------------------------------------
def test_the_marker_table_gives_each_marked_component_one_id_below_100() -> None:
    table = labels.aruco_table()
    assert [i for i, _, _ in table] == list(range(80))
    assert len({(g, c) for _, g, c in table}) == 80
    sizes = {
        (game, kind): sum(1 for c in find_game(game).components if c.kind == kind)
        for _, game, kind in labels.ARUCO_BLOCKS
    }
    # Pinned: a game gaining a component must not shift the ids printed on existing stickers.
    assert sizes == {
        (TTR, "destination-ticket"): 46,
        (RR, "engineer"): 15,
        (RR, "bonus_card"): 10,
        (RR, "question_card"): 5,
        (RR, "starting_bonus"): 4,
    }
    bases = [base for base, _, _ in labels.ARUCO_BLOCKS]
    assert bases == [0, 46, 61, 71, 76]


def test_the_marker_table_in_the_docs_is_the_one_in_the_code() -> None:
    text = (ROOT / "docs" / "labels.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\d+) \| ([a-z-]+) \| `([^`]+)` \|", text, re.MULTILINE)
    assert [(int(i), g, c) for i, g, c in rows] == labels.aruco_table()


# -- the PDF ------------------------------------------------------------------------------------
@pytest.mark.parametrize(("paper", "size_pt"), [("a4", (595.3, 841.9)), ("letter", (612, 792))])
def test_a_qr_sheet_is_a_pdf_of_the_right_pages_with_every_name_on_it(
    tmp_path: Path, paper: str, size_pt: tuple[float, float]
) -> None:
    pdf = make(tmp_path, RR, "--kind", "qr", "--paper", paper)
    assert pdf.read_bytes().startswith(b"%PDF-")
    sheet = labels.stickers(RR, "qr")
    geo = labels.geometry("qr", sheet)
    cols, rows = geo.per_page(paper)
    document = pdfium.PdfDocument(str(pdf))
    try:
        assert len(document) == math.ceil(len(sheet) / (cols * rows))
        width, height = document[0].get_size()
    finally:
        document.close()
    assert (round(width, 1), round(height, 1)) == pytest.approx(size_pt, abs=0.1)
    text = re.sub(r"\s+", "", "".join(page_texts(pdf)))
    for component in find_game(RR).components:
        assert re.sub(r"\s+", "", component.name) in text, component.name


def test_every_qr_sticker_on_a_page_decodes_to_its_self_describing_code(tmp_path: Path) -> None:
    pdf = make(tmp_path, TTR, "--kind", "qr")
    sheet = labels.stickers(TTR, "qr")
    geo = labels.geometry("qr", sheet)
    cols, rows = geo.per_page("a4")
    assert len(page_texts(pdf)) == math.ceil(302 / (cols * rows))
    dpi = 300
    last = len(page_texts(pdf)) - 1
    for page in (0, last):
        image = render(pdf, page, dpi)
        on_page = sheet[page * cols * rows : (page + 1) * cols * rows]
        detector = cv2.QRCodeDetector()
        for index, sticker in enumerate(on_page):
            left, top = labels.slot(geo, "a4", index)
            region = crop(image, (left, top, geo.code_side, geo.height), dpi)
            decoded, _, _ = detector.detectAndDecode(region)
            assert decoded == sticker.code, (page, index, sticker)
            assert [r.text for r in zxingcpp.read_barcodes(region)] == [sticker.code]


def test_every_code128_sticker_decodes_and_the_thin_bars_are_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pdf = make(tmp_path, RR, "--kind", "code128", "--only", "engineer,bonus_card")
    assert "warning: the narrowest bar is" in capsys.readouterr().out
    sheet = labels.stickers(RR, "code128", ("engineer", "bonus_card"))
    geo = labels.geometry("code128", sheet)
    assert geo.module < labels.CODE128_THIN_MM  # long component ids make dense bars
    # Rendered at 1200 dpi (a laser printer's resolution), one sticker at a time; at 600 dpi the
    # densest bars (under 0.1 mm) fall between pixels and about 1 sticker in 20 does not decode.
    document = pdfium.PdfDocument(str(pdf))
    try:
        page = document[0]
        page_w, page_h = page.get_size()
        for index, sticker in enumerate(sheet):
            left, top = labels.slot(geo, "a4", index)
            mm = labels.MM
            box = (
                left * mm,
                page_h - (top + geo.height) * mm,
                page_w - (left + geo.width) * mm,
                top * mm,
            )
            image = page.render(scale=1200 / 72, grayscale=True, crop=box).to_numpy()
            region = np.asarray(image if image.ndim == 2 else image[..., 0], np.uint8)
            region = cv2.copyMakeBorder(region, 20, 20, 20, 20, cv2.BORDER_CONSTANT, value=255)
            found = zxingcpp.read_barcodes(region, formats=zxingcpp.BarcodeFormat.Code128)
            assert [r.text for r in found] == [sticker.code], (index, sticker)
    finally:
        document.close()


def test_a_short_code128_code_gets_comfortable_bars() -> None:
    sheet = labels.stickers("trains-and-stations", "code128")
    assert labels.geometry("code128", sheet).module >= labels.CODE128_THIN_MM


def test_an_aruco_sheet_is_read_by_the_camera_and_enrols_its_markers(
    tmp_path: Path, db_path: Path
) -> None:
    tags_file = tmp_path / "rr-markers.json"
    pdf = make(tmp_path, RR, "--kind", "aruco", "--db", str(db_path), "--tags-file", str(tags_file))
    sheet = labels.stickers(RR, "aruco")
    assert len(sheet) == 34
    image = render(pdf, 0, 100)  # 18 mm markers at 100 dpi: about 70 px
    found = MarkerDetector().detect(cv2.cvtColor(image, cv2.COLOR_GRAY2BGR))
    assert sorted(m.marker_id for m in found) == list(range(46, 80))
    store = EventStore(db_path)
    try:
        assert store.tag("ARUCO-46") == TagBinding("ARUCO-46", RR, "engineer:any_3points")
        assert len(store.tags()) == 34
    finally:
        store.close()
    assert json.loads(tags_file.read_text(encoding="utf-8"))["tags"][0] == {
        "uid": "ARUCO-46",
        "game": RR,
        "component": "engineer:any_3points",
    }
    again = tmp_path / "again.pdf"
    assert (
        main(["labels", RR, "--kind", "aruco", "--db", str(db_path), "--output", str(again)]) == 0
    )


def test_a_marker_id_bound_to_something_else_stops_the_sheet_before_anything_is_written(
    tmp_path: Path, db_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = EventStore(db_path)
    enrol(store, "ARUCO-47", RR, "bonus:points_15")  # enrolled by hand, long ago
    store.close()
    output = tmp_path / "rr.pdf"
    with pytest.raises(SystemExit):
        main(["labels", RR, "--kind", "aruco", "--db", str(db_path), "--output", str(output)])
    error = capsys.readouterr().err
    assert "bonus:points_15" in error
    assert "engineer:any_black" in error
    assert not output.exists()
    store = EventStore(db_path)
    assert [b.uid for b in store.tags()] == ["ARUCO-47"]
    store.close()


def test_a_ticket_marker_seen_by_the_camera_is_that_ticket_in_the_registry(
    store: EventStore, engine: Engine
) -> None:
    labels_for_ttr = labels.aruco_bindings(TTR)
    assert len(labels_for_ttr) == 46
    store.enrol_many(labels_for_ttr)
    marker = next(b for b in labels_for_ttr if b.component == "ticket:athina-angora")
    assert store.tag(marker.uid) == marker
    players = [
        {"name": "Red", "colour": "red", "seat": 1},
        {"name": "Blue", "colour": "blue", "seat": 2},
    ]
    engine.handle(command({"command": "start_game", "game": TTR, "players": players}))
    seen = Observation("camera", ObservationKind.TAG_PRESENT, {"uid": marker.uid})  # type: ignore[arg-type]
    outcome = engine.handle(seen)
    # tickets are secret until the end: the sender (the camera) hears only the public note
    assert (outcome.outcome, outcome.message) == ("applied", "Red: keep ticket (private)")
    told = render_text(engine.private_notes(1, 0)[-1]["message"])
    assert told == "Red keeps the destination ticket Athina – Angora"
    unprinted = Observation("camera", ObservationKind.TAG_PRESENT, {"uid": "ARUCO-99"})  # type: ignore[arg-type]
    assert "unknown tag 'ARUCO-99'" in engine.handle(unprinted).message


def test_every_default_sticker_fits_a_mini_card_and_a_big_marker_is_warned_about(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for kind in ("qr", "code128", "aruco"):
        assert labels.geometry(kind, labels.stickers(RR, kind)).fits_mini_card, kind
    assert all(i < labels.ARUCO_IDS for i, _, _ in labels.aruco_table())
    sheet = labels.stickers(RR, "aruco")
    assert labels.geometry("aruco", sheet, 25).fits_mini_card  # 49 × 33 mm, along the card
    assert not labels.geometry("aruco", sheet, 32).fits_mini_card
    make(tmp_path, RR, "--kind", "aruco", "--no-enrol", "--marker-mm", "32")
    assert "does not fit on a mini card's face (41 × 63 mm)" in capsys.readouterr().out


def test_a_printed_qr_ticket_scanned_at_the_table_needs_no_enrolment(
    store: EventStore, engine: Engine
) -> None:
    players = [
        {"name": "Red", "colour": "red", "seat": 1},
        {"name": "Blue", "colour": "blue", "seat": 2},
    ]
    engine.handle(command({"command": "start_game", "game": TTR, "players": players}))
    ticket = next(s for s in labels.stickers(TTR, "qr") if s.component == "ticket:athina-angora")
    scanned = Observation("blue-seat", ObservationKind.TEXT, {"text": ticket.code}, 2)  # type: ignore[arg-type]
    outcome = engine.handle(scanned)
    assert (outcome.outcome, outcome.message) == ("applied", "Blue: keep ticket (private)")
    told = render_text(engine.private_notes(1, 1)[-1]["message"])
    assert told == "Blue keeps the destination ticket Athina – Angora"
    assert store.tags() == []
