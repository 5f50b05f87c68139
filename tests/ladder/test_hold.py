"""One ladder per database (ladder/hold.py): a second is refused, a dead one is taken over, a lost hold stops the ladder."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session, sessionmaker
from typer.testing import CliRunner

import ladder.service
from arena.cli.main import app
from ladder.accounts import add_user
from ladder.db import make_engine, migrate, sessions
from ladder.hold import STALE_S, Hold, HoldLost, LadderBusy
from ladder.models import Bot, BotVersion, LadderHold, User
from ladder.service import Ladder, LadderConfig
from referee.server.launchers import process_start, this_machine
from tests.ladder.conftest import until


@pytest.fixture
def make(any_url: str) -> sessionmaker[Session]:
    """SQLite and PostgreSQL: the hold is a compare-and-set on both."""
    migrate(any_url)
    return sessions(make_engine(any_url))


def set_holder(make: sessionmaker[Session], **values: object) -> None:
    with make() as db:
        db.execute(update(LadderHold).where(LadderHold.id == 1).values(**values))
        db.commit()


def dead_pid() -> int:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True)
    return int(done.stdout)


def test_a_second_ladder_is_refused_until_the_first_lets_go(make: sessionmaker[Session]) -> None:
    first, second = Hold(make, "http://10.0.0.1:8765"), Hold(make)
    first.take()
    with pytest.raises(LadderBusy) as refused:
        second.take()
    assert "another ladder serves this database at http://10.0.0.1:8765" in str(refused.value)
    assert f"host {socket.gethostname()}, pid {os.getpid()}" in str(refused.value)
    first.renew()
    first.release()
    second.take()
    with pytest.raises(HoldLost):
        first.renew()  # released: the database is the second's now


def test_a_ladder_killed_on_this_machine_is_taken_over_at_once_and_one_elsewhere_once_stale(make: sessionmaker[Session]) -> None:
    now = time.time()
    set_holder(make, holder="killed", host=this_machine(), pid=dead_pid(), renewed_at=now, started_at=now)
    Hold(make).take()  # its process is gone: no wait

    # A container restarted: the new ladder has the old one's pid (1, say), or another process has it now.
    set_holder(make, holder="before the restart", host=this_machine(), pid=os.getpid(), process_start=process_start(os.getpid()), renewed_at=time.time())
    Hold(make).take()
    set_holder(make, holder="before the reboot", host=this_machine(), pid=os.getppid(), process_start="1", renewed_at=time.time())
    Hold(make).take()
    set_holder(make, holder="alive", host=this_machine(), pid=os.getppid(), process_start=process_start(os.getppid()), renewed_at=time.time())
    with pytest.raises(LadderBusy):
        Hold(make).take()

    set_holder(make, holder="elsewhere", host="another-machine/pid:[1]", pid=1, renewed_at=time.time())
    with pytest.raises(LadderBusy):
        Hold(make).take()  # a live ladder on another machine, for all this one can tell
    set_holder(make, renewed_at=time.time() - STALE_S - 1)
    taker = Hold(make)
    taker.take()
    with make() as db:
        row = db.scalars(select(LadderHold)).one()
    assert (row.holder, row.host, row.pid) == (taker.me, this_machine(), os.getpid())


def test_on_postgresql_machines_whose_clocks_disagree_judge_the_hold_by_the_servers_clock(pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ladders on two machines share a PostgreSQL server: one whose clock ran a minute ahead took over a live
    ladder's hold, and one whose clock ran a minute behind had its own taken."""
    migrate(pg_url)
    make = sessions(make_engine(pg_url))
    ahead, behind = time.time() + 2 * STALE_S, time.time() - 2 * STALE_S
    monkeypatch.setattr("ladder.hold.time.time", lambda: behind)
    first = Hold(make)
    first.take()
    first.renew()
    set_holder(make, host="another-machine/pid:[1]")  # the first ladder as seen from a second machine
    monkeypatch.setattr("ladder.hold.time.time", lambda: ahead)
    with pytest.raises(LadderBusy) as refused:
        Hold(make).take()
    assert "last heard from 0 s ago" in str(refused.value)
    first.renew()


def test_the_command_refuses_a_database_another_ladder_serves(tmp_path: Path, any_url: str, make: sessionmaker[Session]) -> None:
    """Told first, before the data folder is checked: a second ladder started from another folder was told its store was wrong."""
    Hold(make, "http://127.0.0.1:9999").take()
    with make() as db:  # a bot of the serving ladder, whose folder is in its store, not in this command's --data
        add_user(db, "ann")
        bot = Bot(name="b", owner_id=db.scalars(select(User.id)).one(), created_at=time.time())
        db.add(bot)
        db.flush()
        db.add(BotVersion(bot_id=bot.id, seq=1, version="1", status="active", games=["generals-war"], language="python", path="b/1", created_at=time.time()))
        db.commit()
    result = CliRunner().invoke(app, ["ladder", "serve", "--data", str(tmp_path), "--db", any_url, "--port", "0", "--no-samples"])
    assert result.exit_code == 2, result.output
    said = " ".join(result.output.split())
    assert "another ladder serves this database at http://127.0.0.1:9999" in said and "stop it first" in said, said
    assert "Traceback" not in result.output


def test_serve_of_a_newer_arena_leaves_the_schema_of_a_database_an_older_ladder_serves_alone(
    tmp_path: Path, any_url: str, make: sessionmaker[Session]
) -> None:
    """An upgrade of Arena started while the older ladder still served: serve migrated the schema under that ladder
    first, and only then was refused as the second ladder on the database."""
    from alembic import command
    from alembic.runtime.migration import MigrationContext

    from ladder.db import alembic_config

    def revision() -> str | None:
        engine = make_engine(any_url)
        try:
            with engine.connect() as conn:
                return MigrationContext.configure(conn).get_current_revision()
        finally:
            engine.dispose()

    Hold(make, "http://127.0.0.1:9999").take()  # the older ladder, serving
    command.downgrade(alembic_config(any_url), "-1")
    older = revision()
    result = CliRunner().invoke(app, ["ladder", "serve", "--data", str(tmp_path), "--db", any_url, "--port", "0", "--no-samples"])
    said = " ".join(result.output.split())
    assert result.exit_code == 2 and "another ladder serves this database at http://127.0.0.1:9999" in said, said
    assert "Traceback" not in result.output
    assert revision() == older, "the schema was changed under the ladder serving it"


def test_a_ladder_whose_hold_is_taken_stops(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its renewals lapsed (a machine suspended) and another ladder took the database: two would schedule the same queue."""
    monkeypatch.setattr(ladder.service, "RENEW_S", 0.05)
    lad = Ladder(LadderConfig(tmp_path / "data", samples=False, games=["generals-war"]))

    async def go() -> None:
        runner = asyncio.create_task(lad.run(serve_http=False))
        while not lad.hold.held:
            await asyncio.sleep(0.02)
        set_holder(lad.make, holder="the other ladder", renewed_at=time.time())
        # A generous deadline: the ladder notices within a renewal, but on a loaded machine its start (the books process)
        # and its clean stop outlasted the ten seconds this had.
        async with asyncio.timeout(120):
            await runner

    with pytest.raises(HoldLost):
        asyncio.run(go())
    with lad.make() as db:
        assert db.scalars(select(LadderHold.holder)).one() == "the other ladder", "the loser does not release the winner's hold"


def test_versions_left_validating_are_rejected_at_start_and_a_clean_stop_lets_go(tmp_path: Path) -> None:
    """A ladder killed mid-upload left its version validating; the next one to hold the database knows none is in flight."""
    lad = Ladder(LadderConfig(tmp_path / "data", samples=False, games=["generals-war"]))
    with lad.make() as db:
        add_user(db, "ann")
        bot = Bot(name="b", owner_id=db.scalars(select(User.id)).one(), created_at=time.time())
        db.add(bot)
        db.flush()
        db.add(BotVersion(bot_id=bot.id, seq=1, version="1", status="validating", games=["generals-war"], language="python",
                          path="b/1", created_at=time.time()))
        db.commit()

    async def go() -> None:
        runner = asyncio.create_task(lad.run(serve_http=False))

        def rejected() -> bool:
            assert not runner.done(), runner
            with lad.make() as db:
                return db.scalars(select(BotVersion.status)).one() == "rejected"

        await until("the ladder to reject the version left validating", rejected)
        runner.cancel()
        await asyncio.gather(runner, return_exceptions=True)

    asyncio.run(go())
    with lad.make() as db:
        version = db.scalars(select(BotVersion)).one()
        assert version.status == "rejected" and "submit again" in version.reason
        assert db.scalars(select(LadderHold.holder)).one() is None, "a clean stop lets the next ladder start at once"


def test_of_two_ladders_taking_an_abandoned_hold_at_once_one_gets_it(make: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch) -> None:
    """Both read the dead ladder's row as abandoned; the compare-and-set lets the first write it, and the second, its
    write changing nothing, looks again and is told of the first: not two ladders each holding the database."""
    import ladder.hold as hold

    now = time.time()
    set_holder(make, holder="killed", host=this_machine(), pid=dead_pid(), renewed_at=now, started_at=now)
    first, second = Hold(make), Hold(make)
    real = hold.abandoned

    def racing(row: LadderHold, now: float) -> bool:
        found = real(row, now)
        monkeypatch.setattr(hold, "abandoned", real)
        first.take()  # between the second's look at the row and its write
        return found

    monkeypatch.setattr(hold, "abandoned", racing)
    with pytest.raises(LadderBusy):
        second.take()
    assert first.held and not second.held
    with make() as db:
        assert db.scalars(select(LadderHold.holder)).one() == first.me


def test_a_hold_row_deleted_or_let_go_is_taken_at_once(make: sessionmaker[Session]) -> None:
    """The row deleted by hand is made again; one let go by a ladder still running (stopping) is free at once."""
    with make() as db:
        db.execute(delete(LadderHold))
        db.commit()
    taker = Hold(make)
    taker.take()
    with make() as db:
        assert db.scalars(select(LadderHold.holder)).one() == taker.me
    set_holder(make, holder=None, host=this_machine(), pid=os.getppid(), process_start=process_start(os.getppid()), renewed_at=time.time())
    Hold(make).take()


def test_a_stale_holder_that_renews_between_a_takers_look_and_its_write_keeps_the_database(
    make: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ladder on another machine, slow past STALE_S, renews just after a second ladder read its row as abandoned:
    the second's write compares the renewal time too, so it looks again and is refused (it took a live ladder's hold)."""
    import ladder.hold as hold

    set_holder(make, holder="slow", host="another-machine/pid:[1]", pid=1, renewed_at=time.time() - STALE_S - 1)
    real = hold.abandoned

    def renewing(row: LadderHold, now: float) -> bool:
        found = real(row, now)
        monkeypatch.setattr(hold, "abandoned", real)
        set_holder(make, renewed_at=now)  # the slow ladder's renewal lands between the look and the write
        return found

    monkeypatch.setattr(hold, "abandoned", renewing)
    taker = Hold(make)
    with pytest.raises(LadderBusy):
        taker.take()
    with make() as db:
        assert db.scalars(select(LadderHold.holder)).one() == "slow" and not taker.held


def test_two_ladders_taking_a_free_hold_on_the_same_clock_tick_do_not_both_hold_it(
    make: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The compare-and-set compares the holder too: a clock too coarse to tell the two takes apart (both writing the
    same renewal time) still leaves one ladder holding the database."""
    import ladder.hold as hold

    tick = time.time()
    monkeypatch.setattr(hold, "database_time", lambda db: tick)
    set_holder(make, holder=None, renewed_at=tick)
    first, second = Hold(make), Hold(make)
    real = hold.abandoned

    def racing(row: LadderHold, now: float) -> bool:
        found = real(row, now)
        monkeypatch.setattr(hold, "abandoned", real)
        first.take()  # between the second's look at the row and its write, on the same tick
        return found

    monkeypatch.setattr(hold, "abandoned", racing)
    with pytest.raises(LadderBusy):
        second.take()
    with make() as db:
        assert db.scalars(select(LadderHold.holder)).one() == first.me and first.held and not second.held


def test_a_hold_names_its_ladders_process_by_start_time_so_another_process_under_its_pid_does_not_keep_it(
    make: sessionmaker[Session],
) -> None:
    """A container restarted: its new processes reuse the dead ladder's pid. The hold records the ladder's start time,
    so a live process under that pid is told apart (without it, the next ladder waited STALE_S for nothing)."""
    Hold(make).take()
    other = subprocess.Popen(["sleep", "60"])  # started after this process: its start time differs
    try:
        set_holder(make, holder="before the restart", pid=other.pid)  # the pid now names another, live, process
        taker = Hold(make)
        taker.take()
        assert taker.held
    finally:
        other.kill()
        other.wait()
