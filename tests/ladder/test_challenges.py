"""Challenges: never against oneself, a few open at a time per owner, unrated; a set that cannot be rated holds up nothing."""

from __future__ import annotations

import asyncio
import logging

import pytest
from sqlalchemy import func, select, update

from ladder.models import BotVersion, Match, MatchSeat, Rating, RatingChange
from ladder.scheduler import OPEN_CHALLENGES, add_duplicate_set
from tests.ladder.conftest import LadderFixture, enter
from tests.support import SAMPLE_BOTS

GREEDY = SAMPLE_BOTS / "generals_war_greedy"
RANDOM = SAMPLE_BOTS / "random"
GAME = "generals-war"


def two_bots(ladder: LadderFixture) -> dict[str, str]:
    """gw-greedy and random, entered without validation; the headers of their owner."""
    enter(ladder.ladder, [GREEDY, RANDOM], validate=False)
    from ladder.accounts import hash_token
    from ladder.models import Bot, User

    with ladder.make() as db:  # a token for the owner enter() made
        owner = db.get_one(User, db.scalars(select(Bot.owner_id).where(Bot.name == "gw-greedy")).one())
        owner.token_hash = hash_token("arena_test-owner")
        db.commit()
    return {"Authorization": "Bearer arena_test-owner"}


def ask(ladder: LadderFixture, headers: dict[str, str], bot: str, opponent: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    reply = ladder.client.post("/api/challenges", json={"bot": bot, "opponent": opponent, "game": GAME}, headers=headers)
    return reply.status_code, reply.json()


def test_a_bot_cannot_challenge_itself(ladder: LadderFixture) -> None:
    """It was accepted (201); its match then failed on a duplicate rating change, with the SQL error shown publicly."""
    owner = two_bots(ladder)
    status, body = ask(ladder, owner, "gw-greedy", "gw-greedy")
    assert status == 422 and body["detail"] == "a bot cannot challenge itself"
    unknown = ladder.client.post("/api/challenges", json={"bot": "gw-greedy", "opponent": "random", "game": "nosuch"}, headers=owner)
    assert unknown.status_code == 404 and unknown.json()["detail"] == "unknown game 'nosuch'", "as for its standings"
    with ladder.make() as db:
        assert db.scalars(select(Match)).all() == []


def test_an_owner_has_a_few_open_challenges_at_a_time(ladder: LadderFixture) -> None:
    """Challenges go ahead of every other match: unlimited, one owner could hold up the whole ladder."""
    owner = two_bots(ladder)
    made = [ask(ladder, owner, "gw-greedy", "random") for _ in range(OPEN_CHALLENGES)]
    assert [status for status, _ in made] == [201] * OPEN_CHALLENGES
    status, body = ask(ladder, owner, "random", "gw-greedy")
    assert status == 429 and f"at most {OPEN_CHALLENGES}" in body["detail"]
    other = ladder.user("other")
    with ladder.make() as db:
        db.execute(update(Match).where(Match.id.in_(made[0][1]["matches"])).values(status="done"))
        db.commit()
    assert ask(ladder, owner, "random", "gw-greedy")[0] == 201, "a finished challenge frees its place"
    assert ask(ladder, owner, "random", "gw-greedy")[0] == 429
    assert ask(ladder, other, "random", "gw-greedy")[1]["detail"] == "you do not own random"


def test_challenges_are_not_rated(ladder: LadderFixture) -> None:
    from ladder.worker import rate_set

    owner = two_bots(ladder)
    ids = ask(ladder, owner, "gw-greedy", "random")[1]["matches"]
    with ladder.make() as db:
        before = [(r.mu, r.sigma, r.games) for r in db.scalars(select(Rating).order_by(Rating.id))]
        for match_id in ids:
            db.execute(update(Match).where(Match.id == match_id).values(status="done"))
            for seat in db.scalars(select(MatchSeat).where(MatchSeat.match_id == match_id)):
                seat.rank = seat.seat + 1
        db.commit()
        assert not rate_set(db, db.get_one(Match, ids[1]))
        db.commit()
        assert [(r.mu, r.sigma, r.games) for r in db.scalars(select(Rating).order_by(Rating.id))] == before
        assert not db.scalars(select(RatingChange)).all()


def test_a_set_that_cannot_be_rated_is_logged_once_and_skipped(ladder: LadderFixture, caplog: pytest.LogCaptureFixture) -> None:
    """A self-play set (its ratings clash) stopped every sweep at the same set and logged it every five seconds."""
    from ladder.worker import rate_settled_sets

    two_bots(ladder)
    with ladder.make() as db:
        a, b = db.scalars(select(BotVersion.id).order_by(BotVersion.id)).all()
        stuck = add_duplicate_set(db, GAME, [a, a], 1, "rated")  # what a self-challenge made
        fine = add_duplicate_set(db, GAME, [a, b], 2, "rated")
        for done, failed in (stuck, fine):
            db.execute(update(Match).where(Match.id == done.id).values(status="done", finished_at=done.id))
            db.execute(update(Match).where(Match.id == failed.id).values(status="failed", finished_at=failed.id))
            for seat in db.scalars(select(MatchSeat).where(MatchSeat.match_id == done.id)):
                seat.rank = seat.seat + 1
        db.commit()
    skip: set[int] = set()
    with caplog.at_level(logging.ERROR, logger="arena.ladder.worker"):
        assert rate_settled_sets(ladder.make, skip=skip) == 1, "the set behind the stuck one is rated"
        assert rate_settled_sets(ladder.make, skip=skip) == 0
    assert skip == {stuck[0].id}
    assert len([r for r in caplog.records if "cannot be rated" in r.getMessage()]) == 1


def test_an_internal_error_is_not_shown_on_the_match(ladder: LadderFixture) -> None:
    """The raw SQL of a failed recording was the match's public 'error'."""
    from ladder.jobs import JobSettings, build_job, play_job
    from ladder.worker import claim
    from referee.server.session import TimeControl

    two_bots(ladder)
    with ladder.make() as db:
        a, b = db.scalars(select(BotVersion.id).order_by(BotVersion.id)).all()
        add_duplicate_set(db, GAME, [a, b], 3, "rated")
        db.commit()
    match_id = claim(ladder.make, "w", 30)
    assert match_id is not None
    job = build_job(ladder.make, match_id, "w", JobSettings(ladder.ladder.store, TimeControl(), 30, data_dir=ladder.ladder.config.data_dir.resolve()))

    async def broken(*args: object) -> bool:
        raise RuntimeError("(sqlite3.IntegrityError) [SQL: INSERT INTO rating_changes ...]")

    assert asyncio.run(play_job(ladder.make, job, "w", recorder=broken)).status == "failed"
    error = ladder.client.get(f"/api/matches/{match_id}").json()["error"]
    assert "RuntimeError" in error and "SQL" not in error and "INSERT" not in error


def test_two_challenges_at_once_cannot_both_take_the_last_place(ladder: LadderFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cap was counted without a lock: two requests at once both saw a free place, and both were queued."""
    import threading

    from ladder import scheduler

    owner = two_bots(ladder)
    for _ in range(OPEN_CHALLENGES - 1):
        assert ask(ladder, owner, "gw-greedy", "random")[0] == 201
    first_inside, release = threading.Event(), threading.Event()
    real_add = scheduler.add_duplicate_set

    def add(*args: object, **kwargs: object) -> list[Match]:
        if not first_inside.is_set():  # the first request stops here, counted but not yet queued
            first_inside.set()
            assert release.wait(10)
        return real_add(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(scheduler, "add_duplicate_set", add)
    statuses: list[int] = []
    first = threading.Thread(target=lambda: statuses.append(ask(ladder, owner, "gw-greedy", "random")[0]))
    first.start()
    assert first_inside.wait(10)
    second = threading.Thread(target=lambda: statuses.append(ask(ladder, owner, "random", "gw-greedy")[0]))
    second.start()
    second.join(0.5)  # with the lock it waits for the first; without, it is queued by now
    release.set()
    first.join(10)
    second.join(10)
    assert sorted(statuses) == [201, 429]
    with ladder.make() as db:
        open_sets = db.scalar(select(func.count(func.distinct(Match.deal))).where(Match.challenger_id.is_not(None)))
    assert open_sets == OPEN_CHALLENGES
