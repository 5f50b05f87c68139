"""General's War helpers."""

from __future__ import annotations

import random
from collections.abc import Iterable

from arena.v1 import generals_war_pb2 as gw
from arena_sdk.bot import Request


def reveal(card_ids: Iterable[int] = ()) -> gw.Action:
    return gw.Action(reveal_generals=gw.RevealGenerals(card_ids=list(card_ids)))


def target(seat: int) -> gw.Action:
    return gw.Action(choose_target=gw.ChooseTarget(target=seat))


def squad(card_ids: Iterable[int]) -> gw.Action:
    return gw.Action(play_squad=gw.PlaySquad(card_ids=list(card_ids)))


def power(rank: int) -> int:
    """A card's power is its rank number (ace 1 ... king 13)."""
    return rank


def sample(request: Request, rng: random.Random) -> gw.Action:
    choice = request.choice
    if request.kind == "reveal_choice":
        return reveal(c.id for c in choice.revealable if rng.random() < 0.5)
    if request.kind == "target_choice":
        return target(rng.choice(list(choice.targets)))
    size = rng.randint(choice.min_cards, choice.max_cards)
    return squad(c.id for c in rng.sample(list(choice.playable), size))
