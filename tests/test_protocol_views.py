"""What the views in a bot's decision requests hold, as the .proto comments say, checked over real sessions."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from arena.v1 import referee_pb2 as pb
from referee.games.registry import GAMES
from referee.server.session import MatchSession, TimeControl
from tests.test_session import Scripted, driver_answers

#: No timeouts: every answer is the random bot's.
SLOW = TimeControl(move_time_ms=600_000, time_bank_ms=0, strike_limit=0, connect_timeout_ms=60_000)


def requests(game_id: str, n: int, seed: int) -> list[pb.DecisionRequest]:
    """Every decision request sent to any seat in a match of random bots."""

    async def go() -> list[Scripted]:
        session = MatchSession(GAMES[game_id](n, seed), [f"b{i}" for i in range(n)], SLOW)
        links = [Scripted(session, i, driver_answers(seed * 10 + i)) for i in range(n)]
        for link, token in zip(links, session.tokens()):
            session.attach(token, link)
        await session.run()
        return links

    return [d for link in asyncio.run(go()) for d in link.of("decision")]


@pytest.mark.parametrize("seed", [1, 2])
def test_an_assassination_request_never_shows_a_card_played_face_down(seed: int) -> None:
    """View.played_card is unset in every request: the referee holds simultaneous answers until every seat asked has
    answered, so no seat is asked while its card lies face down (the replay's views between plays show it)."""
    sent = requests("assassination", 4, seed)
    kinds = {d.decision.assassination.WhichOneof("kind") for d in sent}
    assert {"movement_choice", "event_choice"} <= kinds  # the simultaneous plays were asked
    assert not [d.request_id for d in sent if d.view.assassination.HasField("played_card")]


@pytest.mark.parametrize("n", [2, 4])
def test_a_generals_war_request_never_shows_the_seats_own_squad(n: int) -> None:
    """View.squad is empty in every request: a seat places its squad only when asked to, and is not asked again until
    the battle turns it over."""
    sent = requests("generals-war", n, 3)
    assert any(d.decision.generals_war.WhichOneof("kind") == "squad_choice" and not d.decision.generals_war.squad_choice.attacking for d in sent)
    assert not [d.request_id for d in sent if d.view.generals_war.squad]


def test_the_views_between_the_plays_of_one_choice_do_show_them() -> None:
    """The other side of the two tests above: the game's own view holds the face-down card and squad (a replay shows
    them), so it is the referee's holding the answers that keeps them out of requests."""
    game: Any = GAMES["assassination"](4, 1)
    while game.to_act() and len(game.to_act()) < 2:
        seat = game.to_act()[0]
        game.apply(seat, game.default_action(seat))
    first = game.to_act()[0]
    game.apply(first, game.default_action(first))
    assert game.view(first).played_card is not None
    war: Any = GAMES["generals-war"](2, 1)
    while war.phase.name != "DEFEND":
        seat = war.to_act()[0]
        war.apply(seat, war.default_action(seat))
    assert war.view(war.attacker).squad
