"""`arena bot new`: what a kit holds, where it may be made, and that its own test fails fast for a bot that raises."""

from __future__ import annotations

import asyncio
import base64
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.botkit import record_decisions
from arena.cli.main import app
from arena.v1 import referee_pb2 as pb
from arena_sdk.games import generals_war as gw_actions
from referee.games.registry import game_class
from referee.server.inprocess import RELAXED, play, play_async
from referee.server.session import MatchRecord
from tests.support import ROOT, load_bot_class

runner = CliRunner()
V = pb.VerdictKind
NPM = shutil.which("npm")
TS_READY = NPM is not None and (ROOT / "sdk" / "typescript" / "node_modules" / "esbuild").is_dir()
needs_node = pytest.mark.skipif(not TS_READY and not os.environ.get("CI"), reason="needs node and `npm ci` in sdk/typescript")


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


def test_the_python_kits_test_fails_for_a_bot_that_breaks_the_rules(tmp_path: Path) -> None:
    """A kit's test that passed whatever the bot did would tell its author nothing: a bot that raises fails both."""
    bot = tmp_path / "broken"
    result = runner.invoke(app, ["bot", "new", "broken", "--game", "glory", "--dir", str(bot)])
    assert result.exit_code == 0, result.output
    source = (bot / "bot.py").read_text()
    (bot / "bot.py").write_text(source.replace("return random_action(request, self.rng)", "raise RuntimeError(\"broken\")"))
    tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(bot)], cwd=bot, capture_output=True, text=True, timeout=300)
    assert tests.returncode == 1 and "2 failed" in tests.stdout, tests.stdout[-3000:] + tests.stderr[-2000:]


def test_a_bot_that_raises_in_this_process_raises_out_of_play_not_sits_silent() -> None:
    """The kit's quick test plays in this process: a bot whose act raised sat silent for its whole (relaxed) time on
    each decision, minutes, where its process would have ended with the traceback."""
    random_bot = load_bot_class("random", "RandomBot")

    class Raising(random_bot):  # type: ignore[misc, valid-type]
        def act(self, request: object) -> object:
            raise RuntimeError("a slip in act")

    with pytest.raises(RuntimeError, match="a slip in act"):
        play(game_class("glory")(2, 1), [random_bot(1), Raising(2)])


def test_a_typescript_kit_without_node_is_an_error_and_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    monkeypatch.setattr(shutil, "which", lambda name: None)  # no node on PATH
    result = runner.invoke(app, ["bot", "new", "b", "--game", "glory", "--lang", "typescript", "--dir", str(tmp_path / "b")])
    assert result.exit_code == 2 and "needs Node.js" in result.output, result.output
    assert not (tmp_path / "b").exists()


@pytest.mark.parametrize("slip", ["no action", "an illegal action"])
def test_a_bot_given_up_on_in_this_process_times_out_at_once_as_at_its_deadline(slip: str) -> None:
    """The kit's quick test waited out RELAXED's two minutes for each decision whose answers were all refused (its
    SDK sends nothing more). The session's clock is frozen here: only the bot's giving up ends such a decision."""
    random_bot = load_bot_class("random", "RandomBot")

    class Slipping(random_bot):  # type: ignore[misc, valid-type]
        def act(self, request: object) -> object:
            return None if slip == "no action" else gw_actions.squad([999])

    async def go() -> MatchRecord:
        game = game_class("generals-war")(2, 1)
        return await asyncio.wait_for(play_async(game, [Slipping(1), random_bot(2)], clock=lambda: 0.0), timeout=60)

    record = asyncio.run(go())
    seat = record.result.seats[0]
    first = [v.kind for v in seat.verdicts if v.decision_index == 0]
    refused = V.MALFORMED if slip == "no action" else V.ILLEGAL_ACTION
    assert set(first) == {refused, V.TIMEOUT} and first[-1] == V.TIMEOUT, first
    # As at its deadline: the whole move time and bank spent on the first decision, the move time on the next.
    move, bank = RELAXED.move_time_ms, RELAXED.time_bank_ms
    assert record.seats[0].think_ms[:2] == [move + bank, move]
    assert seat.forfeited and record.game.is_over()
    assert not record.result.seats[1].verdicts


def npm_test_of_a_kit_whose_act(tmp_path: Path, body: str, passes: bool = False, game: str = "land-and-castle") -> str:
    """The output of `npm test` in a TypeScript kit of ``game`` (in tmp_path/slip) whose act is ``body``: it must
    fail, or pass when ``passes``."""
    bot = tmp_path / "slip"
    result = runner.invoke(app, ["bot", "new", "slip", "--game", game, "--lang", "typescript", "--dir", str(bot)])
    assert result.exit_code == 0, result.output
    source = (bot / "bot.ts").read_text()
    (bot / "bot.ts").write_text(source.replace("    return randomAction(request, this.rng);", body))
    assert NPM is not None
    run = subprocess.run([NPM, "test"], cwd=bot, capture_output=True, text=True, timeout=300)
    assert (run.returncode == 0 and "# fail 0" in run.stdout) == passes, run.stdout[-3000:] + run.stderr[-2000:]
    return run.stdout + run.stderr


@needs_node
def test_a_typescript_kits_failing_test_points_at_the_line_of_bot_ts(tmp_path: Path) -> None:
    """`npm test` ran the bundle without source maps: a throw in act was reported at dist/bot.test.js:31215, a line
    of the SDK and gRPC bundled together, where the bot's author wrote it at bot.ts:28."""
    body = '    if (request.kind === "attackChoice") throw new Error("a slip in act");\n    return randomAction(request, this.rng);'
    out = npm_test_of_a_kit_whose_act(tmp_path, body)
    assert "a slip in act" in out
    line = 1 + (tmp_path / "slip" / "bot.ts").read_text().splitlines().index(body.splitlines()[0])
    assert f"bot.ts:{line}:" in out, out[-3000:]
    assert "dist/bot.test.js:" not in out.split("a slip in act", 1)[1], out[-3000:]


@needs_node
def test_a_typescript_kits_test_says_which_decision_got_an_illegal_action_and_shows_a_legal_one(tmp_path: Path) -> None:
    """It said only '{...} is not among the listed actions': not which of the recorded decisions, nor what a legal
    action of it looks like."""
    body = """    const attack = request.choiceFor("attackChoice");
    if (attack) return { attack: { cardId: attack.playable[0]!.id, land: 99 } };
    return randomAction(request, this.rng);"""
    out = npm_test_of_a_kit_whose_act(tmp_path, body)
    assert re.search(r"request \d+ of fixtures.json \(decision \d+: attackChoice\): ", out), out[-3000:]
    assert re.search(r'"land":99.* is not one of its \d+ legal actions, such as \{"attack":\{"cardId":\d+,"land":\d\}', out), out[-3000:]


@needs_node
def test_a_typescript_bots_stack_names_the_sdks_files_wherever_the_bot_is_copied(tmp_path: Path) -> None:
    """The bundle's source map named the SDK's files relative to the bot: a copy at another depth (the ladder's store,
    `arena bot check`'s folder) logged a crash at <store>/work/sdk/typescript/src/driver.ts, a file nowhere."""
    body = '    if (request.kind === "attackChoice") throw new Error("a slip in act");\n    return randomAction(request, this.rng);'
    npm_test_of_a_kit_whose_act(tmp_path, body)  # builds it
    moved = tmp_path / "store" / "bots" / "slip" / "1"
    shutil.copytree(tmp_path / "slip", moved)
    args = ["match", "land-and-castle", str(moved), str(ROOT / "sample_bots" / "random"), "--seed", "3", "--json"]
    result = runner.invoke(app, [*args, "--log-dir", str(tmp_path / "logs"), "--replay", str(tmp_path / "r.json")])
    assert result.exit_code == 0, result.output
    log = next((tmp_path / "logs").glob("*-seat0-*.log")).read_text()
    assert "a slip in act" in log and f"({moved / 'bot.ts'}:" in log, log
    assert f"({ROOT / 'sdk' / 'typescript' / 'src' / 'driver.ts'}:" in log, log


@needs_node
def test_a_typescript_kits_bot_has_its_games_helpers_at_hand(tmp_path: Path) -> None:
    """The kit's bot.ts said `landAndCastle` builds actions but did not import it: the first use of it was a type error
    ("Cannot find name 'landAndCastle'") until the author found what to import from where."""
    body = """    const claim = request.choiceFor("claimChoice");
    if (claim) return landAndCastle.control(claim.battleLand);
    return randomAction(request, this.rng);"""
    npm_test_of_a_kit_whose_act(tmp_path, body, passes=True)


@needs_node
def test_a_typescript_kits_test_takes_a_listed_action_with_its_cards_in_another_order(tmp_path: Path) -> None:
    """The test compared the action with the listed ones field by field: an attack with the cards [36, 51, 4], which the
    referee takes (cards are a set), failed as 'not one of its 11 legal actions', the listed one being [4, 36, 51]."""
    body = """    const many = request.legalActions?.find((a) => (a.attack?.cardIds.length ?? 0) > 1)?.attack;
    if (many) {
      console.log("attacking with the cards reversed");
      return { attack: { target: many.target, cardIds: [...many.cardIds].reverse() } };
    }
    return randomAction(request, this.rng);"""
    out = npm_test_of_a_kit_whose_act(tmp_path, body, passes=True, game="generals-and-assassins")
    assert "# attacking with the cards reversed" in out, out[-3000:]


@needs_node
def test_a_typescript_kits_failing_match_shows_its_log_from_a_lines_start(tmp_path: Path) -> None:
    """The end of the log was its last 2000 characters, cut anywhere: the first line shown read 'ction rejected: ...'."""
    body = """    if (request.kind === "defenceChoice") return generalsAndAssassins.decline();
    return randomAction(request, this.rng);"""
    out = npm_test_of_a_kit_whose_act(tmp_path, body, game="generals-and-assassins")
    assert "answered with decline" in out, out[-3000:]
    assert re.search(r"its log ends\n\s*\[slip\] ", out), out[-3000:]
