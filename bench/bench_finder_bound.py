"""What bounds the card finder's time: OpenCV's own work against the Python and numpy around it.

    PYTHONPATH=. .venv/bin/python bench/bench_finder_bound.py [--repeat 3] [--json FILE]

On the camera frames of the real table photos (bench/real_photos.json, as
bench/bench_vision_real.py times them: each photo scaled to cover 1280×720 and cropped; run
bench/fetch_real_photos.py first), OpenCV on one thread as in the camera, it reports per frame:

- the finder's whole time (``vision.cards.find_card_quads``);
- the time spent inside the OpenCV calls ``vision.cards`` makes on the finder's own thread
  (every ``cv2`` function it calls, timed one by one through a stand-in for the module): what
  the finder would cost if its Python and numpy took no time at all, so a floor for this
  finder's design; and apart, the time inside the calls made on the helper thread beside it
  (``vision.cards._Helper``, working while the finder's thread goes on);
- how many frames a second two threads find against one, each thread on its own frames: the
  share of the work that runs outside Python's global lock (OpenCV releases it; Python and
  most small numpy calls hold it). Since the helper, both finders share it and a machine of
  two cores has no core left for it: two threads find fewer frames a second than one (the
  camera runs one finder).

Each figure is the best of ``--repeat`` runs of the frame (a busy moment of a shared machine
should not count), then the median and 95th percentile over the frames.
"""

from __future__ import annotations

import argparse
import threading
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any

import cv2
from bench_vision_real import (  # its sibling: run as a script
    Image,
    finish,
    median_p95,
    table_photos,
    to_camera_frame,
)

from vision import cards


class _TimedCv2:
    """Stands in for ``cv2`` inside ``vision.cards``: every function called through it adds
    its time to ``spent`` when called on the finder's own thread (``finder``), to ``beside``
    when called on the helper thread beside it (``vision.cards._Helper``); constants and
    classes are OpenCV's own."""

    def __init__(self, real: ModuleType) -> None:
        self._real = real
        self.finder = threading.get_ident()
        self.spent = 0.0
        self.beside = 0.0

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._real, name)
        if not callable(value) or isinstance(value, type):
            return value

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return value(*args, **kwargs)
            finally:
                took = time.perf_counter() - start
                if threading.get_ident() == self.finder:
                    self.spent += took
                else:
                    self.beside += took

        return timed


def best_of(repeat: int, run: Callable[[], float]) -> float:
    return min(run() for _ in range(repeat))


def throughput(frames: list[Image], threads: int) -> float:
    """Frames found a second with ``threads`` threads, each finding its share of the frames."""
    shares = [frames[k::threads] for k in range(threads)]

    def work(share: list[Image]) -> None:
        for frame in share:
            cards.find_card_quads(frame)

    workers = [threading.Thread(target=work, args=(share,)) for share in shares]
    start = time.perf_counter()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return len(frames) / (time.perf_counter() - start)


def main() -> int:
    parser = argparse.ArgumentParser(description="what bounds the card finder's time")
    parser.add_argument("--repeat", type=int, default=3, help="runs per frame (the best kept)")
    parser.add_argument("--json", help="write the results here too")
    args = parser.parse_args()
    cv2.setNumThreads(1)  # OpenCV on one thread per task, as the camera runs it (vision/camera.py)
    photos, missing = table_photos()
    frames = [to_camera_frame(picture) for _, picture in photos]
    namespace = vars(cards)  # where vision.cards finds the name cv2
    real = namespace["cv2"]
    timed_cv2 = _TimedCv2(real)
    whole: list[float] = []
    opencv: list[float] = []
    beside: list[float] = []  # OpenCV's time on the helper thread
    for frame in frames:

        def plain(frame: Image = frame) -> float:
            start = time.perf_counter()
            cards.find_card_quads(frame)
            return (time.perf_counter() - start) * 1000

        helper: list[float] = []  # OpenCV's time beside, in each run of ``inside``

        def inside(frame: Image = frame, helper: list[float] = helper) -> float:
            timed_cv2.spent = timed_cv2.beside = 0.0
            namespace["cv2"] = timed_cv2
            try:
                cards.find_card_quads(frame)
            finally:
                namespace["cv2"] = real
            helper.append(timed_cv2.beside * 1000)
            return timed_cv2.spent * 1000

        whole.append(best_of(args.repeat, plain))
        opencv.append(best_of(args.repeat, inside))
        beside.append(min(helper))
    one = max(throughput(frames, 1) for _ in range(args.repeat))
    two = max(throughput(frames, 2) for _ in range(args.repeat))
    result = {
        "frames": len(frames),
        "finding_ms": median_p95(whole),
        "inside_opencv_ms": median_p95(opencv),
        "helper_opencv_ms": median_p95(beside),
        "opencv_share": round(sum(opencv) / sum(whole), 3),
        "frames_per_s": {"one_thread": round(one, 1), "two_threads": round(two, 1)},
    }
    print(f"{len(frames)} camera frames (1280×720), OpenCV on one thread, best of {args.repeat}")
    print(f"  finding, whole (ms):         {result['finding_ms']}")
    print(f"  inside OpenCV's calls (ms):  {result['inside_opencv_ms']}")
    print(f"  and on the helper beside:    {result['helper_opencv_ms']}")
    print(f"  OpenCV's share of the time:  {result['opencv_share']}")
    print(f"  frames a second, one thread / two: {one:.1f} / {two:.1f} ({two / one:.2f}×)")
    return finish(result, missing, args.json)


if __name__ == "__main__":
    raise SystemExit(main())
