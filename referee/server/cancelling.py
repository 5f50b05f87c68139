"""Clean-up that a cancellation cannot cut short.

Ctrl-C and SIGTERM cancel a command's tasks (arena/cli/running.py). A task cancelled while it was already
cleaning up (a match that had just ended, stopping its bots) lost the rest of its clean-up: the seats'
gRPC servers were left running until the interpreter exited, and said so with a traceback.
"""

from __future__ import annotations

import asyncio
from typing import Any


async def outlast(future: asyncio.Future[Any]) -> bool:
    """Wait for ``future`` to finish even if this task is cancelled meanwhile; True if it was.

    The future's own outcome (a result, an error, its cancellation) is the caller's to read.
    """
    cancelled = False
    while not future.done():
        try:
            await asyncio.shield(future)
        except asyncio.CancelledError:
            if not future.done():
                cancelled = True
        except Exception:
            break
    return cancelled


async def finish(future: asyncio.Future[Any]) -> None:
    """``outlast(future)``, then raise what it raised, or the cancellation that arrived meanwhile."""
    if await outlast(future):
        raise asyncio.CancelledError
    future.result()
