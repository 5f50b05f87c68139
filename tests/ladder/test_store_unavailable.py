"""Uploads while the ladder's data folder or bot store is gone (ladder/grounds.py): refused with 503, nothing made again."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from arena.cli.main import app as cli
from ladder.accounts import add_user
from ladder.api import LadderState, create_app
from ladder.service import Ladder, LadderConfig
from ladder.upload import zip_directory
from tests.ladder.conftest import LadderFixture, named_copy

def rows(db_file: Path) -> tuple[int, int]:
    with sqlite3.connect(db_file) as conn:
        return conn.execute("SELECT (SELECT count(*) FROM bots), (SELECT count(*) FROM bot_versions)").fetchone()


@pytest.mark.parametrize("what", ["data folder", "bot store"])
def test_an_upload_while_the_store_is_gone_is_refused_with_503_and_makes_nothing(
    tmp_path: Path, what: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The data folder (or its bots/) removed while the ladder served: an upload made the store again, a folder the
    ladder then took for its own (and a data folder moved back went inside it), and registered the version in the
    database. It is refused, 503, and leaves neither folder nor row; once the store is back, uploads are taken."""
    db_file = tmp_path / "elsewhere.db"
    data = tmp_path / "data"
    ladder = Ladder(LadderConfig(data, url=f"sqlite:///{db_file}", samples=False, games=["generals-war"]))
    bot = named_copy(tmp_path / "src", "mine")
    gone, away = (data, tmp_path / "away") if what == "data folder" else (data / "bots", tmp_path / "bots-away")
    with TestClient(create_app(LadderState(ladder.make, ladder.store, data, validate=False))) as client:
        with ladder.make() as db:
            headers = {"Authorization": f"Bearer {add_user(db, 'alice')}"}
        gone.rename(away)
        with caplog.at_level(logging.ERROR, "arena.ladder"):
            refused = client.post("/api/bots", content=zip_directory(bot), headers=headers)
        assert refused.status_code == 503, refused.text
        detail = refused.json()["detail"]
        assert "bot store is unavailable" in detail and "try again later" in detail and str(tmp_path) not in detail, detail
        assert refused.headers.get("Retry-After"), refused.headers
        assert not gone.exists(), "nothing made again in its place"
        assert rows(db_file) == (0, 0), "no bot nor version registered"
        assert str(data / "bots") in caplog.text, "the ladder's log names the folder"
        away.rename(gone)
        taken = client.post("/api/bots", content=zip_directory(bot), headers=headers)
        assert taken.status_code == 201 and taken.json()["accepted"], taken.text
        assert (data / "bots" / "mine" / "1" / "bot.toml").is_file()


def test_arena_ladder_submit_says_the_store_is_unavailable_and_exits_non_zero(ladder: LadderFixture, server: str, tmp_path: Path) -> None:
    """`arena ladder submit` while the ladder's bot store is gone: a clear error, exit 2, and nothing made."""
    headers = ladder.user("bob")
    token = headers["Authorization"].removeprefix("Bearer ")
    store = ladder.ladder.store
    store.rename(tmp_path / "bots-away")
    result = CliRunner().invoke(cli, ["ladder", "submit", str(named_copy(tmp_path / "src", "bobs")), "--server", server, "--token", token])
    assert result.exit_code == 2, result.output
    said = " ".join(result.output.split())
    assert "503" in said and "bot store is unavailable" in said and "try again later" in said and "Traceback" not in said, said
    assert not store.exists()
