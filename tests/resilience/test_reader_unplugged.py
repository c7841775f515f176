"""A seat reader's USB cable is kicked out in the middle of a scan and plugged back, while the
service runs a game: the reader reconnects by itself, the scoreboard says what happened, and the
database holds every completed scan exactly once (the half frame is not a scan)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.firmware_bridge.frame_fixtures import rdm6300_frame
from tests.firmware_bridge.ptys import PtyDevice

from .conftest import DIE_UIDS, Running, ServiceFactory, wait_until

pytestmark = [pytest.mark.slow, pytest.mark.timeout(90)]


@pytest.fixture
def seats(tmp_path: Path) -> Iterator[tuple[PtyDevice, PtyDevice]]:
    red = PtyDevice(tmp_path / "usb-rdm6300-seat1").plug()
    blue = PtyDevice(tmp_path / "usb-rdm6300-seat2").plug()
    yield red, blue
    for device in (red, blue):
        if device.master is not None:
            device.unplug()


def hold(device: PtyDevice, uid: str, times: int = 3) -> None:
    """An RDM6300 repeats its frame while the card lies on it."""
    for _ in range(times):
        device.write(rdm6300_frame(uid))
        time.sleep(0.05)


def applied_scans(running: Running) -> int:
    return sum(
        1
        for _, kind, _, outcome in running.inputs()
        if kind == "tag_present" and outcome == "applied"
    )


def test_a_reader_pulled_out_mid_scan_reconnects_and_no_scan_is_lost_or_doubled(
    run_service: ServiceFactory, seats: tuple[PtyDevice, PtyDevice]
) -> None:
    red, blue = seats
    running = run_service(
        {
            "readers": [
                {"name": "red-seat", "protocol": "rdm6300", "port": str(red.link), "seat": 1},
                {"name": "blue-seat", "protocol": "rdm6300", "port": str(blue.link), "seat": 2},
            ]
        }
    )
    wait_until(lambda: running.device("red-seat").get("state") == "connected", what="red reader")
    wait_until(lambda: running.device("blue-seat").get("state") == "connected", what="blue reader")
    running.start_tiny_race()

    hold(red, DIE_UIDS[1])
    wait_until(lambda: running.totals() == [1, 0], what="Red's die 1")
    hold(blue, DIE_UIDS[2])
    wait_until(lambda: running.totals() == [1, 2], what="Blue's die 2")

    # Red lays die 3 down; the cable comes out after half a frame.
    frame = rdm6300_frame(DIE_UIDS[3])
    red.write(frame[: len(frame) // 2])
    red.unplug()
    wait_until(
        lambda: running.device("red-seat").get("state") in ("searching", "error"),
        what="the scoreboard to show the red reader gone",
    )
    assert running.device("red-seat")["last_error"]
    assert running.device("blue-seat")["state"] == "connected"  # the other seat is unaffected
    red.plug()
    wait_until(
        lambda: (
            running.device("red-seat").get("state") == "connected"
            and running.device("red-seat").get("connections", 0) >= 2
        ),
        timeout_s=40,
        what="the red reader to reconnect",
    )
    # The player sees no move on the scoreboard and lays the die again.
    assert running.totals() == [1, 2]
    hold(red, DIE_UIDS[3])
    wait_until(lambda: running.totals() == [4, 2], what="Red's die 3 after the reconnect")
    hold(blue, DIE_UIDS[1])
    wait_until(lambda: running.totals() == [4, 3], what="Blue's die 1")
    time.sleep(1.0)  # longer than the removal timeout: any late duplicate would be in by now

    assert running.scans("red-seat") == [DIE_UIDS[1], DIE_UIDS[3]]
    assert running.scans("blue-seat") == [DIE_UIDS[2], DIE_UIDS[1]]
    assert applied_scans(running) == 4
    # the half frame died with the old connection: no error, no phantom scan recorded
    assert [kind for source, kind, _, _ in running.inputs() if source == "red-seat"] == [
        "tag_present",
        "tag_removed",
        "tag_present",
        "tag_removed",
    ]
