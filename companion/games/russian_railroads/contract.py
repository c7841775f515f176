"""The scoring snapshot (contract format 1, ``shared/contracts/russian-railroads.md``):
parse and validate it with field paths, and score it.

``"scoring": "round"`` = one end-of-round scoring; ``"final"`` = the last round's end-of-round
scoring plus the final scoring (bonus cards, engineer majority). Documented in
``docs/formats/russian-railroads.md``.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from companion.core.scoring import PlayerScore, ScoreLine, ScoreSheet, highest
from companion.core.snapshot import Field
from companion.games.russian_railroads.board_data import (
    BONUS_CARDS,
    COLOURS,
    DOUBLER_SUPPLY,
    FACTORY_SLOTS,
    INDUSTRY_GAPS,
    INDUSTRY_LAST,
    LOCOMOTIVE_SLOTS,
    LOCOMOTIVES_PER_LEVEL,
    LOCOMOTIVES_REMOVED,
    MAX_DOUBLERS,
    NEW_RAILS_AT,
    ROUNDS,
    TRACK_COLOURS,
    TRACK_LENGTH,
    TRACK_TITLES,
    TRACKS,
    TRANS_SIBERIAN,
    BoardData,
)
from companion.games.russian_railroads.scoring import (
    CATEGORY_LABELS,
    FigureUse,
    ScoringInput,
    score_bonus_cards,
    score_engineers,
    score_round,
)

BONUS_DECK = len(BONUS_CARDS) - 2  # two final bonus cards are removed unseen
NAME = "russian-railroads"
FORMAT = 1
PLAYER_FIELDS = (
    "name",
    "rails",
    "locomotives",
    "doublers",
    "revaluation",
    "kiev_medal",
    "factories",
    "industry",
    "engineers",
    "bonus_cards",
    "extra_workers",
    "tokens_used",
    "score",
)


def parse_rails(doc: Field) -> dict[str, dict[str, int]]:
    """``rails[track][colour]`` with the colour rules of seed 000 "ZÁSADY STAVBY KOLEJÍ":
    allowed colours per track, colour order, each later colour strictly behind the one before."""
    doc.only(*TRACKS)
    rails: dict[str, dict[str, int]] = {}
    for track in TRACKS:
        if not doc.has(track):
            rails[track] = {}
            continue
        tdoc = doc.get(track)
        allowed = TRACK_COLOURS[track]
        for colour, item in tdoc.items():
            if colour not in COLOURS:
                item.fail(f"unknown rail colour; colours are {', '.join(COLOURS)}")
            if colour not in allowed:
                item.fail(f"{TRACK_TITLES[track]} allows {', '.join(allowed)} only")
        positions = {c: tdoc.get(c, 0).int(lo=0, hi=TRACK_LENGTH[track]) for c in allowed}
        ahead: tuple[str, int] | None = None
        for colour in allowed:
            pos = positions[colour]
            if ahead is not None and pos > 0:
                before, before_pos = ahead
                if before_pos == 0:
                    tdoc.get(colour).fail(
                        f"{colour} rail on space {pos} but no {before} rail: colours are built "
                        "in the order black, grey, brown, natural, white"
                    )
                if pos >= before_pos:
                    tdoc.get(colour).fail(
                        f"{colour} on space {pos} must stand strictly behind {before} on space "
                        f"{before_pos}"
                    )
            ahead = (colour, pos)
        rails[track] = {c: p for c, p in positions.items() if p > 0}
    return rails


def check_colours_unlocked(doc: Field, rails: dict[str, dict[str, int]]) -> None:
    """A colour is built only once black has reached its Trans-Siberian space: grey 2, brown 6,
    natural 10, white 15 (seed 000, "BUDOVÁNÍ KOLEJÍ DALŠÍCH BAREV")."""
    black = rails[TRANS_SIBERIAN].get("black", 0)
    for space, colour in sorted(NEW_RAILS_AT.items()):
        if black >= space:
            continue
        for track in TRACKS:
            if rails[track].get(colour):
                doc.get(track).get(colour).fail(
                    f"{colour} rail on {TRACK_TITLES[track]}, but black on the Trans-Siberian "
                    f"is on space {black}; {colour} rails come when it reaches space {space}"
                )


def parse_locomotives(doc: Field) -> dict[str, tuple[int, ...]]:
    doc.only(*TRACKS)
    locos: dict[str, tuple[int, ...]] = {}
    for track in TRACKS:
        item = doc.get(track, [])
        levels = item.list()
        if len(levels) > LOCOMOTIVE_SLOTS[track]:
            item.fail(
                f"{TRACK_TITLES[track]} holds at most {LOCOMOTIVE_SLOTS[track]} "
                f"locomotive{'s' if LOCOMOTIVE_SLOTS[track] > 1 else ''}, got {len(levels)}"
            )
        locos[track] = tuple(level.int(lo=1, hi=9) for level in levels)
    return locos


def parse_industry(doc: Field, factories: int) -> tuple[int, ...]:
    """1 or 2 markers, distinct, never beyond the first unfilled factory gap (seed 000,
    "VÝZNAM VÝŘEZŮ PRO TOVÁRNY": a gap can be neither entered nor jumped)."""
    items = doc.list(max_len=2)
    if not items:
        doc.fail("at least one industry marker")
    positions: list[int] = []
    for item in items:
        pos = item.int(lo=0, hi=INDUSTRY_LAST)
        if factories < FACTORY_SLOTS and pos >= INDUSTRY_GAPS[factories]:
            item.fail(
                f"position {pos} lies at or beyond factory gap {factories + 1} (position "
                f"{INDUSTRY_GAPS[factories]}), which is empty with {factories} "
                f"factor{'y' if factories == 1 else 'ies'} built"
            )
        if pos in positions:
            item.fail(f"both industry markers on position {pos}; they never share a space")
        positions.append(pos)
    return tuple(positions)


def parse_player(doc: Field, final: bool) -> tuple[ScoringInput, int | None]:
    doc.only(*PLAYER_FIELDS)
    name = doc.get("name").str()
    if not name.strip():
        doc.get("name").fail("a player needs a name")
    factories = doc.get("factories", 0).int(lo=0, hi=FACTORY_SLOTS)
    default_list: list[Any] = []
    engineers_doc = doc.get("engineers") if final else doc.get("engineers", default_list)
    engineers = tuple(e.int(lo=1, hi=99) for e in engineers_doc.list(max_len=15))
    if len(set(engineers)) != len(engineers):
        engineers_doc.fail("an engineer number appears twice; each tile exists once")
    cards_doc = doc.get("bonus_cards") if final else doc.get("bonus_cards", default_list)
    cards = tuple(c.str(BONUS_CARDS) for c in cards_doc.list(max_len=len(BONUS_CARDS)))
    if len(set(cards)) != len(cards):
        cards_doc.fail("a bonus card appears twice; each card exists once")
    # Default 0 in both scorings: they matter only with their bonus card.
    extra = doc.get("extra_workers", 0).int(lo=0, hi=3)
    tokens_doc = doc.get("tokens_used", 0)
    tokens = tokens_doc.int(lo=0, hi=4)
    score_doc = doc.get("score", None)
    score = None if score_doc.value is None else score_doc.int(lo=0)
    rails = parse_rails(doc.get("rails"))
    check_colours_unlocked(doc.get("rails"), rails)
    locomotives = parse_locomotives(doc.get("locomotives"))
    ones = [t for t in TRACKS for lv in locomotives[t] if lv == 1]
    if len(ones) > 1:
        # Each player starts with one level-1 locomotive and the supply then starts at level 2
        # (seed 004, Preparar; seed 000, "ZÁSADY PLATNÉ PŘI ZÍSKÁVÁNÍ LOKOMOTIV").
        doc.get("locomotives").fail(
            f"{len(ones)} level-1 locomotives; a player has only the one from the start (the "
            "supply's level-1 locomotives all go out at setup)"
        )
    industry = parse_industry(doc.get("industry"), factories)
    revaluation = doc.get("revaluation", False).bool()
    kiev_medal = doc.get("kiev_medal", False).bool()
    # Seed 000, "ŽETONY": the revaluation, the Kiev medal and the second industry marker each
    # come from a "?" token.
    needs = [
        what
        for what, present in (
            ("the revaluation", revaluation),
            ("the Kiev medal", kiev_medal),
            ("the second industry marker", len(industry) == 2),
        )
        if present
    ]
    if doc.has("tokens_used") and tokens < len(needs):
        tokens_doc.fail(
            f"{tokens} '?' token(s) used, but {', '.join(needs)} need {len(needs)} "
            "(each comes from a '?' token)"
        )
    board = ScoringInput(
        name=name,
        rails=rails,
        locomotives=locomotives,
        doublers=doc.get("doublers", 0).int(lo=0, hi=MAX_DOUBLERS),
        revaluation=revaluation,
        kiev_medal=kiev_medal,
        factories=factories,
        industry=industry,
        engineers=engineers,
        bonus_cards=cards,
        extra_workers=extra,
        tokens_used=tokens,
    )
    return board, score


def _check_supplies(players: Field, boards: list[ScoringInput]) -> None:
    """Cross-player counts the box limits: locomotives per level, doublers, cards, engineers."""
    removed = LOCOMOTIVES_REMOVED.get(len(boards), 0)
    levels = Counter(lv for b in boards for t in TRACKS for lv in b.locomotives[t])
    for level, count in sorted(levels.items()):
        # one extra level-9 lies on its "?" card (seed 000 setup step 4)
        limit = LOCOMOTIVES_PER_LEVEL[level] - removed + (1 if level == 9 else 0)
        if count > limit:
            players.fail(
                f"{count} level-{level} locomotives on the boards; a {len(boards)}-player game "
                f"has {limit}"
            )
    # Final bonus cards: ten, two removed unseen (seed 000, "KARTY CÍLOVÝCH BONUSŮ").
    cards = sum(len(b.bonus_cards) for b in boards)
    if cards > BONUS_DECK:
        players.fail(f"{cards} bonus cards held; {BONUS_DECK} are in play (two are removed)")
    # At most one engineer hired a round, plus the one on its "?" card (seed 000, "VYUŽITÍ
    # SCHOPNOSTÍ INŽENÝRŮ", "KARTY ?").
    rounds = ROUNDS.get(len(boards), max(ROUNDS.values()))
    hired = sum(len(b.engineers) for b in boards)
    if hired > rounds + 1:
        players.fail(
            f"{hired} engineers hired; a {len(boards)}-player game of {rounds} rounds allows "
            f"{rounds + 1} (one a round and the one on its '?' card)"
        )
    if sum(b.doublers for b in boards) > DOUBLER_SUPPLY:
        players.fail(f"more than the {DOUBLER_SUPPLY} doublers in the box")
    for what, values in (
        ("bonus card", [c for b in boards for c in b.bonus_cards]),
        ("engineer number", [str(e) for b in boards for e in b.engineers]),
    ):
        twice = [v for v, n in Counter(values).items() if n > 1]
        if twice:
            players.fail(f"{what} {twice[0]} held by two players; each exists once")
    names = [b.name for b in boards]
    if len(set(names)) != len(names):
        players.fail("two players share a name")


def score_contract_snapshot(data: Any, board_data: BoardData) -> ScoreSheet:
    doc = Field(data)
    doc.only("game", "format", "scoring", "players", "board")
    if doc.get("game").str() != NAME:
        doc.get("game").fail(f"expected {NAME!r}")
    doc.get("format").int(lo=FORMAT, hi=FORMAT)
    final = doc.get("scoring").str(frozenset({"round", "final"})) == "final"
    if doc.has("board"):
        board_data = BoardData.from_options(doc.get("board").value, "board")
    players = doc.get("players")
    items = players.list(max_len=4)
    if not items:
        players.fail("at least one player")
    parsed = [parse_player(p, final) for p in items]
    boards = [b for b, _ in parsed]
    _check_supplies(players, boards)
    use = FigureUse()
    rows: list[list[ScoreLine]] = [list(score_round(b, board_data, use)) for b in boards]
    if final:
        engineers = score_engineers(boards)
        for row, board, eng in zip(rows, boards, engineers, strict=True):
            row.append(score_bonus_cards(board))
            row.append(eng)
    for row, (_, earlier) in zip(rows, parsed, strict=True):
        if earlier is not None:
            row.insert(
                0,
                ScoreLine(
                    "earlier",
                    earlier,
                    "points before this scoring",
                    label=CATEGORY_LABELS["earlier"],
                ),
            )
    sheets = tuple(PlayerScore(b.name, tuple(row)) for b, row in zip(boards, rows, strict=True))
    winners: tuple[str, ...] = ()
    if final and all(score is not None for _, score in parsed):
        winners = highest([(p.name, (p.total,)) for p in sheets])
    return ScoreSheet(NAME, sheets, winners, use.notes())
