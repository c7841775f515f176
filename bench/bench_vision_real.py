"""Vision on REAL photos: cards found / false per surface, colour accuracy, time per frame.

The photos are listed with their sources and hand labels in bench/real_photos.json and are not
in the repository: run bench/fetch_real_photos.py first (it rebuilds bench/real_photos/).

    PYTHONPATH=. .venv/bin/python bench/bench_vision_real.py [--json FILE] [--overlays DIR]

Every photo is first scaled to fit 1280×720 (what the camera delivers; smaller ones are scaled
up) and scored so. Time per frame is taken on the camera's own frame of that table: the photo
scaled to cover 1280×720 and cropped in the middle (a frame of another shape costs differently:
OpenCV's area resize is fast only at a whole ratio); the photos as scored are timed too. Each is
timed ``--repeat`` times and its median kept (this machine is shared: one busy moment should
not count as the frame's time); the figures are the median and 95th percentile of those over
the photos, OpenCV on one thread as in the camera; cards are timed found and read, and found
only. The 29 marker photos (bench/real_markers.json) hold no train card: every card found
there is false (those carrying one of our markers are components and counted apart). Scoring
is by place, on whole cards: each photo's labels box every whole card (``boxes``, fractions of
the photo's width and height, boxed by eye); a detection touching the frame's edge is ignored
(a cut card); a detection is found when it overlaps a labelled card's box by LEAST_IOU or more
(each card once), false otherwise (a shape printed on a card, a piece of table, two cards in
one outline). Until 2026-11-27 scoring was by count (found = min(detections, labelled)),
which took a shape printed on a missed card for a card found. Photos are reported all
together and by batch: those the finder and colour reader were tuned on, and each batch
labelled later and never tuned on (``batch`` in the labels), a check of the same figures on
photos they have not seen. Colour (photos with colour labels) compares the multiset of
colours read on the detections that are labelled cards with the labelled one: right =
matching reads, unsure = "unsure" reads, wrong = confident reads not matched; where the
labels give each card's colour (``box_colours``, in the order of its ``boxes``), card by card
instead: by counts, a card read as the colour of another whose own read is unsure passes for
right (found on 2026-11-28 by checking by eye every sure read on the photos whose colours are
not all read right). A "card-fills-frame" photo (a phone close-up of one card) is read as one card whose corners are
the photo's corners: colour only. The anchor is a threshold-and-contour card finder in the
manner of the EdjeElectronics playing-card detector, given the same relative size limits.
"""

from __future__ import annotations

import argparse
import collections
import itertools
import json
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.cards import (
    MAX_AREA_FRACTION,
    MIN_AREA_FRACTION,
    TrainCard,
    carries_marker,
    classify_card,
    find_card_quads,
    read_train_cards,
)
from vision.markers import MarkerDetector
from vision.palette import DEFAULT_PALETTE, UNSURE, Palette

HERE = Path(__file__).resolve().parent
FRAME_W, FRAME_H = 1280, 720
Image = npt.NDArray[np.uint8]


def to_frame(image: Image) -> Image:
    h, w = image.shape[:2]
    scale = min(FRAME_W / w, FRAME_H / h)
    if scale == 1.0:
        return image
    size = (round(w * scale), round(h * scale))
    return np.asarray(cv2.resize(image, size, interpolation=cv2.INTER_AREA), np.uint8)


def to_camera_frame(image: Image) -> Image:
    """The photo as the camera would deliver that table: scaled to cover exactly 1280×720 and
    cropped in the middle. Timing only (cards cut at the crop are not scored): the photos come
    in every shape, and a frame of another size than the camera's costs differently (OpenCV's
    area resize is fast only at a whole ratio, as 1280×720 → 640×360 is)."""
    h, w = image.shape[:2]
    scale = max(FRAME_W / w, FRAME_H / h)
    size = (max(FRAME_W, round(w * scale)), max(FRAME_H, round(h * scale)))
    interpolation = cv2.INTER_AREA if scale < 1.0 else cv2.INTER_LINEAR
    big = np.asarray(cv2.resize(image, size, interpolation=interpolation), np.uint8)
    y0, x0 = (size[1] - FRAME_H) // 2, (size[0] - FRAME_W) // 2
    return np.ascontiguousarray(big[y0 : y0 + FRAME_H, x0 : x0 + FRAME_W])


def anchor_quads(frame: Image) -> list[npt.NDArray[np.float32]]:
    """Threshold against the background level sampled near the top centre, outer contours with
    four corners within the area limits (the EdjeElectronics detector's approach)."""
    grey = cv2.GaussianBlur(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), (5, 5), 0)
    h, w = grey.shape
    level = int(grey[h // 100, w // 2])
    _, thresh = cv2.threshold(grey, min(level + 60, 254), 255, cv2.THRESH_BINARY)
    contours, hierarchy = cv2.findContours(thresh, cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE)
    out = []
    if hierarchy is None:
        return out
    for i, contour in enumerate(contours):
        area = cv2.contourArea(contour)
        if not MIN_AREA_FRACTION * h * w <= area <= MAX_AREA_FRACTION * h * w:
            continue
        if hierarchy[0][i][3] != -1:
            continue
        approx = cv2.approxPolyDP(contour, 0.01 * cv2.arcLength(contour, True), True)
        if len(approx) == 4:
            out.append(approx.reshape(4, 2).astype(np.float32))
    return out


def touches_edge(quad: npt.NDArray[np.float32], shape: tuple[int, ...]) -> bool:
    h, w = shape[:2]
    return bool(
        quad[:, 0].min() <= 2
        or quad[:, 1].min() <= 2
        or quad[:, 0].max() >= w - 3
        or quad[:, 1].max() >= h - 3
    )


# A card found is a labelled card's when their boxes overlap by this intersection over union
# or more (PASCAL VOC's rule): a shape printed on a card (a Set oval: a fifth of the card) is
# not the card, a loose outline taking in a wedge of table still is.
LEAST_IOU = 0.5


def labelled_boxes(photo: dict[str, Any], shape: tuple[int, ...]) -> list[tuple[float, ...]]:
    """The photo's labelled whole cards, as boxes (x0, y0, x1, y1) in the scored frame's
    pixels (the labels keep them as fractions of the photo's width and height)."""
    h, w = shape[:2]
    boxes = photo["boxes"]
    if len(boxes) != photo["cards"]:
        raise SystemExit(f"{photo['file']}: {photo['cards']} cards labelled, {len(boxes)} boxes")
    return [(x0 * w, y0 * h, x1 * w, y1 * h) for x0, y0, x1, y1 in boxes]


def box_colours(photo: dict[str, Any]) -> list[str | None] | None:
    """Each labelled card's colour, in the order of its ``boxes``, where the labels give them
    (``box_colours``; None for a card without a colour to read, as UNO's black wild cards), or
    None: the photo is scored by its colour counts alone."""
    colours = photo.get("box_colours")
    if colours is None:
        return None
    counted = collections.Counter(c for c in colours if c is not None)
    if len(colours) != len(photo["boxes"]) or counted != collections.Counter(photo["colours"]):
        raise SystemExit(f"{photo['file']}: box_colours do not match its boxes and colours")
    return list(colours)


def iou(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    across = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    down = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    both = across * down
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - both
    return both / union if union > 0 else 0.0


def matches(boxes: list[tuple[float, ...]], quads: list[npt.NDArray[np.float32]]) -> dict[int, int]:
    """The indices of ``quads`` that are a labelled card each, with that card's index in
    ``boxes``: greedily by overlap, best first, each card and each quad matched once, at
    ``LEAST_IOU`` or more."""
    outlines = [(*q.min(axis=0).tolist(), *q.max(axis=0).tolist()) for q in quads]
    pairs = sorted(
        (
            (iou(box, outline), i, j)
            for i, box in enumerate(boxes)
            for j, outline in enumerate(outlines)
        ),
        reverse=True,
    )
    cards: set[int] = set()
    found: dict[int, int] = {}
    for overlap, i, j in pairs:
        if overlap < LEAST_IOU:
            break
        if i not in cards and j not in found:
            cards.add(i)
            found[j] = i
    return found


def finish(result: dict[str, Any], missing: int, json_path: str | None) -> int:
    """The end of a real-photo bench: say what photos are missing, write the JSON if asked."""
    if missing:
        print(f"{missing} photos missing: run bench/fetch_real_photos.py", file=sys.stderr)
    if json_path:
        Path(json_path).write_text(json.dumps(result, indent=1))
    return 0


TIMED = ("cards", "cards_find_only", "markers", "anchor_cards")
Times = tuple[list[float], list[float], list[float], list[float]]


def median_p95(times: list[float]) -> dict[str, float]:
    """The median and 95th percentile of times, as every real-photo bench reports them."""
    return {"median": round(statistics.median(times), 2), "p95": pct(times, 0.95)}


def timing(lists: Times) -> dict[str, dict[str, float]]:
    return {name: median_p95(times) for name, times in zip(TIMED, lists, strict=True)}


def table_photos() -> tuple[list[tuple[dict[str, Any], Image]], int]:
    """The table photos that are looked for cards (not the one-card close-ups, read for colour
    only), each with its picture, and how many listed photos are missing."""
    photos = json.loads((HERE / "real_photos.json").read_text())["photos"]
    found, missing = [], 0
    for photo in photos:
        if photo["mode"] == "card-fills-frame":
            continue
        image = cv2.imread(str(HERE / "real_photos" / photo["file"]), cv2.IMREAD_COLOR)
        if image is None:
            missing += 1
        else:
            found.append((photo, np.asarray(image, np.uint8)))
    return found, missing


def false_cards_without_cards(
    folder: Path, detector: MarkerDetector, palette: Palette = DEFAULT_PALETTE
) -> dict[str, int]:
    """On the marker photos (bench/real_markers.json: boards and sheets of markers, no train
    card in any), every card found is false. As the camera reads a frame: cards that carry one
    of our markers are components (tickets), not train cards, and are counted apart."""
    photos = json.loads((HERE / "real_markers.json").read_text())["photos"]
    counts = collections.Counter[str]()
    for photo in photos:
        image = cv2.imread(str(folder / photo["file"]), cv2.IMREAD_COLOR)
        if image is None:
            continue
        frame = to_frame(np.asarray(image, np.uint8))
        centres = [m.centre for m in detector.detect(frame)]
        cards = read_train_cards(frame, palette)
        marked = sum(1 for c in cards if carries_marker(c.corners, centres))
        counts["photos"] += 1
        counts["false"] += len(cards) - marked
        counts["marked"] += marked
    return {k: counts[k] for k in ("photos", "false", "marked")}


# The colours of each source's deck (its printing): Set has red, green and purple; UNO red,
# yellow, green and blue (its black wild cards are not labelled). The colour reader is scored
# with the Ticket to Ride palette (all eight colours and the locomotive: Set's violet lies
# between its purple and its blue) and with the palette for the deck's own colours.
DECK_COLOURS: dict[str, tuple[str, ...]] = {
    "set": ("red", "green", "purple"),
    "uno": ("red", "yellow", "green", "blue"),
}
# The printing of each source's cards: a white margin, or the black border of old Magic cards
# (vision.palette.Palette.margin: the finder looks for black-bordered cards on a light table).
BLACK_BORDERED: frozenset[str] = frozenset({"mtgd", "hj3"})
DECK_OF_SOURCE: dict[str, str] = {
    **dict.fromkeys(("jxuno", "hmuno", "tha", "rxl", "megm"), "uno"),
    **dict.fromkeys(
        (
            "pfsh",
            "avi",
            "nhs",
            "pcl",
            "errcw",
            "gone",
            "rab",
            "vim",
            "ole",
            "jtj",
            "maor",
            "vid",
            "dms",
            "rub",
            "rtp",
            "amit",
            "nak",
            "der",
            "gab",
            "kof",
            "tom",
            "gra",
            "olin",
            "ivk",
            "ryd",
        ),
        "set",
    ),
}


def score_colours(
    reads: list[TrainCard],
    labels: collections.Counter[str],
    colours: list[str | None] | None = None,
) -> tuple[int, int, int, collections.Counter[str]]:
    """Right, unsure and confidently wrong reads of a photo's cards against its colour counts,
    or card by card where the photo's labels give each card's colour (``colours``: the colour
    of each read's card). By counts a confident read of one card's colour on another, whose own
    is unsure or not found, passes for right (a red Set card read purple beside a purple card
    read unsure, gab-set1_s.png); card by card it is wrong."""
    got = collections.Counter(c.colour for c in reads if c.colour != UNSURE)
    unsure = sum(1 for c in reads if c.colour == UNSURE)
    if colours is None:
        right = sum(min(got[k], labels[k]) for k in labels)
    else:
        right = sum(1 for c, k in zip(reads, colours, strict=True) if c.colour == k)
    return right, unsure, sum(got.values()) - right, got


def not_right(
    reads: list[TrainCard],
    labels: collections.Counter[str],
    got: collections.Counter[str],
    colours: list[str | None] | None = None,
) -> tuple[collections.Counter[str], collections.Counter[str], int]:
    """Where a photo's colours not read right go (``got``: the sure reads, from
    :func:`score_colours`): per labelled colour, the cards of it not read right (unsure, read as
    another colour, or not found); the unsure reads' best guesses; and how many of those guesses
    were right (card by card where ``colours`` gives each read's card's colour, else by
    counts: how many are among the colours not read right). Unsure cards whose guess was right
    would call for a bolder threshold; guesses that were wrong say the features, not the
    threshold, fall short."""
    guesses = collections.Counter(c.guess for c in reads if c.colour == UNSURE)
    if colours is None:
        missed = collections.Counter({k: labels[k] - min(got[k], labels[k]) for k in labels})
        return +missed, guesses, sum(min(n, missed[k]) for k, n in guesses.items())
    right = collections.Counter(k for c, k in zip(reads, colours, strict=True) if c.colour == k)
    guessed = sum(
        1 for c, k in zip(reads, colours, strict=True) if c.colour == UNSURE and c.guess == k
    )
    return labels - right, guesses, guessed


def add_colours(counter: collections.Counter[str], cards: int, *counts: int) -> None:
    counter["cards"] += cards
    for key, value in zip(("right", "unsure", "wrong"), counts, strict=True):
        counter[key] += value


TUNED_ON = "tuned on"  # the batch of a photo without one: labelled before the tuning


def surface_rows(per_surface: dict[str, collections.Counter[str]]) -> dict[str, dict[str, int]]:
    """Each surface's counts, sorted by name, and "all" of them."""
    total = collections.Counter[str]()
    for counts in per_surface.values():
        total.update(counts)
    return {**{k: dict(v) for k, v in sorted(per_surface.items())}, "all": dict(total)}


def print_surfaces(title: str, rows: dict[str, dict[str, int]]) -> None:
    print(
        f"{title:28} {'photos':>6} {'cards':>6} {'found':>7} {'false':>6} {'anchor':>7} {'a.false':>7}"
    )
    for name, r in rows.items():
        n = max(r.get("cards", 0), 1)
        print(
            f"  {name:26} {r.get('photos', 0):6} {r.get('cards', 0):6} "
            f"{100 * r.get('found', 0) / n:6.0f}% {r.get('false', 0):6} "
            f"{100 * r.get('anchor_found', 0) / n:6.0f}% {r.get('anchor_false', 0):7}"
        )


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[int(q * (len(ordered) - 1))], 2) if ordered else 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description="vision on real photos")
    parser.add_argument("--json", help="write the results here too")
    parser.add_argument("--overlays", help="draw detections into this folder")
    parser.add_argument("--repeat", type=int, default=7, help="timing repeats per photo")
    parser.add_argument(
        "--misses", action="store_true", help="name each photo with cards missed or false"
    )
    args = parser.parse_args()
    cv2.setNumThreads(1)  # OpenCV on one thread per task, as the camera runs it (vision/camera.py)
    photos = json.loads((HERE / "real_photos.json").read_text())["photos"]
    folder = HERE / "real_photos"
    detector = MarkerDetector()
    per_surface: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    colour = collections.Counter[str]()
    colour_by_source: dict[str, collections.Counter[str]] = collections.defaultdict(
        collections.Counter
    )
    # The photos the finder and colour reader were tuned on, and each batch added later
    per_batch: dict[str, dict[str, collections.Counter[str]]] = collections.defaultdict(
        lambda: collections.defaultdict(collections.Counter)
    )
    colour_by_batch: dict[str, collections.Counter[str]] = collections.defaultdict(
        collections.Counter
    )
    wrong_examples: list[str] = []
    deck_colour_by_batch: dict[str, collections.Counter[str]] = collections.defaultdict(
        collections.Counter
    )
    deck_wrong: list[str] = []
    missed_by_label = collections.Counter[str]()  # labelled colours not read right
    unsure_guesses = collections.Counter[str]()  # the best guesses of the cards read unsure
    # Card by card (photos giving each card's colour): "colour → best guess" of the unsure reads
    unsure_by_colour = collections.Counter[str]()
    camera_lists: Times = ([], [], [], [])
    scaled_lists: Times = ([], [], [], [])
    missing = 0
    for photo in photos:
        path = folder / photo["file"]
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            missing += 1
            continue
        frame = to_frame(np.asarray(image, np.uint8))
        if photo["mode"] == "card-fills-frame":
            h, w = frame.shape[:2]
            quad = np.asarray([(0, 0), (w - 1, 0), (w - 1, h - 1), (0, h - 1)], np.float32)
            reads = [classify_card(frame, quad, DEFAULT_PALETTE)]
            read_colours: list[str | None] | None = None
        else:
            camera = to_camera_frame(np.asarray(image, np.uint8))
            margin = "black" if photo["file"].split("-")[0] in BLACK_BORDERED else "white"
            printing = replace(DEFAULT_PALETTE, margin=margin)
            for timed, lists in ((camera, camera_lists), (frame, scaled_lists)):
                runs: list[tuple[float, ...]] = []
                for _ in range(args.repeat):
                    t0 = time.perf_counter()
                    cards = read_train_cards(timed, printing)
                    t1 = time.perf_counter()
                    find_card_quads(timed, 1.0, printing.black_bordered)
                    t2 = time.perf_counter()
                    detector.detect(timed)
                    t3 = time.perf_counter()
                    anchors = anchor_quads(timed)
                    t4 = time.perf_counter()
                    ends = (t0, t1, t2, t3, t4)
                    runs.append(tuple((b - a) * 1000 for a, b in itertools.pairwise(ends)))
                for k, times in enumerate(lists):
                    times.append(statistics.median(r[k] for r in runs))
            whole = [
                c for c in cards if not touches_edge(np.asarray(c.corners, np.float32), frame.shape)
            ]
            whole_anchor = [q for q in anchors if not touches_edge(q, frame.shape)]
            boxes = labelled_boxes(photo, frame.shape)
            matched = matches(boxes, [np.asarray(c.corners, np.float32) for c in whole])
            anchor_matched = matches(boxes, whole_anchor)
            batch = photo.get("batch", TUNED_ON)
            if args.misses and (len(matched) < photo["cards"] or len(whole) > len(matched)):
                print(
                    f"{photo['file']} ({photo['surface']}): {len(matched)} of "
                    f"{photo['cards']} found, {len(whole) - len(matched)} false"
                )
            for counts in (per_surface[photo["surface"]], per_batch[batch][photo["surface"]]):
                counts["photos"] += 1
                counts["cards"] += photo["cards"]
                counts["found"] += len(matched)
                counts["false"] += len(whole) - len(matched)
                counts["anchor_found"] += len(anchor_matched)
                counts["anchor_false"] += len(whole_anchor) - len(anchor_matched)
            # Only outlines of a labelled card are read for colour: a shape printed on a card,
            # taken for one, has the card's colour and would pass for a card read right.
            reads = [whole[i] for i in sorted(matched)]
            card_colours = box_colours(photo)
            read_colours = (
                None
                if card_colours is None
                else [card_colours[matched[i]] for i in sorted(matched)]
            )
            if args.overlays:
                out = frame.copy()
                for q in anchors:
                    cv2.polylines(out, [q.astype(np.int32)], True, (255, 0, 0), 1)
                for c in cards:
                    cv2.polylines(out, [np.asarray(c.corners, np.int32)], True, (0, 0, 255), 2)
                    x, y = int(c.corners[0][0]), int(c.corners[0][1])
                    cv2.putText(
                        out,
                        c.colour[:3],
                        (x, y + 14),
                        cv2.FONT_HERSHEY_SIMPLEX,
                        0.5,
                        (0, 0, 255),
                        1,
                    )
                Path(args.overlays).mkdir(parents=True, exist_ok=True)
                cv2.imwrite(str(Path(args.overlays) / (Path(photo["file"]).stem + ".png")), out)
        labels = collections.Counter(photo.get("colours", {}))
        if not labels:
            continue
        source = photo["file"].split("-")[0]
        batch = photo.get("batch", TUNED_ON)
        right, unsure, wrong, got = score_colours(reads, labels, read_colours)
        for counter in (colour, colour_by_source[source], colour_by_batch[batch]):
            add_colours(counter, sum(labels.values()), right, unsure, wrong)
        missed, guesses, guessed_right = not_right(reads, labels, got, read_colours)
        missed_by_label.update(missed)
        unsure_guesses.update(guesses)
        colour["unsure_guess_right"] += guessed_right
        if read_colours is not None:
            unsure_by_colour.update(
                f"{k} → {c.guess}"
                for c, k in zip(reads, read_colours, strict=True)
                if c.colour == UNSURE
            )
        if wrong:
            wrong_examples.append(f"{photo['file']}: read {dict(got)} labelled {dict(labels)}")
        # The same cards read with the palette of the deck's own colours (its printing)
        deck = DEFAULT_PALETTE.for_deck(DECK_COLOURS[DECK_OF_SOURCE[source]])
        again = [classify_card(frame, np.asarray(c.corners, np.float32), deck) for c in reads]
        right, unsure, wrong, got = score_colours(again, labels, read_colours)
        add_colours(deck_colour_by_batch[batch], sum(labels.values()), right, unsure, wrong)
        if wrong:
            deck_wrong.append(f"{photo['file']}: read {dict(got)} labelled {dict(labels)}")
    without_cards = false_cards_without_cards(folder, detector)
    black = false_cards_without_cards(folder, detector, replace(DEFAULT_PALETTE, margin="black"))
    rows = surface_rows(per_surface)
    batches = {name: surface_rows(surfaces) for name, surfaces in sorted(per_batch.items())}
    result: dict[str, Any] = {
        "surfaces": rows,
        "batches": batches,
        "colour_by_batch": {k: dict(v) for k, v in sorted(colour_by_batch.items())},
        "colour": dict(colour),
        "colour_by_source": {k: dict(v) for k, v in colour_by_source.items()},
        "colour_wrong": wrong_examples,
        "colour_not_right_by_label": dict(missed_by_label.most_common()),
        "colour_unsure_guesses": dict(unsure_guesses.most_common()),
        "colour_unsure_by_colour": dict(unsure_by_colour.most_common()),
        "deck_colour_by_batch": {k: dict(v) for k, v in sorted(deck_colour_by_batch.items())},
        "deck_colour_wrong": deck_wrong,
        # 1280×720 camera frames of each table photo (cover and crop), and the photos as
        # scored (scaled to fit 1280×720, so of every shape)
        "time_per_frame_ms": timing(camera_lists),
        "time_per_photo_as_scored_ms": timing(scaled_lists),
        "missing_photos": missing,
        "photos_without_cards": without_cards,
        "photos_without_cards_black_bordered": black,
    }
    print_surfaces("all photos", rows)
    for name, batch_rows in batches.items():
        print_surfaces(name, batch_rows)
        for title, by_batch in (
            ("", colour_by_batch),
            (", the deck's colours", deck_colour_by_batch),
        ):
            tally = by_batch[name]
            print(
                f"  colour ({name}{title}): {tally['right']}/{tally['cards']} right, "
                f"{tally['unsure']} unsure, {tally['wrong']} confidently wrong"
            )
    print(
        f"colour: {colour['right']}/{colour['cards']} right, {colour['unsure']} unsure, "
        f"{colour['wrong']} confidently wrong"
        f"  by source: { {k: dict(v) for k, v in colour_by_source.items()} }"
    )
    print(
        f"  not read right, by the colour labelled: {dict(missed_by_label.most_common())}; "
        f"the unsure cards' best guesses right for {colour['unsure_guess_right']} of "
        f"{colour['unsure']} ({dict(unsure_guesses.most_common())})"
    )
    print(f"  unsure, card by card (colour → best guess): {dict(unsure_by_colour.most_common())}")
    for line in wrong_examples[:20]:
        print("  wrong:", line)
    for line in deck_wrong[:20]:
        print("  wrong with the deck's colours:", line)
    print(
        f"photos without cards (the marker photos): {without_cards['photos']}, false cards "
        f"{without_cards['false']} ({without_cards['marked']} more on cards that carry one of our "
        "markers, dropped as components); looking for black-bordered cards too: "
        f"{black['false']} false"
    )
    print("time per 1280×720 camera frame (ms):", result["time_per_frame_ms"])
    print("time per photo as scored (ms):", result["time_per_photo_as_scored_ms"])
    return finish(result, missing, args.json)


if __name__ == "__main__":
    raise SystemExit(main())
