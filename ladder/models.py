"""The ladder's tables. Schema changes go through Alembic (ladder/migrations)."""

from __future__ import annotations

from typing import Any, Literal, get_args

from sqlalchemy import JSON, BigInteger, ColumnElement, Float, ForeignKey, Index, Integer, LargeBinary, String, Text, UniqueConstraint, false, func, select
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column


#: The largest id or number an Integer column holds on every database the ladder runs on (PostgreSQL's
#: integer is 32-bit; SQLite's 64): the API answers 404 for anything beyond rather than asking the database.
MAX_INT = 2**31 - 1
#: The most digits an id in an address may have; an address of more names nothing (ids past MAX_INT are not found
#: anyway), and is not read: Python reads no integer of more than 4300 digits (a ValueError, the ladder's 500).
ID_DIGITS = 32


def name_is(column: Mapped[str], name: str) -> ColumnElement[bool]:
    """``column == name``; false, without asking the database, for a name no database holds, which no name of the
    ladder's is: one with a NUL character (PostgreSQL's text cannot hold one, and psycopg refuses to send it: a 500
    for /api/bots/a%00) or a lone surrogate (JSON's "\\ud800" in a challenge: not UTF-8, a 500 on either database)."""
    return column == name if "\x00" not in name and not any("\ud800" <= c <= "\udfff" for c in name) else false()


def bots_alike(db: Session, name: str) -> list[str]:
    """The bots' names that ``name`` is in another case (the ladder holds them for one), in order; none for a name no
    bot can have (not ASCII, or unprintable: a NUL is not sent to the database)."""
    if not (name.isascii() and name.isprintable()):
        return []
    return list(db.scalars(select(Bot.name).where(func.lower(Bot.name) == name.lower()).order_by(Bot.name)))


def no_bot(db: Session, name: str) -> str:
    """Why ``name`` names no bot, with the bot it names in another case, if one: the ladder holds names that differ only
    in case for one (a second owner's is refused), but looks a bot up by its name as written, and "no bot 'GW-Greedy'"
    read as if gw-greedy were gone."""
    alike = bots_alike(db, name)
    hint = f" (did you mean {' or '.join(repr(n) for n in alike)}? a bot is named as it is written)" if alike else ""
    return f"no bot {name!r}{hint}"


class Base(DeclarativeBase):
    pass


class User(Base):
    """A bot owner; the API token is stored only as its SHA-256."""

    __tablename__ = "users"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[float] = mapped_column(Float)


class Bot(Base):
    """A bot name, owned by one user for good."""

    __tablename__ = "bots"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    owner_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[float] = mapped_column(Float)


class BotVersion(Base):
    """One uploaded version of a bot: validating, active, rejected, retired (superseded or withdrawn) or suspended
    (taken out of matchmaking for forfeiting match after match: ladder/suspension.py)."""

    __tablename__ = "bot_versions"
    __table_args__ = (UniqueConstraint("bot_id", "seq"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"))
    seq: Mapped[int] = mapped_column(Integer)  # 1, 2, ... per bot
    version: Mapped[str] = mapped_column(String(64))  # the manifest's version string
    status: Mapped[str] = mapped_column(String(16))
    games: Mapped[list[str]] = mapped_column(JSON)
    language: Mapped[str] = mapped_column(String(16))
    path: Mapped[str] = mapped_column(String(512))  # relative to the bot store
    reason: Mapped[str] = mapped_column(Text, default="")
    log: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[float] = mapped_column(Float)
    #: When the operator last reinstated it (``arena ladder reinstate``): the matches finished before do not count
    #: towards another suspension. None if never.
    reinstated_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    #: When the serving ladder first found its folder gone from the bot store (ladder/grounds.py, MissingVersions), while
    #: it is: its held matches are cancelled that long after, whatever restarts the ladder went through. None otherwise.
    files_gone_at: Mapped[float | None] = mapped_column(Float, nullable=True)


class Rating(Base):
    """The current TrueSkill rating of a bot version in one game."""

    __tablename__ = "ratings"
    __table_args__ = (UniqueConstraint("bot_version_id", "game"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    bot_version_id: Mapped[int] = mapped_column(ForeignKey("bot_versions.id"))
    game: Mapped[str] = mapped_column(String(64))
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[float] = mapped_column(Float)


class RatingChange(Base):
    """Every rating update, so that history can be drawn and ratings rebuilt."""

    __tablename__ = "rating_changes"
    __table_args__ = (UniqueConstraint("match_id", "bot_version_id"), Index("ix_rating_changes_version_game", "bot_version_id", "game"))
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id"))
    bot_version_id: Mapped[int] = mapped_column(ForeignKey("bot_versions.id"))
    game: Mapped[str] = mapped_column(String(64))
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    created_at: Mapped[float] = mapped_column(Float)


# A match's statuses, defined here alone: as types (the API's response models list them, ladder/schemas.py) and as
# the tuples the queries use.
#: The statuses of a match still to play: waiting in the queue, or being played (then one of ``Finished``).
Pending = Literal["queued", "running"]
#: The statuses of a match over, with no result: it broke ("failed"), or was never played ("cancelled": held for a bot
#: version whose files are gone, ladder/grounds.py). Neither changes a rating; what its duplicate set played is rated.
Unplayed = Literal["failed", "cancelled"]
#: The statuses of a match over: played ("done"), or ``Unplayed``.
Finished = Literal["done", Unplayed]
MatchStatus = Literal[Pending, Finished]
PENDING: tuple[str, ...] = get_args(Pending)
UNPLAYED: tuple[str, ...] = get_args(Unplayed)
FINISHED: tuple[str, ...] = get_args(Finished)
MATCH_STATUSES: tuple[str, ...] = get_args(MatchStatus)
#: What a match is played for: a rated one, a placement (a newcomer's first rated ones), a challenge an owner asked
#: for, or an exhibition (more seats than two bots; unrated). Each has its place in the queue (scheduler.PRIORITY).
MatchKind = Literal["rated", "placement", "challenge", "exhibition"]
#: What a bot version is once off the ladder for good (withdrawn, or replaced by a newer one): a withdrawal's answer.
Retired = Literal["retired"]
#: What a bot version may be (ladder/submissions.py, ladder/suspension.py).
VersionStatus = Literal["validating", "active", "suspended", "rejected", Retired]
VERSION_STATUSES: tuple[str, ...] = get_args(VersionStatus)


class Match(Base):
    """A match to play or played; claimed by a worker with a lease."""

    __tablename__ = "matches"
    __table_args__ = (
        Index("ix_matches_status_priority", "status", "priority"),
        Index("ix_matches_deal", "deal"),
        Index("ix_matches_rated_with_status", "rated_with", "status"),
        Index("ix_matches_finished_at", "finished_at"),
        Index("ix_matches_recorded", "recorded", unique=True),
    )
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game: Mapped[str] = mapped_column(String(64))
    seed: Mapped[int] = mapped_column(BigInteger)  # below 2**53 (referee/server/seeds.py; migration 0012)
    num_players: Mapped[int] = mapped_column(Integer)
    options: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    kind: Mapped[str] = mapped_column(String(16))  # MatchKind
    status: Mapped[str] = mapped_column(String(16))  # PENDING (queued, running), then done, failed or cancelled
    priority: Mapped[int] = mapped_column(Integer, default=0)  # higher first
    deal: Mapped[str] = mapped_column(String(64))  # matches sharing a deal are one duplicate set
    lease_owner: Mapped[str | None] = mapped_column(String(64), nullable=True)
    lease_expires: Mapped[float | None] = mapped_column(Float, nullable=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[float] = mapped_column(Float)
    started_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    finished_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    #: Its place in the order the ladder settled its finished matches in, 1, 2, 3, ...: given to every match of a deal
    #: in the commit that finishes the last of them (not in that of ``finished_at``, a worker's clock read before it;
    #: ladder/recorded.py). None until its deal is settled.
    recorded: Mapped[int | None] = mapped_column(Integer, nullable=True)
    replay_path: Mapped[str | None] = mapped_column(String(512), nullable=True)  # None when the replay is a MatchFile
    error: Mapped[str] = mapped_column(Text, default="")
    played_by: Mapped[str | None] = mapped_column(String(128), nullable=True)  # the worker that recorded the result
    #: The match whose RatingChange rows rated this one: its duplicate set is rated as one comparison once none of
    #: it is left to play (ladder/worker.py ``rate_set``). None while unrated.
    rated_with: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: The user who asked for a challenge (kind "challenge"), whose open challenges are capped; None otherwise.
    challenger_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: The operator removed its seat logs (``arena ladder prune``), with this age in days: the logs of the matches
    #: finished more than that many days before. None while they are kept. Readers then answer "pruned", not "none".
    logs_pruned_days: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: As ``logs_pruned_days``, for its replay.
    replay_pruned_days: Mapped[int | None] = mapped_column(Integer, nullable=True)


class MatchSeat(Base):
    """Who sat where in a match, and how it went for them."""

    __tablename__ = "match_seats"
    #: A version's seats by match: its latest matches are read backwards along it (ladder/suspension.py).
    __table_args__ = (UniqueConstraint("match_id", "seat"), Index("ix_match_seats_version_match", "bot_version_id", "match_id"))
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    bot_version_id: Mapped[int] = mapped_column(ForeignKey("bot_versions.id"))
    rank: Mapped[int | None] = mapped_column(Integer, nullable=True)
    score: Mapped[float | None] = mapped_column(Float, nullable=True)
    verdicts: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    log_path: Mapped[str | None] = mapped_column(String(512), nullable=True)  # None when the log is a MatchFile


class MatchFile(Base):
    """A finished match's replay ("replay.json") or a seat's log ("seat0.log"), gzipped, kept in the database.

    Workers on other machines share no folder with the ladder: they write these
    in the same transaction as the result, so a recorded match always has them.
    """

    __tablename__ = "match_files"
    __table_args__ = (UniqueConstraint("match_id", "name"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id"))
    name: Mapped[str] = mapped_column(String(64))
    size: Mapped[int] = mapped_column(Integer)  # bytes before compression
    data: Mapped[bytes] = mapped_column(LargeBinary)  # gzip
    created_at: Mapped[float] = mapped_column(Float)


class LadderHold(Base):
    """Which ladder serves this database (ladder/hold.py): one row, id 1, made by the migration."""

    __tablename__ = "ladder_hold"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    holder: Mapped[str | None] = mapped_column(String(128), nullable=True)  # None: no ladder serves the database
    host: Mapped[str] = mapped_column(String(255), default="")  # host name and PID namespace (launchers.this_machine)
    pid: Mapped[int] = mapped_column(Integer, default=0)
    process_start: Mapped[str] = mapped_column(String(32), default="")  # tells the holder from a later process with its pid
    address: Mapped[str] = mapped_column(String(255), default="")  # where it serves HTTP, to tell an operator
    started_at: Mapped[float] = mapped_column(Float, default=0.0)
    renewed_at: Mapped[float] = mapped_column(Float, default=0.0)
