"""What a challenge may be (ladder/scheduler.py ``challenge``): between active bots, in a game both play, head to head."""

from __future__ import annotations

import random

import pytest
from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from ladder.models import BotVersion, Match, User
from ladder.scheduler import OPEN_CHALLENGES, ScheduleError, challenge, fill_queue
from ladder.worker import claim
from tests.ladder.test_bookkeeping import add_bots, make  # noqa: F401  (the fixture)


def refused(make: sessionmaker[Session], bot: str, opponent: str, game: str) -> str:
    """The reason ``challenge`` gives; and no match queued."""
    with make() as db:
        owner = db.scalars(select(User.id)).one()
        before = db.scalars(select(Match.id)).all()
        with pytest.raises(ScheduleError) as caught:
            challenge(db, owner, bot, opponent, game, seed=1)
        db.rollback()
        assert db.scalars(select(Match.id)).all() == before
    return str(caught.value)


@pytest.mark.parametrize("status", ["suspended", "retired"])
def test_a_bot_without_an_active_version_cannot_be_challenged(make: sessionmaker[Session], status: str) -> None:
    """Its version left matchmaking (forfeits, a withdrawal): a challenge would seat it again. The refusal says so and
    how it comes back: "no active bot named 'bot1'" alone read as a mistyped name to an owner whose bot was retired."""
    _, gone = add_bots(make, ["generals-war"], 2)
    with make() as db:
        db.execute(update(BotVersion).where(BotVersion.id == gone).values(status=status))
        db.commit()
    back = {
        "suspended": " for forfeiting (a new version, or the operator's `arena ladder reinstate`, brings it back)",
        "retired": " (a new version brings it back)",
    }[status]
    said = f"no active bot named 'bot1': its latest version, #1, is {status}{back}"
    assert refused(make, "bot0", "bot1", "generals-war") == said
    assert refused(make, "bot1", "bot0", "generals-war") == said
    assert refused(make, "bot0", "nobody", "generals-war") == "no active bot named 'nobody'"


def test_a_challenge_is_in_a_game_both_bots_play_and_two_can_play(make: sessionmaker[Session]) -> None:
    _, other = add_bots(make, ["generals-war", "assassination"], 2)
    with make() as db:
        db.execute(update(BotVersion).where(BotVersion.id == other).values(games=["assassination"]))
        db.commit()
    assert refused(make, "bot0", "bot1", "generals-war") == "bot1 does not play generals-war"
    assert refused(make, "bot0", "bot1", "assassination") == "assassination is not played by two; challenges are head to head"


def test_a_challenge_being_played_still_holds_its_place_and_is_played_first(make: sessionmaker[Session]) -> None:
    """Its matches go ahead of placements queued before it; and until both are over, it counts as open."""
    add_bots(make, ["generals-war"], 2)
    with make() as db:
        owner = db.scalars(select(User.id)).one()
        fill_queue(db, random.Random(1), target=2, games=["generals-war"])
        sets = [challenge(db, owner, "bot0", "bot1", "generals-war", seed) for seed in range(OPEN_CHALLENGES)]
    assert claim(make, "w", 60) == sets[0][0].id, "a challenge before the placement queued first"
    with make() as db:
        db.execute(update(Match).where(Match.id.in_([m.id for made in sets for m in made])).values(status="running"))
        db.commit()
    assert refused(make, "bot0", "bot1", "generals-war").startswith(f"you have {OPEN_CHALLENGES} challenges waiting or playing")
