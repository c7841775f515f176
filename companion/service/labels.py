"""Label sheets: a printable PDF with one sticker per physical component of a game.

``trackside labels GAME --kind qr|code128|aruco --paper a4|letter --output FILE.pdf``

- ``qr`` and ``code128`` stickers carry the text ``TS:<game id>:<component id>``, which the
  engine resolves without any enrolment: they are enrolled by construction.
- ``aruco`` stickers carry a camera marker (``DICT_4X4_100``, ids 0–99, read by
  ``vision.markers``). The ids are few and the tag registry is shared by every game, so they are
  assigned once, for all games, by :data:`ARUCO_BLOCKS` (the table is in ``docs/labels.md``); the
  bindings ``ARUCO-<id> → component`` are written to the registry (or a tags file for
  ``trackside tags import``) when the sheet is made. Only the components the camera is meant to
  identify have markers: Ticket to Ride tickets, Russian Railroads engineers and cards.

A component that stands for several physical pieces (12 red train cards) gets one sticker per
piece, all with the same code (:func:`companion.service.enrolment.physical_copies`).

Every sticker fits on the face of a mini card (41 × 63 mm, the smallest common card size) and
goes under the sleeve; a marker on the back would reveal a secret ticket. Sizes are in
``docs/labels.md``. The PDF is drawn with ReportLab (with its Code 128 widget); QR codes are encoded by segno.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.core.errors import ConfigError, UnknownComponentError
from companion.games import find_game
from companion.service.enrolment import (
    SELF_DESCRIBING_PREFIX,
    import_tags,
    physical_copies,
    tags_document,
)
from companion.service.store import TagBinding

MM = 72 / 25.4  # PDF points per millimetre
LABEL_KINDS = ("qr", "code128", "aruco")
PAPERS: dict[str, tuple[float, float]] = {  # width, height in mm
    "a4": (210.0, 297.0),
    "letter": (215.9, 279.4),
}
PAGE_MARGIN_MM = 10.0
HEADER_MM = 8.0
GAP_MM = 2.0
TEXT_COLUMN_MM = 16.0
QR_SIDE_MM = 22.0
CODE128_STICKER_MM = (60.0, 15.0)  # along a mini card's long side (63 mm)
CODE128_BAR_HEIGHT_MM = 8.0
CODE128_MAX_MODULE_MM = 0.25
CODE128_THIN_MM = 0.125  # about 5 mil: narrower bars need a 600 dpi printer and a good scanner
DEFAULT_MARKER_MM = 18.0
MIN_MARKER_MM = 6.0
ARUCO_IDS = 100  # DICT_4X4_100
MINI_CARD_MM = (41.0, 63.0)  # the smallest common card size ("mini"), short × long side

# Marker ids, for all games at once: (first id, game, component kind). Within a block the
# components are in the order of their ids (sorted), so a game listing them differently does
# not renumber printed stickers. A block's size is the number of such components; a test pins
# each size, so a game gaining a component cannot silently shift the blocks after it.
ARUCO_BLOCKS: tuple[tuple[int, str, str], ...] = (
    (0, "ticket-to-ride-europe", "destination-ticket"),  # 46 tickets: ids 0–45
    (46, "russian-railroads", "engineer"),  # 15 engineer tiles: 46–60
    (61, "russian-railroads", "bonus_card"),  # 10 final bonus cards: 61–70
    (71, "russian-railroads", "question_card"),  # 5 "?" cards: 71–75
    (76, "russian-railroads", "starting_bonus"),  # 4 starting bonus cards: 76–79
)


@dataclass(frozen=True, slots=True)
class Sticker:
    component: str
    name: str
    code: str  # what the sticker encodes: the TS: text, or the marker's uid ARUCO-<id>
    marker_id: int | None = None
    copy: int = 1
    copies: int = 1


def aruco_table() -> list[tuple[int, str, str]]:
    """Every assigned marker: (id, game, component id), by id."""
    table: list[tuple[int, str, str]] = []
    for base, game_name, kind in ARUCO_BLOCKS:
        ids = sorted(c.id for c in find_game(game_name).components if c.kind == kind)
        table.extend((base + i, game_name, cid) for i, cid in enumerate(ids))
    return table


def aruco_bindings(game_name: str) -> list[TagBinding]:
    from vision.markers import marker_uid

    name = find_game(game_name).name
    return [TagBinding(marker_uid(i), g, c) for i, g, c in aruco_table() if g == name]


def stickers(game_name: str, kind: str, only: Sequence[str] = ()) -> list[Sticker]:
    """The stickers of a sheet, in the game's component order, one per physical piece."""
    if kind not in LABEL_KINDS:
        raise ConfigError("--kind", f"{kind!r} is not one of {', '.join(LABEL_KINDS)}")
    game = find_game(game_name)
    known_kinds = {c.kind for c in game.components}
    for wanted in only:
        if wanted not in known_kinds:
            raise UnknownComponentError(
                f"{game.name} has no components of kind {wanted!r} "
                f"(it has {', '.join(sorted(known_kinds))})"
            )
    markers: dict[str, int] = {}
    if kind == "aruco":
        markers = {c: i for i, g, c in aruco_table() if g == game.name}
        if not markers:
            raise ConfigError(
                "--kind",
                f"no ArUco markers are assigned to {game.name} (docs/labels.md); "
                "use --kind qr or code128",
            )
    found: list[Sticker] = []
    for c in game.components:
        if only and c.kind not in only:
            continue
        if kind == "aruco":
            if c.id not in markers:
                continue
            code = f"ARUCO-{markers[c.id]}"
        else:
            code = f"{SELF_DESCRIBING_PREFIX}{game.name}:{c.id}"
        total = physical_copies(game.name, c.id)
        found.extend(
            Sticker(c.id, c.name, code, markers.get(c.id), n, total) for n in range(1, total + 1)
        )
    if not found:
        raise UnknownComponentError(f"no {kind} stickers for {game.name} with --only {only}")
    return found


# -- geometry -----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Geometry:
    """A sticker's size and where its code goes, in mm."""

    width: float
    height: float
    code_side: float  # qr/aruco: the square (with its quiet zone); code128: the bar height
    module: float = 0.0  # code128: the narrowest bar on the sheet; aruco: one marker cell

    @property
    def fits_mini_card(self) -> bool:
        """Whether the sticker fits on a mini card's face, across or along it."""
        short, long = sorted((self.width, self.height))
        return short <= MINI_CARD_MM[0] and long <= MINI_CARD_MM[1]

    def per_page(self, paper: str) -> tuple[int, int]:
        page_w, page_h = PAPERS[paper]
        usable_w = page_w - 2 * PAGE_MARGIN_MM
        usable_h = page_h - 2 * PAGE_MARGIN_MM - HEADER_MM
        return (
            int((usable_w + GAP_MM) // (self.width + GAP_MM)),
            int((usable_h + GAP_MM) // (self.height + GAP_MM)),
        )


def slot(geo: Geometry, paper: str, index: int) -> tuple[float, float]:
    """The ``index``-th sticker of a page: its left edge and its top edge, in mm from the
    page's left and top edges (row by row)."""
    cols, _ = geo.per_page(paper)
    col, row = index % cols, index // cols
    return (
        PAGE_MARGIN_MM + col * (geo.width + GAP_MM),
        PAGE_MARGIN_MM + HEADER_MM + row * (geo.height + GAP_MM),
    )


def code128_modules(text: str) -> int:
    """The barcode's width in modules (no quiet zone), as ReportLab draws it."""
    from reportlab.graphics.barcode.code128 import Code128

    width: float = Code128(text, barWidth=1, quiet=0, humanReadable=0).width
    return round(width)


def geometry(kind: str, sheet: Sequence[Sticker], marker_mm: float = DEFAULT_MARKER_MM) -> Geometry:
    if kind == "qr":
        return Geometry(QR_SIDE_MM + TEXT_COLUMN_MM, QR_SIDE_MM, QR_SIDE_MM)
    if kind == "aruco":
        if not MIN_MARKER_MM <= marker_mm <= 60:
            raise ConfigError("--marker-mm", f"expected {MIN_MARKER_MM}–60 mm, got {marker_mm}")
        cell = marker_mm / 6  # 4×4 bits inside a one-cell black border
        side = marker_mm + 2 * cell  # a one-cell white quiet zone
        return Geometry(side + TEXT_COLUMN_MM, side, side, cell)
    width, height = CODE128_STICKER_MM
    narrowest = min(code128_module(s.code) for s in sheet)
    return Geometry(width, height, CODE128_BAR_HEIGHT_MM, narrowest)


def code128_module(text: str) -> float:
    """The bar width (mm) for ``text``: as wide as fits the sticker, at most 0.25 mm, with the
    ten-module quiet zone of ISO/IEC 15417 on each side inside a 1 mm sticker margin."""
    return min(CODE128_MAX_MODULE_MM, (CODE128_STICKER_MM[0] - 2) / (code128_modules(text) + 20))


# -- drawing ------------------------------------------------------------------------------------
QR_QUIET_MODULES = 4  # the quiet zone of ISO/IEC 18004


@functools.lru_cache(maxsize=512)
def qr_runs(text: str) -> tuple[int, tuple[tuple[int, int, int], ...]]:
    """The QR code of ``text`` (error correction M) as its size in modules and its dark runs
    (row, first column, length), row 0 at the top. Cached: 12 red train cards share one."""
    import segno

    qr = segno.make_qr(text, error="m", boost_error=False)
    runs: list[tuple[int, int, int]] = []
    for row, line in enumerate(qr.matrix):
        col = 0
        while col < len(line):
            if line[col]:
                start = col
                while col < len(line) and line[col]:
                    col += 1
                runs.append((row, start, col - start))
            else:
                col += 1
    return len(qr.matrix), tuple(runs)


def _draw_qr(c: Any, text: str, x: float, y: float, side: float) -> None:
    """The code with its quiet zone in a ``side`` mm square whose lower left is (x, y)."""
    size, runs = qr_runs(text)
    module = side / (size + 2 * QR_QUIET_MODULES)
    path = c.beginPath()
    for row, col, length in runs:
        left = x + (QR_QUIET_MODULES + col) * module
        bottom = y + side - (QR_QUIET_MODULES + row + 1) * module
        path.rect(left * MM, bottom * MM, length * module * MM, module * MM)
    c.setFillColorRGB(0, 0, 0)
    c.drawPath(path, stroke=0, fill=1)


def _draw_aruco(c: Any, marker_id: int, x: float, y: float, cell: float) -> None:
    import cv2

    from vision.markers import ARUCO_DICTIONARY

    dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICTIONARY)
    bits = cv2.aruco.generateImageMarker(dictionary, marker_id, 6)  # one pixel per cell
    c.setFillColorRGB(0, 0, 0)
    for row in range(6):
        for col in range(6):
            if bits[row, col] < 128:
                left = x + (col + 1) * cell  # after the one-cell quiet zone
                bottom = y + (6 - row) * cell  # rows run downwards; PDF y runs upwards
                c.rect(left * MM, bottom * MM, cell * MM, cell * MM, stroke=0, fill=1)


def _draw_code128(c: Any, text: str, x: float, y: float, geo: Geometry) -> None:
    from reportlab.graphics.barcode.code128 import Code128

    barcode = Code128(
        text,
        barWidth=code128_module(text) * MM,
        barHeight=geo.code_side * MM,
        quiet=0,
        humanReadable=0,
    )
    left = x + (geo.width - barcode.width / MM) / 2
    barcode.drawOn(c, left * MM, (y + geo.height - 1.5 - geo.code_side) * MM)


def wrap(text: str, font: str, size: float, width_pt: float) -> list[str]:
    """Lines of ``text`` no wider than ``width_pt``: broken at spaces, then after ``–-_:/``
    inside a long word, then anywhere."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    def fits(s: str) -> bool:
        return bool(stringWidth(s, font, size) <= width_pt)

    pieces: list[str] = []
    for word in text.split():
        if fits(word):
            pieces.append(word)
            continue
        part = ""
        for ch in word:
            if part and not fits(part + ch):
                cut = max(part.rfind(b) for b in "–-_:/")
                if 0 < cut < len(part) - 1:
                    pieces.append(part[: cut + 1] + "\0")
                    part = part[cut + 1 :]
                else:
                    pieces.append(part + "\0")
                    part = ""
            part += ch
        pieces.append(part)
    lines: list[str] = []
    for marked in pieces:
        glue = marked.endswith("\0")
        piece = marked.removesuffix("\0")
        if lines and not lines[-1].endswith("\0") and fits(f"{lines[-1]} {piece}"):
            lines[-1] = f"{lines[-1]} {piece}"
        else:
            lines.append(piece)
        if glue:
            lines[-1] += "\0"
    return [line.removesuffix("\0") for line in lines]


def _draw_text(
    c: Any, lines: list[str], x: float, top: float, *, box: tuple[float, float], size: float
) -> None:
    """The name (bold) and the details under it, shrunk until they fit ``box`` (w, h mm)."""
    width, height = box
    while True:
        laid = [
            (i, part, size if i == 0 else size * 0.8)
            for i, line in enumerate(lines)
            for part in wrap(
                line,
                "Helvetica-Bold" if i == 0 else "Helvetica",
                size if i == 0 else size * 0.8,
                width * MM,
            )
        ]
        needed = sum(f * 1.15 for _, _, f in laid) / MM
        if needed <= height or size <= 4:
            break
        size -= 0.25
    y = top
    for i, part, font_size in laid:
        c.setFont("Helvetica-Bold" if i == 0 else "Helvetica", font_size)
        grey = 0.0 if i == 0 else 0.3
        c.setFillColorRGB(grey, grey, grey)
        y -= font_size * 1.15 / MM
        c.drawString(x * MM, y * MM, part)


def _sticker_lines(s: Sticker, kind: str) -> list[str]:
    lines = [s.name]
    if s.copies > 1:
        lines.append(f"{s.copy} of {s.copies}")
    if kind == "aruco":
        lines.append(s.code)
    return lines


def write_sheet(
    path: Path,
    *,
    game_name: str,
    kind: str,
    sheet: Sequence[Sticker],
    geo: Geometry,
    paper: str,
) -> int:
    """Write the PDF; returns the number of pages."""
    from reportlab.pdfgen.canvas import Canvas

    if paper not in PAPERS:
        raise ConfigError("--paper", f"{paper!r} is not one of {', '.join(PAPERS)}")
    cols, rows = geo.per_page(paper)
    per_page = cols * rows
    pages = math.ceil(len(sheet) / per_page)
    page_w, page_h = PAPERS[paper]
    game = find_game(game_name)
    canvas = Canvas(
        str(path), pagesize=(page_w * MM, page_h * MM), invariant=True, pageCompression=1
    )
    canvas.setTitle(f"Trackside {kind} labels: {game.title}")
    canvas.setAuthor("Trackside")
    canvas.setSubject(f"{len(sheet)} stickers")
    for page in range(pages):
        canvas.setFont("Helvetica", 7)
        canvas.setFillColorRGB(0.3, 0.3, 0.3)
        canvas.drawString(
            PAGE_MARGIN_MM * MM,
            (page_h - PAGE_MARGIN_MM - 4) * MM,
            f"Trackside {kind} labels — {game.title} — page {page + 1} of {pages} — "
            f"print at 100 % (no 'fit to page'); cut along the grey lines",
        )
        chunk = sheet[page * per_page : (page + 1) * per_page]
        for index, sticker in enumerate(chunk):
            x, from_top = slot(geo, paper, index)
            top = page_h - from_top
            y = top - geo.height
            canvas.setStrokeColorRGB(0.75, 0.75, 0.75)
            canvas.setLineWidth(0.3)
            canvas.rect(x * MM, y * MM, geo.width * MM, geo.height * MM, stroke=1, fill=0)
            lines = _sticker_lines(sticker, kind)
            if kind == "code128":
                _draw_code128(canvas, sticker.code, x, y, geo)
                text_top = y + geo.height - 1.5 - geo.code_side - 0.3
                box = (geo.width - 4, text_top - y - 0.5)
                _draw_text(canvas, lines, x + 2, text_top, box=box, size=5.5)
                continue
            if kind == "qr":
                _draw_qr(canvas, sticker.code, x, y, geo.code_side)
            else:
                assert sticker.marker_id is not None
                _draw_aruco(canvas, sticker.marker_id, x, y, geo.module)
            box = (TEXT_COLUMN_MM - 1.5, geo.height - 2)
            _draw_text(canvas, lines, x + geo.code_side + 0.5, top - 1, box=box, size=6)
        canvas.showPage()
    try:
        canvas.save()
    except OSError as exc:
        raise ConfigError("--output", f"{path}: {exc.strerror or exc}") from None
    return pages


# -- the command line ---------------------------------------------------------------------------
def cmd_labels(args: argparse.Namespace) -> int:
    only = tuple(k for k in (args.only or "").split(",") if k)
    sheet = stickers(args.game, args.kind, only)
    geo = geometry(args.kind, sheet, args.marker_mm)
    output = Path(args.output)
    if args.kind == "aruco":
        bindings = [
            b for b in aruco_bindings(args.game) if b.component in {s.component for s in sheet}
        ]
        if args.tags_file:
            text = json.dumps(tags_document(bindings), ensure_ascii=False, indent=1) + "\n"
            Path(args.tags_file).write_text(text, encoding="utf-8")
            print(f"{len(bindings)} marker bindings written to {args.tags_file}")
        if not args.no_enrol:
            from companion.service.enrolment import open_store

            store = open_store(args)
            try:
                added = import_tags(store, bindings)
            finally:
                store.close()
            print(
                f"{added} markers enrolled in {store.path}, {len(bindings) - added} already there"
            )
    pages = write_sheet(
        output, game_name=args.game, kind=args.kind, sheet=sheet, geo=geo, paper=args.paper
    )
    cols, rows = geo.per_page(args.paper)
    print(
        f"{len(sheet)} stickers ({geo.width:.0f} × {geo.height:.0f} mm, {cols * rows} a page) "
        f"on {pages} pages: {output}"
    )
    if not geo.fits_mini_card:
        print(
            f"warning: a {geo.width:.0f} × {geo.height:.0f} mm sticker does not fit on a mini "
            f"card's face ({MINI_CARD_MM[0]:g} × {MINI_CARD_MM[1]:g} mm)"
        )
    if args.kind == "code128" and geo.module < CODE128_THIN_MM:
        print(
            f"warning: the narrowest bar is {geo.module:.3f} mm; print at 600 dpi and use a "
            "scanner that resolves it, or use --kind qr"
        )
    return 0


def register(sub: Any) -> None:
    """Add ``trackside labels`` to the CLI's subcommands."""
    p = sub.add_parser("labels", help="a printable PDF of stickers for a game's components")
    p.add_argument("game", help="game id, e.g. ticket-to-ride-europe")
    p.add_argument("--kind", choices=LABEL_KINDS, default="qr")
    p.add_argument("--paper", choices=tuple(PAPERS), default="a4")
    p.add_argument("--output", required=True, help="the PDF to write")
    p.add_argument("--only", help="component kinds, comma-separated (e.g. destination-ticket)")
    p.add_argument(
        "--marker-mm",
        type=float,
        default=DEFAULT_MARKER_MM,
        help=f"ArUco marker side with its black border (default {DEFAULT_MARKER_MM:g})",
    )
    p.add_argument("--tags-file", help="aruco: also write the marker bindings as a tags file")
    p.add_argument("--no-enrol", action="store_true", help="aruco: do not enrol the markers")
    p.add_argument("--config", help="config file (to find the database)")
    p.add_argument("--db", help="the database file (instead of the config's)")
    p.set_defaults(func=cmd_labels)
