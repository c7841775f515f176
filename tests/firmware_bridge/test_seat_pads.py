"""Seat pads on the network: what an ESPHome pad publishes becomes a seat's observation."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from companion.core import ObservationKind
from firmware_bridge.frames import FrameRejected
from firmware_bridge.seat_pads import PadTag, pad_topic_filter, parse_pad_message

TOPIC = "trackside/table-1/pads/red-pad/tag"


def test_the_esphome_pad_payload_becomes_a_tag_present_for_its_seat() -> None:
    message = parse_pad_message(
        "table-1", TOPIC, b'{"uid":"74-10-37-94","event":"present","seat":1}'
    )
    assert message == PadTag(pad="red-pad", uid="74103794", present=True, seat=1)
    assert isinstance(message, PadTag)
    observation = message.to_observation(now=5.0)
    assert (observation.source, observation.kind, dict(observation.payload), observation.seat) == (
        "red-pad",
        ObservationKind.TAG_PRESENT,
        {"uid": "74103794"},
        1,
    )


def test_removal_and_a_configured_seat_overriding_the_pads() -> None:
    message = parse_pad_message(
        "table-1", TOPIC, b'{"uid":"04:a2:24:b2:c1:5e:80","event":"removed"}'
    )
    assert isinstance(message, PadTag) and message.seat is None
    observation = message.to_observation(seat=3)
    assert observation.kind is ObservationKind.TAG_REMOVED and observation.seat == 3


def test_other_topics_are_not_pads() -> None:
    assert parse_pad_message("table-1", "trackside/table-2/pads/x/tag", b"{}") is None
    assert parse_pad_message("table-1", "trackside/table-1/pads/x/status", b"online") is None
    assert pad_topic_filter("table-1") == "trackside/table-1/pads/+/tag"


def test_malformed_pad_messages_are_rejected_with_reasons() -> None:
    cases = {
        b"74-10-37-94": "pad red-pad: payload is not JSON",
        b"[1]": "pad red-pad: payload must be a JSON object",
        b'{"uid": "zz"}': "pad red-pad: uid 'zz' is not hex bytes",
        b'{"uid": "7410", "event": "gone"}': "pad red-pad: event 'gone' is not",
        b'{"uid": "7410", "seat": 0}': "pad red-pad: seat 0 is not a seat number",
        b'{"uid": "7410", "seat": true}': "pad red-pad: seat True is not a seat number",
    }
    for payload, reason in cases.items():
        result = parse_pad_message("table-1", TOPIC, payload)
        assert isinstance(result, FrameRejected) and result.message.startswith(reason), payload


@given(st.binary(max_size=100), st.text(max_size=40))
def test_any_payload_on_any_topic_never_raises(payload: bytes, topic: str) -> None:
    parse_pad_message("table-1", topic, payload)
    parse_pad_message("table-1", TOPIC, payload)
