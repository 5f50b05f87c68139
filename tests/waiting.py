"""Waiting on a condition with a deadline, rather than sleeping a fixed time and hoping it holds by then."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable


def wait_for(what: str, check: Callable[[], object], timeout: float = 120, every: float = 0.2) -> None:
    """Until ``check()`` holds, looking every ``every`` seconds; fails saying ``what`` was awaited after ``timeout``.
    The deadline is generous: CI's machine has two cores and is often busy."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(every)


async def until(what: str, check: Callable[[], object], timeout: float = 120, every: float = 0.1) -> None:
    """``wait_for`` within an event loop, which goes on meanwhile (the ladder's, say)."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(every)
