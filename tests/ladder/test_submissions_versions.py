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

    def broken(sandbox: str) -> object:
        raise SandboxError("the sandbox image arena-sandbox is missing; build it with `arena sandbox build`")

    monkeypatch.setattr(runner, "launcher_for", broken)
    reply = ladder.client.post("/api/bots", content=archive(("bot.toml", manifest("stranded")), ("bot.py", BOT_PY)), headers=ladder.user("sara"))
    assert reply.status_code == 503 and "submit again" in reply.json()["detail"], reply.text
    assert "arena sandbox build" not in reply.text, "the ladder's trouble is for its operator's log"
    with ladder.make() as db:
        (version,) = db.scalars(select(BotVersion)).all()
        assert version.status == "rejected" and version.reason in NOT_COUNTED
    assert left_in_store(ladder) == [".staging", ".validation"]
