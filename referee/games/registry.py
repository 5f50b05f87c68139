"""Every game by id."""

from __future__ import annotations

from typing import Any

from referee.core.game import Game, OptionError
from referee.games.assassination import Assassination
from referee.games.generals_and_assassins import GeneralsAndAssassins
from referee.games.generals_war import GeneralsWar
from referee.games.glory import Glory
from referee.games.land_and_castle import LandAndCastle

GAMES: dict[str, type[Game[Any]]] = {cls.spec.id: cls for cls in (GeneralsWar, GeneralsAndAssassins, Glory, LandAndCastle, Assassination)}


def game_class(game_id: str) -> type[Game[Any]]:
    """The game with this id; an unknown id raises OptionError naming the known ones."""
    try:
        return GAMES[game_id]
    except KeyError:
        raise OptionError(f"unknown game {game_id!r} (games: {', '.join(sorted(GAMES))})") from None
