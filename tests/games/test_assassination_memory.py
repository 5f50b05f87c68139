"""AS-56 and AS-57: the view holds what a player who watched the round remembers: every card turned over, and at its end everyone's identity and the police officer's side."""

from __future__ import annotations

import random

import pytest

from referee.games.assassination import Assassination
from referee.games.assassination.types import EventsRevealed, Identity, MovementRevealed, Phase, RoundEnded, RoundStarted, View
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
                assert sorted((r.seat, r.identity, r.colour, r.bad_cop) for r in view.revealed) == told_by(end)
                assert view.reporter_colour == end.reporter_colour
            ends += 1
    assert ends >= 8


def told_by(end: RoundEnded) -> list[tuple[int, Identity, int, bool | None]]:
    """Every seat as RoundEnded names it, with the police officer's side."""
    return [
        (s, end.identities[s], end.colours[s], end.bad_cop if end.identities[s] == Identity.POLICE_OFFICER else None)
        for s in range(4)
    ]


@pytest.mark.parametrize("bad_cop", [False, True])
def test_as57_the_police_officers_side_is_in_every_view_once_the_round_is_over_and_in_none_before(bad_cop: bool) -> None:
    """RoundEnded says whether the police officer was the bad cop; the views at ROUND_OVER told only the bad cop
    himself (View.bad_cop), so the others, reading their views or reconnecting then, did not know it."""
    for seed in range(3):
        game = Assassination(4, seed)
        game.secret.bad_cop = bad_cop  # as if he had chosen so (the first round has no token to choose by)
        police = game.secret.seat_of(Identity.POLICE_OFFICER)
        for _, _, events in random_playout(game, random.Random(seed)):
            views = [game.view(s) for s in range(4)]
            if game.phase not in (Phase.ROUND_OVER, Phase.OVER):
                assert all(r.bad_cop is None for v in views for r in v.revealed), "the side is secret during the round"
                assert [v.bad_cop for v in views] == [bad_cop and s == police for s in range(4)]
                continue
            end = next(e.payload for e in events if isinstance(e.payload, RoundEnded))
            assert end.bad_cop == bad_cop
            for v in views:
                assert sorted((r.seat, r.identity, r.colour, r.bad_cop) for r in v.revealed) == told_by(end)
                assert next(r for r in v.revealed if r.seat == police).bad_cop is bad_cop
            break
        else:
            raise AssertionError("the round did not end")
