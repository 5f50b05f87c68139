"""Per-game helpers: action builders and a legal random action for every decision kind."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from arena_sdk.bot import Request
from arena_sdk.games import assassination, generals_and_assassins, generals_war, glory, land_and_castle

#: Each game's ``sample(request, rng)``: a legal action from the decision's constraints alone.
SAMPLERS: dict[str, Callable[[Request, random.Random], Any]] = {
    "generals-war": generals_war.sample,
    "generals-and-assassins": generals_and_assassins.sample,
    "glory": glory.sample,
    "land-and-castle": land_and_castle.sample,
    "assassination": assassination.sample,
}


def random_action(request: Request, rng: random.Random) -> Any:
    """A legal action chosen at random: from the listed actions, or sampled from the decision's constraints."""
    listed = request.legal_actions
    if listed:
        return rng.choice(listed)
    sampler = SAMPLERS.get(request.start.game)
    if sampler is None:
        raise ValueError(f"no sampler for game {request.start.game}; this SDK knows {', '.join(SAMPLERS)}")
    return sampler(request, rng)
