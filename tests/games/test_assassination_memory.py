"""AS-56: the view lists every card turned over this round, as a player who watched every pile would remember them."""

from __future__ import annotations

import random

from referee.games.assassination import Assassination
from referee.games.assassination.types import EventsRevealed, MovementRevealed, RoundStarted, View
from tests.support import play_tracked


class Tracker:
    """One seat's memory of the piles turned over this round, from the events it is told."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.movement: list[int] = []
        self.events: list[int] = []

    def told(self, event: object) -> None:
        if isinstance(event, RoundStarted):
            self.movement, self.events = [], []
        elif isinstance(event, MovementRevealed):
            self.movement += event.cards
        elif isinstance(event, EventsRevealed):
            self.events += event.cards


def test_as56_the_view_lists_every_card_turned_over_this_round() -> None:
    def check(tracker: Tracker, view: View) -> int:
        assert list(view.movement_played) == tracker.movement and list(view.events_played) == tracker.events
        assert view.movement_played[len(view.movement_played) - len(view.last_movement):] == view.last_movement
        return len(view.movement_played) + len(view.events_played)

    remembered = 0
    for seed in range(6):
        game = Assassination(4, seed)
        rng = random.Random(seed)

        def move(game: Assassination = game, rng: random.Random = rng) -> tuple[int, object]:
            seat = rng.choice(game.to_act())
            return seat, game.random_action(seat, rng)

        remembered += play_tracked(game, [Tracker(s) for s in range(4)], move, check)
    assert remembered > 1000
