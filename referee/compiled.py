"""The rules compiled with mypyc: built on request (``arena compile``), used when asked for and still current.

A compiled build is the modules of ``referee/core`` and ``referee/games`` as C
extensions, their dataclasses given constructors mypyc compiles (referee/native_records.py), in a folder of the
user's cache named by a hash of their sources (and of the Python and mypy versions). Nothing is compiled in place, so a
compiled module can never shadow a later edit of its source: with
``ARENA_COMPILED=1`` the ``referee`` package looks for its rules in the build
whose hash matches the sources as they are now, and uses the pure Python ones,
saying so on stderr, when there is none. Everything else in ``referee`` (the
codec, the server) stays Python. The conformance suite runs over both builds
(scripts/test.sh); the compiled one plays about 3 to 4 times as many decisions
per second (docs/benchmarks.md).
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from referee.native_records import with_native_constructors

#: The subpackages of ``referee`` that are compiled.
COMPILED = ("core", "games")
#: Set to 1 to use the compiled build (when there is a current one).
SWITCH = "ARENA_COMPILED"
PACKAGE = Path(__file__).resolve().parent
#: The rewrite every compiled module goes through first: part of what a build is made from.
REWRITE = PACKAGE / "native_records.py"
_MARK = "BUILT"


class BuildError(RuntimeError):
    """mypyc or the C compiler failed, or is missing."""


def cache_root() -> Path:
    """Where builds are kept: ``$ARENA_COMPILED_CACHE``, else ``$XDG_CACHE_HOME/arena/compiled`` (``~/.cache``)."""
    explicit = os.environ.get("ARENA_COMPILED_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "arena" / "compiled"


def _mypy_version() -> str:
    try:
        from mypy.version import __version__
    except ImportError:
        return "none"
    return str(__version__)


def source_hash(package: Path = PACKAGE) -> str:
    """A hash of every source file that goes into a build, and of the tools that build it."""
    digest = hashlib.sha256(f"{sys.version}\n{_mypy_version()}\n".encode())
    digest.update(REWRITE.read_bytes() + b"\0")
    for sub in COMPILED:
        for path in sorted((package / sub).rglob("*.py")):
            digest.update(path.relative_to(package).as_posix().encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:20]


def build_dir(package: Path = PACKAGE) -> Path:
    """The folder of the build for the sources as they are now (it may not exist)."""
    return cache_root() / source_hash(package)


def is_built(where: Path) -> bool:
    return (where / _MARK).is_file()


def activate(package_path: list[str]) -> list[str]:
    """The search path of the ``referee`` package: the current build's first when ``ARENA_COMPILED=1`` asks for it."""
    if os.environ.get(SWITCH, "") not in ("1", "true", "yes"):
        return package_path
    where = build_dir()
    if not is_built(where):
        sys.stderr.write(
            f"arena: {SWITCH}=1, but there is no compiled build of the rules as they are now (run `arena compile`); "
            "playing with the pure Python rules\n"
        )
        return package_path
    if str(where) not in sys.path:
        sys.path.append(str(where))  # the build's shared library, a top-level module named by its own hash
    return [str(where / "referee"), *package_path]


def in_use() -> bool:
    """Whether the rules imported are the compiled ones."""
    import referee.core.game as game

    return str(game.__file__).endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))


def build(package: Path = PACKAGE, force: bool = False) -> Path:
    """Compile the rules into their build folder (1.5-3.5 min of one core) and return it; a current build is kept."""
    where = build_dir(package)
    if is_built(where) and not force:
        return where
    if shutil.which("cc") is None:
        raise BuildError("no C compiler (cc) here: install one (Debian: build-essential)")
    try:
        import mypyc  # noqa: F401
    except ImportError:
        raise BuildError("mypyc is not installed; it comes with mypy (pip install mypy)") from None
    with tempfile.TemporaryDirectory(prefix="arena-compile-") as tmp:
        # The whole package and the protocol's generated modules, so that mypyc sees what the rules import;
        # only the rules are compiled.
        skip = shutil.ignore_patterns("__pycache__", "*.so")
        shutil.copytree(package, Path(tmp) / "referee", ignore=skip)
        shutil.copytree(package.parent / "arena" / "v1", Path(tmp) / "arena" / "v1", ignore=skip)
        (Path(tmp) / "arena" / "__init__.py").touch()
        sources = [
            path.relative_to(tmp).as_posix()
            for sub in COMPILED
            for path in sorted((Path(tmp) / "referee" / sub).rglob("*.py"))
        ]
        for source in sources:
            path = Path(tmp) / source
            path.write_text(with_native_constructors(path.read_text()))
        done = subprocess.run(
            [sys.executable, "-m", "mypyc", *sources],
            cwd=tmp, capture_output=True, text=True, check=False,
        )
        if done.returncode != 0:
            tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
            raise BuildError(f"mypyc failed:\n{tail}")
        staging = Path(tempfile.mkdtemp(prefix=f".{where.name}-", dir=_made(where.parent)))
        for library in Path(tmp).glob("*__mypyc*"):
            shutil.copy2(library, staging / library.name)
        for sub in COMPILED:
            for made in (Path(tmp) / "referee" / sub).rglob("*"):
                if made.name.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)):
                    target = staging / "referee" / made.relative_to(Path(tmp) / "referee")
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(made, target)
    (staging / _MARK).write_text(source_hash(package) + "\n")
    if where.exists():
        shutil.rmtree(where)
    staging.rename(where)  # whole or not at all: an interrupted build leaves no half-built folder under the hash
    return where


def _made(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return folder
