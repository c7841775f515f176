"""The reader firmware in hardware/firmware speaks what the parsers understand.

The Arduino sketch is compiled for the host with g++ against a stub of the Arduino core and
the MFRC522 library API (tests/hardware/arduino_host) and run over a scripted card field. The
ESPHome pad config is checked at the text level: its topic and the JSON its lambdas build.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from firmware_bridge.frames import LineParser, TagSeen
from firmware_bridge.seat_pads import PadTag, parse_pad_message

ROOT = Path(__file__).resolve().parents[2]
HOST = Path(__file__).parent / "arduino_host"
SKETCH = ROOT / "hardware" / "firmware" / "mfrc522-line" / "mfrc522-line.ino"
PAD = ROOT / "hardware" / "firmware" / "esphome" / "seat-pad.yaml"


@pytest.mark.slow
def test_the_mfrc522_sketch_prints_scan_lines_our_line_parser_reads(tmp_path: Path) -> None:
    binary = tmp_path / "sketch"
    subprocess.run(
        [
            "g++", "-std=c++17", "-Wall", "-Wextra", "-Werror", f"-I{HOST}", "-x", "c++",
            f'-DSKETCH="{SKETCH}"', str(HOST / "host_main.cpp"), "-o", str(binary),
        ],
        check=True,
    )  # fmt: skip
    output = subprocess.run([str(binary)], check=True, capture_output=True).stdout
    assert output.startswith(b"INFO\tfirmware=trackside-mfrc522\tversion=1\r\n")
    parser = LineParser()
    events = parser.feed(output) + parser.flush()
    uids = [e.uid for e in events if isinstance(e, TagSeen)]
    assert set(uids) == {"04A224B2C15E80", "DEADBE0F"}
    assert uids.count("04A224B2C15E80") >= 3  # repeated while the card stays
    assert parser.frames_bad == 0 and len(events) == len(uids)


def _substitutions(text: str) -> dict[str, str]:
    block = text.split("substitutions:", 1)[1].split("\n\n", 1)[0]
    pairs = re.findall(r'^\s+(\w+):\s*"?([^"\s#]+)"?', block, flags=re.MULTILINE)
    return dict(pairs)


def test_the_esphome_pad_publishes_what_the_service_parses() -> None:
    text = PAD.read_text()
    subs = _substitutions(text)
    assert subs == {"pad_id": "pad-red", "seat": "1", "table_id": "table-1"}
    for name, value in subs.items():
        text = text.replace("${" + name + "}", value)
    topics = set(re.findall(r"topic: (trackside/\S+/tag)", text))
    assert topics == {"trackside/table-1/pads/pad-red/tag"}
    (topic,) = topics
    lambdas = re.findall(r'return std::string\("(.*?)"\) \+ x \+ "(.*?)";', text)
    assert len(lambdas) == 2
    results = []
    for head, tail in lambdas:
        payload = (head + "74-10-37-94" + tail).replace('\\"', '"')
        results.append(parse_pad_message("table-1", topic, payload.encode()))
    assert results == [
        PadTag(pad="pad-red", uid="74103794", present=True, seat=1),
        PadTag(pad="pad-red", uid="74103794", present=False, seat=1),
    ]


def test_the_esphome_pad_updates_over_the_air_and_takes_wifi_without_usb_flashing() -> None:
    text = PAD.read_text()
    # top-level components (ESPHome's names), each with what makes it work
    assert re.search(
        r"^ota:\n  - platform: esphome\n    password: !secret ota_password$", text, re.M
    )
    assert re.search(r"^captive_portal:$", text, re.M)
    assert re.search(r"^improv_serial:$", text, re.M)
    assert re.search(
        r'^  ap:\n    ssid: "Trackside \$\{pad_id\} setup"\n    password: !secret', text, re.M
    )
    # improv_serial talks over the logger's UART: the logger must not be switched off
    assert re.search(r"^logger:$", text, re.M) and "baud_rate: 0" not in text
