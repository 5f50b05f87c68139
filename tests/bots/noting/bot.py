"""Random legal play that notes each decision: "why <index>: <kind>"."""

import os
import random
from typing import Any

from arena_sdk import Bot, Request, random_action, run


class NotingBot(Bot):
    name = "noting"

    def __init__(self) -> None:
        self.rng = random.Random(os.environ.get("ARENA_BOT_SEED"))

    def act(self, request: Request) -> Any:
        request.note(f"why {request.decision_index}: {request.kind} <b>not bold</b>")
        return random_action(request, self.rng)


if __name__ == "__main__":
    run(NotingBot())
