"""What a spectator reads from the ladder's records (head to head, rating history), on hand-made match rows.

Written rows rather than played matches: the cases (a bot in two seats of one exhibition, a version's set rated after
its successor's first) are rare in a short real run, and the expected tables follow from the rows alone.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.orm import Session

from ladder.models import Bot, BotVersion, Match, MatchSeat, Rating, RatingChange, User
from ladder.queries import crosstable, rating_history, standings
from ladder.service import LadderConfig, open_db

_ids = itertools.count(1)


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Session]:
    with open_db(LadderConfig(tmp_path / "data"))() as session:
        yield session


def version(db: Session, bot: str, seq: int = 1) -> BotVersion:
    """Version ``seq`` of ``bot`` (made, with its owner, on first use)."""
    owner = db.query(User).filter_by(name="owner").one_or_none() or User(name="owner", token_hash=f"h{next(_ids)}", created_at=0.0)
    db.add(owner)
    db.flush()
    found = db.query(Bot).filter_by(name=bot).one_or_none() or Bot(name=bot, owner_id=owner.id, created_at=0.0)
    db.add(found)
    db.flush()
    made = BotVersion(bot_id=found.id, seq=seq, version=f"{seq}.0", status="active", games=["assassination"], language="python", path=bot, created_at=0.0)
    db.add(made)
    db.flush()
    return made


def match(db: Session, game: str, seats: list[tuple[BotVersion, int]], deal: str | None = None) -> Match:
    """A done match of ``game`` whose seats are (version, rank) in seat order."""
    made = Match(game=game, seed=1, num_players=len(seats), kind="exhibition", status="done", deal=deal or f"deal-{next(_ids)}", created_at=0.0, finished_at=1.0)
    db.add(made)
    db.flush()
    for seat, (v, rank) in enumerate(seats):
        db.add(MatchSeat(match_id=made.id, seat=seat, bot_version_id=v.id, rank=rank, score=float(10 - rank), verdicts=[]))
    db.flush()
    return made


def test_a_bot_seated_twice_in_an_exhibition_meets_each_opponent_once_per_match(db: Session) -> None:
    """Four seats, three bots: the crosstable counted a match once per pair of seats, so 'random' met
    'heuristic' in 324 games of a real ladder's 124 exhibitions."""
    heuristic, rnd, other = version(db, "heuristic"), version(db, "random"), version(db, "other")
    match(db, "assassination", [(rnd, 1), (heuristic, 2), (other, 3), (rnd, 4)])  # random's seats: one above, one below heuristic
    match(db, "assassination", [(rnd, 1), (heuristic, 2), (rnd, 3), (other, 4)])  # above and below heuristic again: a draw
    match(db, "assassination", [(rnd, 1), (rnd, 2), (heuristic, 3), (other, 4)])  # both seats above heuristic: a win
    db.commit()
    rows = {r["opponent"]: r for r in crosstable(db, "random")}
    assert {k: rows["heuristic"][k] for k in ("games", "wins", "draws", "losses")} == {"games": 3, "wins": 1, "draws": 2, "losses": 0}
    assert {k: rows["other"][k] for k in ("games", "wins", "draws", "losses")} == {"games": 3, "wins": 2, "draws": 1, "losses": 0}
    assert rows["heuristic"]["score"] == pytest.approx(2 / 3)
    assert "random" not in rows, "a bot is not its own opponent"
    # From the other side: heuristic met random in three matches, whatever random's number of seats.
    mine = {r["opponent"]: r for r in crosstable(db, "heuristic")}
    assert {k: mine["random"][k] for k in ("games", "wins", "draws", "losses")} == {"games": 3, "wins": 0, "draws": 2, "losses": 1}


def test_a_bot_in_one_seat_per_match_counts_as_before(db: Session) -> None:
    a, b, c = version(db, "a"), version(db, "b"), version(db, "c")
    match(db, "glory", [(a, 1), (b, 2), (c, 3)])
    match(db, "glory", [(b, 1), (a, 1), (c, 3)])
    last = match(db, "glory", [(c, 1), (a, 2)])
    db.commit()
    rows = {r["opponent"]: r for r in crosstable(db, "a")}
    assert [rows["b"][k] for k in ("games", "wins", "draws", "losses")] == [2, 1, 1, 0]
    assert [rows["c"][k] for k in ("games", "wins", "draws", "losses", "last_match")] == [3, 2, 0, 1, last.id]


def change(db: Session, v: BotVersion, mu: float) -> None:
    """A rating update of version ``v`` in Glory, rated with a match of its own."""
    rated = match(db, "glory", [(v, 1)])
    db.add(RatingChange(match_id=rated.id, bot_version_id=v.id, game="glory", mu=mu, sigma=5.0, created_at=float(rated.id)))
    db.flush()


def test_the_rating_history_gives_each_version_its_points_together(db: Session) -> None:
    """A set queued before version 2 took over is rated after version 2's first set, under version 1; the chart drew
    one line from 35 (version 1) to 18 (version 2) and back, with a 'version #1' marker after 'version #2'."""
    first, second = version(db, "bot"), version(db, "bot", seq=2)
    for v, mu in ((first, 30.0), (first, 35.0), (second, 18.0), (first, 34.0), (second, 20.0)):
        change(db, v, mu)
    db.commit()
    history = rating_history(db, "bot", "glory")
    assert [(h["seq"], h["mu"]) for h in history] == [(1, 30.0), (1, 35.0), (1, 34.0), (2, 18.0), (2, 20.0)]


def test_a_long_rating_history_is_thinned_to_about_the_points_asked_keeping_each_versions_ends(db: Session) -> None:
    """A busy bot's thousands of updates were sent whole to a chart 660 pixels wide (6,410 points at 200,000 matches)."""
    first, second = version(db, "bot"), version(db, "bot", seq=2)
    for i in range(40):
        change(db, first if i < 13 or i % 9 == 0 else second, 20.0 + i)  # version 1 also rated after version 2 began
    db.commit()
    whole = rating_history(db, "bot", "glory")
    assert [h["update"] for h in whole] == list(range(1, 41))
    ends = {1, 40} | {h["update"] for i, h in enumerate(whole[1:-1], 1) if h["seq"] != whole[i - 1]["seq"] or h["seq"] != whole[i + 1]["seq"]}
    assert len(ends) == 4  # 1 and 40; version 1's last update and version 2's first, side by side
    for points in (2, 5, 17):
        thin = rating_history(db, "bot", "glory", points)
        kept = [h["update"] for h in thin]
        assert kept == sorted(set(kept)) and ends <= set(kept), (points, kept)
        assert points <= len(thin) <= points + len(ends), (points, kept)
        assert thin == [whole[u - 1] for u in kept]  # points as they are in the whole history, nothing averaged
        gaps = [b - a for a, b in zip(kept, kept[1:])]
        assert max(gaps) <= -(-39 // (points - 1)) + 1, (points, kept)  # evenly spread: no stretch left out
    assert rating_history(db, "bot", "glory", 40) == whole == rating_history(db, "bot", "glory", 1000)


def test_a_bot_with_no_rated_game_has_no_rank_and_comes_after_the_ranked(db: Session) -> None:
    """Exhibitions only (three bots, four seats): the leaderboard ranked the newcomers 1, 2, 3 by name at 0.00."""
    for bot, mu, games in (("aa-new", 25.0, 0), ("zz-rated", 20.0, 4), ("mm-rated", 27.0, 2), ("bb-new", 25.0, 0)):
        db.add(Rating(bot_version_id=version(db, bot).id, game="assassination", mu=mu, sigma=25 / 3 if not games else 2.0, games=games, updated_at=0.0))
    db.flush()
    rows = standings(db, "assassination")
    assert [(r["bot"], r["rank"]) for r in rows] == [("mm-rated", 1), ("zz-rated", 2), ("aa-new", None), ("bb-new", None)]
