"""The gate of the ladder's submissions (ladder/admission.py, its use in ladder/api.py ``upload``): a turn to validate
is taken once the upload is read, not while its bytes are still coming."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from ladder.admission import VALIDATIONS_AT_ONCE
from tests.ladder.conftest import LadderFixture
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
        rest = asyncio.Event()

        async def validation(bot_dir: Path, *args: object, **kwargs: object) -> tuple[str, str]:
            validated.append(bot_dir.parent.name)
            return "", ""

        monkeypatch.setattr(submissions, "validation_matches", validation)

        def trickle(name: str) -> Callable[[], AsyncIterator[bytes]]:
            data = archive(("bot.toml", manifest(name)), ("bot.py", BOT_PY))

            async def body() -> AsyncIterator[bytes]:
                yield data[:10]
                await rest.wait()  # the rest of the archive comes later
                yield data[10:]

            return body

        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://ladder") as client:
            slow = [asyncio.ensure_future(client.post("/api/bots", content=trickle(f"slow-{i}")(), headers=owner)) for i, owner in enumerate(slow_owners)]
            await asyncio.sleep(0.3)  # both started and reading
            async with asyncio.timeout(10):  # waiting for a turn the slow uploads hold, it would time out
                reply = await client.post("/api/bots", content=archive(("bot.toml", manifest("quick-one")), ("bot.py", BOT_PY)), headers=quick)
            assert reply.status_code == 201, reply.text
            assert validated == ["quick-one"] and not any(s.done() for s in slow)
            rest.set()
            answers = await asyncio.gather(*slow)
            assert [a.status_code for a in answers] == [201] * VALIDATIONS_AT_ONCE, [a.text for a in answers]

    asyncio.run(scenario())
