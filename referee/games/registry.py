"""Every game by id, each imported when first asked for.

A game's module builds its records (about forty frozen dataclasses) on import, and
the five together took about 0.12 s: a command that plays one game pays for that
game alone. Listing the ids imports nothing; ``values`` and ``items`` import all.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from typing import Any

from referee.core.game import Game, OptionError

#: id -> (module, class), in the order the games are listed.
_WHERE: dict[str, tuple[str, str]] = {
    "generals-war": ("referee.games.generals_war", "GeneralsWar"),
    "generals-and-assassins": ("referee.games.generals_and_assassins", "GeneralsAndAssassins"),
    "glory": ("referee.games.glory", "Glory"),
    "land-and-castle": ("referee.games.land_and_castle", "LandAndCastle"),
    "assassination": ("referee.games.assassination", "Assassination"),
}


class _Registry(Mapping[str, type[Game[Any]]]):
    """The games by id; a game is imported (and checked to be the game of its id) when first looked up."""

    def __init__(self, where: dict[str, tuple[str, str]]) -> None:
        self._where = where
        self._loaded: dict[str, type[Game[Any]]] = {}

    def __getitem__(self, game_id: str) -> type[Game[Any]]:
        cls = self._loaded.get(game_id)
        if cls is None:
            module, name = self._where[game_id]  # KeyError for an unknown id, as a dict
            cls = getattr(importlib.import_module(module), name)
            if cls.spec.id != game_id:
                raise RuntimeError(f"{module}.{name} is game {cls.spec.id!r}, registered as {game_id!r}")
            self._loaded[game_id] = cls
        return cls

    def __iter__(self) -> Iterator[str]:
        return iter(self._where)

    def __len__(self) -> int:
        return len(self._where)

    def __contains__(self, game_id: object) -> bool:
        return game_id in self._where


GAMES: Mapping[str, type[Game[Any]]] = _Registry(_WHERE)


def game_class(game_id: str) -> type[Game[Any]]:
    """The game with this id; an unknown id raises OptionError naming the known ones."""
    try:
        return GAMES[game_id]
    except KeyError:
        raise OptionError(f"unknown game {game_id!r} (games: {', '.join(GAMES)})") from None
