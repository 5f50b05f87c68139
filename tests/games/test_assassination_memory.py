"""AS-56 and AS-57: the view holds what a player who watched the round remembers: every card turned over, and at its end everyone's identity."""

from __future__ import annotations

import random

from referee.games.assassination import Assassination
from referee.games.assassination.types import EventsRevealed, MovementRevealed, Phase, RoundEnded, RoundStarted, View
from tests.support import play_tracked, random_playout


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


def test_as57_once_a_round_is_over_the_view_reveals_everyone_as_its_end_did() -> None:
    """RoundEnded names every identity and colour; the view at ROUND_OVER (the dealer's decision) listed only the
    seats revealed during the round, so a bot that reads the view, or reconnects then, did not know them."""
    ends = 0
    for seed in range(4):
        game = Assassination(4, seed, {"max_rounds": 3})
        for _, _, events in random_playout(game, random.Random(seed)):
            ended = [e.payload for e in events if isinstance(e.payload, RoundEnded)]
            if not ended:
                assert game.phase not in (Phase.ROUND_OVER, Phase.OVER)
                continue
            end = ended[0]
            for seat in range(4):
                view = game.view(seat)
                assert sorted((r.seat, r.identity, r.colour) for r in view.revealed) == [(s, end.identities[s], end.colours[s]) for s in range(4)]
                assert view.reporter_colour == end.reporter_colour
            ends += 1
    assert ends >= 8
