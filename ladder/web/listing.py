"""Paging through the finished matches by cursor (``/api/matches?before=ID`` and ``?after=ID``), and the answer's
``Link`` header that names the next page.

A cursor is a finished match, by id. ``before`` pages back in the order the pages show: by end time, the last to end
first, the later id first between two that ended together; it gives the matches after the cursor in that order (older),
so that a page does not shift under a client as new matches land, where an offset counted from the newest did.

``after`` is for a client polling for new results: it gives the matches the ladder settled after the cursor, in the
order it settled them (``Match.recorded``, ladder/recorded.py: a deal's matches once the last of them is over, so each
is listed with its ranks and scores), ``limit`` at a time, so that each is read once, complete, without reading the list
again. By end time, a result written after one that ended later slipped past a poller that had read that one.
``after=0`` starts from the first match settled. A match whose deal is not settled yet is no ``after`` cursor: it has
no place in that order until then (``poll_cursor``)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from sqlalchemy import and_, or_, select
from sqlalchemy.orm import Session

from ladder import queries
from ladder.models import Bot, BotVersion, Match, MatchSeat, name_is


class BadCursor(ValueError):
    """A ``before`` or ``after`` that names no finished match (answered 422, with this message)."""


def cursor_match(db: Session, name: str, match_id: int) -> Match:
    """The finished match a cursor names, or BadCursor saying why it cannot be one."""
    found = queries.get_match(db, match_id)
    if found is None:
        raise BadCursor(f"{name}={match_id}: there is no match {match_id}; a cursor is the id of a match the list gave")
    if found.finished_at is None:
        raise BadCursor(f"{name}={match_id}: match {match_id} is {found.status}, not finished; only finished matches are listed")
    return found


#: ``after=0``: from the first match settled.
FROM_THE_START = 0


def poll_cursor(db: Session, match_id: int) -> int:
    """The place in the settled order of the match an ``after`` cursor names (0 for ``FROM_THE_START``), or BadCursor:
    also for a match a ``before`` page showed whose deal is not settled yet, which has no place in it until then. (Polled
    from the last place so far instead, the same ``after`` asked again and again would start later each time, and skip
    what settled in between.)"""
    if match_id == FROM_THE_START:
        return 0
    found = cursor_match(db, "after", match_id)
    if found.recorded is not None:
        return found.recorded
    if not queries.settled(db, found):
        raise BadCursor(
            f"after={match_id}: match {match_id} is not settled yet (another match of its deal is still to play), so it has"
            " no place in the after feed until it is; poll from a match the feed gave (or a settled one of a page), or from after=0"
        )
    # a row finished by hand, outside the ladder: it has no place to poll from
    raise BadCursor(f"after={match_id}: match {match_id} has no place in the order the ladder settled its matches in")


def matches_from(db: Session, game: str | None, bot: str | None, limit: int, before: Match | None, after: int | None) -> list[dict[str, Any]]:
    """The finished matches (of ``game``, of ``bot``) past a cursor: those that ended before ``before``, newest first,
    or those settled after place ``after`` in the settled order (``poll_cursor``), in that order; ``limit`` at most."""
    query = select(Match).where(Match.finished_at.is_not(None))
    if game:
        query = query.where(Match.game == game)
    if bot:
        versions = select(BotVersion.id).join(Bot, Bot.id == BotVersion.bot_id).where(name_is(Bot.name, bot))
        # As queries.recent_matches: a bot of few seats by its matches' ids, else EXISTS along the end-time index.
        few = db.scalars(select(MatchSeat.match_id).where(MatchSeat.bot_version_id.in_(versions)).limit(queries.FEW_SEATS + 1)).all()
        if len(few) <= queries.FEW_SEATS:
            query = query.where(Match.id.in_(sorted(set(few))))
        else:
            query = query.where(select(MatchSeat.id).where(MatchSeat.match_id == Match.id, MatchSeat.bot_version_id.in_(versions)).exists())
    if before is not None:
        at = before.finished_at
        query = query.where(or_(Match.finished_at < at, and_(Match.finished_at == at, Match.id < before.id)))
        query = query.order_by(Match.finished_at.desc(), Match.id.desc())
    elif after is not None:
        query = query.where(Match.recorded > after).order_by(Match.recorded.asc())
    else:
        raise ValueError("matches_from pages from a cursor: before or after")
    return queries.match_summaries(db, db.scalars(query.limit(limit)).all())


def next_link(path: str, params: dict[str, Any], listed: list[dict[str, Any]], limit: int, newer: bool) -> str | None:
    """The ``Link`` header of a full page (RFC 8288): the address of the next one, from the last match listed; None when
    the page is not full (there is nothing more, for now: a poll with ``after`` asks again later from its last match)."""
    if len(listed) < limit:
        return None
    kept = {k: v for k, v in params.items() if v is not None and k not in ("before", "after")}
    kept["after" if newer else "before"] = listed[-1]["id"]
    return f'<{path}?{urlencode(kept)}>; rel="next"'
