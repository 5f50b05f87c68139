"""What a local match's runner hands each bot process (docs/protocol.md, the environment table)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from referee.server.runner import MatchSetup, run_local_match
from referee.server.seeds import bot_seed
from referee.server.session import TimeControl
from tests.test_faults import runners

SAYS = (
    "import os; print('seed', os.environ['ARENA_BOT_SEED'], 'match', os.environ['ARENA_MATCH_ID'], 'name', os.environ['ARENA_BOT_NAME'], flush=True);"
    " print('level', os.environ.get('ARENA_LOG_LEVEL'), 'secret', os.environ.get('ARENA_DB_URL'), flush=True)"
)


def saying_bot(tmp: Path, name: str) -> Path:
    """A bot that prints what it was handed and exits without connecting."""
    path = tmp / name
    path.mkdir()
    (path / "bot.toml").write_text(
        f'name = "{name}"\nversion = "1"\nlanguage = "python"\ngames = ["generals-war"]\ncommand = ["python", "-c", "{SAYS}"]\n'
    )
    return path


def test_each_seat_gets_its_own_bot_seed_which_does_not_tell_the_match_seed_and_its_name(tmp_path: Path) -> None:
    """The bot seed was the match seed × 1000 + the seat: a bot divided by 1000, built the game from the public rules
    with that seed, and read every hand; it is now derived one way (referee/server/seeds.py)."""
    tc = TimeControl(move_time_ms=100, time_bank_ms=0, connect_timeout_ms=30_000)
    setup = MatchSetup("generals-war", [saying_bot(tmp_path, "a"), saying_bot(tmp_path, "b")], 7, {}, tc, tmp_path / "logs", match_id="m7")
    played = asyncio.run(run_local_match(setup))
    for seat, log in enumerate(played.logs):
        lines = log.read_text().splitlines()
        said = lines[0].split()
        assert said[2:] == ["match", "m7", "name", "ab"[seat]]
        assert said[1] == bot_seed(7, seat) != str(7000 + seat)
        assert lines[-1].startswith("[referee] at decision 0: the bot's process exited with code 0")
    seeds = [log.read_text().split()[1] for log in played.logs]
    assert len(set(seeds)) == 2 and all(int(s) < 2**48 for s in seeds)


def test_a_bot_seed_is_the_same_for_the_same_match_and_seat_and_tells_no_match_seed() -> None:
    """The same match seed replays the same match (the bots' randomness too); no small match seed gives it back."""
    assert bot_seed(7, 1) == bot_seed(7, 1) != bot_seed(8, 1) and bot_seed(7, 1) != bot_seed(7, 2)
    handed = int(bot_seed(123456, 0))
    assert handed // 1000 != 123456 and handed != 123456 and str(123456) not in str(handed)


@pytest.mark.parametrize("sandbox", runners("process", "docker"))
@pytest.mark.parametrize("level, handed", [("debug", "debug"), ("", "None"), ("x" * 17, "None")])
def test_the_log_level_is_handed_on_to_the_bots_and_no_other_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, level: str, handed: str, sandbox: str
) -> None:
    """docs/protocol.md: ARENA_LOG_LEVEL=DEBUG arena match sets the bots' level as it does for a bot run by hand; the
    rest of the referee's environment (here a ladder's database address) does not reach them."""
    monkeypatch.setenv("ARENA_LOG_LEVEL", level)
    monkeypatch.setenv("ARENA_DB_URL", "postgresql://arena:secret@db/arena")
    tc = TimeControl(move_time_ms=100, time_bank_ms=0, connect_timeout_ms=30_000)
    setup = MatchSetup("generals-war", [saying_bot(tmp_path, "a"), saying_bot(tmp_path, "b")], 7, {}, tc, tmp_path / "logs", sandbox)
    played = asyncio.run(run_local_match(setup))
    for log in played.logs:
        assert log.read_text().splitlines()[1] == f"level {handed} secret None"


def test_a_long_tmpdir_still_gives_each_seat_a_socket(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A unix socket's path holds 107 bytes at most: with TMPDIR deep enough (a CI job's, a cluster's scratch folder)
    every match ended at once in gRPC's "Failed to bind to address", a traceback, pooled or not."""
    import tempfile

    from referee.server.runner import BotPool
    from tests.support import SAMPLE_BOTS
    from tests.test_persistent_bots import pooled_bot

    deep = tmp_path / ("t" * 60) / ("u" * 60)
    deep.mkdir(parents=True)
    monkeypatch.setattr(tempfile, "tempdir", str(deep))
    tc = TimeControl(move_time_ms=5000, time_bank_ms=10000)

    async def main() -> list[bool]:
        pool = BotPool(tmp_path / "logs")
        try:
            setup = MatchSetup("generals-war", [pooled_bot(tmp_path), SAMPLE_BOTS / "random"], 1, {}, tc, tmp_path / "logs")
            played = await run_local_match(setup, pool=pool)
            return [s.forfeited or bool(s.verdicts) for s in played.record.result.seats]
        finally:
            await pool.close()

    assert asyncio.run(main()) == [False, False]
