"""The live table (issue 46) in Debian's Chromium, as a table uses it: several devices at once,
no reloads between taps.

- A host's phone and a tablet on the table page, a player's phone on ``/me`` and the TV follow
  every move entered on any of them (server-sent events), with no reload.
- A tap on a screen the game has moved past is never entered for someone else: a step walked to
  for one player is not re-resolved to another's when the table moved on, and a leaf tapped on
  an out-of-date screen is refused, nothing changes, and the screen shows the step now.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from companion.core import ObservationKind
from companion.service.runtime import Trackside

from .conftest import PIN
from .golden_feed import PLAYERS, past_tickets, submit
from .live import live_click

PHONE = {"width": 390, "height": 844}
TABLET = {"width": 1280, "height": 800}
TV = {"width": 1920, "height": 1080}
FOLLOW_MS = 10_000
"""How long a device may take to show a move before the test fails: a guard against a page
that never follows, not a speed target (the bench measures the time: bench/bench_live_table.py)."""


@pytest.fixture
def contexts(browser: Browser) -> Iterator[list[BrowserContext]]:
    made: list[BrowserContext] = []
    yield made
    for c in made:
        c.close()


def device(browser: Browser, made: list[BrowserContext], viewport: dict[str, int]) -> Page:
    context = browser.new_context(viewport=viewport, has_touch=True)  # type: ignore[arg-type]
    made.append(context)
    return context.new_page()


def sign_in(page: Page, base: str, who: str) -> None:
    page.goto(f"{base}/table")
    page.fill("input[name=pin]", PIN)
    page.fill("input[name=who]", who)
    page.click("main form button[type=submit]")
    expect(page.locator(".who")).to_contain_text("Signed in")


def version_shown(page: Page) -> int:
    """The table version a page shows (the table page's live part, or the TV's board)."""
    return int(
        page.evaluate(
            "() => { const m = document.getElementById('live-meta');"
            " if (m) return m.dataset.version;"
            " return document.getElementById('board').dataset.version; }"
        )
    )


def follows(page: Page, service: Trackside) -> None:
    """The page shows the table's newest version, by its own live update (no reload)."""
    version = service.latest()[0]
    page.wait_for_function(
        """v => { const m = document.getElementById('live-meta');
                  const b = document.getElementById('board');
                  const shown = m ? m.dataset.version : (b ? b.dataset.version : null);
                  return shown !== null && parseInt(shown, 10) >= v; }""",
        arg=version,
        timeout=FOLLOW_MS,
    )


def mark(pages: list[Page]) -> None:
    """Mark each page: a reload would lose the mark (asserted by :func:`not_reloaded`)."""
    for p in pages:
        p.evaluate("() => { window.__noReload = true; }")


def not_reloaded(pages: list[Page]) -> None:
    for p in pages:
        assert p.evaluate("() => window.__noReload === true"), p.url


def buttons(page: Page) -> list[str]:
    return [
        str(p)
        for p in page.eval_on_selector_all(
            "#enter .choice", "els => els.map(e => e.dataset.path || '')"
        )
    ]


def tap(page: Page, path: str) -> None:
    """One tap on the live table page: the new step is drawn in place (no page load)."""
    live_click(page, f'#enter .choice[data-path="{path}"]')


def active_name(service: Trackside) -> str:
    session = service.engine.session()
    assert session is not None
    [who] = session.game.status(session.state).active_players
    return str(PLAYERS[who]["name"])


def test_a_step_walked_for_one_player_never_becomes_anothers(
    service: Trackside, browser: Browser, contexts: list[BrowserContext]
) -> None:
    """What issue 46 saw: the host walked to "Kateřina: draw train cards" on a screen the game
    had moved past, tapped "from the deck", and it was entered as Jana's blind draw."""
    base = f"http://127.0.0.1:{service.web_port}"
    payload = {"command": "start_game", "game": "ticket-to-ride-europe", "players": PLAYERS}
    assert submit(service, ObservationKind.COMMAND, payload) == "applied"
    past_tickets(service)
    host = device(browser, contexts, PHONE)
    tablet = device(browser, contexts, TABLET)
    tv = device(browser, contexts, TV)
    sign_in(host, base, "Host")
    sign_in(tablet, base, "Tablet")
    tv.goto(f"{base}/")
    tv.wait_for_selector("#board .headline")
    first = active_name(service)
    # the host's phone has lost its live updates (a Wi-Fi hiccup): its screen stays as drawn
    host.route("**/api/events*", lambda route: route.abort())
    host.goto(f"{base}/table")
    host.locator('#enter .choice[data-path="draw"]').click()
    expect(host.locator("#enter .crumbs")).to_contain_text(first)
    stale_leaves = [p for p in buttons(host) if p.startswith("draw/")]
    assert stale_leaves, buttons(host)
    mark([tablet, tv])
    # the tablet enters the first player's whole draw: two cards from the deck
    tablet.wait_for_selector('#enter .choice[data-path="draw"]')
    for _ in range(2):
        tap(tablet, "draw")
        blind = [p for p in buttons(tablet) if p == "draw/blind"]
        assert blind, buttons(tablet)
        tap(tablet, blind[0])
    assert active_name(service) != first
    follows(tv, service)
    not_reloaded([tablet, tv])
    seq_before = service.choices(None)[0]  # type: ignore[index]
    # the out-of-date leaf: refused, nothing entered, the step now shown with why
    host.locator(f'#enter .choice[data-path="{stale_leaves[0]}"]').first.click()
    expect(host.locator(".flash.error")).to_contain_text("moved on")
    assert service.choices(None)[0] == seq_before  # type: ignore[index]
    expect(host.locator("#enter .crumbs")).not_to_contain_text(first)
    # walking on the out-of-date screen: the step drawn for the first player is not the
    # second player's; the page says the table moved on and shows the top
    host.unroute("**/api/events*")
    host.route("**/api/events*", lambda route: route.abort())
    host.goto(f"{base}/table?at=draw&seq=1&sig=000000000000")
    expect(host.locator(".flash.moved")).to_contain_text("moved on")
    assert not host.locator("#enter .crumbs .crumb").count()
    # a path that is no longer there at all (a claim walked to before the turn changed)
    host.goto(f"{base}/table?at=claim/nowhere/no-route&seq=1&sig=000000000000")
    expect(host.locator(".flash.moved")).to_contain_text("moved on")
    assert "draw" in buttons(host)
    assert service.choices(None)[0] == seq_before  # type: ignore[index]


def test_the_other_screens_follow_a_step_walked_to(
    service: Trackside, browser: Browser, contexts: list[BrowserContext]
) -> None:
    """A device halfway through a step keeps its place while the table does not change the
    step, and is moved to the step now (with a note) when it does; the TV and /me follow."""
    base = f"http://127.0.0.1:{service.web_port}"
    payload = {"command": "start_game", "game": "ticket-to-ride-europe", "players": PLAYERS}
    assert submit(service, ObservationKind.COMMAND, payload) == "applied"
    past_tickets(service)
    host = device(browser, contexts, PHONE)
    tablet = device(browser, contexts, TABLET)
    sign_in(host, base, "Host")
    sign_in(tablet, base, "Tablet")
    first = active_name(service)
    host.wait_for_selector('#enter .choice[data-path="draw"]')
    tap(host, "draw")
    expect(host.locator("#enter .crumbs")).to_contain_text(first)
    mark([host, tablet])
    # the tablet enters the whole move: the host's half-walked step is gone; it says so
    for _ in range(2):
        tap(tablet, "draw")
        blind = [p for p in buttons(tablet) if p == "draw/blind"]
        assert blind, buttons(tablet)
        tap(tablet, blind[0])
    follows(host, service)
    expect(host.locator(".flash.moved")).to_contain_text("moved on")
    expect(host.locator("#enter .crumbs")).not_to_contain_text(first)
    assert "draw" in buttons(host)
    not_reloaded([host, tablet])
