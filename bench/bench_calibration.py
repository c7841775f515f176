"""How long one calibration from the live camera takes: a running Trackside whose camera replays
a synthetic table with the nine cards in a row under a warm bulb (the last three frames kept),
calibrated through ``Trackside.calibrate_camera()`` (median of the 3 newest frames, find and
measure nine cards, write the file atomically with fsync, swap the palette) and through the
table page (POST /table/camera/calibrate with the PIN session, the redirect and the result
page with its nine card crops), and the page's still (JPEG with outlines). SYNTHETIC scenes.

Run from the repository root:

    PYTHONPATH=. .venv/bin/python bench/bench_calibration.py [--runs N] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import cv2

from companion.service.config import parse_settings
from companion.service.runtime import Trackside
from vision.calibrate import CALIBRATION_ORDER
from vision.synthetic import SceneSpec, render_scene

PIN = "4711"


def timed(run: Callable[[], object], runs: int) -> dict[str, float]:
    run()  # warm caches
    values = []
    for _ in range(runs):
        start = time.perf_counter()
        run()
        values.append((time.perf_counter() - start) * 1000.0)
    ordered = sorted(values)
    return {
        "median_ms": round(statistics.median(ordered), 1),
        "min_ms": round(ordered[0], 1),
        "max_ms": round(ordered[-1], 1),
        "n": len(ordered),
    }


def one_size(width: int, height: int, runs: int, root: Path) -> dict[str, Any]:
    folder = root / f"frames-{width}x{height}"
    folder.mkdir(parents=True)
    spec = SceneSpec(
        width=width,
        height=height,
        background="wood",
        light="warm",
        cards=CALIBRATION_ORDER,
        layout="row",
        rotation_deg=5,
        card_width_px=width * 0.078,
        seed=7,
    )
    image = render_scene(spec).image
    for index in range(3):
        cv2.imwrite(str(folder / f"frame{index}.png"), image)
    settings = parse_settings(
        {
            "web": {"host": "127.0.0.1", "port": 0, "pin": PIN},
            "camera": {
                "name": "overhead",
                "source": f"replay:{folder}",
                "width": width,
                "height": height,
                "fps_max": 50,
                "reveal_area": [0.0, 0.2, 1.0, 0.6],
            },
        },
        data_dir=root / f"data-{width}x{height}",
    )
    service = Trackside(settings)
    service.start(web=False)
    try:
        desk = service.camera_calibration
        assert desk is not None
        while not desk.overview().status.finished:
            time.sleep(0.02)
        client = service.app.test_client()
        page = client.get("/table").get_data(as_text=True)
        token = re.findall(r'name="csrf" value="([^"]+)"', page)[0]
        client.post("/table/login", data={"csrf": token, "pin": PIN})
        page = client.get("/table/camera").get_data(as_text=True)
        token = re.findall(r'name="csrf" value="([^"]+)"', page)[0]  # the signed-in session's

        def through_the_page() -> None:
            response = client.post(
                "/table/camera/calibrate", data={"csrf": token}, follow_redirects=True
            )
            assert "Calibrated: 9 colours" in response.get_data(as_text=True)
            for index in range(9):
                assert client.get(f"/table/camera/sample/{index}.jpg").status_code == 200

        return {
            "calibrate_camera (3 frames)": timed(lambda: service.calibrate_camera(3), runs),
            "calibrate_camera (1 frame)": timed(lambda: service.calibrate_camera(1), runs),
            "page: POST, result page, 9 crops": timed(through_the_page, runs),
            "page: still (JPEG, outlines)": timed(desk.still_jpeg, runs),
        }
    finally:
        service.stop()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="runs per measurement")
    parser.add_argument("--json", help="also write the results here")
    args = parser.parse_args(argv)
    report: dict[str, Any] = {"opencv": cv2.__version__}
    with tempfile.TemporaryDirectory() as tmp:
        for width, height in ((1280, 720), (640, 480)):
            report[f"{width}x{height}"] = one_size(width, height, args.runs, Path(tmp))
    print(json.dumps(report, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
