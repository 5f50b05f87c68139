"""Running a command's event loop so that SIGTERM stops it as Ctrl-C does, and a second Ctrl-C waits for the clean-up.

``asyncio.run`` turns Ctrl-C into a cancellation of the main task, so its clean-up runs: bots and
containers are stopped, temporary folders removed. SIGTERM (``kill``, ``timeout``, a CI job cancelled,
systemd stopping a unit) would otherwise end the process at once and leave all of that behind. A second
Ctrl-C, to ``asyncio.run``, raises KeyboardInterrupt wherever the clean-up is: it was cut short with a wall
of tracebacks from grpc ("Event loop is closed"). Here the second is told to wait and the third quits at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")
#: The exit code of a command stopped by SIGTERM, as a shell reports one killed by it.
TERMINATED = 128 + signal.SIGTERM
#: The exit code of a command stopped by Ctrl-C, as a shell reports one killed by SIGINT.
INTERRUPTED = 128 + signal.SIGINT


class Terminated(SystemExit):
    """The command was stopped by SIGTERM after its clean-up ran."""


def run(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)``, with SIGTERM and Ctrl-C cancelling ``main`` once.

    A second SIGTERM while it cleans up is ignored; a second Ctrl-C is told the clean-up goes on, and a third
    quits at once (exit 130), as a user pressing it a third time wants. A cancellation by Ctrl-C ends in
    KeyboardInterrupt, as ``asyncio.run``'s does; by SIGTERM, in ``Terminated``.
    """
    stopped_by: signal.Signals | None = None
    interrupts = 0

    async def guarded() -> T:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None

        def stop(sig: signal.Signals) -> None:
            nonlocal interrupts, stopped_by
            if sig == signal.SIGINT:
                interrupts += 1
                if interrupts == 2 and stopped_by is not None:
                    print("arena: stopping: bots are being stopped and what was played is kept; Ctrl-C again quits at once", file=sys.stderr, flush=True)
                elif interrupts > 2:
                    os._exit(INTERRUPTED)
            if stopped_by is None:
                stopped_by = sig
                task.cancel()

        installed: list[signal.Signals] = []
        # Ctrl-C only where Python would raise KeyboardInterrupt for it: a command started with SIGINT ignored (a
        # background job of a script) keeps ignoring it, as asyncio.run leaves it.
        # (Asked before asyncio.run, which puts its own handler there.)
        handled = [signal.SIGTERM] + ([signal.SIGINT] if take_sigint else [])
        for sig in handled:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):  # not the main thread, or no signals here
                loop.add_signal_handler(sig, stop, sig)
                installed.append(sig)
        try:
            return await main
        finally:
            for sig in installed:
                loop.remove_signal_handler(sig)

    take_sigint = signal.getsignal(signal.SIGINT) is signal.default_int_handler
    try:
        return asyncio.run(guarded())
    except asyncio.CancelledError:
        if stopped_by == signal.SIGTERM:
            print("arena: stopped by SIGTERM", file=sys.stderr)
            raise Terminated(TERMINATED) from None
        if stopped_by == signal.SIGINT:
            raise KeyboardInterrupt from None
        raise
