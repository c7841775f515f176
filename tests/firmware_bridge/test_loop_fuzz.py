"""Fuzzing the reader loop's body (session + presence model) and the live loop with noise."""

from __future__ import annotations

import random
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.core import Observation
from firmware_bridge.pn532 import Pn532Driver
from firmware_bridge.readers import Backoff, ObservationMaker, ReaderConfig, open_reader
from firmware_bridge.sessions import new_session
from tests.firmware_bridge.frame_fixtures import id12la_frame, pn532_target, rdm6300_frame
from tests.firmware_bridge.ptys import Collector, PtyDevice, wait_until

UIDS = ["0F002A7F8A", "1A00C3B2D4"]

pieces = st.one_of(
    st.binary(max_size=24),
    st.sampled_from([rdm6300_frame(u) for u in UIDS]),
    st.sampled_from([id12la_frame(u) for u in UIDS]),
    st.sampled_from([rdm6300_frame(UIDS[0], checksum=0), b"SCAN\tuid=0F002A7F8A\r\n", b"\r\n"]),
)
steps = st.lists(st.tuples(pieces, st.floats(0, 1.0, allow_nan=False)), max_size=30)


def check_presence_story(observations: list[Observation]) -> None:
    present: set[str] = set()
    for obs in observations:
        uid = obs.tag
        if obs.kind.value == "tag_present":
            assert uid not in present, f"{uid} present twice without leaving"
            present.add(str(uid))
        elif obs.kind.value == "tag_removed":
            assert uid in present, f"{uid} removed without being present"
            present.discard(str(uid))


@settings(max_examples=150)
@given(st.sampled_from(["rdm6300", "id12la", "line"]), steps)
def test_the_loop_body_never_raises_and_tells_a_consistent_story(
    protocol: str, script: list[tuple[bytes, float]]
) -> None:
    config = ReaderConfig("r", protocol, "/dev/x", removal_timeout_s=0.3)  # type: ignore[arg-type]
    session = new_session(protocol)
    maker = ObservationMaker(config)
    now = 0.0
    session.begin(now)
    observations: list[Observation] = []
    stream = b""
    for data, dt in script:
        now += dt
        stream += data
        events, written = session.feed(data, now)
        tick_events, tick_written = session.tick(now)
        assert written == tick_written == b""  # passive readers never write
        observations += maker.from_events(events + tick_events, now) + maker.tick(now)
    check_presence_story(observations)
    for obs in observations:
        if obs.kind.value == "tag_present":
            assert obs.tag is not None
            if protocol == "rdm6300":
                assert rdm6300_frame(obs.tag) in stream
            elif protocol == "id12la":
                assert id12la_frame(obs.tag) in stream


@given(st.lists(st.tuples(st.binary(max_size=40), st.floats(0, 2.0, allow_nan=False)), max_size=30))
def test_the_pn532_driver_never_raises_on_any_answer(script: list[tuple[bytes, float]]) -> None:
    driver = Pn532Driver()
    now = 0.0
    driver.begin(now)
    for data, dt in script:
        now += dt
        driver.feed(data + pn532_target("DEADBEEF") if dt > 1.5 else data, now)
        driver.tick(now)


def test_a_live_reader_fed_noise_stays_connected_and_still_reads_the_card(tmp_path: Path) -> None:
    device = PtyDevice(tmp_path / "noisy").plug()
    sink = Collector()
    reader = open_reader(
        ReaderConfig("r", "rdm6300", str(device.link)), sink, backoff=Backoff(0.02, 0.1)
    )
    reader.start()
    try:
        wait_until(lambda: reader.status().state == "connected")
        noise = random.Random(20261121).randbytes(8192).replace(b"\x02", b"\x01")
        for i in range(0, len(noise), 512):
            device.write(noise[i : i + 512])
        device.write(rdm6300_frame(UIDS[1]))
        wait_until(lambda: any(o.kind.value == "tag_present" for o in sink.observations))
        assert reader.status().state == "connected" and reader.status().connections == 1
        assert [o.tag for o in sink.observations if o.kind.value != "error"] == [UIDS[1]]
        assert reader.status().frames_bad >= 1
    finally:
        reader.stop()
        device.unplug()
