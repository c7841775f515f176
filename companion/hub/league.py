"""The league across finished games (docs/hub.md, "League").

Per player (linked across tables by name, compared without case or surrounding spaces):
games played, wins (a shared win counts for each winner), points (the sum of totals), and
**normalised points per game**: each total divided by the mean total of all players in all
games of that game type in the period, times 100, averaged over the player's games. So 100 is
an average showing in whatever game was played, and a Russian Railroads 400 weighs the same
as a Ticket to Ride 120 when both are as far above their game's mean. Ranked by wins, then
normalised points per game, then games played.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

CODE = re.compile(r"^(?P<name>.*?)\s*#(?P<code>[A-Za-z0-9]{4})$")


def player_key(name: str) -> str:
    return " ".join(name.split()).casefold()


def identify(name: str, codes: Mapping[str, tuple[str, str]]) -> tuple[str, str]:
    """(the player's key, the name to show): a known code after the name decides who it is;
    otherwise the name itself, compared without case and spaces."""
    match = CODE.match(name.strip())
    if match is not None and match["code"].upper() in codes:
        key, known = codes[match["code"].upper()]
        return key, match["name"].strip() or known
    return player_key(name), " ".join(name.split())


def league(
    results: Iterable[Mapping[str, Any]], codes: Mapping[str, tuple[str, str]] | None = None
) -> list[dict[str, Any]]:
    codes = codes or {}
    code_of = {key: code for code, (key, _) in codes.items()}
    results = list(results)
    sums: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for r in results:
        for p in r["players"]:
            sums[r["game"]][0] += p["total"]
            sums[r["game"]][1] += 1
    means = {g: (s / n if n else 0.0) for g, (s, n) in sums.items()}
    rows: dict[str, dict[str, Any]] = {}
    for r in sorted(results, key=lambda r: r["ended_at"]):
        mean = means[r["game"]]
        for p in r["players"]:
            key, shown = identify(p["name"], codes)
            row = rows.setdefault(
                key,
                {
                    "spellings": defaultdict(int),
                    "games": 0,
                    "wins": 0,
                    "points": 0,
                    "_norm": 0.0,
                    "by_game": defaultdict(int),
                },
            )
            row["spellings"][shown] += 1
            row["games"] += 1
            row["points"] += p["total"]
            row["wins"] += int(p["name"] in r["winners"])
            row["_norm"] += 100.0 * p["total"] / mean if mean > 0 else 0.0
            row["by_game"][r["game"]] += 1
    out = []
    for key, row in rows.items():
        # the spelling used most (the first seen of equals: dicts keep their order)
        name = max(row["spellings"], key=row["spellings"].__getitem__)
        out.append(
            {
                "name": name,
                "code": code_of.get(key),
                "games": row["games"],
                "wins": row["wins"],
                "points": row["points"],
                "normalised_per_game": round(row["_norm"] / row["games"], 1),
                "games_by_type": dict(row["by_game"]),
            }
        )
    out.sort(key=lambda r: (-r["wins"], -r["normalised_per_game"], -r["games"], r["name"]))
    for rank, row in enumerate(out, 1):
        row["rank"] = rank
    return out
