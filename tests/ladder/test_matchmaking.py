"""Whom one tick of the scheduler seats (ladder/scheduler.py ``fill_queue``, ``plan_one``, ``exhibition``,
``choose_table``): what a bot author sees of the sets queued for their bot in the turn of a tick."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest
from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from ladder.models import Match, MatchSeat, Rating
from ladder.scheduler import PLACEMENT_GAMES, choose_table, fill_queue
from tests.ladder.test_bookkeeping import add_bots, make  # noqa: F401  (the fixture)
from tests.ladder.test_scheduler import placed


def test_a_new_bot_gets_its_placement_sets_not_every_set_of_the_tick(make: sessionmaker[Session]) -> None:
    """Within one tick the sets already planned count as the seated bots' games: else a newcomer stayed at 0 games
    for the whole tick and sat at every one of its tables, all of them placements."""
    new, *old = add_bots(make, ["land-and-castle"], 4)
    with make() as db:
        db.execute(update(Rating).where(Rating.bot_version_id.in_(old)).values(games=10))
        db.commit()
    for seed in range(5):
        with make() as db:
            db.execute(update(Match).values(status="done"))  # nothing coming: each tick from scratch
            assert fill_queue(db, random.Random(seed), target=20, games=["land-and-castle"]) == 20
            queued = db.scalars(select(Match).where(Match.status == "queued")).all()
            placements = [m for m in queued if m.kind == "placement"]
            seated = Counter(db.scalars(select(MatchSeat.bot_version_id).join(Match).where(Match.status == "queued")))
            db.commit()
        assert len(placements) == PLACEMENT_GAMES, (seed, Counter(m.kind for m in queued))
        assert seated[new] < len(queued), (seed, seated)


def test_games_of_two_and_four_seats_share_one_ticks_matches(make: sessionmaker[Session]) -> None:
    """Filled from an empty queue in one tick, an exhibition of four matches and sets of two are counted by their
    matches: counted by sets, the game for four could take eight of ten."""
    add_bots(make, ["assassination", "generals-war"], 2)
    for seed in range(8):
        with make() as db:
            db.execute(update(Match).values(status="done"))
            added = fill_queue(db, random.Random(seed), target=8, games=["assassination", "generals-war"])
            queued = Counter(db.scalars(select(Match.game).where(Match.status == "queued")))
            db.commit()
        assert added == 8 and queued == {"assassination": 4, "generals-war": 4}, (seed, queued)


def test_an_exhibition_seats_each_bot_as_often_as_the_others_or_once_more(make: sessionmaker[Session]) -> None:
    """Three bots at the Assassination Game's four seats: one of them twice, the others once, at every match."""
    three = add_bots(make, ["assassination"], 3)
    for seed in range(10):
        with make() as db:
            db.execute(update(Match).values(status="done"))
            fill_queue(db, random.Random(seed), target=4, games=["assassination"])
            for match_id in db.scalars(select(Match.id).where(Match.status == "queued")):
                seats = Counter(db.scalars(select(MatchSeat.bot_version_id).where(MatchSeat.match_id == match_id)))
                assert set(seats) == set(three) and sorted(seats.values()) == [1, 1, 2], (seed, seats)
            db.commit()


def test_an_open_pair_at_the_bottom_of_the_order_sits_with_those_above_it_at_a_larger_table() -> None:
    """A table is always ``n`` entrants, wherever the pair is in the order."""
    rng = random.Random(8)
    mus = [30.0, 27.0, 24.0, 21.0, 15.0, 15.0]  # the last two level: the pair to draw
    for _ in range(300):
        table = choose_table(placed(mus), 4, rng, random_share=0.0)
        assert sorted(e.version_id for e in table) == [2, 3, 4, 5]


def test_a_tick_queues_only_the_games_the_ladder_serves(make: sessionmaker[Session]) -> None:
    """``arena ladder serve --game G``: bots that also play other games get matches of G alone."""
    add_bots(make, ["land-and-castle", "generals-war", "glory"], 3)
    with make() as db:
        assert fill_queue(db, random.Random(1), target=12, games=["generals-war"]) == 12
        assert set(db.scalars(select(Match.game))) == {"generals-war"}



def test_a_ladder_started_again_with_its_seed_deals_none_of_the_deals_it_dealt_before(tmp_path: Path) -> None:
    """`--seed` fixed the scheduler's generator at every start: past its placements, a ladder started again dealt the
    very seeds of its earlier sets, whose replays (every hand) are public once played. A bot that knew its hand
    from one of them read its opponents' cards there. A new ladder with a seed still schedules alike every time."""
    from ladder.service import Ladder, LadderConfig

    def start(folder: str) -> Ladder:
        return Ladder(LadderConfig(tmp_path / folder, samples=False, games=["land-and-castle"], seed=1))

    def tick(ladder: Ladder) -> list[int]:
        with ladder.make() as db:
            assert fill_queue(db, ladder.rng, target=8, games=["land-and-castle"]) == 8
            seeds = list(db.scalars(select(Match.seed).where(Match.status == "queued").order_by(Match.id)))
            db.execute(update(Match).values(status="done"))  # played and settled: their seeds and replays are public
            db.commit()
        return seeds

    dealt = []
    for folder in ("one", "two"):  # two new ladders with the same seed and bots: the same sets
        ladder = start(folder)
        add_bots(ladder.make, ["land-and-castle"], 4)
        with ladder.make() as db:
            db.execute(update(Rating).values(games=20))  # every bot past its placement, as on any busy ladder
            db.commit()
        dealt.append(tick(ladder))
    assert dealt[0] == dealt[1]
    again = tick(start("one"))  # the same data folder and --seed: the next start
    assert not set(again) & set(dealt[0])


def test_a_ladder_without_a_seed_deals_from_a_generator_whose_outputs_tell_nothing_of_the_next(tmp_path: Path) -> None:
    """A Mersenne Twister's whole state follows from its outputs, and the seeds of settled deals are public: whoever
    gathered enough of them could work out the seeds of deals to come, so every hand of them. The system's source
    keeps no state to work out (``getstate`` is refused)."""
    from ladder.service import Ladder, LadderConfig

    rng = Ladder(LadderConfig(tmp_path / "data", samples=False, games=["land-and-castle"])).rng
    with pytest.raises(NotImplementedError):
        rng.getstate()
