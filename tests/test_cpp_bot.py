"""The C++ sample bot (sample_bots/cpp_random), written from docs/protocol.md and the .proto files alone.

It is built with its own build.sh (protoc, grpc_cpp_plugin, g++ and Debian's grpc++ and protobuf) and plays
every game against the Python sample bots through the runner of `arena match`: no verdict may fall on it,
and every action it built from a decision's constraints must be one of the request's legal actions
whenever the referee listed them (the bot logs those it built off the list). One game also runs in the
Docker sandbox, where a compiled bot needs its execute bit. Against a referee that refuses its every answer, it
gives up on each request after its tries (give_up), as docs/protocol.md shows a bot without an SDK how to.

Without the toolchain these tests are skipped, except under CI, where they fail (.ci/run installs it).
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import re
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Any

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


def test_the_cpp_bot_gives_up_on_a_request_whose_answers_are_all_refused(built: Path) -> None:
    """Every answer of the C++ seat is rejected: after its tries it sends give_up, and the referee plays the default
    action then, not at a deadline ten minutes away (the process's timeout would fail first)."""
    from tests.grpc_support import RandomBot, Referee  # a referee in a thread of this process, and the Python random bot
    from arena_sdk.client import play as python_play

    ref = Referee(tc=TimeControl(move_time_ms=600_000, time_bank_ms=0, strike_limit=2, connect_timeout_ms=20_000))
    original = ref.session._on_message

    def refuse_seat_0(s: Any, msg: pb.BotMessage) -> None:
        if s.seat == 0 and msg.WhichOneof("msg") == "action" and s.pending is not None and msg.action.request_id == s.pending.request_id:
            ref.session._reject(s, "every answer of this seat is refused (a test)")
            return
        original(s, msg)

    ref.session._on_message = refuse_seat_0  # type: ignore[method-assign]
    other = threading.Thread(target=python_play, args=(RandomBot(1), ref.address, ref.session.match_id, ref.session.tokens()[1]), daemon=True)
    other.start()
    env = {"PATH": os.environ.get("PATH", ""), "ARENA_ADDRESS": ref.address, "ARENA_MATCH_ID": ref.session.match_id, "ARENA_TOKEN": ref.session.tokens()[0], "ARENA_BOT_SEED": "5"}
    proc = subprocess.run([str(built / "build" / "bot")], env=env, capture_output=True, text=True, timeout=120, check=False)
    other.join(60)
    record = ref.join()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    seat = record.result.seats[0]
    gave_up = [v.detail for v in seat.verdicts if v.kind == pb.TIMEOUT]
    assert gave_up == ["the bot gave up on the decision"] * 3 and seat.forfeited, seat
    assert proc.stdout.count("after 5 rejected answers") == 3, proc.stdout[-3000:]
    rejected = [v.decision_index for v in seat.verdicts if v.kind == pb.ILLEGAL_ACTION]
    assert len(rejected) == 3 * 5 and len(set(rejected)) == 3, "five answers to each of three decisions, then a give_up"
