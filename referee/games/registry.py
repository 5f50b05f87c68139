"""Every game by id."""

from __future__ import annotations

from referee.core.game import Game, OptionError
from referee.games.generals_war import GeneralsWar

GAMES: dict[str, type[Game]] = {cls.spec.id: cls for cls in (GeneralsWar,)}


def game_class(game_id: str) -> type[Game]:
    """The game with this id; an unknown id raises OptionError naming the known ones."""
    try:
        return GAMES[game_id]
    except KeyError:
        raise OptionError(f"unknown game {game_id!r} (games: {', '.join(sorted(GAMES))})") from None
