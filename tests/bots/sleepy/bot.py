import sys
import time
from typing import Any

from arena_sdk import Bot, Request, run


class Sleepy(Bot):
    name = "sleepy"

    def act(self, request: Request) -> Any:
        print("asked to decide: sleeping", file=sys.stderr, flush=True)  # a test waits for this line in the log
        time.sleep(3600)


if __name__ == "__main__":
    run(Sleepy())
