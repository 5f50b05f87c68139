"""A bot version that forfeits match after match is suspended (ladder/suspension.py): on a database of bot rows,
matches recorded directly (no bot plays), but for one ladder that plays a bot crashing at start."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import random
import time
import uuid
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker
from typer.testing import CliRunner

from arena.cli.main import app
from arena.v1 import referee_pb2 as pb
from ladder.api import LadderState, create_app
from ladder.models import Bot, BotVersion, Match, MatchSeat, Rating, User
from ladder.ratings import INITIAL
from ladder.scheduler import entrants, fill_queue
from ladder.submissions import submit
from ladder.suspension import SUSPEND_AFTER, WINDOW, ReinstatementRefused, held_against, reinstate
from ladder.upload import zip_directory
from ladder.worker import fail_match, record_outcome
from tests.ladder.conftest import LadderFixture, check_rated_once, enter
from tests.ladder.test_bookkeeping import add_bots, make  # noqa: F401  (the fixture)
from tests.support import ROOT, SAMPLE_BOTS

GAME = "generals-war"
CRASH: tuple[pb.VerdictKind, str] = (pb.CRASH, "the bot's process exited with code 1 before it connected to the referee")
N = SUSPEND_AFTER


def start(make: sessionmaker[Session], versions: list[int], owner: str = "w", game: str = GAME, kind: str = "rated") -> int:
    """A match of ``versions`` (seat order) claimed by ``owner``, as the dispatcher leaves it; its id."""
    with make() as db:
        match = Match(
            game=game, seed=1, num_players=len(versions), options={}, kind=kind, status="running", priority=0, deal=uuid.uuid4().hex,
            lease_owner=owner, lease_expires=time.time() + 60, attempts=0, created_at=time.time(), started_at=time.time(),
        )
        db.add(match)
        db.flush()
        db.add_all(MatchSeat(match_id=match.id, seat=seat, bot_version_id=v, verdicts=[]) for seat, v in enumerate(versions))
        db.commit()
        return match.id


def outcome(seats: int, forfeit: set[int], cause: tuple[pb.VerdictKind, str] = CRASH) -> pb.MatchResult:
    """Seats ``forfeit`` forfeited for ``cause`` and rank last; the others share first place."""
    results = []
    for seat in range(seats):
        verdicts = [pb.Verdict(kind=cause[0], decision_index=3, detail=cause[1]), pb.Verdict(kind=pb.FORFEIT, decision_index=3, detail="gone")] if seat in forfeit else []
        results.append(pb.SeatResult(seat=seat, rank=2 if seat in forfeit else 1, verdicts=verdicts))
    return pb.MatchResult(seats=results)


def play(make: sessionmaker[Session], versions: list[int], forfeit: set[int], suspend_after: int = N) -> int:
    """A match of ``versions`` recorded with seats ``forfeit`` forfeiting; its id."""
    match_id = start(make, versions)
    assert record_outcome(make, match_id, "w", outcome(len(versions), forfeit), suspend_after=suspend_after)
    return match_id


def status(make: sessionmaker[Session], version: int) -> tuple[str, str]:
    with make() as db:
        v = db.get_one(BotVersion, version)
        return v.status, v.reason


def test_challenges_neither_suspend_a_bot_nor_end_its_run_of_forfeits(make: sessionmaker[Session]) -> None:
    """A challenger picks the opponent and the moment (ahead of the queue, a few sets at a time): a rival whose bot
    made another's crash took that bot off the ladder with a few challenges, which its owner never asked for.
    Challenges go unrated for the same reason; they count for a suspension no more than for a rating."""
    victim, rival = add_bots(make, [GAME], 2)

    def challenged(forfeit: set[int]) -> None:
        match_id = start(make, [rival, victim], kind="challenge")
        assert record_outcome(make, match_id, "w", outcome(2, forfeit))

    for _ in range(N):
        challenged({1})
    assert status(make, victim) == ("active", "")
    for _ in range(N - 1):  # the matches the ladder scheduled still count, and a challenge between them is passed over
        play(make, [victim, rival], {0})
    challenged(set())
    play(make, [victim, rival], {0})
    assert status(make, victim)[0] == "suspended"


def test_a_version_that_forfeits_n_matches_in_a_row_is_suspended_and_gets_no_more_matches(make: sessionmaker[Session], caplog: pytest.LogCaptureFixture) -> None:
    crasher, other, third = add_bots(make, [GAME], 3)
    with caplog.at_level(logging.WARNING, logger="arena.ladder.suspension"):
        played = [play(make, [crasher, other] if i % 2 else [other, crasher], {1 - i % 2}) for i in range(N - 1)]
        assert status(make, crasher) == ("active", "")
        played.append(play(make, [crasher, third], {0}))
    state, reason = status(make, crasher)
    assert state == "suspended", reason
    assert reason.startswith(f"suspended: forfeited its last {N} matches ({', '.join(f'#{m}' for m in played)}); last: crash: {CRASH[1]}.")
    assert "decision" not in reason and "3" not in reason.split("last:")[1]  # no decision index: it tells of the deal
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 1 and said[0].startswith("bot0 #1 is suspended") and reason in said[0], said
    assert status(make, other)[0] == status(make, third)[0] == "active"
    with make() as db:
        check_rated_once(db)  # suspending takes nothing from the ratings: its matches were rated as ever
        assert crasher not in {e.version_id for e in entrants(db, GAME)}
        assert fill_queue(db, random.Random(1), target=20, games=[GAME]) == 20
        queued = db.scalars(select(MatchSeat.bot_version_id).join(Match).where(Match.status == "queued")).all()
        assert set(queued) == {other, third}, "a match was scheduled for the suspended version"
    # Its matches queued before it was suspended are still played (as a withdrawn bot's) and suspend it no further.
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="arena.ladder.suspension"):
        play(make, [crasher, other], {0})
    assert status(make, crasher) == ("suspended", reason) and not caplog.records


def test_a_version_that_forfeits_one_match_short_then_plays_cleanly_stays(make: sessionmaker[Session]) -> None:
    """Runs shorter than N, however many, never suspend; nor does a version's first N - 1 matches."""
    shaky, other = add_bots(make, [GAME], 2)
    for _ in range(3):
        for _ in range(N - 1):
            play(make, [shaky, other], {0})
        play(make, [shaky, other], set())
    assert status(make, shaky) == ("active", "")


def test_a_version_with_a_long_clean_record_is_still_suspended_by_its_latest_forfeits(make: sessionmaker[Session]) -> None:
    """Judged from its latest matches, not its first: a bot that played cleanly for a long while, then crashed at
    every start, would else never leave matchmaking (its first matches, read instead, are clean)."""
    shaky, other = add_bots(make, [GAME], 2)
    for _ in range(N * WINDOW + 5):
        play(make, [shaky, other], set())
    for _ in range(N):
        play(make, [shaky, other], {0})
    assert status(make, shaky)[0] == "suspended"


def test_two_versions_that_forfeit_the_same_matches_are_both_suspended(make: sessionmaker[Session]) -> None:
    """At a table of three, two crashing versions beside a sound one: each is judged, not just the first."""
    first, second, sound = add_bots(make, ["glory"], 3)
    for _ in range(N):
        match_id = start(make, [first, second, sound], game="glory")
        assert record_outcome(make, match_id, "w", outcome(3, {0, 1}))
    assert status(make, first)[0] == status(make, second)[0] == "suspended"
    assert status(make, sound)[0] == "active"


def test_the_run_is_the_matches_in_the_order_they_finished_not_the_order_they_were_queued(make: sessionmaker[Session]) -> None:
    """A match queued early and played late (placements and challenges go first; a match is tried again) ends a run."""
    shaky, other = add_bots(make, [GAME], 2)
    early = start(make, [shaky, other])
    for _ in range(N - 1):
        play(make, [shaky, other], {0})
    assert record_outcome(make, early, "w", outcome(2, set()))  # clean, and the latest to finish
    play(make, [shaky, other], {0})
    assert status(make, shaky) == ("active", "")
    for _ in range(N - 1):
        play(make, [shaky, other], {0})
    assert status(make, shaky)[0] == "suspended"


def test_the_ladders_faults_never_count(make: sessionmaker[Session]) -> None:
    """Failed matches have no result and are passed over; a match every seat forfeited (a worker that could not start
    bots) is held against none of them and ends a run; a record whose lease was lost records nothing."""
    bot, other = add_bots(make, [GAME], 2)
    for _ in range(2 * N):  # the worker forfeits every seat: neither bot is to blame
        play(make, [bot, other], {0, 1})
    assert status(make, bot)[0] == status(make, other)[0] == "active"
    for _ in range(N - 1):
        play(make, [bot, other], {0})
        failed = start(make, [bot, other])
        fail_match(make, failed, "w", "the ladder could not play or record this match")
    lost = start(make, [bot, other], owner="another worker")
    assert not record_outcome(make, lost, "w", outcome(2, {0}))
    play(make, [bot, other], {0, 1})  # ends the run of N - 1
    play(make, [bot, other], {0})
    assert status(make, bot) == ("active", "")
    for _ in range(N - 1):  # with the one before: N in a row, failed matches in between
        play(make, [bot, other], {0})
        fail_match(make, start(make, [bot, other]), "w", "the ladder could not play or record this match")
    assert status(make, bot)[0] == "suspended"
    assert status(make, other) == ("active", "")


def test_the_setting_sets_how_many_forfeits_in_a_row_suspend_and_0_never(make: sessionmaker[Session]) -> None:
    quick, slow, other = add_bots(make, [GAME], 3)
    for _ in range(2):
        play(make, [quick, other], {0}, suspend_after=2)
    for _ in range(2 * N):
        play(make, [slow, other], {0}, suspend_after=0)
    assert status(make, quick)[0] == "suspended"
    assert status(make, slow)[0] == "active"
    with make() as db:
        assert db.get_one(BotVersion, quick).reason.startswith("suspended: forfeited its last 2 matches")


def test_what_a_forfeit_came_of_is_said_for_a_no_show_and_a_strike_over_the_limit(make: sessionmaker[Session]) -> None:
    no_show, striker, other = add_bots(make, [GAME], 3)
    for _ in range(N):
        record_outcome(make, start(make, [no_show, other]), "w", outcome(2, {0}, (pb.NO_SHOW, "the bot never connected")))
        record_outcome(make, start(make, [other, striker]), "w", outcome(2, {1}, (pb.TIMEOUT, "no legal action before the deadline")))
    assert status(make, no_show)[1].split("; last: ")[1].startswith("no-show: the bot never connected.")
    assert status(make, striker)[1].split("; last: ")[1].startswith("timeout: no legal action before the deadline.")


def suspend(make: sessionmaker[Session], version: int, other: int) -> None:
    for _ in range(N):
        play(make, [version, other], {0})
    assert status(make, version)[0] == "suspended"


def test_the_operator_reinstates_a_suspended_version_and_its_old_forfeits_no_longer_count(make: sessionmaker[Session]) -> None:
    bot, other = add_bots(make, [GAME], 2)
    with make() as db:
        with pytest.raises(ReinstatementRefused, match="bot0 has no suspended version"):
            reinstate(db, "bot0")
        with pytest.raises(ReinstatementRefused, match="no bot 'nobody'"):
            reinstate(db, "nobody")
    suspend(make, bot, other)
    with make() as db:
        assert reinstate(db, "bot0") == 1
    assert status(make, bot) == ("active", "reinstated by the operator")
    with make() as db:
        assert bot in {e.version_id for e in entrants(db, GAME)}
    for _ in range(N - 1):  # the N forfeits before count no more: N - 1 new ones do not suspend it again
        play(make, [bot, other], {0})
    assert status(make, bot)[0] == "active"
    play(make, [bot, other], {0})
    assert status(make, bot)[0] == "suspended"


def test_a_reinstatement_counts_from_the_versions_latest_match_whatever_the_operators_clock(make: sessionmaker[Session]) -> None:
    """The cut-off was the operator's clock; a worker's clock an hour ahead made the old forfeits count again."""
    from sqlalchemy import update

    bot, other = add_bots(make, [GAME], 2)
    suspend(make, bot, other)
    with make() as db:
        db.execute(update(Match).values(finished_at=Match.finished_at + 3600))  # recorded by a worker an hour ahead
        db.commit()
        assert reinstate(db, "bot0") == 1
    play(make, [bot, other], {0})  # one more forfeit: with the N before it counted again, it was suspended at once
    assert status(make, bot)[0] == "active"


def test_a_new_version_replaces_a_suspended_one(make: sessionmaker[Session], tmp_path: Path) -> None:
    with make() as db:
        db.add(User(name="owner", token_hash="x" * 64, created_at=time.time()))
        db.commit()
        owner = db.scalars(select(User)).one()
    store = tmp_path / "bots"
    store.mkdir()  # as the ladder makes it when it starts: a submission never does
    first = asyncio.run(submit(make, store, owner, zip_directory(SAMPLE_BOTS / "random"), validate=False))
    [other] = add_bots_of(make, owner)
    with make() as db:
        version = db.scalars(select(BotVersion.id).join(Bot).where(Bot.name == first.bot)).one()
    suspend(make, version, other)
    second = asyncio.run(submit(make, store, owner, zip_directory(SAMPLE_BOTS / "random"), validate=False))
    assert second.accepted and second.seq == 2
    with make() as db:
        versions = db.execute(select(BotVersion.seq, BotVersion.status, BotVersion.reason).join(Bot).where(Bot.name == first.bot).order_by(BotVersion.seq)).all()
        assert [tuple(v)[:2] for v in versions] == [(1, "retired"), (2, "active")]
        # `arena ladder bot` says why #1 is retired, and what had happened to it
        assert versions[0].reason.startswith("replaced by version #2 (it was suspended: "), versions[0].reason
        # and the note on a repeated version string counts the suspended one as played
        assert "#1 had the same version" in second.reason


def add_bots_of(make: sessionmaker[Session], owner: User) -> list[int]:
    """One more active bot (an opponent), owned by ``owner``."""
    with make() as db:
        bot = Bot(name="opponent", owner_id=owner.id, created_at=time.time())
        db.add(bot)
        db.flush()
        version = BotVersion(bot_id=bot.id, seq=1, version="1", status="active", games=[GAME], language="python", path="opponent/1", created_at=time.time())
        db.add(version)
        db.flush()
        db.add(Rating(bot_version_id=version.id, game=GAME, mu=INITIAL.mu, sigma=INITIAL.sigma, games=0, updated_at=time.time()))
        db.commit()
        return [version.id]


def test_the_api_the_bots_page_and_the_terminal_say_it_is_suspended_and_why(make: sessionmaker[Session], tmp_path: Path) -> None:
    bot, other = add_bots(make, [GAME], 2)
    suspend(make, bot, other)
    reason = status(make, bot)[1]
    with TestClient(create_app(LadderState(make, tmp_path / "bots", tmp_path))) as client:
        [shown] = client.get("/api/bots/bot0").json()["versions"]
        assert (shown["status"], shown["reason"]) == ("suspended", reason)
        assert [r["bot"] for r in client.get(f"/api/games/{GAME}/standings").json()] == ["bot1"]  # as a retired version
        assert client.get("/bots/bot0").status_code == 200
    url = str(make.kw["bind"].url)
    runner = CliRunner()
    refused = runner.invoke(app, ["ladder", "reinstate", "bot1", "--db", url])
    assert refused.exit_code == 2 and "bot1 has no suspended version" in refused.output, refused.output
    done = runner.invoke(app, ["ladder", "reinstate", "bot0", "--db", url])
    assert done.exit_code == 0 and "reinstated: bot0 (version #1 active)" in done.output, done.output
    assert status(make, bot)[0] == "active"


def test_arena_ladder_bot_shows_a_suspended_versions_status_and_reason(make: sessionmaker[Session], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.cli import ladder_bot

    bot, other = add_bots(make, [GAME], 2)
    suspend(make, bot, other)
    with TestClient(create_app(LadderState(make, tmp_path / "bots", tmp_path))) as client:
        monkeypatch.setattr(ladder_bot, "call", lambda method, server, path, token=None, **kw: client.get(path, **kw).json())
        result = CliRunner().invoke(app, ["ladder", "bot", "bot0"], env={"COLUMNS": "200"})
        shown = json.loads(CliRunner().invoke(app, ["ladder", "bot", "bot0", "--json"]).stdout)
    assert result.exit_code == 0, result.output
    # The reason folds within its column, its lines beside the other columns' (the console's width is fixed when
    # arena.cli is first imported, 80 under xdist): its words are there, the whole of it is in --json below.
    words = set(result.stdout.split())
    assert {"suspended", "suspended:", "forfeited", "reinstate"} <= words, result.stdout
    assert shown["versions"][0]["status"] == "suspended" and shown["versions"][0]["reason"].startswith("suspended: forfeited its last 5 matches")


CRASHER = ROOT / "tests" / "bots" / "crash_at_start"


def test_a_bot_that_crashes_at_start_on_a_real_ladder_is_suspended(ladder: LadderFixture) -> None:
    ladder.ladder.settings = dataclasses.replace(ladder.ladder.settings, suspend_after=2)
    crasher, steady = enter(ladder.ladder, [CRASHER, SAMPLE_BOTS / "random"], validate=False)

    def suspended() -> bool:
        return status(ladder.make, crasher)[0] == "suspended"

    ladder.play(2, until=suspended, timeout=120)
    state, reason = status(ladder.make, crasher)
    assert state == "suspended" and "last: crash: " in reason and "exited with code 1" in reason, reason
    assert "forfeited its last 2 matches" in reason, "the ladder's --suspend-after, not the default"
    assert status(ladder.make, steady)[0] == "active"
    with ladder.make() as db:
        assert crasher not in {e.version_id for e in entrants(db, GAME)}


def test_a_busy_version_is_judged_from_its_latest_seats_read_by_index(make: sessionmaker[Session]) -> None:
    """At 200,000 matches a version's seats sorted, or every finished match walked, at each forfeit would cost the
    recorder of every match: its latest are read backwards along ix_match_seats_version_match."""
    from sqlalchemy import event

    from ladder.db import refresh_statistics
    from tests.ladder.test_bookkeeping import plan_of, quiet_bot_history

    quiet_bot_history(make)  # 3,005 finished matches, about 200 seats for each busy bot
    refresh_statistics(make)
    statements: list[tuple[str, object]] = []
    engine = make.kw["bind"]

    def seen(conn: object, cursor: object, statement: str, params: object, context: object, executemany: bool) -> None:
        statements.append((statement, params))

    match_id = start(make, [1, 2], game="glory")
    event.listen(engine, "before_cursor_execute", seen)
    try:
        assert record_outcome(make, match_id, "w", outcome(2, {0}))
    finally:
        event.remove(engine, "before_cursor_execute", seen)
    statement, params = next(s for s in statements if "LIMIT" in s[0] and "match_seats" in s[0])
    plan = " / ".join(plan_of(make, statement, params))
    assert "COVERING INDEX ix_match_seats_version_match (bot_version_id=?)" in plan and "SCAN" not in plan and "TEMP B-TREE" not in plan, plan


def test_two_recorders_of_one_versions_forfeits_at_once_on_postgresql_suspend_it_once(pg_url: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """Each recorder's transaction does not see the other's match: without the version's row locked, both counted one
    forfeit short and neither suspended it. Both are held until each has recorded its match, then judge it."""
    import threading

    from ladder import suspension, worker
    from ladder.db import make_engine, migrate, sessions

    migrate(pg_url)
    pg = sessions(make_engine(pg_url))
    try:
        bot, one, two = add_bots(pg, [GAME], 3)
        for _ in range(N - 2):
            play(pg, [bot, one], {0})
        both = threading.Barrier(2, timeout=10)
        real = suspension.check

        def held(*args: object, **kwargs: object) -> object:
            both.wait()  # both matches written, neither committed
            return real(*args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(worker, "check_suspensions", held)
        matches = [start(pg, [bot, one]), start(pg, [two, bot])]
        make_unrated(pg, matches)
        results: list[bool] = []
        with caplog.at_level(logging.WARNING, logger="arena.ladder.suspension"):
            threads = [threading.Thread(target=lambda m=m, s=s: results.append(record_outcome(pg, m, "w", outcome(2, {s})))) for m, s in zip(matches, (0, 1))]
            for t in threads:
                t.start()
            for t in threads:
                t.join(30)
        assert results == [True, True]
        assert status(pg, bot)[0] == "suspended"
        assert len([r for r in caplog.records if "is suspended" in r.getMessage()]) == 1
    finally:
        pg.kw["bind"].dispose()



def make_unrated(make: sessionmaker[Session], matches: list[int]) -> None:
    """Exhibitions are not rated: their recorders lock no rating row, so that both reach the judging at once (and,
    scheduled by the ladder, unlike challenges, they are judged)."""
    with make() as db:
        for m in matches:
            db.get_one(Match, m).kind = "exhibition"
        db.commit()


def test_a_suspended_bot_can_be_withdrawn_and_is_then_not_reinstated(make: sessionmaker[Session]) -> None:
    from ladder.submissions import withdraw

    bot, other = add_bots(make, [GAME], 2)
    suspend(make, bot, other)
    with make() as db:  # its owner takes it off the ladder: refused, the operator's reinstate later put it back
        owner = db.get_one(Bot, db.get_one(BotVersion, bot).bot_id).owner_id
        assert withdraw(db, owner, "bot0") == 1
    assert status(make, bot) == ("retired", "withdrawn by its owner")
    with make() as db:
        with pytest.raises(ReinstatementRefused, match="bot0 has no suspended version"):
            reinstate(db, "bot0")
        assert bot not in {e.version_id for e in entrants(db, GAME)}


def test_a_version_withdrawn_while_the_operator_reinstates_it_stays_off_the_ladder(make: sessionmaker[Session]) -> None:
    """Its owner withdraws it between reinstate's read and its write: the write finds it changed and is refused,
    rather than putting a retired version (or one a new version replaced) back into matchmaking."""
    from sqlalchemy import event

    from ladder.submissions import withdraw

    bot, other = add_bots(make, [GAME], 2)
    suspend(make, bot, other)
    engine = make.kw["bind"]
    withdrawn: list[int] = []

    def meanwhile(conn: object, cursor: object, statement: str, params: object, context: object, executemany: bool) -> None:
        if statement.startswith("UPDATE bot_versions") and "reinstated by the operator" in str(params) and not withdrawn:
            with make() as other_db:  # another connection, committed before the reinstatement writes
                owner = other_db.get_one(Bot, other_db.get_one(BotVersion, bot).bot_id).owner_id
                withdrawn.append(withdraw(other_db, owner, "bot0"))

    event.listen(engine, "before_cursor_execute", meanwhile)
    try:
        with make() as db:
            with pytest.raises(ReinstatementRefused, match="changed meanwhile"):
                reinstate(db, "bot0")
    finally:
        event.remove(engine, "before_cursor_execute", meanwhile)
    assert withdrawn == [1]
    assert status(make, bot) == ("retired", "withdrawn by its owner")
    with make() as db:
        assert bot not in {e.version_id for e in entrants(db, GAME)}


def test_with_remote_workers_the_ladders_own_log_tells_a_suspension(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """Recorded on a Dask worker, a suspension was logged on that worker's machine only."""
    from sqlalchemy import update

    from ladder.service import Ladder, LadderConfig

    instance = Ladder(LadderConfig(tmp_path / "data", samples=False, games=[GAME]))
    monkeypatch.setattr(instance.executor, "remote", True)
    before, after, other = add_bots(instance.make, [GAME], 3)
    with instance.make() as db:
        db.execute(update(BotVersion).where(BotVersion.id == before).values(status="suspended", reason="suspended: before the start"))
        db.commit()
    caplog.set_level(logging.WARNING, logger="arena.ladder.suspension")
    instance._tell_suspensions()  # the first look: what was suspended before this ladder started is not news
    with instance.make() as db:
        db.execute(update(BotVersion).where(BotVersion.id == after).values(status="suspended", reason="suspended: forfeited its last 5 matches"))
        db.commit()
    instance._tell_suspensions()
    instance._tell_suspensions()  # said once
    told = [r.getMessage() for r in caplog.records if r.name == "arena.ladder.suspension"]
    assert len(told) == 1 and told[0].startswith("bot1 #1 is suspended") and "forfeited its last 5 matches" in told[0]


def test_a_version_seated_twice_is_held_to_a_forfeit_only_if_it_forfeited_at_both_seats() -> None:
    """An exhibition seats a bot more than once: a forfeit at one seat and a game played out at the other is no
    crash of the bot's own (a seat's deal, the worker), and ends its run rather than adding to it."""
    gone = [{"kind": "CRASH", "detail": "exit 1"}, {"kind": "FORFEIT", "detail": "gone"}]
    assert held_against([(1, gone), (2, []), (1, []), (2, [])]) == set()
    assert held_against([(1, gone), (2, []), (1, gone), (2, [])]) == {1}
    assert held_against([(1, gone), (2, gone), (1, gone), (2, gone)]) == set(), "every seat forfeited: the worker's fault"


def test_a_strike_that_did_not_end_in_a_forfeit_is_no_forfeit(make: sessionmaker[Session]) -> None:
    """A seat with a verdict (a late move, an illegal one) that played its match out has not forfeited it."""
    slow, other = add_bots(make, [GAME], 2)
    strike = pb.SeatResult(seat=0, rank=2, verdicts=[pb.Verdict(kind=pb.TIMEOUT, decision_index=3, detail="no legal action before the deadline")])
    for _ in range(2 * N):
        assert record_outcome(make, start(make, [slow, other]), "w", pb.MatchResult(seats=[strike, pb.SeatResult(seat=1, rank=1)]), suspend_after=N)
    assert status(make, slow) == ("active", "")


def test_the_reason_names_the_cause_of_the_latest_forfeit_cut_to_its_length(make: sessionmaker[Session]) -> None:
    """The last match's cause, not an earlier one's; its detail cut at DETAIL_CAP (the reason is shown in the bot's tables)."""
    from ladder.suspension import DETAIL_CAP

    bot, other = add_bots(make, [GAME], 2)
    for _ in range(N - 1):
        play(make, [bot, other], {0})
    long = "x" * (DETAIL_CAP + 50)
    record_outcome(make, start(make, [bot, other]), "w", outcome(2, {0}, (pb.NO_SHOW, long)))
    state, reason = status(make, bot)
    assert state == "suspended" and f"; last: no-show: {'x' * DETAIL_CAP}…. A new version" in reason, reason
    assert CRASH[1] not in reason


def test_a_failed_match_does_not_move_the_reinstatement_s_cut_off(make: sessionmaker[Session]) -> None:
    """Only finished matches count towards a suspension, and only theirs set where a reinstated version's count starts:
    a match failed later (by a clock ahead of the workers') held off its next forfeits for that long."""
    from sqlalchemy import update

    bot, other = add_bots(make, [GAME], 2)
    suspend(make, bot, other)
    failed = start(make, [bot, other])
    fail_match(make, failed, "w", "the ladder could not play or record this match")
    with make() as db:
        db.execute(update(Match).where(Match.id == failed).values(finished_at=Match.finished_at + 3600))
        db.commit()
        assert reinstate(db, "bot0") == 1
    suspend(make, bot, other)
