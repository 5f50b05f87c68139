"""The operator's commands met as an operator meets them (the operator's audit): a mistyped --data or --db, a name given
in another case, a target that is wrong."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from arena.cli.main import app
from ladder.accounts import user_for_token
from ladder.service import LadderConfig, open_db

runner = CliRunner()


def test_a_user_added_where_there_was_no_ladder_is_told_so_and_a_refused_name_leaves_nothing(tmp_path: Path) -> None:
    """A --data mistyped (or arena-data of another directory) made a new ladder in silence: its token, printed as any,
    was refused by the ladder running elsewhere as unknown; and a name refused there left an empty ladder behind."""
    typo = tmp_path / "arena-dta"
    refused = runner.invoke(app, ["ladder", "user", "add", "a b", "--data", str(typo)])
    assert refused.exit_code == 2 and not typo.exists(), refused.output
    typo.mkdir()
    refused = runner.invoke(app, ["ladder", "user", "add", "arena", "--data", str(typo)])
    assert refused.exit_code == 2 and list(typo.iterdir()) == [], refused.output

    made = runner.invoke(app, ["ladder", "user", "add", "ann", "--data", str(typo)], env={"COLUMNS": "400"})
    assert made.exit_code == 0, made.output
    token = made.stdout.strip()
    assert token.startswith("arena_") and "\n" not in token  # the token alone on stdout, for $(...)
    assert f"there was no ladder in {typo}: a new one was made there, ann its first owner" in made.stderr, made.stderr
    with open_db(LadderConfig(typo))() as db:
        assert user_for_token(db, token) is not None

    again = runner.invoke(app, ["ladder", "user", "add", "bea", "--data", str(typo)])
    assert again.exit_code == 0 and "no ladder" not in again.stderr, again.output
    refused = runner.invoke(app, ["ladder", "user", "add", "b b", "--data", str(typo)])
    assert refused.exit_code == 2 and (typo / "ladder.db").is_file(), refused.output  # a ladder that was there stays


def test_copy_database_names_the_target_it_refuses_not_db(tmp_path: Path) -> None:
    """An empty target was told "--db is empty", and the data folder's own ladder.db as target "--db and the target
    name the same database", with no --db given."""
    data = tmp_path / "data"
    assert runner.invoke(app, ["ladder", "user", "add", "ann", "--data", str(data)]).exit_code == 0
    empty = runner.invoke(app, ["ladder", "copy-database", " ", "--data", str(data)], env={"COLUMNS": "400"})
    assert empty.exit_code == 2 and "the target URL is empty" in empty.stderr and "--db" not in empty.stderr, empty.output
    own = runner.invoke(app, ["ladder", "copy-database", f"sqlite:///{data / 'ladder.db'}", "--data", str(data)], env={"COLUMNS": "400"})
    assert own.exit_code == 2 and f"the target is the ladder's own database ({data}/ladder.db)" in own.stderr, own.output
