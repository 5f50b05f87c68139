"""Plays a random legal action in every game."""

from __future__ import annotations

import os
import random
from typing import Any

from arena.v1 import referee_pb2 as pb
from arena_sdk import Bot, Request, random_action, run


class RandomBot(Bot):
    name = "random"
    version = "1.0.0"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.rng = random.Random(seed if seed is not None else os.environ.get("ARENA_BOT_SEED"))

    def on_start(self, start: pb.GameStart) -> None:
        # A process that plays several matches in a row is handed each one's seed (the SDK sets ARENA_BOT_SEED):
        # play each as a fresh process would, so that a match seed replays the same match either way.
        if self.seed is None and not start.resumed and os.environ.get("ARENA_BOT_SEED"):
            self.rng.seed(os.environ["ARENA_BOT_SEED"])

    def act(self, request: Request) -> Any:
        return random_action(request, self.rng)


if __name__ == "__main__":
    run(RandomBot())
