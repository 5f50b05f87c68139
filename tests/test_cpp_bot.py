"""The C++ sample bot (sample_bots/cpp_random), written from docs/protocol.md and the .proto files alone.

It is built with its own build.sh (protoc, grpc_cpp_plugin, g++ and Debian's grpc++ and protobuf) and plays
every game against the Python sample bots through the runner of `arena match`: no verdict may fall on it,
and every action it built from a decision's constraints must be one of the request's legal actions
whenever the referee listed them (the bot logs those it built off the list). One game also runs in the
Docker sandbox, where a compiled bot needs its execute bit.

Without the toolchain these tests are skipped, except under CI, where they fail (.ci/run installs it).
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from arena.v1 import referee_pb2 as pb
from referee.games.registry import GAMES
from referee.server.manifest import load_manifest
from referee.server.runner import LocalMatch, MatchSetup, run_local_match
from referee.server.session import TimeControl
from tests.support import SAMPLE_BOTS, docker_ready

BOT = SAMPLE_BOTS / "cpp_random"
TOOLS = ("g++", "pkg-config", "protoc", "grpc_cpp_plugin")


def toolchain_missing() -> str | None:
    """What of the C++ toolchain is missing here, or None when the bot can be built."""
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        return f"needs {', '.join(missing)} (apt-get install g++ pkg-config libgrpc++-dev protobuf-compiler protobuf-compiler-grpc)"
    if subprocess.run(["pkg-config", "--exists", "grpc++", "protobuf"], check=False).returncode != 0:
        return "needs the grpc++ and protobuf development packages (apt-get install libgrpc++-dev)"
    return None


MISSING = toolchain_missing()
pytestmark = pytest.mark.skipif(MISSING is not None and not os.environ.get("CI"), reason=MISSING or "")

#: Each game's Python opponents, after the C++ bot in seat 0.
OPPONENTS = {
    "generals-war": ["generals_war_greedy"],
    "generals-and-assassins": ["generals_and_assassins_heuristic", "random"],
    "glory": ["glory_heuristic", "random", "random"],
    "land-and-castle": ["land_and_castle_heuristic"],
    "assassination": ["assassination_heuristic", "random", "random"],
}
TC = TimeControl(move_time_ms=2000, time_bank_ms=10_000, strike_limit=3)


@pytest.fixture(scope="module")
def built() -> Path:
    """The bot, built in place by its build.sh (under a lock: test workers may ask at once; a build that is
    current does nothing)."""
    assert MISSING is None, MISSING
    (BOT / "build").mkdir(exist_ok=True)
    with open(BOT / "build" / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        result = subprocess.run(["bash", str(BOT / "build.sh")], capture_output=True, text=True, timeout=1200, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert os.access(BOT / "build" / "bot", os.X_OK)
    return BOT


def play(game: str, bot: Path, tmp_path: Path, sandbox: str = "process", seed: int = 7) -> LocalMatch:
    seats = [bot] + [SAMPLE_BOTS / name for name in OPPONENTS[game]]
    return asyncio.run(run_local_match(MatchSetup(game, seats, seed, {}, TC, tmp_path / "logs", sandbox)))


def assert_clean(played: LocalMatch) -> str:
    """Checks the C++ bot's seat 0 and returns its log."""
    assert played.record.game.is_over()
    log = played.logs[0].read_text(errors="replace")
    verdicts = [pb.VerdictKind.Name(v.kind) + ": " + v.detail for v in played.record.result.seats[0].verdicts]
    assert not verdicts, f"{verdicts}\n{log[-3000:]}"
    assert not any(a.auto for a in played.record.actions if a.seat == 0), "the referee played for the bot"
    stats = re.search(r"decisions (\d+), with the list (\d+), built off the list (\d+), rejections (\d+), errors (\d+)", log)
    assert stats, log[-3000:]
    decisions, _, off_list, rejections, errors = map(int, stats.groups())
    assert decisions == sum(1 for a in played.record.actions if a.seat == 0)
    assert (off_list, rejections, errors) == (0, 0, 0), log[-3000:]
    return log


@pytest.mark.parametrize("game", list(OPPONENTS))
def test_the_cpp_bot_plays_every_game_cleanly(built: Path, tmp_path: Path, game: str) -> None:
    log = assert_clean(play(game, built, tmp_path))
    assert f"started {game} as seat 0 of {len(OPPONENTS[game]) + 1}" in log


@pytest.mark.skipif(not docker_ready() and not os.environ.get("CI"), reason="no Docker engine or sandbox image here")
def test_the_cpp_bot_runs_in_the_docker_sandbox(built: Path, tmp_path: Path) -> None:
    """The container sees the host's /usr (the gRPC libraries) and a copy of the bot folder that must keep
    build/bot executable."""
    assert_clean(play("land-and-castle", built, tmp_path, sandbox="docker"))


def test_every_game_is_covered() -> None:
    assert set(OPPONENTS) == set(GAMES)
    assert set(load_manifest(BOT).games) == set(GAMES)
    for game, opponents in OPPONENTS.items():
        assert len(opponents) + 1 in GAMES[game].spec.player_counts
