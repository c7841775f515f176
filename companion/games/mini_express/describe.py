"""Each Mini Express move in a short sentence for people (issue 49): "Jana staví trať
Dřevařské společnosti: 3 vlaky"; the companies by the rulebook's names (Kožedělná, Dřevařská,
Ocelářská, Bavlněná), never the action's notation (``company=lumber``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from companion.core.actions import Action
from companion.core.messages import Message, Text, msg, plural
from companion.games.mini_express.names import COMPANY_LABELS


def _player(action: Action, names: Sequence[str]) -> Text:
    p = action.player
    if p is None or not 0 <= p < len(names):
        return msg("The table", context="who")
    return names[p]


def _company(value: Any) -> Text:
    return COMPANY_LABELS.get(str(value), str(value))


def describe(action: Action, names: Sequence[str]) -> Message:
    """``action`` as one short sentence in each reader's language."""
    who = _player(action, names)
    args: Mapping[str, Any] = action.args if isinstance(action.args, Mapping) else {}
    kind = action.kind
    if kind == "draft_share":
        # PŘÍPRAVA HRY: the starting shares are drafted
        return msg(
            "{player} picks a starting share: {company}",
            player=who,
            company=_company(args.get("company")),
        )
    if kind == "take_share":  # Pořízení akcie
        return msg(
            "{player} takes a share: {company}", player=who, company=_company(args.get("company"))
        )
    if kind == "build":  # Stavba trati
        trains = args.get("trains")
        return plural(
            "{player} builds track for {company}: {n} train",
            "{player} builds track for {company}: {n} trains",
            "n",
            player=who,
            company=_company(args.get("company")),
            n=trains if isinstance(trains, int) else 0,
        )
    if kind == "no_second_action":
        return msg("{player} ends the turn without a second action", player=who)
    if kind == "automa_setup_draw":
        return msg("The Mašinfíra draws a starting share")
    if kind == "automa_turn":
        return msg("The Mašinfíra takes its turn")
    if kind == "share_values":
        return msg("The table fills in cells of the board's share-value table")
    return msg("{player} makes a move", player=who)
