"""Submitting a bot version: unpack into the store, check the manifest, play validation matches, activate."""

from __future__ import annotations

import shutil
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from ladder.models import Bot, BotVersion, Rating, User
from ladder.ratings import INITIAL
from ladder.upload import Limits, UploadError, unpack
from referee.core.game import OptionError
from referee.games.registry import GAMES
from referee.server.manifest import ManifestError, load_manifest
from referee.server.runner import MatchSetup, run_local_match
from referee.server.session import TimeControl

SAMPLE_BOTS = Path(__file__).resolve().parent.parent / "sample_bots"
LOG_CAP = 64 * 1024
VALIDATION_TC = TimeControl(move_time_ms=2000, time_bank_ms=10000, strike_limit=0, connect_timeout_ms=20000)


class SubmissionRefused(Exception):
    """A submission refused before validation: ``status`` is the HTTP status to answer with."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Outcome:
    bot: str
    seq: int
    version: str
    accepted: bool
    reason: str
    log: str


def store_dirs(store: Path) -> tuple[Path, Path]:
    staging, validation = store / ".staging", store / ".validation"
    staging.mkdir(parents=True, exist_ok=True)
    validation.mkdir(parents=True, exist_ok=True)
    return staging, validation


async def submit(
    make: sessionmaker[Session], store: Path, owner: User, data: bytes, limits: Limits = Limits(), validate: bool = True, sandbox: str = "process"
) -> Outcome:
    """Run a whole submission. Raises SubmissionRefused for archives and manifests that cannot even be registered."""
    staging_root, validation_root = store_dirs(store)
    staging = staging_root / uuid.uuid4().hex
    try:
        unpack(data, staging, limits)
        manifest = load_manifest(staging)
    except (UploadError, ManifestError) as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise SubmissionRefused(422, str(exc).replace(str(staging), "<bot>")) from None
    unknown = [g for g in manifest.games if g not in GAMES]
    if unknown:
        shutil.rmtree(staging, ignore_errors=True)
        raise SubmissionRefused(422, f"unknown games in bot.toml: {', '.join(unknown)} (games: {', '.join(GAMES)})")
    with make() as db:
        bot = db.scalar(select(Bot).where(Bot.name == manifest.name))
        if bot is not None and bot.owner_id != owner.id:
            shutil.rmtree(staging, ignore_errors=True)
            raise SubmissionRefused(403, f"the bot name {manifest.name!r} belongs to another user")
        if bot is None:
            bot = Bot(name=manifest.name, owner_id=owner.id, created_at=time.time())
            db.add(bot)
            db.flush()
        seq = (db.scalar(select(func.max(BotVersion.seq)).where(BotVersion.bot_id == bot.id)) or 0) + 1
        rel = f"{manifest.name}/{seq}"
        version = BotVersion(
            bot_id=bot.id, seq=seq, version=manifest.version, status="validating", games=list(manifest.games),
            language=manifest.language, path=rel, created_at=time.time(),
        )
        db.add(version)
        db.commit()
        version_id = version.id
    final = store / rel
    final.parent.mkdir(parents=True, exist_ok=True)
    staging.rename(final)
    reason, log = "", ""
    if validate:
        reason, log = await validation_matches(final, list(manifest.games), validation_root / f"{manifest.name}-{seq}", sandbox)
    with make() as db:
        version = db.get_one(BotVersion, version_id)
        version.reason, version.log = reason, log
        if reason:
            version.status = "rejected"
            shutil.rmtree(final, ignore_errors=True)
            if not any(final.parent.iterdir()):
                final.parent.rmdir()
        else:
            version.status = "active"
            for old in db.scalars(select(BotVersion).where(BotVersion.bot_id == version.bot_id, BotVersion.status == "active", BotVersion.id != version.id)):
                old.status = "retired"
            for game in manifest.games:
                db.add(Rating(bot_version_id=version.id, game=game, mu=INITIAL.mu, sigma=INITIAL.sigma, games=0, updated_at=time.time()))
        db.commit()
    return Outcome(manifest.name, seq, manifest.version, not reason, reason, log)


async def validation_matches(bot_dir: Path, games: list[str], log_dir: Path, sandbox: str = "process") -> tuple[str, str]:
    """One match per game against the random sample bot; returns (reason, log) with an empty reason on success."""
    from arena.v1 import referee_pb2 as pb

    logs: list[str] = []
    for game in games:
        n = min(GAMES[game].spec.player_counts)
        setup = MatchSetup(game, [bot_dir] + [SAMPLE_BOTS / "random"] * (n - 1), 1, {}, VALIDATION_TC, log_dir, sandbox)
        try:
            played = await run_local_match(setup)
        except (OptionError, ManifestError) as exc:
            return f"{game}: {exc}", ""
        log = played.logs[0].read_text(errors="replace") if played.logs[0].exists() else ""
        logs.append(f"--- validation match, {game} ---\n{log}")
        verdicts = played.record.result.seats[0].verdicts
        if verdicts:
            described = "; ".join(f"{pb.VerdictKind.Name(v.kind)} at decision {v.decision_index}: {v.detail}" for v in verdicts)
            shutil.rmtree(log_dir, ignore_errors=True)
            return f"the validation match of {game} failed: {described}", "\n".join(logs)[-LOG_CAP:]
    shutil.rmtree(log_dir, ignore_errors=True)
    return "", "\n".join(logs)[-LOG_CAP:]
