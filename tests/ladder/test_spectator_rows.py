"""More of what a spectator reads (ladder/queries.py) on hand-made rows: which rows the leaderboard, the match
lists and a bot's page hold, and in what order."""

from __future__ import annotations

from sqlalchemy import update
from sqlalchemy.orm import Session

from ladder.models import MatchSeat, Rating
from ladder.queries import bot_detail, crosstable, recent_matches, standings, thinned
from tests.ladder.test_spectator_views import db, match, version  # noqa: F401  (the fixture)


def test_the_standings_list_only_active_versions(db: Session) -> None:
    """A bot's retired version (and a suspended one) keeps its rating row, but the leaderboard lists the version
    that plays now: listed too, the bot had two rows, the old one ranked by a rating it no longer plays at."""
    old, new = version(db, "bot", 1), version(db, "bot", 2)
    gone = version(db, "suspended")
    old.status, gone.status = "retired", "suspended"
    for v, mu in ((old, 40.0), (new, 30.0), (gone, 45.0)):
        db.add(Rating(bot_version_id=v.id, game="glory", mu=mu, sigma=2.0, games=5, updated_at=1.0))
    db.flush()
    assert [(r["bot"], r["seq"], r["rank"]) for r in standings(db, "glory")] == [("bot", 2, 1)]


def test_the_latest_matches_of_a_game_are_of_that_game_only(db: Session) -> None:
    a, b = version(db, "a"), version(db, "b")
    glory = match(db, "glory", [(a, 1), (b, 2)])
    other = match(db, "assassination", [(b, 1), (a, 2)])
    assert [m["id"] for m in recent_matches(db, game="glory")] == [glory.id]
    assert [m["id"] for m in recent_matches(db, game="assassination", bot="a")] == [other.id]
    assert {m["id"] for m in recent_matches(db)} == {glory.id, other.id}


def test_a_bots_page_lists_its_versions_in_order_each_with_its_own_ratings(db: Session) -> None:
    """Another bot's rating (or another version's) on a version read as this one's."""
    second, first, stranger = version(db, "bot", 2), version(db, "bot", 1), version(db, "stranger")  # made out of order
    db.add(Rating(bot_version_id=second.id, game="glory", mu=30.0, sigma=2.0, games=4, updated_at=1.0))
    db.add(Rating(bot_version_id=first.id, game="assassination", mu=20.0, sigma=3.0, games=2, updated_at=1.0))
    db.add(Rating(bot_version_id=stranger.id, game="land-and-castle", mu=50.0, sigma=1.0, games=9, updated_at=1.0))
    db.flush()
    shown = bot_detail(db, "bot")
    assert shown is not None and shown["name"] == "bot" and shown["owner"] == "owner"
    assert [(v["seq"], sorted(v["ratings"])) for v in shown["versions"]] == [(1, ["assassination"]), (2, ["glory"])]
    assert shown["versions"][1]["ratings"]["glory"] == {"mu": 30.0, "sigma": 2.0, "conservative": 24.0, "games": 4}
    assert bot_detail(db, "nobody") is None


def test_the_head_to_head_lists_each_game_by_the_opponents_met_most_then_by_name(db: Session) -> None:
    me, rare, often, also = version(db, "me"), version(db, "rare"), version(db, "often"), version(db, "also")
    for opponent, times in ((rare, 1), (often, 3), (also, 1)):
        for _ in range(times):
            match(db, "glory", [(me, 1), (opponent, 2)])
    match(db, "assassination", [(me, 2), (rare, 1)])
    db.flush()
    assert [(r["game"], r["opponent"], r["games"]) for r in crosstable(db, "me")] == [
        ("assassination", "rare", 1), ("glory", "often", 3), ("glory", "also", 1), ("glory", "rare", 1)
    ]


def test_a_seat_without_a_rank_is_level_with_its_opponents_from_either_side(db: Session) -> None:
    """No rank (a seat the referee could not place) is neither a win nor a loss, whichever side is asked about."""
    a, b = version(db, "a"), version(db, "b")
    match(db, "glory", [(a, 1), (b, 2)])
    db.execute(update(MatchSeat).where(MatchSeat.bot_version_id == a.id).values(rank=None))
    db.flush()
    for name, opponent in (("a", "b"), ("b", "a")):
        assert [(r["opponent"], r["wins"], r["draws"], r["losses"]) for r in crosstable(db, name)] == [(opponent, 0, 1, 0)], name


def test_a_history_thinned_to_fewer_than_two_points_keeps_its_ends() -> None:
    assert thinned([1, 1, 1, 1, 1], 1) == [0, 4]
    assert thinned([1, 1, 2, 2, 2], 0) == [0, 1, 2, 4]
