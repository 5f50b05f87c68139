"""Suspending a bot version that forfeits match after match, and reinstating it.

A version whose seat forfeited (a FORFEIT verdict: its bot crashed, never connected, or passed the strike
limit) in each of its last ``suspend_after`` finished matches leaves matchmaking: its status becomes
"suspended", with a reason naming those matches and what ended the last one. Until then the scheduler kept
seating it, and every one of its matches was lost to its opponents. A new version replaces it, as it replaces
an active one; the operator can put it back (``reinstate``).

It is judged where a match is recorded, in the same transaction (ladder/worker.py ``record_outcome``), and
only for the versions that forfeited in that match: most matches cost no query at all. Only the bot's own
faults count:

- a failed match (the ladder could not play or record it) has no result, and is passed over;
- a match in which every seat forfeited is held against none of them: a worker that could not start bots (its
  sandbox broken, say) forfeits them all. It ends a run of forfeits rather than adding to it;
- the matches finished before the operator reinstated the version do not count.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import Connection, Table, bindparam, func, select, update
from sqlalchemy.orm import Session

from ladder.models import Bot, BotVersion, Match, MatchSeat, no_bot
from referee.server.words import verdict_text

#: Forfeits in a row, in a version's latest finished matches, that suspend it (0: never suspend). A crash is a
#: forfeit; a healthy bot that crashes now and then does not crash five times running.
SUSPEND_AFTER = 5
#: How many of a version's latest matches, by id, are read for its last ``suspend_after`` by end time: a match is
#: not always finished in the order it was queued (placements and challenges go first, a match is tried again).
WINDOW = 4
#: The longest verdict detail a reason quotes.
DETAIL_CAP = 200
FORFEIT = "FORFEIT"

log = logging.getLogger("arena.ladder.suspension")

_VERSIONS, _SEATS, _MATCHES = cast(Table, BotVersion.__table__), cast(Table, MatchSeat.__table__), cast(Table, Match.__table__)
_BOTS = cast(Table, Bot.__table__)
_SEATED = select(_SEATS.c.seat, _SEATS.c.bot_version_id).where(_SEATS.c.match_id == bindparam("m"))
#: Locked: two recorders of the version's matches judge it in turn, the second seeing the first's match (PostgreSQL).
_VERSION = select(_VERSIONS.c.status, _VERSIONS.c.reinstated_at, _VERSIONS.c.seq, _VERSIONS.c.bot_id).where(_VERSIONS.c.id == bindparam("v")).with_for_update()
#: The kind of match that is never judged: its opponent and its moment are another owner's choice (ladder/scheduler.py).
CHALLENGE = "challenge"
#: Every seat of the version's latest finished matches: its own seats read backwards along ix_match_seats_version_match.
_LATEST = (
    select(_SEATS.c.match_id)
    .join(_MATCHES, _MATCHES.c.id == _SEATS.c.match_id)
    .where(
        _SEATS.c.bot_version_id == bindparam("v"), _MATCHES.c.status == "done", _MATCHES.c.finished_at > bindparam("since"),
        _MATCHES.c.kind != CHALLENGE,
    )
    .order_by(_SEATS.c.match_id.desc())
    .limit(bindparam("window"))
)
_RECENT_SEATS = (
    select(_SEATS.c.match_id, _SEATS.c.seat, _SEATS.c.bot_version_id, _SEATS.c.verdicts, _MATCHES.c.finished_at)
    .join(_MATCHES, _MATCHES.c.id == _SEATS.c.match_id)
    .where(_SEATS.c.match_id.in_(_LATEST))
    .order_by(_SEATS.c.match_id, _SEATS.c.seat)
)
_SUSPEND = update(_VERSIONS).where(_VERSIONS.c.id == bindparam("v"), _VERSIONS.c.status == "active").values(status="suspended", reason=bindparam("reason"))
_BOT_NAME = select(_BOTS.c.name).where(_BOTS.c.id == bindparam("b"))


@dataclass(frozen=True)
class Suspended:
    """A version just suspended, for the ladder's log."""

    version_id: int
    bot: str
    seq: int
    reason: str


class ReinstatementRefused(ValueError):
    """No such bot, or none of its versions is suspended."""


def forfeited(verdicts: Sequence[Mapping[str, Any]]) -> bool:
    return any(v.get("kind") == FORFEIT for v in verdicts)


def held_against(seats: Sequence[tuple[int, Sequence[Mapping[str, Any]]]]) -> set[int]:
    """The versions a match counts against, from its seats' (version, verdicts): those that forfeited at every seat
    they held, when a seat of another version did not forfeit (else the worker, not the bots, is the likelier fault)."""
    lost: dict[int, list[bool]] = {}
    for version, verdicts in seats:
        lost.setdefault(version, []).append(forfeited(verdicts))
    return {v for v, mine in lost.items() if all(mine) and any(not f for w, theirs in lost.items() if w != v for f in theirs)}


def check(
    conn: Connection, match_id: int, verdicts: Mapping[int, Sequence[Mapping[str, Any]]], suspend_after: int, kind: str = "rated"
) -> list[Suspended]:
    """Suspend the versions of the match just recorded (its verdicts by seat, ``kind`` its kind) that are due; in the
    caller's transaction.

    No query unless a seat forfeited and another did not, in a match the ladder scheduled: a challenge neither counts
    nor ends a run (a rival picks its opponent and its moment, and with a bot that made another's crash, took that
    bot off the ladder in a few challenges). The versions are judged in id order, each row locked first: on
    PostgreSQL two recorders of one version's matches take turns, and never lock two rows crosswise.
    """
    lost = {seat for seat, said in verdicts.items() if forfeited(said)}
    if suspend_after <= 0 or kind == CHALLENGE or not lost or len(lost) == len(verdicts):
        return []
    seated = {int(seat): int(version) for seat, version in conn.execute(_SEATED, {"m": match_id})}
    suspects = held_against([(version, verdicts.get(seat, ())) for seat, version in seated.items()])
    done = [_judge(conn, version, suspend_after) for version in sorted(suspects)]
    return [s for s in done if s is not None]


def _judge(conn: Connection, version_id: int, n: int) -> Suspended | None:
    row = conn.execute(_VERSION, {"v": version_id}).first()
    if row is None or row.status != "active":
        return None
    since = row.reinstated_at if row.reinstated_at is not None else -1.0  # every end time is after
    seats: dict[int, list[tuple[int, Sequence[Mapping[str, Any]]]]] = {}
    mine: dict[int, Sequence[Mapping[str, Any]]] = {}
    finished: dict[int, float] = {}
    for match_id, _seat, version, said, at in conn.execute(_RECENT_SEATS, {"v": version_id, "since": since, "window": n * WINDOW}):
        seats.setdefault(match_id, []).append((version, said))
        finished[match_id] = at
        if version == version_id:
            mine.setdefault(match_id, said)
    latest = sorted(seats, key=lambda m: (finished[m], m), reverse=True)[:n]
    if len(latest) < n or any(version_id not in held_against(seats[m]) for m in latest):
        return None
    reason = (
        f"suspended: forfeited its last {n} matches ({', '.join(f'#{m}' for m in sorted(latest))}); last: {cause(mine[latest[0]])}."
        " A new version replaces it; the operator can reinstate it"
    )
    if conn.execute(_SUSPEND, {"v": version_id, "reason": reason}).rowcount != 1:
        return None
    return Suspended(version_id, str(conn.execute(_BOT_NAME, {"b": row.bot_id}).scalar_one()), int(row.seq), reason)


def cause(verdicts: Sequence[Mapping[str, Any]]) -> str:
    """What made a seat forfeit: the verdict just before its FORFEIT (a crash, a no-show, the strike over the limit),
    kind and detail. Not its decision index, nor an earlier verdict's detail: until its deal is settled, a reason
    is public when the match's are not (ladder/queries.py ``public_verdicts``), and those tell of the deal."""
    at = next(i for i, v in enumerate(verdicts) if v.get("kind") == FORFEIT)
    said = verdicts[at - 1] if at > 0 else verdicts[at]
    detail = str(said.get("detail", ""))
    if len(detail) > DETAIL_CAP:
        detail = detail[:DETAIL_CAP] + "…"
    kind = verdict_text(str(said.get("kind")))  # a sentence for the bot's author: the kind in words
    return f"{kind}: {detail}" if detail else kind


def announce(suspended: Sequence[Suspended]) -> None:
    """One warning line per version suspended; once its transaction is committed."""
    for s in suspended:
        log.warning("%s #%d is suspended (no more matches until a new version or `arena ladder reinstate %s`): %s", s.bot, s.seq, s.bot, s.reason)


def reinstate(db: Session, name: str) -> int:
    """Operator: make bot ``name``'s suspended version active again; returns its number (seq).

    Its forfeits so far no longer count: it is suspended again only after ``suspend_after`` more in a row.
    """
    bot_id = db.scalar(select(Bot.id).where(Bot.name == name))
    if bot_id is None:
        raise ReinstatementRefused(no_bot(db, name))
    version = db.scalar(select(BotVersion).where(BotVersion.bot_id == bot_id, BotVersion.status == "suspended").order_by(BotVersion.seq.desc()))
    if version is None:
        raise ReinstatementRefused(f"{name} has no suspended version")
    seq = version.seq
    # The forfeits counted from now on are those of matches finished after its latest: told apart by the workers'
    # clocks, which wrote every finished_at, not by this machine's (an operator's clock ahead of a worker's made the
    # new forfeits not count for a while; behind it, the old ones counted again).
    latest = db.scalar(
        select(func.max(Match.finished_at)).join(MatchSeat, MatchSeat.match_id == Match.id).where(MatchSeat.bot_version_id == version.id, Match.status == "done")
    )
    changed = db.execute(
        update(BotVersion)
        .where(BotVersion.id == version.id, BotVersion.status == "suspended")
        .values(status="active", reason="reinstated by the operator", reinstated_at=latest if latest is not None else time.time())
    )
    if changed.rowcount != 1:  # type: ignore[attr-defined]
        db.rollback()
        raise ReinstatementRefused(f"{name} #{seq} changed meanwhile (replaced by a new version?): try again")
    db.commit()
    return seq
