"""`arena ladder user retire NAME`: an owner taken off the ladder at once, their token and every bot of theirs.

The operator could only revoke the token, then find each bot of the owner (`user list` counts them, names none) and
`retire` it by name: meanwhile those bots played on, rated.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select
from typer.testing import CliRunner

from arena.cli.main import app
from ladder.models import Bot, BotVersion, User
from ladder.service import Ladder, LadderConfig
from tests.ladder.conftest import enter, named_copy

runner = CliRunner()


def test_an_owner_retired_loses_their_token_and_every_bot_of_theirs_leaves_the_ladder(tmp_path: Path) -> None:
    data = tmp_path / "data"
    ladder = Ladder(LadderConfig(data, samples=False, games=["generals-war"]))
    theirs = [named_copy(tmp_path, name) for name in ("vex-a", "vex-b", "vex-c")]
    enter(ladder, theirs, validate=False)
    enter(ladder, [named_copy(tmp_path, "other-one")], validate=False)
    with ladder.make() as db:
        owner = db.scalars(select(User).join(Bot, Bot.owner_id == User.id).where(Bot.name == "vex-a")).one()
        name, token_hash = owner.name, owner.token_hash
        later = db.scalars(select(BotVersion).join(Bot).where(Bot.name == "vex-c")).one()
        later.status = "suspended"  # a suspended bot is taken off too, as `retire` takes it
        db.commit()
    first = runner.invoke(app, ["ladder", "retire", "vex-b", "--data", str(data)])  # one the operator retired already
    assert first.exit_code == 0, first.output

    out = runner.invoke(app, ["ladder", "user", "retire", name, "--data", str(data)], env={"COLUMNS": "300"})
    assert out.exit_code == 0, out.output
    assert f"{name}'s token is revoked and their bots withdrawn: vex-a (version #1), vex-c (version #1)" in out.output
    with ladder.make() as db:
        status = {bot: st for bot, st in db.execute(select(Bot.name, BotVersion.status).join(BotVersion, BotVersion.bot_id == Bot.id))}
        assert status == {"vex-a": "retired", "vex-b": "retired", "vex-c": "retired", "other-one": "active"}
        assert db.scalars(select(User.token_hash).where(User.name == name)).one() != token_hash
    again = runner.invoke(app, ["ladder", "user", "retire", name.upper(), "--data", str(data)], env={"COLUMNS": "300"})
    assert again.exit_code == 0 and "none had a version on the ladder" in again.output, again.output
    assert again.output.startswith(f"{name}'s token"), again.output  # the owner as the ladder holds them, not as typed
    nobody = runner.invoke(app, ["ladder", "user", "retire", "nobody", "--data", str(data)])
    assert nobody.exit_code == 2 and "no user 'nobody'" in nobody.output, nobody.output
