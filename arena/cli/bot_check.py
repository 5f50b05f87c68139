"""``arena bot check``: what the ladder would say of a bot, found on the author's own machine before submitting.

It runs the ladder's own steps on a copy: the folder zipped as ``arena ladder submit`` zips it, the archive
checked and unpacked under the ladder's limits, the manifest read, then the validation matches (one of each
of the bot's games against the random sample bot, seed 1, the ladder's clock and no strikes). A bot that
passes here passes there, unless the ladder runs bots in another sandbox than the one checked with.
"""

from __future__ import annotations

import json
import tempfile
import zipfile
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from arena.cli import running
from arena.cli.botkit import bot_app, console
from arena.cli.failing import fail

#: How much of the validation matches' log a failed check prints (the JSON and the file keep it whole).
SHOWN_LOG = 4000


@bot_app.command("check")
def check(
    bot: Annotated[Path, typer.Argument(help="A bot directory, or a .zip of one, as `arena ladder submit` takes it.")],
    sandbox: Annotated[str, typer.Option(help="Run the validation matches as local processes, or in Docker containers as a ladder with --sandbox docker does.")] = "process",
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object: passed, bot, version, games, reason, log, left_out.")] = False,
) -> None:
    """Check a bot as the ladder checks a submission (archive, manifest, one validation match per game); exit 1 if it would be rejected."""
    from arena.cli.stale import warn_stale_folder
    from ladder.submissions import VALIDATION_TC, as_bot, unknown_games, unpacked, validation_matches
    from ladder.upload import Limits, UploadError, bot_archive, left_out
    from referee.core.game import OptionError
    from referee.server.manifest import ManifestError
    from referee.server.runner import launcher_for

    refused = ""
    try:
        data = bot_archive(bot)
    except UploadError as exc:
        if not (bot.is_dir() or zipfile.is_zipfile(bot)):  # no bot at all (a mistyped path, its bot.py): an error, not a verdict
            fail(str(exc))
        # A folder the ladder's limits refuse (more files or bytes than it takes, a link): rejected, as its zip would be.
        data, refused = b"", str(exc)
    warn_stale_folder(bot)
    installed = left_out(bot) if bot.is_dir() else []
    try:
        launcher_for(sandbox)  # no engine or no image is this machine's trouble, not the bot's: said before anything runs
    except OptionError as exc:
        fail(str(exc))
    with tempfile.TemporaryDirectory(prefix="arena-check-") as scratch:
        staging = Path(scratch) / "bot"
        name = version = ""
        games: list[str] = []
        log = ""
        try:
            if refused:
                raise UploadError(refused)
            manifest = unpacked(data, staging, Limits())
            name, version, games = manifest.name, manifest.version, list(manifest.games)
            reason = unknown_games(manifest)
        except (UploadError, ManifestError) as exc:
            reason = as_bot(str(exc), staging)
        if not reason:
            if not as_json:
                console.print(f"{escape(name)} {escape(version)}: archive and manifest pass; playing {len(games)} validation match{'es' * (len(games) > 1)}…")
            try:
                reason, log = running.run(validation_matches(staging, games, Path(scratch) / "validation", sandbox))
                # A traceback named the check's copy (/tmp/arena-check-…/bot/bot.py), a file gone once it has run: as
                # the reason names it, <bot> is the bot's folder.
                log = as_bot(log, staging)
            except OptionError as exc:  # the sandbox broke since it was looked at: this machine's trouble, as above
                fail(str(exc))
    if as_json:
        print(json.dumps({"passed": not reason, "bot": name, "version": version, "games": games, "reason": reason, "log": log, "left_out": installed}))
    elif reason:
        from arena.cli.replay_text import printable, printable_log

        # the reason quotes the bot's own note on a malformed answer: its escape sequences are written out too
        console.print(f"[red]would be rejected[/]: {escape(printable(reason))}", soft_wrap=True)
        if log:

            # lines whole, as the bot wrote them, but not its escape sequences: they would drive the reader's terminal
            console.print(printable_log(log[-SHOWN_LOG:]), markup=False, highlight=False, soft_wrap=True)
        for folder in installed:  # what the bot ran from here may be why it failed there
            console.print(
                f"[yellow]note[/]: {escape(folder)} was left out of the archive (the ladder installs nothing): bundle what the bot needs"
                " from it into its own files (docs/protocol.md)",
                soft_wrap=True,
            )
    else:
        tc = VALIDATION_TC
        console.print(
            f"[green]would pass[/]: {name} {version} played {', '.join(games)} against the random sample bot without a verdict "
            f"({tc.move_time_ms} ms a decision, {tc.time_bank_ms} ms of bank, no strikes; sandbox: {sandbox})",
            soft_wrap=True,
        )
    if reason:
        raise typer.Exit(1)
