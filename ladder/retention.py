"""How long the bot store keeps a retired version's files.

Every version an owner submits is unpacked into the store (bots/NAME/SEQ) and stays there, so a ladder that ran for
months held every version ever replaced, though a retired version is never seated again: the scheduler and
challenges seat active versions only, and neither a withdrawal nor a replacement is undone (a suspended version,
which the operator may reinstate, is not retired). Its replays, ratings and logs do not need its files either.

So each bot keeps the folders of its newest ``keep`` retired versions (the one it just replaced, to compare with),
and the older ones' folders are removed once no match queued or playing seats them (those are played and rated
first: a match handed out with its folder gone would be failed, docs/ladder.md).
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from ladder.models import PENDING, Bot, BotVersion, Match, MatchSeat

log = logging.getLogger(__name__)

#: Retired versions of each bot whose folders the store keeps (``arena ladder serve --keep-retired``).
KEEP_RETIRED = 10


def prunable(db: Session, keep: int) -> list[tuple[str, int, str]]:
    """The retired versions past each bot's ``keep`` newest, seated in no match queued or playing: (bot, seq, path)."""
    seated = select(MatchSeat.bot_version_id).join(Match, Match.id == MatchSeat.match_id).where(Match.status.in_(PENDING))
    rows = db.execute(
        select(Bot.name, BotVersion.seq, BotVersion.path, BotVersion.id.in_(seated))
        .join(Bot, Bot.id == BotVersion.bot_id)
        .where(BotVersion.status == "retired")
        .order_by(Bot.id, BotVersion.seq.desc())
    ).all()
    # Folders of versions that may still play are never removed, whatever a row of a retired one names.
    kept = set(db.scalars(select(BotVersion.path).where(BotVersion.status != "retired")))
    found: list[tuple[str, int, str]] = []
    newer: dict[str, int] = {}
    for name, seq, path, busy in rows:
        newer[name] = newer.get(name, 0) + 1
        if newer[name] > keep and not busy and path not in kept:
            found.append((name, seq, path))
    return found


def prune_retired(make: sessionmaker[Session], store: Path, keep: int = KEEP_RETIRED) -> list[str]:
    """Remove the folders of the retired versions ``prunable`` names that are still in ``store``; returns them as
    "NAME #SEQ". A path that leads outside the store (a database edited by hand) is left alone, and said so."""
    with make() as db:
        candidates = prunable(db, keep)
    root = store.resolve()
    removed: list[str] = []
    for name, seq, path in candidates:
        folder = store / path
        if not os.path.lexists(folder):  # removed before, or never there (a store restored without it)
            continue
        try:
            inside = folder.resolve().is_relative_to(root) and folder.resolve() != root
        except OSError:
            inside = False
        if not inside or folder.is_symlink():
            log.warning("%s #%d: its folder %s is not in the bot store; left alone", name, seq, folder)
            continue
        try:
            shutil.rmtree(folder)
        except OSError:
            log.warning("could not remove the folder of %s #%d, a retired version", name, seq, exc_info=True)
            continue
        removed.append(f"{name} #{seq}")
        with contextlib.suppress(OSError):  # the bot's folder, when that was its last version's (a bot withdrawn)
            folder.parent.rmdir()
    return removed
