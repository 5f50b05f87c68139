"""The gate of the ladder's submissions (ladder/admission.py, its use in ladder/api.py ``upload``): a turn to validate
is taken once the upload is read, not while its bytes are still coming."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from ladder.admission import VALIDATIONS_AT_ONCE
from tests.ladder.conftest import LadderFixture, until
from tests.ladder.test_submissions import BOT_PY, archive, manifest


def test_uploads_still_arriving_hold_no_turn_to_validate(ladder: LadderFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    """Uploads over a slow line (as many as there are turns) held every turn while their bytes trickled in: no
    other owner's complete upload was validated until they had all arrived."""
    import httpx

    import ladder.submissions as submissions
    from ladder.api import LadderState, create_app

    app = create_app(LadderState(ladder.make, ladder.ladder.store, ladder.ladder.config.data_dir))
    slow_owners = [ladder.user(f"slow{i}") for i in range(VALIDATIONS_AT_ONCE)]
    quick = ladder.user("quick")

    async def scenario() -> None:
        validated: list[str] = []
        reading: list[str] = []  # the uploads whose first bytes were read and whose rest is asked for
        rest = asyncio.Event()

        async def validation(bot_dir: Path, *args: object, **kwargs: object) -> tuple[str, str]:
            validated.append(bot_dir.parent.name)
            return "", ""

        monkeypatch.setattr(submissions, "validation_matches", validation)

        def trickle(name: str) -> Callable[[], AsyncIterator[bytes]]:
            data = archive(("bot.toml", manifest(name)), ("bot.py", BOT_PY))

            async def body() -> AsyncIterator[bytes]:
                yield data[:10]
                reading.append(name)
                await rest.wait()  # the rest of the archive comes later
                yield data[10:]

            return body

        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://ladder") as client:
            slow = [asyncio.ensure_future(client.post("/api/bots", content=trickle(f"slow-{i}")(), headers=owner)) for i, owner in enumerate(slow_owners)]
            await until("the slow uploads to be read", lambda: len(reading) == VALIDATIONS_AT_ONCE)
            async with asyncio.timeout(60):  # waiting for a turn the slow uploads hold, it would time out
                reply = await client.post("/api/bots", content=archive(("bot.toml", manifest("quick-one")), ("bot.py", BOT_PY)), headers=quick)
            assert reply.status_code == 201, reply.text
            assert validated == ["quick-one"] and not any(s.done() for s in slow)
            rest.set()
            answers = await asyncio.gather(*slow)
            assert [a.status_code for a in answers] == [201] * VALIDATIONS_AT_ONCE, [a.text for a in answers]

    asyncio.run(scenario())


def test_an_upload_holds_no_database_connection_while_it_arrives_or_is_validated(ladder: LadderFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    """The owner's token was looked up in a session that stayed open for the whole request: each upload arriving over
    a slow line, waiting for its turn or being validated held one of the pool's 15 connections, and a deadline's
    rush of uploads left none for the pages, the scheduler or the leases of the matches in play."""
    import httpx

    import ladder.submissions as submissions
    from ladder.api import LadderState, create_app

    app = create_app(LadderState(ladder.make, ladder.ladder.store, ladder.ladder.config.data_dir))
    pool = ladder.make.kw["bind"].pool
    owner = ladder.user("patient")

    async def scenario() -> None:
        held: dict[str, int] = {}
        arriving, rest = asyncio.Event(), asyncio.Event()

        async def validation(bot_dir: Path, *args: object, **kwargs: object) -> tuple[str, str]:
            held["validating"] = pool.checkedout()
            return "", ""

        monkeypatch.setattr(submissions, "validation_matches", validation)
        data = archive(("bot.toml", manifest("patient-bot")), ("bot.py", BOT_PY))

        async def body() -> AsyncIterator[bytes]:
            yield data[:10]
            arriving.set()  # the ladder has read the first bytes and waits for the rest
            await rest.wait()
            yield data[10:]

        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://ladder") as client:
            upload = asyncio.ensure_future(client.post("/api/bots", content=body(), headers=owner))
            async with asyncio.timeout(10):
                await arriving.wait()
            held["arriving"] = pool.checkedout()
            rest.set()
            reply = await upload
        assert reply.status_code == 201, reply.text
        assert held == {"arriving": 0, "validating": 0}

    asyncio.run(scenario())
