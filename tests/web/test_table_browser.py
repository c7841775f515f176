"""Whole games on the table page by taps only (Debian's Chromium at 390×844): the driver reads
the buttons the page shows (the game's choices tree) and taps one by a simple seeded policy;
nothing is typed except the player names at the start. Each game includes one mistake undone and
one entry corrected, and the taps per turn kind are printed (``-s``) for the issue note.

The driver knows no game: add a game to ``GAMES`` (name, players, preferred keys) and it plays.
"""

from __future__ import annotations

import random
import statistics
import time
from collections import defaultdict
from dataclasses import dataclass, field

import pytest
from playwright.sync_api import Browser, Page, expect

from companion.service.runtime import Trackside

from .conftest import ARTIFACTS, PIN
from .live import live_click

PHONE = {"width": 390, "height": 844}
DESK = {"width": 1280, "height": 800}
TV = {"width": 1920, "height": 1080}
MAX_TAPS = 4000
# A guard against a driver that loops, not a speed target: the longest game (Trains & Stations,
# about 920 taps, each a page load in Chromium) takes 180-210 s on a 2-core machine, and a CI
# machine twice as slow must still finish it.
TIME_LIMIT_S = 900.0


@dataclass(frozen=True)
class Plan:
    game: str
    players: tuple[str, ...]
    prefer: tuple[str, ...] = ()
    """Keys tapped first when offered (a policy that ends the game sooner); else random."""
    avoid: tuple[str, ...] = ()
    followed: bool = False
    """A tablet on the table page and the TV follow every move, and every other move is
    entered on the tablet (the host's phone follows it): no device reloads."""


GAMES = [
    Plan("tiny-race", ("Jana", "Petr")),
    # a turn is one action space, then how to spend it; passing ends a player's round
    Plan("russian-railroads", ("Jana", "Petr"), avoid=("pass",), followed=True),
    # claim routes whenever the cards allow, the longest first; otherwise draw
    Plan(
        "ticket-to-ride-europe",
        ("Jana", "Petr"),
        prefer=("claim", "pay-", "draw", "face-up", "tunnel-card", "keep", "done-"),
        avoid=("tickets", "station", "withdraw"),
        followed=True,
    ),
    Plan("mini-express", ("Jana", "Petr", "Eva"), prefer=("build", "share")),
    # keep no die and never reroll: a turn is a roll, its use and a delivery, not a dice game
    # of its own (the rerolls and the dice kept are the tree's own tests' business)
    Plan("trains-and-stations", ("Jana", "Petr", "Eva"), prefer=("keep-none",), avoid=("reroll",)),
]


@dataclass
class Tally:
    taps: int = 0
    turns: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))

    def report(self, game: str) -> str:
        lines = [f"{game}: {self.taps} taps"]
        for kind, counts in sorted(self.turns.items()):
            lines.append(
                f"  {kind}: {len(counts)}×, taps median {statistics.median(counts)}, "
                f"max {max(counts)}"
            )
        return "\n".join(lines)


def sign_in(page: Page, base: str) -> None:
    page.goto(f"{base}/table")
    page.fill("input[name=pin]", PIN)
    page.fill("input[name=who]", "Scorekeeper")
    page.click("main form button[type=submit]")
    expect(page.locator(".who")).to_contain_text("Signed in")


def start(page: Page, plan: Plan) -> None:
    page.select_option("#start select[name=game]", plan.game)
    for i, name in enumerate(plan.players):
        page.fill(f"#start input[name=name_{i}]", name)  # the only typing
    page.click("#start button[type=submit]")
    expect(page.locator("#enter")).to_be_visible()


def buttons(page: Page) -> list[tuple[str, str]]:
    """(path, label) of every choice on the screen (read in one call to the page)."""
    return [
        (str(path or ""), str(label).strip())
        for path, label in page.eval_on_selector_all(
            "#enter .choice", "els => els.map(e => [e.dataset.path, e.innerText])"
        )
    ]


def tap(page: Page, path: str, tally: Tally) -> None:
    live_click(page, f'#enter .choice[data-path="{path}"]')
    tally.taps += 1


def follows(page: Page, service: Trackside) -> float:
    """Wait until ``page`` shows the table's newest version by its own live update; returns
    how long that took after the move was in (s), for the report."""
    began = time.monotonic()
    page.wait_for_function(
        """v => { const m = document.getElementById('live-meta');
                  const b = document.getElementById('board');
                  const shown = m ? m.dataset.version : (b ? b.dataset.version : null);
                  return shown !== null && parseInt(shown, 10) >= v; }""",
        arg=service.latest()[0],
    )
    return time.monotonic() - began


def last_key(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def pick(options: list[tuple[str, str]], plan: Plan, rng: random.Random) -> str:
    game = [p for p, _ in options if not last_key(p).startswith("table-")]
    usable = [p for p in game if not any(last_key(p).startswith(a) for a in plan.avoid)] or game
    for key in plan.prefer:
        hits = [p for p in usable if last_key(p).startswith(key)]
        if hits:
            if key == "claim" or "/" in hits[0]:
                return rng.choice(hits)
            return hits[0]
    return rng.choice(usable)


def walk_to_leaf(page: Page, plan: Plan, rng: random.Random, tally: Tally, first: str) -> str:
    """Tap ``first`` and then one choice per screen until a leaf was posted; returns the turn
    kind (the first key) and records the taps it took."""
    taps = 0
    path = first
    while True:
        leaf = page.locator(f'#enter button.choice[data-path="{path}"]').count() > 0
        tap(page, path, tally)
        taps += 1
        if leaf:
            break
        if path.startswith("~viewer"):
            # the phone is passed to that player: their own tree, from its top
            options = [(p, label) for p, label in buttons(page) if not p.startswith("table-")]
        else:
            options = [(p, label) for p, label in buttons(page) if p.startswith(path + "/")]
        assert options, f"{plan.game}: nothing under {path}"
        path = pick(options, plan, rng)
    kind = first.split("/", maxsplit=1)[0]
    kind = "secret choices" if kind.startswith("~viewer") else kind
    tally.turns[kind].append(taps)
    return kind


def no_refusal(page: Page) -> None:
    flashes = page.locator(".flash.error, .messages .error").all_inner_texts()
    assert not flashes, flashes


PLAYER_PIN = "2468"


def private_phones(  # noqa: PLR0917 (a test helper: the table's page and the phones)
    browser: Browser, table: Page, base: str, plan: Plan, tally: Tally, phones: dict[int, Page]
) -> bool:
    """A game with players' own pages (/me) takes its secret choices there, never on the shared
    screen. The first time, the table grants each player a one-time seat code (one tap on the
    table page), the player opens it on their own phone and chooses a PIN (typed: the one
    exception to "taps only"); after that each phone taps through its "secret choices" like the
    table page. Returns whether any player entered something."""
    answered = False
    for i in range(len(plan.players)):
        me = phones.get(i)
        if me is None:
            table.goto(f"{base}/table#private-pins")
            table.locator(f'button[aria-label="Give {plan.players[i]} a seat code"]').click()
            tally.taps += 1
            code = table.locator(f'.seat-code[data-player="{i}"]').inner_text().strip()
            me = browser.new_context(viewport=PHONE, has_touch=True).new_page()
            me.goto(f"{base}/me/{i}?code={code}")
            me.fill("input[name=pin]", PLAYER_PIN)
            if me.locator("input[name=pin_again]").count():
                me.fill("input[name=pin_again]", PLAYER_PIN)
            me.click("main form button[type=submit]")
            me.locator("#holdings").wait_for(timeout=10_000)  # the player's own page
            phones[i] = me
        me.goto(f"{base}/me")
        taps = 0
        while me.locator("#secret .choice").count() and taps < 12:
            options = [
                (str(path), str(label))
                for path, label in me.eval_on_selector_all(
                    "#secret .choice", "els => els.map(e => [e.dataset.path, e.innerText])"
                )
            ]
            path = pick(options, plan, random.Random(taps))
            me.locator(f'#secret .choice[data-path="{path}"]').first.click()
            me.wait_for_load_state("domcontentloaded")
            taps += 1
            if me.locator(".flash.error, .messages .error").count():
                raise AssertionError(me.locator(".flash.error, .messages .error").all_inner_texts())
            if not me.url.endswith("#secret") and "at=" not in me.url:
                break  # a leaf: entered, back at the top of the player's page
        if taps:
            tally.taps += taps
            tally.turns["secret choice (own phone)"].append(taps)
            answered = True
    return answered


def shoot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"table-{name}-390x844.png"), full_page=False)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"{name} is {width} px wide on a phone"
    page.set_viewport_size(DESK)
    page.screenshot(path=str(ARTIFACTS / f"table-{name}-1280x800.png"), full_page=False)
    page.set_viewport_size(PHONE)


@pytest.mark.slow
@pytest.mark.timeout(int(TIME_LIMIT_S) + 60)
@pytest.mark.parametrize("plan", GAMES, ids=[g.game for g in GAMES])
def test_a_whole_game_by_taps_only(service: Trackside, browser: Browser, plan: Plan) -> None:
    service.app.config["SHOW_HIDDEN_GAMES"] = True
    base = f"http://127.0.0.1:{service.web_port}"
    context = browser.new_context(viewport=PHONE, device_scale_factor=1, has_touch=True)
    page = context.new_page()
    rng = random.Random(13)
    tally = Tally()
    phones: dict[int, Page] = {}
    began = time.monotonic()
    tablet: Page | None = None
    tv: Page | None = None
    lags: list[float] = []
    try:
        sign_in(page, base)
        start(page, plan)
        if plan.followed:
            tablet = browser.new_context(viewport=DESK).new_page()
            sign_in(tablet, base)
            tv = browser.new_context(viewport=TV).new_page()
            tv.goto(f"{base}/")
            tv.wait_for_selector("#board .headline")
            for other in (tablet, tv):
                other.evaluate("() => { window.__noReload = true; }")
        leaves = 0
        undone = corrected = shot = False
        while tally.taps < MAX_TAPS:
            assert time.monotonic() - began < TIME_LIMIT_S, tally.report(plan.game)
            # A tapped leaf lands back on the table page, drawn after the move: the next turn
            # is read from what the person sees there, with no reload in between.
            if "viewer=" in page.url:
                # a passed phone's secret choice was entered: its holder hands it back
                live_click(page, ".secret-note a.crumb.back")
                tally.taps += 1
            actor = page
            if tablet is not None and leaves % 2:
                actor = tablet  # every other move entered on the tablet
                follows(actor, service)
            top = buttons(actor)
            keys = [p for p, _ in top]
            if not shot and leaves >= 6:
                shoot(page, plan.game)
                shot = True
            if leaves == 4 and not undone:
                # a mistake: the wrong input, seen at once and undone with one tap
                walk_to_leaf(page, plan, rng, tally, pick(top, plan, rng))
                assert "table-undo" in [p for p, _ in buttons(page)]
                tap(page, "table-undo", tally)
                no_refusal(page)
                tally.turns["undo"].append(1)
                undone = True
                continue
            if leaves == 8 and not corrected and "table-correct" in keys:
                # an earlier entry corrected: the log line, then the same guided choices
                tap(page, "table-correct", tally)
                lines = [p for p, _ in buttons(page) if p.startswith("table-correct/")]
                walk_to_leaf(page, plan, rng, tally, lines[-1])
                tally.turns["correct"].append(tally.turns.pop("table-correct")[-1] + 1)
                no_refusal(page)
                corrected = True
                continue
            game_keys = [p for p in keys if not p.startswith("table-")]
            if (
                not game_keys
                and "/me" in page.content()
                and private_phones(browser, page, base, plan, tally, phones)
            ):
                # the table page follows what the players entered on their phones by itself
                follows(page, service)
                continue
            if not game_keys:
                # the rules say the game is over: only the table's steps are left
                waiting = page.locator("#game .waiting").inner_text()
                assert "Game over" in waiting, f"stuck: {waiting!r}\n{tally.report(plan.game)}"
                break
            walk_to_leaf(actor, plan, rng, tally, pick(top, plan, rng))
            no_refusal(actor)
            leaves += 1
            if tablet is not None and tv is not None:
                for other in (tv, page if actor is tablet else tablet):
                    lags.append(follows(other, service))
                if not service.latest()[1].get("over"):
                    # nothing reloaded while the game runs: the marks set at the start are
                    # still there (the game's end loads the table page anew: its sections
                    # change from the game's steps to a new game's form)
                    assert tablet.evaluate("() => window.__noReload === true")
        assert undone and corrected, tally.report(plan.game)
        if tablet is not None and tv is not None:
            assert tv.evaluate("() => window.__noReload === true")  # the TV never reloads
            lags.sort()
            print(
                f"\n{plan.game}: {len(lags)} moves followed on another screen; "
                f"median {statistics.median(lags) * 1000:.0f} ms, "
                f"max {lags[-1] * 1000:.0f} ms (under the test's own load)"
            )
        filed = service.store.games()[-1].ended_at is not None
        if plan.game in ("tiny-race", "ticket-to-ride-europe", "russian-railroads"):
            assert filed, "the last move ends the game by its rules"
        if not filed:
            # the players tell their special cards on their phones after the last move (Trains
            # & Stations), or the table filled a share value the final scoring needed (Mini
            # Express): the table ends the game itself, with a confirmation that says so
            tap(page, "table-end", tally)
            expect(page.locator("#enter")).to_contain_text("final scoring")
            tap(page, "table-end/finished", tally)
            no_refusal(page)
        else:
            # the last move ended the game by its rules: filed as finished with no tap for it
            expect(page.locator("#log li").first).to_contain_text("the rules")
            expect(page.locator("#log li").first).to_contain_text("game ended: final scoring")
        # the final scoring filed, a new game's form open, and the way back if it was wrong
        expect(page.locator("#start")).to_be_visible()
        assert [p for p, _ in buttons(page)] == ["table-reopen"]
        assert service.store.games()[-1].ended_at is not None
        print("\n" + tally.report(plan.game))
    finally:
        for other in (tablet, tv):
            if other is not None:
                other.context.close()
        context.close()
