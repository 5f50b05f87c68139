"""The Assassination Game (game id ``assassination``)."""

from referee.games.assassination.rules import SPEC, Assassination

__all__ = ["SPEC", "Assassination"]
