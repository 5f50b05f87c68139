"""How many submissions the ladder takes at once: a few per owner, and a few validated at a time over all owners.

Every upload plays a validation match per game, each with its bot processes (or containers). Without a bound, one
owner's token posting uploads in a loop started as many matches at once as it sent requests, and held each archive in
memory while it waited. Only the ladder that serves a database takes submissions (ladder.hold), so counting them in
its process is enough.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from ladder.submissions import SubmissionRefused

#: Submissions one owner may have in progress at once (uploading, waiting or validating); the next is answered 429.
OPEN_SUBMISSIONS = 2
#: Submissions validated at once over all owners; the others wait their turn, their uploads held open.
VALIDATIONS_AT_ONCE = 2


class TooManySubmissions(SubmissionRefused):
    """An owner who already has OPEN_SUBMISSIONS submissions in progress."""

    def __init__(self, open_now: int) -> None:
        super().__init__(429, f"{open_now} submissions of yours are in progress already; submit again once one is answered")


class Admission:
    """The gate of the ladder's submissions: ``owner`` around reading an upload and answering it, ``turn`` around its work."""

    def __init__(self, per_owner: int = OPEN_SUBMISSIONS, at_once: int = VALIDATIONS_AT_ONCE) -> None:
        self.per_owner = per_owner
        self.open: Counter[int] = Counter()
        self._turns = asyncio.Semaphore(at_once)

    @asynccontextmanager
    async def owner(self, owner_id: int) -> AsyncIterator[None]:
        """Count a submission of ``owner_id`` while it is in progress; TooManySubmissions when it would pass the limit.

        Entered before the upload is read: a refused one is not held in memory first."""
        if self.open[owner_id] >= self.per_owner:
            raise TooManySubmissions(self.open[owner_id])
        self.open[owner_id] += 1
        try:
            yield
        finally:
            self.open[owner_id] -= 1
            if not self.open[owner_id]:
                del self.open[owner_id]

    @asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        """Wait until fewer than ``at_once`` submissions are being unpacked and validated, then hold a place."""
        async with self._turns:
            yield
