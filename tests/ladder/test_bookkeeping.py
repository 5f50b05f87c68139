"""The ladder's match bookkeeping under concurrency and failure, on a database of bot rows (no bot plays)."""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import delete, event, insert, select, update
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session, sessionmaker

from arena.v1 import referee_pb2 as pb
from ladder import rebuild, worker
from ladder.accounts import add_user
from ladder.db import make_engine, migrate, sessions
from ladder.models import Bot, BotVersion, Match, Rating, User
from ladder.ratings import INITIAL
from ladder.ratings import update as update_skills
from ladder.rebuild import check, mismatches
from ladder.scheduler import fill_queue, queue_duplicate_set
from ladder.worker import rate_settled_sets, record_outcome
from tests.ladder.conftest import check_rated_once


@pytest.fixture
def make(tmp_path: Path) -> sessionmaker[Session]:
    url = f"sqlite:///{tmp_path / 'ladder.db'}"
    migrate(url)
    return sessions(make_engine(url))


def add_bots(make: sessionmaker[Session], games: list[str], n: int) -> list[int]:
    """``n`` active bot versions playing ``games``, with fresh ratings; their ids."""
    with make() as db:
        add_user(db, "owner")
        owner = db.scalars(select(User.id)).one()
        ids = []
        for i in range(n):
            bot = Bot(name=f"bot{i}", owner_id=owner, created_at=time.time())
            db.add(bot)
            db.flush()
            version = BotVersion(bot_id=bot.id, seq=1, version="1", status="active", games=games, language="python", path=f"bot{i}/1", created_at=time.time())
            db.add(version)
            db.flush()
            for game in games:
                db.add(Rating(bot_version_id=version.id, game=game, mu=INITIAL.mu, sigma=INITIAL.sigma, games=0, updated_at=time.time()))
            ids.append(version.id)
        db.commit()
        return ids


def claim_all(make: sessionmaker[Session], ids: list[int], owner: str = "w") -> None:
    with make() as db:
        db.execute(update(Match).where(Match.id.in_(ids)).values(status="running", lease_owner=owner, lease_expires=time.time() + 60))
        db.commit()


def result(ranks: list[int]) -> pb.MatchResult:
    return pb.MatchResult(seats=[pb.SeatResult(seat=seat, rank=rank) for seat, rank in enumerate(ranks)])


def test_the_queue_is_filled_with_every_game_in_turn(make: sessionmaker[Session]) -> None:
    """A set of two matches moved the turn by two: with two games, one tick queued the other game nothing."""
    add_bots(make, ["land-and-castle", "generals-war"], 2)
    for seed in range(6):
        with make() as db:
            db.execute(update(Match).values(status="done"))
            assert fill_queue(db, random.Random(seed), target=8, games=["land-and-castle", "generals-war"]) == 8
            queued = Counter(db.scalars(select(Match.game).where(Match.status == "queued")))
        assert queued == {"land-and-castle": 4, "generals-war": 4}, (seed, queued)


def test_games_share_the_matches_played_not_the_sets(make: sessionmaker[Session]) -> None:
    """Taken in turn by sets, the Assassination Game's exhibitions (a set of four matches) got two thirds of the
    matches beside General's War's sets of two; played as workers take them, each game now gets about half."""
    add_bots(make, ["assassination", "generals-war"], 2)
    played: Counter[str] = Counter()
    rng = random.Random(5)
    with make() as db:
        db.execute(update(Rating).values(games=100))  # past their placement, whose sets go first
        for _ in range(120):
            fill_queue(db, rng, target=8, games=["assassination", "generals-war"])
            for match in db.scalars(select(Match).where(Match.status == "queued").order_by(Match.priority.desc(), Match.id).limit(2)):
                match.status = "done"
                played[match.game] += 1
            db.commit()
    assert sum(played.values()) == 240
    assert abs(played["assassination"] - played["generals-war"]) <= 8, played


def test_a_game_without_a_table_does_not_stop_the_others_short_of_the_target(make: sessionmaker[Session]) -> None:
    """Stalls were counted across the tick: a game that could not play, met again, ended the tick before the target."""
    ids = add_bots(make, ["land-and-castle", "generals-war", "assassination"], 2)
    with make() as db:  # one bot alone for assassination: not even an exhibition (``exhibition``) can be played
        db.execute(update(BotVersion).where(BotVersion.id == ids[1]).values(games=["land-and-castle", "generals-war"]))
        db.execute(delete(Rating).where(Rating.bot_version_id == ids[1], Rating.game == "assassination"))
        db.commit()
    for seed in range(6):
        with make() as db:
            db.execute(update(Match).values(status="done"))
            added = fill_queue(db, random.Random(seed), target=12, games=["assassination", "land-and-castle", "generals-war"])
            queued = Counter(db.scalars(select(Match.game).where(Match.status == "queued")))
        assert added == 12 and queued == {"land-and-castle": 6, "generals-war": 6}, (seed, queued)


def test_a_game_with_fewer_bots_than_seats_gets_unrated_exhibitions(make: sessionmaker[Session]) -> None:
    """The demo's two sample bots of the Assassination Game (four seats) never played it: no table could be filled."""
    from ladder.models import MatchSeat
    from ladder.scheduler import entrants

    two = add_bots(make, ["assassination"], 2)
    with make() as db:
        added = fill_queue(db, random.Random(3), target=4, games=["assassination"])
        matches = db.scalars(select(Match).order_by(Match.id)).all()
        seated = [[s.bot_version_id for s in db.scalars(select(MatchSeat).where(MatchSeat.match_id == m.id).order_by(MatchSeat.seat))] for m in matches]
        assert added == len(matches) == 4 and {m.kind for m in matches} == {"exhibition"} and len({m.deal for m in matches}) == 1
        assert all(sorted(Counter(seats).values()) == [2, 2] and set(seats) == set(two) for seats in seated), seated
        assert [e.games for e in entrants(db, "assassination")] == [0, 0], "an exhibition is no game a bot has coming"
        for m in matches:
            m.status = "done"
        db.commit()
        assert not worker.rate_set(db, matches[-1]), "and it is never rated"


def test_a_set_rated_by_the_sweep_does_not_overwrite_a_rating_recorded_meanwhile(make: sessionmaker[Session], monkeypatch: Any) -> None:
    """On SQLite the sweep read the ratings outside any transaction (pysqlite begins one at the first write): a set
    recorded between its read and its write was lost from the stored ratings."""
    a, b = add_bots(make, ["land-and-castle"], 2)
    with make() as db:
        settled = queue_duplicate_set(db.connection(), "land-and-castle", [a, b], 1, "rated")
        recorded = queue_duplicate_set(db.connection(), "land-and-castle", [a, b], 2, "rated")
        db.commit()
    claim_all(make, settled + recorded)
    assert record_outcome(make, settled[0], "w", result([1, 2]))
    worker.fail_match(make, settled[1], "w", "lost")
    assert record_outcome(make, recorded[0], "w", result([2, 1]))

    rival = threading.Thread(target=record_outcome, args=(make, recorded[1], "w", result([1, 2])))

    def rate_while_another_records(*args: Any) -> Any:
        if not rival.is_alive() and rival.ident is None:
            rival.start()
            rival.join(1.0)  # done at once unless the sweep holds the write lock, as it must
        return update_skills(*args)

    monkeypatch.setattr(worker, "rate", rate_while_another_records)
    assert rate_settled_sets(make) == 1
    rival.join(30)
    with make() as db:
        assert mismatches(db) == [] and check_rated_once(db) == 3


def test_a_set_the_sweep_could_not_rate_for_a_database_error_is_tried_again(make: sessionmaker[Session], monkeypatch: Any) -> None:
    """Only a set that cannot be rated at all is skipped until the ladder restarts: a database out of reach for a
    moment put every set of the sweep there, never to be rated."""
    a, b = add_bots(make, ["land-and-castle"], 2)
    with make() as db:
        ids = queue_duplicate_set(db.connection(), "land-and-castle", [a, b], 1, "rated")
        db.commit()
    claim_all(make, ids)
    assert record_outcome(make, ids[0], "w", result([1, 2]))
    worker.fail_match(make, ids[1], "w", "lost")
    real_rate = worker._rate

    def out_of_reach(*args: Any) -> bool:
        raise OperationalError("SELECT", {}, Exception("server closed the connection unexpectedly"))

    skip: set[int] = set()
    monkeypatch.setattr(worker, "_rate", out_of_reach)
    with pytest.raises(OperationalError):
        rate_settled_sets(make, skip=skip)
    assert skip == set()
    monkeypatch.setattr(worker, "_rate", real_rate)
    assert rate_settled_sets(make, skip=skip) == 1
    with make() as db:
        assert mismatches(db) == [] and check_rated_once(db) == 1


def test_first_halves_waiting_for_their_second_do_not_crowd_a_failed_set_out_of_the_sweep(make: sessionmaker[Session]) -> None:
    """The sweep looks only at sets with a failed match: the first halves still waiting (many, and older) would fill
    its limit every time, and a set whose other match failed would never be rated."""
    a, b = add_bots(make, ["land-and-castle"], 2)
    with make() as db:
        waiting = [queue_duplicate_set(db.connection(), "land-and-castle", [a, b], seed, "rated") for seed in (1, 2, 3)]
        settled = queue_duplicate_set(db.connection(), "land-and-castle", [a, b], 4, "rated")
        db.commit()
    for first, _second in waiting:
        claim_all(make, [first])
        assert record_outcome(make, first, "w", result([1, 2]))
    claim_all(make, settled)
    assert record_outcome(make, settled[0], "w", result([1, 2]))
    worker.fail_match(make, settled[1], "w", "lost")
    assert rate_settled_sets(make, limit=2) == 1
    with make() as db:
        assert db.get_one(Match, settled[0]).rated_with == settled[0] and check_rated_once(db) == 1


def test_sets_with_a_failed_match_and_one_still_to_play_do_not_crowd_a_finished_set_out_of_the_sweep(make: sessionmaker[Session]) -> None:
    """At three seats and more a set has a failed match long before it is over: its played matches met the sweep's
    query at every sweep, each only to be rolled back (a match still to play), and enough of them (a failing worker
    on a busy cluster) filled its limit every time, so that a set the sweep could rate waited until they were over."""
    a, b, c = add_bots(make, ["glory"], 3)
    with make() as db:
        waiting = [queue_duplicate_set(db.connection(), "glory", [a, b, c], seed, "rated") for seed in (1, 2)]
        finished = queue_duplicate_set(db.connection(), "glory", [a, b, c], 3, "rated")
        db.commit()
    for played, failed, _still_queued in waiting:
        claim_all(make, [played, failed])
        assert record_outcome(make, played, "w", result([1, 2, 3]))
        worker.fail_match(make, failed, "w", "lost")
    claim_all(make, finished)
    assert record_outcome(make, finished[0], "w", result([1, 2, 3]))
    assert record_outcome(make, finished[1], "w", result([2, 3, 1]))
    worker.fail_match(make, finished[2], "w", "lost")  # the set's last match: only the sweep rates it
    assert rate_settled_sets(make, limit=2) == 1
    with make() as db:
        assert db.get_one(Match, finished[0]).rated_with == finished[0] and check_rated_once(db) == 2


def test_a_seat_without_a_rank_counts_as_last(make: sessionmaker[Session]) -> None:
    """A result that left a seat's rank unset (0 in the result) ranks it last, not first."""
    a, b = add_bots(make, ["land-and-castle"], 2)
    with make() as db:
        ids = queue_duplicate_set(db.connection(), "land-and-castle", [a, b], 1, "rated")
        db.commit()
    claim_all(make, ids)
    assert record_outcome(make, ids[0], "w", result([0, 1]))  # a, unranked, at seat 0
    assert record_outcome(make, ids[1], "w", result([1, 0]))  # b first, a unranked at seat 1
    with make() as db:
        mu = {v: m for v, m in db.execute(select(Rating.bot_version_id, Rating.mu))}
    assert mu[b] > INITIAL.mu > mu[a]


def test_queued_challenges_do_not_count_as_games_for_placement_or_the_turn(make: sessionmaker[Session]) -> None:
    """Challenges are never rated: counted as games, two queued ones made a new bot's first ladder set a rated one."""
    a, b = add_bots(make, ["land-and-castle"], 2)
    with make() as db:
        for seed in (1, 2):
            queue_duplicate_set(db.connection(), "land-and-castle", [a, b], seed, "challenge")
        # The challenges take no place of the queue either (tests/ladder/test_challenge_share.py): two places, one set.
        assert fill_queue(db, random.Random(0), target=2, games=["land-and-castle"]) == 2
        kinds = Counter(db.scalars(select(Match.kind)))
    assert kinds == {"challenge": 4, "placement": 2}


def test_matches_being_played_count_as_games_coming_as_the_queued_ones_do(make: sessionmaker[Session]) -> None:
    """A bot's matches a worker is playing are games it has coming: counted only while queued, a bot's games fell
    as its matches were claimed, and the scheduler gave it more placement sets than it needed."""
    from ladder.scheduler import entrants

    a, b = add_bots(make, ["land-and-castle"], 2)
    with make() as db:
        ids = queue_duplicate_set(db.connection(), "land-and-castle", [a, b], 1, "rated")
        db.commit()
    assert worker.claim(make, "w", 60) == ids[0]
    with make() as db:
        assert [(e.version_id, e.games) for e in entrants(db, "land-and-castle")] == [(a, 2), (b, 2)]
    claim_all(make, ids)
    with make() as db:
        assert [e.games for e in entrants(db, "land-and-castle")] == [2, 2]


def test_a_played_half_counts_as_a_game_coming_while_its_set_is_still_playing(make: sessionmaker[Session]) -> None:
    """The first match of a set, played but unrated until the second is, counted nowhere: a bot with sets half played
    looked as if it needed more games. Once the set can no longer finish (its other half failed), the half counts no
    more: the failed-set sweep rates it or leaves it."""
    from ladder.scheduler import entrants

    a, b = add_bots(make, ["land-and-castle"], 2)
    with make() as db:
        first, second = queue_duplicate_set(db.connection(), "land-and-castle", [a, b], 1, "rated")
        db.execute(update(Match).where(Match.id == first).values(status="done"))
        db.commit()
        assert [(e.version_id, e.games) for e in entrants(db, "land-and-castle")] == [(a, 2), (b, 2)]
        db.execute(update(Match).where(Match.id == second).values(status="running"))
        assert [e.games for e in entrants(db, "land-and-castle")] == [2, 2]
        db.execute(update(Match).where(Match.id == second).values(status="failed"))
        assert [e.games for e in entrants(db, "land-and-castle")] == [0, 0]
        # A played half of another set still playing counts; a rated one counts only in the ratings' games.
        third, fourth = queue_duplicate_set(db.connection(), "land-and-castle", [a, b], 2, "rated")
        db.execute(update(Match).where(Match.id == third).values(status="done", rated_with=third))
        assert [e.games for e in entrants(db, "land-and-castle")] == [1, 1]


def test_check_ratings_reads_one_snapshot_while_the_ladder_records(make: sessionmaker[Session], monkeypatch: Any) -> None:
    """`arena ladder check-ratings` on a running ladder: a set rated between its read of the match log and its read of
    the ratings was reported as ratings gone wrong (each SELECT saw the latest commit)."""
    a, b = add_bots(make, ["generals-war"], 2)
    with make() as db:
        ids = queue_duplicate_set(db.connection(), "generals-war", [a, b], 1, "rated")
        db.commit()
    claim_all(make, ids)
    real_rebuild = rebuild.rebuild

    def rebuild_while_a_set_is_rated(db: Session) -> Any:
        state = real_rebuild(db)
        assert record_outcome(make, ids[0], "w", result([1, 2])) and record_outcome(make, ids[1], "w", result([2, 1]))
        rate_settled_sets(make)
        return state

    monkeypatch.setattr(rebuild, "rebuild", rebuild_while_a_set_is_rated)
    assert check(make) == []
    monkeypatch.setattr(rebuild, "rebuild", real_rebuild)
    with make() as db:
        assert check_rated_once(db) == 2  # the set was rated, and the ratings still agree with the log
    assert check(make) == []


def statements_of(make: sessionmaker[Session], read: Any) -> list[tuple[str, Any]]:
    """The SQL statements (with their parameters) that ``read(db)`` sent."""
    statements: list[tuple[str, Any]] = []

    def seen(conn: Any, cursor: Any, statement: str, params: Any, context: Any, executemany: bool) -> None:
        statements.append((statement, params))

    engine = make.kw["bind"]
    event.listen(engine, "before_cursor_execute", seen)
    try:
        with make() as db:
            read(db)
    finally:
        event.remove(engine, "before_cursor_execute", seen)
    return statements


def plan_of(make: sessionmaker[Session], statement: str, params: Any) -> list[str]:
    """SQLite's plan for a statement, a step per line of EXPLAIN QUERY PLAN."""
    with make.kw["bind"].connect() as conn:
        return [row[-1] for row in conn.exec_driver_sql("EXPLAIN QUERY PLAN " + statement, params)]


def test_the_pages_of_a_long_history_read_by_index_not_by_scanning_it(make: sessionmaker[Session], monkeypatch: Any) -> None:
    """At 200,000 matches the recent matches sorted every finished one (0.8 s at limit 200), a bot's filter listed
    every match it played, and its rating history scanned every rating change once per version: the plans say how
    SQLite reads them (the timings are in the closing notes, not here)."""
    from ladder import queries
    from ladder.queries import rating_history, recent_matches

    monkeypatch.setattr(queries, "FEW_SEATS", -1)  # read as a busy bot's
    listing = next(s for s in statements_of(make, lambda db: recent_matches(db, bot="nobody", limit=200)) if "ORDER BY" in s[0])
    history = next(s for s in statements_of(make, lambda db: rating_history(db, "nobody", "glory")) if "rating_changes" in s[0])
    listed = " / ".join(plan_of(make, *listing))
    # The matches in end-time order, each checked for the bot's seats: not all the bot's matches listed, then sorted.
    assert "USING INDEX ix_matches_finished_at" in listed and "TEMP B-TREE" not in listed and "CORRELATED" in listed, listed
    drawn = " / ".join(plan_of(make, *history))
    assert "ix_rating_changes_version_game" in drawn and "SCAN rating_changes" not in drawn, drawn


def quiet_bot_history(make: sessionmaker[Session]) -> None:
    """3,000 finished matches of 29 busy bots, and 5 of bot29 (quiet) against bot0."""
    from ladder.models import MatchSeat

    *busy, quiet = add_bots(make, ["glory"], 30)
    now = time.time()
    with make() as db:
        pairs = [(busy[i % 29], busy[(i + 1) % 29]) for i in range(3000)] + [(quiet, busy[0])] * 5
        db.execute(insert(Match), [
            {"id": i + 1, "game": "glory", "seed": i, "num_players": 2, "options": {}, "kind": "rated", "status": "done",
             "deal": f"d{i}", "created_at": now, "finished_at": now + i} for i in range(len(pairs))
        ])
        db.execute(insert(MatchSeat), [
            {"match_id": i + 1, "seat": seat, "bot_version_id": version, "rank": seat + 1, "verdicts": []}
            for i, pair in enumerate(pairs) for seat, version in enumerate(pair)
        ])
        db.commit()


def head_to_head_first_step(make: sessionmaker[Session], conn: Any = None) -> str:
    """Where SQLite's plan of bot29's head-to-head record starts (on ``conn``, or a connection of the pool)."""
    from ladder.queries import crosstable

    rows: list[dict[str, Any]] = []
    statements = statements_of(make, lambda db: rows.extend(crosstable(db, "bot29")))
    assert [(r["opponent"], r["games"], r["wins"]) for r in rows] == [("bot0", 5, 5)]
    statement, params = next(s for s in statements if "match_seats" in s[0])
    if conn is None:
        steps = plan_of(make, statement, params)
    else:
        steps = [row[-1] for row in conn.exec_driver_sql("EXPLAIN QUERY PLAN " + statement, params)]
    return next(step for step in steps if step.startswith(("SEARCH", "SCAN")) and "bots" not in step)


def test_with_its_statistics_refreshed_a_quiet_bots_head_to_head_starts_from_its_own_seats(make: sessionmaker[Session]) -> None:
    """Without statistics SQLite took "status = 'done'" for a narrow filter and walked every finished match of the
    history for a bot that had played a few (1.4 s at 200,000 matches); the scheduler now refreshes them."""
    from ladder.db import refresh_statistics

    quiet_bot_history(make)
    assert "matches" in head_to_head_first_step(make)  # the guess: all 3,005 finished matches first
    refresh_statistics(make)
    assert "bot_versions" in head_to_head_first_step(make)  # after the bot by its name: its versions, then their seats


def test_refreshed_statistics_reach_every_connection_of_the_pool_not_only_the_one_that_ran_analyze(make: sessionmaker[Session]) -> None:
    """SQLite reads its statistics when a connection reads the schema, and a later ANALYZE on another connection
    does not make it read them again: the scheduler's refresh reached the one pooled connection it ran on, and
    the pages answered from the others (opened at start, before any statistics) planned as without them."""
    from ladder.db import refresh_statistics

    quiet_bot_history(make)
    engine = make.kw["bind"]
    with engine.connect() as early:  # a page's connection, its schema read before the refresh
        assert "matches" in head_to_head_first_step(make, early)
        refresh_statistics(make)  # the scheduler's, on another connection of the pool
    both = [engine.connect(), engine.connect()]  # the pool's two connections (or new ones)
    try:
        assert ["bot_versions" in head_to_head_first_step(make, conn) for conn in both] == [True, True]
    finally:
        for conn in both:
            conn.close()


def test_a_quiet_bots_recent_matches_are_read_by_their_ids_not_by_walking_the_whole_history(make: sessionmaker[Session]) -> None:
    """Walked along the end-time index until 20 of its matches are found, the recent matches of a bot that played
    fewer (new, retired, in a game seldom played) read every finished match first: 0.36 s at 200,000 matches."""
    from ladder.queries import recent_matches

    quiet_bot_history(make)
    rows: list[dict[str, Any]] = []
    statements = statements_of(make, lambda db: rows.extend(recent_matches(db, bot="bot29", limit=20)))
    assert [r["id"] for r in rows] == [3005, 3004, 3003, 3002, 3001]
    listed = " / ".join(plan_of(make, *next(s for s in statements if "ORDER BY" in s[0])))
    assert "ix_matches_finished_at" not in listed and "PRIMARY KEY" in listed, listed


def test_a_set_is_rated_once_however_often_it_is_asked(make: sessionmaker[Session]) -> None:
    """A set's matches are marked rated with the one that completed it: asked again (a record tried again, the sweep
    of failed sets), it changes nothing, and each bot's games count the set's matches once."""
    a, b = add_bots(make, ["generals-war"], 2)
    with make() as db:
        ids = queue_duplicate_set(db.connection(), "generals-war", [a, b], 7, "rated")
        db.commit()
    claim_all(make, ids)
    assert record_outcome(make, ids[0], "w", result([1, 2])) and record_outcome(make, ids[1], "w", result([2, 1]))
    with make() as db:
        before = sorted((r.bot_version_id, r.mu, r.sigma, r.games) for r in db.scalars(select(Rating)))
        assert [games for _, _, _, games in before] == [2, 2]
        for match_id in ids:
            assert not worker.rate_set(db, db.get_one(Match, match_id))
        db.commit()
        assert sorted((r.bot_version_id, r.mu, r.sigma, r.games) for r in db.scalars(select(Rating))) == before
    assert rate_settled_sets(make) == 0
    with make() as db:
        assert check_rated_once(db) == 2
