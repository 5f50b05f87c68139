"""`ladder.backup` on hand-made data folders: what the ladder does to its files while a backup copies them."""

from __future__ import annotations

import os
import shutil
import sqlite3
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import pytest

from ladder import backup
from ladder.backup import BackupError, back_up


def ladder_db(path: Path, marker: str) -> None:
    """A database with what the backup touches: the hold's row, and a marker to tell two databases apart."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE ladder_hold (id INTEGER PRIMARY KEY, holder TEXT)")
        db.execute("INSERT INTO ladder_hold VALUES (1, 'host:8765')")
        db.execute("CREATE TABLE marker (name TEXT)")
        db.execute("INSERT INTO marker VALUES (?)", (marker,))


def marker(path: Path) -> str:
    with sqlite3.connect(path) as db:
        return str(db.execute("SELECT name FROM marker").fetchone()[0])


def data_folder(data: Path, database: str, mark: str) -> None:
    """A data folder holding the database ``database`` (with a WAL file beside it) and one replay."""
    ladder_db(data / database, mark)
    (data / f"{database}-wal").write_bytes(b"")
    (data / "replays").mkdir()
    (data / "replays" / "1.json").write_text("{}")


def test_a_version_the_ladder_discards_while_the_backup_copies_the_store_does_not_fail_the_backup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A rejected submission's folder is removed (submissions.discard) at any time: listed, then gone before it is copied."""
    data = tmp_path / "data"
    ladder_db(data / "ladder.db", "live")
    kept, rejected = data / "bots" / "kept" / "1", data / "bots" / "kept" / "2"
    for folder in (kept, rejected):
        folder.mkdir(parents=True)
        (folder / "bot.toml").write_text("x")
    (data / "replays").mkdir()
    (data / "replays" / "7-abc.json").write_text("{}")
    real = os.scandir

    def scandir(path: Any = ".") -> Any:
        if isinstance(path, int) or Path(path) != kept.parent or not rejected.exists():
            return real(path)
        entries = list(real(path))
        shutil.rmtree(rejected)  # the ladder discards it just after the backup listed it
        return nullcontext(iter(entries))

    monkeypatch.setattr(os, "scandir", scandir)
    made = back_up(f"sqlite:///{data / 'ladder.db'}", data, tmp_path / "copy")
    monkeypatch.undo()
    copy = tmp_path / "copy"
    assert (copy / "bots" / "kept" / "1" / "bot.toml").read_text() == "x" and not (copy / "bots" / "kept" / "2" / "bot.toml").exists()
    assert (copy / "replays" / "7-abc.json").is_file() and made.files == 3


def test_a_folder_of_the_data_folder_that_is_a_link_to_another_disk_is_copied_not_linked(tmp_path: Path) -> None:
    """replays/ moved to a bigger disk and linked back: the backup held a link to the live folder, not the replays."""
    data = tmp_path / "data"
    ladder_db(data / "ladder.db", "live")
    disk = tmp_path / "big-disk" / "replays"
    disk.mkdir(parents=True)
    (disk / "7-abc.json").write_text("{}")
    (data / "replays").symlink_to(disk)
    back_up(f"sqlite:///{data / 'ladder.db'}", data, tmp_path / "copy")
    copied = tmp_path / "copy" / "replays"
    assert not copied.is_symlink() and (copied / "7-abc.json").read_text() == "{}"


def test_a_database_named_by_db_is_not_overwritten_by_a_ladder_db_left_in_the_data_folder(tmp_path: Path) -> None:
    """With --db elsewhere, an old ladder.db in the data folder was copied over the snapshot just taken."""
    data = tmp_path / "data"
    ladder_db(data / "ladder.db", "stale")
    ladder_db(tmp_path / "elsewhere" / "live.db", "live")
    (data / "bots").mkdir()
    back_up(f"sqlite:///{tmp_path / 'elsewhere' / 'live.db'}", data, tmp_path / "copy")
    assert marker(tmp_path / "copy" / "ladder.db") == "live"


def test_a_postgresql_ladders_backup_holds_no_ladder_db_left_in_its_data_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its database is pg_dump's to copy; a stale ladder.db copied beside its files was the ladder the copy served."""
    data = tmp_path / "data"
    data_folder(data, "ladder.db", "stale")
    monkeypatch.setattr(backup, "check_served_elsewhere", lambda url: None)  # no server at db.example: the files are what is looked at
    made = back_up("postgresql+psycopg://arena@db.example/ladder", data, tmp_path / "copy")
    assert not made.database and sorted(p.name for p in (tmp_path / "copy").iterdir()) == ["replays"]




@pytest.mark.parametrize(("url", "said"), [
    ("notaurl", "'notaurl' is not a database URL"),
    ("postgresql+psycopg://arena:secret@127.0.0.1:1/arena", "cannot open the database postgresql+psycopg://arena:***@127.0.0.1:1/arena: "),
    ("postgres://arena@127.0.0.1:1/arena", "cannot open the database postgres://arena@127.0.0.1:1/arena: "),
])
def test_a_db_url_that_is_wrong_is_refused_in_one_line_and_copies_nothing(tmp_path: Path, url: str, said: str) -> None:
    """A malformed --db was a traceback; one naming a server down (or no database SQLAlchemy knows) copied the files
    alone and said "backed up", the database never looked at."""
    data = tmp_path / "data"
    data_folder(data, "ladder.db", "live")
    with pytest.raises(BackupError) as refused:
        back_up(url, data, tmp_path / "copy")
    assert said in str(refused.value) and "secret" not in str(refused.value), refused.value
    assert not (tmp_path / "copy").exists()


def test_a_db_url_naming_a_database_without_a_ladder_is_refused(tmp_path: Path) -> None:
    """A database that answers but holds no ladder (another one on the server) is not backed up as the ladder's."""
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE t (x)")
    data = tmp_path / "data"
    data_folder(data, "ladder.db", "live")
    with pytest.raises(BackupError, match="holds no ladder"):
        backup.check_served_elsewhere(f"sqlite:///{other}")


def test_a_data_folder_with_a_hash_in_its_name_is_backed_up(tmp_path: Path) -> None:
    """The database was opened as the URI f"file:{path}?mode=ro", where a "#" ends the path: another file was read."""
    data = tmp_path / "ladder#2"
    ladder_db(data / "ladder.db", "live")
    back_up(f"sqlite:///{data / 'ladder.db'}", data, tmp_path / "copy")
    assert marker(tmp_path / "copy" / "ladder.db") == "live"


@pytest.mark.parametrize("made_beforehand", [False, True])
def test_a_failed_backup_leaves_nothing_half_copied_and_keeps_a_folder_the_operator_made(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, made_beforehand: bool) -> None:
    """A failure removed the destination, even an empty folder the operator had made (and perhaps mounted) for it."""
    import ladder.backup

    data = tmp_path / "data"
    ladder_db(data / "ladder.db", "live")
    (data / "replays").mkdir()
    (data / "replays" / "1.json").write_text("{}")
    dest = tmp_path / "copy"
    if made_beforehand:
        dest.mkdir()

    def broken(*_: Any, **__: Any) -> int:
        raise OSError("disk full")

    monkeypatch.setattr(ladder.backup, "copy_files", broken)
    with pytest.raises(OSError, match="disk full"):
        back_up(f"sqlite:///{data / 'ladder.db'}", data, dest)
    assert dest.exists() == made_beforehand
    if made_beforehand:
        assert list(dest.iterdir()) == []  # the database copied before the failure is gone


@pytest.mark.parametrize("name", ["ladder%41", "ladder?mode=ro", "ladder 100%"])
def test_the_data_folders_own_url_names_its_database_whatever_the_folders_name(tmp_path: Path, name: str) -> None:
    """default_url wrote the path raw: '%41' was read as 'A', and '?' began the URL's query, so another file was opened."""
    from sqlalchemy import text

    from ladder.db import default_url, make_engine

    data = tmp_path / name
    data.mkdir()
    engine = make_engine(default_url(data))
    with engine.begin() as conn:
        conn.execute(text("CREATE TABLE marker (name TEXT)"))
    engine.dispose()
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]
    assert (data / "ladder.db").is_file()


def test_the_copy_is_not_held_by_the_ladder_that_was_running_and_that_ladder_keeps_its_hold(tmp_path: Path) -> None:
    """A ladder serving while the backup was taken holds the snapshot's row: kept so, the copy was refused as busy
    (by a ladder on another machine until the hold went stale). The live database's row is the live ladder's."""
    data = tmp_path / "data"
    ladder_db(data / "ladder.db", "live")
    back_up(f"sqlite:///{data / 'ladder.db'}", data, tmp_path / "copy")
    with sqlite3.connect(tmp_path / "copy" / "ladder.db") as copy, sqlite3.connect(data / "ladder.db") as live:
        assert copy.execute("SELECT holder FROM ladder_hold").fetchall() == [(None,)]
        assert live.execute("SELECT holder FROM ladder_hold").fetchall() == [("host:8765",)]


def test_a_write_after_the_snapshot_does_not_reach_the_copy_through_the_live_databases_wal_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The files are copied after the snapshot so that every file it names is in the copy; the live ladder.db-wal,
    copied along, made the copy's database a later one than its files (a version accepted meanwhile, its folder not copied)."""
    import ladder.backup

    data = tmp_path / "data"
    ladder_db(data / "ladder.db", "live")
    live = sqlite3.connect(data / "ladder.db")
    try:
        live.execute("PRAGMA journal_mode=WAL")
        live.execute("PRAGMA wal_autocheckpoint=0")  # the write stays in ladder.db-wal while the files are copied
        snapshot = ladder.backup.copy_database

        def then_a_write(source: Path, target: Path) -> None:
            snapshot(source, target)
            live.execute("UPDATE marker SET name = 'later'")
            live.commit()

        monkeypatch.setattr(ladder.backup, "copy_database", then_a_write)
        back_up(f"sqlite:///{data / 'ladder.db'}", data, tmp_path / "copy")
        assert (data / "ladder.db-wal").is_file()  # what the backup must leave out was there to copy
    finally:
        live.close()
    assert sorted(p.name for p in (tmp_path / "copy").iterdir()) == ["ladder.db"]
    assert marker(tmp_path / "copy" / "ladder.db") == "live"


def test_a_file_the_backup_cannot_read_fails_it_rather_than_being_left_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only what the ladder removed meanwhile may be missing: a replay the disk cannot read is an error, not a
    backup that says it is whole and lacks it."""
    data = tmp_path / "data"
    ladder_db(data / "ladder.db", "live")
    (data / "replays").mkdir()
    (data / "replays" / "1.json").write_text("{}")
    (data / "replays" / "2.json").write_text("{}")
    real = shutil.copyfile

    def unreadable(src: Any, dst: Any, **kwargs: Any) -> Any:
        if Path(src).name == "2.json":
            raise OSError(5, "Input/output error", str(src))
        return real(src, dst, **kwargs)

    monkeypatch.setattr(shutil, "copyfile", unreadable)
    from ladder.backup import BackupError

    with pytest.raises(BackupError, match=r"^1 file of .*replays could not be copied .*; the first, .*2\.json: .*Input/output error"):
        back_up(f"sqlite:///{data / 'ladder.db'}", data, tmp_path / "copy")
    assert not (tmp_path / "copy").exists()


def test_a_damaged_database_is_refused_in_a_backup_error_and_leaves_no_folder(tmp_path: Path) -> None:
    """The command tells a BackupError in one line; SQLite's own error came out as a traceback."""
    from ladder.backup import BackupError

    data = tmp_path / "data"
    data.mkdir()
    (data / "ladder.db").write_bytes(b"not a database, " * 100)
    with pytest.raises(BackupError, match="cannot copy the database"):
        back_up(f"sqlite:///{data / 'ladder.db'}", data, tmp_path / "copy")
    assert not (tmp_path / "copy").exists()


def test_a_database_named_by_db_inside_the_data_folder_is_copied_once_as_the_snapshot(tmp_path: Path) -> None:
    """--db data/live.db: the live file (and its WAL) copied beside the snapshot was a second, half-written database."""
    data = tmp_path / "data"
    data_folder(data, "live.db", "live")
    made = back_up(f"sqlite:///{data / 'live.db'}", data, tmp_path / "copy")
    assert sorted(p.name for p in (tmp_path / "copy").iterdir()) == ["ladder.db", "replays"] and made.files == 2
    assert marker(tmp_path / "copy" / "ladder.db") == "live"


def test_a_database_named_by_db_is_backed_up_when_the_data_folder_does_not_exist(tmp_path: Path) -> None:
    """`backup --db` for a ladder whose files folder was never made (no bot submitted yet): the database alone."""
    ladder_db(tmp_path / "elsewhere" / "live.db", "live")
    made = back_up(f"sqlite:///{tmp_path / 'elsewhere' / 'live.db'}", tmp_path / "no-data", tmp_path / "copy")
    assert made.database and made.files == 1 and marker(tmp_path / "copy" / "ladder.db") == "live"


def test_the_locks_beside_the_database_are_not_copied(tmp_path: Path) -> None:
    """`ladder.db.vacuum-lock` (ladder/vacuum.py) and `ladder.db.migrate-lock` (ladder/db.py) are the live file's, as
    its -wal is: the copy's commands make their own."""
    data = tmp_path / "data"
    data_folder(data, "ladder.db", "live")
    (data / "ladder.db.vacuum-lock").write_text("4665 host 0")
    (data / "ladder.db.migrate-lock").write_text("")
    made = back_up(f"sqlite:///{data / 'ladder.db'}", data, tmp_path / "copy")
    assert sorted(p.name for p in (tmp_path / "copy").iterdir()) == ["ladder.db", "replays"] and made.files == 2


def test_a_database_damaged_inside_is_refused_not_copied_as_a_good_backup(tmp_path: Path) -> None:
    """A file whose header is sound but whose pages are damaged: SQLite's backup copies pages as they are, and the
    command said "backed up", so an operator could rotate the last good backup away for a damaged one."""
    from ladder.backup import BackupError

    data = tmp_path / "data"
    ladder_db(data / "ladder.db", "live")
    with sqlite3.connect(data / "ladder.db") as db:
        db.execute("CREATE TABLE rows (n INTEGER PRIMARY KEY, text TEXT)")
        db.execute("CREATE INDEX rows_text ON rows (text)")
        db.executemany("INSERT INTO rows VALUES (?, ?)", [(n, f"row {n} " * 20) for n in range(2000)])
    with (data / "ladder.db").open("r+b") as file:  # past the first pages (the schema): rows and their index
        file.seek(16 * 4096)
        file.write(b"\xff" * 40_000)
    with pytest.raises(BackupError, match="is damaged"):
        back_up(f"sqlite:///{data / 'ladder.db'}", data, tmp_path / "copy")
    assert not (tmp_path / "copy").exists()


def test_a_backup_to_a_full_disk_fails_in_one_line_not_a_list_of_every_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """shutil's error listed every file it could not copy with its reason: 150 KB for a ladder of 2,000 matches."""
    import errno

    from ladder.backup import BackupError

    data = tmp_path / "data"
    ladder_db(data / "ladder.db", "live")
    (data / "logs").mkdir()
    for n in range(300):
        (data / "logs" / f"{n}.log").write_text("a bot's log")

    def full(src: Any, dst: Any, **kwargs: Any) -> Any:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(src))

    monkeypatch.setattr(shutil, "copyfile", full)
    with pytest.raises(BackupError) as failed:
        back_up(f"sqlite:///{data / 'ladder.db'}", data, tmp_path / "copy")
    said = str(failed.value)
    assert len(said.splitlines()) == 1 and len(said) < 400, said
    assert said.startswith(f"300 files of {data / 'logs'} could not be copied") and "the backup's disk is full" in said
    assert not (tmp_path / "copy").exists()
