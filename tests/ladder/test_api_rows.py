"""The API on rows written straight into the database, as a remote worker leaves them (logs and replays as MatchFile
rows): whose seat's log is whose, seat by seat, with bot ids apart from their versions' ids; each match's own frames; a challenge's seats."""

from __future__ import annotations

import gzip
import json
import time
import uuid

from sqlalchemy import select
from sqlalchemy.orm import Session

from ladder.jobs import REPLAY_FILE, seat_log_name
from ladder.models import Bot, BotVersion, Match, MatchFile, MatchSeat, User
from referee.server.frames import build_frames
from tests.ladder.conftest import LadderFixture
from tests.web.test_frames import replay_data

GAME = "generals-war"


def add_bot(db: Session, owner: str, name: str, versions: int) -> int:
    """Bot ``name`` of ``owner`` with ``versions`` versions, the last active; that one's id."""
    bot = Bot(name=name, owner_id=db.scalars(select(User.id).where(User.name == owner)).one(), created_at=time.time())
    db.add(bot)
    db.flush()
    for seq in range(1, versions + 1):
        version = BotVersion(
            bot_id=bot.id, seq=seq, version=str(seq), status="active" if seq == versions else "retired", games=[GAME], language="python",
            path=f"{name}/{seq}", created_at=time.time(),
        )  # fmt: skip
        db.add(version)
        db.flush()
    return version.id


def add_played(db: Session, versions: list[int], files: dict[str, bytes], seed: int = 1) -> int:
    """A done match of ``versions`` (seat order), settled, with ``files`` kept in the database; its id."""
    match = Match(game=GAME, seed=seed, num_players=len(versions), kind="rated", status="done", deal=uuid.uuid4().hex, created_at=0.0, finished_at=1.0)
    db.add(match)
    db.flush()
    db.add_all(MatchSeat(match_id=match.id, seat=seat, bot_version_id=v, rank=1, score=0.0, verdicts=[]) for seat, v in enumerate(versions))
    db.add_all(MatchFile(match_id=match.id, name=name, size=len(data), data=gzip.compress(data), created_at=1.0) for name, data in files.items())
    db.commit()
    return match.id


def test_a_seat_s_log_is_its_own_bot_s_owner_s_and_no_other_seat_s(ladder: LadderFixture) -> None:
    """Read as a seat's owner, the log must be that seat's: a lookup by match alone, or a bot found by its version's
    id (equal to it while every bot has one version), handed one owner the other's log."""
    alice, bob = ladder.user("alice"), ladder.user("bob")
    with ladder.make() as db:
        mine = add_bot(db, "alice", "a", versions=2)  # version ids 1 and 2 for bot 1: bob's bot is 2
        theirs = add_bot(db, "bob", "b", versions=1)
        assert db.get_one(BotVersion, mine).bot_id != mine
        logs = {seat_log_name(0): b"alice's bot wrote this", seat_log_name(1): b"bob's bot wrote this"}
        match = add_played(db, [mine, theirs], logs)
    for headers, own, other in ((alice, 0, 1), (bob, 1, 0)):
        read = ladder.client.get(f"/api/matches/{match}/logs/{own}", headers=headers)
        assert read.status_code == 200 and read.json() == {"log": logs[seat_log_name(own)].decode()}, read.text
        refused = ladder.client.get(f"/api/matches/{match}/logs/{other}", headers=headers)
        assert refused.status_code == 403 and refused.json() == {"detail": "only the bot's owner may read its logs"}, refused.text
    assert ladder.client.get(f"/api/matches/{match}/logs/2", headers=alice).status_code == 404


def test_each_match_s_replay_kept_in_the_database_shows_its_own_frames(ladder: LadderFixture) -> None:
    """The frames are cached by match: under a name two matches shared, the second was shown the first's."""
    ladder.user("owner")
    with ladder.make() as db:
        seats = [add_bot(db, "owner", name, versions=1) for name in ("a", "b")]
        replays = {seed: replay_data(GAME, 2, seed) for seed in (1, 2)}
        matches = {seed: add_played(db, seats, {REPLAY_FILE: json.dumps(data).encode()}, seed) for seed, data in replays.items()}
    for seed, match in matches.items():
        for seat in ("all", 0):
            got = ladder.client.get(f"/api/matches/{match}/frames", params={"seat": str(seat)})
            assert got.status_code == 200, got.text
            assert got.json() == json.loads(json.dumps(build_frames(replays[seed], seat))), (seed, seat)
    assert build_frames(replays[1], "all") != build_frames(replays[2], "all")


def test_a_challenge_seats_the_challenger_s_own_active_version_and_the_opponent_s(ladder: LadderFixture) -> None:
    """A bot found by its version's id (equal to it while every bot has one version) seated another owner's version."""
    alice, bob = ladder.user("alice"), ladder.user("bob")
    with ladder.make() as db:
        mine = add_bot(db, "alice", "a", versions=2)
        theirs = add_bot(db, "bob", "b", versions=1)
        db.commit()
    for headers, bot, opponent in ((alice, "a", "b"), (bob, "b", "a")):
        made = ladder.client.post("/api/challenges", json={"bot": bot, "opponent": opponent, "game": GAME}, headers=headers)
        assert made.status_code == 201, made.text
        with ladder.make() as db:
            for match_id in made.json()["matches"]:
                assert sorted(db.scalars(select(MatchSeat.bot_version_id).where(MatchSeat.match_id == match_id))) == sorted([mine, theirs])
    refused = ladder.client.post("/api/challenges", json={"bot": "b", "opponent": "a", "game": GAME}, headers=alice)
    assert refused.status_code == 422 and refused.json()["detail"] == "you do not own b"
