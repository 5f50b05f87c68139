"""What a bot author checks before trusting the ladder (docs/ladder.md, "Is it fair?"): every bot at every seat of
its deals alike over many sets, in every game and at every size of table; a forfeit rated as the loss its rank
says, no more and no less; a new version rated from scratch while the one it replaces keeps its rating."""

from __future__ import annotations

import random
from collections import Counter, defaultdict

from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from arena.v1 import referee_pb2 as pb
from ladder.models import BotVersion, Match, MatchSeat, Rating
from ladder.ratings import INITIAL, Skill
from ladder.ratings import update as rate
from ladder.scheduler import fill_queue
from ladder.worker import claim, record_outcome
from referee.games.registry import GAMES
from tests.ladder.conftest import LadderFixture
from tests.ladder.test_bookkeeping import add_bots, make  # noqa: F401  (the fixture)
from tests.ladder.test_leases import queue
from tests.ladder.test_submissions import BOT_PY, archive, manifest


def test_over_many_sets_every_bot_sits_at_every_seat_alike_in_every_game_and_size_of_table(make: sessionmaker[Session]) -> None:
    games = list(GAMES)
    add_bots(make, games, 6)
    rng = random.Random(11)
    for _ in range(25):
        with make() as db:
            fill_queue(db, rng, target=60, games=games)
            db.execute(update(Match).where(Match.status == "queued").values(status="done"))
            db.commit()
    with make() as db:
        rows = db.execute(select(Match.game, Match.num_players, Match.deal, Match.seed, MatchSeat.seat, MatchSeat.bot_version_id).join(MatchSeat)).all()
    seats: dict[tuple[str, int], Counter[tuple[int, int]]] = defaultdict(Counter)
    deals: dict[str, set[tuple[str, int, int]]] = defaultdict(set)
    at_seat: Counter[tuple[str, int, int]] = Counter()
    for game, n, deal, seed, seat, bot in rows:
        seats[game, n][bot, seat] += 1
        deals[deal].add((game, n, seed))
        at_seat[deal, bot, seat] += 1
    played = {(game, n) for game, n in seats}
    assert played == {(game, n) for game in games for n in GAMES[game].spec.player_counts}, played
    for (game, n), count in seats.items():
        for bot in {b for b, _ in count}:
            assert len({count[bot, seat] for seat in range(n)}) == 1, (game, n, bot, count)
    assert all(len(same) == 1 for same in deals.values()), "a set's matches share one game, size of table and seed"
    assert set(at_seat.values()) == {1}, "no bot sits twice at a seat of one deal"


def forfeiting(ranks: list[int], forfeited: set[int]) -> pb.MatchResult:
    """A result whose seats ``forfeited`` crashed (a FORFEIT verdict each), at the ranks the referee gave."""
    verdict = [pb.Verdict(kind=pb.CRASH, decision_index=0, detail="exited"), pb.Verdict(kind=pb.FORFEIT, decision_index=0, detail="gone")]
    return pb.MatchResult(seats=[pb.SeatResult(seat=s, rank=r, forfeited=s in forfeited, verdicts=verdict if s in forfeited else []) for s, r in enumerate(ranks)])


def test_a_forfeit_is_rated_as_the_loss_its_rank_says_and_the_opponent_as_a_winner(make: sessionmaker[Session]) -> None:
    """The referee ranks a seat that forfeits last; the ladder rates that as any loss: the opponent gains what a win
    over the same rating gains, and the set of a bot that crashed at every seat is one loss, not two."""
    crasher, opponent, loser, winner = add_bots(make, ["generals-war"], 4)
    for bots, result in (((crasher, opponent), forfeiting), ((loser, winner), lambda ranks, _: forfeiting(ranks, set()))):
        first, second = queue(make, list(bots))
        for match_id, ranks, seat in ((first, [2, 1], 0), (second, [1, 2], 1)):  # the first bot last at both of its seats
            assert claim(make, "w", 60) == match_id
            assert record_outcome(make, match_id, "w", result(ranks, {seat}), suspend_after=0)
    with make() as db:
        skill = {r.bot_version_id: (r.mu, r.sigma, r.games) for r in db.scalars(select(Rating))}
    assert skill[crasher] == skill[loser] and skill[opponent] == skill[winner]
    lost, won = rate([INITIAL, INITIAL], [2, 1])
    assert skill[opponent] == (won.mu, won.sigma, 2) and skill[crasher] == (lost.mu, lost.sigma, 2)


def test_a_new_version_is_rated_from_scratch_and_the_one_it_replaces_keeps_its_rating(ladder: LadderFixture) -> None:
    owner = ladder.user("nell")

    def send(version: str) -> int:
        reply = ladder.client.post("/api/bots", content=archive(("bot.toml", manifest("steady", version)), ("bot.py", BOT_PY)), headers=owner)
        assert reply.status_code == 201 and reply.json()["accepted"], reply.text
        return int(reply.json()["seq"])

    send("1.0")
    with ladder.make() as db:
        old = db.scalars(select(BotVersion.id).where(BotVersion.status == "active", BotVersion.path.startswith("steady/"))).one()
        db.execute(update(Rating).where(Rating.bot_version_id == old).values(mu=31.0, sigma=2.0, games=40))
        db.commit()
    assert send("1.1") == 2
    with ladder.make() as db:
        versions = {v.seq: v for v in db.scalars(select(BotVersion).where(BotVersion.path.startswith("steady/")))}
        assert (versions[1].status, versions[2].status) == ("retired", "active")
        assert versions[1].reason == "replaced by version #2"  # not a blank note, as if the operator had retired it
        ratings = {r.bot_version_id: (Skill(r.mu, r.sigma), r.games) for r in db.scalars(select(Rating).where(Rating.game == "generals-war"))}
    assert ratings[versions[1].id] == (Skill(31.0, 2.0), 40)
    assert ratings[versions[2].id] == (INITIAL, 0)
    standing = next(row for row in ladder.client.get("/api/games/generals-war/standings").json() if row["bot"] == "steady")
    assert (standing["version"], standing["games"], standing["mu"]) == ("1.1", 0, INITIAL.mu)
