"""The books process (ladder/books.py): calls, errors, a process that dies, and the ladder recording through it."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import os
import pickle
import signal
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select, text

from ladder.books import Books, BooksGone, serve
from ladder.db import default_url, make_engine
from ladder.executors import LocalExecutor, make_executor
from ladder.jobs import MatchJob, hand_out_elsewhere, record_elsewhere
from ladder.models import Match
from tests.ladder.conftest import LadderFixture, check_rated_once
from referee.server.runner import LocalMatch
from tests.support import SAMPLE_BOTS


def test_a_call_returns_its_value_or_raises_its_error_and_only_the_ladders_functions_are_called(tmp_path: Path) -> None:
    async def main() -> tuple[str, BaseException, BaseException]:
        books = Books()
        await books.start()
        try:
            value = await books.call(default_url, tmp_path)
            with pytest.raises(ValueError) as unknown:
                await books.call(make_executor, "ray", None, 1)
            with pytest.raises(TypeError) as foreign:
                await books.call(os.getcwd)
            return value, unknown.value, foreign.value
        finally:
            await books.close()

    value, unknown, foreign = asyncio.run(main())
    assert value == default_url(tmp_path)
    assert "unknown executor 'ray'" in str(unknown)
    assert "the ladder's functions only" in str(foreign)


def test_an_answer_that_does_not_pickle_comes_back_as_an_error() -> None:
    frames = io.BytesIO()
    for call_id, fn, args in ((1, default_url, (Path("/x"),)), (2, make_engine, ("sqlite://",))):  # an Engine holds locks
        frame = pickle.dumps((call_id, fn, args))
        frames.write(len(frame).to_bytes(4, "big") + frame)
    out = io.BytesIO()
    serve(io.BytesIO(frames.getvalue()), out)
    out.seek(0)
    answers = []
    while head := out.read(4):
        answers.append(pickle.loads(out.read(int.from_bytes(head, "big"))))
    assert answers[0] == (1, True, default_url(Path("/x")))
    call_id, ok, error = answers[1]
    assert (call_id, ok) == (2, False) and isinstance(error, RuntimeError) and "make_engine" in str(error)


def test_a_stray_print_in_the_books_process_does_not_break_its_answers() -> None:
    """The pipe carries answers only: something printing on the way (a library, a debug line) goes to stderr."""
    import subprocess
    import sys

    noisy = (
        "import ladder.books, ladder.db\n"
        "real = ladder.db.default_url\n"
        "def default_url(path):\n"
        "    print('stray line')\n"
        "    return real(path)\n"
        "default_url.__module__ = 'ladder.db'\n"
        "ladder.db.default_url = default_url\n"
        "ladder.books.main()\n"
    )
    frame = pickle.dumps((1, default_url, (Path("/x"),)))
    done = subprocess.run(
        [sys.executable, "-c", noisy], input=len(frame).to_bytes(4, "big") + frame, capture_output=True, timeout=60,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(p or os.getcwd() for p in sys.path)},
    )
    size = int.from_bytes(done.stdout[:4], "big")
    assert len(done.stdout) == 4 + size, done.stdout
    assert pickle.loads(done.stdout[4:]) == (1, True, default_url(Path("/x"))) and b"stray line" in done.stderr


async def call_unanswered(books: Books) -> asyncio.Future[str]:
    """A call sent to the books process, stopped (SIGSTOP) so that it does not answer yet."""
    assert books.proc is not None
    books.proc.send_signal(signal.SIGSTOP)
    pending = asyncio.ensure_future(books.call(default_url, Path("/x")))
    await asyncio.sleep(0.1)
    return pending


def test_a_books_process_that_dies_fails_its_pending_and_later_calls() -> None:
    async def main() -> tuple[BaseException, BaseException]:
        books = Books()
        await books.start()
        assert books.proc is not None
        try:
            pending = await call_unanswered(books)  # it cannot answer the call before it dies
            books.proc.send_signal(signal.SIGKILL)
            with pytest.raises(BooksGone) as during:
                await asyncio.wait_for(pending, 10)
            with pytest.raises(BooksGone) as after:
                await books.call(default_url, Path("/x"))
            return during.value, after.value
        finally:
            await books.close()

    during, after = asyncio.run(main())
    assert "exited with code -9" in str(during)
    assert "not running" in str(after)


def test_a_call_cancelled_before_its_answer_comes_leaves_the_books_process_serving() -> None:
    """A match cancelled while its result was being recorded: the answer that came after found its call cancelled,
    and setting it anyway would end the reader, every later call failing over to the ladder's own process."""

    async def main() -> tuple[str, bool]:
        books = Books()
        await books.start()
        assert books.proc is not None
        try:
            pending = await call_unanswered(books)  # the answer comes only after the call is cancelled
            pending.cancel()
            books.proc.send_signal(signal.SIGCONT)
            value = await asyncio.wait_for(books.call(default_url, Path("/y")), 10)
            return value, books.alive
        finally:
            await books.close()

    value, alive = asyncio.run(main())
    assert value == default_url(Path("/y")) and alive


def test_a_buffered_books_process_answers_and_close_ends_it_by_its_pipe_not_by_killing_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Its stdout buffered (no PYTHONUNBUFFERED in the ladder's environment), each answer must still be sent at once.
    The ladder stopping closes the pipe and the process ends on its own once it has answered; left open, the stop
    waited out close's ten seconds and then killed it."""
    monkeypatch.delenv("PYTHONUNBUFFERED", raising=False)

    async def main() -> tuple[str, int | None]:
        books = Books()
        await books.start()
        proc = books.proc
        assert proc is not None
        value = await asyncio.wait_for(books.call(default_url, Path("/x")), 10)
        await books.close()
        return value, proc.returncode

    assert asyncio.run(main()) == (default_url(Path("/x")), 0)


def test_the_signals_that_stop_the_ladders_process_group_leave_the_books_process_to_the_ladder() -> None:
    """Ctrl-C, or SIGTERM from `timeout` or systemd stopping the ladder's unit, reach the whole process group: the
    books process died of SIGTERM before the ladder closed it, and the ladder logged that it had ended and started
    another while it was stopping. The ladder ends it by closing its pipe."""

    async def main() -> tuple[bool, int | None]:
        books = Books()
        await books.start()
        assert books.proc is not None
        try:
            await books.call(default_url, Path("/x"))  # it is up, its signal handlers set
            for sig in (signal.SIGINT, signal.SIGTERM):
                books.proc.send_signal(sig)
            await asyncio.sleep(0.5)
            return books.alive, books.proc.returncode
        finally:
            await books.close()

    alive, code = asyncio.run(main())
    assert alive and code is None


def test_the_ladder_records_through_its_books_process_and_goes_on_when_it_dies(ladder: LadderFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    owner = ladder.user("dana")
    for bot in (SAMPLE_BOTS / "generals_war_greedy", SAMPLE_BOTS / "random"):
        assert ladder.submit(owner, bot)[1]["accepted"]
    executor = ladder.ladder.executor
    assert isinstance(executor, LocalExecutor) and executor.use_recorder
    recorded: list[int] = []  # each match recorded, however
    used: list[int] = []  # the books process that recorded, for each match recorded there
    original_record, original_call = executor._record, Books.call

    async def counted(job: MatchJob, played: LocalMatch, worker: str) -> bool:
        done = await original_record(job, played, worker)
        recorded.append(job.match_id)
        return done

    async def call_then_kill(self: Books, fn: Any, *args: Any) -> Any:
        assert self.proc is not None
        pid = self.proc.pid
        answer = await original_call(self, fn, *args)
        if fn is record_elsewhere:
            used.append(pid)
            if len(used) == 1:  # after the first result: the next ones must be recorded all the same
                os.kill(pid, signal.SIGKILL)
        return answer

    executor._record = counted  # type: ignore[method-assign]
    monkeypatch.setattr(Books, "call", call_then_kill)
    ladder.play(6, until=lambda: len(recorded) >= 6)
    assert len(recorded) >= 6 and len(set(used)) >= 2, (recorded, used)  # another process took over from the one killed
    with ladder.make() as db:
        assert (db.scalar(select(func.count()).select_from(Match).where(Match.status == "done")) or 0) >= 6
        assert db.scalar(select(func.count()).select_from(Match).where(Match.status == "failed")) == 0
        assert check_rated_once(db) >= 4
    for m in Path(ladder.ladder.config.data_dir / "replays").glob("*.json"):
        assert m.stat().st_size > 0


def test_a_match_claimed_by_a_books_process_that_then_died_is_played_at_once_and_costs_no_attempt(
    ladder: LadderFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    owner = ladder.user("erin")
    for bot in (SAMPLE_BOTS / "generals_war_greedy", SAMPLE_BOTS / "random"):
        assert ladder.submit(owner, bot)[1]["accepted"]
    lost: list[int] = []  # the match whose claim was committed and whose answer never came
    original_call = Books.call

    async def claim_then_die(self: Books, fn: Any, *args: Any) -> Any:
        answer = await original_call(self, fn, *args)
        if fn is hand_out_elsewhere and answer is not None and not lost:
            lost.append(answer[0])
            assert self.proc is not None
            os.kill(self.proc.pid, signal.SIGKILL)
            raise BooksGone("killed by the test after the claim was committed")
        return answer

    monkeypatch.setattr(Books, "call", claim_then_die)
    # The lease is far longer than the test may take: the match can be played only if it was given back at once.
    ladder.ladder.settings = dataclasses.replace(ladder.ladder.settings, lease_seconds=3600)

    def all_done() -> bool:
        with ladder.make() as db:
            return bool(lost) and db.scalar(select(Match.status).where(Match.id == lost[0])) == "done"

    ladder.play(2, timeout=120, until=all_done)
    with ladder.make() as db:
        done = db.scalar(select(Match).where(Match.id == lost[0]))
        assert done is not None and done.status == "done" and done.attempts == 0
        assert db.scalar(select(func.max(Match.attempts))) == 0
        assert db.scalar(text("SELECT count(*) FROM sqlite_stat1")), "the scheduler's first tick refreshes the statistics"
