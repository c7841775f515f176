"""WLED payloads without a broker: what the driver hands to MQTT, checked on an emulated strip."""

from __future__ import annotations

import json

import pytest

from firmware_bridge.leds import Frame, Run, changes
from firmware_bridge.wled import MAX_COLOURS_PER_MESSAGE, WledDriver, wled_messages
from tests.firmware_bridge.wled_emulator import EmulatedStrip


class FakeConnection:
    """Records what would be published; ``up`` False plays a dropped connection."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, str]] = []
        self.up = True

    def __call__(self, topic: str, payload: str) -> bool:
        if self.up:
            self.sent.append((topic, payload))
        return self.up

    def take(self) -> list[tuple[str, str]]:
        out, self.sent = self.sent, []
        return out


def frame(*pixels: int) -> Frame:
    return Frame(tuple(pixels))


RED, BLUE, DARK = 0xFF0000, 0x0000FF, 0x000000


def test_single_leds_and_ranges_are_written_the_way_wled_reads_them() -> None:
    runs = [Run(0, 1, RED), Run(3, 10, BLUE)]
    assert wled_messages(runs) == [{"seg": {"id": 0, "i": [0, "FF0000", 3, 10, "0000FF"]}}]


def test_long_updates_are_split_into_chunks_wled_can_swallow() -> None:
    # A rainbow-ish frame with no two neighbours alike: one colour per LED.
    pixels = tuple((i * 2654435761) & 0xFFFFFF | 1 for i in range(600))
    messages = wled_messages(changes(None, Frame(pixels)))
    assert len(messages) == 3
    strip = EmulatedStrip(600)
    for message in messages:
        entries = message["seg"]["i"]  # type: ignore[index]
        assert sum(isinstance(e, str) for e in entries) <= MAX_COLOURS_PER_MESSAGE
        strip.apply(json.dumps(message))
    assert tuple(strip.pixels) == pixels
    with pytest.raises(ValueError, match="max_colours"):
        wled_messages([], max_colours=0)


def test_first_frame_whole_then_only_what_changed() -> None:
    wire = FakeConnection()
    driver = WledDriver(wire, ["table"])
    strip = EmulatedStrip(6)
    first = frame(RED, RED, RED, BLUE, BLUE, BLUE)
    driver.show(first)
    sent = wire.take()
    assert [t for t, _ in sent] == ["wled/table/api"] * 2
    assert json.loads(sent[0][1]) == {"on": True}
    assert json.loads(sent[1][1]) == {"seg": {"id": 0, "i": [0, 3, "FF0000", 3, 6, "0000FF"]}}
    for _, payload in sent:
        strip.apply(payload)
    assert tuple(strip.pixels) == first.pixels

    driver.show(first)
    assert wire.take() == []  # nothing changed, nothing sent

    second = frame(RED, DARK, RED, BLUE, BLUE, RED)
    driver.show(second)
    sent = wire.take()
    assert [json.loads(p) for _, p in sent] == [{"seg": {"id": 0, "i": [1, "000000", 5, "FF0000"]}}]
    strip.apply(sent[0][1])
    assert tuple(strip.pixels) == second.pixels


def test_a_frame_lost_on_the_way_is_followed_by_a_whole_one() -> None:
    wire = FakeConnection()
    driver = WledDriver(wire, ["table"])
    driver.show(frame(RED, RED))
    wire.take()
    wire.up = False
    driver.show(frame(BLUE, RED))
    wire.up = True
    driver.show(frame(BLUE, BLUE))
    assert [json.loads(p) for _, p in wire.take()] == [
        {"on": True},
        {"seg": {"id": 0, "i": [0, 2, "0000FF"]}},
    ]


def test_after_our_reconnect_everything_is_sent_whole() -> None:
    wire = FakeConnection()
    driver = WledDriver(wire, ["a", "b"])
    driver.show(frame(RED))
    wire.take()
    driver.resync()
    driver.show(frame(RED))
    assert [t for t, _ in wire.take()] == ["wled/a/api", "wled/a/api", "wled/b/api", "wled/b/api"]


def test_a_wled_that_comes_back_online_gets_the_whole_frame_again() -> None:
    wire = FakeConnection()
    driver = WledDriver(wire, ["a", "b"])
    assert driver.status_topics == ("wled/a/status", "wled/b/status")
    # What the broker hands over on subscribing is only noted.
    assert not driver.on_status("a", "online", retained=True)
    driver.show(frame(RED))
    wire.take()
    # WLED repeats "online" with every state change: not a comeback.
    assert not driver.on_status("a", "online", retained=False)
    assert not driver.on_status("b", "offline", retained=False)
    assert driver.on_status("b", "online", retained=False)
    driver.show(frame(RED))
    assert [(t, json.loads(p)) for t, p in wire.take()] == [
        ("wled/b/api", {"on": True}),
        ("wled/b/api", {"seg": {"id": 0, "i": [0, "FF0000"]}}),
    ]


def test_with_a_group_topic_frames_go_once_to_the_group() -> None:
    wire = FakeConnection()
    driver = WledDriver(wire, ["a", "b"], group_topic="wled/all")
    driver.show(frame(RED, BLUE))
    assert {t for t, _ in wire.take()} == {"wled/all/api"}
    driver.on_status("b", "offline", retained=False)
    driver.on_status("b", "online", retained=False)
    driver.show(frame(RED, RED))
    sent = [(t, json.loads(p)) for t, p in wire.take()]
    assert sent == [
        ("wled/all/api", {"seg": {"id": 0, "i": [1, "FF0000"]}}),
        ("wled/b/api", {"on": True}),
        ("wled/b/api", {"seg": {"id": 0, "i": [0, 2, "FF0000"]}}),
    ]


@pytest.mark.parametrize("bad", ["", "a/b", "a+", "#", "x\x00"])
def test_device_ids_that_would_break_the_topic_are_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="wled device id"):
        WledDriver(FakeConnection(), [bad])
