"""The Mini Express table state: frozen, slotted, tuples only (safe to hand to other threads)."""

from __future__ import annotations

from dataclasses import dataclass

from companion.core.records import evolve
from companion.games.mini_express.board_table import ShareValueTable
from companion.games.mini_express.data import (
    AUTOMA_TOKENS_REFRESH,
    AUTOMA_TOKENS_REGULAR,
    COMPANIES,
    LEVELS,
    TRAINS_PER_COMPANY,
)

# phases
DRAFT = "draft"  # setup step 9: the starting share draft
AUTOMA_SETUP = "automa_setup"  # solo setup step IV: the automa draws its starting shares
PLAY = "play"
OVER = "over"
PHASES = (DRAFT, AUTOMA_SETUP, PLAY, OVER)


@dataclass(frozen=True, slots=True)
class Company:
    """One railway company's asset-board and track-length state."""

    shares_on_board: int
    shares_set_aside: int
    """Set aside for the starting draft (0 once the draft is over)."""
    trains_on_field: int
    trains_in_supply: int
    track_length: int
    exhausted: bool = False
    """Its share offer is exhausted (last share taken, or its supply ran out of trains)."""

    @property
    def trains_on_map(self) -> int:
        return TRAINS_PER_COMPANY - self.trains_on_field - self.trains_in_supply


@dataclass(frozen=True, slots=True)
class Player:
    name: str
    shares: tuple[int, ...]
    """Per company, COMPANIES order."""
    influence: tuple[int, ...]
    is_automa: bool = False

    @property
    def total_shares(self) -> int:
        return sum(self.shares)

    def with_share(self, company: str, n: int = 1) -> Player:
        i = COMPANIES.index(company)
        shares = list(self.shares)
        shares[i] += n
        return evolve(self, shares=tuple(shares))

    def with_influence(self, company: str, delta: int) -> Player:
        i = COMPANIES.index(company)
        influence = list(self.influence)
        influence[i] += delta
        return evolve(self, influence=tuple(influence))


@dataclass(frozen=True, slots=True)
class Token:
    """An automa token as the table reads it: city-pointer moves (top number) and
    company-pointer moves (bottom number). The printed numbers are not public."""

    city: int
    company: int


@dataclass(frozen=True, slots=True)
class Automa:
    """The automa's pointers and its bag (Příprava sólové hry II.–V., Tah Mašinfíry)."""

    company_pointer: int = 0
    """Index into POINTER_ORDER; it starts on Lumber (II.)."""
    city_number: int | None = None
    """The city pointer's city number as the table reports it; None while off the map."""
    drawn: tuple[Token, ...] = ()
    """Regular tokens out of the bag (they come back when a refresh token is drawn)."""
    refresh_in_bag: bool = True

    @property
    def regular_in_bag(self) -> int:
        return AUTOMA_TOKENS_REGULAR - len(self.drawn)

    @property
    def tokens_in_bag(self) -> int:
        return self.regular_in_bag + (AUTOMA_TOKENS_REFRESH if self.refresh_in_bag else 0)


@dataclass(frozen=True, slots=True)
class MiniExpressState:
    variant: str
    level: str | None
    map: str
    golden_spike: bool
    harbours: bool
    share_values: ShareValueTable
    companies: tuple[Company, ...]
    """COMPANIES order."""
    players: tuple[Player, ...]
    """In seat order (clockwise); the automa, when there is one, is last."""
    start_player: int
    phase: str
    draft_picks: tuple[tuple[int, str], ...] = ()
    """Setup step 9 picks so far: (player index, company)."""
    turns_taken: int = 0
    actions_this_turn: tuple[str, ...] = ()
    """2 experienced players: the companies already used in the current turn."""
    end_triggered_at: int | None = None
    """The turn number (0-based) at whose end the game end was triggered."""
    ended_reason: str = ""
    automa: Automa | None = None
    demand_tokens_removed: int = 0
    golden_spike_east: str | None = None
    golden_spike_west: str | None = None
    golden_spike_state: str = ""
    """"" (variant off), "waiting" (tile on the map), "east" (Omaha reached), "done",
    "removed" (San Francisco reached first)."""
    harbours_opened: tuple[str, ...] = ()

    # -- views ---------------------------------------------------------------------------------
    def company(self, name: str) -> Company:
        return self.companies[COMPANIES.index(name)]

    def with_company(self, name: str, company: Company) -> MiniExpressState:
        i = COMPANIES.index(name)
        return evolve(self, companies=(*self.companies[:i], company, *self.companies[i + 1 :]))

    def with_player(self, index: int, player: Player) -> MiniExpressState:
        return evolve(self, players=(*self.players[:index], player, *self.players[index + 1 :]))

    @property
    def automa_index(self) -> int | None:
        return next((i for i, p in enumerate(self.players) if p.is_automa), None)

    @property
    def current_player(self) -> int:
        return (self.start_player + self.turns_taken) % len(self.players)

    def seat_from_start(self, index: int) -> int:
        """0 for the start player, then clockwise (the tie-break's "closer to the start")."""
        return (index - self.start_player) % len(self.players)

    @property
    def exhausted_count(self) -> int:
        return sum(1 for c in self.companies if c.exhausted)

    @property
    def level_at(self) -> int:
        """The solo level's index (-1 outside solo)."""
        return LEVELS.index(self.level) if self.level is not None else -1
