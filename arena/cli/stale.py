"""Warnings that a TypeScript bot's bundle is older than its sources: the referee runs the bundle (``stale_build``)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from referee.server.manifest import BotManifest, ManifestError, load_manifest, stale_build

err = Console(stderr=True)


def warn_stale(manifests: Iterable[BotManifest]) -> None:
    """Warn, once a bot, when a TypeScript bot's sources are newer than the bundle the referee will run."""
    for manifest in {m.path: m for m in manifests}.values():
        if note := stale_build(manifest):
            err.print(f"[yellow]warning:[/] {escape(note)}", soft_wrap=True)


def warn_stale_folder(bot: Path) -> None:
    """``warn_stale`` for a bot given as a folder to be zipped: the archive would carry the old bundle.

    A .zip, or a folder whose manifest cannot be read, gets no warning here: the ladder's checks say what is wrong.
    """
    if bot.is_dir():
        with contextlib.suppress(ManifestError):
            warn_stale([load_manifest(bot)])
