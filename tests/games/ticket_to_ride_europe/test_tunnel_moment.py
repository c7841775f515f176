"""A tunnel's verdict is a moment of the public view ("TUNELY"): once the cards are turned,
every screen and the LED strip learn from the view alone how many more cards the claim costs
(DESIGN.md, "Screens show"); it is announced once and ends when the next turn begins."""

from __future__ import annotations

from companion.core.i18n import translations
from companion.core.messages import render_text
from companion.games.ticket_to_ride_europe.rules import GAME, TtrState

from .test_table import act, edit, tunnel_table


def tunnel_moments(state: TtrState) -> list[dict[str, object]]:
    view = GAME.public_view(state).to_json()
    moments = view["moments"]
    assert isinstance(moments, list)
    return [m for m in moments if isinstance(m, dict) and m["kind"] == "tunnel"]


def test_a_tunnel_owing_cards_is_announced_with_its_player_and_the_cards_owed() -> None:
    """TUNELY, příklad 1: 2 red laid, a red turned: one more red card."""
    state = tunnel_table("sarajevo-sofia", {"red": 2})
    assert tunnel_moments(state) == []  # cards laid, none turned yet: no verdict
    state = act(state, "reveal_tunnel", cards=["red", "blue"])
    assert tunnel_moments(state) == []  # a card still to turn
    state = act(state, "reveal_tunnel", cards=["yellow"])
    [moment] = tunnel_moments(state)
    assert moment["player"] == 0 and moment["extra_cards"] == 1 and moment["key"] == "tunnel-1"
    text = render_text(GAME.public_view(state).moments[0].text)
    assert text == "Tunnel Sarajevo – Sofia (grey): P0 pays 1 more card or takes the cards back"
    assert render_text(GAME.public_view(state).moments[0].text, translations("cs")).startswith(
        "Tunel "
    )
    # paying keeps the same moment (the same key: announced once), the next turn ends it
    state = act(state, "pay_tunnel", 0, cards={"red": 1})
    [same] = tunnel_moments(state)
    assert same == moment
    state = act(state, "draw_blind", 1)
    assert tunnel_moments(state) == []


def test_a_tunnel_claimed_at_once_is_announced_with_no_cards_owed() -> None:
    state = tunnel_table("munchen-venezia", {"blue": 2})
    state = act(state, "reveal_tunnel", cards=["red", "green", "white"])
    assert state.players[0].routes == ("munchen-venezia",)  # claimed, the turn passed on
    [moment] = tunnel_moments(state)
    assert moment["extra_cards"] == 0 and moment["player"] == 0
    assert "claims it at once" in render_text(GAME.public_view(state).moments[0].text)


def test_each_tunnel_has_its_own_key_even_the_same_route_tried_again() -> None:
    """A withdrawn tunnel ("TUNELY": the cards go back, the turn ends) may be tried again:
    the second verdict is a new moment, not the first one shown again."""
    state = tunnel_table("munchen-venezia", {"blue": 2})
    state = act(state, "reveal_tunnel", cards=["blue", "blue", "locomotive"])
    [first] = tunnel_moments(state)
    state = act(state, "withdraw_tunnel", 0)
    state = act(state, "draw_blind", 1)
    state = act(state, "draw_blind", 1)
    state = act(state, "claim_route", 0, route="munchen-venezia", cards={"blue": 2})
    state = act(state, "reveal_tunnel", cards=["red", "green", "white"])
    [second] = tunnel_moments(state)
    assert (first["key"], second["key"]) == ("tunnel-1", "tunnel-2")


def test_the_verdict_reads_back_from_the_snapshot() -> None:
    """The notation carries the verdict (``tunnels``, ``tunnel_verdict``), so a restart shows
    the same view; a table before any tunnel leaves both out."""
    state = tunnel_table("sarajevo-sofia", {"red": 2})
    assert "tunnels" not in GAME.to_json(state)["table"]  # type: ignore[operator]
    state = act(state, "reveal_tunnel", cards=["red", "blue", "yellow"])
    data = GAME.to_json(state)
    assert data["table"]["tunnel_verdict"] == {  # type: ignore[call-overload,index]
        "player": 0,
        "route": "sarajevo-sofia",
        "extra": 1,
        "number": 1,
    }
    assert GAME.from_json(data) == state
    assert edit(state) == state
