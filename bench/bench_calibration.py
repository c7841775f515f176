"""How long the live camera's calibration takes, on SYNTHETIC scenes (wood, warm bulb):

- one shot of the nine cards in a row (a reveal area as wide as the frame; the replay has
  finished, its last three frames kept): ``Trackside.take_camera_shot()`` (median of the 3
  newest frames, find the nine cards, calibrate: measure them again, write the file atomically
  with fsync, swap the palette), the same from the newest frame, through the table page (POST
  /table/camera/shot with the PIN session, the redirect and the result page with its nine card
  crops), and the page's still (JPEG with outlines);
- three shots of three cards in a reveal area sized for the tunnel (37.5 % × 60 % of the
  frame), the camera looping over a folder whose image is replaced between shots (it keeps
  reading frames at 10 fps meanwhile, as a live camera would): one shot that is kept (median,
  find the cards, keep the view), the third shot that completes the nine (calibration over the
  three shots), and a kept shot through the page (POST, redirect, page with the crops).

Run from the repository root:

    PYTHONPATH=. .venv/bin/python bench/bench_calibration.py [--runs N] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.service.config import parse_settings
from companion.service.runtime import Trackside
from vision.calibrate import CALIBRATION_ORDER
from vision.synthetic import SceneSpec, render_scene

PIN = "471108"
TUNNEL_AREA = (0.3125, 0.2, 0.375, 0.6)


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


def signed_in(service: Trackside) -> tuple[Any, str]:
    """A test client with the PIN session, and the session's CSRF token."""
    client = service.app.test_client()
    page = client.get("/table").get_data(as_text=True)
    token = re.findall(r'name="csrf" value="([^"]+)"', page)[0]
    client.post("/table/login", data={"csrf": token, "pin": PIN})
    page = client.get("/table/camera").get_data(as_text=True)
    return client, re.findall(r'name="csrf" value="([^"]+)"', page)[0]


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
        client, token = signed_in(service)

        def through_the_page() -> None:
            response = client.post(
                "/table/camera/shot",
                data={"csrf": token, "collected": "0"},
                follow_redirects=True,
            )
            assert "Calibrated: 9 colours" in response.get_data(as_text=True)
            for index in range(9):
                assert client.get(f"/table/camera/sample/{index}.jpg").status_code == 200

        return {
            "one shot of 9 → calibrated (3 frames)": timed(
                lambda: service.take_camera_shot(3), runs
            ),
            "one shot of 9 → calibrated (1 frame)": timed(
                lambda: service.take_camera_shot(1), runs
            ),
            "page: shot of 9, result page, 9 crops": timed(through_the_page, runs),
            "page: still (JPEG, outlines)": timed(desk.still_jpeg, runs),
        }
    finally:
        service.stop()


def tunnel_view(width: int, height: int, cards: tuple[str, ...], seed: int) -> np.ndarray:
    """The table with ``cards`` in a row inside the tunnel-sized reveal area."""
    table = render_scene(
        SceneSpec(width=width, height=height, background="wood", light="warm", seed=99)
    ).image
    left, top, w, h = TUNNEL_AREA
    x0, y0 = round(left * width), round(top * height)
    x1, y1 = round((left + w) * width), round((top + h) * height)
    area = SceneSpec(
        width=x1 - x0,
        height=y1 - y0,
        background="wood",
        light="warm",
        cards=cards,
        layout="row",
        rotation_deg=5,
        card_width_px=width * 0.078,
        print_jitter=0.0,
        seed=seed,
    )
    table[y0:y1, x0:x1] = render_scene(area).image
    return table


def three_shots(width: int, height: int, runs: int, root: Path) -> dict[str, Any]:
    folder = root / f"loop-{width}x{height}"
    folder.mkdir(parents=True)
    views = [tunnel_view(width, height, CALIBRATION_ORDER[i : i + 3], i) for i in (0, 3, 6)]
    cv2.imwrite(str(folder / "view.png"), views[0])
    settings = parse_settings(
        {
            "web": {"host": "127.0.0.1", "port": 0, "pin": PIN},
            "camera": {
                "name": "overhead",
                "source": f"replay:{folder}",
                "width": width,
                "height": height,
                "fps_max": 10,
                "loop": True,
                "reveal_area": list(TUNNEL_AREA),
            },
        },
        data_dir=root / f"data-loop-{width}x{height}",
    )
    service = Trackside(settings)
    service.start(web=False)
    desk = service.camera_calibration
    assert desk is not None

    def show(view: np.ndarray) -> None:
        ok, encoded = cv2.imencode(".png", view)
        assert ok
        (folder / "view.png.part").write_bytes(encoded.tobytes())
        os.replace(folder / "view.png.part", folder / "view.png")
        while True:
            recent = desk.camera.recent_frames(3)
            if len(recent) == 3 and all(np.array_equal(f, view) for f in recent):
                return
            time.sleep(0.02)

    def kept_shot() -> None:
        outcome = service.take_camera_shot(3)
        assert outcome.result is None and len(outcome.colours) == 3
        desk.start_over()

    third: list[float] = []

    def calibration_over_three_shots() -> None:
        desk.start_over()
        for index, view in enumerate(views):
            show(view)
            start = time.perf_counter()
            outcome = service.take_camera_shot(3)
            if index == 2:
                third.append((time.perf_counter() - start) * 1000.0)
                assert outcome.result is not None and outcome.number == 3

    try:
        show(views[0])
        report = {"shot of 3 cards, kept (3 frames)": timed(kept_shot, runs)}
        client, token = signed_in(service)

        def kept_through_the_page() -> None:
            response = client.post(
                "/table/camera/shot", data={"csrf": token, "collected": "0"}, follow_redirects=True
            )
            assert "Shot 1 kept" in response.get_data(as_text=True)
            for index in range(3):
                assert client.get(f"/table/camera/collected/{index}.jpg").status_code == 200
            desk.start_over()

        report["page: shot of 3 kept, page, 3 crops"] = timed(kept_through_the_page, runs)
        for _ in range(runs + 1):
            calibration_over_three_shots()
        ordered = sorted(third[1:])  # the first run warms caches
        report["3rd shot → calibration over 3 shots"] = {
            "median_ms": round(statistics.median(ordered), 1),
            "min_ms": round(ordered[0], 1),
            "max_ms": round(ordered[-1], 1),
            "n": len(ordered),
        }
        return report
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
            report[f"{width}x{height}, tunnel-sized area"] = three_shots(
                width, height, args.runs, Path(tmp)
            )
    print(json.dumps(report, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
