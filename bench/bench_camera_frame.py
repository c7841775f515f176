"""What one camera frame costs: its markers and its cards, one after the other or side by side.

    PYTHONPATH=. .venv/bin/python bench/bench_camera_frame.py [--repeat 3] [--json FILE]

The camera (vision/camera.py) reads a frame's markers on a thread of its own
(``vision.camera._MarkerThread``) while its own thread finds and reads the cards; before
2026-11-28 it did one after the other on one thread. On the camera frames of the real table
photos (bench/real_photos.json, as bench/bench_vision_real.py times them: each photo scaled to
cover 1280×720 and cropped; run bench/fetch_real_photos.py first), OpenCV on one thread per
task as in the camera, this times both ways on each frame in turn, the best of ``--repeat``
runs each, and reports the median and 95th percentile over the frames.
"""

from __future__ import annotations

import argparse
import time

import cv2
from bench_vision_real import (  # its sibling: run as a script
    finish,
    median_p95,
    table_photos,
    to_camera_frame,
)

from vision.camera import _MarkerThread
from vision.cards import read_train_cards
from vision.markers import MarkerDetector


def main() -> int:
    parser = argparse.ArgumentParser(description="a camera frame's markers and cards")
    parser.add_argument("--repeat", type=int, default=3, help="runs per frame (the best kept)")
    parser.add_argument("--json", help="write the results here too")
    args = parser.parse_args()
    cv2.setNumThreads(1)  # OpenCV on one thread per task, as the camera runs it
    photos, missing = table_photos()
    frames = [to_camera_frame(picture) for _, picture in photos]
    detector = MarkerDetector()
    beside = _MarkerThread()
    in_turn: list[float] = []
    side_by_side: list[float] = []
    try:
        for frame in frames:
            one = two = float("inf")
            for _ in range(args.repeat):
                start = time.perf_counter()
                detector.detect(frame)
                read_train_cards(frame)
                one = min(one, time.perf_counter() - start)
                start = time.perf_counter()
                reading = beside.read(frame)
                read_train_cards(frame)
                reading.result()
                two = min(two, time.perf_counter() - start)
            in_turn.append(one * 1000)
            side_by_side.append(two * 1000)
    finally:
        beside.close()
    result = {
        "frames": len(frames),
        "one_after_the_other_ms": median_p95(in_turn),
        "side_by_side_ms": median_p95(side_by_side),
    }
    print(f"{len(frames)} camera frames (1280×720), best of {args.repeat}: markers and cards")
    print(f"  one after the other (ms): {result['one_after_the_other_ms']}")
    print(f"  side by side (ms):        {result['side_by_side_ms']}")
    return finish(result, missing, args.json)


if __name__ == "__main__":
    raise SystemExit(main())
