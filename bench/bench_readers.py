"""Reader speed: frames parsed per second per parser, and scan-to-observation latency.

Run on demand (not in the test suite): ``PYTHONPATH=. python bench/bench_readers.py``.

Parsers are fed a long stream of valid frames in 4 KiB chunks on one core. Latency is
measured end to end through a real pseudo-terminal and the real port loop: the time from
writing a complete RDM6300 frame on the device side to the ``tag_present`` observation reaching
the sink (alternating two cards, so every frame is a new presence). A pty has no baud rate, so
this is the software path alone; on a real 9600-baud wire add ~14.6 ms for the frame's 14 bytes.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from companion.core import Observation
from firmware_bridge.frames import (
    FrameParser,
    Id12laParser,
    LineParser,
    Rdm6300Parser,
    encode_id12la,
    encode_rdm6300,
)
from firmware_bridge.pn532 import Pn532FrameParser
from firmware_bridge.readers import Backoff, ReaderConfig, open_reader


def pn532_target(uid: bytes) -> bytes:
    body = bytes([0xD5, 0x4B, 1, 1, 0x00, 0x04, 0x08, len(uid)]) + uid
    n = len(body)
    return b"\x00\x00\xff" + bytes([n, (-n) & 0xFF]) + body + bytes([(-sum(body)) & 0xFF, 0])


def frames_per_second(make: Callable[[], FrameParser | Pn532FrameParser], frame: bytes) -> float:
    count = 20_000
    stream = frame * count
    chunks = [stream[i : i + 4096] for i in range(0, len(stream), 4096)]
    best = 0.0
    for _ in range(3):
        parser = make()
        started = time.perf_counter()
        for chunk in chunks:
            parser.feed(chunk)
        elapsed = time.perf_counter() - started
        assert parser.frames_ok == count, (parser.frames_ok, count)
        best = max(best, count / elapsed)
    return best


def latency_through_pty(scans: int = 400) -> list[float]:
    arrived: dict[str, float] = {}
    got = threading.Event()

    def sink(observation: Observation) -> None:
        if observation.kind.value == "tag_present":
            arrived["at"] = time.monotonic()
            got.set()

    with tempfile.TemporaryDirectory() as tmp:
        master, slave = os.openpty()
        link = Path(tmp) / "reader"
        link.symlink_to(os.ttyname(slave))
        os.close(slave)
        config = ReaderConfig("bench", "rdm6300", str(link), removal_timeout_s=30)
        reader = open_reader(config, sink, backoff=Backoff(0.01, 0.05))
        reader.start()
        while reader.status().state != "connected":
            time.sleep(0.01)
        cards = [encode_rdm6300("0F002A7F8A"), encode_rdm6300("1A00C3B2D4")]
        samples = []
        for i in range(scans):
            got.clear()
            sent = time.monotonic()
            os.write(master, cards[i % 2])
            if not got.wait(2):
                raise RuntimeError(f"scan {i} never arrived")
            samples.append(arrived["at"] - sent)
            time.sleep(0.005)
        reader.stop()
        os.close(master)
    return samples


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> int:
    print(f"python {sys.version.split()[0]}, one core")
    cases: list[tuple[str, Callable[[], FrameParser | Pn532FrameParser], bytes]] = [
        ("rdm6300", Rdm6300Parser, encode_rdm6300("0F002A7F8A")),
        ("id12la", Id12laParser, encode_id12la("7C0055F8E2")),
        (
            "pn532 (target list frame)",
            Pn532FrameParser,
            pn532_target(bytes.fromhex("04A224B2C15E80")),
        ),
        ("line (barcode)", LineParser, b"TTRE-TRAIN-RED-07\r\n"),
        ("line (SCAN uid)", LineParser, b"SCAN\tuid=04A224B2C15E80\r\n"),
    ]
    for name, make, frame in cases:
        print(f"{name:28s} {frames_per_second(make, frame):>12,.0f} frames/s")
    samples = latency_through_pty()
    print(
        f"scan → observation through a pty ({len(samples)} scans): "
        f"p50 {percentile(samples, 0.5) * 1000:.3f} ms, "
        f"p99 {percentile(samples, 0.99) * 1000:.3f} ms, "
        f"max {max(samples) * 1000:.3f} ms, mean {statistics.fmean(samples) * 1000:.3f} ms"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
