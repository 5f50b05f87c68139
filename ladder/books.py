"""A process that keeps the ladder's books for the local executor: it records results (replays, ratings).

The ladder's process referees its matches on one event loop. Recording a result
in a thread of that process took the interpreter lock from the loop for about
3 ms per match, and every such millisecond slowed the matches by about as much
(benchmarks/CHANGES.md, fifth and seventh rounds). Here that work runs in a
child process, ``python -m ladder.books``, which the ladder sends calls to over
its stdin and which answers on its stdout: each a 4-byte length and a pickle of
(call id, function, arguments) one way, (call id, ok, value or exception) the
other. Only the ladder writes to the pipe, and only functions of the ladder's
own modules are called.

Should the process die, pending and later calls fail with ``BooksGone``; the
executor then records in its own process and starts another.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import pickle
import signal
import sys
from collections.abc import Callable
from typing import Any, BinaryIO, TypeVar

log = logging.getLogger("arena.ladder.books")

T = TypeVar("T")
_HEAD = 4  # bytes of a frame's length


class BooksGone(RuntimeError):
    """The books process has ended (or could not start): the call was not made, or its answer was lost."""


class Books:
    """The ladder's side: start the process, ``call`` functions in it, ``close`` it."""

    def __init__(self) -> None:
        self.proc: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task[None] | None = None
        self._waiting: dict[int, asyncio.Future[Any]] = {}
        self._ids = itertools.count()

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.returncode is None and self._reader is not None and not self._reader.done()

    async def start(self) -> None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p or os.getcwd() for p in sys.path)}
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "ladder.books", stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, env=env
        )
        self._reader = asyncio.create_task(self._read(self.proc))

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in the books process; its exception is raised here. BooksGone if the process is gone."""
        if not self.alive or self.proc is None or self.proc.stdin is None:
            raise BooksGone("the books process is not running")
        call_id = next(self._ids)
        answer: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._waiting[call_id] = answer
        frame = pickle.dumps((call_id, fn, args), protocol=pickle.HIGHEST_PROTOCOL)
        try:
            self.proc.stdin.write(len(frame).to_bytes(_HEAD, "big") + frame)
            await self.proc.stdin.drain()
        except (BrokenPipeError, ConnectionResetError) as exc:
            self._waiting.pop(call_id, None)
            raise BooksGone(f"the books process is gone: {exc}") from None
        return await answer

    async def _read(self, proc: asyncio.subprocess.Process) -> None:
        assert proc.stdout is not None
        gone = "the books process ended"
        try:
            while True:
                size = int.from_bytes(await proc.stdout.readexactly(_HEAD), "big")
                call_id, ok, value = pickle.loads(await proc.stdout.readexactly(size))
                answer = self._waiting.pop(call_id, None)
                if answer is None or answer.done():
                    continue
                if ok:
                    answer.set_result(value)
                else:
                    answer.set_exception(value)
        except (asyncio.IncompleteReadError, ConnectionResetError):
            gone = f"the books process exited with code {await proc.wait()}"  # its stdout closed: it is ending
        except Exception as exc:  # an answer that does not unpickle here: the pipe cannot be trusted any more
            log.exception("the books process's answer could not be read")
            gone = f"the books process's answer could not be read: {type(exc).__name__}: {exc}"
        finally:
            # Cancelled (the ladder's loop shutting down without close()): tell the process to end, and do not wait
            # for it here, or the loop's shutdown would wait on a process that waits for its stdin to close.
            if proc.returncode is None and proc.stdin is not None:
                proc.stdin.close()
            waiting, self._waiting = self._waiting, {}
            for answer in waiting.values():
                if not answer.done():
                    answer.set_exception(BooksGone(gone))

    async def close(self) -> None:
        """End the process once it has answered every call made (its stdin closes; killed after a few seconds)."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if proc.stdin is not None:
            proc.stdin.close()
        try:
            await asyncio.wait_for(proc.wait(), 10)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):  # it may end as the wait runs out
                proc.kill()
            await proc.wait()
        if self._reader is not None:
            await asyncio.gather(self._reader, return_exceptions=True)


def serve(inp: BinaryIO, out: BinaryIO) -> None:
    """The books process's loop: answer each call read from ``inp`` on ``out`` until ``inp`` closes."""
    while len(head := inp.read(_HEAD)) == _HEAD:
        call_id, fn, args = pickle.loads(inp.read(int.from_bytes(head, "big")))
        try:
            if not getattr(fn, "__module__", "").startswith("ladder."):
                raise TypeError(f"the books process calls the ladder's functions only, not {fn!r}")
            reply = (call_id, True, fn(*args))
        except Exception as exc:  # noqa: BLE001 - handed to the caller
            reply = (call_id, False, exc)
        try:
            frame = pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # noqa: BLE001 - an answer or exception that does not pickle
            frame = pickle.dumps((call_id, False, RuntimeError(f"{type(exc).__name__}: {exc} (answering {fn!r})")))
        out.write(len(frame).to_bytes(_HEAD, "big") + frame)
        out.flush()


def main() -> None:
    # Ctrl-C in a terminal reaches the whole process group, as SIGTERM does from `timeout` or systemd stopping the
    # ladder's unit: the ladder shuts down, and closing the pipe ends this (it had started another one, and said the
    # books process had ended, when this one died of the signal meant for the ladder).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="[books] %(levelname)s %(name)s: %(message)s")
    out = sys.stdout.buffer
    sys.stdout = sys.stderr  # the pipe carries answers only: a stray print must not break a frame
    serve(sys.stdin.buffer, out)


if __name__ == "__main__":
    main()
