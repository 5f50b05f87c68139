"""Generals & Assassins (game id ``generals-and-assassins``)."""

from referee.games.generals_and_assassins.rules import SPEC, GeneralsAndAssassins

__all__ = ["SPEC", "GeneralsAndAssassins"]
