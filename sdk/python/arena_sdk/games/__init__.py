"""Per-game helpers: action builders and a legal random action for every decision kind."""

from __future__ import annotations

import importlib
import random
from typing import Any

from arena_sdk.bot import Request


def random_action(request: Request, rng: random.Random) -> Any:
    """A legal action chosen at random: from the listed actions, or sampled from the decision's constraints."""
    listed = request.legal_actions
    if listed:
        return rng.choice(listed)
    module = importlib.import_module(f"arena_sdk.games.{request.field}")
    return module.sample(request, rng)
