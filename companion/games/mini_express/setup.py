"""Setup per variant (PŘÍPRAVA HRY and the variants' setup sections) and the starting draft."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from companion.core.errors import IllegalActionError, SnapshotError
from companion.core.game import PlayerSpec
from companion.core.messages import msg, plural
from companion.core.snapshot import Field
from companion.games.mini_express.board_table import ShareValueTable
from companion.games.mini_express.data import (
    AUTOMA_NAME,
    COMPANIES,
    INFLUENCE_AT_START,
    LEVELS,
    MAPS,
    SHARE_SPLIT,
    SOLO,
    STANDARD,
    TRACK_LENGTH_MAX,
    TRAINS_ON_FIELD_AT_START,
    TRAINS_ON_MAP_AT_START,
    TRAINS_PER_COMPANY,
    TWO_EXPERIENCED_VARIANT,
    TWO_PLAYER_AUTOMA,
    UNCLAIMED_SHARE_STEPS,
    VARIANTS,
)
from companion.games.mini_express.names import (
    SETUP,
    SOLO_SETUP,
    TWO_EXPERIENCED,
    company_name,
    point,
)
from companion.games.mini_express.state import (
    AUTOMA_SETUP,
    DRAFT,
    PLAY,
    Automa,
    Company,
    MiniExpressState,
    Player,
)

HUMANS = {
    STANDARD: (3, 5),
    TWO_PLAYER_AUTOMA: (2, 2),
    TWO_EXPERIENCED_VARIANT: (2, 2),
    SOLO: (1, 1),
}


@dataclass(frozen=True, slots=True)
class Variant:
    name: str
    level: str | None = None

    @property
    def label(self) -> str:
        return f"{SOLO}:{self.level}" if self.level is not None else self.name

    @property
    def has_automa(self) -> bool:
        return self.name in (TWO_PLAYER_AUTOMA, SOLO)


def parse_variant(field: Field) -> Variant:
    """``standard``, ``two_player_automa``, ``two_experienced`` or ``solo:<level>``."""
    text = field.str()
    if text.startswith(f"{SOLO}:"):
        level = text.removeprefix(f"{SOLO}:")
        if level not in LEVELS:
            field.fail(f"unknown solo level {level!r}; levels: {', '.join(LEVELS)}")
        return Variant(SOLO, level)
    if text not in VARIANTS or text == SOLO:
        field.fail(
            f"{text!r} is not one of standard, two_player_automa, two_experienced, "
            f"solo:<{'|'.join(LEVELS)}>"
        )
    return Variant(text)


def setup(players: Sequence[PlayerSpec], options: Mapping[str, Any]) -> MiniExpressState:
    opts = Field(dict(options), "options")
    opts.only("variant", "map", "golden_spike", "harbours", "share_values", "start_player")
    count = len(players)
    default = STANDARD if count >= 3 else ""
    if not opts.has("variant") and not default:
        raise SnapshotError(
            "options.variant",
            f"{count} player(s): say which variant (two_player_automa, two_experienced, "
            f"solo:<{'|'.join(LEVELS)}>)",
        )
    variant = parse_variant(opts.get("variant", default))
    lo, hi = HUMANS[variant.name]
    if not lo <= count <= hi:
        raise IllegalActionError(
            plural(
                "{n} player for this variant, which takes {lo}–{hi}",
                "{n} players for this variant, which takes {lo}–{hi}",
                "n",
                n=count,
                lo=lo,
                hi=hi,
            ),
            rule=msg("each variant is for its own number of players"),
            section=SETUP,
        )
    names = [p.name for p in players]
    if len(set(names)) != len(names) or AUTOMA_NAME in names:
        raise IllegalActionError(
            msg("two players have the same name, or a player is called “automa”"),
            rule=msg("one name per player; “automa” is the Mašinfíra's"),
            section=SETUP,
        )
    game_map = opts.get("map", "usa").str(MAPS)
    golden_spike = opts.get("golden_spike", False).bool()
    harbours = opts.get("harbours", False).bool()
    if golden_spike and game_map != "usa":
        opts.get("golden_spike").fail("the Golden Spike variant is played on the USA map")
    if harbours and game_map != "europe":
        opts.get("harbours").fail("the Harbours variant is played on the Europe map")
    # The board table: the rulebook's cells plus what the owner entered once.
    table = ShareValueTable.from_rulebook()
    if opts.has("share_values"):
        entered = ShareValueTable.parse(opts.get("share_values"))
        try:
            table = table.fill(entered.cells())
        except IllegalActionError as exc:
            opts.get("share_values").fail(str(exc))
    start = opts.get("start_player", 0).int(lo=0, hi=count - 1)
    if variant.has_automa and start != 0:
        opts.get("start_player").fail(
            "with the automa, list the start player first (the automa plays last)"
        )

    on_board, set_aside, _box = SHARE_SPLIT[(variant.name, count)]
    companies = tuple(
        Company(
            shares_on_board=on_board,
            shares_set_aside=set_aside,
            trains_on_field=TRAINS_ON_FIELD_AT_START,
            trains_in_supply=TRAINS_PER_COMPANY - TRAINS_ON_MAP_AT_START - TRAINS_ON_FIELD_AT_START,
            track_length=0,
        )
        for _ in COMPANIES
    )
    human_influence = INFLUENCE_AT_START
    automa_influence = INFLUENCE_AT_START
    if variant.level == "ajznbonak":
        # Nastavení obtížnosti, Ajznboňák: automa starts at 2, the player at 0
        human_influence, automa_influence = 0, 2
    zero = (0,) * len(COMPANIES)
    seats = [Player(n, zero, (human_influence,) * len(COMPANIES)) for n in names]
    automa = None
    if variant.has_automa:
        # Příprava sólové hry I.–III. (the 2-player game does I.–III. too). In the 2-player
        # game step IV (the automa's starting shares) is skipped, so the refresh tokens go
        # straight back into the bag (V.); in solo they wait until IV is done.
        seats.append(Player(AUTOMA_NAME, zero, (automa_influence,) * len(COMPANIES), True))
        automa = Automa(refresh_in_bag=variant.name == TWO_PLAYER_AUTOMA)
    return MiniExpressState(
        variant=variant.name,
        level=variant.level,
        map=game_map,
        golden_spike=golden_spike,
        harbours=harbours,
        share_values=table,
        companies=companies,
        players=tuple(seats),
        start_player=start,
        phase=DRAFT,
        automa=automa,
        golden_spike_state="waiting" if golden_spike else "",
    )


# -- the starting draft (setup step 9) ---------------------------------------------------------
def draft_order(state: MiniExpressState) -> tuple[int, ...]:
    """Who picks, in order. Standard and 2 players with the automa: clockwise from the start
    player, then back counter-clockwise (the last to pick first picks second first). Solo: the
    player picks twice. 2 experienced players: start, start, second (the last company is
    shared out automatically)."""
    humans = [i for i, p in enumerate(state.players) if not p.is_automa]
    n = len(state.players)
    clockwise = sorted(humans, key=lambda i: (i - state.start_player) % n)
    if state.variant == SOLO:
        return (humans[0], humans[0])
    if state.variant == TWO_EXPERIENCED_VARIANT:
        return (clockwise[0], clockwise[0], clockwise[1])
    return (*clockwise, *reversed(clockwise))


def next_drafter(state: MiniExpressState) -> int | None:
    order = draft_order(state)
    return order[len(state.draft_picks)] if len(state.draft_picks) < len(order) else None


def draft_share(state: MiniExpressState, player: int, company: str) -> MiniExpressState:
    if state.variant == TWO_EXPERIENCED_VARIANT:
        return _draft_two_experienced(state, player, company)
    section = SOLO_SETUP if state.variant == SOLO else point(SETUP, 9)
    if state.company(company).shares_set_aside == 0:
        raise IllegalActionError(
            msg(
                "no {company} share is left among the set-aside shares",
                company=company_name(company),
            ),
            rule=msg("the starting shares come from those set aside in step 3"),
            section=section,
        )
    mine = [c for p, c in state.draft_picks if p == player]
    if company in mine:
        raise IllegalActionError(
            msg(
                "{player} already has a {company} share",
                player=state.players[player].name,
                company=company_name(company),
            ),
            rule=msg("each player's two starting shares are of two different companies"),
            section=section,
        )
    if mine:
        pair = frozenset((mine[0], company))
        for other in {p for p, _ in state.draft_picks if p != player}:
            theirs = frozenset(c for p, c in state.draft_picks if p == other)
            if theirs == pair:
                raise IllegalActionError(
                    msg(
                        "{player} already holds {first} + {second}",
                        player=state.players[other].name,
                        first=company_name(sorted(pair)[0]),
                        second=company_name(sorted(pair)[-1]),
                    ),
                    rule=msg("no two players may start with the same two companies"),
                    section=section,
                )
    c = state.company(company)
    state = state.with_company(company, replace(c, shares_set_aside=c.shares_set_aside - 1))
    state = state.with_player(player, state.players[player].with_share(company))
    state = replace(state, draft_picks=(*state.draft_picks, (player, company)))
    if next_drafter(state) is None:
        return _after_draft(state)
    return state


def _draft_two_experienced(state: MiniExpressState, player: int, company: str) -> MiniExpressState:
    """HRA PRO 2 ZKUŠENÉ HRÁČE, 9.: the start player takes 2 shares of a company, then picks a
    second company of which both take 1; the other player takes 2 of one of the two companies
    left; both take 1 of the last company."""
    if company in {c for _, c in state.draft_picks}:
        raise IllegalActionError(
            msg("{company} was already chosen in the draft", company=company_name(company)),
            rule=msg("each step of the draft chooses a different company"),
            section=point(TWO_EXPERIENCED, 9),
        )
    step = len(state.draft_picks)
    humans = list(range(len(state.players)))
    other = next(i for i in humans if i != player)
    state = replace(state, draft_picks=(*state.draft_picks, (player, company)))
    if step in (0, 2):
        state = _give_set_aside(state, player, company, 2)
    else:
        state = _give_set_aside(_give_set_aside(state, player, company, 1), other, company, 1)
    if step == 2:
        last = next(c for c in COMPANIES if c not in {c for _, c in state.draft_picks})
        for i in humans:
            state = _give_set_aside(state, i, last, 1)
        return _after_draft(state)
    return state


def _give_set_aside(state: MiniExpressState, player: int, company: str, n: int) -> MiniExpressState:
    c = state.company(company)
    state = state.with_company(company, replace(c, shares_set_aside=c.shares_set_aside - n))
    return state.with_player(player, state.players[player].with_share(company, n))


def _after_draft(state: MiniExpressState) -> MiniExpressState:
    if state.variant == STANDARD:
        # PŘÍPRAVA HRY 10.: each unclaimed share moves its company's track length 1 step
        # (4 players) or 2 steps (3 and 5 players); the shares go back to the box
        steps = UNCLAIMED_SHARE_STEPS[len(state.players)]
        for name in COMPANIES:
            c = state.company(name)
            length = min(TRACK_LENGTH_MAX, c.track_length + steps * c.shares_set_aside)
            state = state.with_company(name, replace(c, track_length=length, shares_set_aside=0))
        return replace(state, phase=PLAY)
    if state.variant == TWO_PLAYER_AUTOMA:
        # HRA PRO 2 HRÁČE (s Mašinfírou), 10.: the unclaimed shares go to the
        # automa; the track-length markers do not move
        index = state.automa_index
        assert index is not None
        for name in COMPANIES:
            c = state.company(name)
            state = state.with_player(
                index, state.players[index].with_share(name, c.shares_set_aside)
            )
            state = state.with_company(name, replace(c, shares_set_aside=0))
        return replace(state, phase=PLAY)
    if state.variant == SOLO:
        # Příprava sólové hry 10. → IV.: the automa draws its starting shares next
        return replace(state, phase=AUTOMA_SETUP)
    return replace(state, phase=PLAY)  # 2 experienced: all 8 shares taken, step 10 skipped


def finish_automa_setup(state: MiniExpressState) -> MiniExpressState:
    """Příprava sólové hry V.: the refresh tokens go into the bag; the set-aside shares nobody
    took go back to the box (step 10 is replaced: no track-length marker moves)."""
    automa = state.automa
    assert automa is not None
    for name in COMPANIES:
        state = state.with_company(name, replace(state.company(name), shares_set_aside=0))
    return replace(state, phase=PLAY, automa=replace(automa, refresh_in_bag=True))


AUTOMA_SETUP_DRAWS = 2
"""Příprava sólové hry IV. a–b: two tokens, one starting share (Šotouš and up: two) each."""

__all__ = [
    "AUTOMA_SETUP_DRAWS",
    "Variant",
    "draft_order",
    "draft_share",
    "finish_automa_setup",
    "next_drafter",
    "parse_variant",
    "setup",
]
