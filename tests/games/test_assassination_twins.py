"""Random play on twin deals: two unrevealed seats other than k trade identity, colour and hands mid-round.

test_assassination_secrets.py compares whole sessions of scripted bots, which play actions only when told and
always answer the same way. Here every seat plays at random (actions, questions, the agent's moves), and at the
start of a turn the game is twinned: seats t and u, neither revealed nor holding a token (the tokens name the
agent and the only seat that may be the bad cop), swap their secrets. In the twin each of them plays the card the
other played, so every piece does the same; seat k must be told the same, byte for byte (as the conformance twins
compare it: who acts, view, decision, listing, the events and where they fall), until t or u is revealed, the
round ends or the twin's move is not legal (a choice open to one identity only).
"""

from __future__ import annotations

import copy
import dataclasses
import random
from typing import Any

import pytest

from referee.compiled import in_use
from referee.games.assassination import Assassination, deck
from referee.games.assassination.types import Identity, Phase, PlayEvent
from referee.protocol.messages import GameCodec
from tests.conformance.test_hidden_twins import seen_by

#: A twin is a deep copy of a game edited in place, which a compiled class refuses (copy.deepcopy); the rules' source
#: is the same, checked here pure.
pytestmark = pytest.mark.skipif(in_use(), reason="deep copies of the rules' state, which compiled classes refuse")

CODEC = GameCodec(Assassination)


def twinned(game: Assassination, t: int, u: int) -> Assassination:
    twin = copy.deepcopy(game)
    secret = twin.secret
    places: tuple[list[Any], ...] = (secret.identities, secret.colours, twin.movement_hands, twin.event_hands, twin.seen)
    for seats in places:
        seats[t], seats[u] = seats[u], seats[t]
    twin.forget()
    return twin


def batch(game: Assassination, rng: random.Random) -> dict[int, Any]:
    """An action for every seat to act now (a simultaneous stage is played whole, as the referee holds its answers);
    an action card one time in eight, so that a round goes on unrevealed for a while."""
    chosen: dict[int, Any] = {}
    for seat in game.to_act():
        action: Any = game.random_action(seat, rng)
        if game.phase == Phase.EVENT and rng.random() > 0.125:
            action = PlayEvent(min((c for c in game.event_hands[seat] if not deck.is_action(c)), default=action.card_id))
        chosen[seat] = action
    return chosen


def play(game: Assassination, actions: dict[int, Any]) -> list[Any]:
    events: list[Any] = []
    for seat in sorted(actions):
        events += game.apply(seat, actions[seat])
    return events


def follow(a: Assassination, b: Assassination, k: int, t: int, u: int, rng: random.Random) -> tuple[int, str | None]:
    """Steps compared, and what k was told differently first (None: nothing)."""
    swap = {t: u, u: t}
    round_ = a.round
    events_a: list[Any] = []
    events_b: list[Any] = []
    for step in range(300):
        ended = [g.round != round_ or g.phase in (Phase.ROUND_OVER, Phase.OVER) for g in (a, b)]
        if ended[0] != ended[1]:
            return step, f"step {step}: the round ended in one twin only"
        if {t, u} & (set(a.revealed_seats) | set(b.revealed_seats)) or ended[0]:  # the round's end reveals every seat
            return step, None
        told_a, told_b = seen_by(a, CODEC, k, events_a), seen_by(b, CODEC, k, events_b)
        if told_a != told_b:
            return step, f"step {step}: {[x for x, y in zip(told_a, told_b) if x != y][:1] or (len(told_a), len(told_b))} / {[y for x, y in zip(told_a, told_b) if x != y][:1]}"
        if a.is_over():
            return step, None
        acts = batch(a, rng)
        mirrored = {swap.get(seat, seat): action for seat, action in acts.items()}
        if set(mirrored) != set(b.to_act()) or any(b.check(seat, action) is not None for seat, action in mirrored.items()):
            return step, None
        events_a, events_b = play(a, acts), play(b, mirrored)
    return 300, None


def twin_differences(seeds: range) -> tuple[int, int, list[str]]:
    """(twins compared, steps compared, what a seat was told differently) over random games of ``seeds``."""
    compared = steps = 0
    found: list[str] = []
    for seed in seeds:
        rng = random.Random(seed)
        game = Assassination(4, seed)
        while not game.is_over() and game.round <= 3:
            if game.phase == Phase.MOVEMENT and not game.pending and game.question is None and rng.random() < 0.3:
                k = rng.randrange(4)
                tokens = {game.ss_token, game.bad_cop_token}
                free = [s for s in range(4) if s != k and s not in game.revealed_seats and s not in tokens and s in game.living()]
                if len(free) >= 2:
                    t, u = rng.sample(free, 2)
                    n, problem = follow(copy.deepcopy(game), twinned(game, t, u), k, t, u, random.Random(rng.random()))
                    compared += 1
                    steps += n
                    if problem:
                        found.append(f"seed {seed} round {game.round} turn {game.turn} seat {k} (twins {t}, {u}): {problem}")
            play(game, batch(game, rng))
    return compared, steps, found


def test_a_seat_cannot_tell_two_unrevealed_seats_apart_in_random_play() -> None:
    compared, steps, found = twin_differences(range(10))
    assert compared > 20 and steps > 5 * compared
    assert not found, "\n".join(found[:3])


def test_the_twins_catch_a_view_that_counts_the_bombers_below_the_seat(monkeypatch: pytest.MonkeyPatch) -> None:
    """A turn number moved by the identity of the next seat names no card, and only a twin shows it."""
    original = Assassination.view

    def leaky_view(self: Assassination, seat: int) -> Any:
        view = original(self, seat)
        return dataclasses.replace(view, turn=view.turn + (self.secret.identities[(seat + 1) % 4] == Identity.BOMBER))

    monkeypatch.setattr(Assassination, "view", leaky_view)
    assert twin_differences(range(3))[2]
