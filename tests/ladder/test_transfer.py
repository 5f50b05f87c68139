"""`arena ladder copy-database` (ladder/transfer.py): a ladder started on SQLite moves to PostgreSQL, history and all."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import func, make_url, select
from typer.testing import CliRunner

from arena.cli.main import app
from ladder.accounts import add_user
from ladder.db import make_engine, sessions
from ladder.hold import Hold
from ladder.models import Match, MatchSeat, Rating, RatingChange, User
from ladder.rebuild import mismatches
from tests.ladder.conftest import LadderFixture, check_rated_once
from tests.support import SAMPLE_BOTS

runner = CliRunner()


def said(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["ladder", *args])
    return result.exit_code, " ".join(result.output.split())


def test_a_sqlite_ladder_is_copied_into_postgresql_and_goes_on_there(ladder: LadderFixture, pg_url: str) -> None:
    """docs/deploy.md sent a ladder that outgrew SQLite to PostgreSQL, and nothing moved one there: its owners,
    bots, matches and ratings stayed behind in ladder.db."""
    for owner, bot in (("ann", "generals_war_greedy"), ("bob", "random")):
        assert ladder.submit(ladder.user(owner), SAMPLE_BOTS / bot)[0] == 201
    ladder.play(6)
    data = str(ladder.ladder.config.data_dir)
    with ladder.make() as db:
        counts = {model.__tablename__: db.scalar(select(func.count()).select_from(model)) for model in (User, Match, MatchSeat, Rating, RatingChange)}
        ratings = sorted((r.bot_version_id, r.game, r.mu, r.sigma, r.games) for r in db.scalars(select(Rating)))
    assert counts["matches"] and counts["rating_changes"]

    code, out = said("copy-database", pg_url, "--data", data)
    assert code == 0 and "arena ladder serve" in out and "Traceback" not in out, out
    make = sessions(make_engine(pg_url))
    with make() as db:
        assert {model.__tablename__: db.scalar(select(func.count()).select_from(model)) for model in (User, Match, MatchSeat, Rating, RatingChange)} == counts
        assert sorted((r.bot_version_id, r.game, r.mu, r.sigma, r.games) for r in db.scalars(select(Rating))) == ratings
        check_rated_once(db)
        assert not mismatches(db)
        add_user(db, "carol")  # a new row takes a new id: the sequences were set past the copied ones
        db.commit()

    code, out = said("copy-database", pg_url, "--data", data)
    assert code == 2 and "not empty" in out, out


def test_the_copy_is_refused_while_a_ladder_serves_the_source(ladder: LadderFixture, pg_url: str) -> None:
    Hold(ladder.make, "http://127.0.0.1:9999").take()
    code, out = said("copy-database", pg_url, "--data", str(ladder.ladder.config.data_dir))
    assert code == 2 and "another ladder serves this database at http://127.0.0.1:9999" in out, out


def test_the_copy_needs_a_ladder_and_another_database(tmp_path: Path) -> None:
    code, out = said("copy-database", "sqlite:///" + str(tmp_path / "x.db"), "--data", str(tmp_path / "none"))
    assert code == 2 and "no ladder in" in out, out


def test_the_sqlite_file_copied_is_refused_without_db_from_then_on(ladder: LadderFixture, pg_url: str, tmp_path: Path) -> None:
    """docs/deploy.md keeps ladder.db as it was: `serve --data DIR` without --db (an old unit's command line) started a
    second ladder on it, on the same bot store and file names as the one on PostgreSQL, and `user add` without --db
    gave a token no serving ladder knew."""
    data = str(ladder.ladder.config.data_dir)
    pg_url = make_url(pg_url).set(password="SECRET").render_as_string(hide_password=False)  # the test server trusts
    code, out = said("copy-database", pg_url, "--data", data)
    assert code == 0 and "refused without --db from now on" in out, out
    shown = make_url(pg_url).render_as_string(hide_password=True)
    for command in (["user", "add", "dave"], ["serve", "--port", "0"], ["backup", str(tmp_path / "copy")]):
        code, out = said(*command, "--data", data)
        assert code == 2 and f"was copied into {shown}" in out and "give --db" in out, (command, out)
    assert not (tmp_path / "copy").exists()
    code, out = said("user", "add", "dave", "--data", data, "--db", pg_url)  # the copy is the ladder now
    assert code == 0, out
    code, out = said("copy-database", pg_url, "--data", data)  # copied again: the source opens, the target is refused
    assert code == 2 and "not empty" in out, out
    marker = Path(data) / "ladder.db.moved"
    assert marker.read_text().startswith(shown) and "SECRET" not in marker.read_text() + out  # the password is not written
    marker.unlink()  # the operator's way back, as the refusal says
    code, out = said("user", "add", "erin", "--data", data)
    assert code == 0, out
