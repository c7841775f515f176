"""What the LEDs read from the snapshot (docs/leds.md): who passed this round, and the cues —
round end, the tunnel verdict, a refused input or an unknown tag at a seat."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from companion.core import Observation, ObservationKind
from companion.service.engine import Engine
from companion.service.store import EventStore
from firmware_bridge.leds import AMBER, RED, scene

from .conftest import command

GOLDEN = Path(__file__).resolve().parents[1] / "games" / "golden"


def scan(uid: str, seat: int) -> Observation:
    return Observation(f"seat-{seat}", ObservationKind.TAG_PRESENT, {"uid": uid}, seat)  # type: ignore[arg-type]


def play_golden(engine: Engine, game: str, stop: Any = None) -> list[dict[str, Any]]:
    """Start the golden game and play its steps (scans as self-describing labels at the
    player's seat) until ``stop(step, snapshot)`` is true; returns the snapshots seen."""
    golden = json.loads((GOLDEN / f"{game}.json").read_text())
    start = {"command": "start_game", "game": game, "players": golden["players"]}
    start["options"] = golden["options"]
    assert engine.handle(command(start)).outcome == "applied"
    seen = []
    for step in golden["steps"]:
        if "scan" in step:
            player = step["scan"].get("player")
            uid = f"TS:{game}:{step['scan']['component']}"
            obs = Observation(
                "seat" if player is None else f"seat-{player + 1}",
                ObservationKind.TAG_PRESENT,
                {"uid": uid},
                None if player is None else player + 1,
            )
        else:
            obs = Observation(
                "table-page",
                ObservationKind.ACTION,
                {"action": step["action"]},  # type: ignore[arg-type]
            )
        engine.handle(obs)
        _, snap = engine.latest()
        seen.append(snap)
        if stop is not None and stop(step, snap):
            break
    return seen


def test_russian_railroads_passed_players_and_the_round_end_sweep(engine: Engine) -> None:
    seen = play_golden(engine, "russian-railroads")
    # Red passes first in round 1: dimmed while the others still play
    first_pass = next(s for s in seen if s["status"]["passed_players"])
    assert first_pass["status"]["passed_players"] == [0]
    assert first_pass["cues"] == []
    # when the last player passes, the round is scored and the strip sweeps
    round_two = next(s for s in seen if s["status"]["round"] == 2)
    sweeps = [c for c in round_two["cues"] if c["kind"] == "round_end"]
    assert [c["round"] for c in sweeps] == [1]
    assert round_two["status"]["passed_players"] == []
    # the game's end sweeps too (the last round ends with the final scoring)
    final = seen[-1]
    assert final["over"] and final["cues"][-1]["kind"] == "round_end"


def test_ticket_to_ride_tunnel_verdict_is_amber_at_the_claimers_seat(engine: Engine) -> None:
    seen = play_golden(
        engine,
        "ticket-to-ride-europe",
        stop=lambda step, snap: any(c["kind"] == "tunnel" for c in snap["cues"]),
    )
    cue = seen[-1]["cues"][-1]
    # Blue (seat 2) turned blue, green, locomotive on two blue cards: two more cards owed
    assert cue["kind"] == "tunnel" and cue["seat"] == 2 and cue["extra_cards"] == 2
    frame = scene(seen[-1], seats=2, leds_per_seat=4, now_s=cue["at_s"] + 0.1)
    assert frame.zone(2, 4) == (AMBER,) * 4


def test_the_tunnel_cue_comes_from_the_view_once_per_verdict(engine: Engine) -> None:
    """The strip reads the public view's tunnel moment (DESIGN.md, "Screens show"): one cue
    when the verdict appears, none when the claimer then pays (the same moment); and none when
    the service restarts on the same table (an old verdict is not news, the next test)."""
    seen = play_golden(engine, "ticket-to-ride-europe")
    tunnel_cues = {
        (c["seat"], c["at_s"]) for snap in seen for c in snap["cues"] if c["kind"] == "tunnel"
    }
    verdicts = [
        m["key"]
        for snap in seen
        if snap["view"]
        for m in snap["view"]["moments"]
        if m["kind"] == "tunnel"
    ]
    assert verdicts and len(tunnel_cues) == len(dict.fromkeys(verdicts))


def test_an_old_tunnel_verdict_is_no_news_after_a_restart(
    engine: Engine, store: EventStore
) -> None:
    seen = play_golden(
        engine,
        "ticket-to-ride-europe",
        stop=lambda step, snap: any(m["kind"] == "tunnel" for m in snap["view"]["moments"]),
    )
    assert seen[-1]["cues"][-1]["kind"] == "tunnel"
    _, snap = Engine(store).latest()  # the service restarted on the same table
    assert any(m["kind"] == "tunnel" for m in snap["view"]["moments"])
    assert not [c for c in snap["cues"] if c["kind"] == "tunnel"]


def test_unknown_tag_and_refused_scan_blink_at_that_seat(engine: Engine) -> None:
    golden = json.loads((GOLDEN / "ticket-to-ride-europe.json").read_text())
    start = {"command": "start_game", "game": "ticket-to-ride-europe"}
    engine.handle(command({**start, "players": golden["players"]}))
    outcome = engine.handle(scan("04AABBCCDD", 2))
    assert outcome.outcome == "rejected" and "unknown tag" in outcome.message
    _, snap = engine.latest()
    assert snap["cues"][-1]["kind"] == "unknown_tag"
    assert snap["cues"][-1]["seat"] == 2 and snap["cues"][-1]["uid"] == "04AABBCCDD"
    # a known label the rules refuse (no ticket draw is open at seat 1 before face-up cards)
    outcome = engine.handle(scan("TS:ticket-to-ride-europe:route:paris-wien", 1))
    assert outcome.outcome == "rejected"
    _, snap = engine.latest()
    assert snap["cues"][-1]["kind"] == "error" and snap["cues"][-1]["seat"] == 1
    frame = scene(snap, seats=2, leds_per_seat=3, now_s=snap["cues"][-1]["at_s"] + 0.1)
    assert frame.zone(1, 3) == (RED,) * 3 and frame.zone(2, 3) == (RED,) * 3
    # a refusal on the table page (no seat) blinks nothing: the page shows it
    engine.handle(command({"command": "undo"}))
    _, after = engine.latest()
    assert len(after["cues"]) == len(snap["cues"])
