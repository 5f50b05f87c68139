"""The replays and logs a ladder keeps as files, as its database names them: relative to the data folder.

They were named by absolute path, so a data folder moved (to a bigger disk, or a backup served elsewhere) kept every
bot version, whose folder is named relative to the store, and lost every replay and log. Rows written so before are
still found: a path that is gone is looked for at its place in the data folder's layout (replays/..., logs/...).
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

#: The data folder's folders of files the database names (ladder.jobs writes them).
KEPT = ("replays", "logs")


def stored_name(path: Path, root: Path) -> str:
    """How the database names ``path``: relative to the data folder ``root`` when it is inside, else by its absolute path."""
    # As named first (a replays/ or logs/ folder linked from another disk is still the data folder's), then resolved.
    for inside, folder in ((Path(os.path.abspath(path)), Path(os.path.abspath(root))), (path.resolve(), root.resolve())):
        try:
            return PurePosixPath(*inside.relative_to(folder).parts).as_posix()
        except ValueError:
            pass
    return os.path.abspath(path)


def located(stored: str, root: Path) -> Path:
    """The file the database names ``stored``, in the data folder ``root`` (see the module's docstring)."""
    path = Path(stored)
    if path.is_absolute() and path.exists():
        return path
    return in_layout(stored, root) or path


def in_layout(stored: str, root: Path) -> Path | None:
    """Where a file the database names ``stored`` belongs in the data folder ``root``: there when relative, else at
    the place of its innermost replays/ or logs/ folder, whether or not it exists elsewhere; None if of neither."""
    path = Path(stored)
    if not path.is_absolute():
        return root / path
    parts = path.parts
    for i in range(len(parts) - 2, 0, -1):  # the innermost replays/ or logs/ folder: the data folder's own
        if parts[i] in KEPT:
            return root.joinpath(*parts[i:])
    return None
