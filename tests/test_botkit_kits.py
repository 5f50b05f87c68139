"""`arena bot new`: what a kit holds, and where it may be made."""

from __future__ import annotations

import base64
from collections import Counter
from pathlib import Path

from typer.testing import CliRunner

from arena.cli.botkit import record_decisions
from arena.cli.main import app
from arena.v1 import referee_pb2 as pb

runner = CliRunner()


def test_the_typescript_fixtures_hold_seat_0s_decisions_listed_and_not() -> None:
    """The kit's node test answers each recorded decision: some with their legal actions listed, some without (the
    bot must then build an action itself), all seat 0's, at most ``per_kind`` of each kind and listing."""
    fixtures = record_decisions("glory", per_kind=2)
    start = pb.RefereeMessage.FromString(base64.b64decode(fixtures["start"])).start
    assert (fixtures["game"], start.game, start.seat) == ("glory", "glory", 0)
    decisions = [pb.RefereeMessage.FromString(base64.b64decode(b64)).decision for b64 in fixtures["requests"]]
    kinds = Counter((str(d.decision.glory.WhichOneof("kind")), d.legal_actions_listed) for d in decisions)
    assert {listed for _, listed in kinds} == {True, False}, kinds
    assert {kind for kind, listed in kinds if not listed} == {kind for kind, _ in kinds}, "each kind also without a list"
    assert max(kinds.values()) == 2, kinds
    assert [d.view.glory.seat for d in decisions] == [0] * len(decisions)


def test_an_existing_empty_directory_gets_the_kit(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = runner.invoke(app, ["bot", "new", "b", "--game", "glory", "--dir", str(tmp_path / "empty")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "empty" / "bot.toml").is_file() and (tmp_path / "empty" / "bot.py").is_file()


def test_a_file_given_as_the_directory_is_an_error_and_left_alone(tmp_path: Path) -> None:
    a_file = tmp_path / "notes.txt"
    a_file.write_text("mine")
    result = runner.invoke(app, ["bot", "new", "b", "--game", "glory", "--dir", str(a_file)])
    assert result.exit_code == 2 and "already exists and is not an empty directory" in " ".join(result.output.split()), result.output
    assert a_file.read_text() == "mine"

