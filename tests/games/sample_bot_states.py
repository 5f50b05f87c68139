"""Real decisions for the sample bots' choice tests: seeded games played at random, each decision as a bot receives it."""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from typing import Any

from arena.v1 import referee_pb2 as pb
from arena_sdk.bot import Request
from referee.protocol.codec import decode
from referee.protocol.messages import GameCodec


def decisions(cls: Any, players: int, seeds: Iterable[int], kind: str, options: dict[str, Any] | None = None) -> Iterator[tuple[Any, int, Request]]:
    """(game, seat, request) for every decision of ``kind`` met while seeded random play runs each game to its end."""
    return ((game, seat, request) for game, seat, request in every_decision(cls, players, seeds, options) if request.kind == kind)


def every_decision(cls: Any, players: int, seeds: Iterable[int], options: dict[str, Any] | None = None) -> Iterator[tuple[Any, int, Request]]:
    """(game, seat, request) for every decision met while seeded random play runs each game to its end."""
    for seed in seeds:
        game = cls(players, seed, options)
        rng = random.Random(seed)
        while not game.is_over():
            acting = game.to_act()
            for seat in acting:
                yield game, seat, request_for(game, seat)
            seat = rng.choice(acting)
            game.apply(seat, game.random_action(seat, rng))


def request_for(game: Any, seat: int) -> Request:
    """The request a bot in ``seat`` receives now."""
    codec = GameCodec(type(game))
    raw = pb.DecisionRequest(view=codec.view(game.view(seat)), decision=codec.decision(game.decision(seat)))
    return Request(raw, pb.GameStart(game=type(game).spec.id, seat=seat, num_seats=game.num_players))


def answer(bot: Any, game: Any, seat: int, request: Request) -> Any:
    """The bot's answer as the referee's action, checked legal."""
    action = decode(bot.act(request), type(game).action_types)
    assert game.check(seat, action) is None, (request.choice, action)
    return action
