"""Each Trains & Stations move in a short sentence for people (issue 49): "Jana hází: 2 mince,
1 hotel, 2 vlaky"; the dice faces, buildings and bonuses by the rulebook's names ("Kostky",
"Krok 3: Vyhodnocení kostek", "Krok 4: Doručení!"), never the action's notation. Private moves
(the speculation, the special cards' goods: "Spekulace při vylepšování") say only who did what
kind of thing."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from companion.core.actions import Action
from companion.core.messages import Message, Text, join_texts, msg, plural
from companion.games.trains_and_stations.choices import face_label
from companion.games.trains_and_stations.names import (
    BONUS_LABELS,
    building_name,
    good_name,
    place_name,
)

_FACE_ORDER = ("coin", "hotel", "mine", "ranch", "train", "locked")


def _player(action: Action, names: Sequence[str]) -> Text:
    p = action.player
    if p is None or not 0 <= p < len(names):
        return msg("The table", context="who")
    return names[p]


def _faces(faces: Any) -> Message:
    """Dice as counts of each face ("2 coins, 1 hotel"), or "no dice"."""
    counted = Counter(f for f in faces or () if isinstance(f, str))
    parts: list[Text] = [face_label(f, counted[f]) for f in _FACE_ORDER if counted[f]]
    if not parts:
        return msg("no dice")
    return join_texts(parts, ", ")


def describe(action: Action, names: Sequence[str]) -> Message:
    """``action`` as one short sentence in each reader's language."""
    who = _player(action, names)
    args: Mapping[str, Any] = action.args if isinstance(action.args, Mapping) else {}
    kind = action.kind
    try:
        if kind == "roll":
            bonus = args.get("bonus") or []
            if bonus:
                return msg(
                    "{player} rolls: {dice}; bonus dice: {bonus}",
                    player=who,
                    dice=_faces(args.get("dice")),
                    bonus=_faces(bonus),
                )
            return msg("{player} rolls: {dice}", player=who, dice=_faces(args.get("dice")))
        if kind == "reroll":
            return msg(
                "{player} pays 1 coin and rerolls: {dice}",
                player=who,
                dice=_faces(list(args.get("dice") or []) + list(args.get("bonus") or [])),
            )
        if kind == "withdraw":
            return msg("{player} takes all their dice back from the board", player=who)
        if kind == "resolve":
            return _resolve(who, args)
        if kind == "deliver":
            cities = [c for c in args.get("cities") or [] if isinstance(c, Mapping)]
            listed: list[Text] = [
                msg(
                    "{city} ({bonus})",
                    city=place_name(str(c.get("name", ""))),
                    bonus=BONUS_LABELS.get(str(c.get("bonus")), msg("no bonus")),
                )
                for c in cities
            ]
            return plural(
                "{player} completes a delivery to {n} city: {cities}",
                "{player} completes a delivery to {n} cities: {cities}",
                "n",
                player=who,
                n=len(cities),
                cities=join_texts(listed, ", ") if listed else msg("no cities"),
            )
        if kind == "complete_task":
            return msg("{player} completes a task card", player=who)
        if kind == "end_turn":
            return msg("{player} ends the turn", player=who)
        if kind in ("speculate", "report_special_goods"):
            # private moves: public surfaces never ask for these words before the game is over
            # (they print the private line instead); once it is over, everything shows
            return describe_private(action, names)
        if kind == "allocate_speculation":
            return msg("{player} shares out the speculation's cards", player=who)
    except (KeyError, ValueError, TypeError):
        pass
    return msg("{player} makes a move", player=who)


def _resolve(who: Text, args: Mapping[str, Any]) -> Message:
    parts: list[Text] = []
    for b in args.get("build") or []:
        if isinstance(b, Mapping):
            parts.append(
                msg(
                    "builds a {building} in {station}",
                    building=building_name(str(b.get("building", ""))),
                    station=place_name(str(b.get("station", ""))),
                )
            )
    coins = args.get("coins") or 0
    if isinstance(coins, int) and coins > 0:
        parts.append(
            plural(
                "cashes {n} coin die for {money} coins",
                "cashes {n} coin dice for {money} coins",
                "n",
                n=coins,
                money=2 * coins,
            )
        )
    keep = args.get("keep") or []
    if keep:
        parts.append(msg("keeps {dice}", dice=_faces(keep)))
    if not parts:
        return msg("{player} places the trains and uses no other dice", player=who)
    return msg("{player} uses the dice: {what}", player=who, what=join_texts(parts, "; "))


def describe_private(action: Action, names: Sequence[str]) -> Message:
    """A private move in full, for its own player only ("Spekulace při vylepšování": the offer
    is made secretly; goods and special cards lie face down)."""
    who = _player(action, names)
    args: Mapping[str, Any] = action.args if isinstance(action.args, Mapping) else {}
    if action.kind == "speculate":
        raw = args.get("goods")
        goods: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
        offered: list[Text] = [
            msg("{n}× {good}", n=n, good=good_name(str(g)))
            for g, n in sorted(goods.items())
            if isinstance(n, int) and n > 0
        ]
        if not offered:
            return msg("{player} offers nothing in the speculation", player=who)
        return msg(
            "{player} offers in the speculation: {goods}",
            player=who,
            goods=join_texts(offered, ", "),
        )
    if action.kind == "report_special_goods":
        pairs: list[Text] = [
            msg("{a} + {b}", a=good_name(str(p[0])), b=good_name(str(p[1])))
            for p in args.get("cards") or []
            if isinstance(p, list | tuple) and len(p) == 2
        ]
        if not pairs:
            return msg("{player} has no special card showing two goods", player=who)
        return msg(
            "{player}'s special cards show two goods: {pairs}",
            player=who,
            pairs=join_texts(pairs, "; "),
        )
    return msg("{player} makes a move", player=who)
