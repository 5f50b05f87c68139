"""A bot version's life on the ladder: submitting (unpack into the store, check the manifest, play validation matches, activate) and withdrawing."""

from __future__ import annotations

import asyncio
import logging
import math
import os
import shutil
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from ladder.accounts import HOUSE
from ladder.jobs import PIN_CPUS
from ladder.models import Bot, BotVersion, Rating, User, name_is, no_bot
from ladder.ratings import INITIAL
from ladder.upload import Limits, UploadError, unpack
from referee.core.game import OptionError
from referee.games.registry import GAMES
from referee.server.manifest import MANIFEST, BotManifest, ManifestError, check_built, load_manifest
from referee.server.runner import MatchSetup, run_local_match
from referee.server.session import MatchRecord, TimeControl
from referee.server.words import verdict_text

if TYPE_CHECKING:
    from arena.v1.referee_pb2 import Verdict

log_ = logging.getLogger("arena.ladder.submissions")
SAMPLE_BOTS = Path(__file__).resolve().parent.parent / "sample_bots"
LOG_CAP = 64 * 1024
#: The statuses of a version that has joined the ladder and not left it: a new version of its bot replaces it.
ON_LADDER = ("active", "suspended")
#: The statuses of a version that passed validation: on the ladder, suspended from it, or retired since.
JOINED = (*ON_LADDER, "retired")
VALIDATION_TC = TimeControl(move_time_ms=2000, time_bank_ms=10000, strike_limit=0, connect_timeout_ms=20000)
#: Versions one owner may submit in any 24 hours (0: no limit), as on Kaggle: each is kept in the bot store (up to the
#: archive's limit) and plays validation matches, so an owner submitting in a loop filled the disk. Archives refused
#: before a version was registered do not count, nor versions the ladder itself failed to register.
SUBMISSIONS_PER_DAY = 20
DAY = 24 * 3600.0
LADDER_FAILED = "the submission failed (an internal error of the ladder); submit again"
#: A version left validating by a ladder that was killed, rejected as the next one starts (Ladder._clear_interrupted_validations).
INTERRUPTED = "validation was interrupted (the ladder stopped); submit again"
#: Rejections that are the ladder's doing, not the bot's: they do not count towards an owner's daily limit.
NOT_COUNTED = (LADDER_FAILED, INTERRUPTED)


class SubmissionRefused(Exception):
    """A submission refused before validation: ``status`` is the HTTP status to answer with."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.headers = headers


class StoreUnavailable(SubmissionRefused):
    """The ladder's bot store (or its whole data folder) is gone while it serves (ladder/grounds.py): the upload is refused
    and nothing of it made, since making the store again took the operator's place for it (a folder moved back went
    inside the new one) and registered versions whose files went nowhere."""

    def __init__(self, store: Path) -> None:
        log_.error("a submission was refused: the bot store %s is gone (the ladder plays nothing until it is back)", store)
        super().__init__(
            503, "the ladder's bot store is unavailable (its operator has been told); nothing of this version was kept: try again later",
            {"Retry-After": "60"},
        )


class DailyLimit(SubmissionRefused):
    """An owner who submitted ``per_day`` versions in the last 24 hours; ``wait`` seconds until the next is taken."""

    def __init__(self, per_day: int, wait: float) -> None:
        seconds = max(1, math.ceil(wait))
        hours, minutes = divmod(math.ceil(seconds / 60), 60)
        when = f"{hours} h {minutes} min" if hours else f"{minutes} min"
        super().__init__(
            429, f"you submitted {per_day} versions in the last 24 hours, the ladder's limit; the next is taken in {when}",
            {"Retry-After": str(seconds)},
        )


def check_daily_limit(db: Session, owner_id: int, per_day: int, now: float) -> None:
    """Raise DailyLimit if the owner submitted ``per_day`` versions in the 24 hours before ``now`` (0: no limit)."""
    if per_day <= 0:
        return
    recent = (
        select(BotVersion.created_at)
        .join(Bot, Bot.id == BotVersion.bot_id)
        .where(Bot.owner_id == owner_id, BotVersion.created_at > now - DAY, BotVersion.reason.not_in(NOT_COUNTED))
        .order_by(BotVersion.created_at.desc())
        .limit(per_day)
    )
    times = db.scalars(recent).all()
    if len(times) >= per_day:  # the oldest of the last per_day leaves the window first
        raise DailyLimit(per_day, min(times) + DAY - now)


class WithdrawalRefused(SubmissionRefused):
    """A withdrawal refused: no such bot (404), another owner's (403), or nothing on the ladder to withdraw (409)."""


def withdraw(db: Session, owner_id: int | None, name: str) -> int:
    """Take the owner's bot ``name`` off the ladder (``owner_id`` None: the operator, any bot); returns the number
    (seq) of the version withdrawn.

    Its active version is retired, as when a new version replaces it: no match is scheduled for it any more, and the
    matches queued or in play with it are played and rated, so that no duplicate set is left half played. A version
    suspended for forfeiting (ladder/suspension.py) is retired too: refused, its owner could not take it off, and the
    operator's ``reinstate`` put back on the ladder a bot its owner wanted off. A version still validating joins the
    ladder if it passes, as a submission would, unless a version submitted after it had joined (the one withdrawn);
    submitting again brings the bot back.
    """
    bot = db.scalar(select(Bot).where(name_is(Bot.name, name)))
    if bot is None:
        raise WithdrawalRefused(404, no_bot(db, name))
    if owner_id is not None and bot.owner_id != owner_id:
        raise WithdrawalRefused(403, f"you do not own {name}")
    active = db.scalars(select(BotVersion).where(BotVersion.bot_id == bot.id, BotVersion.status.in_(ON_LADDER))).all()
    if not active:
        raise WithdrawalRefused(409, f"{name} has no version on the ladder to withdraw")
    for version in active:
        version.status, version.reason = "retired", "withdrawn by the operator" if owner_id is None else "withdrawn by its owner"
    db.commit()
    return max(version.seq for version in active)


def retire_owner(db: Session, name: str) -> tuple[str, list[tuple[str, int]]]:
    """Take the owner ``name`` off the ladder: their token revoked, then each of their bots with a version on it
    withdrawn as the operator's ``withdraw`` does (rows, matches, ratings and the names stay theirs). The owner's name
    as the ladder holds it (``name`` may be in another case) and the bots withdrawn, with the version each, by name;
    run again, it withdraws what it did not (nothing, if it ended).

    The operator had no way to do it but revoke the token, then find each bot of theirs (`user list` counts them, names
    none) and `retire` it by name: the bots of an owner taken off played on, rated, while the operator looked."""
    from ladder.accounts import AccountError, revoke_token

    name = revoke_token(db, name)  # AccountError for no such user; first, so that no new version comes meanwhile
    owner = db.scalar(select(User.id).where(User.name == name))
    if owner is None:  # removed meanwhile (by hand)
        raise AccountError(f"no user {name!r} (arena ladder user list shows them)")
    on_ladder = select(BotVersion.bot_id).where(BotVersion.status.in_(ON_LADDER))
    names = db.scalars(select(Bot.name).where(Bot.owner_id == owner, Bot.id.in_(on_ladder)).order_by(Bot.name)).all()
    return name, [(bot, withdraw(db, None, bot)) for bot in names]


@dataclass(frozen=True)
class Outcome:
    bot: str
    seq: int
    version: str
    accepted: bool
    reason: str
    log: str
    games: tuple[str, ...] = ()  # the games its bot.toml names


def with_unscheduled(outcome: Outcome, scheduled: list[str] | None) -> str:
    """The outcome's reason, told also, when the ladder schedules only some games (``serve --game``) and not all of
    the accepted version's, that it joined but those games' matches are never played here."""
    missing = [g for g in outcome.games if scheduled is not None and g not in scheduled]
    if not outcome.accepted or not missing:
        return outcome.reason
    said = f"is on the ladder, but this ladder schedules only {', '.join(scheduled or ())}: its {', '.join(missing)} matches are not played here"
    more = outcome.reason.removeprefix("is on the ladder; ")  # the same-version note, which says it joined too
    return f"{said}; {more}" if more else said


#: The bot store's folders of submissions in progress: archives being unpacked, and validation matches' files.
IN_PROGRESS = (".staging", ".validation")


def as_bot(text: str, folder: Path) -> str:
    """``text`` with the bot's folder of the ladder's (or the check's) written ``<bot>``, as resolved first (a manifest
    names its folder so) and then as given: a store given relative left the ladder's working folder before "<bot>"."""
    for form in dict.fromkeys((str(folder.resolve()), str(folder))):
        text = text.replace(form, "<bot>")
    return text


def store_dirs(store: Path) -> tuple[Path, Path]:
    """The store's staging and validation folders, made if need be; StoreUnavailable if the store itself is gone, which
    is never made again here (the ladder makes it as it starts)."""
    staging, validation = (store / name for name in IN_PROGRESS)
    try:
        staging.mkdir(exist_ok=True)
        validation.mkdir(exist_ok=True)
    except FileNotFoundError:
        raise StoreUnavailable(store) from None
    return staging, validation


def clear_stale_uploads(store: Path, older_than: float = 15 * 60) -> int:
    """Remove what submissions interrupted long ago (a ladder killed mid-upload) left in staging and validation; returns how many.

    Only entries untouched for ``older_than`` seconds: a submission in flight in another process keeps its own.
    """
    cutoff = time.time() - older_than
    removed = 0
    for folder in store_dirs(store):
        for entry in folder.iterdir():
            try:
                if entry.lstat().st_mtime >= cutoff:
                    continue
                if entry.is_dir() and not entry.is_symlink():
                    shutil.rmtree(entry)
                else:
                    entry.unlink()
                removed += 1
            except OSError:
                log_.warning("could not remove %s, left by an interrupted submission", entry, exc_info=True)
    return removed


def missing_from_store(make: sessionmaker[Session], store: Path) -> tuple[list[str], int]:
    """The active bot versions whose folder is not in ``store`` ("name version"), and how many versions are active.

    The database names each version's folder relative to the store: a ladder started on a database with another
    data folder's store (--data left out, or run from another directory) failed every match it handed out.
    """
    with make() as db:
        rows = db.execute(
            select(Bot.name, BotVersion.version, BotVersion.path).join(Bot, Bot.id == BotVersion.bot_id).where(BotVersion.status == "active")
        ).all()
    return [f"{name} {version}" for name, version, path in rows if not (store / path / MANIFEST).is_file()], len(rows)


async def submit(
    make: sessionmaker[Session], store: Path, owner: User, data: bytes, limits: Limits = Limits(), validate: bool = True,
    sandbox: str = "process", per_day: int = 0,
) -> Outcome:
    """Run a whole submission. Raises SubmissionRefused for archives and manifests that cannot even be registered, and
    DailyLimit past ``per_day`` versions of the owner's in 24 hours (0: no limit; the API passes the ladder's)."""
    staging_root, validation_root = store_dirs(store)
    staging = staging_root / uuid.uuid4().hex
    try:
        # On a thread: a large archive took seconds to unpack and check, and every page and API call waited for it.
        manifest = await asyncio.to_thread(unpacked, data, staging, limits)
    except BaseException as exc:  # nothing of an archive that could not be read is kept
        shutil.rmtree(staging, ignore_errors=True)
        if isinstance(exc, (UploadError, ManifestError)):
            raise SubmissionRefused(422, as_bot(str(exc), staging)) from None
        if not isinstance(exc, Exception):
            raise
        log_.exception("a submission's archive could not be read")
        raise SubmissionRefused(500, "the ladder failed to read this archive (an internal error); nothing of it was kept") from None
    unknown = unknown_games(manifest)
    if unknown:
        shutil.rmtree(staging, ignore_errors=True)
        raise SubmissionRefused(422, unknown)
    registered: list[int] = []  # the version's id once its row is committed
    final: Path | None = None  # the version's folder once staging is moved there
    try:
        seq, rel = register(make, owner, manifest, registered, store, per_day)
        (store / rel).parent.mkdir(exist_ok=True)  # NAME; not the store: one gone is refused below, not made again
        staging.rename(store / rel)
        final = store / rel  # only now: a folder that was in the way is not this submission's to remove
        reason, log, note = "", "", ""
        if validate:
            reason, log = await validation_matches(final, list(manifest.games), validation_root / f"{manifest.name}-{seq}", sandbox)
            log = as_bot(log, final)  # a traceback names the store's folder, the ladder's own (arena bot check's says <bot>)
            if reason and not store.is_dir():  # the bot's folder went with the store during its matches: not the bot's fault
                raise StoreUnavailable(store)
        with make() as db:
            version = db.get_one(BotVersion, registered[0])
            version.reason, version.log = reason, log
            # A newer version that joined the ladder (on it, suspended from it, or withdrawn since): its owner replaced
            # this one either way. Looking only at those on the ladder, an older version still validating joined it
            # after its owner had withdrawn the newer one, bringing back a bot taken off.
            newer = db.execute(
                select(BotVersion.seq, BotVersion.status).where(BotVersion.bot_id == version.bot_id, BotVersion.status.in_(JOINED), BotVersion.seq > seq)
                .order_by(BotVersion.seq.desc()).limit(1)
            ).first()
            if reason:
                version.status = "rejected"
                discard(final)
            elif newer is not None:  # two versions validated at once and the later one passed first: it stays
                version.status = "retired"
                where = "is on the ladder already" if newer.status in ON_LADDER else "joined the ladder first and has left it since"
                note = version.reason = f"passed, but version #{newer.seq}, submitted after it, {where}"
            else:
                version.status = "active"
                note = same_version_note(db, version)
                # The one on the ladder, or suspended from it (ladder/suspension.py): a new version is how its owner comes back.
                replaced = BotVersion.status.in_(ON_LADDER)
                for old in db.scalars(select(BotVersion).where(BotVersion.bot_id == version.bot_id, replaced, BotVersion.id != version.id)):
                    # Said, or `arena ladder bot` showed it retired with no note, as if the operator had retired it.
                    was = f" (it was suspended: {old.reason})" if old.status == "suspended" and old.reason else ""
                    old.status, old.reason = "retired", f"replaced by version #{version.seq}{was}"
                for game in manifest.games:
                    db.add(Rating(bot_version_id=version.id, game=game, mu=INITIAL.mu, sigma=INITIAL.sigma, games=0, updated_at=time.time()))
            db.commit()
    except BaseException as exc:  # nothing of a submission that failed is kept, and its version is not left validating
        shutil.rmtree(staging, ignore_errors=True)
        # Its folder goes once the version is rejected; not if the version joined the ladder (a connection dropped as
        # the activation committed raises, though the version plays), nor while that cannot be told: the next start
        # rejects a version still validating, and removes its folder then.
        rejected = abandon(make, registered[0]) if registered else True
        if final is not None and rejected:
            discard(final)
        if isinstance(exc, SubmissionRefused) or not isinstance(exc, Exception):
            raise
        if not store.is_dir():  # gone since the submission began (its folders could not be made or moved)
            raise StoreUnavailable(store) from None
        if isinstance(exc, OptionError):  # the ladder cannot run its sandbox (no Docker engine, no image): not the bot's fault
            log_.error("the validation of %s could not be played: %s", manifest.name, exc)
            raise SubmissionRefused(503, "the ladder cannot play validation matches now; nothing of this version was kept: submit again later") from None
        log_.exception("the submission of %s failed", manifest.name)
        raise SubmissionRefused(500, "the ladder failed to register this version (an internal error); nothing of it was kept") from None
    return Outcome(manifest.name, seq, manifest.version, not reason, reason or note, log, manifest.games)


def same_version_note(db: Session, version: BotVersion) -> str:
    """What to tell an owner whose new version carries an earlier played one's version string: the standings, the
    matches and the logs name versions by it, and two of "1.0.0" could not be told apart there (only by their #)."""
    twin = db.scalar(
        select(func.max(BotVersion.seq)).where(
            BotVersion.bot_id == version.bot_id, BotVersion.version == version.version, BotVersion.seq < version.seq,
            BotVersion.status.in_(JOINED),
        )
    )
    if twin is None:
        return ""
    return f"is on the ladder; #{twin} had the same version ({version.version}): raise `version` in bot.toml to tell them apart"


def unknown_games(manifest: BotManifest) -> str:
    """Why the ladder cannot enter a bot whose manifest names games it does not have; empty if it names none."""
    unknown = [g for g in manifest.games if g not in GAMES]
    return f"unknown games in bot.toml: {', '.join(unknown)} (games: {', '.join(GAMES)})" if unknown else ""


def unpacked(data: bytes, staging: Path, limits: Limits) -> BotManifest:
    """The archive unpacked into ``staging``, and its manifest read and checked (UploadError, ManifestError)."""
    unpack(data, staging, limits)
    manifest = load_manifest(staging)
    check_built(manifest)
    return manifest


def held_by(db: Session, owner_id: int) -> str:
    """Whose a name taken by another is, and what to do: a copy of a sample bot submitted as it is (the first thing an
    operator or author tries) is refused for a name of the house user's, which "another user" did not say."""
    if db.scalar(select(User.name).where(User.id == owner_id)) == HOUSE:
        return (
            f"belongs to one of the ladder's sample bots (owned by {HOUSE!r}): "
            "to submit a copy of it, give it a name of its own in its bot.toml"
        )
    return "belongs to another user: give your bot a name of its own in its bot.toml"


def check_unlike_others(db: Session, owner: User, name: str) -> None:
    """A new bot name must not differ from a bot's only in case: "Random" beside "random" would pass for it on the
    leaderboard (and be one folder of the store on a file system that ignores case). Names are ASCII (NAME_RE), which
    ``lower`` folds alike in SQLite and PostgreSQL."""
    alike = db.execute(select(Bot.name, Bot.owner_id).where(func.lower(Bot.name) == name.lower())).first()
    if alike is None:
        return
    if alike.owner_id != owner.id:
        raise SubmissionRefused(
            403, f"the bot name {name!r} differs only in case from {alike.name!r}, which {held_by(db, alike.owner_id)}"
        )
    raise SubmissionRefused(409, f"your bot is named {alike.name!r}: submit it under that name (names that differ only in case are one)")


def register(
    make: sessionmaker[Session], owner: User, manifest: BotManifest, registered: list[int], store: Path, per_day: int = 0
) -> tuple[int, str]:
    """The bot (a new name becomes the owner's) and its new version, validating; returns its seq and folder in the store.

    The daily limit is checked here, with no await between the count and the new row: two uploads of one owner in
    progress at once cannot both take the last place (only the serving ladder takes submissions, on one loop).

    The version's id is put in ``registered`` once it is committed, for ``submit`` to undo should a later step fail.
    The folder is NAME/SEQ, or NAME/SEQ-XXXXXXXX when that is taken: a store kept while its database was replaced
    (a backup restored, a new --db) holds folders of versions the database no longer knows.
    """
    with make() as db:
        check_daily_limit(db, owner.id, per_day, time.time())
        bot = db.scalar(select(Bot).where(Bot.name == manifest.name))
        if bot is None:
            check_unlike_others(db, owner, manifest.name)
        elif bot.owner_id != owner.id:
            raise SubmissionRefused(403, f"the bot name {manifest.name!r} {held_by(db, bot.owner_id)}")
        if bot is None:
            bot = Bot(name=manifest.name, owner_id=owner.id, created_at=time.time())
            db.add(bot)
            db.flush()
        seq = (db.scalar(select(func.max(BotVersion.seq)).where(BotVersion.bot_id == bot.id)) or 0) + 1
        rel = f"{manifest.name}/{seq}"
        if os.path.lexists(store / rel):
            rel += f"-{uuid.uuid4().hex[:8]}"
        version = BotVersion(
            bot_id=bot.id, seq=seq, version=manifest.version, status="validating", games=list(manifest.games),
            language=manifest.language, path=rel, created_at=time.time(),
        )
        db.add(version)
        db.commit()
        registered.append(version.id)
        return seq, rel


def discard(folder: Path) -> None:
    """Remove a version's folder from the store, and the bot's folder when it was its only version."""
    shutil.rmtree(folder, ignore_errors=True)
    if folder.parent.is_dir() and not any(folder.parent.iterdir()):
        folder.parent.rmdir()


def abandon(make: sessionmaker[Session], version_id: int) -> bool:
    """Reject a version whose submission failed after it was registered (best effort: the database may be what failed);
    whether it is rejected now (False: it joined the ladder, or the database could not be asked)."""
    try:
        with make() as db:
            version = db.get(BotVersion, version_id)
            if version is not None and version.status == "validating":
                version.status, version.reason = "rejected", LADDER_FAILED
                db.commit()
            return version is None or version.status == "rejected"
    except Exception:
        log_.exception("could not reject version %s, whose submission failed", version_id)
        return False


async def validation_matches(bot_dir: Path, games: list[str], log_dir: Path, sandbox: str = "process") -> tuple[str, str]:
    """One match per game against the random sample bot; returns (reason, log) with an empty reason on success.

    A sandbox this machine cannot run raises OptionError: the ladder's trouble, not the bot's (it was a rejection that
    counted towards the owner's daily limit). So does a failed match the ladder caused (``not_the_bots_fault``)."""
    from arena.v1 import referee_pb2 as pb

    logs: list[str] = []
    for game in games:
        n = min(GAMES[game].spec.player_counts)
        setup = MatchSetup(game, [bot_dir] + [SAMPLE_BOTS / "random"] * (n - 1), 1, {}, VALIDATION_TC, log_dir, sandbox, pin_cpus=PIN_CPUS)
        played = await run_local_match(setup)
        log = played.logs[0].read_text(errors="replace") if played.logs[0].exists() else ""
        logs.append(f"--- validation match, {game} ---\n{log}")
        verdicts = played.record.result.seats[0].verdicts
        if verdicts:
            await not_the_bots_fault(played.record, game, sandbox)
            described = described_verdicts(verdicts)
            shutil.rmtree(log_dir, ignore_errors=True)
            return f"the validation match of {game} failed: {described}", "\n".join(logs)[-LOG_CAP:]
    shutil.rmtree(log_dir, ignore_errors=True)
    return "", "\n".join(logs)[-LOG_CAP:]


#: The decisions of one problem named in a rejection's reason; a malformed answer to each of 500 decisions listed 500.
DECISIONS_SHOWN = 5


def described_verdicts(verdicts: Sequence[Verdict]) -> str:
    """The verdicts as one line, each distinct problem once with how often it came: a bot sending the same illegal
    action until its SDK gave up was told the same sentence four times over, which read as four problems."""
    from arena.v1 import referee_pb2 as pb

    seen: dict[tuple[int, str], list[int]] = {}  # (kind, detail) -> the decision of each time, in the order they came
    for v in verdicts:
        seen.setdefault((v.kind, v.detail), []).append(v.decision_index)
    said = []
    for (kind, detail), decisions in seen.items():
        distinct = list(dict.fromkeys(decisions))
        more = len(distinct) - DECISIONS_SHOWN
        shown = ", ".join(map(str, distinct[:DECISIONS_SHOWN])) + (f" and {more} more" if more > 0 else "")
        at = f"at decision{'s' if len(distinct) > 1 else ''} {shown}"
        times = f" ({len(decisions)} times)" if len(decisions) > 1 else ""
        said.append(f"{verdict_text(pb.VerdictKind.Name(kind))} {at}{times}: {detail}")
    return "; ".join(said)


async def not_the_bots_fault(record: MatchRecord, game: str, sandbox: str) -> None:
    """Raise OptionError when a validation match the bot failed failed for the ladder: its Docker engine or image gone
    since the match started (the bot's container killed, or never started, read as the bot crashing), or the
    ladder's own random bot failing at the same table (a machine too loaded to answer in time, say)."""
    if sandbox == "docker":
        from referee.server.sandbox import DockerLauncher

        await asyncio.to_thread(DockerLauncher)  # SandboxError (an OptionError) when the engine or the image is gone
    from arena.v1 import referee_pb2 as pb

    house = [verdict for seat in record.result.seats[1:] for verdict in seat.verdicts]
    if house:
        first = house[0]
        raise OptionError(
            f"the ladder's random bot failed too in the validation match of {game} "
            f"({verdict_text(pb.VerdictKind.Name(first.kind))} at decision {first.decision_index}: {first.detail})"
        )
