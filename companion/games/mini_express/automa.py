"""The automa ("Mašinfíra"), solo and 2-player (Tah Mašinfíry v sólové hře).

The table draws tokens from the bag and enters (or scans) the two numbers on each; Trackside
moves the company pointer, keeps the bag's contents (drawn tokens stay out until a refresh
token is drawn), decides share-or-build by the trains on the chosen company's field, takes the
free share, and applies a build the table reports. Where the build target needs the map
(nearest city to the city pointer, shortest track, the clockwise rule), :func:`build_guidance`
says which rule applies and the players place the trains.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from companion.core.errors import IllegalActionError
from companion.core.messages import Message, Text, msg
from companion.core.snapshot import Field
from companion.games.mini_express.data import (
    LEVELS,
    POINTER_ORDER,
    SOLO,
    TURISTA_LAST_CITY,
)
from companion.games.mini_express.moves import BuildReport, automa_take_share, build
from companion.games.mini_express.names import AUTOMA_TURN, SOLO_LEVELS, SOLO_SETUP, company_name
from companion.games.mini_express.state import Automa, MiniExpressState, Token

REFRESH = "refresh"
SHARE_MAX_TRAINS = 2
"""Tah Mašinfíry 2.A: 0–2 trains on the field → the automa takes a share; 3–5 → it builds."""

TOKEN_NUMBER_MAX = 9
"""The printed numbers are not public; this only catches typos."""


@dataclass(frozen=True, slots=True)
class Draw:
    token: Token | None
    """None for a refresh token."""


def parse_draw(field: Field) -> Draw:
    if field.value == REFRESH:
        return Draw(None)
    field.only("city", "company")
    return Draw(
        Token(
            city=field.get("city").int(lo=0, hi=TOKEN_NUMBER_MAX),
            company=field.get("company").int(lo=0, hi=TOKEN_NUMBER_MAX),
        )
    )


def _refuse(message: Text, rule: Text, section: Text = AUTOMA_TURN) -> IllegalActionError:
    return IllegalActionError(message, rule=rule, section=section)


def draw_token(automa: Automa, draw: Draw) -> Automa:
    """Take one token out of the bag. A refresh token puts every drawn token back (itself
    included) and another token is drawn (Tah Mašinfíry, Pozn. on the refresh icon)."""
    if draw.token is None:
        if not automa.refresh_in_bag:
            raise _refuse(
                msg("the refresh tokens are not in the bag yet"),
                msg(
                    "the 2 refresh tokens stay aside until the Mašinfíra's starting shares are drawn"
                ),
                SOLO_SETUP,
            )
        return replace(automa, drawn=())
    if automa.regular_in_bag == 0:
        raise _refuse(
            msg("all 12 numbered tokens are out of the bag: the draw can only be a refresh token"),
            msg("drawn tokens stay out of the bag until a refresh token is drawn"),
        )
    return replace(automa, drawn=(*automa.drawn, draw.token))


def move_company_pointer(automa: Automa, steps: int) -> Automa:
    """Lumber -> Steel -> Leather -> Cotton -> Lumber (the asset board's order)."""
    return replace(automa, company_pointer=(automa.company_pointer + steps) % len(POINTER_ORDER))


def chosen_company(automa: Automa) -> str:
    return POINTER_ORDER[automa.company_pointer]


# -- setup step IV ------------------------------------------------------------------------------
def setup_draw(state: MiniExpressState, draw: Draw) -> MiniExpressState:
    """Příprava sólové hry IV.: the company pointer moves by the token's bottom number and the
    automa takes a set-aside share of that company (Šotouš and up: 2 shares). The city pointer
    does not move; the token stays out of the bag."""
    assert state.automa is not None
    automa_index = state.automa_index
    assert automa_index is not None
    if draw.token is None:
        raise _refuse(
            msg("no refresh token is in the bag during setup"),
            msg("the 2 refresh tokens are set aside before the starting shares are drawn"),
            SOLO_SETUP,
        )
    automa = move_company_pointer(draw_token(state.automa, draw), draw.token.company)
    name = chosen_company(automa)
    wanted = 2 if state.level_at >= LEVELS.index("sotous") else 1
    company = state.company(name)
    # The rulebook does not say what happens when fewer set-aside shares are left than the
    # automa should take; Trackside gives what is left (documented in docs/formats).
    taken = min(wanted, company.shares_set_aside)
    state = state.with_company(
        name, replace(company, shares_set_aside=company.shares_set_aside - taken)
    )
    state = state.with_player(automa_index, state.players[automa_index].with_share(name, taken))
    return replace(state, automa=automa)


# -- a turn -------------------------------------------------------------------------------------
def automa_turn(
    state: MiniExpressState,
    draws: list[Draw],
    city_number: int | None,
    report_field: Field | None,
) -> MiniExpressState:
    """One automa turn from the tokens drawn, in order, and the build the table reports.

    The first numbered token moves both pointers; a numbered token drawn because the chosen
    company could not act moves only the company pointer (A.ii, B.v). A build-type company
    followed by another draw means the table found no legal build for it (B.v)."""
    assert state.automa is not None
    index = state.automa_index
    assert index is not None
    if not draws:
        raise _refuse(
            msg("draw a token first"), msg("the Mašinfíra's turn starts with a token from the bag")
        )
    automa = state.automa
    first_numbered = True
    done = False
    for n, draw in enumerate(draws):
        if done:
            raise _refuse(
                msg("draw {n}: the Mašinfíra has already acted this turn", n=n + 1),
                msg("the Mašinfíra draws again only when the chosen company cannot act"),
            )
        automa = draw_token(automa, draw)
        if draw.token is None:
            continue
        automa = move_company_pointer(automa, draw.token.company)
        if first_numbered:
            automa = _move_city_pointer(state, automa, draw.token, city_number)
            first_numbered = False
            if _ends_at_city_32(state, automa):
                # Nastavení obtížnosti: "Hra končí okamžitě, jakmile ukazatel cílového města
                # Mašinfíry dorazí do města s číslem 32": at once — the automa takes no action
                if report_field is not None or n < len(draws) - 1:
                    raise _refuse(
                        msg(
                            "the city pointer reached city {n}: the game ends at once and the "
                            "Mašinfíra takes no action — enter only the token that moved it, "
                            "without a build",
                            n=TURISTA_LAST_CITY,
                        ),
                        msg("the game ends immediately when the city pointer reaches city 32"),
                        SOLO_LEVELS,
                    )
                return replace(state, automa=automa)
        name = chosen_company(automa)
        company = state.company(name)
        last = n == len(draws) - 1
        if company.trains_on_field <= SHARE_MAX_TRAINS:
            if company.exhausted or company.shares_on_board == 0:
                if last:
                    raise _refuse(
                        msg(
                            "the Mašinfíra would take a {company} share but none is left: draw "
                            "another token (the city pointer does not move)",
                            company=company_name(name),
                        ),
                        msg("no share to take: draw a new token"),
                    )
                continue
            if report_field is not None and last:
                raise _refuse(
                    msg(
                        "the Mašinfíra takes a {company} share ({n} trains on its field), it "
                        "does not build",
                        company=company_name(name),
                        n=company.trains_on_field,
                    ),
                    msg("with 0–2 trains on the field, the Mašinfíra takes a share"),
                )
            state = replace(state, automa=automa)
            state = automa_take_share(state, index, name)
            done = True
        elif last:
            if report_field is None:
                raise _refuse(
                    msg(
                        "the Mašinfíra builds for {company} ({n} trains on its field): report "
                        "the build, or draw again if it has no legal build. {how}",
                        company=company_name(name),
                        n=company.trains_on_field,
                        how=build_guidance(),
                    ),
                    msg("with 3–5 trains on the field, the Mašinfíra builds"),
                )
            report = BuildReport.parse(report_field, company=name)
            state = build(replace(state, automa=automa), index, report, by_automa=True)
            done = True
        # else: a build-type company with another draw after it: no legal build (B.v)
    if not done:
        raise _refuse(
            msg("the last token drawn was a refresh token: draw another"),
            msg("after a refresh token another token is drawn for the action"),
        )
    return state


def _ends_at_city_32(state: MiniExpressState, automa: Automa) -> bool:
    return (
        state.variant == SOLO
        and state.level_at >= LEVELS.index("turista")
        and automa.city_number == TURISTA_LAST_CITY
    )


def _move_city_pointer(
    state: MiniExpressState, automa: Automa, token: Token, city_number: int | None
) -> Automa:
    """1.b: the city pointer moves by the top number (skipping cities without a demand token,
    which the players see on the map); the table reports the city number it reaches."""
    previous = automa.city_number
    if city_number is None:
        if state.level_at >= LEVELS.index("turista") and token.city > 0:
            raise _refuse(
                msg("say the number of the city the city pointer reaches"),
                msg("Turista: the game ends when the city pointer reaches city 32"),
                SOLO_LEVELS,
            )
        return automa
    if previous is not None and city_number < previous:
        raise _refuse(
            msg(
                "the city pointer is on city {previous}; it cannot go back to {number}",
                previous=previous,
                number=city_number,
            ),
            msg(
                "the city pointer only moves on (down each column, then to the column on the left)"
            ),
        )
    return replace(automa, city_number=city_number)


def build_guidance() -> Message:
    """What the players do on the map when the automa builds (Tah Mašinfíry B.i–ii)."""
    return msg(
        "Build to the reachable, legal city nearest the city pointer (counting landscape "
        "spaces); ties: the shortest track, then the city with trains of more companies, then "
        "the higher city number. Of several shortest tracks, start from the space that comes "
        "first for the city pointer (most east, then most north); of several tracks from it, "
        "take the one the clockwise rule gives."
    )


__all__ = [
    "REFRESH",
    "Draw",
    "automa_turn",
    "build_guidance",
    "chosen_company",
    "parse_draw",
    "setup_draw",
]
