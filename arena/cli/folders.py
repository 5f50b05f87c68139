"""Folders a command makes, so that a command that fails can leave none of them behind."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def first_missing(path: Path) -> Path | None:
    """The outermost of ``path`` and its parents that does not exist yet: what making ``path`` would create."""
    missing = None
    for p in (path, *path.parents):
        if p.exists():
            break
        missing = p
    return missing


def remove_made(made: Path | None) -> None:
    """Remove what ``first_missing`` said was not there before (nothing if it was None)."""
    if made is not None:
        shutil.rmtree(made, ignore_errors=True)


@contextmanager
def removed_on_failure(*paths: Path) -> Iterator[None]:
    """Remove the folders the block makes for ``paths`` if it fails (a later check of the command, say)."""
    made = [first_missing(path) for path in paths]
    try:
        yield
    except BaseException:
        for folder in made:
            remove_made(folder)
        raise
