"""The bot store keeps the files of each bot's newest retired versions only (ladder/retention.py)."""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import logging
import shutil

import pytest
from sqlalchemy import select, update

from arena.cli.ladder import serve
from ladder.models import Bot, BotVersion, Match, User
from ladder.retention import KEEP_RETIRED, prune_retired
from ladder.scheduler import add_duplicate_set
from ladder.service import PRUNE_EVERY_S
from ladder.submissions import submit, withdraw
from tests.ladder.conftest import LadderFixture
from tests.ladder.test_submissions import BOT_PY, archive, manifest


def versions(ladder: LadderFixture, name: str, count: int, owner: str = "keeper") -> list[int]:
    """Submit ``count`` versions of ``name`` (unvalidated); returns their ids, oldest first."""
    with ladder.make() as db:
        user = db.scalar(select(User).where(User.name == owner))
    if user is None:
        ladder.user(owner)
        with ladder.make() as db:
            user = db.scalars(select(User).where(User.name == owner)).one()
    for i in range(count):
        data = archive(("bot.toml", manifest(name, version=f"{i}")), ("bot.py", BOT_PY))
        asyncio.run(submit(ladder.make, ladder.ladder.store, user, data, validate=False))
    with ladder.make() as db:
        return list(db.scalars(select(BotVersion.id).join(Bot).where(Bot.name == name).order_by(BotVersion.seq)))


def folders(ladder: LadderFixture, name: str) -> list[str]:
    bot = ladder.ladder.store / name
    return sorted(p.name for p in bot.iterdir()) if bot.is_dir() else []


def test_the_oldest_retired_versions_lose_their_folders_and_keep_their_rows(ladder: LadderFixture) -> None:
    ids = versions(ladder, "often", 4)
    versions(ladder, "once", 1)
    assert folders(ladder, "often") == ["1", "2", "3", "4"]
    assert prune_retired(ladder.make, ladder.ladder.store, keep=1) == ["often #2", "often #1"]
    assert folders(ladder, "often") == ["3", "4"], "the newest retired (#3) and the active one (#4) are kept"
    assert folders(ladder, "once") == ["1"]
    with ladder.make() as db:
        assert [db.get_one(BotVersion, i).status for i in ids] == ["retired", "retired", "retired", "active"]
    assert prune_retired(ladder.make, ladder.ladder.store, keep=1) == [], "what is gone is not removed again"
    assert prune_retired(ladder.make, ladder.ladder.store, keep=0) == ["often #3"]
    assert folders(ladder, "often") == ["4"]


def test_a_retired_version_still_to_play_keeps_its_folder_until_its_matches_are_done(ladder: LadderFixture) -> None:
    """A withdrawal or a replacement leaves the matches queued with the version to be played and rated."""
    old, new = versions(ladder, "busy", 2)
    (rival,) = versions(ladder, "rival", 1, owner="other")
    with ladder.make() as db:
        matches = [m.id for m in add_duplicate_set(db, "generals-war", [old, rival], seed=5, kind="rated")]
        db.commit()
    assert prune_retired(ladder.make, ladder.ladder.store, keep=0) == []
    with ladder.make() as db:
        db.execute(update(Match).where(Match.id == matches[0]).values(status="running"))
        db.execute(update(Match).where(Match.id == matches[1]).values(status="done"))
        db.commit()
    assert prune_retired(ladder.make, ladder.ladder.store, keep=0) == [], "one of its matches is still playing"
    with ladder.make() as db:
        db.execute(update(Match).where(Match.id == matches[0]).values(status="failed"))
        db.commit()
    assert prune_retired(ladder.make, ladder.ladder.store, keep=0) == ["busy #1"]
    assert folders(ladder, "busy") == ["2"] and folders(ladder, "rival") == ["1"]


def test_suspended_and_active_versions_and_folders_outside_the_store_are_left_alone(
    ladder: LadderFixture, caplog: pytest.LogCaptureFixture
) -> None:
    first, second, third = versions(ladder, "odd", 3)
    shared, _ = versions(ladder, "twin", 2)
    outside = ladder.tmp / "elsewhere"
    outside.mkdir()
    (outside / "keep.txt").write_text("not the store's")
    with ladder.make() as db:
        db.execute(update(BotVersion).where(BotVersion.id == third).values(status="suspended"))
        # A database edited by hand: a retired row naming a folder outside the store, and one naming the store itself.
        db.execute(update(BotVersion).where(BotVersion.id == first).values(path="../../elsewhere"))
        db.execute(update(BotVersion).where(BotVersion.id == second).values(path="."))
        db.execute(update(BotVersion).where(BotVersion.id == shared).values(path="twin/2"))  # the active one's folder
        db.commit()
    with caplog.at_level(logging.WARNING, logger="ladder.retention"):
        assert prune_retired(ladder.make, ladder.ladder.store, keep=0) == []
    assert (outside / "keep.txt").is_file() and folders(ladder, "odd") == ["1", "2", "3"]
    assert folders(ladder, "twin") == ["1", "2"]
    assert "odd #1: its folder" in caplog.text and "is not in the bot store; left alone" in caplog.text
    assert "odd #2: its folder" in caplog.text


def test_a_withdrawn_bot_keeping_none_leaves_no_folder(ladder: LadderFixture) -> None:
    versions(ladder, "gone", 2)
    with ladder.make() as db:
        assert withdraw(db, None, "gone") == 2
    assert prune_retired(ladder.make, ladder.ladder.store, keep=0) == ["gone #2", "gone #1"]
    assert not (ladder.ladder.store / "gone").exists()


def test_the_scheduler_prunes_as_the_ladder_runs(ladder: LadderFixture, caplog: pytest.LogCaptureFixture) -> None:
    versions(ladder, "ticking", 3)
    ladder.ladder.config = dataclasses.replace(ladder.ladder.config, keep_retired=1, schedule=False)
    with caplog.at_level(logging.INFO, logger="arena.ladder"):
        ladder.ladder._tick()
    assert folders(ladder, "ticking") == ["2", "3"]
    assert "removed the folders of 1 retired versions from the bot store: ticking #1" in caplog.text
    versions(ladder, "ticking", 1)  # #3 retired: #2 is past the one kept
    ladder.ladder._failed_swept_at = -1e9  # the sweep of failed sets, once a minute, is due too
    ladder.ladder._sweep_failed_sets()
    ladder.ladder._tick()
    assert folders(ladder, "ticking") == ["2", "3", "4"], "not again before ten minutes have passed"
    ladder.ladder._pruned -= PRUNE_EVERY_S
    ladder.ladder._tick()
    assert folders(ladder, "ticking") == ["3", "4"]


def test_the_serve_commands_default_is_the_ladders() -> None:
    assert inspect.signature(serve).parameters["keep_retired"].default == KEEP_RETIRED


def test_a_version_folder_replaced_by_a_link_is_left_alone(ladder: LadderFixture, caplog: pytest.LogCaptureFixture) -> None:
    versions(ladder, "linked", 2)
    store = ladder.ladder.store
    shutil.rmtree(store / "linked" / "1")
    (store / "linked" / "1").symlink_to(store / "linked" / "2")
    with caplog.at_level(logging.WARNING, logger="ladder.retention"):
        assert prune_retired(ladder.make, store, keep=0) == []
    assert (store / "linked" / "2" / "bot.py").is_file() and (store / "linked" / "1").is_symlink()
    assert "linked #1: its folder" in caplog.text and "left alone" in caplog.text
