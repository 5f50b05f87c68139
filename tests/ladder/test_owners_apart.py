"""One owner's bots kept apart by the scheduler (ladder/scheduler.py ``choose_table``, ``table_sizes``,
``keep_apart``; docs/ladder.md, "Is it fair?"): real ticks of ``fill_queue`` over a database whose bots have
several owners, and the tables they queue read back from it."""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from itertools import combinations

from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from ladder.accounts import HOUSE, house_user
from ladder.models import Bot, BotVersion, Match, MatchSeat, Rating, User
from ladder.ratings import Skill
from ladder.scheduler import Entrant, choose_table, fill_queue, shared_pairs, table_sizes
from tests.ladder.test_bookkeeping import make  # noqa: F401  (the fixture)
from tests.ladder.test_seating import one_bot


def add_owned(make: sessionmaker[Session], game: str, owners: list[str]) -> list[int]:
    """One active bot version playing ``game`` for each name of ``owners`` (HOUSE: the house's, as the samples are),
    with a fresh rating; their ids, in that order."""
    if HOUSE in owners:
        with make() as db:
            house_user(db)  # made here: add_user refuses the name
    return [one_bot(make, f"{game}-{name}-{i}", game, owner=name) for i, name in enumerate(owners)]


def rate(make: sessionmaker[Session], skills: dict[int, tuple[float, float, int]]) -> None:
    """Give versions their (mu, sigma, games), as rated matches would have."""
    with make() as db:
        for vid, (mu, sigma, games) in skills.items():
            db.execute(update(Rating).where(Rating.bot_version_id == vid).values(mu=mu, sigma=sigma, games=games))
        db.commit()


def tick(make: sessionmaker[Session], game: str, seed: int, target: int = 24) -> list[tuple[str, list[str]]]:
    """One tick from an empty queue (what was queued before is marked played, unrated): each set's kind and the
    owners of its seats (by name), read back from the database."""
    with make() as db:
        db.execute(update(Match).values(status="done"))
        assert fill_queue(db, random.Random(seed), target=target, games=[game]) >= target
        rows = db.execute(
            select(Match.deal, Match.kind, MatchSeat.bot_version_id, User.name)
            .join(MatchSeat, MatchSeat.match_id == Match.id)
            .join(BotVersion, BotVersion.id == MatchSeat.bot_version_id)
            .join(Bot, Bot.id == BotVersion.bot_id)
            .join(User, User.id == Bot.owner_id)
            .where(Match.status == "queued")
        ).all()
        db.commit()
    tables: dict[str, dict[int, str]] = defaultdict(dict)
    kinds = {}
    for deal, kind, vid, owner in rows:
        tables[deal][vid] = owner
        kinds[deal] = kind
    return [(kinds[deal], list(seats.values())) for deal, seats in tables.items()]


def shared(owners: list[str]) -> int:
    """Pairs at a table with one owner, the house's bots apart."""
    return sum(k * (k - 1) // 2 for name, k in Counter(owners).items() if name != HOUSE)


def test_owners_enough_for_a_table_never_share_one_in_placement_random_or_neighbour_tables(make: sessionmaker[Session]) -> None:
    """Glory seats 2 to 6; four owners of two bots each fill tables of 2 to 4 with owners apart, so those are the
    sizes played, every one of them. Each owner's two bots are level in the order with wide ratings (the pairs
    likeliest misordered: drawn before most of the time), yet never at one table: their order comes through others."""
    owners = ["ann", "ann", "bob", "bob", "cat", "cat", "dan", "dan"]
    ids = add_owned(make, "glory", owners)
    sizes: Counter[int] = Counter()
    kinds: Counter[str] = Counter()
    for seed in range(12):
        mus = [30.0, 30.0, 24.0, 24.0, 18.0, 18.0, 12.0, 12.0]  # each owner's pair level
        placing = seed % 3 == 0  # a third of the ticks with a newcomer still in its placement
        rate(make, {vid: (mu, 6.0, 1 if placing and i == 2 else 10) for i, (vid, mu) in enumerate(zip(ids, mus))})
        for kind, seats in tick(make, "glory", seed):
            assert shared(seats) == 0, (seed, kind, seats)
            sizes[len(seats)] += 1
            kinds[kind] += 1
    assert set(sizes) == {2, 3, 4}, sizes
    assert kinds["placement"] and kinds["rated"], kinds


def test_a_smaller_table_is_preferred_when_only_it_keeps_owners_apart(make: sessionmaker[Session]) -> None:
    """General's War seats 2 or 4. Two owners of two bots each cannot fill four seats apart: the game is played by
    two, owner against owner, rather than at four with both pairs."""
    add_owned(make, "generals-war", ["ann", "ann", "bob", "bob"])
    for seed in range(6):
        for kind, seats in tick(make, "generals-war", seed):
            assert sorted(seats) == ["ann", "bob"], (seed, kind, seats)


def test_a_pool_that_cannot_keep_owners_apart_still_plays_with_the_fewest_pairs(make: sessionmaker[Session]) -> None:
    """The Assassination Game seats four alone. Three owners (two with two bots) cannot fill it apart: every table
    seats one pair of an owner, never two, and the rated and placement sets are queued all the same."""
    ids = add_owned(make, "assassination", ["ann", "ann", "bob", "bob", "cat"])
    kinds: Counter[str] = Counter()
    for seed in range(8):
        rate(make, {vid: (25.0 - 2 * i, 3.0, 2 if seed % 2 and i == 0 else 10) for i, vid in enumerate(ids)})
        for kind, seats in tick(make, "assassination", seed, target=16):
            assert len(seats) == 4 and shared(seats) == 1, (seed, kind, seats)
            kinds[kind] += 1
    assert kinds["placement"] and kinds["rated"] and not kinds["exhibition"], kinds


def test_one_owners_bots_alone_are_played_at_every_size(make: sessionmaker[Session]) -> None:
    """A pool of one owner's bots: no table can keep them apart, nobody else's rating is at stake, and every size
    of General's War is still played."""
    add_owned(make, "generals-war", ["ann"] * 5)
    sizes = Counter(len(seats) for seed in range(6) for _, seats in tick(make, "generals-war", seed))
    assert set(sizes) == {2, 4}, sizes


def test_the_house_bots_share_tables_with_each_other_and_one_owner_plays_with_them(make: sessionmaker[Session]) -> None:
    """Three sample bots (the house's) and one owner's bot fill the Assassination Game's four seats: a rated table,
    not an exhibition. With two bots of another owner, General's War still seats four: one of them with three of the
    house's, never both; and two house bots may meet head to head."""
    add_owned(make, "assassination", [HOUSE, HOUSE, HOUSE, "ann"])
    for seed in range(4):
        for kind, seats in tick(make, "assassination", seed, target=8):
            assert sorted(seats) == sorted([HOUSE, HOUSE, HOUSE, "ann"]) and kind in ("placement", "rated"), (kind, seats)
    add_owned(make, "generals-war", [HOUSE, HOUSE, HOUSE, "bob", "bob"])
    sizes: Counter[tuple[int, int]] = Counter()  # by seats, and bob's bots among them
    for seed in range(8):
        for _, seats in tick(make, "generals-war", seed):
            sizes[len(seats), seats.count("bob")] += 1
    assert sizes[4, 1] and sizes[2, 1] and not sizes[4, 2] and not sizes[2, 2], sizes


def test_every_table_seats_the_fewest_pairs_of_one_owner_that_any_table_could() -> None:
    """Random pools of a few owners and house bots (owner None), in and past their placements, at every branch of
    ``choose_table``: each table has as few pairs of one owner as the best of all tables of its size (counted here by
    trying every one), and the sizes drawn are those whose best is least."""
    rng = random.Random(5)
    for _ in range(400):
        size = rng.randrange(4, 9)
        owners = [rng.choice([None, 1, 2, 3]) for _ in range(size)]
        pool = [Entrant(i, f"b{i}", Skill(rng.choice([20.0, 25.0, 30.0]), rng.uniform(0.5, 6.0)), rng.randrange(12), owner) for i, owner in enumerate(owners)]
        counts = [n for n in (2, 3, 4, 5, 6) if n <= size]
        best = {n: min(shared_pairs(list(table)) for table in combinations(pool, n)) for n in counts}
        sizes = table_sizes(pool, counts)
        if len(set(owners)) > 1 or owners[0] is None:
            assert sizes == [n for n in counts if best[n] == min(best.values())], (owners, best, sizes)
        for n in sizes:
            table = choose_table(pool, n, rng, random_share=rng.choice([0.0, 0.5, 1.0]))
            assert len({e.version_id for e in table}) == n and shared_pairs(table) == best[n], (owners, n, table)
