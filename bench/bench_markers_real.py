"""ArUco markers on REAL photos: ids read right, missed, WRONG, time per frame, marker sizes.

The photos are listed with their sources and labels in bench/real_markers.json and are not in
the repository: run bench/fetch_real_photos.py first (it rebuilds bench/real_photos/).

    PYTHONPATH=. .venv/bin/python bench/bench_markers_real.py [--json FILE] [--overlays DIR]

Each photo is read three times: scaled to fit 1280×720 as bench/bench_vision_real.py does (what
the camera delivers; smaller photos are scaled up); at its own resolution, or at most 4032 px on
its longer side as ``trackside see`` reads a larger one ("full"); and as the camera's own frame
(scaled to cover 1280×720 and cropped in the middle, "camera crop"), where only wrong ids are
counted (the crop cuts some labelled markers off, so right and missed would say nothing). Until
2026-11-28 neither the crop nor the photos over 4032 px were scored: both had a wrong id (the
carton's glass read as 17 in the crop, a 3×3-bit marker as 10 at 4032 px). Per photo the labels name the ids our detector must report
(``expected_ids``: DICT_4X4-family markers with id < 100, wholly in the frame) and the board
markers cut by the frame edge (``edge_ids``: neither expected nor wrong if read). A read is
right if its id is expected, missed if an expected id is not read, WRONG if its id is neither
expected nor at the edge; on a photo of another dictionary (no expected id) every read is a
false read, and counted as WRONG too: a wrong component is worse than a missed one.

``--sheets N`` adds a synthetic stress test beside the photos: N sheets per dictionary and size
of markers of OTHER dictionaries (5×5, 6×6, 7×7, AprilTag 36h11, ARUCO_ORIGINAL; 20–52 px, a
slight perspective, blur σ 0.6 or 0.9), every id read being wrong; real photos of such sheets
are few, and at these sizes a 6-cell grid laid on an 8-cell marker reads a valid code now and
then.

Time per frame, on the camera's frame of each photo (scaled to cover 1280×720 and cropped in
the middle, as bench/bench_vision_real.py times), OpenCV on one thread as in the camera: each
photo is timed ``--repeat`` times and its median kept (the machine is shared: one busy moment
should not count as the frame's time); the figures are the median and 95th percentile of those
over the photos. Until 2026-11-26 this bench timed the photo scaled to fit (960×720 for most of
these 4:3 photos) and left OpenCV its default threads (two here): about half the camera's time.

The anchor ("stock") is OpenCV's ArucoDetector with the same dictionary and default parameters
(bit correction on, no quiet-zone or cell checks), scored the same way.
"""

from __future__ import annotations

import argparse
import collections
import json
import statistics
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt
from bench_vision_real import (  # its sibling: run as a script
    finish,
    pct,
    to_camera_frame,
    to_frame,
)

from vision.markers import ARUCO_DICTIONARY, Marker, MarkerDetector
from vision.see import bounded, still_markers

HERE = Path(__file__).resolve().parent
Image = npt.NDArray[np.uint8]


def score(
    found: list[Marker], expected: set[int], edge: set[int]
) -> tuple[collections.Counter[str], list[Marker]]:
    """Counts for one read of one photo, and the markers read wrong."""
    ids = [m.marker_id for m in found]
    wrong = [m for m in found if m.marker_id not in expected and m.marker_id not in edge]
    counts = collections.Counter[str]()
    counts["photos"] += 1
    counts["expected"] += len(expected)
    counts["right"] += len(expected & set(ids))
    counts["missed"] += len(expected - set(ids))
    counts["wrong"] += len(wrong)
    # Reads on a photo of another dictionary (or of no marker at all), kept apart.
    counts["false_reads"] += 0 if expected else len(wrong)
    counts["edge_read"] += len(edge & set(ids))
    return counts, wrong


def stock_detector() -> Any:
    """The anchor: OpenCV's detector, our dictionary, default parameters."""
    dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICTIONARY)
    return cv2.aruco.ArucoDetector(dictionary, cv2.aruco.DetectorParameters())


def stock_detect(stock: Any, image: Image) -> list[Marker]:
    corners, ids, _ = stock.detectMarkers(image)
    if ids is None:
        return []
    return [
        Marker(int(i), tuple((float(x), float(y)) for x, y in c.reshape(-1, 2)))
        for c, i in zip(corners, ids.reshape(-1), strict=True)
    ]


def draw(frame: Image, found: list[Marker], expected: set[int], path: Path) -> None:
    out = frame.copy()
    for m in found:
        colour = (0, 200, 0) if m.marker_id in expected else (0, 0, 255)
        quad = np.asarray(m.corners, np.int32)
        cv2.polylines(out, [quad], True, colour, 2)
        cv2.putText(out, str(m.marker_id), tuple(quad[0]), cv2.FONT_HERSHEY_SIMPLEX, 0.6, colour, 2)
    path.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), out)


OTHER_DICTIONARIES = (
    "DICT_5X5_1000",
    "DICT_6X6_250",
    "DICT_7X7_1000",
    "DICT_APRILTAG_36h11",
    "DICT_ARUCO_ORIGINAL",
)
SHEET_SIDES_PX = (20, 26, 32, 41, 52)


def other_dictionary_sheet(name: str, side: int, seed: int) -> tuple[Image, int]:
    """A printed page of another dictionary's markers on a desk, seen a little from the side:
    the frame and how many markers it shows."""
    rng = np.random.default_rng(seed)
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))
    count = len(dictionary.bytesList)
    page = np.full((480, 640), 215, np.uint8)
    step = side + side // 4
    shown = 0
    for y in range(24, 480 - side - 24, step):
        for x in range(24, 640 - side - 24, step):
            marker = cv2.aruco.generateImageMarker(dictionary, int(rng.integers(0, count)), side)
            page[y : y + side, x : x + side] = np.where(marker > 127, 215, 40)
            shown += 1
    src = np.asarray([[0, 0], [640, 0], [640, 480], [0, 480]], np.float32)
    dst = src + rng.uniform(-30, 30, (4, 2)).astype(np.float32)
    warp = cv2.getPerspectiveTransform(src, dst)
    seen = cv2.warpPerspective(page, warp, (640, 480), flags=cv2.INTER_LINEAR, borderValue=(120,))
    blurred = cv2.GaussianBlur(seen, (0, 0), (0.6, 0.9)[seed % 2])
    return np.asarray(cv2.cvtColor(blurred, cv2.COLOR_GRAY2BGR), np.uint8), shown


def other_dictionary_reads(detector: MarkerDetector, sheets: int) -> dict[str, Any]:
    """Ids read on the synthetic sheets (all wrong), per dictionary and per marker size."""
    by_dictionary: dict[str, list[int]] = {}
    by_side = collections.Counter[int]()
    shown_by_side = collections.Counter[int]()
    for name in OTHER_DICTIONARIES:
        read = shown = 0
        for side in SHEET_SIDES_PX:
            for seed in range(sheets):
                frame, n = other_dictionary_sheet(name, side, seed)
                wrong = len(detector.detect(frame))
                read += wrong
                shown += n
                by_side[side] += wrong
                shown_by_side[side] += n
        by_dictionary[name] = [read, shown]
    return {
        "wrong_ids_of_markers_shown": by_dictionary,
        "wrong_per_1000_by_side_px": {
            s: round(1000 * by_side[s] / shown_by_side[s], 1) for s in SHEET_SIDES_PX
        },
    }


def main() -> int:
    parser = argparse.ArgumentParser(description="ArUco markers on real photos")
    parser.add_argument("--json", help="write the results here too")
    parser.add_argument(
        "--overlays", help="draw the reads into this folder (green right, red wrong)"
    )
    parser.add_argument("--repeat", type=int, default=7, help="timing repeats per photo")
    parser.add_argument(
        "--sheets", type=int, default=0, help="synthetic other-dictionary sheets per size"
    )
    args = parser.parse_args()
    cv2.setNumThreads(1)  # OpenCV on one thread per task, as the camera runs it (vision/camera.py)
    photos = json.loads((HERE / "real_markers.json").read_text())["photos"]
    folder = HERE / "real_photos"
    detector = MarkerDetector()
    stock = stock_detector()
    totals: dict[str, collections.Counter[str]] = {
        name: collections.Counter()
        for name in ("1280x720", "full", "camera crop", "stock 1280x720", "stock full")
    }
    by_source: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    wrong_lines: list[str] = []
    per_photo: list[dict[str, Any]] = []
    frame_ms: list[float] = []
    sides: dict[str, list[float]] = {"1280x720": [], "full": []}
    missing = 0
    for photo in photos:
        loaded = cv2.imread(str(folder / photo["file"]), cv2.IMREAD_COLOR)
        if loaded is None:
            missing += 1
            continue
        image: Image = np.asarray(loaded, np.uint8)
        expected, edge = set(photo["expected_ids"]), set(photo.get("edge_ids", []))
        frame = to_frame(image)
        camera = to_camera_frame(image)
        runs: list[float] = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            detector.detect(camera)
            runs.append((time.perf_counter() - t0) * 1000)
        frame_ms.append(statistics.median(runs))
        full, _scale = bounded(image)  # as `trackside see` reads it, in parts when large
        seen_as = {"1280x720": frame, "full": full}
        reads = {"1280x720": detector.detect(frame), "full": still_markers(full, detector)}
        for name, seen in seen_as.items():
            totals[f"stock {name}"].update(score(stock_detect(stock, seen), expected, edge)[0])
        cropped, wrong_in_crop = score(detector.detect(camera), expected, edge)
        totals["camera crop"].update({k: cropped[k] for k in ("photos", "wrong", "false_reads")})
        for m in wrong_in_crop:
            wrong_lines.append(
                f"{photo['file']} @ camera crop: read {m.marker_id} ({m.side_px:.0f} px); "
                f"{photo['dictionary']}"
            )
        row: dict[str, Any] = {"file": photo["file"], "dictionary": photo["dictionary"]}
        for name, markers in reads.items():
            counts, wrong = score(markers, expected, edge)
            totals[name].update(counts)
            if name == "1280x720":
                by_source[photo["repo"]].update(counts)
            sides[name].extend(m.side_px for m in markers if m.marker_id in expected)
            row[name] = {k: counts[k] for k in ("expected", "right", "missed", "wrong")}
            if wrong:
                row[name]["wrong_ids"] = [m.marker_id for m in wrong]
                what = ", ".join(f"{m.marker_id} ({m.side_px:.0f} px)" for m in wrong)
                wrong_lines.append(f"{photo['file']} @ {name}: read {what}; {photo['dictionary']}")
        per_photo.append(row)
        if args.overlays:
            draw(
                frame,
                reads["1280x720"],
                expected,
                Path(args.overlays) / (Path(photo["file"]).stem + ".png"),
            )

    def size_summary(values: list[float]) -> dict[str, float]:
        if not values:
            return {}
        return {
            "min": round(min(values), 1),
            "median": round(statistics.median(values), 1),
            "max": round(max(values), 1),
        }

    result: dict[str, Any] = {
        "opencv": cv2.__version__,
        "totals": {k: dict(v) for k, v in totals.items()},
        "by_source_1280x720": {k: dict(v) for k, v in sorted(by_source.items())},
        "wrong": wrong_lines,
        "time_per_frame_ms_1280x720": {
            "median": round(statistics.median(frame_ms), 2) if frame_ms else 0.0,
            "p95": pct(frame_ms, 0.95),
            "max": round(max(frame_ms), 2) if frame_ms else 0.0,
        },
        "marker_side_px_read_right": {k: size_summary(v) for k, v in sides.items()},
        "photos": per_photo,
        "missing_photos": missing,
    }
    print(
        f"{'read at':14} {'photos':>6} {'markers':>7} {'right':>6} {'missed':>6} {'WRONG':>6}"
        f" {'false reads':>11}"
    )
    for name, c in totals.items():
        print(
            f"{name:14} {c['photos']:6} {c['expected']:7} {c['right']:6} {c['missed']:6}"
            f" {c['wrong']:6} {c['false_reads']:11}"
        )
    for repo, c in sorted(by_source.items()):
        print(f"  {repo:58} right {c['right']:3}/{c['expected']:3}  wrong {c['wrong']}")
    for line in wrong_lines:
        print("  WRONG:", line)
    print("time per frame at 1280x720 (ms):", result["time_per_frame_ms_1280x720"])
    print("side of the markers read right (px):", result["marker_side_px_read_right"])
    if args.sheets:
        result["other_dictionary_sheets"] = other_dictionary_reads(detector, args.sheets)
        sheets = result["other_dictionary_sheets"]
        print("synthetic sheets of other dictionaries, wrong ids / markers shown:")
        for name, (read, shown) in sheets["wrong_ids_of_markers_shown"].items():
            print(f"  {name:22} {read:5} / {shown}")
        print("  wrong per 1000 markers by side (px):", sheets["wrong_per_1000_by_side_px"])
    return finish(result, missing, args.json)


if __name__ == "__main__":
    raise SystemExit(main())
