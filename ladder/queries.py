"""Read-only views of the ladder for the API and the terminal."""

from __future__ import annotations

import gzip
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from sqlalchemy import case, func, or_, select
from sqlalchemy.orm import Session, aliased

from ladder.jobs import REPLAY_FILE, seat_log_name
from ladder.datafiles import located
from ladder.models import FINISHED, MAX_INT, PENDING, Bot, BotVersion, Match, MatchFile, MatchSeat, Rating, RatingChange, User, name_is
from ladder.ratings import Skill


def standings(db: Session, game: str) -> list[dict[str, Any]]:
    """Active versions in ``game`` by conservative rating (mu - 3 sigma), then those with no rated game yet (rank None)."""
    rows = db.execute(
        select(Bot.name, User.name, BotVersion.version, BotVersion.seq, BotVersion.id, Rating.mu, Rating.sigma, Rating.games, Rating.updated_at)
        .join(BotVersion, BotVersion.bot_id == Bot.id)
        .join(User, User.id == Bot.owner_id)
        .join(Rating, (Rating.bot_version_id == BotVersion.id) & (Rating.game == game))
        .where(BotVersion.status == "active")
    ).all()
    table: list[dict[str, Any]] = [
        {
            "bot": bot, "owner": owner, "version": version, "seq": seq, "version_id": vid, "mu": mu, "sigma": sigma,
            "conservative": Skill(mu, sigma).conservative, "games": games, "last_match": last if games else None,
        }
        for bot, owner, version, seq, vid, mu, sigma, games, last in rows
    ]
    # A version with no rated game has no rank: it sits at the starting rating, and ranking the newcomers by name
    # (1, 2, 3 at 0.00) read as results. It is listed after the ranked ones, with rank None.
    table.sort(key=lambda r: (r["games"] == 0, -r["conservative"], r["bot"]))
    for i, row in enumerate(table, start=1):
        row["rank"] = i if row["games"] else None
    return table


#: Deals with a match still to play. Named, not "not finished": NOT IN scanned every match, IN uses the status index.
UNSETTLED_DEALS = select(Match.deal).where(Match.status.in_(PENDING))


def get_match(db: Session, match_id: int) -> Match | None:
    """The match ``match_id``, or None; ids beyond what the column holds are not asked of the database (it would overflow)."""
    return db.get(Match, match_id) if 0 <= match_id <= MAX_INT else None


def unsettled_deals(db: Session, deals: Iterable[str]) -> set[str]:
    """The deals among ``deals`` with a match still to play (queued or running)."""
    wanted = set(deals)
    if not wanted:
        return set()
    return set(db.scalars(UNSETTLED_DEALS.where(Match.deal.in_(wanted)).distinct()))


def settled(db: Session, match: Match) -> bool:
    """Whether ``match`` and every match of its deal are finished (done, failed or cancelled).

    Until then its seed, its replay and its logs are held back: the twin of a duplicate set plays the same
    deal, and a bot that could read them (through this API, from its own process) would know every hidden card.
    """
    return match.status in FINISHED and not unsettled_deals(db, [match.deal])


def public_verdicts(verdicts: list[dict[str, Any]], is_settled: bool) -> list[dict[str, Any]]:
    """A seat's verdicts, once its deal is settled; none before. A detail may name cards of the deal (an illegal
    action's "card 23 is not in your hand"), a forfeit tells the seat's rank, and the decision a timeout came at
    how long the match ran: each tells a bot of the twin match something of how the deal went."""
    return verdicts if is_settled else []


def match_summary(db: Session, match: Match, is_settled: bool | None = None) -> dict[str, Any]:
    """A match for the API; its seed, deal, ranks, scores and verdict details only once its deal is settled (``settled``),
    which ``is_settled`` may tell: how a deal went for each seat tells the twin's bots something of its cards."""
    if is_settled is None:
        is_settled = settled(db, match)
    return _summary(match, _seats_of(db, [match.id]).get(match.id, []), is_settled)


def match_summaries(db: Session, matches: Sequence[Match]) -> list[dict[str, Any]]:
    """``match_summary`` of each match, their seats and deals read in one query each (a query per match took 1 ms)."""
    pending = unsettled_deals(db, (m.deal for m in matches))
    seats = _seats_of(db, [m.id for m in matches])
    return [_summary(m, seats.get(m.id, []), m.status in FINISHED and m.deal not in pending) for m in matches]


def _seats_of(db: Session, match_ids: list[int]) -> dict[int, list[Any]]:
    """The seats of these matches with their bots' names and versions, in seat order, by match."""
    by_match: dict[int, list[Any]] = {}
    if not match_ids:
        return by_match
    rows = db.execute(
        select(MatchSeat, Bot.name, BotVersion.version)
        .join(BotVersion, BotVersion.id == MatchSeat.bot_version_id)
        .join(Bot, Bot.id == BotVersion.bot_id)
        .where(MatchSeat.match_id.in_(match_ids))
        .order_by(MatchSeat.match_id, MatchSeat.seat)
    ).all()
    for row in rows:
        by_match.setdefault(row[0].match_id, []).append(row)
    return by_match


def _summary(match: Match, seats: list[Any], is_settled: bool) -> dict[str, Any]:
    return {
        "id": match.id, "game": match.game, "kind": match.kind, "status": match.status, "settled": is_settled,
        "seed": match.seed if is_settled else None, "deal": match.deal if is_settled else None,
        "attempts": match.attempts, "created_at": match.created_at, "finished_at": match.finished_at, "error": match.error,
        # The age in days its logs or replay were pruned at (``arena ladder prune``), None while kept: a client can
        # tell a replay to fetch from one gone (410) before asking.
        "logs_pruned_days": match.logs_pruned_days, "replay_pruned_days": match.replay_pruned_days,
        "seats": [
            {"seat": s.seat, "bot": name, "version": version, "version_id": s.bot_version_id, "rank": s.rank if is_settled else None,
             "score": s.score if is_settled else None, "verdicts": public_verdicts(s.verdicts, is_settled)}
            for s, name, version in seats
        ],
    }


#: Seats a bot may have for its recent matches to be read by their ids (``recent_matches``); more are found by walking the end-time index.
FEW_SEATS = 1000


def recent_matches(db: Session, game: str | None = None, bot: str | None = None, limit: int = 20) -> list[dict[str, Any]]:
    # The finished matches are those with an end time (done, failed or cancelled; migration 0006 gave one to the
    # failures older ladders left without): asked so, the end-time index both finds them and orders them, where SQLite took the
    # status index and sorted every finished match.
    query = select(Match).where(Match.finished_at.is_not(None))
    if game:
        query = query.where(Match.game == game)
    if bot:
        versions = select(BotVersion.id).join(Bot, Bot.id == BotVersion.bot_id).where(name_is(Bot.name, bot))
        # A bot of few seats (new, retired, or in a game seldom played): its matches by id, few to sort. Walked along
        # the end-time index, the whole history was read before its few were found (0.36 s at 200,000 matches for a bot
        # of 5, where listing them took 30 ms).
        few = db.scalars(select(MatchSeat.match_id).where(MatchSeat.bot_version_id.in_(versions)).limit(FEW_SEATS + 1)).all()
        if len(few) <= FEW_SEATS:
            query = query.where(Match.id.in_(sorted(set(few))))
        else:
            # EXISTS, walked along the end-time index until enough are found: IN listed every match the bot ever played.
            query = query.where(select(MatchSeat.id).where(MatchSeat.match_id == Match.id, MatchSeat.bot_version_id.in_(versions)).exists())
    # No NULLS LAST: there is no NULL here (PostgreSQL put them first, and failures without an end time filled the list).
    matches = db.scalars(query.order_by(Match.finished_at.desc(), Match.id.desc()).limit(limit)).all()
    return match_summaries(db, matches)


def bot_detail(db: Session, name: str) -> dict[str, Any] | None:
    bot = db.scalar(select(Bot).where(name_is(Bot.name, name)))
    if bot is None:
        return None
    owner = db.get_one(User, bot.owner_id)
    versions = db.scalars(select(BotVersion).where(BotVersion.bot_id == bot.id).order_by(BotVersion.seq)).all()
    out_versions = []
    for v in versions:
        ratings = db.scalars(select(Rating).where(Rating.bot_version_id == v.id)).all()
        out_versions.append(
            {
                "seq": v.seq, "version": v.version, "status": v.status, "games": v.games, "reason": v.reason, "created_at": v.created_at,
                "ratings": {r.game: {"mu": r.mu, "sigma": r.sigma, "conservative": Skill(r.mu, r.sigma).conservative, "games": r.games} for r in ratings},
            }
        )
    return {"name": bot.name, "owner": owner.name, "versions": out_versions}


def rating_history(db: Session, name: str, game: str, points: int | None = None) -> list[dict[str, Any]]:
    """Every rating update of bot ``name`` in ``game`` (one per duplicate set rated), version by version, each in order.

    By version first: a set queued before a new version took over is rated after that version's first sets, under
    the version that played it; in the order of updates alone the chart's line went from one version's rating to
    the other's and back. Each point's ``update`` is its place in that order, from 1.

    With ``points``, a long history is thinned to about that many (``thinned``): a busy bot's thousands of updates
    were sent whole to be drawn in a chart 660 pixels wide.
    """
    rows = db.execute(
        select(RatingChange.match_id, RatingChange.mu, RatingChange.sigma, RatingChange.created_at, BotVersion.seq)
        .join(BotVersion, BotVersion.id == RatingChange.bot_version_id)
        .join(Bot, Bot.id == BotVersion.bot_id)
        .where(name_is(Bot.name, name), RatingChange.game == game)
        .order_by(BotVersion.seq, RatingChange.id)
    ).all()
    history = []
    for i in thinned([row[4] for row in rows], points) if points is not None else range(len(rows)):
        m, mu, sigma, at, seq = rows[i]
        history.append({"update": i + 1, "match": m, "mu": mu, "sigma": sigma, "conservative": Skill(mu, sigma).conservative, "at": at, "seq": seq})
    return history


def thinned(seqs: list[int], points: int) -> list[int]:
    """Which of a history's points to keep, given each point's version: ``points`` of them evenly spread, and the
    first and last of every version, so that the chart's version lines and each version's last rating stay."""
    n, points = len(seqs), max(points, 2)
    if n <= points:
        return list(range(n))
    kept = {round(k * (n - 1) / (points - 1)) for k in range(points)}
    kept |= {i for i in range(n) if i == 0 or i == n - 1 or seqs[i] != seqs[i - 1] or seqs[i] != seqs[i + 1]}
    return sorted(kept)


def crosstable(db: Session, name: str, game: str | None = None) -> list[dict[str, Any]]:
    """Head-to-head results of bot ``name`` (all its versions) against every opponent, per game, from match_seats.

    Each finished match whose deal is settled counts once per opponent: a win when the bot ranked better than
    that opponent, a loss when worse, a draw when equal. In an exhibition a bot may hold several seats (four seats,
    three bots): the match is still one game, won when more of the pairs of its seats and the opponent's ranked it
    better than worse. ``score`` is (wins + draws / 2) / games.
    """
    me, them = aliased(MatchSeat), aliased(MatchSeat)
    my_version, their_version = aliased(BotVersion), aliased(BotVersion)
    my_bot, their_bot = aliased(Bot), aliased(Bot)
    # Each pair of seats: +1 when the bot ranked better than that opponent's seat, -1 worse, 0 level or unranked.
    better = case(
        (or_(me.rank.is_(None), them.rank.is_(None), me.rank == them.rank), 0), (me.rank < them.rank, 1), else_=-1
    )
    # (match, game, opponent) -> the balance of its seat pairs; summed again per (game, opponent) in the database,
    # where a busy bot's 90,000 pairs were read and counted here (over a second).
    pairs = (
        select(Match.id.label("match_id"), Match.game.label("game"), their_bot.name.label("opponent"), func.sum(better).label("net"))
        .join(me, me.match_id == Match.id)
        .join(my_version, my_version.id == me.bot_version_id)
        .join(my_bot, my_bot.id == my_version.bot_id)
        .join(them, (them.match_id == Match.id) & (them.seat != me.seat))
        .join(their_version, their_version.id == them.bot_version_id)
        .join(their_bot, their_bot.id == their_version.bot_id)
        .where(my_bot.name == name, their_bot.id != my_bot.id, Match.status == "done", Match.deal.not_in(UNSETTLED_DEALS))
        .group_by(Match.id, Match.game, their_bot.name)
    )
    if game:
        pairs = pairs.where(Match.game == game)
    per_match = pairs.subquery()

    def counted(condition: Any) -> Any:
        return func.sum(case((condition, 1), else_=0))

    totals = select(
        per_match.c.game, per_match.c.opponent, func.count(), counted(per_match.c.net > 0), counted(per_match.c.net == 0),
        counted(per_match.c.net < 0), func.max(per_match.c.match_id),
    ).group_by(per_match.c.game, per_match.c.opponent)
    rows = [
        {"game": g, "opponent": opponent, "games": games, "wins": wins, "draws": draws, "losses": losses, "last_match": last}
        for g, opponent, games, wins, draws, losses, last in db.execute(totals).all()
    ]
    for row in rows:
        row["score"] = (row["wins"] + row["draws"] / 2) / row["games"]
    rows.sort(key=lambda r: (r["game"], -r["games"], r["opponent"]))
    return rows


def replay_path(db: Session, match_id: int, root: Path) -> Path | None:
    """Where the replay file of a finished match is in the data folder ``root``, or None (no such match, or its
    replay is in the database).

    The caller holds back a match whose deal is not settled (``settled``)."""
    found = db.get(Match, match_id)
    if found is None or found.status != "done" or not found.replay_path:
        return None
    return located(found.replay_path, root)


def match_file(db: Session, match_id: int, name: str) -> bytes | None:
    """A file a worker stored with a match's result (see MatchFile), uncompressed, or None."""
    data = db.scalar(select(MatchFile.data).where(MatchFile.match_id == match_id, MatchFile.name == name))
    return None if data is None else gzip.decompress(data)


def replay_json(db: Session, match_id: int, root: Path) -> bytes | None:
    """The replay of a finished match as JSON: stored in the database by a remote worker, or the file the local pool wrote.

    None when there is no such match or its replay is gone. Raises OSError when the file cannot be read. The caller
    holds back a match whose deal is not settled (``settled``).
    """
    found = db.get(Match, match_id)
    if found is None or found.status != "done":
        return None
    stored = match_file(db, match_id, REPLAY_FILE)
    if stored is not None:
        return stored
    if found.replay_path:
        return located(found.replay_path, root).read_bytes()
    return None


def seat_log(db: Session, seat: MatchSeat, root: Path) -> str | None:
    """The log a bot wrote in a match: stored in the database by a remote worker, or the file the local pool wrote
    in the data folder ``root``."""
    stored = match_file(db, seat.match_id, seat_log_name(seat.seat))
    if stored is not None:
        return stored.decode(errors="replace")
    path = located(seat.log_path, root) if seat.log_path else None
    if path is not None and path.exists():
        return path.read_text(errors="replace")
    return None
