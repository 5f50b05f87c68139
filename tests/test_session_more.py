"""The referee session, more: what arrives outside the match's run."""

from __future__ import annotations

import asyncio

from arena.v1 import referee_pb2 as pb
from referee.games.generals_war import GeneralsWar
from referee.server.session import MatchSession
from tests.test_session import FAST, Scripted, silent


def test_messages_sent_before_the_match_starts_are_refused_at_once_not_kept() -> None:
    """A bot that connected first and sent answers while the others had yet to connect (15 s, 300 s for `arena referee
    serve`) had every message kept in the session's queue, 64 KiB each at most, with no limit: nothing counted them as
    refused, so the stream's flood pause never began either. No request is pending then: each is stale at once."""

    async def go() -> tuple[int, int, list[int]]:
        session = MatchSession(GeneralsWar(2, 1), ["a", "b"], FAST)
        link = Scripted(session, 0, silent)
        session.attach(session.tokens()[0], link)
        answer = pb.BotMessage(action=pb.ActionResponse(request_id=1, note="x" * 1000))
        for _ in range(1000):
            session.post(0, link, answer)
        return len(session.inbox), session.seats[0].refused, [e.code for e in link.of("error")]

    queued, refused, errors = asyncio.run(go())
    assert queued == 1, "only the seat's attach waits for the match"
    assert refused == 1000 and errors == [pb.STALE_REQUEST] * 1000
