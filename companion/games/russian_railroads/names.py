"""Russian Railroads' components in the players' words: tracks, rails, action spaces, tokens,
cards, factories and engineers as messages (``companion.core.messages``).

The game's data modules keep stable ids and plain English for developers; every surface a
player reads takes its words from here, rendered in the reader's language. The catalogues use
the rulebooks' own terms: the Czech seed 000 ("tři kroky černou kolejnicí", "ukazatel
průmyslového rozvoje", "žeton zdvojnásobení", "tyrkysoví dělníci", "Kyjevská medaile") and
the Spanish seed 004 ("avance de vía", "Transiberiano", "ferrocarril de San Petersburgo").
"""

from __future__ import annotations

from typing import Final

from companion.core.messages import Message, Text, join_texts, msg, plural
from companion.games.russian_railroads.action_board import (
    SPACE_BY_KEY,
    ActionSpace,
    parse_grant,
)
from companion.games.russian_railroads.board_data import (
    COLOURS,
    ENGINEERS,
    KIEV,
    ST_PETERSBURG,
    TRANS_SIBERIAN,
)

TRACK_NAMES: Final[dict[str, Message]] = {
    TRANS_SIBERIAN: msg("the Trans-Siberian Railway"),
    ST_PETERSBURG: msg("the line to St. Petersburg"),
    KIEV: msg("the line to Kiev"),
}
"""A track inside a sentence ("… on {track}")."""

TRACK_DESTINATIONS: Final[dict[str, Message]] = {
    TRANS_SIBERIAN: msg("to the Trans-Siberian Railway", context="track"),
    ST_PETERSBURG: msg("to the line to St. Petersburg", context="track"),
    KIEV: msg("to the line to Kiev", context="track"),
}
"""Where a locomotive goes, each track whole: the preposition agrees with its track (Spanish
"al Transiberiano" but "a la línea…"; Czech "na Transsibiřskou magistrálu", accusative)."""

RAIL_COLOURS: Final[dict[str, Message]] = {
    "black": msg("black", context="rail"),
    "grey": msg("grey", context="rail"),
    "brown": msg("brown", context="rail"),
    "natural": msg("natural", context="rail"),
    "white": msg("white", context="rail"),
    "unbuilt": msg("no rail yet", context="rail"),  # spaces beyond the black rail (no points)
}
"""A rail's colour on its own ("černá"; the natural rails are "bezbarvé" in seed 000)."""


def track_name(track: str) -> Text:
    return TRACK_NAMES.get(track, track)


def to_track(track: str) -> Text:
    """ "to the Trans-Siberian Railway": where a locomotive or a factory goes."""
    return TRACK_DESTINATIONS.get(track, track)


def rail_colour(colour: str) -> Text:
    return RAIL_COLOURS.get(colour, colour)


def steps(count: int, colour: str, *, up_to: bool = False) -> Message:
    """ "3 black steps" — seed 000 says "tři kroky černou kolejnicí" (steps *with* a rail), the
    Spanish seed "avances de vía"; ``colour`` "any" for any rails."""
    key = {
        ("black", False): plural("{n} black step", "{n} black steps", "n", n=count),
        ("grey", False): plural("{n} grey step", "{n} grey steps", "n", n=count),
        ("brown", False): plural("{n} brown step", "{n} brown steps", "n", n=count),
        ("natural", False): plural("{n} natural step", "{n} natural steps", "n", n=count),
        ("white", False): plural("{n} white step", "{n} white steps", "n", n=count),
        ("any", False): plural("{n} step with any rail", "{n} steps with any rails", "n", n=count),
        ("black", True): plural("up to {n} black step", "up to {n} black steps", "n", n=count),
        ("any", True): plural(
            "up to {n} step with any rail", "up to {n} steps with any rails", "n", n=count
        ),
    }
    found = key.get((colour, up_to)) or key.get((colour, False))
    if found is None:  # "black|grey": one step with either
        colours = colour.split("|")
        return plural(
            "{n} step with a {first} or {second} rail",
            "{n} steps with {first} or {second} rails",
            "n",
            n=count,
            first=rail_colour(colours[0]),
            second=rail_colour(colours[-1]),
        )
    return found


def grant_message(grant: str) -> Message:
    """What an action space, token, card or factory gives, in words ("3 black steps",
    "a locomotive or a factory", "industry +2")."""
    g = parse_grant(grant)
    match g.kind:
        case "steps":
            colour = "any" if len(g.colours) == len(COLOURS) else "|".join(g.colours)
            return steps(g.count, colour, up_to=g.up_to)
        case "locomotive":
            return msg("a locomotive")
        case "factory":
            return msg("up to a factory") if g.up_to else msg("a factory")
        case "locomotive_or_factory":
            return msg("a locomotive or a factory")
        case "industry":
            if g.up_to:
                return msg("industry up to +{n}", n=g.count)
            return msg("industry +{n}", n=g.count)
        case "hire":
            return msg("hiring the engineer")
        case "repeat":
            return msg("repeating a one-worker action used this round")
        case "four_repeat":
            return msg("one of the card's three actions again")
        case "doublers":
            return plural("{n} doubler", "{n} doublers", "n", n=g.count)
        case "coins":
            return plural("{n} coin", "{n} coins", "n", n=g.count)
        case "temporary":
            return msg("2 temporary workers")
        case "points":
            return plural("{n} point", "{n} points", "n", n=g.count)
        case "turn_order":
            return msg("turn order space {n}", n=g.count)
    return msg("{what}", what=grant)


def grants_message(grants: tuple[str, ...]) -> Message:
    return join_texts([grant_message(g) for g in grants], ", ")


_SPACE_TITLES: Final[dict[str, Message]] = {
    "any_2": msg("up to 2 steps with any rails"),
    "black_or_grey": msg("1 black or grey step (may be used again)"),
    "locomotive_1": msg("a locomotive or a factory (1 worker)"),
    "locomotive_2": msg("a locomotive or a factory (2 workers)"),
    "locomotive_and_factory": msg("a locomotive and a factory"),
    "industry_black": msg("industry +1 and 1 black step"),
    "hire_engineer": msg("hire the engineer on the hiring space (1 coin)"),
    "industry_3": msg("industry +3 (the last round tile)"),
}


def space_title(space: ActionSpace | str) -> Text:
    """An action space's name as players say it ("3 black steps", "2 coins"); an engineer's
    space by what the engineer does."""
    found = space if isinstance(space, ActionSpace) else SPACE_BY_KEY.get(space)
    key = found.key if found is not None else str(space)
    if key.startswith("engineer_") and key.removeprefix("engineer_") in ENGINEERS:
        return msg("engineer: {engineer}", engineer=engineer_name(key.removeprefix("engineer_")))
    if key.startswith("own_engineer_"):
        number = key.removeprefix("own_engineer_")
        if found is None:
            return msg("own engineer {number}", number=number)
        return msg(
            "own engineer {number}: {what}", number=number, what=grants_message(found.grants)
        )
    if found is None:
        return key.replace("_", " ")
    if found.key in _SPACE_TITLES:
        return _SPACE_TITLES[found.key]
    return grants_message(found.grants)


def cost_message(space: ActionSpace) -> Text:
    """What a space costs: "2 workers", "1 worker and 1 coin"."""
    workers = plural("{n} worker", "{n} workers", "n", n=space.workers)
    coins = plural("{n} coin", "{n} coins", "n", n=space.coins)
    if space.workers and space.coins:
        return msg("{workers} and {coins}", workers=workers, coins=coins)
    return coins if space.coins else workers


ENGINEER_NAMES: Final[dict[str, Message]] = {
    "two_any": msg("2 steps with any rails", context="engineer"),
    "black_grey": msg("1 black and 1 grey step", context="engineer"),
    "any_3points": msg("1 step with any rail and 3 points", context="engineer"),
    "black_3points": msg("1 black step and 3 points", context="engineer"),
    "industry_two": msg("industry +2", context="engineer"),
    "any_black": msg("1 step with any rail and 1 black step", context="engineer"),
    "grey_brown": msg("1 grey and 1 brown step", context="engineer"),
    "brown_5points": msg("1 brown step and 5 points", context="engineer"),
    "two_black": msg("2 black steps", context="engineer"),
    "grey_5points": msg("1 grey step and 5 points", context="engineer"),
    "industry_3points": msg("industry +1 and 3 points", context="engineer"),
    "doubler_3points": msg("1 doubler and 3 points", context="engineer"),
    "repeat_action": msg("repeat a one-worker action you used this round", context="engineer"),
    "industry_black": msg("industry +1 and 1 black step", context="engineer"),
    "locomotive_or_factory": msg("take one locomotive or build one factory", context="engineer"),
}
"""The fifteen engineers by what they do (seed 000, "DESTIČKY INŽENÝRŮ")."""
assert set(ENGINEER_NAMES) == set(ENGINEERS)


def engineer_name(ability: str) -> Text:
    return ENGINEER_NAMES.get(ability, ability)


TOKEN_NAMES: Final[dict[str, Message]] = {
    "four_steps": msg("up to 4 steps with any rails", context="token"),
    "three_doublers": msg("3 doublers", context="token"),
    "industry_five": msg("industry up to +5", context="token"),
    "revaluation": msg("the revaluation token", context="token"),
    "second_industry_marker": msg("a second industry marker", context="token"),
    "kiev_medal": msg("the Kiev medal", context="token"),
    "question_card": msg("a “?” card and a bonus card", context="token"),
}
"""The seven "?" tokens (seed 000, "ŽETONY")."""

QUESTION_CARD_NAMES: Final[dict[str, Message]] = {
    "four_actions": msg("four actions: a doubler, industry +1, 1 black step, one again"),
    "engineer_and_coin": msg("the engineer without a letter and a coin"),
    "factory_and_industry": msg("a factory, then industry +2"),
    "black_worker": msg("the black worker"),
    "locomotive_9": msg("the level 9 locomotive"),
}
"""The five "?" cards (seed 000, "KARTY ?")."""

STARTING_BONUS_NAMES: Final[dict[str, Message]] = {
    "black_step": msg("1 black step", context="starting card"),
    "industry_step": msg("industry +1", context="starting card"),
    "doubler": msg("a doubler", context="starting card"),
    "coin": msg("a coin", context="starting card"),
}
"""The four starting bonus cards (seed 000, "POČÁTEČNÍ PRÉMIOVÉ KARTY")."""

FACTORY_FUNCTION_NAMES: Final[dict[str, Message]] = {
    "engineer_number_points": msg("points: the numbers on your engineers", context="factory"),
    "industry_step": msg("industry +1", context="factory"),
    "bonus_card_or_10": msg("a bonus card or 10 points", context="factory"),
    "locomotive_or_factory": msg("a locomotive or a factory", context="factory"),
    "coin": msg("a coin", context="factory"),
    "repeat_action": msg("repeat a one-worker action used this round", context="factory"),
    "two_any_steps": msg("2 steps with any rails", context="factory"),
    "two_doublers": msg("2 doublers", context="factory"),
    "best_two_locomotives_points": msg("points: your two strongest locomotives", context="factory"),
}
"""The nine factory functions (seed 000, "TOVÁRNY")."""

BONUS_CARD_NAMES: Final[dict[str, Message]] = {
    "points_15": msg("15 points", context="bonus card"),
    "extra_workers": msg("10 per gained worker (max 30)", context="bonus card"),
    "doublers": msg("4+ doublers 20, 7+ doublers 30", context="bonus card"),
    "terminus": msg("10 per black terminus (max 30)", context="bonus card"),
    "black_rails": msg("sum of the black rails' spaces", context="bonus card"),
    "engineer_count": msg("one more engineer for the majority", context="bonus card"),
    "factories": msg("4 per factory (max 20)", context="bonus card"),
    "locomotives": msg("sum of locomotive levels", context="bonus card"),
    "tokens": msg("7 per “?” token used (max 28)", context="bonus card"),
    "engineers_6": msg("6 per engineer", context="bonus card"),
}
"""The ten final bonus cards (seed 000, "KARTY CÍLOVÝCH BONUSŮ")."""


def named(table: dict[str, Message], key: str) -> Text:
    """``table[key]``, or the key in words for one the table lacks (never an underscore)."""
    return table.get(key, key.replace("_", " "))


def source_message(source: str) -> Text:
    """What gave an action, in words ("the space “3 black steps”", "the “?” token …")."""
    if source in SPACE_BY_KEY:
        return msg("the space “{space}”", space=space_title(source))
    if source.startswith("engineer_") and source.removeprefix("engineer_") in ENGINEERS:
        return msg(
            "the engineer space “{engineer}”",
            engineer=engineer_name(source.removeprefix("engineer_")),
        )
    if source.startswith("own_engineer_"):
        return msg("own engineer {number}", number=source.removeprefix("own_engineer_"))
    if source == "draft":
        return msg("the starting bonus draft")
    if source.startswith("turn order space "):
        return msg("turn order space {n}", n=source.removeprefix("turn order space "))
    kind, _, what = source.partition(" ")
    match kind:
        case "token":
            return msg("the “?” token “{token}”", token=named(TOKEN_NAMES, what))
        case "card":
            return msg("the “?” card “{card}”", card=named(QUESTION_CARD_NAMES, what))
        case "factory":
            return msg("the factory “{function}”", function=named(FACTORY_FUNCTION_NAMES, what))
        case "starting":
            return msg("the starting card “{card}”", card=named(STARTING_BONUS_NAMES, what))
    return source.replace("_", " ")


def token_space_message(source: str) -> Text:
    """A "?" token space that fired: "space 13 of the Trans-Siberian Railway", or the industry
    track's "?" space (``track:space``, or ``industry``)."""
    track, _, space = source.partition(":")
    if track in TRACK_NAMES and space.isdigit():
        return msg("space {n} of {track}", n=int(space), track=TRACK_NAMES[track])
    if source == "industry":
        return msg("the “?” space of the industry track")
    return source.replace("_", " ")
