"""The LED scene: what a table of four sees on the strip as a game goes on."""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware_bridge.leds import (
    ACTIVE_LEVEL,
    AMBER,
    GREEN,
    OFF,
    PALETTE,
    PASSED_LEVEL,
    RED,
    WAITING_LEVEL,
    WHITE,
    Frame,
    changes,
    scale,
    scene,
    table_colour,
    zone_colour,
)

SEATS = 4
LEDS = 10
NOW = 1_000_000.0


def table(**status: Any) -> dict[str, Any]:
    """Four players round the table, as /api/state shows them."""
    return {
        "schema": 1,
        "game": "ticket-to-ride-europe",
        "players": [
            {"name": "Ann", "colour": "red", "seat": 1, "total": 3},
            {"name": "Ben", "colour": "blue", "seat": 2, "total": 0},
            {"name": "Cy", "colour": "green", "seat": 3, "total": 7},
            {"name": "Dee", "colour": "yellow", "seat": 4, "total": 1},
        ],
        "status": {"active_players": [0], **status},
    }


def render(state: dict[str, Any], now: float = NOW) -> Frame:
    return scene(state, seats=SEATS, leds_per_seat=LEDS, now_s=now)


def seat(frame: Frame, number: int) -> set[int]:
    return set(frame.zone(number, LEDS))


def test_nobody_at_the_table_leaves_the_strip_dark() -> None:
    frame = render({"schema": 1, "game": None, "players": [], "status": {}})
    assert frame.pixels == (OFF,) * SEATS * LEDS
    assert not frame.animated


def test_the_player_whose_turn_it_is_shines_and_the_others_wait_dimly() -> None:
    frame = render(table())
    assert seat(frame, 1) == {scale(PALETTE["red"], ACTIVE_LEVEL)}
    assert seat(frame, 2) == {scale(PALETTE["blue"], WAITING_LEVEL)}
    assert seat(frame, 3) == {scale(PALETTE["green"], WAITING_LEVEL)}
    assert not frame.animated


def test_the_turn_passing_moves_the_light() -> None:
    before = render(table())
    after = render(table(active_players=[1]))
    assert seat(after, 1) == {scale(PALETTE["red"], WAITING_LEVEL)}
    assert seat(after, 2) == {PALETTE["blue"]}
    assert changes(before, after) == changes(before, after)  # deterministic
    changed = {i for run in changes(before, after) for i in range(run.start, run.stop)}
    assert changed == set(range(0, 2 * LEDS))


def test_players_who_passed_are_dimmed_below_those_still_playing() -> None:
    frame = render(table(active_players=[2], passed_players=[0, 1]))
    assert seat(frame, 1) == {scale(PALETTE["red"], PASSED_LEVEL)}
    assert seat(frame, 2) == {scale(PALETTE["blue"], PASSED_LEVEL)}
    assert seat(frame, 4) == {scale(PALETTE["yellow"], WAITING_LEVEL)}


def test_two_players_in_a_simultaneous_phase_both_shine() -> None:
    frame = render(table(active_players=[0, 3]))
    assert seat(frame, 1) == {PALETTE["red"]}
    assert seat(frame, 4) == {PALETTE["yellow"]}


def test_colours_by_name_hex_black_and_unknown() -> None:
    state = table(active_players=[0, 1, 2, 3])
    state["players"][0]["colour"] = "#102030"
    state["players"][1]["colour"] = "Black"
    state["players"][2]["colour"] = "mauve-ish"
    state["players"][3]["colour"] = None
    frame = render(state)
    assert seat(frame, 1) == {0x102030}
    assert seat(frame, 2) == {PALETTE["black"]} and PALETTE["black"] != OFF
    assert seat(frame, 3) == {WHITE}
    assert seat(frame, 4) == {WHITE}


def test_players_without_a_seat_sit_in_list_order_unless_a_seat_is_taken() -> None:
    state = table()
    state["players"][0]["seat"] = None  # would sit at 1
    state["players"][1]["seat"] = None  # would sit at 2…
    state["players"][3]["seat"] = 2  # …but Dee sits there
    frame = render(state)
    assert seat(frame, 1) == {PALETTE["red"]}
    assert seat(frame, 2) == {scale(PALETTE["yellow"], WAITING_LEVEL)}
    assert seat(frame, 4) == {OFF}


def test_seats_beyond_the_strip_are_ignored() -> None:
    state = table()
    state["players"][3]["seat"] = 9
    frame = render(state)
    assert seat(frame, 4) == {OFF}
    assert len(frame) == SEATS * LEDS


def cue(kind: str, at: float = NOW, **more: Any) -> dict[str, Any]:
    return {"kind": kind, "at_s": at, **more}


def test_a_tunnel_with_no_extra_cards_flashes_green_at_the_claimers_seat() -> None:
    state = table(active_players=[1])
    state["cues"] = [cue("tunnel", seat=2, extra_cards=0)]
    lit = render(state, NOW + 0.1)
    dark = render(state, NOW + 0.7)
    assert seat(lit, 2) == {GREEN}
    assert seat(dark, 2) == {OFF}
    assert seat(lit, 1) == {scale(PALETTE["red"], WAITING_LEVEL)}
    assert lit.animated and dark.animated
    over = render(state, NOW + 6.5)
    assert seat(over, 2) == {PALETTE["blue"]}
    assert not over.animated


def test_a_tunnel_needing_one_to_three_extra_cards_flashes_amber() -> None:
    for extra in (1, 2, 3):
        state = table()
        state["cues"] = [cue("tunnel", seat=3, extra_cards=extra)]
        assert seat(render(state, NOW + 0.1), 3) == {AMBER}


def test_an_impossible_tunnel_verdict_shows_nothing() -> None:
    state = table()
    state["cues"] = [cue("tunnel", seat=3, extra_cards=4), cue("tunnel", seat=2)]
    assert render(state, NOW + 0.1) == render(table(), NOW + 0.1)


def test_an_unknown_tag_blinks_red_at_the_seat_that_scanned_it() -> None:
    state = table()
    state["cues"] = [cue("unknown_tag", seat=4, uid="04A1B2C3")]
    assert seat(render(state, NOW + 0.1), 4) == {RED}
    assert seat(render(state, NOW + 0.3), 4) == {OFF}
    assert seat(render(state, NOW + 0.6), 4) == {RED}
    assert seat(render(state, NOW + 0.1), 1) == {PALETTE["red"]}
    assert seat(render(state, NOW + 4.1), 4) == {scale(PALETTE["yellow"], WAITING_LEVEL)}


def test_an_error_without_a_seat_blinks_the_whole_table_and_outranks_a_tunnel() -> None:
    state = table()
    state["cues"] = [cue("error", message="reader lost"), cue("tunnel", seat=2, extra_cards=0)]
    assert set(render(state, NOW + 0.1).pixels) == {RED}


def test_cues_not_yet_started_or_long_over_are_ignored_and_durations_can_be_set() -> None:
    state = table()
    state["cues"] = [cue("error", at=NOW + 5, seat=1), cue("error", at=NOW - 100, seat=2)]
    assert render(state) == render(table())
    state["cues"] = [cue("error", at=NOW - 100, seat=2, duration_s=200)]
    assert render(state, NOW + 0.1).animated


def test_the_round_end_sweep_runs_round_the_table_and_then_stops() -> None:
    state = table()
    state["cues"] = [cue("round_end", round=2)]
    heads = []
    for step in range(6):
        frame = render(state, NOW + step * 0.25)
        assert frame.animated
        whites = [i for i, c in enumerate(frame.pixels) if c == WHITE]
        assert len(whites) == 1
        heads.append(whites[0])
    assert len(set(heads)) == 6  # it moves
    done = render(state, NOW + 3.01)
    assert done == render(table(), NOW + 3.01)


def test_zone_and_table_colours_for_single_colour_lights() -> None:
    frame = render(table())
    assert zone_colour(frame, 1, LEDS) == PALETTE["red"]
    assert zone_colour(frame, 2, LEDS) == scale(PALETTE["blue"], WAITING_LEVEL)
    assert table_colour(frame) == PALETTE["red"]


frames = st.integers(min_value=1, max_value=40).flatmap(
    lambda n: st.tuples(
        st.lists(st.sampled_from([0, 0xFF0000, 0x00FF00, 0x123456]), min_size=n, max_size=n),
        st.lists(st.sampled_from([0, 0xFF0000, 0x00FF00, 0x123456]), min_size=n, max_size=n),
    )
)


@given(frames)
def test_changes_paint_exactly_the_difference(pair: tuple[list[int], list[int]]) -> None:
    old, new = Frame(tuple(pair[0])), Frame(tuple(pair[1]))
    runs = changes(old, new)
    painted = list(old.pixels)
    touched: set[int] = set()
    for run in runs:
        assert run.start < run.stop
        for i in range(run.start, run.stop):
            painted[i] = run.colour
            touched.add(i)
    assert painted == list(new.pixels)
    assert touched == {i for i in range(len(new)) if old.pixels[i] != new.pixels[i]}
    full = changes(None, new)
    assert sum(r.stop - r.start for r in full) == len(new)
    assert all(a.colour != b.colour for a, b in itertools.pairwise(full))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=6,
)
fields = st.sampled_from(
    ["game", "players", "status", "cues", "seat", "colour", "kind", "at_s", "extra_cards"]
)


# The machine running the suite is shared; generation speed is not what is under test.
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(fields, json_values, max_size=4),
    st.lists(st.dictionaries(fields, json_values, max_size=4), max_size=4),
    st.lists(st.dictionaries(fields, json_values, max_size=4), max_size=4),
)
def test_no_snapshot_however_malformed_breaks_the_lights(
    top: dict[str, Any], players: list[dict[str, Any]], cues: list[dict[str, Any]]
) -> None:
    state = {"game": "x", "players": players, "cues": cues, **top}
    frame = scene(state, seats=3, leds_per_seat=4, now_s=0.0)
    assert len(frame) == 12
    assert all(0 <= p <= 0xFFFFFF for p in frame.pixels)


running_cues = st.lists(
    st.fixed_dictionaries(
        {
            "kind": st.sampled_from(["round_end", "tunnel", "error", "unknown_tag"]),
            "at_s": st.floats(min_value=NOW - 10, max_value=NOW + 10),
            "seat": st.none() | st.integers(min_value=-1, max_value=6),
            "extra_cards": st.integers(min_value=0, max_value=3),
            "duration_s": st.floats(min_value=0, max_value=8),
        }
    ),
    max_size=4,
)


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(running_cues)
def test_the_strip_animates_exactly_while_a_cue_runs_and_leaves_no_trace(
    cues: list[dict[str, Any]],
) -> None:
    state = table()
    state["cues"] = cues
    frame = render(state)
    running = any(c["at_s"] <= NOW < c["at_s"] + c["duration_s"] for c in cues)
    assert frame.animated == running
    if not running:
        assert frame == render(table())
    later = NOW + 20
    assert render(state, later) == render(table(), later)
