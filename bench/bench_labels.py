"""Label sheets and tap to enrol: how long a sheet takes to make, and how long a tap takes from
the reader's bytes to a committed binding in the SQLite file.

Run from the checkout root:  PYTHONPATH=. python bench/bench_labels.py [--taps 50]
Not part of the test suite.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import tempfile
import threading
import time
from pathlib import Path

from companion.service import enrolment, labels
from companion.service.store import EventStore
from firmware_bridge.readers import Backoff, ReaderConfig
from tests.firmware_bridge.frame_fixtures import rdm6300_frame
from tests.firmware_bridge.ptys import PtyDevice


def sheets(folder: Path) -> None:
    for game, kind in [
        ("ticket-to-ride-europe", "qr"),
        ("ticket-to-ride-europe", "code128"),
        ("ticket-to-ride-europe", "aruco"),
        ("russian-railroads", "qr"),
        ("russian-railroads", "aruco"),
    ]:
        start = time.perf_counter()
        sheet = labels.stickers(game, kind)
        geo = labels.geometry(kind, sheet)
        path = folder / f"{game}-{kind}.pdf"
        pages = labels.write_sheet(
            path, game_name=game, kind=kind, sheet=sheet, geo=geo, paper="a4"
        )
        took = time.perf_counter() - start
        size = os.path.getsize(path) / 1024
        print(
            f"{game:24} {kind:8} {len(sheet):4} stickers {pages} pages {took:6.2f} s {size:6.0f} KiB"
        )


def taps(folder: Path, count: int) -> None:
    device = PtyDevice(folder / "usb-rdm6300").plug()
    store = EventStore(folder / "bench.sqlite3")
    out = io.StringIO()
    config = ReaderConfig(name="pad", protocol="rdm6300", port=str(device.link))
    enroller = enrolment.TapEnroller(store, config, out, backoff=Backoff(0.02, 0.1))
    component = enrolment.find_component("ticket-to-ride-europe", "card:red")
    latencies: list[float] = []
    try:
        time.sleep(0.3)  # the port opens
        for n in range(count):
            uid = f"{n + 1:010X}"
            worker = threading.Thread(
                target=enroller.enrol_next,
                args=("ticket-to-ride-europe", component, "red"),
                kwargs={"timeout_s": 5},
            )
            worker.start()
            time.sleep(0.02)
            start = time.perf_counter()
            device.write(rdm6300_frame(uid))
            worker.join()
            latencies.append((time.perf_counter() - start) * 1000)
            assert store.tag(uid) is not None
    finally:
        enroller.close()
        store.close()
        device.unplug()
    latencies.sort()
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    print(
        f"tap → binding committed (pty, RDM6300 frame, SQLite synchronous=FULL), {count} taps: "
        f"p50 {statistics.median(latencies):.1f} ms, p99 {p99:.1f} ms, max {latencies[-1]:.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--taps", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        sheets(Path(folder))
        taps(Path(folder), args.taps)


if __name__ == "__main__":
    main()
