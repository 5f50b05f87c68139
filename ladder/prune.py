"""Removing old matches' logs and replays (``arena ladder prune``): a ladder kept them for ever, and grew without bound.

Only a match whose whole deal is over (``queries.settled``: the API shows a deal's logs and replays from then on) and
that finished long enough ago loses its files: the seat logs and the replay, kept as MatchFile rows or as files in the
data folder (``replays/``, ``logs/MATCH/``). The match row, its seats (ranks, scores, verdicts) and its rating changes
stay, so the standings, the match lists and ``check-ratings`` (ladder/rebuild.py reads ranks, never a replay) are as
before. The row is marked (``Match.logs_pruned_days``, ``replay_pruned_days``), so that readers answer "pruned".
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session, sessionmaker

from ladder.datafiles import KEPT, in_layout
from ladder.jobs import REPLAY_FILE
from ladder.models import FINISHED, Match, MatchFile, MatchSeat
from ladder.queries import UNSETTLED_DEALS

log = logging.getLogger(__name__)

DAY = 86400.0
#: Matches pruned in one transaction (and named in one IN list).
CHUNK = 500


class PruneError(Exception):
    """Pruning refused before anything was removed."""


@dataclass
class Pruned:
    """What a prune removed, or would remove with ``dry_run``."""

    logs: int = 0  # matches whose seat logs (rows or files) were removed
    replays: int = 0  # matches whose replay was removed
    bytes: int = 0  # as stored: gzipped for rows, the files' sizes


def pruned_detail(what: str, match_id: int, days: int) -> str:
    """What a reader of a pruned log or replay is told (the API's 410)."""
    return (f"the {what} of match {match_id} was pruned: the ladder's operator removed the {what}s of matches finished"
            f" more than {days} days before (arena ladder prune)")


def prunable(db: Session, logs: bool, days: int, now: float) -> list[int]:
    """The matches whose logs (else replay) are to go: finished more than ``days`` days before ``now``, their deal
    settled, not pruned yet. A failed match has no replay, but may have logs (what the operator read to see why), as may a
    cancelled one from a try before it was held."""
    marked = Match.logs_pruned_days if logs else Match.replay_pruned_days
    statuses = FINISHED if logs else ("done",)
    return list(db.scalars(
        select(Match.id)
        .where(Match.status.in_(statuses), Match.finished_at < now - days * DAY, marked.is_(None), Match.deal.not_in(UNSETTLED_DEALS))
        .order_by(Match.id)
    ))


def kept_file(path: Path, root: Path) -> int | None:
    """The size of ``path`` if it is a file (not a link) in the data folder ``root``'s replays/ or logs/, else None.
    Either folder may be a link to another disk (``datafiles.stored_name``); nothing in it leads out of it."""
    try:
        inside = Path(os.path.abspath(path)).relative_to(os.path.abspath(root))
        if len(inside.parts) < 2 or inside.parts[0] not in KEPT or path.is_symlink() or not path.is_file():
            return None
        if not path.resolve().is_relative_to((root / inside.parts[0]).resolve()):
            return None
        return path.stat().st_size
    except (OSError, ValueError):
        return None


def _files(db: Session, ids: list[int], logs: bool, root: Path) -> dict[int, dict[Path, int]]:
    """The files of these matches in the data folder, with their sizes, by match."""
    found: dict[int, dict[Path, int]] = {}

    def add(match_id: int, path: Path | None) -> None:
        if path is not None and (size := kept_file(path, root)) is not None:
            found.setdefault(match_id, {})[path] = size

    if logs:
        named = db.execute(select(MatchSeat.match_id, MatchSeat.log_path).where(MatchSeat.match_id.in_(ids), MatchSeat.log_path.is_not(None)))
        for match_id, stored in named:
            add(match_id, in_layout(stored, root) if stored else None)
        for match_id in ids:  # a failed match's logs, which no seat names
            folder = root / "logs" / str(match_id)
            with contextlib.suppress(OSError):
                for path in folder.iterdir():
                    add(match_id, path)
    else:
        for match_id, stored in db.execute(select(Match.id, Match.replay_path).where(Match.id.in_(ids), Match.replay_path.is_not(None))):
            add(match_id, in_layout(stored, root) if stored else None)
    return found


def _chunks(ids: list[int]) -> Iterator[list[int]]:
    for start in range(0, len(ids), CHUNK):
        yield ids[start:start + CHUNK]


def _prune_kind(make: sessionmaker[Session], root: Path, logs: bool, days: int, now: float, dry_run: bool) -> tuple[int, int]:
    """Prune one kind (logs, else replays); returns (matches that had some, bytes)."""
    with make() as db:
        ids = prunable(db, logs, days, now)
    matches = size = 0
    for chunk in _chunks(ids):
        with make() as db:
            named = MatchFile.name != REPLAY_FILE if logs else MatchFile.name == REPLAY_FILE
            rows = db.execute(
                select(MatchFile.match_id, func.sum(func.length(MatchFile.data))).where(MatchFile.match_id.in_(chunk), named).group_by(MatchFile.match_id)
            ).all()
            files = _files(db, chunk, logs, root)
            had = {match_id for match_id, _ in rows} | set(files)
            matches += len(had)
            size += sum(int(n or 0) for _, n in rows) + sum(sum(f.values()) for f in files.values())
            if dry_run:
                continue
            db.execute(delete(MatchFile).where(MatchFile.match_id.in_(chunk), named))
            marked = Match.logs_pruned_days if logs else Match.replay_pruned_days
            db.execute(update(Match).where(Match.id.in_(chunk), marked.is_(None)).values({marked: days}))
            db.commit()
        # After the commit: a file whose removal fails is then left behind, but its readers say "pruned" all the same.
        for match_id, paths in files.items():
            for path in paths:
                try:
                    path.unlink()
                except FileNotFoundError:
                    pass
                except OSError as exc:
                    log.warning("match %s: could not remove %s: %s", match_id, path, exc)
            if logs:
                with contextlib.suppress(OSError):
                    (root / "logs" / str(match_id)).rmdir()
    return matches, size


def names_files(make: sessionmaker[Session]) -> bool:
    """Whether the database names replays or logs kept as files (``--keep files``)."""
    with make() as db:
        return (db.scalar(select(Match.id).where(Match.replay_path.is_not(None)).limit(1)) is not None
                or db.scalar(select(MatchSeat.id).where(MatchSeat.log_path.is_not(None)).limit(1)) is not None)


def prune(
    make: sessionmaker[Session], root: Path, logs_days: int | None, replays_days: int | None, now: float | None = None, dry_run: bool = False
) -> Pruned:
    """Remove the seat logs of the matches finished more than ``logs_days`` days ago, and the replays of those finished
    more than ``replays_days`` ago (None: not that kind), of every match whose deal is over; the files in the data
    folder ``root`` and the rows. With ``dry_run`` nothing is touched: the figures are what would be removed."""
    if logs_days is None and replays_days is None:
        raise PruneError("nothing to prune: give an age for the logs, the replays or both")
    if any(days is not None and days < 0 for days in (logs_days, replays_days)):
        raise PruneError("an age in days is 0 or more")
    if not any(os.path.isdir(root / folder) for folder in KEPT) and names_files(make):
        # The rows would be marked pruned while their files stayed, found by no later prune.
        raise PruneError(f"the database names replays and logs kept as files, and {root} holds no replays/ or logs/ folder:"
                         " is it the data folder of this ladder (--data)?")
    now = time.time() if now is None else now
    done = Pruned()
    if logs_days is not None:
        done.logs, size = _prune_kind(make, root, True, logs_days, now, dry_run)
        done.bytes += size
    if replays_days is not None:
        done.replays, size = _prune_kind(make, root, False, replays_days, now, dry_run)
        done.bytes += size
    return done
