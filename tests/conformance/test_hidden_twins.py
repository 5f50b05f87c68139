"""Twin states: a seat must not tell apart two games that differ only in what it may not know.

The referee contract's check (test_referee_contract) sees card ids only, and trusts each game's
``hidden_cards``. This one looks for leaks that no card id shows: a hand size, a count, an order, a
legal-action list, a rejection's reason, a field set from the whole state. During a random game, for a
seat k, two cards hidden from k are swapped between places k cannot see into (another seat's hand and
deck, two other hands, two places in a deck), the rules' own constraints kept (a card only where it may
lie). Both twins then play the same actions, and k's side of them must be byte-identical: who is asked
(``to_act``, whose order the decision indices tell), k's view, decision and listed actions, the events
k may see and where they fall among those it may not (an event's seq tells), and why the rules refuse
an action of k's naming either card. Comparison stops when either card is shown to k (or the twins'
actions stop being legal in both).

The Assassination Game's secrets (identities, colours) have twin checks of their own: through the
referee session with scripted bots (tests/games/test_assassination_secrets.py), and in random play
(tests/games/test_assassination_twins.py).
"""

from __future__ import annotations

import copy
import dataclasses
import random
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from referee.compiled import in_use
from referee.core.game import Game
from referee.games.glory.values import is_money
from referee.games.registry import GAMES
from referee.protocol.messages import GameCodec

#: A twin is a deep copy of a game edited in place, which a compiled class refuses (copy.deepcopy); the rules' source
#: is the same, checked here pure.
pytestmark = pytest.mark.skipif(in_use(), reason="deep copies of the rules' state, which compiled classes refuse")

#: Places (one list, deque or set each) that hold cards, by game: a swap exchanges two card ids in all of them.
CardPlaces = Callable[[Any], Iterator[Any]]


def _places_gw(g: Any) -> Iterator[Any]:
    yield from g.hands
    yield from g.decks
    yield from g.squads
    yield from g.seen


def _places_ga(g: Any) -> Iterator[Any]:
    yield from g.hands
    yield from g.decks


def _places_glory(g: Any) -> Iterator[Any]:
    yield from g.t.hands
    yield g.t.deck


def _places_lc(g: Any) -> Iterator[Any]:
    yield from g.hands
    yield from g.piles
    yield g.lands
    yield from g.seen


def _groups_gw(g: Any, k: int) -> list[tuple[list[int], list[int]]]:
    """A seat's unrevealed hand against its deck and its face-down squad; two places in a deck."""
    out: list[tuple[list[int], list[int]]] = []
    for t in range(g.num_players):
        if t == k:
            continue
        hand = [c for c in g.hands[t] if c not in g.revealed[t]]
        out += [(hand, list(g.decks[t])), (list(g.squads[t]), list(g.decks[t])), (hand, list(g.squads[t]))]
    for t in range(g.num_players):
        out.append((list(g.decks[t]), list(g.decks[t])))
    return out


def _groups_ga(g: Any, k: int) -> list[tuple[list[int], list[int]]]:
    """Another seat's hand against its own deck (a deck's cards are its owner's, GA-1); two places in a deck."""
    out = [(list(g.hands[t]), list(g.decks[t])) for t in range(g.num_players) if t != k]
    return out + [(list(g.decks[t]), list(g.decks[t])) for t in range(g.num_players)]


def _groups_glory(g: Any, k: int) -> list[tuple[list[int], list[int]]]:
    """Two other hands, a hand and the deck, two places in the deck: Money never stays in a hand (G-30)."""
    hands = [[c for c in g.t.hands[t] if not is_money(c)] for t in range(g.num_players) if t != k]
    deck = [c for c in g.t.deck if not is_money(c)]
    out = [(a, b) for i, a in enumerate(hands) for b in hands[i + 1 :]]
    return out + [(h, deck) for h in hands] + [(deck, deck)]


def _groups_lc(g: Any, k: int) -> list[tuple[list[int], list[int]]]:
    """The other hand, the piles and the face-down lands: the two halves of one shuffled deck (LC-1)."""
    down = [c for c, up in zip(g.lands, g.face_up) if not up]
    places = [list(g.hands[1 - k]), list(g.piles[0]), list(g.piles[1]), down]
    return [(a, b) for i, a in enumerate(places) for b in places[i:]]


TWINNED: dict[str, tuple[CardPlaces, Callable[[Any, int], list[tuple[list[int], list[int]]]]]] = {
    "generals-war": (_places_gw, _groups_gw),
    "generals-and-assassins": (_places_ga, _groups_ga),
    "glory": (_places_glory, _groups_glory),
    "land-and-castle": (_places_lc, _groups_lc),
}


def swapped(game: Game[Any], places: CardPlaces, x: int, y: int) -> Game[Any]:
    """A deep copy of ``game`` with cards ``x`` and ``y`` exchanged wherever ``places`` holds them."""
    twin = copy.deepcopy(game)

    def swap(c: int) -> int:
        return y if c == x else x if c == y else c

    for place in places(twin):
        if isinstance(place, set):
            new = {swap(c) for c in place}
            place.clear()
            place.update(new)
        else:
            assert isinstance(place, (list, deque)), type(place)
            for i, c in enumerate(place):
                place[i] = swap(c)
    twin.forget()
    return twin


def probes(action: Any, x: int, y: int) -> Iterator[Any]:
    """``action`` with each of its card fields naming ``x`` (then ``y``) instead."""
    if not dataclasses.is_dataclass(action) or isinstance(action, type):
        return
    for f in dataclasses.fields(action):
        value = getattr(action, f.name)
        for card in (x, y):
            if isinstance(value, int) and not isinstance(value, bool) and "card" in f.name:
                yield dataclasses.replace(action, **{f.name: card})
            elif isinstance(value, tuple) and value and all(isinstance(v, int) for v in value):
                yield dataclasses.replace(action, **{f.name: (card,) + value[1:]})
            elif isinstance(value, tuple) and not value:
                yield dataclasses.replace(action, **{f.name: (card,)})


def seen_by(game: Game[Any], codec: GameCodec, k: int, events: list[Any]) -> list[bytes]:
    """All that ``k`` is told now: who acts, its view, its decision and listed actions, and the new events."""
    acting = game.to_act()
    told = [bytes(acting), codec.view(game.view(k)).SerializeToString()]
    if k in acting:
        told.append(codec.decision(game.decision(k)).SerializeToString())
        listed = game.listing(k, 200)
        told += [codec.action(a).SerializeToString() for a in listed or ()]
    told += [codec.event(e.payload, 0).SerializeToString() for e in events if e.visible(k)]
    # An event's seq counts the events k is not shown too: their number and places are told by the gaps.
    told.append(repr([i for i, e in enumerate(events) if e.visible(k)] + [len(events)]).encode())
    return told


def refusals(game: Game[Any], k: int, x: int, y: int) -> list[str | None]:
    """Why the rules refuse each of k's listed actions made to name ``x`` or ``y``."""
    if k not in game.to_act():
        return []
    listed = game.listing(k, 50) or []
    return [game.check(k, probe) for action in listed[:8] for probe in probes(action, x, y)]


def twin_differences(game_id: str, n: int, seed: int, steps: int = 4000) -> tuple[int, list[str]]:
    """Plays a random game; at random moments twins it for a random seat and plays both on while they must agree."""
    cls = GAMES[game_id]
    places, groups = TWINNED[game_id]
    codec = GameCodec(cls)
    rng = random.Random(seed)
    game = cls(n, seed)
    compared = 0
    found: list[str] = []
    step = 0
    while not game.is_over() and step < steps:
        step += 1
        if rng.random() < (0.3 if game_id in SHORT else 0.08):
            k = rng.randrange(n)
            pairs = [(a, b) for a, b in groups(game, k) if a and b]
            hidden = game.hidden_cards(k)
            picks = [(rng.choice(a), rng.choice(b)) for a, b in (rng.choice(pairs) for _ in range(10) if pairs)]
            for x, y in [(x, y) for x, y in picks if x != y and {x, y} <= hidden][:1]:
                compared += 1
                problem = follow(game, swapped(game, places, x, y), codec, k, x, y, random.Random(rng.random()))
                if problem:
                    found.append(f"{game_id} n={n} seed {seed} step {step} seat {k} cards {x},{y}: {problem}")
        seat = game.to_act()[0]
        action = game.random_action(seat, rng)
        game.apply(seat, action)
    return compared, found


def follow(a: Game[Any], b: Game[Any], codec: GameCodec, k: int, x: int, y: int, rng: random.Random) -> str | None:
    """Plays ``a`` and its twin ``b`` on with the same actions; what ``k`` is told first differently, if anything."""
    a, b = copy.deepcopy(a), b
    events_a: list[Any] = []
    events_b: list[Any] = []
    for _ in range(400):
        if not {x, y} <= a.hidden_cards(k) or not {x, y} <= b.hidden_cards(k):
            return None
        told_a, told_b = seen_by(a, codec, k, events_a), seen_by(b, codec, k, events_b)
        if told_a != told_b:
            first = next(i for i, (p, q) in enumerate(zip(told_a, told_b)) if p != q) if len(told_a) == len(told_b) else -1
            return f"told differently (part {first} of {len(told_a)}/{len(told_b)}): {told_a[first]!r} / {told_b[first]!r}"
        if refusals(a, k, x, y) != refusals(b, k, x, y):
            return f"refused differently: {refusals(a, k, x, y)} / {refusals(b, k, x, y)}"
        if a.is_over():
            return None
        seat = a.to_act()[0]
        action = a.random_action(seat, rng)
        if b.check(seat, action) is not None:
            return None  # the twins part by a choice the hidden cards allow in one only: a public difference
        events_a, events_b = a.apply(seat, action), b.apply(seat, action)
    return None


#: Games of few decisions, twinned more often.
SHORT = {"generals-war", "land-and-castle"}

CASES = [(gid, n) for gid, cls in GAMES.items() if gid in TWINNED for n in cls.spec.player_counts]


@pytest.mark.parametrize("game_id,n", CASES)
def test_a_seat_cannot_tell_twins_apart(game_id: str, n: int) -> None:
    compared = 0
    found: list[str] = []
    for seed in range(6):
        c, f = twin_differences(game_id, n, seed)
        compared += c
        found += f
    assert compared > 5
    assert not found, "\n".join(found[:5])


def test_the_twins_catch_a_leak_no_card_id_shows(monkeypatch: pytest.MonkeyPatch) -> None:
    """A view whose round number moves with the jokers in the next seat's hand names no hidden card, yet leaks."""
    cls = GAMES["generals-and-assassins"]
    original = cls.view

    def leaky_view(self: Any, seat: int) -> Any:
        view = original(self, seat)
        jokers = sum(1 for c in self.hands[(seat + 1) % self.num_players] if c % 54 >= 52)
        return dataclasses.replace(view, round=view.round + jokers)

    monkeypatch.setattr(cls, "view", leaky_view)
    found = [f for seed in range(3) for f in twin_differences("generals-and-assassins", 2, seed)[1]]
    assert found and "told differently" in found[0]
