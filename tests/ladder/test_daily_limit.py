"""How many versions an owner may submit in a day (ladder/submissions.py ``SUBMISSIONS_PER_DAY``)."""

from __future__ import annotations

import asyncio
import time

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update

from ladder.accounts import add_user
from ladder.api import LadderState, create_app
from ladder.models import BotVersion, User
from ladder.upload import Limits
from ladder.submissions import DAY, LADDER_FAILED, SUBMISSIONS_PER_DAY, DailyLimit, SubmissionRefused, check_daily_limit, submit
from tests.ladder.conftest import LadderFixture
from tests.ladder.test_submissions import BOT_PY, archive, manifest


def bot(name: str) -> bytes:
    return archive(("bot.toml", manifest(name)), ("bot.py", BOT_PY))


def test_past_the_daily_limit_a_submission_is_a_429_before_its_upload_is_read(ladder: LadderFixture) -> None:
    """An owner submitting in a loop filled the bot store: every version is kept, up to 8 MiB each."""
    app = create_app(LadderState(ladder.make, ladder.ladder.store, ladder.ladder.config.data_dir, validate=False, per_day=2))
    with TestClient(app) as client:
        owner, other = ladder.user("looper"), ladder.user("other")
        assert [client.post("/api/bots", content=bot(name), headers=owner).status_code for name in ("one", "two")] == [201, 201]
        refused = client.post("/api/bots", content=bot("three"), headers=owner)
        assert refused.status_code == 429, refused.text
        assert "2 versions in the last 24 hours" in refused.json()["detail"] and "24 h 0 min" in refused.json()["detail"]
        assert DAY - 60 < int(refused.headers["Retry-After"]) <= DAY
        with ladder.make() as db:
            assert sorted(db.scalars(select(BotVersion.path))) == ["one/1", "two/1"], "nothing of the third kept"
        too_big = client.post("/api/bots", content=b"\0" * (Limits().archive_bytes + 1), headers=owner)
        assert too_big.status_code == 429, "refused before its body is read (as it would be past the size limit: 413)"
        assert client.post("/api/bots", content=bot("theirs"), headers=other).status_code == 201, "each owner has a limit"
        with ladder.make() as db:  # the first version a day old: it no longer counts
            first = db.scalars(select(BotVersion).where(BotVersion.path == "one/1")).one()
            first.created_at = time.time() - DAY - 1
            db.commit()
        assert client.post("/api/bots", content=bot("three"), headers=owner).status_code == 201
        assert client.post("/api/bots", content=bot("four"), headers=owner).status_code == 429


def test_the_ladders_own_failures_do_not_count_and_zero_is_no_limit(ladder: LadderFixture) -> None:
    with ladder.make() as db:
        add_user(db, "unlucky")
        owner = db.scalars(select(User).where(User.name == "unlucky")).one()
    asyncio.run(submit(ladder.make, ladder.ladder.store, owner, bot("first"), validate=False, per_day=1))
    with ladder.make() as db:
        with pytest.raises(DailyLimit):
            check_daily_limit(db, owner.id, 1, time.time())
        check_daily_limit(db, owner.id, 0, time.time())
        db.execute(update(BotVersion).values(status="rejected", reason=LADDER_FAILED))
        check_daily_limit(db, owner.id, 1, time.time())
        db.execute(update(BotVersion).values(status="validating", reason=""))
        db.commit()
    ladder.ladder._clear_interrupted_validations()  # a ladder killed while it validated, started again
    with ladder.make() as db:
        assert db.scalars(select(BotVersion.status)).one() == "rejected"
        check_daily_limit(db, owner.id, 1, time.time())
        db.execute(update(BotVersion).values(reason="crashed in its validation match"))
        submitted = db.scalars(select(BotVersion.created_at)).one()
        with pytest.raises(DailyLimit) as refused:  # a bot the validation rejected counts: it was played
            check_daily_limit(db, owner.id, 1, submitted + DAY - 90)
        assert refused.value.headers == {"Retry-After": "90"} and str(refused.value).endswith("the next is taken in 2 min")
        check_daily_limit(db, owner.id, 1, submitted + DAY)


def test_two_uploads_at_once_cannot_both_take_the_last_place(ladder: LadderFixture) -> None:
    """The count is made as the version is registered, with no await between it and the new row."""
    with ladder.make() as db:
        add_user(db, "twice")
        owner = db.scalars(select(User).where(User.name == "twice")).one()

    async def both() -> list[object]:
        store = ladder.ladder.store
        return await asyncio.gather(
            *(submit(ladder.make, store, owner, bot(name), validate=False, per_day=1) for name in ("left", "right")), return_exceptions=True
        )

    outcomes = asyncio.run(both())
    assert sorted(type(o).__name__ for o in outcomes) == ["DailyLimit", "Outcome"], outcomes
    with ladder.make() as db:
        assert len(db.scalars(select(BotVersion)).all()) == 1
    assert all(not isinstance(o, SubmissionRefused) or o.status == 429 for o in outcomes)


def test_the_serve_commands_default_is_the_ladders() -> None:
    """`arena ladder serve` writes the default out (importing the ladder costs every command a second)."""
    import inspect

    from arena.cli.ladder import serve

    assert inspect.signature(serve).parameters["submissions_per_day"].default == SUBMISSIONS_PER_DAY


def test_the_wait_is_until_the_oldest_of_the_last_per_day_versions_is_a_day_old(ladder: LadderFixture) -> None:
    """Three versions in the window and a limit of two (lowered since): the next is taken once two of them have aged out,
    not the first (too soon) nor the last (too late)."""
    with ladder.make() as db:
        add_user(db, "steady")
        owner = db.scalars(select(User).where(User.name == "steady")).one()
    for name in ("a", "b", "c"):
        asyncio.run(submit(ladder.make, ladder.ladder.store, owner, bot(name), validate=False))
    now = float(int(time.time()))  # whole seconds: the wait is exact
    with ladder.make() as db:
        for version, hours_ago in zip(db.scalars(select(BotVersion).order_by(BotVersion.id)), (20, 10, 1)):
            version.created_at = now - hours_ago * 3600
        db.commit()
        with pytest.raises(DailyLimit) as refused:
            check_daily_limit(db, owner.id, 2, now)
    assert refused.value.headers == {"Retry-After": str(14 * 3600)}
