"""Process bots pinned to one CPU each (referee/server/cpus.py, the reaper's ``--cpu``, ``--pin-cpus``)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import os
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from referee.server import cpus
from referee.server.launchers import LaunchSpec, ProcessHandle, ProcessLauncher
from referee.server.manifest import load_manifest
from tests.support import SAMPLE_BOTS
from tests.waiting import until

pytestmark = pytest.mark.skipif(not cpus.available(), reason="pinning needs os.sched_setaffinity (Linux)")

runner = CliRunner()
#: The CPUs the tests may use: an unpinned bot has them all.
MINE = sorted(os.sched_getaffinity(0)) if cpus.available() else []
two_cpus = pytest.mark.skipif(len(MINE) < 2, reason="needs two CPUs")

#: Says the CPUs its main thread, a thread it starts and a process it starts may use, then plays at random.
TELLING_BOT = """\
import os, runpy, subprocess, sys, threading
seen = []
thread = threading.Thread(target=lambda: seen.append(sorted(os.sched_getaffinity(0))))
thread.start()
thread.join()
code = "import os; print(sorted(os.sched_getaffinity(0)))"
child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
print(f"cpus main={sorted(os.sched_getaffinity(0))} thread={seen[0]} child={child}", flush=True)
runpy.run_path("random_bot.py", run_name="__main__")
"""


def telling_bot(tmp_path: Path, name: str, per_process: int = 1) -> Path:
    bot = tmp_path / name
    bot.mkdir()
    (bot / "bot.py").write_text(TELLING_BOT)
    shutil.copy(SAMPLE_BOTS / "random" / "bot.py", bot / "random_bot.py")
    (bot / "bot.toml").write_text(
        f'name = "{name}"\nversion = "1"\nlanguage = "python"\ngames = ["generals-war"]\ncommand = ["python", "bot.py"]\n'
        f"matches_per_process = {per_process}\n"
    )
    return bot


def cpus_told(log: Path) -> list[int]:
    """The CPUs a telling bot said it may use; its thread and its child must say the same."""
    found = re.search(r"^cpus main=\[(.*)\] thread=\[(.*)\] child=\[(.*)\]$", log.read_text(), re.MULTILINE)
    assert found is not None, log.read_text()
    main, thread, child = ([int(c) for c in group.split(", ")] for group in found.groups())
    assert main == thread == child
    return main


def test_each_claim_takes_a_cpu_with_the_fewest_bots(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {2, 5, 9})
    before = cpus.pinned_now()
    first = [cpus.claim() for _ in range(3)]
    assert sorted(c.cpu for c in first) == [2, 5, 9]  # one each while there are enough
    fourth = cpus.claim()  # a CPU that now has two
    freed = next(c for c in first if c.cpu != fourth.cpu)
    freed.release()
    fifth = cpus.claim()
    assert fifth.cpu == freed.cpu  # the one with no bot now
    assert cpus.pinned_now()[fourth.cpu] - before.get(fourth.cpu, 0) == 2
    for held in (*first, fourth, fifth):
        held.release()
    first[0].release()  # again: counted once
    assert cpus.pinned_now() == before


def test_with_one_cpu_every_bot_shares_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {3})
    held = [cpus.claim() for _ in range(3)]
    assert [c.cpu for c in held] == [3, 3, 3]
    for c in held:
        c.release()


def launched(tmp_path: Path, bot: Path, seat: int = 0) -> LaunchSpec:
    (tmp_path / f"seat{seat}").mkdir()
    return LaunchSpec(seat, load_manifest(bot), bot, tmp_path / f"seat{seat}", tmp_path / f"home{seat}", {}, tmp_path / f"bot{seat}.log")


def said_cpus(log: Path) -> bool:
    return log.exists() and "cpus main=" in log.read_text()


async def told_then_stopped(launcher: ProcessLauncher, spec: LaunchSpec) -> ProcessHandle:
    """Start a telling bot, and stop it once it has said its CPUs (no referee serves it: it would try to connect)."""
    handle = await launcher.launch(spec)
    assert isinstance(handle, ProcessHandle)
    await until("the bot to say its CPUs", lambda: said_cpus(spec.log_path))
    await handle.stop(0)
    return handle


def test_a_pinned_bot_and_all_it_starts_run_on_one_cpu_until_it_ends(tmp_path: Path) -> None:
    """Its thread and its child too; its CPU is counted while it runs, and free again once it has ended."""
    bot = telling_bot(tmp_path, "teller")
    before = cpus.pinned_now()

    async def run() -> tuple[int | None, dict[int, int], dict[int, int]]:
        launcher = ProcessLauncher(pin_cpus=True)
        handle = await launcher.launch(launched(tmp_path, bot))
        assert isinstance(handle, ProcessHandle)
        running = cpus.pinned_now()
        await until("the bot to say its CPUs", lambda: said_cpus(tmp_path / "bot0.log"))
        await handle.stop(0)
        return handle.cpu, running, cpus.pinned_now()

    cpu, running, after = asyncio.run(run())
    assert cpu in MINE and cpus_told(tmp_path / "bot0.log") == [cpu]
    assert running[cpu] == before.get(cpu, 0) + 1
    assert after == before


def test_unpinned_by_default_a_bot_may_use_every_cpu(tmp_path: Path) -> None:
    bot = telling_bot(tmp_path, "teller")

    assert asyncio.run(told_then_stopped(ProcessLauncher(), launched(tmp_path, bot))).cpu is None
    assert cpus_told(tmp_path / "bot0.log") == MINE


def test_where_it_cannot_pin_the_launcher_says_so_once_and_plays_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(cpus, "available", lambda: False)
    monkeypatch.setattr(cpus, "_warned", False)
    bot = telling_bot(tmp_path, "teller")
    launcher = ProcessLauncher(pin_cpus=True)

    async def run() -> None:
        for seat in (0, 1):
            await told_then_stopped(launcher, launched(tmp_path, bot, seat))

    with caplog.at_level(logging.WARNING, logger="referee.server.cpus"):
        asyncio.run(run())
    assert [r.getMessage() for r in caplog.records].count(f"{cpus.UNAVAILABLE}: process bots run on any CPU") == 1
    assert cpus_told(tmp_path / "bot0.log") == cpus_told(tmp_path / "bot1.log") == MINE


def match(tmp_path: Path, *given: str) -> dict:  # type: ignore[type-arg]
    a, b = telling_bot(tmp_path, "a"), telling_bot(tmp_path, "b")
    args = ["match", "generals-war", str(a), str(b), "--seed", "1", "--json", "--log-dir", str(tmp_path / "logs"), "--replay", str(tmp_path / "r.json")]
    result = runner.invoke(app, [*args, *given])
    assert result.exit_code == 0, result.output
    played: dict = json.loads(result.stdout.strip().splitlines()[-1])  # type: ignore[type-arg]
    assert all(not seat["verdicts"] for seat in played["seats"])
    return played


@two_cpus
def test_arena_match_with_pin_cpus_gives_its_two_bots_a_cpu_each(tmp_path: Path) -> None:
    before = cpus.pinned_now()
    played = match(tmp_path, "--pin-cpus")
    told = [cpus_told(Path(seat["log"])) for seat in played["seats"]]
    assert all(len(t) == 1 and t[0] in MINE for t in told)
    assert told[0] != told[1]
    assert cpus.pinned_now() == before  # both ended with the match


def test_arena_match_leaves_its_bots_unpinned_by_default(tmp_path: Path) -> None:
    played = match(tmp_path)
    assert [cpus_told(Path(seat["log"])) for seat in played["seats"]] == [MINE, MINE]


@two_cpus
def test_arena_tournament_pins_pooled_and_fresh_processes(tmp_path: Path) -> None:
    """A bot kept between matches (BotPool) holds its CPU for its process's life; the other is started per match."""
    pooled, fresh = telling_bot(tmp_path, "pooled", per_process=2), telling_bot(tmp_path, "fresh")
    logs = tmp_path / "logs"
    before = cpus.pinned_now()
    args = ["tournament", "generals-war", str(pooled), str(fresh), "-n", "2", "--seed", "1", "-j", "1", "--json", "--log-dir", str(logs)]
    result = runner.invoke(app, [*args, "--pin-cpus"])
    assert result.exit_code == 0, result.output
    pool_logs = sorted(logs.glob("pool-pooled-*.log"))
    fresh_logs = sorted(logs.glob("*-fresh.log"))
    assert pool_logs and len(fresh_logs) == 2
    assert all(len(cpus_told(log)) == 1 for log in [*pool_logs, *fresh_logs])
    assert cpus.pinned_now() == before


def test_pin_cpus_is_refused_where_it_would_do_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bot = str(SAMPLE_BOTS / "random")
    for command in (["match", "generals-war", bot, bot], ["tournament", "generals-war", bot, bot]):
        docker = runner.invoke(app, [*command, "--pin-cpus", "--sandbox", "docker", "--log-dir", str(tmp_path / "logs")])
        assert docker.exit_code == 2 and "a container is held to one CPU already" in docker.stderr
    monkeypatch.setattr(cpus, "available", lambda: False)  # as on macOS
    for command in (["match", "generals-war", bot, bot], ["tournament", "generals-war", bot, bot]):
        result = runner.invoke(app, [*command, "--pin-cpus", "--log-dir", str(tmp_path / "logs")])
        assert result.exit_code == 2 and "--pin-cpus is not available here" in result.stderr
    assert not (tmp_path / "logs").exists()  # refused before anything ran


@two_cpus
def test_the_ladder_pins_its_process_bots_by_default(tmp_path: Path) -> None:
    """docs/ladder.md, "Is it fair?": as a container is held to one CPU, so is a process, each of a match on its own."""
    from ladder.jobs import BotSource, play_job
    from tests.ladder.test_handing_out import claimed_job

    lad, job = claimed_job(tmp_path, "w")
    tellers = tuple(BotSource(bot.version_id, folder=str(telling_bot(tmp_path, f"t{seat}"))) for seat, bot in enumerate(job.bots))
    assert asyncio.run(play_job(lad.make, dataclasses.replace(job, bots=tellers), "here", just_claimed=True)).status == "recorded"
    told = [cpus_told(log) for log in sorted((Path(job.data_dir) / "logs" / str(job.match_id)).glob("*.log"))]
    assert len(told) == 2 and all(len(t) == 1 for t in told) and told[0] != told[1]


def test_the_ladders_validation_matches_pin_as_its_matches_do(tmp_path: Path) -> None:
    """A bot is validated as it will play (`arena bot check` plays these matches too)."""
    from ladder.submissions import validation_matches

    reason, log = asyncio.run(validation_matches(telling_bot(tmp_path, "teller"), ["generals-war"], tmp_path / "logs"))
    assert reason == "", log
    (tmp_path / "told.log").write_text(log)
    assert len(cpus_told(tmp_path / "told.log")) == 1


@pytest.mark.parametrize(
    "value,pins", [(None, True), ("", True), ("1", True), ("yes", True), ("On", True), ("0", False), ("false", False), (" no ", False)]
)
def test_arena_pin_cpus_turns_the_ladders_pinning_on_or_off(value: str | None, pins: bool) -> None:
    """Pinning cost the ladder's throughput on the 2-core host (benchmarks/CHANGES.md, fortieth round): an operator who
    trusts the bots may turn it off, on each machine that plays (a Dask worker reads its own)."""
    assert cpus.ladder_setting({} if value is None else {cpus.LADDER_SWITCH: value}) is pins


def test_an_arena_pin_cpus_that_is_no_yes_or_no_is_refused_naming_it() -> None:
    with pytest.raises(ValueError, match="ARENA_PIN_CPUS='sometimes'"):
        cpus.ladder_setting({cpus.LADDER_SWITCH: "sometimes"})
    said = runner.invoke(app, ["ladder", "serve", "--help"], env={cpus.LADDER_SWITCH: "sometimes"})
    assert said.exit_code == 2 and "ARENA_PIN_CPUS='sometimes'" in " ".join(said.output.split()), said.output


def test_the_ladder_reads_arena_pin_cpus_where_it_starts() -> None:
    import subprocess
    import sys

    code = "import ladder.jobs as jobs; print(jobs.PIN_CPUS)"
    for value, shown in (("0", "False"), ("1", "True")):
        env = {**os.environ, cpus.LADDER_SWITCH: value}
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout.strip()
        assert out == shown, (value, out)
