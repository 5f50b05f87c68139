"""Which Arena a process runs: a hash of its Python sources, for the ladder and its Dask workers to compare.

docs/deploy.md asks for every worker "with Arena installed at the ladder's version": the workers unpickle the ladder's
jobs and play them with their own referee and games. A worker left on another version after an upgrade (another machine,
a unit not restarted) played and recorded its matches all the same, by its own rules and code: replays the ladder
re-plays by its rules, results its schema may not expect. The ladder stamps each job with its release, and a worker
whose own differs plays none (ladder/dask_worker.py).
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

#: The packages a worker runs a match with: the jobs and their recording, the referee and games, the protocol.
PACKAGES = ("ladder", "referee", "arena")
ROOT = Path(__file__).resolve().parent.parent


@lru_cache(maxsize=1)
def code_release() -> str:
    """A short hash of every Python source of ``PACKAGES`` (their paths and bytes), the same on every machine alike installed."""
    digest = hashlib.sha256()
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]
