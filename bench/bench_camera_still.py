"""The camera on a still table: its CPU, and what it leaves the threads that share its process.

The camera's thread runs in the service's process (companion/service/runtime.py), beside the
engine and the web server; card finding is mostly Python and holds the interpreter lock. Since
2026-11-27 a frame that shows what the last frame read showed, once that reading has held, is
not read again (vision/camera.py, ``_StillView``). This bench plays a game night's table to the
real ``Camera``: real table photos (bench/real_photos/, run bench/fetch_real_photos.py first),
each as the camera's 1280×720 frame held for ``--hold`` seconds at 10 frames a second with
fresh sensor noise (Gaussian, σ 2 grey levels; eight noise fields per photo, in turn), in
two modes: frames of a still table skipped, and every frame read (as before). Beside it a probe
thread stands for the web server: every 10 ms it does 0.2 ms of Python work and records how
late it finished. Reported per mode: frames, frames read, the process's CPU seconds per minute
of play, the probe's lateness (median, p95, max), and whether both modes reported the same
observations.

    PYTHONPATH=. .venv/bin/python bench/bench_camera_still.py [--photos 10] [--hold 3] [--json F]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

import vision.camera as camera_module
from companion.core import Observation
from vision.camera import Camera, CameraConfig
from vision.palette import DEFAULT_PALETTE

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_vision_real import HERE, to_camera_frame

Frame = npt.NDArray[np.uint8]
FPS = 10.0
NOISE_FIELDS = 8


class HeldPhotos:
    """A frame source: each photo held for ``frames`` frames, a noise field added in turn."""

    description = "held photos"
    is_live = False

    def __init__(self, photos: list[list[Frame]], frames: int) -> None:
        self._photos = photos
        self._frames = frames
        self._index = 0

    def open(self) -> None:
        self._index = 0

    def read(self) -> Frame | None:
        photo, k = divmod(self._index, self._frames)
        if photo >= len(self._photos):
            return None
        self._index += 1
        return self._photos[photo][k % NOISE_FIELDS]

    def lock_exposure(self) -> bool:
        return True

    def close(self) -> None:
        pass


def noisy_frames(path: Path, rng: np.random.Generator) -> list[Frame]:
    base = to_camera_frame(np.asarray(cv2.imread(str(path)), np.uint8)).astype(np.int16)
    return [
        np.clip(base + rng.normal(0.0, 2.0, base.shape).round().astype(np.int16), 0, 255).astype(
            np.uint8
        )
        for _ in range(NOISE_FIELDS)
    ]


def probe(stop: threading.Event, lateness: list[float]) -> None:
    """Every 10 ms, 0.2 ms of Python work; how late it finished (ms)."""
    cv2.setNumThreads(1)
    while not stop.is_set():
        due = time.perf_counter() + 0.010
        time.sleep(0.010)
        end = time.perf_counter() + 0.0002
        while time.perf_counter() < end:
            pass
        lateness.append((time.perf_counter() - due - 0.0002) * 1000)


def play(photos: list[list[Frame]], hold_frames: int, skip_still: bool) -> dict[str, Any]:
    look_s = camera_module._STILL_LOOK_S
    if not skip_still:
        camera_module._STILL_LOOK_S = 0.0  # type: ignore[misc]  # every frame read, as before
    reads = [0]
    real = camera_module.read_train_cards

    def counted(*args: Any, **kwargs: Any) -> Any:
        reads[0] += 1
        return real(*args, **kwargs)

    camera_module.read_train_cards = counted  # type: ignore[assignment]
    observations: list[Observation] = []
    config = CameraConfig(name="bench", source="replay:-", fps_max=FPS)
    camera = Camera(
        config, observations.append, DEFAULT_PALETTE, lambda _: HeldPhotos(photos, hold_frames)
    )
    stop = threading.Event()
    lateness: list[float] = []
    prober = threading.Thread(target=probe, args=(stop, lateness), daemon=True)
    cpu0 = resource.getrusage(resource.RUSAGE_SELF)
    wall0 = time.perf_counter()
    prober.start()
    camera.start()
    while not camera.status().finished:
        time.sleep(0.05)
    camera.stop()
    wall = time.perf_counter() - wall0
    stop.set()
    prober.join()
    cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    camera_module.read_train_cards = real  # type: ignore[assignment]
    camera_module._STILL_LOOK_S = look_s  # type: ignore[misc]
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    status = camera.status()
    late = sorted(lateness)
    return {
        "frames": status.frames,
        "frames_read": reads[0],
        "still_frames": status.still_frames,
        "seconds": round(wall, 1),
        "cpu_s_per_minute": round(cpu / wall * 60, 1),
        "probe_late_ms": {
            "median": round(statistics.median(late), 2),
            "p95": round(late[int(0.95 * (len(late) - 1))], 2),
            "max": round(late[-1], 2),
        },
        "observations": [
            [o.kind.value, o.payload.get("colours", o.payload.get("uid"))] for o in observations
        ],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description="the camera on a still table")
    parser.add_argument("--photos", type=int, default=10, help="table photos played")
    parser.add_argument("--hold", type=float, default=3.0, help="seconds each photo is held")
    parser.add_argument("--json", help="write the results here too")
    args = parser.parse_args()
    labels = json.loads((HERE / "real_photos.json").read_text())["photos"]
    paths = [HERE / "real_photos" / p["file"] for p in labels if p.get("boxes")]
    paths = [p for p in paths if p.exists()][:: max(1, len(paths) // args.photos)][: args.photos]
    if len(paths) < args.photos:
        print("photos missing: run bench/fetch_real_photos.py first", file=sys.stderr)
        return 2
    rng = np.random.default_rng(2026)
    photos = [noisy_frames(p, rng) for p in paths]
    hold = max(1, round(args.hold * FPS))
    result = {
        "photos": [p.name for p in paths],
        "hold_s": args.hold,
        "skipping_still_frames": play(photos, hold, skip_still=True),
        "reading_every_frame": play(photos, hold, skip_still=False),
    }
    same = (
        result["skipping_still_frames"]["observations"]
        == result["reading_every_frame"]["observations"]
    )
    result["same_observations"] = same
    for mode in ("skipping_still_frames", "reading_every_frame"):
        r = result[mode]
        print(
            f"{mode:22} frames {r['frames']:4}  read {r['frames_read']:4}  "
            f"CPU {r['cpu_s_per_minute']:5.1f} s/min  probe late ms median "
            f"{r['probe_late_ms']['median']} p95 {r['probe_late_ms']['p95']} "
            f"max {r['probe_late_ms']['max']}  observations {len(r['observations'])}"
        )
    print(f"same observations in both modes: {same}")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
