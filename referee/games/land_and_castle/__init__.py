"""Land & Castle (game id ``land-and-castle``)."""

from referee.games.land_and_castle.rules import SPEC, LandAndCastle

__all__ = ["SPEC", "LandAndCastle"]
