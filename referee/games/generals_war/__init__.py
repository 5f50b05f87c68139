"""General's War (game id ``generals-war``)."""

from referee.games.generals_war.rules import SPEC, GeneralsWar

__all__ = ["SPEC", "GeneralsWar"]
