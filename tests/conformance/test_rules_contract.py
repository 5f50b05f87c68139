"""The engine contract, checked on every game and player count with random legal play."""

from __future__ import annotations

import dataclasses
import itertools
import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.core.game import Game, IllegalAction
from referee.games.registry import GAMES
from referee.protocol.codec import CARD_MESSAGE
from referee.protocol.messages import GameCodec
from tests.support import CONFIGS, random_playout

FOREIGN_CARD = 10_000  # no deck has a card with this id
LIST_ALL = 5000


def new(game_id: str, n: int, seed: int) -> Game[Any]:
    return GAMES[game_id](n, seed)


@pytest.mark.parametrize("game_id,n", CONFIGS)
def test_random_play_reaches_a_valid_result(game_id: str, n: int) -> None:
    for seed in range(60):
        game = new(game_id, n, seed)
        rng = random.Random(seed)
        for seat, action, events in random_playout(game, rng):
            assert 0 <= seat < n
            for event in events:
                assert event.visible_to is None or event.visible_to <= set(range(n))
        result = game.result()
        assert len(result.ranks) == n and len(result.scores) == n
        assert all(1 <= r <= n for r in result.ranks)
        assert min(result.ranks) == 1
        assert game.to_act() == ()


@pytest.mark.parametrize("game_id,n", CONFIGS)
def test_what_is_worked_out_once_per_state_agrees_with_working_it_out_afresh(game_id: str, n: int) -> None:
    """At every step of play: the decisions kept equal fresh ones, ``listing`` agrees with enumerating
    the actions, and ``least_count`` never overstates them."""
    for seed in range(8):
        game = new(game_id, n, seed)
        rng = random.Random(seed)
        while game.to_act():
            acting = game.to_act()
            kept = {s: game.decision(s) for s in acting}
            seat = rng.choice(acting)
            actions = list(itertools.islice(game.legal_actions(seat), LIST_ALL + 1))
            assert min(game.least_count(seat), LIST_ALL + 1) <= len(actions)
            for limit in (1, 8, 64):
                assert game.listing(seat, limit) == (actions if len(actions) <= limit else None)
            assert kept == {s: game._decide(s) for s in acting}
            game.apply(seat, game.random_action(seat, rng))
            assert all(game.decision(s) == game._decide(s) for s in game.to_act())


def perturbations(action: Any, game: Game[Any]) -> list[Any]:
    """Variants of a legal action that name a card nobody holds, repeat a card, or give an absurd number.

    Each stays well typed, as every action the codec decodes is: a number where an enum or a record
    belongs is a malformed message, which the codec refuses before the rules see it (and which a build
    of the rules compiled with mypyc could not even construct). What a field holds is read from the
    protocol's message, which says it even of an empty tuple.
    """
    fields = getattr(game.proto_module, type(action).__name__).DESCRIPTOR.fields_by_name
    out: list[Any] = []
    for f in dataclasses.fields(action):
        value = getattr(action, f.name)
        fd = fields[f.name]
        numbers = fd.enum_type is None and (fd.message_type is None or fd.message_type.full_name == CARD_MESSAGE)
        if isinstance(value, tuple) and fd.is_repeated and numbers:
            out.append(dataclasses.replace(action, **{f.name: value + (FOREIGN_CARD,)}))
            if value:
                out.append(dataclasses.replace(action, **{f.name: value + (value[0],)}))
        elif type(value) is int and numbers:  # not a bool, nor an enum
            out.append(dataclasses.replace(action, **{f.name: 1_000_000}))
    return out


@pytest.mark.parametrize("game_id,n", CONFIGS)
def test_listed_actions_are_accepted_and_others_refused(game_id: str, n: int) -> None:
    checked_illegal = 0
    for seed in range(8):
        game = new(game_id, n, seed)
        rng = random.Random(seed)
        steps = 0
        while not game.is_over() and steps < 400:
            steps += 1
            acting = game.to_act()
            # What a refused action must leave as it was (worked out once a step: the whole state, costly in Glory).
            before = json.dumps(game.full_state(), sort_keys=True)
            for seat in acting:
                listed = list(itertools.islice(game.legal_actions(seat), LIST_ALL + 1))
                assert listed, f"{game_id}: seat {seat} must act but has no legal action"
                complete = len(listed) <= LIST_ALL
                for action in listed[:300]:
                    assert game.check(seat, action) is None, f"listed action refused: {action}"
                legal = set(listed) if complete else None
                for bad in perturbations(rng.choice(listed), game):
                    reason = game.check(seat, bad)
                    if legal is not None and bad in legal:
                        assert reason is None
                        continue
                    assert isinstance(reason, str) and reason, f"{game_id}: {bad} was not refused"
                    with pytest.raises(IllegalAction):
                        game.apply(seat, bad)
                    assert json.dumps(game.full_state(), sort_keys=True) == before, "a refused action changed the state"
                    checked_illegal += 1
                sampled = game.random_action(seat, rng)
                assert game.check(seat, sampled) is None, f"random_action gave an illegal action: {sampled}"
            idle = [s for s in range(n) if s not in acting]
            if idle:
                with pytest.raises(IllegalAction):
                    game.apply(idle[0], game.random_action(acting[0], random.Random(0)))
            seat = rng.choice(acting)
            game.apply(seat, game.random_action(seat, rng))
    assert checked_illegal > 0


def trace(game_id: str, n: int, seed: int, policy_seed: int) -> list[Any]:
    game = new(game_id, n, seed)
    codec = GameCodec(type(game))
    out: list[Any] = [codec.event_to_json(e, i) for i, e in enumerate(game.opening_events())]
    for seat, action, events in random_playout(game, random.Random(policy_seed)):
        out.append((seat, codec.action_to_json(action), [codec.event_to_json(e, 0) for e in events]))
    out.append(dataclasses.asdict(game.result()))
    return out


@pytest.mark.parametrize("game_id,n", CONFIGS)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), policy_seed=st.integers(0, 2**31 - 1))
def test_same_seed_and_actions_give_the_same_match(game_id: str, n: int, seed: int, policy_seed: int) -> None:
    assert trace(game_id, n, seed, policy_seed) == trace(game_id, n, seed, policy_seed)


@pytest.mark.parametrize("game_id,n", CONFIGS)
def test_the_seed_decides_the_deal(game_id: str, n: int) -> None:
    states = {json.dumps(new(game_id, n, seed).full_state(), sort_keys=True) for seed in range(6)}
    assert len(states) > 1, "different seeds dealt the same cards"


@pytest.mark.parametrize("game_id,n", CONFIGS)
def test_views_round_trip_through_the_protocol(game_id: str, n: int) -> None:
    """Every view, decision, action and event encodes; an action decodes back to itself."""
    game = new(game_id, n, 11)
    codec = GameCodec(type(game))
    rng = random.Random(11)
    while not game.is_over():
        for seat in range(n):
            codec.view(game.view(seat))
        seat = rng.choice(game.to_act())
        codec.decision(game.decision(seat))
        action = game.random_action(seat, rng)
        assert codec.decode_action(codec.action(action)) == action
        assert codec.action_from_json(codec.action_to_json(action)) == action
        for event in game.apply(seat, action):
            codec.event(event.payload, 0)


@pytest.mark.parametrize("game_id,n", CONFIGS)
def test_the_fast_json_of_views_actions_and_events_is_what_message_to_dict_gives(game_id: str, n: int) -> None:
    """Replays and replay frames use referee.protocol.jsondict; it must spell every message as protobuf's own JSON does."""
    from google.protobuf import json_format

    from referee.protocol.jsondict import message_to_dict

    game = new(game_id, n, 5)
    codec = GameCodec(type(game))
    rng = random.Random(5)
    checked = 0
    while not game.is_over():
        seat = rng.choice(game.to_act())
        action = game.random_action(seat, rng)
        messages = [codec.view(game.view(seat)), codec.decision(game.decision(seat)), codec.action(action)]
        messages += [codec.event(e.payload, i) for i, e in enumerate(game.apply(seat, action))]
        for msg in messages:
            assert message_to_dict(msg) == json_format.MessageToDict(msg, preserving_proto_field_name=True)
            checked += 1
    assert checked > 50
