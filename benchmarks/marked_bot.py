"""The random sample bot, with the moment each decision request reached it and the moment it answered noted.

For benchmarks/wire.py's ``round_trip_parts``: the marks, (match id, request id, reached, answered) in
``time.perf_counter`` seconds, which on Linux is the system-wide monotonic clock that the referee's
process reads too, go to ``$ARENA_BENCH_MARKS/<token prefix>.json`` when the process exits.
"""

from __future__ import annotations

import atexit
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "sample_bots" / "random"))

from arena.v1 import referee_pb2 as pb  # noqa: E402
from arena_sdk import run  # noqa: E402
from arena_sdk.driver import BotDriver  # noqa: E402

marks: list[tuple[str, int, float, float]] = []
handle = BotDriver.handle


def marked(self: BotDriver, msg: pb.RefereeMessage, received_at: float | None = None) -> list[pb.BotMessage]:
    reached = time.perf_counter()
    replies = handle(self, msg, received_at)
    if msg.WhichOneof("msg") == "decision":
        marks.append((os.environ.get("ARENA_MATCH_ID", ""), msg.decision.request_id, reached, time.perf_counter()))
    return replies


def dump() -> None:
    folder = Path(os.environ["ARENA_BENCH_MARKS"])
    (folder / f"{os.environ.get('ARENA_TOKEN', 'bot')[:12]}.json").write_text(json.dumps(marks))


if __name__ == "__main__":
    from bot import RandomBot  # type: ignore[import-not-found]

    BotDriver.handle = marked  # type: ignore[method-assign]
    atexit.register(dump)
    bot: Any = RandomBot()
    run(bot)
