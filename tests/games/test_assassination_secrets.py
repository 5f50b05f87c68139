"""No message tells a seat another seat's identity or piece before the rules reveal it.

Each test plays two games through the real referee session
(``referee.server.inprocess.play_async``) whose secrets differ only in what
seat k may not know: the other seats' identities and colours, and the
reporter's colour, are permuted. Every piece does the same thing in both
games (the bots and the reporter's deck follow one script by colour), so the
board looks the same to everyone. Seat k must then receive byte-identical
messages until the first reveal of something it did not know. The clock
fields of a decision request (time left) and the random match id are cleared
first; they are the only parts of a message that differ between two sessions.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import random
from typing import Any

import pytest

from arena.v1 import referee_pb2 as pb
from arena_sdk import Bot, Request
from arena_sdk.games import assassination as ag
from referee.games.assassination import Assassination, deck
from referee.games.assassination.state import Assignment
from referee.games.assassination.types import Direction, Identity
from referee.server.inprocess import play_async
from referee.server.session import TimeControl
from tests.games.test_assassination_support import cards_of

#: Ample for a scripted bot; a bot that crashed would fail the test in seconds, not minutes.
QUICK = TimeControl(move_time_ms=5000, time_bank_ms=5000, connect_timeout_ms=5000)
IDENTITIES = (Identity.SECRET_SERVICE, Identity.POLICE_OFFICER, Identity.SNIPER, Identity.BOMBER)
DIRECTIONS = (Direction.UP, Direction.DOWN, Direction.LEFT, Direction.RIGHT, Direction.STAY)


def script(seed: int, colour: int, turn: int) -> Direction:
    """The way the piece of ``colour`` goes on ``turn``: the same in both games, whoever holds it."""
    return random.Random(seed * 1000 + colour * 50 + turn).choice(DIRECTIONS)


class ScriptBot(Bot):
    """Plays by its colour's script: the movement card of the scripted way, blanks, and actions only when told."""

    name = "script"

    def __init__(self, seed: int, acts: set[tuple[int, int]]) -> None:
        self.seed = seed
        self.acts = acts  # (colour, turn) at which the piece of that colour turns over an action card

    def act(self, request: Request) -> Any:
        view = request.view
        choice = request.choice
        if request.kind == "movement_choice":
            wanted = script(self.seed, view.colour, view.turn)
            card = ag.card_for(choice.playable, int(wanted))
            return ag.movement(card if card is not None else min(c.id for c in choice.playable))
        if request.kind == "event_choice":
            acting = (view.colour, view.turn) in self.acts
            cards = sorted(c.id for c in choice.playable if ag.is_action(c) == acting)
            return ag.event(cards[0] if cards else min(c.id for c in choice.playable))
        if request.kind == "action_choice":
            return ag.take(choice.options[0])
        if request.kind == "president_move_choice":
            goal = ag.PUBLIC_EXIT if view.president.speech_given else ag.PODIUM
            return ag.move_president(min(choice.rooms, key=lambda room: (walk(room, goal), room)))
        if request.kind == "reaction_choice":
            return ag.react(False)
        if request.kind == "allegiance_choice":
            return ag.allegiance(False)
        return ag.start_round()


def walk(start: int, goal: int) -> int:
    """Rooms between ``start`` and ``goal`` for the president (who keeps out of the tower and the office)."""
    dist = {start: 0}
    queue = [start]
    for room in queue:
        for nxt in ag.adjacent(room):
            if nxt not in dist and nxt not in (ag.TOWER, ag.SECURITY_OFFICE):
                dist[nxt] = dist[room] + 1
                queue.append(nxt)
    return dist.get(goal, 99)


def reporter_deck(seed: int, colour: int) -> list[int]:
    """The reporter's movement pile, stacked to follow the script of his colour."""
    ways = [script(seed, colour, turn) for turn in range(1, 17)]
    hand = deck.movement_deck(colour)
    order: list[int] = []
    for way in ways:
        left = [c for c in hand if c not in order]
        same = [c for c in left if deck.direction_of(c) == way]
        order.append(min(same) if same else min(left))
    return order + [c for c in cards_of(colour, ()) if c not in order]


def rigged(seed: int, identities: list[Identity], colours: list[int], scores: list[int] | None = None) -> Assassination:
    game = Assassination(4, seed)
    if scores is not None:
        game.scores = list(scores)
        game.round = 1
        game._opening = game._start_round()
    reporter = next(c for c in range(5) if c not in colours)
    idle = [c for c in deck.event_deck(reporter) if not deck.is_action(c)]
    game.install(Assignment(list(identities), list(colours), reporter), reporter_deck(seed, reporter), idle)
    return game


def messages_to(game: Assassination, k: int, seed: int, acts: set[tuple[int, int]]) -> list[bytes]:
    sent: list[bytes] = []

    def on_send(seat: int, data: bytes) -> None:
        if seat == k:
            sent.append(data)

    asyncio.run(play_async(game, [ScriptBot(seed, acts) for _ in range(4)], time_control=QUICK, on_send=on_send))
    return sent


def normalised(data: bytes) -> bytes:
    """The message with the clock and the match id cleared (they differ between any two sessions)."""
    msg = pb.RefereeMessage.FromString(data)
    which = msg.WhichOneof("msg")
    if which == "decision":
        msg.decision.time_left_ms = 0
        msg.decision.time_bank_left_ms = 0
    elif which == "start":
        msg.start.match_id = ""
    elif which == "result":
        msg.result.match_id = ""
    else:
        return data  # events and the rest: compared byte for byte as sent
    return msg.SerializeToString(deterministic=True)


def reveals_a_secret_of_others(data: bytes, k: int) -> bool:
    """True for a message that tells seat k something the rules reveal about another seat or the reporter."""
    msg = pb.RefereeMessage.FromString(data)
    which = msg.WhichOneof("msg")
    if which == "events":
        events = msg.events.events
    elif which == "decision":  # events folded into the request that follows them
        events = msg.decision.events.events
    else:
        return False
    for event in events:
        body = event.assassination
        kind = body.WhichOneof("kind")
        if kind in ("reporter_revealed", "round_ended"):
            return True
        if kind == "player_revealed" and body.player_revealed.seat != k:
            return True
    return False


def compare(a: list[bytes], b: list[bytes], k: int) -> tuple[int, int]:
    """(index of the first message that differs, index of the first message revealing another's secret)."""
    reveal = next((i for i, data in enumerate(a) if reveals_a_secret_of_others(data, k)), len(a))
    differ = next((i for i, (x, y) in enumerate(zip(a, b)) if normalised(x) != normalised(y)), min(len(a), len(b)))
    return differ, reveal


def permutations_for(k: int, identities: list[Identity], colours: list[int]) -> list[tuple[list[Identity], list[int]]]:
    """Secret assignments that agree with (identities, colours) on seat k only where k can see: its own."""
    others = [s for s in range(4) if s != k]
    free_colours = [c for c in range(5) if c != colours[k]]
    out = []
    for ident_perm in itertools.permutations([identities[s] for s in others]):
        for colour_perm in itertools.permutations(free_colours, 3):
            ids = list(identities)
            cols = list(colours)
            for s, i, c in zip(others, ident_perm, colour_perm):
                ids[s], cols[s] = i, c
            if (ids, cols) != (identities, colours):
                out.append((ids, cols))
    return out


def check_seat(k: int, seed: int, acts: set[tuple[int, int]], scores: list[int] | None = None, variants: int = 3) -> int:
    rng = random.Random(seed)
    identities = list(IDENTITIES)
    rng.shuffle(identities)
    colours = rng.sample(range(5), 4)
    base = messages_to(rigged(seed, identities, colours, scores), k, seed, acts)
    candidates = permutations_for(k, identities, colours)
    checked = 0
    for ids, cols in rng.sample(candidates, variants):
        # An action card must come from a player's piece in both games.
        if any(colour not in cols or colour not in colours for colour, _ in acts):
            continue
        other = messages_to(rigged(seed, ids, cols, scores), k, seed, acts)
        differ, reveal = compare(base, other, k)
        assert reveal >= 10, "too few messages before the first reveal to prove anything"
        assert differ >= reveal, f"seat {k} told apart two secret deals at message {differ} (first reveal {reveal})"
        assert reveal < len(base) and differ == reveal, "the reveal itself must tell them apart, else nothing was secret"
        checked += 1
    return checked


@pytest.mark.parametrize("k", range(4))
def test_a_seat_cannot_tell_secret_deals_apart_before_the_round_ends(k: int) -> None:
    """Nobody turns over an action card: the first reveal is the end of the round."""
    checked = sum(check_seat(k, seed, set()) for seed in (1, 2))
    assert checked >= 4


@pytest.mark.parametrize("k", range(4))
def test_own_reveal_tells_the_others_nothing_about_the_rest(k: int) -> None:
    """Seat k itself turns over an action card on turn 2: what it sees stays identical until another reveal."""
    checked = 0
    for seed in (3, 4):
        rng = random.Random(seed)
        identities = list(IDENTITIES)
        rng.shuffle(identities)
        colour = rng.sample(range(5), 4)[k]
        checked += check_seat(k, seed, {(colour, 2)})
    assert checked >= 4


def test_the_bad_cop_choice_is_invisible_to_the_others() -> None:
    """Seat 3 is alone in last place and is asked to choose a side, police officer or not."""
    checked = 0
    for k in range(3):
        checked += check_seat(k, 5 + k, set(), scores=[3, 3, 3, 0], variants=4)
    assert checked >= 6


def test_another_players_action_card_is_the_first_reveal() -> None:
    """A reveal by another seat may tell things apart, but nothing before it does."""
    seed, k = 6, 0
    rng = random.Random(seed)
    identities = list(IDENTITIES)
    rng.shuffle(identities)
    colours = rng.sample(range(5), 4)
    actor = colours[1]
    base = messages_to(rigged(seed, identities, colours), k, seed, {(actor, 2)})
    for ids, cols in permutations_for(k, identities, colours)[:12]:
        if actor not in cols:
            continue
        differ, reveal = compare(base, messages_to(rigged(seed, ids, cols), k, seed, {(actor, 2)}), k)
        assert differ >= reveal >= 5


def test_the_check_catches_a_view_that_leaks_identities(monkeypatch: pytest.MonkeyPatch) -> None:
    """A view that lists every seat as revealed must be caught by the same comparison."""
    original = Assassination.view

    def leaky(self: Assassination, seat: int) -> Any:
        view = original(self, seat)
        from referee.games.assassination.types import Revealed

        everyone = tuple(Revealed(s, self.secret.identities[s], self.secret.colours[s]) for s in range(4))
        return dataclasses.replace(view, revealed=everyone)

    monkeypatch.setattr(Assassination, "view", leaky)
    seed, k = 1, 2
    rng = random.Random(seed)
    identities = list(IDENTITIES)
    rng.shuffle(identities)
    colours = rng.sample(range(5), 4)
    base = messages_to(rigged(seed, identities, colours), k, seed, set())
    ids, cols = permutations_for(k, identities, colours)[0]
    differ, reveal = compare(base, messages_to(rigged(seed, ids, cols), k, seed, set()), k)
    assert differ < reveal


def test_a_face_down_card_does_not_name_its_player() -> None:
    """The pile shows each card's mark; which seat holds a mark changes from deal to deal, and never follows the seat."""
    holders: dict[int, set[int]] = {c: set() for c in range(5)}
    for seed in range(40):
        game = Assassination(4, seed)
        for seat, colour in enumerate(game.secret.colours):
            holders[colour].add(seat)
    assert all(seats == {0, 1, 2, 3} for seats in holders.values())


def test_who_is_asked_a_question_of_the_action_stage_follows_from_public_facts() -> None:
    """The sniper's, the cell's and the bomber's questions (AS-22, AS-31, AS-28, AS-53) go to seats every seat can name
    from its own view: the revealed police officer; every living player but the revealed agent; every living player
    but the revealed bomber. A seat's death reveals it, so the living are public too."""
    from referee.games.assassination.types import CellChoice, Phase, ReactionChoice, SniperDetentionChoice

    seen: dict[type, int] = {}
    for seed in range(60):
        g = Assassination(4, seed)
        rng = random.Random(seed)
        while not g.is_over():
            if g.phase == Phase.REACTION:
                view = g.view(0)  # any seat: only what all of them see is used
                revealed = {r.seat: r for r in view.revealed}
                dead = {s for s, r in revealed.items() if view.pieces[r.colour].killed}
                living = set(range(4)) - dead
                by_identity = {r.identity: s for s, r in revealed.items()}
                kind = type(g.decision(g.to_act()[0]))
                if kind is SniperDetentionChoice:
                    expected = {by_identity[Identity.POLICE_OFFICER]}
                elif kind is CellChoice:
                    expected = living - {by_identity[Identity.SECRET_SERVICE]}
                else:
                    assert kind is ReactionChoice
                    expected = living - {by_identity[Identity.BOMBER]}
                assert set(g.asked) == expected, (seed, kind.__name__)  # the seats asked, some may have answered
                seen[kind] = seen.get(kind, 0) + 1
            seat = rng.choice(g.to_act())
            g.apply(seat, g.random_action(seat, rng))
    assert seen.get(CellChoice, 0) >= 10 and seen.get(ReactionChoice, 0) >= 10, seen
