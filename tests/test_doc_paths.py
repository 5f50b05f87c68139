"""Every file or folder of the repository the docs name is there.

README.md and docs/ (docs/benchmarks.md aside: its rounds are history, naming files as they were then) point readers
at the code by path: `referee/server/session.py`, `sample_bots/random`, `scripts/setup.sh`. A module renamed or
moved left those pointing at nothing. A path is taken as one of the repository's when it begins with one of its
top-level folders; it is found relative to the root, or to the roots the docs name paths from: proto/ (the .proto
files import each other as `arena/v1/...`) and sdk/typescript/ (whose guide names its own `scripts/` and `src/`).
A path with a wildcard (`proto/arena/v1/*.proto`) must match something; one with an ellipsis (`arena/v1/...`)
stands for what the reader fills in, and is passed over.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").rglob("*.md") if p.name != "benchmarks.md")]
TOP = ("arena", "benchmarks", "docs", "ladder", "proto", "referee", "sample_bots", "scripts", "sdk", "tests")
BASES = (ROOT, ROOT / "proto", ROOT / "sdk" / "typescript")
PATH = re.compile(rf"(?<![\w./-])(?:{'|'.join(TOP)})/[\w./*…-]*")
ELIDED = re.compile(r"\.\.\.|…")


def named_paths(text: str) -> list[tuple[int, str]]:
    """(line, path) for each repository path in ``text``, without the full stop or comma that may end it."""
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        for named in PATH.findall(line):
            if not ELIDED.search(named):
                out.append((number, named.rstrip(".,:")))
    return out


CASES = [pytest.param(doc, path, id=f"{doc.relative_to(ROOT)}:{line}:{path}") for doc in DOCS for line, path in named_paths(doc.read_text())]


@pytest.mark.parametrize("doc,path", CASES)
def test_a_path_the_docs_name_is_in_the_repository(doc: Path, path: str) -> None:
    assert any(found(base, path) for base in BASES), f"{doc.relative_to(ROOT)} names {path}, which is not in the repository"


def found(base: Path, path: str) -> bool:
    return any(base.glob(path)) if "*" in path else (base / path).exists()


def test_the_paths_are_found_and_a_wrong_one_would_fail() -> None:
    """The reading finds what the docs name (many paths, the usual kinds), and passes over what stands for many."""
    assert len(CASES) > 100
    named = [path for _, path in named_paths("See `referee/server/session.py`, sample_bots/random. Or tests/x_*.py, arena/v1/...")]
    assert named == ["referee/server/session.py", "sample_bots/random", "tests/x_*.py"]
    assert not any(found(base, "referee/server/sesion.py") or found(base, "tests/x_*.py") for base in BASES)
    assert found(ROOT, "proto/arena/v1/*.proto") and found(ROOT / "proto", "arena/v1/referee.proto")
