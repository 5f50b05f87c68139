"""The ladder's bookkeeping as a state machine (hypothesis): bots entered and withdrawn, duplicate sets queued by the
scheduler and by challenges, matches claimed, recorded (again, by a lost lease), reaped, released and failed, sets
with a failed match swept, versions suspended and reinstated. After every step each match's lease, its recorded
ranks, its set's rating and the ratings rebuilt from the history are checked. On SQLite, with made-up results (no
bot plays)."""

from __future__ import annotations

import asyncio
import json
import random
import shutil
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule, run_state_machine_as_test
from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from arena.v1 import referee_pb2 as pb
from ladder.accounts import add_user
from ladder.db import make_engine, migrate, sessions
from ladder.models import PENDING, Bot, BotVersion, Match, MatchSeat, Rating, RatingChange, User
from ladder.rebuild import mismatches
from ladder.scheduler import OPEN_CHALLENGES, UNRATED, ScheduleError, challenge, fill_queue
from ladder.submissions import ON_LADDER, WithdrawalRefused, submit, withdraw
from ladder.suspension import ReinstatementRefused, reinstate
from ladder.worker import MAX_ATTEMPTS, claim_next, fail_match, rate_settled_sets, reap, record_outcome, release, renew
from tests.fuzzing import FUZZ
from tests.ladder.conftest import check_rated_once
from tests.ladder.test_submissions import BOT_PY, archive, manifest

#: A game of two to four seats (rated tables of every size, challenges) and one of four only (exhibitions below four bots).
GAMES = ("generals-and-assassins", "assassination")
NAMES = ("b0", "b1", "b2", "b3")  # bot i is owned by user i % 2
WORKERS = ("w0", "w1", "w2")
#: Forfeits in a row that suspend, low enough that the machine reaches suspensions.
SUSPEND = 2
LEASE = 60.0
MACHINE = settings(FUZZ, max_examples=40, stateful_step_count=50)
#: A made-up result's ranks and forfeiting seats, at a table of up to four.
RANKS = st.lists(st.integers(1, 4), min_size=4, max_size=4)
FORFEITS = st.integers(0, 15).map(lambda mask: {seat for seat in range(4) if mask >> seat & 1})  # as likely as not, each
TABLES = (Match, MatchSeat, Rating, RatingChange, BotVersion)


def held(seats: list[tuple[int, bool]]) -> set[int]:
    """The versions a match counts against (docs/ladder.md): those that forfeited at every seat they held, while a seat
    of another version did not."""
    lost: dict[int, list[bool]] = defaultdict(list)
    for version, forfeited in seats:
        lost[version].append(forfeited)
    return {v for v, mine in lost.items() if all(mine) and any(not f for w, theirs in lost.items() if w != v for f in theirs)}


def made_up(ranks: list[int], forfeits: set[int]) -> pb.MatchResult:
    seats = []
    for seat, rank in enumerate(ranks):
        verdicts = [pb.Verdict(kind=pb.CRASH, decision_index=2, detail="exit 1"), pb.Verdict(kind=pb.FORFEIT, decision_index=2)] if seat in forfeits else []
        seats.append(pb.SeatResult(seat=seat, rank=rank, verdicts=verdicts))
    return pb.MatchResult(seats=seats)


class Bookkeeping(RuleBasedStateMachine):
    #: A migrated database, copied for each run (a migration per run took most of its time).
    template: Path

    def __init__(self) -> None:
        super().__init__()
        self.folder = Path(tempfile.mkdtemp(prefix="arena-bookkeeping-"))
        shutil.copy(self.template, self.folder / "ladder.db")
        self.engine = make_engine(f"sqlite:///{self.folder / 'ladder.db'}")
        self.make = sessions(self.engine)
        self.store = self.folder / "store"
        self.store.mkdir()  # as the ladder makes it when it starts: a submission never does (ladder/submissions.py)
        with self.make() as db:
            for name in ("alice", "bob"):
                add_user(db, name)
            self.users = [db.scalars(select(User).where(User.name == name)).one() for name in ("alice", "bob")]
            db.expunge_all()
        self.ranks: dict[int, list[int]] = {}  # match -> the ranks recorded, by seat
        self.forfeits: dict[int, list[bool]] = defaultdict(list)  # version -> held against it, by match finished
        self.counted_from: dict[int, int] = defaultdict(int)  # version -> its first match counted since reinstated
        self.skip: set[int] = set()

    def teardown(self) -> None:
        self.engine.dispose()
        shutil.rmtree(self.folder, ignore_errors=True)

    # What the steps read.

    def ids(self, *statuses: str) -> list[int]:
        with self.make() as db:
            return list(db.scalars(select(Match.id).where(Match.status.in_(statuses)).order_by(Match.id)))

    def on_ladder(self, *statuses: str) -> int:
        with self.make() as db:
            return db.scalar(select(func.count()).select_from(BotVersion).where(BotVersion.status.in_(statuses or ON_LADDER))) or 0

    def snapshot(self) -> list[list[tuple[Any, ...]]]:
        with self.make() as db:
            return [[tuple(row) for row in db.execute(select(table.__table__).order_by(table.__table__.c.id))] for table in TABLES]

    def statuses(self, db: Session) -> dict[int, str]:
        return {v: s for v, s in db.execute(select(BotVersion.id, BotVersion.status))}

    def newest_match(self, db: Session) -> int:
        return db.scalar(select(func.max(Match.id))) or 0

    def seated_since(self, db: Session, after: int) -> set[int]:
        return set(db.scalars(select(MatchSeat.bot_version_id).where(MatchSeat.match_id > after)))

    # Bots entering and leaving.

    @initialize(games=st.lists(st.sampled_from([GAMES[:1], GAMES, GAMES[1:]]), min_size=2, max_size=2))
    def enter_two(self, games: list[tuple[str, ...]]) -> None:
        """Two bots to start with: most steps need a table."""
        for bot, played in enumerate(games):
            self.enter(bot, played)

    @precondition(lambda self: self.on_ladder() < len(NAMES))
    @rule(bot=st.integers(0, len(NAMES) - 1), games=st.sampled_from([GAMES[:1], GAMES, GAMES[1:]]))
    def enter(self, bot: int, games: tuple[str, ...]) -> None:
        name = NAMES[bot]
        data = archive(("bot.toml", manifest(name, games=json.dumps(list(games)))), ("bot.py", BOT_PY))
        outcome = asyncio.run(submit(self.make, self.store, self.users[bot % 2], data, validate=False))
        assert outcome.accepted, outcome.reason
        with self.make() as db:
            on = db.execute(select(BotVersion.seq, BotVersion.status).join(Bot).where(Bot.name == name, BotVersion.status.in_(ON_LADDER))).all()
        assert [tuple(row) for row in on] == [(outcome.seq, "active")], "the new version replaces the one on the ladder"

    @precondition(lambda self: self.on_ladder() > 0)
    @rule(bot=st.integers(0, len(NAMES) - 1), by=st.sampled_from(["owner", "operator", "other"]))
    def withdraw(self, bot: int, by: str) -> None:
        name = NAMES[bot]
        owner = {"owner": self.users[bot % 2].id, "operator": None, "other": self.users[1 - bot % 2].id}[by]
        with self.make() as db:
            exists = db.scalar(select(Bot.id).where(Bot.name == name)) is not None
            on = db.scalars(select(BotVersion.id).join(Bot).where(Bot.name == name, BotVersion.status.in_(ON_LADDER))).all()
            try:
                withdraw(db, owner, name)
            except WithdrawalRefused as refused:
                assert refused.status == (404 if not exists else 403 if by == "other" else 409), (refused.status, str(refused))
            else:
                assert exists and on and by != "other"
        with self.make() as db:
            left = db.scalars(select(BotVersion.id).join(Bot).where(Bot.name == name, BotVersion.status.in_(ON_LADDER))).all()
        assert list(left) == ([] if by != "other" else list(on))

    @precondition(lambda self: self.on_ladder("suspended") > 0)
    @rule(pick=st.integers(0, 2**16), any_bot=st.booleans())
    def reinstate(self, pick: int, any_bot: bool) -> None:
        """The operator reinstates a suspended bot (or, ``any_bot``, any bot: refused unless suspended); only its later
        forfeits count towards another suspension (``record``)."""
        with self.make() as db:
            names = NAMES if any_bot else db.scalars(select(Bot.name).join(BotVersion).where(BotVersion.status == "suspended").order_by(Bot.name)).all()
        name = names[pick % len(names)]
        with self.make() as db:
            suspended = db.scalar(select(BotVersion.id).join(Bot).where(Bot.name == name, BotVersion.status == "suspended"))
            try:
                reinstate(db, name)
            except ReinstatementRefused:
                assert suspended is None
                return
        assert suspended is not None
        self.counted_from[suspended] = len(self.forfeits[suspended])
        with self.make() as db:
            assert db.get_one(BotVersion, suspended).status == "active"

    # Matches queued.

    @rule(seed=st.integers(0, 2**16), more=st.integers(1, 8))
    def fill(self, seed: int, more: int) -> None:
        """The scheduler queues sets; none seats a version withdrawn or suspended (docs/ladder.md: "No match is
        scheduled for it any more"; "the scheduler seats it no more")."""
        with self.make() as db:
            before, active = self.newest_match(db), {v for v, s in self.statuses(db).items() if s == "active"}
            queued = db.scalar(select(func.count()).select_from(Match).where(Match.status == "queued")) or 0
            added = fill_queue(db, random.Random(seed), queued + more, games=list(GAMES))
            assert added == (db.scalar(select(func.count()).select_from(Match).where(Match.id > before)) or 0)
            assert self.seated_since(db, before) <= active
            assert added == 0 or added >= more

    @precondition(lambda self: self.on_ladder("active") > 1)
    @rule(
        who=st.integers(0, 1), theirs=st.integers(0, 4), opponent=st.integers(0, len(NAMES) - 1), game=st.sampled_from(GAMES),
        times=st.integers(1, OPEN_CHALLENGES + 1),
    )
    def challenge(self, who: int, theirs: int, opponent: int, game: str, times: int) -> None:
        """``times`` challenges by ``who``, mostly with a bot of theirs (``theirs`` 4: another's), refused when the
        scheduler's rules say so (the bot and opponent on the ladder, playing a game for two, at most OPEN_CHALLENGES
        sets open)."""
        for _ in range(times):
            self.challenge_once(who, theirs, opponent, game)

    def challenge_once(self, who: int, theirs: int, opponent: int, game: str) -> None:
        bot = 1 - who if theirs == 4 else who + 2 * (theirs % 2)
        owner = self.users[who].id
        with self.make() as db:
            before = self.newest_match(db)
            playing = {
                name: games
                for name, games in db.execute(select(Bot.name, BotVersion.games).join(Bot).where(BotVersion.status == "active"))
            }
            open_sets = db.scalar(select(func.count(func.distinct(Match.deal))).where(Match.challenger_id == owner, Match.status.in_(PENDING)))
            allowed = (
                bot != opponent and bot % 2 == who and game == GAMES[0] and (open_sets or 0) < OPEN_CHALLENGES
                and game in playing.get(NAMES[bot], []) and game in playing.get(NAMES[opponent], [])
            )
            try:
                made = challenge(db, owner, NAMES[bot], NAMES[opponent], game, 7)
            except ScheduleError as refused:
                assert not allowed, f"refused: {refused}"
                return
            assert allowed and len(made) == 2 and {m.kind for m in made} == {"challenge"}
            names = set(db.scalars(select(Bot.name).join(BotVersion).join(MatchSeat).where(MatchSeat.match_id > before)))
            assert names == {NAMES[bot], NAMES[opponent]}
            active = {v for v, s in self.statuses(db).items() if s == "active"}
            assert self.seated_since(db, before) <= active

    # Matches claimed, played and given back.

    @precondition(lambda self: bool(self.ids("queued")))
    @rule(worker=st.sampled_from(WORKERS))
    def claim(self, worker: str) -> None:
        with self.make() as db:
            first = db.scalar(select(Match.id).where(Match.status == "queued").order_by(Match.priority.desc(), Match.id).limit(1))
        # the most urgent first, the earliest queued among equals (docs/ladder.md: challenges, then placements)
        claimed = claim_next(self.make, worker, LEASE)
        assert claimed is not None and claimed.match_id == first
        with self.make() as db:
            seats = db.scalars(select(MatchSeat.bot_version_id).where(MatchSeat.match_id == claimed.match_id).order_by(MatchSeat.seat)).all()
            m = db.get_one(Match, claimed.match_id)
            assert (m.status, m.lease_owner) == ("running", worker)
        assert [v for v, _ in claimed.seats] == list(seats)

    def record(self, match_id: int, recorder: str, ranks: list[int], forfeits: set[int]) -> None:
        """Record ``match_id`` as ``recorder``: its seats ranked by ``ranks`` (past the table, the last rank) and those in
        ``forfeits`` forfeiting; it must succeed exactly when ``recorder`` holds its lease, and a version that forfeited
        its last SUSPEND matches is suspended."""
        with self.make() as db:
            m = db.get_one(Match, match_id)
            expected, judged = m.status == "running" and m.lease_owner == recorder, m.kind != "challenge"  # a challenge is never judged
            seats = list(db.scalars(select(MatchSeat.bot_version_id).where(MatchSeat.match_id == match_id).order_by(MatchSeat.seat)))
            before = self.statuses(db)
        n = len(seats)
        ranks, forfeits = [min(rank, n) for rank in ranks[:n]], {seat for seat in forfeits if seat < n}
        snapshot = self.snapshot() if not expected else None
        recorded = record_outcome(self.make, match_id, recorder, made_up(ranks, forfeits), played_by=recorder, suspend_after=SUSPEND)
        assert recorded == expected, f"match {match_id} recorded by {recorder}: {recorded}"
        if not recorded:
            assert self.snapshot() == snapshot, "a refused record changed the database"
            return
        self.ranks[match_id] = ranks
        against = held([(v, seat in forfeits) for seat, v in enumerate(seats)])
        for version in dict.fromkeys(seats) if judged else ():
            self.forfeits[version].append(version in against)
        with self.make() as db:
            after = self.statuses(db)
        for version in dict.fromkeys(seats):
            run = self.forfeits[version][self.counted_from[version]:][-SUSPEND:]
            due = before[version] == "active" and len(run) == SUSPEND and all(run)
            assert after[version] == ("suspended" if due else before[version]), (version, before[version], after[version], run)

    @precondition(lambda self: bool(self.ids("queued")))
    @rule(worker=st.sampled_from(WORKERS), ranks=RANKS, forfeits=FORFEITS)
    def play(self, worker: str, ranks: list[int], forfeits: set[int]) -> None:
        """The next match claimed and recorded at once, as most are."""
        claimed = claim_next(self.make, worker, LEASE)
        assert claimed is not None
        self.record(claimed.match_id, worker, ranks, forfeits)

    @precondition(lambda self: bool(self.ids("queued")))
    @rule(worker=st.sampled_from(WORKERS), times=st.integers(1, SUSPEND + 1), whole=st.booleans(), ranks=RANKS)
    def crashes(self, worker: str, times: int, whole: bool, ranks: list[int]) -> None:
        """The next ``times`` matches played, the first one's first bot forfeiting in each it plays: at every seat it
        holds (``whole``) or at its first only (a bot seated twice in an exhibition, which is not held against it)."""
        crasher = None
        for _ in range(times):
            claimed = claim_next(self.make, worker, LEASE)
            if claimed is None:
                return
            seats = [version for version, _ in claimed.seats]
            crasher = seats[0] if crasher is None else crasher
            mine = [seat for seat, version in enumerate(seats) if version == crasher]
            self.record(claimed.match_id, worker, ranks, set(mine if whole else mine[:1]))

    @precondition(lambda self: bool(self.ids("running")))
    @rule(pick=st.integers(0, 2**16), ranks=RANKS, forfeits=FORFEITS)
    def record_by_holder(self, pick: int, ranks: list[int], forfeits: set[int]) -> None:
        running = self.ids("running")
        match_id = running[pick % len(running)]
        with self.make() as db:
            holder = db.get_one(Match, match_id).lease_owner
        assert holder is not None
        self.record(match_id, holder, ranks, forfeits)

    @precondition(lambda self: bool(self.ids(*PENDING, "done", "failed")))
    @rule(status=st.sampled_from(["running", "done", "queued", "failed"]), pick=st.integers(0, 2**16), worker=st.sampled_from(WORKERS), ranks=RANKS, forfeits=FORFEITS)
    def record_any(self, status: str, pick: int, worker: str, ranks: list[int], forfeits: set[int]) -> None:
        """A match by any worker: a second record of a done match, a record by a worker whose lease was lost or never
        held, of a match queued or failed; only the lease's holder records."""
        some = self.ids(status) or self.ids(*PENDING, "done", "failed")
        self.record(some[pick % len(some)], worker, ranks, forfeits)

    @precondition(lambda self: bool(self.ids("running")))
    @rule(pick=st.integers(0, 2**16))
    def lease_runs_out(self, pick: int) -> None:
        running = self.ids("running")
        self.run_out(running[pick % len(running)])

    def run_out(self, match_id: int) -> None:
        """The lease of ``match_id`` runs out and the reaper queues it again, or fails it at its last attempt."""
        with self.make() as db:
            attempts = db.get_one(Match, match_id).attempts
            db.execute(update(Match).where(Match.id == match_id).values(lease_expires=time.time() - 5))
            db.commit()
        assert reap(self.make) == 1
        with self.make() as db:
            m = db.get_one(Match, match_id)
            assert (m.status, m.attempts) == ("failed" if attempts + 1 >= MAX_ATTEMPTS else "queued", attempts + 1)

    @precondition(lambda self: bool(self.ids("queued")))
    @rule(worker=st.sampled_from(WORKERS), dies=st.booleans(), times=st.integers(1, MAX_ATTEMPTS))
    def tried_in_vain(self, worker: str, dies: bool, times: int) -> None:
        """The next match claimed ``times`` times by workers that die (their leases run out) or cannot play it (released
        with an attempt counted): it comes back first each time, and fails at its last attempt."""
        match_id = None
        for _ in range(times):
            claimed = claim_next(self.make, worker, LEASE)
            assert claimed is not None and claimed.match_id == (match_id or claimed.match_id)
            match_id = claimed.match_id
            if dies:
                self.run_out(match_id)
            else:
                with self.make() as db:
                    attempts = db.get_one(Match, match_id).attempts + 1
                assert release(self.make, match_id, worker, count_attempt=True, error="no sandbox")
                with self.make() as db:
                    m = db.get_one(Match, match_id)
                    assert (m.status, m.attempts) == ("failed" if attempts >= MAX_ATTEMPTS else "queued", attempts)
            if match_id in self.ids("failed"):
                return

    @precondition(lambda self: bool(self.ids("running")))
    @rule(pick=st.integers(0, 2**16), by=st.sampled_from([None, *WORKERS]), count=st.booleans(), how=st.sampled_from(["release", "fail", "renew"]))
    def give_back(self, pick: int, by: str | None, count: bool, how: str) -> None:
        """Released (an attempt counted or not), failed or renewed, by the holder of its lease (``by`` None) or by a
        worker that may not hold it."""
        running = self.ids("running")
        match_id = running[pick % len(running)]
        with self.make() as db:
            m = db.get_one(Match, match_id)
            holder, attempts = m.lease_owner, m.attempts
        worker = by or holder
        assert worker is not None
        snapshot = self.snapshot()
        if how == "release":
            done = release(self.make, match_id, worker, count_attempt=count, error="could not start")
        elif how == "renew":
            done = renew(self.make, match_id, worker, LEASE)
        else:
            fail_match(self.make, match_id, worker, "the ladder failed")
            done = worker == holder
        assert done == (worker == holder)
        if not done:
            assert self.snapshot() == snapshot
            return
        with self.make() as db:
            m = db.get_one(Match, match_id)
            if how == "release":
                tried = attempts + count
                assert (m.status, m.attempts) == ("failed" if tried >= MAX_ATTEMPTS else "queued", tried)
            else:
                assert m.status == ("running" if how == "renew" else "failed")

    @precondition(lambda self: bool(self.ids("failed")))
    @rule()
    def sweep(self) -> None:
        """Every set whose matches are all over, one done, is rated once the sweep has passed (a set with a failed
        match waits for it)."""
        rate_settled_sets(self.make, skip=self.skip)
        assert not self.skip, "a set could not be rated"
        with self.make() as db:
            for deal, in db.execute(select(Match.deal).where(Match.kind.not_in(sorted(UNRATED))).distinct()):
                members = db.execute(select(Match.status, Match.rated_with).where(Match.deal == deal)).all()
                if any(s in PENDING for s, _ in members) or not any(s == "done" for s, _ in members):
                    continue
                assert all(r is not None for s, r in members if s == "done"), f"set {deal} is over and unrated: {members}"

    # What holds after every step.

    @invariant()
    def leases_are_consistent(self) -> None:
        with self.make() as db:
            for mid, status, owner, expires in db.execute(select(Match.id, Match.status, Match.lease_owner, Match.lease_expires)):
                assert status in ("queued", "running", "done", "failed"), (mid, status)
                assert (status == "running") == (owner is not None) == (expires is not None), (mid, status, owner, expires)

    @invariant()
    def results_are_recorded_once(self) -> None:
        """A done match has the ranks of its one record; no other match has any."""
        with self.make() as db:
            ranks: dict[int, list[int | None]] = defaultdict(list)
            for mid, rank in db.execute(select(MatchSeat.match_id, MatchSeat.rank).order_by(MatchSeat.match_id, MatchSeat.seat)):
                ranks[mid].append(rank)
            done = set(db.scalars(select(Match.id).where(Match.status == "done")))
        assert done == self.ranks.keys()
        for mid, seen in ranks.items():
            assert seen == self.ranks.get(mid, [None] * len(seen)), (mid, seen)

    @invariant()
    def sets_are_rated_once(self) -> None:
        with self.make() as db:
            check_rated_once(db)
            raters: dict[str, set[int]] = defaultdict(set)
            for deal, status, rated_with in db.execute(select(Match.deal, Match.status, Match.rated_with).where(Match.status != "queued")):
                if rated_with is not None:
                    raters[deal].add(rated_with)
            for deal, rated in raters.items():
                assert len(rated) == 1, f"set {deal} rated in parts: {rated}"
                pending = db.scalar(select(func.count()).select_from(Match).where(Match.deal == deal, Match.status.in_(PENDING)))
                assert not pending, f"set {deal} rated with {pending} of its matches still to play"

    @invariant()
    def ratings_rebuild_equal(self) -> None:
        with self.make() as db:
            assert mismatches(db) == []

    @invariant()
    def the_ladder_holds_one_version_per_bot(self) -> None:
        with self.make() as db:
            on = Counter(db.scalars(select(BotVersion.bot_id).where(BotVersion.status.in_(ON_LADDER))))
            assert all(n == 1 for n in on.values()), on
            for user in self.users:
                open_sets = db.scalar(select(func.count(func.distinct(Match.deal))).where(Match.challenger_id == user.id, Match.status.in_(PENDING)))
                assert (open_sets or 0) <= OPEN_CHALLENGES


def test_the_bookkeeping_holds_whatever_the_steps(tmp_path: Path) -> None:
    migrate(f"sqlite:///{tmp_path / 'ladder.db'}")

    class OnThisDatabase(Bookkeeping):
        template = tmp_path / "ladder.db"

    run_state_machine_as_test(OnThisDatabase, settings=MACHINE)
