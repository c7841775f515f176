"""WLED payloads without a broker: what the driver hands to MQTT, checked on an emulated strip."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.core.errors import ConfigError
from companion.service.config import load_settings
from firmware_bridge.leds import Frame, Run, changes
from firmware_bridge.mqtt import MqttConfig
from firmware_bridge.wled import MAX_COLOURS_PER_MESSAGE, WledDriver, wled_messages
from tests.firmware_bridge.wled_emulator import EFFECT_COLOUR, EmulatedStrip


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


ON = {"on": True, "tt": 0}


def seg(*entries: object) -> dict[str, object]:
    return {"tt": 0, "seg": {"id": 0, "i": list(entries)}}


def test_single_leds_and_ranges_are_written_the_way_wled_reads_them() -> None:
    runs = [Run(0, 1, RED), Run(3, 10, BLUE)]
    assert wled_messages(runs) == [seg(0, "FF0000", 3, 10, "0000FF")]


def test_long_updates_are_split_into_chunks_wled_can_swallow() -> None:
    # A rainbow-ish frame with no two neighbours alike: one colour per LED.
    pixels = tuple((i * 2654435761) & 0xFFFFFF | 1 for i in range(600))
    messages = wled_messages(changes(None, Frame(pixels)))
    assert len(messages) == 3
    strip = EmulatedStrip(600, on=True, frozen=False)  # an effect running, as WLED boots
    for message in messages:
        entries = message["seg"]["i"]  # type: ignore[index]
        assert sum(isinstance(e, str) for e in entries) <= MAX_COLOURS_PER_MESSAGE
        strip.apply(json.dumps(message))
    # only the first chunk cleared the segment; the others painted on the frozen one
    assert tuple(strip.pixels) == pixels
    with pytest.raises(ValueError, match="max_colours"):
        wled_messages([], max_colours=0)


def test_first_frame_turns_on_without_a_fade_then_every_change_is_sent_whole() -> None:
    wire = FakeConnection()
    driver = WledDriver(wire, ["table"])
    strip = EmulatedStrip(6, on=False, frozen=False)
    first = frame(RED, RED, RED, BLUE, BLUE, BLUE)
    driver.show(first)
    sent = wire.take()
    assert [t for t, _ in sent] == ["wled/table/api"] * 2
    assert [json.loads(p) for _, p in sent] == [ON, seg(0, 3, "FF0000", 3, 6, "0000FF")]
    for _, payload in sent:
        strip.apply(payload)
    assert tuple(strip.pixels) == first.pixels
    assert strip.fades == [0]  # on at once, no 700 ms fade-in

    driver.show(first)
    assert wire.take() == []  # nothing changed, nothing sent

    second = frame(RED, DARK, RED, BLUE, BLUE, RED)
    driver.show(second)
    sent = wire.take()
    assert [json.loads(p) for _, p in sent] == [
        seg(0, "FF0000", 1, "000000", 2, "FF0000", 3, 5, "0000FF", 5, "FF0000")
    ]
    strip.apply(sent[0][1])
    assert tuple(strip.pixels) == second.pixels


def test_a_strip_toggled_off_and_on_elsewhere_is_repainted_not_left_half_dark() -> None:
    # Turning WLED on unfreezes its segment (its effect runs again), and the next seg.i clears
    # the segment before painting: a frame of only the changed LEDs left the other zones dark.
    wire = FakeConnection()
    driver = WledDriver(wire, ["table"])
    strip = EmulatedStrip(6, on=True, frozen=False, device="table")
    strip.on_publish = lambda topic, payload: driver.on_message(topic, payload, retained=False)
    assert driver.status_topics == ("wled/table/status", "wled/table/g")

    def deliver() -> None:
        for _, payload in wire.take():
            strip.apply(payload)

    driver.show(frame(RED, RED, RED, BLUE, BLUE, BLUE))
    deliver()
    strip.toggle()  # off in Home Assistant…
    strip.toggle()  # …and on again: the effect runs
    assert tuple(strip.pixels) == (EFFECT_COLOUR,) * 6
    # even with the scene unchanged, the brightness change gets the whole frame back
    driver.show(frame(RED, RED, RED, BLUE, BLUE, BLUE))
    deliver()
    assert tuple(strip.pixels) == (RED, RED, RED, BLUE, BLUE, BLUE)
    # and a turn that changes one zone after another toggle leaves no zone dark
    strip.toggle()
    strip.toggle()
    driver.show(frame(RED, RED, RED, DARK, BLUE, BLUE))
    deliver()
    assert tuple(strip.pixels) == (RED, RED, RED, DARK, BLUE, BLUE)


def test_a_strip_switched_off_by_its_owner_stays_off() -> None:
    wire = FakeConnection()
    driver = WledDriver(wire, ["table"])
    strip = EmulatedStrip(2, on=True, frozen=False, device="table")
    strip.on_publish = lambda topic, payload: driver.on_message(topic, payload, retained=False)
    driver.show(frame(RED, RED))
    for _, payload in wire.take():
        strip.apply(payload)
    strip.toggle()
    driver.show(frame(BLUE, BLUE))
    sent = [json.loads(p) for _, p in wire.take()]
    assert all("on" not in p for p in sent)
    for p in sent:
        strip.apply(json.dumps(p))
    assert not strip.on and tuple(strip.pixels) == (BLUE, BLUE)  # painted, dark until turned on


def test_every_payload_cuts_instead_of_fading() -> None:
    wire = FakeConnection()
    driver = WledDriver(wire, ["table"])
    for colour in (RED, BLUE, DARK):
        driver.show(frame(colour, RED))
    assert all(json.loads(p)["tt"] == 0 for _, p in wire.take())


def test_a_frame_lost_on_the_way_is_followed_by_a_whole_one() -> None:
    wire = FakeConnection()
    driver = WledDriver(wire, ["table"])
    driver.show(frame(RED, RED))
    wire.take()
    wire.up = False
    driver.show(frame(BLUE, RED))
    wire.up = True
    driver.show(frame(BLUE, BLUE))
    assert [json.loads(p) for _, p in wire.take()] == [ON, seg(0, 2, "0000FF")]


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
    # What the broker hands over on subscribing is only noted.
    assert not driver.on_message("wled/a/status", "online", retained=True)
    assert not driver.on_message("wled/a/g", "128", retained=True)
    driver.show(frame(RED))
    wire.take()
    # WLED repeats "online" and its brightness with every state change: not a comeback.
    assert not driver.on_message("wled/a/status", "online", retained=False)
    assert not driver.on_message("wled/a/g", "128", retained=False)
    assert not driver.on_message("wled/b/status", "offline", retained=False)
    assert driver.on_message("wled/b/status", "online", retained=False)
    assert not driver.on_message("wled/c/g", "0", retained=False)  # not ours
    driver.show(frame(RED))
    assert [(t, json.loads(p)) for t, p in wire.take()] == [
        ("wled/b/api", ON),
        ("wled/b/api", seg(0, "FF0000")),
    ]


def test_with_a_group_topic_frames_go_once_to_the_group() -> None:
    wire = FakeConnection()
    driver = WledDriver(wire, ["a", "b"], group_topic="wled/trackside-t1")
    driver.show(frame(RED, BLUE))
    assert {t for t, _ in wire.take()} == {"wled/trackside-t1/api"}
    driver.on_message("wled/b/status", "offline", retained=False)
    driver.on_message("wled/b/status", "online", retained=False)
    driver.on_message("wled/a/g", "128", retained=False)
    driver.on_message("wled/a/g", "0", retained=False)
    driver.show(frame(RED, RED))
    sent = [(t, json.loads(p)) for t, p in wire.take()]
    assert sent == [
        ("wled/trackside-t1/api", seg(0, 2, "FF0000")),
        ("wled/b/api", ON),
        ("wled/b/api", seg(0, 2, "FF0000")),
        ("wled/a/api", seg(0, 2, "FF0000")),
    ]


@pytest.mark.parametrize("group", ["wled/all"])
def test_the_factory_group_topic_every_wled_listens_to_is_refused(group: str) -> None:
    with pytest.raises(ValueError, match="factory group topic"):
        WledDriver(FakeConnection(), ["a"], group_topic=group)
    with pytest.raises(ValueError, match="factory group topic"):
        MqttConfig(host="h", wled=("a",), wled_group=group)


@pytest.mark.parametrize("bad", ["", "a/b", "a+", "#", "x\x00"])
def test_device_ids_that_would_break_the_topic_are_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="wled device id"):
        WledDriver(FakeConnection(), [bad])


def test_topics_longer_than_wled_keeps_are_refused_at_start_up(tmp_path: Path) -> None:
    # WLED keeps 32 characters of its device and group topics (MQTT_MAX_TOPIC_LEN)
    fits = "t" * (32 - len("wled/"))
    WledDriver(FakeConnection(), [fits], group_topic="wled/" + "g" * 27)
    with pytest.raises(ValueError, match=r"is 33 characters; WLED keeps at most 32"):
        WledDriver(FakeConnection(), [fits + "t"])
    config = tmp_path / "trackside.toml"
    config.write_text(
        '[mqtt]\nhost = "h"\nwled = ["strip"]\nwled_group = "wled/trackside-table-for-the-hall"\n'
    )
    with pytest.raises(ConfigError) as refused:
        load_settings(config)
    assert f"{config}: mqtt.wled_group: wled group topic" in str(refused.value)
    assert "'wled/trackside-table-for-the-hall' is 33 characters" in str(refused.value)


@pytest.mark.parametrize(
    ("device", "group"), [("table", "wled/table-1"), ("table", "wled/table/all"), ("t", "wled/t")]
)
def test_a_device_topic_that_starts_the_group_topic_is_refused(device: str, group: str) -> None:
    # WLED matches a topic against its device topic first, by prefix: the group's frames would
    # be taken for the device's own topic and dropped
    with pytest.raises(ValueError, match=r"mqtt.wled_group: wled device topic .* is the start"):
        MqttConfig(host="h", wled=(device, "other"), wled_group=group)
    MqttConfig(host="h", wled=("other",), wled_group=group)  # no such device: fine
    MqttConfig(host="h", wled=(device,), wled_group="wled/hall-" + device)
