"""Tiny Race: a three-rule game that exists only to prove the machinery (tests, replay,
the service) before the real games land. It is hidden from players.

Rules: players take turns in seat order; on your turn advance your pawn 1–3 spaces (or scan a
die showing 1–3). The first to reach the target (default 10) finishes the game and gets a
5-point finish bonus; everyone scores the spaces they reached.
"""

from companion.games.tiny_race.rules import GAME, TinyRace, TinyRaceState

__all__ = ["GAME", "TinyRace", "TinyRaceState"]
