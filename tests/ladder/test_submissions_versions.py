"""A bot's versions through validation: what becomes active, what is rejected, and what is kept in the store."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from sqlalchemy import select

from ladder.models import BotVersion
from tests.ladder.conftest import LadderFixture
from tests.ladder.test_submissions import BOT_PY, archive, left_in_store, manifest
from tests.support import SAMPLE_BOTS

CRASHING_PY = b"import sys\nsys.exit('crashing on purpose')\n"


def versions(ladder: LadderFixture) -> list[tuple[int, str, str]]:
    with ladder.make() as db:
        return [(v.seq, v.version, v.status) for v in db.scalars(select(BotVersion).order_by(BotVersion.seq))]


def test_a_version_that_cannot_be_validated_for_want_of_the_sandbox_is_the_ladders_failure(
    ladder: LadderFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ladder whose Docker sandbox broke (its image removed, the engine down) rejected every version as if the bot had
    failed ("generals-war: the sandbox image ... is missing"), and counted it towards its owner's daily limit."""
    import referee.server.runner as runner
    from ladder.submissions import NOT_COUNTED
    from referee.server.sandbox import SandboxError

    def broken(sandbox: str, pin_cpus: bool = False) -> object:
        raise SandboxError("the sandbox image arena-sandbox is missing; build it with `arena sandbox build`")

    monkeypatch.setattr(runner, "launcher_for", broken)
    reply = ladder.client.post("/api/bots", content=archive(("bot.toml", manifest("stranded")), ("bot.py", BOT_PY)), headers=ladder.user("sara"))
    assert reply.status_code == 503 and "submit again" in reply.json()["detail"], reply.text
    assert "arena sandbox build" not in reply.text, "the ladder's trouble is for its operator's log"
    with ladder.make() as db:
        (version,) = db.scalars(select(BotVersion)).all()
        assert version.status == "rejected" and version.reason in NOT_COUNTED
    assert left_in_store(ladder) == [".staging", ".validation"]


def test_a_validation_match_the_ladders_random_bot_failed_too_is_the_ladders_failure(
    ladder: LadderFixture, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Both seats crashing (a machine too loaded to answer, the ladder's own bot broken) was the submitted bot's rejection."""
    import shutil

    import ladder.submissions as submissions
    from ladder.submissions import NOT_COUNTED

    samples = tmp_path / "samples"
    shutil.copytree(SAMPLE_BOTS / "random", samples / "random", ignore=shutil.ignore_patterns("__pycache__"))
    (samples / "random" / "bot.py").write_bytes(CRASHING_PY)
    monkeypatch.setattr(submissions, "SAMPLE_BOTS", samples)
    owner = ladder.user("uma")
    reply = ladder.client.post("/api/bots", content=archive(("bot.toml", manifest("unlucky")), ("bot.py", CRASHING_PY)), headers=owner)
    assert reply.status_code == 503 and "submit again" in reply.json()["detail"], reply.text
    with ladder.make() as db:
        (version,) = db.scalars(select(BotVersion)).all()
        assert version.status == "rejected" and version.reason in NOT_COUNTED
    # The ladder's bot sound again, the same crashing bot is the one to blame.
    monkeypatch.setattr(submissions, "SAMPLE_BOTS", SAMPLE_BOTS)
    reply = ladder.client.post("/api/bots", content=archive(("bot.toml", manifest("unlucky")), ("bot.py", CRASHING_PY)), headers=owner)
    assert reply.status_code == 422 and "the validation match of generals-war failed: crash" in reply.json()["reason"], reply.text


@pytest.mark.parametrize("engine_up", [True, False])
def test_a_validation_match_lost_with_the_docker_engine_is_the_ladders_failure(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, engine_up: bool) -> None:
    """A Docker engine that went down mid-validation killed the bot's container: that read as the bot crashing."""
    import dataclasses

    import ladder.submissions as submissions
    import referee.server.sandbox as sandbox
    from referee.server.runner import LocalMatch, MatchSetup, run_local_match
    from referee.server.sandbox import SandboxError

    async def in_processes(setup: MatchSetup) -> LocalMatch:  # the match as Docker played it until the engine went away
        return await run_local_match(dataclasses.replace(setup, sandbox="process"))

    checked: list[str] = []

    def launcher() -> object:
        checked.append("engine")
        if not engine_up:
            raise SandboxError("no Docker engine can be reached (connection refused); start dockerd, or use --sandbox process")
        return object()

    monkeypatch.setattr(submissions, "run_local_match", in_processes)
    monkeypatch.setattr(sandbox, "DockerLauncher", launcher)
    bot = tmp_path / "crasher"
    bot.mkdir()
    (bot / "bot.toml").write_text(manifest("crasher"))
    (bot / "bot.py").write_bytes(CRASHING_PY)
    if engine_up:
        reason, _ = asyncio.run(submissions.validation_matches(bot, ["generals-war"], tmp_path / "logs", "docker"))
        assert reason.startswith("the validation match of generals-war failed: crash"), reason
    else:
        with pytest.raises(SandboxError, match="no Docker engine"):
            asyncio.run(submissions.validation_matches(bot, ["generals-war"], tmp_path / "logs", "docker"))
    assert checked == ["engine"]


def test_a_new_version_that_fails_validation_is_rejected_and_leaves_the_active_one_alone(ladder: LadderFixture) -> None:
    """Its folder is removed, not the bot's (which holds the active version), and no validation files stay behind."""
    owner = ladder.user("nina")

    def send(version: str, bot_py: bytes) -> dict[str, object]:
        reply = ladder.client.post("/api/bots", content=archive(("bot.toml", manifest("steady", version)), ("bot.py", bot_py)), headers=owner)
        assert reply.status_code in (201, 422), reply.text
        return dict(reply.json())

    assert send("1.0", BOT_PY)["accepted"]
    assert left_in_store(ladder) == [".staging", ".validation", "steady", "steady/1", "steady/1/bot.py", "steady/1/bot.toml"]
    failed = send("2.0", CRASHING_PY)
    assert not failed["accepted"] and str(failed["reason"]).startswith("the validation match of generals-war failed: crash")
    assert versions(ladder) == [(1, "1.0", "active"), (2, "2.0", "rejected")]
    assert left_in_store(ladder) == [".staging", ".validation", "steady", "steady/1", "steady/1/bot.py", "steady/1/bot.toml"]
    # The rejected version never joined the ladder: its version string is free, and no earlier "#2" is named.
    fixed = send("2.0", BOT_PY)
    assert fixed["accepted"] and fixed["reason"] == "", fixed
    assert versions(ladder) == [(1, "1.0", "retired"), (2, "2.0", "rejected"), (3, "2.0", "active")]


def test_a_passing_bots_log_keeps_its_end(ladder: LadderFixture, tmp_path: Path) -> None:
    """As a rejected bot's does: a log past LOG_CAP is cut from its start."""
    from ladder.submissions import LOG_CAP, validation_matches

    bot = tmp_path / "chatty"
    bot.mkdir()
    (bot / "bot.toml").write_text(manifest("chatty"))
    future = b"from __future__ import annotations\n"
    chatter = f"import sys\nsys.stderr.write('chatter\\n' * {LOG_CAP // 8 + 1000})\n".encode()
    (bot / "bot.py").write_bytes(BOT_PY.replace(future, future + chatter, 1))
    reason, log = asyncio.run(validation_matches(bot, ["generals-war"], tmp_path / "logs"))
    assert reason == "" and len(log) == LOG_CAP
    assert "match over" in log[-200:] and "validation match, generals-war" not in log, "the start is what was cut"
    assert not (tmp_path / "logs").exists(), "the match's files are removed once read"


def test_each_validation_match_seats_the_bot_against_one_random_bot(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The fewest players each game takes (a four-seat table of General's War is for the ladder's own matches)."""
    import ladder.submissions as submissions
    from referee.server.runner import LocalMatch, MatchSetup, run_local_match

    real = run_local_match
    seated: list[tuple[str, list[Path]]] = []

    async def recording(setup: MatchSetup) -> LocalMatch:
        seated.append((setup.game, list(setup.bot_dirs)))
        return await real(setup)

    monkeypatch.setattr(submissions, "run_local_match", recording)
    bot = SAMPLE_BOTS / "random"
    reason, _ = asyncio.run(submissions.validation_matches(bot, ["generals-war", "glory"], tmp_path / "logs"))
    assert reason == ""
    assert seated == [("generals-war", [bot, SAMPLE_BOTS / "random"]), ("glory", [bot, SAMPLE_BOTS / "random"])]


def enter_samples_unvalidated(ladder: LadderFixture, monkeypatch: pytest.MonkeyPatch, samples: Path | None = None) -> None:
    """``register_samples`` as at a start (with ``samples`` as Arena's sample bots), the validation matches left out."""
    import ladder.service as service
    from ladder.submissions import submit

    async def unvalidated(make: object, store: Path, owner: object, data: bytes, **kwargs: object) -> object:
        return await submit(make, store, owner, data, validate=False)  # type: ignore[arg-type]

    monkeypatch.setattr(service, "submit", unvalidated)
    if samples is not None:
        monkeypatch.setattr(service, "SAMPLE_BOTS", samples)
    asyncio.run(service.register_samples(ladder.make, ladder.ladder.store, ["generals-war"]))


def test_only_the_python_samples_of_the_ladders_games_are_entered(
    ladder: LadderFixture, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Not another game's samples, nor those that need a build (TypeScript, C++): none is tried and logged as refused."""
    enter_samples_unvalidated(ladder, monkeypatch)
    with ladder.make() as db:
        entered = sorted(v.path.split("/")[0] for v in db.scalars(select(BotVersion)))
    assert entered == ["gw-greedy", "random"]
    assert "was not entered" not in caplog.text


def test_each_upgrade_of_a_sample_replaces_it_and_a_downgrade_does_not(ladder: LadderFixture, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A second upgrade was taken for a withdrawal (a version retired), and an older version shipped again would have
    retired the newer one on the ladder."""
    import shutil

    samples = tmp_path / "sample_bots"
    shutil.copytree(SAMPLE_BOTS / "generals_war_greedy", samples / "generals_war_greedy")
    toml = samples / "generals_war_greedy" / "bot.toml"
    shipped = toml.read_text()
    assert 'version = "1.0.0"' in shipped
    for version in ("1.0.0", "1.0.1", "1.0.2", "1.0.1"):
        toml.write_text(shipped.replace('version = "1.0.0"', f'version = "{version}"'))
        enter_samples_unvalidated(ladder, monkeypatch, samples)
    assert versions(ladder) == [(1, "1.0.0", "retired"), (2, "1.0.1", "retired"), (3, "1.0.2", "active")]


def test_a_stale_link_in_staging_is_removed_and_what_it_points_to_is_not(tmp_path: Path) -> None:
    import os
    import time

    from ladder.submissions import clear_stale_uploads

    store, elsewhere = tmp_path / "bots", tmp_path / "elsewhere"
    (store / ".staging").mkdir(parents=True)
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("x")
    link = store / ".staging" / "old"
    link.symlink_to(elsewhere)
    hour_ago = time.time() - 3600
    os.utime(link, (hour_ago, hour_ago), follow_symlinks=False)
    assert clear_stale_uploads(store) == 1
    assert not os.path.lexists(link) and (elsewhere / "keep.txt").read_text() == "x"


def test_an_active_versions_folder_without_its_manifest_is_missing_from_the_store(ladder: LadderFixture) -> None:
    """A store restored in part (the folders, not their files) is no store for the ladder to hand matches from."""
    from ladder.submissions import missing_from_store
    from tests.ladder.conftest import enter

    enter(ladder.ladder, [SAMPLE_BOTS / "random"], validate=False)
    assert missing_from_store(ladder.make, ladder.ladder.store) == ([], 1)
    (ladder.ladder.store / "random" / "1" / "bot.toml").unlink()
    assert missing_from_store(ladder.make, ladder.ladder.store) == (["random 1.0.0"], 1)
