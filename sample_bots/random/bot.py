"""Plays a random legal action in every game."""

from __future__ import annotations

import os
import random
from typing import Any

from arena_sdk import Bot, Request, random_action, run


class RandomBot(Bot):
    name = "random"
    version = "1.0.0"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed if seed is not None else os.environ.get("ARENA_BOT_SEED"))

    def act(self, request: Request) -> Any:
        return random_action(request, self.rng)


if __name__ == "__main__":
    run(RandomBot())
