"""`arena bot new`: starter kits that `arena match` runs at once and whose own tests pass."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli.botkit import class_name, ts_field
from arena.cli.main import app
from referee.server.manifest import load_manifest
from referee.server.runner import BotPool, MatchSetup, run_local_match
from referee.server.session import TimeControl
from tests.support import ROOT, stop_if_running

runner = CliRunner()
NODE = shutil.which("node")
NPM = shutil.which("npm")
TS_READY = NODE is not None and (ROOT / "sdk" / "typescript" / "node_modules" / "esbuild").is_dir()
needs_node = pytest.mark.skipif(not TS_READY and not os.environ.get("CI"), reason="needs node and `npm ci` in sdk/typescript")


def new(*args: str) -> str:
    result = runner.invoke(app, ["bot", "new", *args])
    assert result.exit_code == 0, result.output
    return result.stdout


def match(tmp_path: Path, game: str, *bots: Path) -> list[dict]:  # type: ignore[type-arg]
    args = ["match", game, *map(str, bots), "--seed", "3", "--json", "--log-dir", str(tmp_path / "logs"), "--replay", str(tmp_path / "r.json")]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    seats: list[dict] = json.loads(result.stdout.strip().splitlines()[-1])["seats"]  # type: ignore[type-arg]
    return seats


def test_a_python_kit_plays_at_once_and_passes_its_tests(tmp_path: Path) -> None:
    bot = tmp_path / "my-bot"
    out = new("my-bot", "--game", "generals-war", "--lang", "python", "--dir", str(bot))
    assert "arena match generals-war" in out
    assert sorted(p.name for p in bot.iterdir()) == ["README.md", "bot.py", "bot.toml", "test_my_bot.py"]
    manifest = load_manifest(bot)
    assert (manifest.name, manifest.language, manifest.games, manifest.command) == ("my-bot", "python", ("generals-war",), ("python", "bot.py"))
    assert "class MyBot(Bot)" in (bot / "bot.py").read_text()
    seats = match(tmp_path, "generals-war", bot, ROOT / "sample_bots" / "random")
    assert seats[0]["bot"] == "my-bot" and seats[0]["verdicts"] == []
    tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(bot)], cwd=bot, capture_output=True, text=True, timeout=300)
    assert tests.returncode == 0, tests.stdout[-3000:] + tests.stderr[-2000:]
    assert "2 passed" in tests.stdout


def test_two_python_kits_are_tested_in_one_pytest_run(tmp_path: Path) -> None:
    """Both kits' tests were test_bot.py: pytest refused the second ('import file mismatch') when run over their folder."""
    new("alpha", "--game", "glory", "--dir", str(tmp_path / "alpha"))
    new("beta.2", "--game", "glory", "--dir", str(tmp_path / "beta"))
    assert (tmp_path / "beta" / "test_beta_2.py").is_file()
    tests = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", "without_a_penalty", str(tmp_path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert tests.returncode == 0, tests.stdout[-3000:] + tests.stderr[-2000:]
    assert "2 passed" in tests.stdout


@needs_node
@pytest.mark.parametrize("game", ["assassination", "land-and-castle"])
def test_a_typescript_kit_plays_at_once_and_passes_its_tests(tmp_path: Path, game: str) -> None:
    bot = tmp_path / "ts-bot"
    new("ts-bot", "--game", game, "--lang", "typescript", "--dir", str(bot))
    expected = ["README.md", "bot.test.ts", "bot.toml", "bot.ts", "dist", "fixtures.json", "main.ts", "package.json", "tsconfig.json"]
    assert sorted(p.name for p in bot.iterdir()) == expected
    manifest = load_manifest(bot)
    assert (manifest.language, manifest.games) == ("typescript", (game,))
    assert (bot / "dist" / "main.js").is_file() and (bot / "dist" / "bot.test.js").is_file()
    fixtures = json.loads((bot / "fixtures.json").read_text())
    assert fixtures["game"] == game and len(fixtures["requests"]) >= 2
    # Its package scripts pass (build: type-check and bundle; test), and its test played a whole match as made, as
    # `arena match` runs it, in every seat of the game's smallest table, with this environment's arena (not skipped).
    assert NPM is not None
    for script in ("build", "test"):
        run = subprocess.run([NPM, "run", script], cwd=bot, capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, f"npm run {script}:\n{run.stdout[-3000:]}{run.stderr[-3000:]}"
    assert "# fail 0" in run.stdout and "# skipped 0" in run.stdout, run.stdout[-3000:]
    assert re.search(r"^ok \d+ - it plays a whole match in every seat", run.stdout, re.M), run.stdout[-3000:]


@needs_node
def test_a_typescript_kit_build_reports_type_errors(tmp_path: Path) -> None:
    bot = tmp_path / "typo"
    new("typo", "--game", "glory", "--lang", "typescript", "--dir", str(bot))
    source = (bot / "bot.ts").read_text()
    (bot / "bot.ts").write_text(source.replace("return randomAction(request, this.rng);", "return request.view.hand.length;"))
    assert NPM is not None
    build = subprocess.run([NPM, "run", "build"], cwd=bot, capture_output=True, text=True, timeout=300)
    assert build.returncode != 0
    assert "bot.ts" in build.stdout + build.stderr and "type errors" in build.stderr
    # npm test builds first: it ran the dist/ of the last good build, and passed with this bot.ts
    test = subprocess.run([NPM, "test"], cwd=bot, capture_output=True, text=True, timeout=300)
    assert test.returncode != 0 and "type errors" in test.stderr


@pytest.mark.parametrize(
    "args,message",
    [
        (["bad name!", "--game", "glory"], "must start with a letter or digit"),
        (["ok", "--game", "chess"], "unknown game"),
        (["ok", "--game", "glory", "--lang", "rust"], "--lang must be one of python, typescript"),
    ],
)
def test_bad_input_gets_a_clear_error(tmp_path: Path, args: list[str], message: str) -> None:
    result = runner.invoke(app, ["bot", "new", *args, "--dir", str(tmp_path / "b")])
    assert result.exit_code == 2
    assert message in " ".join(result.output.split())
    assert not (tmp_path / "b").exists()


def test_an_existing_directory_is_left_alone(tmp_path: Path) -> None:
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "keep.txt").write_text("mine")
    result = runner.invoke(app, ["bot", "new", "b", "--game", "glory", "--dir", str(taken)])
    assert result.exit_code == 2 and "not an empty directory" in result.output
    assert [p.name for p in taken.iterdir()] == ["keep.txt"]


def test_a_kit_that_cannot_be_written_is_an_error_and_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("mine")
    result = runner.invoke(app, ["bot", "new", "b", "--game", "glory", "--dir", str(a_file / "b")])
    assert result.exit_code == 2 and "cannot write the kit in" in " ".join(result.output.split()), result.output
    assert a_file.read_text() == "mine"
    real_write = Path.write_text

    def disk_full_at_the_readme(path: Path, *args: Any, **kwargs: Any) -> int:
        if path.name == "README.md":
            raise OSError(28, "No space left on device")
        return real_write(path, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", disk_full_at_the_readme)
    result = runner.invoke(app, ["bot", "new", "b", "--game", "glory", "--dir", str(tmp_path / "new" / "b")])
    assert result.exit_code == 2 and "No space left on device" in " ".join(result.output.split()), result.output
    assert not (tmp_path / "new").exists(), "no half-written kit"
    (tmp_path / "empty").mkdir()
    result = runner.invoke(app, ["bot", "new", "b", "--game", "glory", "--dir", str(tmp_path / "empty")])
    assert result.exit_code == 2 and list((tmp_path / "empty").iterdir()) == []


def test_the_default_directory_is_the_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    new("plain", "--game", "glory")
    assert (tmp_path / "plain" / "bot.toml").is_file()


def test_names() -> None:
    assert class_name("my-bot") == "MyBot"
    assert class_name("gw.greedy_2") == "GwGreedy2Bot"
    assert class_name("7up") == "Bot7upBot"
    assert ts_field("generals-and-assassins") == "generalsAndAssassins"


def pooled_and_fresh_play(tmp_path: Path, bot: Path) -> tuple[list[str], list[str]]:
    """Seat 0's actions in a match of seed 2 played by a process that played seed 1 first, and by a fresh process."""
    manifest = bot / "bot.toml"
    manifest.write_text(manifest.read_text() + "matches_per_process = 3\n")
    tc = TimeControl(move_time_ms=5000, time_bank_ms=10_000)
    other = ROOT / "sample_bots" / "random"

    def seat0(match: Any) -> list[str]:
        assert not any(s.verdicts for s in match.record.result.seats), match.record.result
        return [repr(a.action) for a in match.record.actions if a.seat == 0]

    async def main() -> tuple[list[str], list[str]]:
        pool = BotPool(tmp_path / "logs")
        try:
            played = [await run_local_match(MatchSetup("glory", [bot, other], seed, {}, tc, tmp_path / "logs"), pool=pool) for seed in (1, 2)]
            assert pool.started == 1  # one process of the kit played both
        finally:
            await pool.close()
        fresh = await run_local_match(MatchSetup("glory", [bot, other], 2, {}, tc, tmp_path / "logs"))
        return seat0(played[1]), seat0(fresh)

    return asyncio.run(main())


@pytest.mark.parametrize("lang", ["python", pytest.param("typescript", marks=needs_node)])
def test_a_kit_replays_a_match_seed_in_a_pooled_process_as_in_a_fresh_one(tmp_path: Path, lang: str) -> None:
    """The kits seed again in on_start/onStart: a pooled process gets each match's seed only then."""
    bot = tmp_path / "kit"
    new("kit", "--game", "glory", "--lang", lang, "--dir", str(bot))
    pooled, fresh = pooled_and_fresh_play(tmp_path, bot)
    assert pooled == fresh


def test_the_python_guides_example_passes_over_a_kit(tmp_path: Path) -> None:
    """docs/bots.md's example pasted over the bot.py of a generals-war kit: its test passes (it took no seed)."""
    example = (ROOT / "docs" / "bots.md").read_text().split("```python\n", 1)[1].split("```", 1)[0]
    bot = tmp_path / "my-bot"
    new("my-bot", "--game", "generals-war", "--dir", str(bot))
    (bot / "bot.py").write_text(example)
    tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(bot)], cwd=bot, capture_output=True, text=True, timeout=300)
    assert tests.returncode == 0, tests.stdout[-3000:] + tests.stderr[-2000:]



def test_a_kits_test_says_in_words_why_a_bot_drew_a_verdict(tmp_path: Path) -> None:
    """A bot answering with an illegal action failed its kit's test with pytest's cut repr of the verdict messages
    (``assert [[kind: ILLEG... hand"\\n, ...]] == [[], []]``): it now says them as `arena match` does."""
    bot = tmp_path / "illegal"
    new("illegal", "--game", "glory", "--dir", str(bot))
    source = (bot / "bot.py").read_text()
    act = "        return random_action(request, self.rng)\n"
    assert act in source
    (bot / "bot.py").write_text(source.replace(act, "        return glory.heal(9999)\n").replace("random_action, run\n", "random_action, run\nfrom arena_sdk.games import glory\n"))
    tests = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", "without_a_penalty", str(bot)],
        cwd=bot, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert tests.returncode == 1, tests.stdout[-3000:] + tests.stderr[-2000:]
    # the first verdict and how many followed, as `arena match` says them, not the one reason listed three times
    said = r"seed 1, seat \d: illegal action at decision \d+: card 9999 is not a Health card in hand \(and \d+ more verdicts\)"
    assert re.search(said, tests.stdout), tests.stdout[-3000:]

@needs_node
def test_the_typescript_guides_example_builds_and_passes_over_a_kit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/typescript.md's "Writing a bot" pasted over the bot.ts of a glory kit: its build and test pass, and its own
    line of log (the guide named no way for a bot to log but console.log, bare and at every level) reaches the match's
    log as the guide says, `[my-bot] DEBUG ...`, at ARENA_LOG_LEVEL=DEBUG."""
    guide = (ROOT / "docs" / "typescript.md").read_text()
    example = guide.split("## Writing a bot", 1)[1].split("```ts\n", 1)[1].split("```", 1)[0]
    bot = tmp_path / "my-bot"
    new("my-bot", "--game", "glory", "--lang", "typescript", "--dir", str(bot))
    (bot / "bot.ts").write_text(example)
    assert NPM is not None
    for script in ("build", "test"):
        run = subprocess.run([NPM, "run", script], cwd=bot, capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, f"npm run {script}:\n{run.stdout[-3000:]}{run.stderr[-3000:]}"
    monkeypatch.setenv("ARENA_LOG_LEVEL", "DEBUG")
    match(tmp_path, "glory", bot, bot)
    logs = "".join(p.read_text() for p in (tmp_path / "logs").glob("*my-bot*.log"))
    assert re.search(r"^\[my-bot\] DEBUG decision \d+: healing$", logs, re.M), logs[-2000:]


@pytest.mark.parametrize("lang", ["python", pytest.param("typescript", marks=needs_node)])  # a TypeScript kit is bundled when made
def test_the_try_it_lines_are_each_a_command_at_80_columns(tmp_path: Path, lang: str) -> None:
    """A TypeScript kit's advice wrapped at 80 columns, and its end ("before arena match") began a line as if a command."""
    where = tmp_path / "my bots" / "b"
    result = runner.invoke(app, ["bot", "new", "b", "--game", "glory", "--lang", lang, "--dir", str(where)], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    lines = result.stdout.split("try it:\n")[1].splitlines()
    assert len(lines) == (4 if lang == "typescript" else 3)
    assert all(line.startswith(("  (cd ", "  pytest ", "  arena match ", "  arena bot check ")) for line in lines), lines
    assert shlex.split(lines[-2]) == ["arena", "match", "glory", str(where), str(where)]  # the folder with a space, quoted
    assert shlex.split(lines[-1], comments=True) == ["arena", "bot", "check", str(where)]


@pytest.mark.parametrize("lang", ["python", pytest.param("typescript", marks=needs_node)])
def test_the_readmes_commands_are_the_try_it_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lang: str) -> None:
    """The TypeScript kit's README said `npm test`, then `arena match ... ts-bot`: one runs in the bot's folder, the
    other beside it. Its commands are now those `arena bot new` prints, all run from where it ran."""
    monkeypatch.chdir(tmp_path)
    printed = new("kit", "--game", "glory", "--lang", lang, "--dir", "my bots/kit")  # a space: quoted alike in both
    try_it = [line.split("#")[0].strip() for line in printed.split("try it:\n")[1].splitlines()]
    readme = (tmp_path / "my bots" / "kit" / "README.md").read_text()
    commands = [line.strip() for line in readme.splitlines() if line.startswith("    ")]
    assert commands and all(command in try_it for command in commands), (commands, try_it)


@pytest.mark.parametrize("lang", ["python", pytest.param("typescript", marks=needs_node)])
def test_the_readmes_match_against_the_random_sample_bot_names_it_from_anywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lang: str
) -> None:
    """The Python kit's README said `arena match GAME DIR sample_bots/random`, a folder only the repository's own
    folder has: a bot made anywhere else found no such bot. It now names the random sample bot's folder in full."""
    monkeypatch.chdir(tmp_path)
    new("kit", "--game", "glory", "--lang", lang, "--dir", "kit")
    readme = (tmp_path / "kit" / "README.md").read_text()
    against = [shlex.split(quoted) for quoted in re.findall(r"`(arena match [^`]*random[^`]*)`", readme)]
    assert against, readme
    command = [word for word in against[0] if word != "..."]
    assert command[:4] == ["arena", "match", "glory", "kit"], command
    assert (Path(command[4]) / "bot.toml").is_file() and Path(command[4]).is_absolute(), command


def test_a_kits_version_is_set_in_bot_toml_alone() -> None:
    """The kits set version = "0.1.0" in bot.toml and in the bot's class too. The class's is sent in the hello and
    shown nowhere, so an author who raised it there went on seeing the old version on arena's tables and the ladder."""
    from arena.cli.botkit import PY_BOT, TS_BOT, manifest

    assert not re.search(r"^\s*(override\s+)?version\s*=", PY_BOT, re.M), PY_BOT
    assert not re.search(r"^\s*(override\s+)?version\s*=", TS_BOT, re.M), TS_BOT
    assert "its version is bot.toml's" in PY_BOT and "its version is bot.toml's" in TS_BOT
    assert 'version = "0.1.0"' in manifest("m", "glory", "python", ["python", "bot.py"])


@pytest.mark.parametrize("lang", ["python", pytest.param("typescript", marks=needs_node)])
def test_the_docs_a_kit_points_to_are_named_in_full(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lang: str) -> None:
    """A kit's README and bot.toml pointed to docs/bots.md and docs/games/GAME.md, paths of the repository's folder: a
    kit made anywhere else, as kits are, found no such files. They are named in full, as the random sample bot is,
    and so is the game's .proto, whose View's fields are what request.view holds (the README named no place for them)."""
    monkeypatch.chdir(tmp_path)
    new("kit", "--game", "glory", "--lang", lang, "--dir", "kit")
    readme = (tmp_path / "kit" / "README.md").read_text()
    assert "proto/arena/v1/glory.proto" in readme, readme
    for file in ("README.md", "bot.toml"):
        text = (tmp_path / "kit" / file).read_text()
        docs = re.findall(r"[^\s(`]*(?:docs/[\w/.-]*\.md|proto/[\w/.-]*\.proto)", text)
        assert docs, (file, text)
        assert all(Path(doc).is_absolute() and Path(doc).is_file() for doc in docs), (file, docs)


def test_the_guides_own_ladder_takes_a_kit_and_rates_it(tmp_path: Path) -> None:
    """docs/bots.md named `arena ladder submit` but not how to run a ladder of one's own to try it: an author walked
    docs/ladder.md, took the default port another ladder held, and submitted there ('401: unknown API token').
    The guide's commands, run as written (paths, address and token filled in), enter a kit on a ladder of its own."""
    import queue
    import threading

    guide = (ROOT / "docs" / "bots.md").read_text()
    block = guide.split("To see your bot rated", 1)[1].split("```\n", 1)[1].split("```", 1)[0]
    commands = [shlex.split(line, comments=True) for line in block.splitlines() if line.strip()]
    assert [c[:3] for c in commands] == [["arena", "ladder", w] for w in ("serve", "user", "submit", "standings")], commands
    bot = tmp_path / "my-bot"
    new("my-bot", "--game", "land-and-castle", "--dir", str(bot))
    words = {"/tmp/my-ladder": str(tmp_path / "ladder"), "path/to/my-bot": str(bot)}

    def argv(command: list[str]) -> list[str]:
        return [sys.executable, "-m", "arena.cli.main", *[words.get(w, w) for w in command[1:] if w != "--watch"]]

    serve = subprocess.Popen(argv(commands[0]), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        for line in serve.stdout or []:
            lines.put(line)

    threading.Thread(target=read, daemon=True).start()
    try:
        said = lines.get(timeout=60)
        found = re.search(r"ladder: (http://127\.0\.0\.1:\d+)", said)
        assert found, said
        words["http://127.0.0.1:PORT"] = found.group(1)
        user = subprocess.run(argv(commands[1]), capture_output=True, text=True, timeout=60)
        assert user.returncode == 0, user.stdout + user.stderr
        words["TOKEN"] = user.stdout.strip().splitlines()[-1]
        submit = subprocess.run(argv(commands[2]), capture_output=True, text=True, timeout=240)
        assert submit.returncode == 0 and "accepted: my-bot" in submit.stdout, submit.stdout + submit.stderr
        standings = subprocess.run(argv(commands[3]), capture_output=True, text=True, timeout=60, env={**os.environ, "COLUMNS": "200"})
        assert standings.returncode == 0 and "my-bot" in standings.stdout, standings.stdout + standings.stderr
    finally:
        stop_if_running(serve)


def test_a_kit_made_by_an_arena_off_the_path_says_where_its_commands_are(tmp_path: Path) -> None:
    """Made with .venv/bin/arena, a kit printed `pytest my-bot` and `arena match ...`: the shell's pytest, another
    Python's, failed to import the kit's test, and arena was not found. It now names the folder that has them both."""
    here = Path(sys.executable).parent
    away = runner.invoke(app, ["bot", "new", "a", "--game", "glory", "--dir", str(tmp_path / "a")], env={"PATH": str(tmp_path)})
    assert away.exit_code == 0, away.output
    assert f"pytest and arena below are those in {here}, which your shell does not find first: export PATH={here}:$PATH" in away.stdout.split("try it:")[0], away.stdout
    on_path = runner.invoke(app, ["bot", "new", "b", "--game", "glory", "--dir", str(tmp_path / "b")], env={"PATH": str(here)})
    assert on_path.exit_code == 0, on_path.output
    assert "export PATH" not in on_path.stdout, on_path.stdout
