"""ladder/db.py's SQLite settings and URLs: what the ladder's database refuses, and which file a URL names."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError

from ladder.accounts import add_user
from ladder.db import default_url, make_engine, migrate, sessions
from ladder.models import Bot, User


def test_sqlite_refuses_a_row_naming_one_that_does_not_exist_as_postgresql_does(tmp_path: Path) -> None:
    """SQLite checks foreign keys only when told to: a user deleted under its bots left bots owned by no one."""
    url = default_url(tmp_path)
    migrate(url)
    make = sessions(make_engine(url))
    with make() as db:
        add_user(db, "ivan")
        user = db.scalars(select(User).where(User.name == "ivan")).one()
        db.add(Bot(name="greedy", owner_id=user.id, created_at=0.0))
        db.commit()
        with pytest.raises(IntegrityError):
            db.execute(delete(User).where(User.id == user.id))
        db.rollback()
        assert db.scalars(select(Bot.owner_id)).one() == user.id


def test_the_data_folders_url_names_its_database_from_any_working_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--data arena-data` is relative; the URL is handed to workers (the local pool's, Dask's) that open it elsewhere."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "arena-data").mkdir()
    url = default_url(Path("arena-data"))
    (tmp_path / "elsewhere").mkdir()
    os.chdir(tmp_path / "elsewhere")
    migrate(url)
    assert (tmp_path / "arena-data" / "ladder.db").is_file() and not (tmp_path / "elsewhere" / "arena-data").exists()


def test_a_workers_jobs_on_one_database_share_one_connection_pool(tmp_path: Path) -> None:
    """A Dask worker is handed the URL job by job: an engine per job would open a pool of connections per match,
    each left open until collected."""
    from ladder.db import shared_sessions

    first, other = default_url(tmp_path / "a"), default_url(tmp_path / "b")
    assert shared_sessions(first).kw["bind"] is shared_sessions(first).kw["bind"]
    assert shared_sessions(other).kw["bind"] is not shared_sessions(first).kw["bind"]


def test_a_data_folder_with_a_percent_sign_in_its_name_is_migrated(tmp_path: Path) -> None:
    """Alembic's configuration reads '%' as the start of an interpolation: the URL is escaped for it."""
    from sqlalchemy import inspect

    data = tmp_path / "ladder 100%"
    data.mkdir()
    migrate(default_url(data))
    engine = make_engine(default_url(data))
    assert {"users", "matches", "ladder_hold"} <= set(inspect(engine).get_table_names())
    engine.dispose()


def test_serve_refuses_a_database_it_cannot_write_before_it_makes_a_data_folder(tmp_path: Path) -> None:
    """Found at its first write instead, serve left behind the data folder it had made for that database."""
    from typer.testing import CliRunner

    from arena.cli.main import app

    migrate(default_url(tmp_path))
    read_only = f"sqlite:///file:{tmp_path / 'ladder.db'}?mode=ro&uri=true"
    result = CliRunner().invoke(app, ["ladder", "serve", "--port", "0", "--no-samples", "--data", str(tmp_path / "d"), "--db", read_only])
    assert result.exit_code == 2 and "cannot open the database" in " ".join(result.output.split()), result.output
    assert not (tmp_path / "d").exists()


def test_refreshing_statistics_keeps_a_database_held_in_memory(tmp_path: Path) -> None:
    """The pool is replaced after ANALYZE so every connection reads the statistics; an in-memory database lives in
    its one connection, and replacing that would lose every row."""
    from ladder.db import refresh_statistics
    from ladder.models import Base

    engine = make_engine("sqlite://")
    Base.metadata.create_all(engine)
    make = sessions(engine)
    with make() as db:
        add_user(db, "ivan")
        db.commit()
    refresh_statistics(make)
    with make() as db:
        assert db.scalars(select(User.name)).all() == ["ivan"]


def test_serve_says_which_migrations_it_runs_on_an_older_schema(tmp_path: Path) -> None:
    """An upgrade of Arena brought the schema up without a word: serve migrated before its log was set up."""
    import signal
    import subprocess
    import sys

    from alembic import command
    from alembic.script import ScriptDirectory

    from ladder.db import alembic_config
    from tests.support import stop_if_running

    data = tmp_path / "data"
    data.mkdir()
    migrate(default_url(data))
    scripts = ScriptDirectory.from_config(alembic_config(default_url(data)))
    head = scripts.get_current_head()
    assert head is not None
    command.downgrade(alembic_config(default_url(data)), "-1")
    older = scripts.get_revision(head).down_revision
    serve = subprocess.Popen(
        [sys.executable, "-m", "arena.cli.main", "ladder", "serve", "--data", str(data), "--port", "0", "--no-samples"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1", "COLUMNS": "400"},
    )  # fmt: skip
    try:
        assert serve.stdout is not None
        said: list[str] = []
        while not said or not said[-1].startswith("ladder: ") and serve.poll() is None:
            said.append(serve.stdout.readline().decode(errors="replace"))
        serve.send_signal(signal.SIGTERM)
        serve.communicate(timeout=60)
    finally:
        stop_if_running(serve)
    assert [line.split(" arena.ladder ")[-1] for line in said[:-1]] == [f"the database's schema is brought up to date: migration {older} -> {head}\n"]


def test_serve_does_not_upgrade_a_database_an_older_ladder_without_a_hold_plays_on(tmp_path: Path) -> None:
    """A ladder of an Arena from before ``ladder_hold`` (migration 0005) holds no row: `serve` of this one brought
    its schema up to date under it, and both played, scheduled and rated on the one database. Its matches' live
    leases tell it is there; once they run out (it was killed), the database is brought up to date."""
    import subprocess
    import sys
    import time

    from alembic import command
    from sqlalchemy import text

    from ladder.db import alembic_config

    data = tmp_path / "data"
    data.mkdir()
    url = default_url(data)
    command.upgrade(alembic_config(url), "0004")  # the schema of the last Arena without the hold
    engine = make_engine(url)

    def playing_until(expires: float) -> None:
        with engine.begin() as conn:
            conn.execute(text("DELETE FROM matches"))
            conn.execute(text(
                "INSERT INTO matches (game, seed, num_players, options, kind, status, priority, deal, lease_owner, lease_expires,"
                " attempts, created_at, error) VALUES ('glory', 1, 2, '{}', 'rated', 'running', 0, 'd', 'old-host-1-abc-1', :e, 0, 0, '')"
            ), {"e": expires})

    def revision() -> str:
        with engine.connect() as conn:
            return str(conn.execute(text("SELECT version_num FROM alembic_version")).scalar_one())

    playing_until(time.time() + 60)  # renewed by a ladder playing it
    refused = subprocess.run(
        [sys.executable, "-m", "arena.cli.main", "ladder", "serve", "--data", str(data), "--port", "0", "--no-samples"],
        capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "400"},
    )  # fmt: skip
    assert refused.returncode == 2, refused.stdout + refused.stderr
    said = " ".join(refused.stderr.split())
    assert "1 of its matches are being played" in said and "a ladder of an older Arena" in said and "Stop it first" in said
    assert revision() == "0004", "the schema changed under the older ladder"
    playing_until(time.time() - 1)  # its ladder killed, the lease ran out
    from ladder.db import bring_up

    bring_up(url, upgrade=True)
    assert revision() != "0004"
    engine.dispose()


def test_a_new_sqlite_database_is_made_by_one_process_while_another_waits(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Two processes started at once on a new file (`serve` and a `user add` in one script) both made the tables, and
    the second failed with "table matches already exists". The one that finds the migration lock held waits, says
    so, and then finds the schema made."""
    import fcntl
    import threading

    from ladder.db import MIGRATE_LOCK_SUFFIX, bring_up

    database = tmp_path / "ladder.db"
    url = f"sqlite:///{database}"
    with open(f"{database}{MIGRATE_LOCK_SUFFIX}", "w") as held:  # another process making the schema (flock is per open file)
        fcntl.flock(held, fcntl.LOCK_EX)
        done = threading.Event()

        def make_it() -> None:
            bring_up(url, upgrade=False)
            done.set()

        waiter = threading.Thread(target=make_it)
        with caplog.at_level("WARNING", logger="arena.ladder"):
            waiter.start()
            assert not done.wait(1.0), "it made the schema while another held the lock"
            migrate(url)  # the holder makes it, then lets go
        fcntl.flock(held, fcntl.LOCK_UN)
        waiter.join(60)
    assert done.is_set()
    assert any("making or migrating this database's schema: waiting for it" in r.getMessage() for r in caplog.records)
    with sessions(make_engine(url))() as db:
        add_user(db, "alice")
