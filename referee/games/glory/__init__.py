"""Glory (game id ``glory``)."""

from referee.games.glory.rules import SPEC, Glory

__all__ = ["SPEC", "Glory"]
