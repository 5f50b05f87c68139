"""`arena ladder vacuum` (ladder/vacuum.py): a pruned SQLite ladder's file shrinks; refused while a ladder serves it
or while its disks lack the room."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from arena.cli.main import app
from ladder.db import DB_FILE
from ladder.hold import Hold
from ladder.jobs import seat_log_name
from ladder.models import Match
from ladder.vacuum import file_size
from tests.ladder.conftest import LadderFixture
from tests.ladder.test_cli import arena, runner
from tests.ladder.test_prune import add_match, two  # noqa: F401  (two: a fixture)

#: Matches with logs to prune, and each log's size: random bytes, which gzip does not shrink (about 5 MB in all).
MATCHES = 40
LOG_BYTES = 60_000


@pytest.fixture
def pruned(ladder: LadderFixture, two: list[int]) -> Path:  # noqa: F811
    """The fixture ladder's data folder, its matches' logs (stored as rows) pruned: the file keeps their pages."""
    root = ladder.ladder.config.data_dir
    with ladder.make() as db:
        for _ in range(MATCHES):
            add_match(db, two, 1.0, rows={seat_log_name(seat): os.urandom(LOG_BYTES) for seat in range(2)})
    assert "removed the logs of 40 matches" in " ".join(arena("ladder", "prune", "--logs-older-than", "0", "--data", str(root)).split())
    return root


def sizes(said: str) -> tuple[int, int]:
    found = re.search(r"(\d+) bytes before, (\d+) after", " ".join(said.split()))
    assert found is not None, said
    return int(found[1]), int(found[2])


def test_a_pruned_database_shrinks_and_keeps_its_rows(ladder: LadderFixture, pruned: Path) -> None:
    database = pruned / DB_FILE
    before = file_size(database)
    assert before > MATCHES * 2 * LOG_BYTES  # the pruned rows' pages are still in the file
    said = arena("ladder", "vacuum", "--data", str(pruned))
    told_before, told_after = sizes(said)
    assert told_before == before and told_after == file_size(database) < before // 4, said
    assert str(database) in " ".join(said.split())
    with ladder.make() as db:
        assert db.scalar(select(func.count()).select_from(Match)) == MATCHES


def test_refused_while_a_ladder_serves_the_database(ladder: LadderFixture, pruned: Path) -> None:
    database = pruned / DB_FILE
    before = file_size(database)
    serving = Hold(ladder.make, "http://127.0.0.1:9999")
    serving.take()
    refused = runner.invoke(app, ["ladder", "vacuum", "--data", str(pruned)])
    told = " ".join(refused.output.split())
    assert refused.exit_code == 2 and "another ladder serves this database at http://127.0.0.1:9999" in told, told
    assert file_size(database) == before
    serving.release()
    assert sizes(arena("ladder", "vacuum", "--data", str(pruned)))[1] < before // 4


def test_refused_when_the_disk_lacks_the_room(ladder: LadderFixture, pruned: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """VACUUM writes a copy of the rows kept to the temporary folder and to the write-ahead log: a full disk is told
    before it starts, not found by SQLite half way ("database or disk is full")."""
    database = pruned / DB_FILE
    before = file_size(database)
    real = shutil.disk_usage

    def almost_full(path: Any) -> Any:
        return real(path)._replace(free=1000)

    monkeypatch.setattr("ladder.vacuum.shutil.disk_usage", almost_full)
    refused = runner.invoke(app, ["ladder", "vacuum", "--data", str(pruned)])
    told = " ".join(refused.output.split())
    assert refused.exit_code == 2 and "VACUUM needs about" in told and "and it has 1000" in told, told
    assert file_size(database) == before


def test_on_postgresql_it_says_what_keeps_the_space_and_changes_nothing(pg_url: str, tmp_path: Path) -> None:
    said = " ".join(arena("ladder", "vacuum", "--data", str(tmp_path), "--db", pg_url).split())
    assert "autovacuum" in said and "VACUUM FULL" in said and re.search(r"holds \d+ bytes", said), said
