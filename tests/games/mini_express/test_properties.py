"""Property tests: any sequence of table reports keeps the table possible."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.core import Action, IllegalActionError, PlayerSpec
from companion.games import find_game

GAME = find_game("mini-express")
COMPANIES = ("leather", "lumber", "steel", "cotton")
SYMBOLS = (*COMPANIES, "wild")


def start(players: int) -> Any:
    state = GAME.setup([PlayerSpec(f"P{i}") for i in range(players)], {})
    picks = [
        ["lumber", "steel"],
        ["leather", "cotton"],
        ["lumber", "leather"],
        ["steel", "cotton"],
        ["lumber", "cotton"],
    ]
    for seat in [*range(players), *reversed(range(players))]:
        state = GAME.apply(state, Action("draft_share", seat, {"company": picks[seat].pop(0)}))
    return state


share = st.builds(lambda c: ("take_share", {"company": c}), st.sampled_from(COMPANIES))
build = st.builds(
    lambda c, n, comp, demand, wild, full: (
        "build",
        {
            "company": c,
            "trains": n,
            "landscape": n - 1,
            "compensated": {k: min(v, n) for k, v in comp.items() if k != c},
            "demand": demand,
            **({"wild_company": wild} if "wild" in demand else {}),
            "city_full": full,
        },
    ),
    st.sampled_from(COMPANIES),
    st.integers(1, 5),
    st.dictionaries(st.sampled_from(COMPANIES), st.integers(1, 5), max_size=2),
    st.one_of(st.just([]), st.lists(st.sampled_from(SYMBOLS), min_size=2, max_size=2)),
    st.sampled_from(COMPANIES),
    st.booleans(),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(3, 5), st.lists(st.one_of(share, build), min_size=1, max_size=60))
def test_accepted_reports_keep_the_table_possible_and_refusals_change_nothing(
    players: int, moves: list[tuple[str, dict[str, Any]]]
) -> None:
    state = start(players)
    for kind, args in moves:
        if GAME.is_over(state):
            break
        action = Action(kind, state.current_player, args)
        try:
            after = GAME.apply(state, action)
        except IllegalActionError:
            continue  # the state is immutable: nothing to undo
        assert GAME.problems(after) == ()
        for before_c, after_c in zip(state.companies, after.companies, strict=True):
            assert 0 <= after_c.trains_on_field <= 5
            assert after_c.track_length >= before_c.track_length
            assert after_c.trains_in_supply <= before_c.trains_in_supply
            assert after_c.exhausted or not before_c.exhausted  # exhaustion is for good
        assert sum(p.total_shares for p in after.players) >= sum(
            p.total_shares for p in state.players
        )
        assert all(v >= 0 for p in after.players for v in p.influence)
        assert GAME.from_json(GAME.to_json(after)) == after
        state = after
