"""The greedy bot with noise: a family of bots of known strength (noise 0 is strongest, 1 is random)."""

import importlib.util
import os
import random
import sys
from pathlib import Path
from typing import Any

from arena_sdk import Bot, Request, random_action, run


def greedy_class() -> Any:
    here = Path(__file__).resolve()
    candidates = [Path(a) for a in sys.argv[2:]] + [here.parents[2] / "sample_bots" / "generals_war_greedy" / "bot.py"]
    for path in candidates:
        if path.is_file():
            spec = importlib.util.spec_from_file_location("greedy", path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return module.GreedyBot
    raise SystemExit("cannot find the greedy bot")


class NoisyBot(Bot):
    name = "gw-noisy"

    def __init__(self, noise: float) -> None:
        self.noise = noise
        self.greedy = greedy_class()()
        self.rng = random.Random(os.environ.get("ARENA_BOT_SEED"))

    def act(self, request: Request) -> Any:
        if self.rng.random() < self.noise:
            return random_action(request, self.rng)
        return self.greedy.act(request)


if __name__ == "__main__":
    run(NoisyBot(float(sys.argv[1])))
