"""What a spectator reads (ladder/queries.py): the leaderboard, and nothing of a deal before all of it is played;
on hand-made rows."""

from __future__ import annotations

from sqlalchemy import update
from sqlalchemy.orm import Session

from ladder.models import MatchSeat, Rating, RatingChange
from ladder.queries import crosstable, match_summaries, match_summary, rating_history, recent_matches, standings
from tests.ladder.test_spectator_views import db, match, version  # noqa: F401  (the fixture)


def test_a_ranked_bot_below_the_starting_rating_still_comes_before_the_unranked(db: Session) -> None:
    """A losing bot's mu - 3 sigma falls below a newcomer's 0.00: ranked, it is still listed among the ranked, and
    the newcomers after every one of them."""
    for bot, mu, sigma, games in (("aa-new", 25.0, 25 / 3, 0), ("loser", 12.0, 5.0, 8), ("winner", 30.0, 2.0, 8)):
        db.add(Rating(bot_version_id=version(db, bot).id, game="glory", mu=mu, sigma=sigma, games=games, updated_at=1.0))
    db.flush()
    rows = standings(db, "glory")
    assert [(r["bot"], r["rank"]) for r in rows] == [("winner", 1), ("loser", 2), ("aa-new", None)]
    assert rows[1]["conservative"] < rows[2]["conservative"] == 0.0


def test_a_bot_of_two_games_is_listed_once_in_each_with_that_games_rating(db: Session) -> None:
    both = version(db, "both")
    db.add(Rating(bot_version_id=both.id, game="glory", mu=30.0, sigma=2.0, games=6, updated_at=1.0))
    db.add(Rating(bot_version_id=both.id, game="assassination", mu=20.0, sigma=3.0, games=4, updated_at=1.0))
    db.flush()
    assert [(r["bot"], r["mu"], r["games"]) for r in standings(db, "glory")] == [("both", 30.0, 6)]
    assert [(r["bot"], r["mu"], r["games"]) for r in standings(db, "assassination")] == [("both", 20.0, 4)]


def test_a_match_whose_twin_is_being_played_shows_nothing_of_its_deal(db: Session) -> None:
    """Its twin's bots play the same cards while it runs: the played half's seed, ranks and head-to-head stay hidden
    until the twin ends, as while the twin waits in the queue."""
    a, b = version(db, "a"), version(db, "b")
    played = match(db, "glory", [(a, 1), (b, 2)], deal="the-deal")
    twin = match(db, "glory", [(b, 1), (a, 2)], deal="the-deal")
    said = [{"kind": "ILLEGAL_ACTION", "decision": 3, "detail": "card 23 is not in your hand"}]
    db.execute(update(MatchSeat).where(MatchSeat.match_id == played.id, MatchSeat.seat == 1).values(verdicts=said))
    for status in ("queued", "running"):
        twin.status = status
        db.flush()
        for shown in (match_summary(db, played), match_summaries(db, [played])[0]):
            assert shown["settled"] is False and shown["seed"] is None and shown["deal"] is None, (status, shown)
            assert [s["rank"] for s in shown["seats"]] == [None, None], status
            assert [s["verdicts"] for s in shown["seats"]] == [[], []], status
        assert crosstable(db, "a") == [], status
    twin.status = "done"
    db.flush()
    assert match_summary(db, played)["seed"] == 1 and [s["rank"] for s in match_summaries(db, [played])[0]["seats"]] == [1, 2]
    assert [(r["opponent"], r["games"], r["wins"], r["losses"]) for r in crosstable(db, "a")] == [("b", 2, 1, 1)]
    assert match_summary(db, played)["seats"][1]["verdicts"] == said


def test_the_head_to_head_counts_played_matches_of_the_game_asked_and_no_failed_one(db: Session) -> None:
    """A failed match has no ranks: counted, it read as a draw. Asked for one game, the others' matches stay out."""
    a, b = version(db, "a"), version(db, "b")
    match(db, "glory", [(a, 1), (b, 2)])
    match(db, "assassination", [(a, 2), (b, 1)])
    failed = match(db, "glory", [(a, 1), (b, 1)])
    failed.status = "failed"
    db.execute(update(MatchSeat).where(MatchSeat.match_id == failed.id).values(rank=None))
    db.flush()
    assert [(r["game"], r["games"], r["wins"], r["draws"], r["losses"]) for r in crosstable(db, "a")] == [
        ("assassination", 1, 0, 0, 1), ("glory", 1, 1, 0, 0)
    ]
    assert [(r["game"], r["games"], r["wins"]) for r in crosstable(db, "a", "glory")] == [("glory", 1, 1)]


def test_recent_matches_are_the_finished_ones(db: Session) -> None:
    a, b = version(db, "a"), version(db, "b")
    done = match(db, "glory", [(a, 1), (b, 2)])
    waiting = match(db, "glory", [(b, 1), (a, 2)])
    waiting.status, waiting.finished_at = "queued", None
    db.flush()
    assert [m["id"] for m in recent_matches(db)] == [done.id] == [m["id"] for m in recent_matches(db, bot="a")]


def test_an_unranked_bot_has_no_last_match_and_a_rating_history_is_of_the_game_asked(db: Session) -> None:
    v = version(db, "bot")
    db.add(Rating(bot_version_id=v.id, game="glory", mu=25.0, sigma=25 / 3, games=0, updated_at=5.0))
    rated = match(db, "glory", [(v, 1)])
    db.add(RatingChange(match_id=rated.id, bot_version_id=v.id, game="assassination", mu=27.0, sigma=7.0, created_at=5.0))
    db.flush()
    assert [(r["bot"], r["last_match"]) for r in standings(db, "glory")] == [("bot", None)]
    assert rating_history(db, "bot", "glory") == []
    assert [h["mu"] for h in rating_history(db, "bot", "assassination")] == [27.0]


def test_standings_rank_by_the_conservative_rating_mu_minus_three_sigma(db: Session) -> None:
    """A bot sure of 27 (mu 30, sigma 1) is above one that may be 26 (mu 35, sigma 3), though the second is ahead by
    mu alone and by mu - 2 sigma (29 against 28)."""
    for bot, mu, sigma in (("steady", 30.0, 1.0), ("unsure", 35.0, 3.0)):
        db.add(Rating(bot_version_id=version(db, bot).id, game="glory", mu=mu, sigma=sigma, games=9, updated_at=1.0))
    db.flush()
    rows = standings(db, "glory")
    assert [(r["bot"], r["rank"], r["conservative"]) for r in rows] == [("steady", 1, 27.0), ("unsure", 2, 26.0)]
