"""How the scheduler seats a table and records it (ladder/scheduler.py ``choose_table``, ``exhibition``,
``queue_duplicate_set``, ``challenge``): what a bot author would see in the matches queued for their bot."""

from __future__ import annotations

import random
import time
from collections import Counter

from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from ladder.accounts import add_user
from ladder.models import Bot, Match, MatchSeat, User
from ladder.scheduler import OPEN_CHALLENGES, challenge, choose_table, fill_queue, queue_duplicate_set
from tests.ladder.test_bookkeeping import add_bots, make  # noqa: F401  (the fixture)
from tests.ladder.test_scheduler import placed


def cycle(ids: list[int]) -> tuple[int, ...]:
    """A table's order around it, read from its lowest id: the rotations of a set keep it, so it is what seating changes."""
    start = ids.index(min(ids))
    return tuple(ids[start:] + ids[:start])


def test_a_ladder_whose_neighbours_are_all_settled_still_seats_a_table() -> None:
    """Neighbours far apart in mu with narrow ratings: every chance of a wrong order is 0 in floating point, and
    ``random.choices`` refuses weights that sum to 0 (the scheduler's tick would fail on every game like it)."""
    rng = random.Random(9)
    for mus in ([60.0, 0.0], [90.0, 45.0, 0.0]):
        for _ in range(20):
            table = choose_table(placed(mus, sigma=0.3), 2, rng, random_share=0.0)
            ids = [e.version_id for e in table]
            assert len(set(ids)) == 2 and abs(ids[0] - ids[1]) == 1, ids  # neighbours in the order, drawn evenly


def test_neighbours_are_seated_in_a_random_order_around_the_table() -> None:
    """The rotations of a set give every bot every seat's cards but keep who sits after whom: seated always in the
    order by mu, the same bot played after the same neighbour in every set between them."""
    rng = random.Random(10)
    mus = [30.0, 27.0, 24.0, 21.0, 18.0, 18.0, 15.0, 12.0]  # 4 and 5 level: the table is {3, 4, 5, 6}
    cycles = Counter(cycle([e.version_id for e in choose_table(placed(mus), 4, rng, random_share=0.0)]) for _ in range(300))
    assert len(cycles) == 6, cycles  # the (4 - 1)! orders around a table of four
    firsts = Counter(choose_table(placed(mus), 2, rng, random_share=0.0)[0].version_id for _ in range(300))
    assert firsts[4] > 100 and firsts[5] > 100, firsts


def test_an_exhibition_seats_a_bot_seated_twice_apart_as_well_as_side_by_side(make: sessionmaker[Session]) -> None:
    """Three bots at the Assassination Game's four seats: the one seated twice is not always its own neighbour."""
    add_bots(make, ["assassination"], 3)
    side_by_side: Counter[bool] = Counter()
    for seed in range(12):
        seats = exhibition_seats(make, seed)
        twice = [seat for seat, vid in enumerate(seats) if seats.count(vid) == 2]
        side_by_side[(twice[1] - twice[0]) in (1, 3)] += 1  # seats 0 and 3 are neighbours round the table
    assert side_by_side[True] and side_by_side[False], side_by_side


def exhibition_seats(make: sessionmaker[Session], seed: int) -> list[int]:
    """The versions at the seats of the first match of one tick's exhibition, from an empty queue."""
    with make() as db:
        db.execute(update(Match).values(status="done"))
        fill_queue(db, random.Random(seed), target=4, games=["assassination"])
        first = db.scalars(select(Match.id).where(Match.status == "queued").order_by(Match.id)).first()
        return list(db.scalars(select(MatchSeat.bot_version_id).where(MatchSeat.match_id == first).order_by(MatchSeat.seat)))


def test_every_match_of_a_set_records_its_number_of_seats(make: sessionmaker[Session]) -> None:
    """The match's ``num_players`` bounds the seats its replay can be watched from (/api/matches/{id}/frames?seat=)."""
    two = add_bots(make, ["generals-war"], 2)
    four = [one_bot(make, f"four{i}", "generals-war") for i in range(4)]
    for n, bots in ((2, two), (4, four)):
        with make() as db:
            ids = queue_duplicate_set(db.connection(), "generals-war", bots, 1, "rated")
            db.commit()
            for match_id in ids:
                seated = db.scalars(select(MatchSeat.seat).where(MatchSeat.match_id == match_id)).all()
                assert db.get_one(Match, match_id).num_players == len(seated) == n


def one_bot(make: sessionmaker[Session], name: str, game: str, owner: str = "fourth") -> int:
    """An active version of a new bot ``name`` (its owner made if new); its id."""
    from ladder.models import BotVersion, Rating
    from ladder.ratings import INITIAL

    with make() as db:
        owner_id = db.scalar(select(User.id).where(User.name == owner))
        if owner_id is None:
            add_user(db, owner)
            owner_id = db.scalars(select(User.id).where(User.name == owner)).one()
        bot = Bot(name=name, owner_id=owner_id, created_at=time.time())
        db.add(bot)
        db.flush()
        version = BotVersion(bot_id=bot.id, seq=1, version="1", status="active", games=[game], language="python", path=f"{name}/1", created_at=time.time())
        db.add(version)
        db.flush()
        db.add(Rating(bot_version_id=version.id, game=game, mu=INITIAL.mu, sigma=INITIAL.sigma, games=0, updated_at=time.time()))
        db.commit()
        return version.id


def test_an_owners_challenges_do_not_count_against_another_owner(make: sessionmaker[Session]) -> None:
    """The cap is per owner: one owner with OPEN_CHALLENGES waiting does not shut out everyone else's challenges."""
    add_bots(make, ["generals-war"], 2)  # bot0 and bot1, of "owner"
    one_bot(make, "rival", "generals-war", owner="rival-owner")
    with make() as db:
        owner, rival = (db.scalars(select(User.id).where(User.name == name)).one() for name in ("owner", "rival-owner"))
        for seed in range(OPEN_CHALLENGES):
            challenge(db, owner, "bot0", "rival", "generals-war", seed)
        made = challenge(db, rival, "rival", "bot1", "generals-war", 99)
        assert len(made) == 2 and {m.challenger_id for m in made} == {rival}


def test_every_match_of_a_set_deals_the_same_cards(make: sessionmaker[Session]) -> None:
    """One deal from every seat: the set's matches share its seed (the cards) as well as its deal id; and each set,
    rated or an exhibition (three bots at the Assassination Game's four seats), is dealt other cards than the rest."""
    games = ["generals-war", "glory", "assassination"]
    add_bots(make, games, 3)
    with make() as db:
        fill_queue(db, random.Random(4), target=40, games=games)
        sets: dict[tuple[str, str], set[int]] = {}
        for game, deal, seed in db.execute(select(Match.game, Match.deal, Match.seed)):
            sets.setdefault((game, deal), set()).add(seed)
    assert all(len(seeds) == 1 for seeds in sets.values()), sets
    for game in games:
        dealt = [seed for (g, _), (seed,) in sets.items() if g == game]
        assert len(dealt) > 1 and len(set(dealt)) == len(dealt), (game, dealt)


def test_a_game_for_two_to_six_is_played_at_every_size_of_table_it_can_fill(make: sessionmaker[Session]) -> None:
    """Glory with six bots: tables of two to six all come up, not only the smallest or the largest."""
    add_bots(make, ["glory"], 6)
    with make() as db:
        fill_queue(db, random.Random(5), target=200, games=["glory"])
        sizes = set(db.scalars(select(Match.num_players)))
    assert sizes == {2, 3, 4, 5, 6}, sizes


def test_the_bot_an_exhibition_seats_twice_is_drawn_at_random(make: sessionmaker[Session]) -> None:
    """Three bots at four seats: not always the same one gets the extra seat (and its extra share of the cards)."""
    three = add_bots(make, ["assassination"], 3)
    doubled: Counter[int] = Counter()
    for seed in range(15):
        doubled[Counter(exhibition_seats(make, seed)).most_common(1)[0][0]] += 1
    assert set(doubled) == set(three), doubled


def test_a_placement_set_is_played_before_rated_sets_queued_ahead_of_it(make: sessionmaker[Session]) -> None:
    """A new bot's placement goes first: it should not wait behind the whole queue to get a rating."""
    from ladder.worker import claim

    a, b, c = add_bots(make, ["generals-war"], 3)
    with make() as db:
        queue_duplicate_set(db.connection(), "generals-war", [a, b], 1, "rated")
        placement = queue_duplicate_set(db.connection(), "generals-war", [c, a], 2, "placement")
        db.commit()
    assert claim(make, "w", 60) == placement[0]
