"""Russian Railroads table state: every player board and the shared table, immutable."""

from __future__ import annotations

from dataclasses import dataclass, field

from companion.core.messages import Text
from companion.games.russian_railroads.board_data import (
    COLOURS,
    START_WORKERS,
    TRACK_LENGTH,
    TRACKS,
    BoardData,
)
from companion.games.russian_railroads.scoring import ScoringInput

TOKEN_SPACE_INDUSTRY = "industry"


@dataclass(frozen=True, slots=True)
class Engineer:
    """A hired engineer: the number printed on the tile (read by the table) and, when known,
    its ability id (``board_data.ENGINEERS``)."""

    number: int
    ability: str = ""


@dataclass(frozen=True, slots=True)
class Pending:
    """A decision the table owes before play goes on.

    ``kind``: ``token`` (a "?" token space fired: choose a token), ``factory`` (an industry
    marker reached a factory: say its function; ``level`` = the factory's locomotive level,
    ``marker`` = which marker), ``bonus_card`` (choose a final bonus card or 10 points),
    ``starting_bonus`` (the starting bonus draft), ``space`` (the action space taken this turn
    still owes the rest of its action, ``grants``), ``turn_order_move`` (a worker on a turn
    order space may take one more one-worker action after the round)."""

    kind: str
    player: int
    source: str = ""
    level: int = 0
    marker: int = 0
    grants: tuple[str, ...] = ()
    """``space``: what the action space taken still gives (``action_board`` grant strings)."""
    extra_black: bool = False
    """``space``: the black worker stands on it — one more black step with the first black
    build (seed 000, "KARTY ?", the black worker)."""


@dataclass(frozen=True, slots=True)
class PlayerBoard:
    name: str
    rails: tuple[tuple[int, ...], ...]
    """``rails[track index][colour index]`` = space reached, 0 = no rail (TRACKS × COLOURS)."""
    colours: frozenset[str] = frozenset({"black"})
    """Rail colours obtained (black from the start; others by Trans-Siberian 2/6/10/15)."""
    locomotives: tuple[tuple[int, ...], ...] = ((1,), (), ())
    factories: tuple[int, ...] = ()
    """Locomotive levels of the factories in slots 1… (slot order)."""
    industry: tuple[int, ...] = (0,)
    doublers: int = 0
    revaluation: bool = False
    kiev_medal: bool = False
    tokens_used: tuple[str, ...] = ()
    token_spaces: tuple[str, ...] = ()
    """Token spaces that have fired (``trans_siberian:13``, ``st_petersburg:4``, …)."""
    fired: frozenset[str] = frozenset()
    """Board triggers that have fired once (``rails:2``, ``terminus:kiev``, ``worker:kiev7``…)."""
    engineers: tuple[Engineer, ...] = ()
    bonus_cards: tuple[str, ...] = ()
    extra_workers: int = 0
    """Workers gained for good (own colour from the supply, and the black worker)."""
    black_worker: bool = False
    workers_used: int = 0
    temporary: int = 0
    temporary_used: int = 0
    coins: int = 0
    used_spaces: tuple[str, ...] = ()
    """One-worker action spaces this player used this round (a repeat may take them again)."""
    black_worker_used: bool = False
    black_worker_space: str = ""
    """The action space the black worker stands on this round ("" = not placed): a repeat of
    that action may give the extra black step again (seed 000, "DESTIČKY INŽENÝRŮ" footnote),
    and a turn order worker moved after the round is the black worker only if it stood there."""
    points: tuple[tuple[str, int, Text], ...] = ()
    """Every point scored so far: (category, points, why)."""

    def rail(self, track: str, colour: str) -> int:
        return self.rails[TRACKS.index(track)][COLOURS.index(colour)]

    def locos(self, track: str) -> tuple[int, ...]:
        return self.locomotives[TRACKS.index(track)]

    def reach(self, track: str) -> int:
        return min(sum(self.locos(track)), TRACK_LENGTH[track])

    @property
    def score(self) -> int:
        return sum(p for _, p, _ in self.points)

    def workers(self, players: int) -> int:
        return START_WORKERS[players] + self.extra_workers

    def scoring_input(self) -> ScoringInput:
        return ScoringInput(
            name=self.name,
            rails={
                t: {c: self.rails[i][j] for j, c in enumerate(COLOURS) if self.rails[i][j]}
                for i, t in enumerate(TRACKS)
            },
            locomotives={t: self.locomotives[i] for i, t in enumerate(TRACKS)},
            doublers=self.doublers,
            revaluation=self.revaluation,
            kiev_medal=self.kiev_medal,
            factories=len(self.factories),
            industry=self.industry,
            engineers=tuple(e.number for e in self.engineers),
            bonus_cards=self.bonus_cards,
            extra_workers=self.extra_workers,
            tokens_used=len(self.tokens_used),
        )


@dataclass(frozen=True, slots=True)
class RussianRailroadsState:
    players: tuple[PlayerBoard, ...]
    round: int = 1
    rounds: int = 7
    phase: str = "play"
    """``draft`` (starting bonus cards), ``play``, ``after_round`` (turn order workers move),
    ``over``."""
    turn_order: tuple[int, ...] = ()
    """Player indices, turn order position 1 first."""
    current: int | None = None
    acted: bool = False
    """The current player has done something this turn (so the next player may start)."""
    passed: frozenset[int] = frozenset()
    turn_order_claims: tuple[int | None, ...] = (None, None)
    """Who put a worker under turn order space 1 / 2 this round."""
    locomotive_supply: tuple[int, ...] = ()
    """Locomotives per level 1–9 in the supply (locomotive side up)."""
    returned_factories: tuple[int, ...] = ()
    """Levels of factories returned to the supply (sorted)."""
    question_cards: tuple[str, ...] = ()
    """"?" cards still out."""
    bonus_deck: int = 8
    """Final bonus cards still in the deck (8 after two are removed unseen)."""
    starting_bonus_cards: tuple[str, ...] = ()
    engineer_hired: bool = False
    """This round's engineer has been hired (at most one per round)."""
    engineer_row: tuple[str, ...] = ()
    """The engineer tiles on the board, left to right, by ability ("" = not yet named: face
    down, or face up and not yet said by the table). The rightmost is on the hiring space, the
    two before it on the variable action spaces (``action_board.ENGINEER_PLACES``)."""
    temporary_taken: bool = False
    occupied: tuple[str, ...] = ()
    """Action spaces taken this round (the reusable one is never listed)."""
    doubler_supply: int = 20
    pending: tuple[Pending, ...] = ()
    factory_functions: tuple[tuple[int, str], ...] = ()
    """Factory functions the table has told us, by locomotive level."""
    figures_used: frozenset[str] = frozenset()
    """Unconfirmed board figures that have counted in the score so far."""
    board: BoardData = field(default_factory=BoardData.default)

    def player(self, index: int) -> PlayerBoard:
        return self.players[index]

    def position(self, index: int) -> int:
        """Turn order position, 1-based."""
        return self.turn_order.index(index) + 1

    def known_factory_function(self, level: int) -> str | None:
        for lv, fn in self.factory_functions:
            if lv == level:
                return fn
        return self.board.factory_function(level)
