"""Running a command's event loop so that SIGTERM stops it as Ctrl-C does.

``asyncio.run`` turns Ctrl-C into a cancellation of the main task, so its clean-up runs: bots and
containers are stopped, temporary folders removed. SIGTERM (``kill``, ``timeout``, a CI job cancelled,
systemd stopping a unit) would otherwise end the process at once and leave all of that behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")
#: The exit code of a command stopped by SIGTERM, as a shell reports one killed by it.
TERMINATED = 128 + signal.SIGTERM


class Terminated(SystemExit):
    """The command was stopped by SIGTERM after its clean-up ran."""


def run(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)``, with SIGTERM cancelling ``main`` (once: a second one while it cleans up is ignored)."""
    stopped = False

    async def guarded() -> T:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None

        def on_term() -> None:
            nonlocal stopped
            if not stopped:
                stopped = True
                task.cancel()

        installed = False
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):  # not the main thread, or no signals here
            loop.add_signal_handler(signal.SIGTERM, on_term)
            installed = True
        try:
            return await main
        finally:
            if installed:
                loop.remove_signal_handler(signal.SIGTERM)

    try:
        return asyncio.run(guarded())
    except asyncio.CancelledError:
        if stopped:
            print("arena: stopped by SIGTERM", file=sys.stderr)
            raise Terminated(TERMINATED) from None
        raise
