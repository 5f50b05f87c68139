"""Bot processes that play several matches in a row (manifest ``matches_per_process``)."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from referee.server.manifest import ManifestError, load_manifest
from referee.server.runner import BotPool, MatchSetup, run_local_match
from referee.server.session import TimeControl
from referee.tournament.run import TournamentConfig, run_tournament
from tests.support import SAMPLE_BOTS

TC = TimeControl(move_time_ms=5000, time_bank_ms=10000)


def pooled_bot(tmp_path: Path, name: str = "pooled", per_process: int = 3) -> Path:
    """A copy of the random sample bot whose manifest lets one process play ``per_process`` matches."""
    bot = tmp_path / name
    bot.mkdir()
    shutil.copy(SAMPLE_BOTS / "random" / "bot.py", bot / "bot.py")
    (bot / "bot.toml").write_text(
        f'name = "{name}"\nversion = "1"\nlanguage = "python"\ngames = ["generals-war"]\n'
        f'command = ["python", "bot.py"]\nmatches_per_process = {per_process}\n'
    )
    return bot


def test_the_manifest_field_is_checked(tmp_path: Path) -> None:
    assert load_manifest(SAMPLE_BOTS / "generals_war_greedy").matches_per_process == 1
    assert load_manifest(pooled_bot(tmp_path)).matches_per_process == 3
    bad = pooled_bot(tmp_path, "bad")
    (bad / "bot.toml").write_text((bad / "bot.toml").read_text().replace("matches_per_process = 3", "matches_per_process = 0"))
    with pytest.raises(ManifestError, match="matches_per_process"):
        load_manifest(bad)


def test_a_pooled_process_plays_several_matches_but_never_the_same_deal_twice(tmp_path: Path) -> None:
    bot = pooled_bot(tmp_path)

    async def main() -> tuple[list[int], list[int], int]:
        pool = BotPool(tmp_path / "logs")
        started = []
        clean = []
        try:
            for seed in (1, 2, 2, 3):  # the second seed 2 is the same deal: it needs processes that have not seen it
                setup = MatchSetup("generals-war", [bot, bot], seed, {}, TC, tmp_path / "logs")
                match = await run_local_match(setup, pool=pool)
                started.append(pool.started)
                clean.append(sum(1 for s in match.record.result.seats if not s.forfeited and not s.verdicts))
            for r in pool.residents:
                assert r.played <= 3
            deals_per_process = [len(r.deals) == r.played for r in pool.residents]
            return started, clean, all(deals_per_process)
        finally:
            await pool.close()

    started, clean, distinct = asyncio.run(main())
    assert clean == [2, 2, 2, 2]
    assert started == [2, 2, 4, 4]  # match 3 repeats match 2's deal: two fresh processes
    assert distinct


def test_a_process_retires_after_its_matches(tmp_path: Path) -> None:
    bot = pooled_bot(tmp_path, per_process=2)

    async def main() -> int:
        pool = BotPool(tmp_path / "logs")
        try:
            for seed in (1, 2, 3):
                await run_local_match(MatchSetup("generals-war", [bot, bot], seed, {}, TC, tmp_path / "logs"), pool=pool)
            return pool.started
        finally:
            await pool.close()

    assert asyncio.run(main()) == 4


def test_a_tournament_uses_the_pool_and_gets_the_same_standings(tmp_path: Path) -> None:
    a, b = pooled_bot(tmp_path, "a", 10), pooled_bot(tmp_path, "b", 10)
    config = TournamentConfig("generals-war", [a, b], games=4, seed=5, time_control=TC, log_dir=tmp_path / "logs")
    result = asyncio.run(run_tournament(config))
    assert len(result.games) == 4
    assert not any(any(g.forfeited) for g in result.games)
