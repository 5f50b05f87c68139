"""Bot directories and their manifests (bot.toml)."""

from __future__ import annotations

import contextlib
import difflib
import json
import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

MANIFEST = "bot.toml"
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}\Z")  # \Z: "$" let a name end in a newline
#: NAME_RE in words, for the errors of every name it checks (bots, kits, ladder users).
NAME_RULE = "must start with a letter or digit, then use only letters, digits, '_', '.', '-' (64 characters at most)"
LANGUAGES = ("python", "typescript", "javascript", "other")
MAX_MATCHES_PER_PROCESS = 1000
#: Longest version string and game id: the ladder keeps them in columns of 64 characters.
MAX_VERSION, MAX_GAME_ID = 64, 64
#: A command word with one of these endings names a script in the bot's folder, which must be there.
SCRIPT_SUFFIXES = (".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".sh", ".jar", ".php", ".lua")
#: Every key a manifest may have (docs/bots.md).
KEYS = ("name", "version", "language", "games", "command", "matches_per_process")


class ManifestError(ValueError):
    """A bot directory without a usable manifest; the message says what to fix."""


@dataclass(frozen=True)
class BotManifest:
    path: Path
    name: str
    version: str
    games: tuple[str, ...]
    command: tuple[str, ...]
    language: str
    #: How many matches one process of this bot may play in a row (1: a fresh process per match).
    #: Above 1 the bot must read its matches on stdin (``ARENA_CONTROL=stdin``; the Python SDK's ``run`` does).
    matches_per_process: int = 1

    def plays(self, game_id: str) -> bool:
        return game_id in self.games


def load_manifest(bot_dir: str | Path) -> BotManifest:
    """Read and check ``bot_dir/bot.toml``."""
    path = Path(bot_dir)
    if not path.is_dir():
        raise ManifestError(f"{path}: not a directory (a bot is a directory with a {MANIFEST})")
    file = path / MANIFEST
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ManifestError(f"{path}: no {MANIFEST} (it names the bot, its games and the command that starts it)") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ManifestError(f"{file}: not valid TOML: {exc}") from None
    except ValueError:  # an integer of over 4300 digits: the parser's int() refuses it, and it is no TOMLDecodeError
        raise ManifestError(f"{file}: not valid TOML for a bot: it holds a number too long to read") from None
    except RecursionError:  # arrays nested thousands deep: the parser recurses once per level
        raise ManifestError(f"{file}: not valid TOML for a bot: its values nest too deep") from None
    except OSError as exc:  # a folder named bot.toml, a file it may not read
        raise ManifestError(f"{file}: cannot be read: {exc.strerror or exc}") from None
    check_keys(file, data)

    def text(key: str) -> str:
        value = data.get(key)
        if not isinstance(value, str) or not value.strip():
            raise ManifestError(f"{file}: '{key}' must be a non-empty string")
        return value.strip()

    name = text("name")
    if not NAME_RE.match(name):
        raise ManifestError(f"{file}: name {name!r} {NAME_RULE}")
    version = text("version")
    if len(version) > MAX_VERSION:
        raise ManifestError(f"{file}: 'version' must be at most {MAX_VERSION} printable characters (it has {len(version)})")
    if not version.isprintable():  # a control character, a bidi override: told which, not that the version is too long
        odd = next(c for c in version if not c.isprintable())
        raise ManifestError(f"{file}: 'version' must be printable characters only; it holds {odd!r} (U+{ord(odd):04X})")
    games = data.get("games")
    if not isinstance(games, list) or not games or not all(isinstance(g, str) and 0 < len(g) <= MAX_GAME_ID for g in games):
        raise ManifestError(f"{file}: 'games' must be a non-empty list of game ids (at most {MAX_GAME_ID} characters each)")
    twice = sorted({g for g in games if games.count(g) > 1})
    if twice:
        raise ManifestError(f"{file}: 'games' lists {', '.join(map(repr, twice))} more than once")
    command = data.get("command")
    if command is None:
        raise ManifestError(f"{file}: no 'command' (the command that starts the bot, such as [\"python\", \"bot.py\"])")
    if isinstance(command, str):
        command = command.split()  # a string is split on spaces; a list keeps arguments with spaces whole
    if not isinstance(command, list) or not command or not all(isinstance(c, str) and c for c in command):
        raise ManifestError(f"{file}: 'command' must be a list of strings (or one string of words), such as [\"python\", \"bot.py\"]")
    if any("\0" in c for c in command):  # no program can be given it: the launch failed, and the bot was reported as never connecting
        raise ManifestError(f"{file}: 'command' holds a NUL character (\\u0000), which no program's arguments may")
    language = data.get("language", "other")
    if language not in LANGUAGES:
        raise ManifestError(f"{file}: 'language' must be one of {', '.join(LANGUAGES)}")
    per_process = data.get("matches_per_process", 1)
    if not isinstance(per_process, int) or isinstance(per_process, bool) or not 1 <= per_process <= MAX_MATCHES_PER_PROCESS:
        raise ManifestError(f"{file}: 'matches_per_process' must be a whole number from 1 to {MAX_MATCHES_PER_PROCESS}")
    return BotManifest(path.resolve(), name, version, tuple(games), tuple(command), str(language), per_process)


def has_build_script(folder: Path) -> bool:
    """Whether the bot's package.json has a ``build`` script, as the TypeScript kits' has: then `npm run build` builds it."""
    try:
        scripts = json.loads((folder / "package.json").read_text(encoding="utf-8")).get("scripts")
    except (OSError, ValueError, AttributeError):  # none, not JSON, not an object
        return False
    return isinstance(scripts, dict) and "build" in scripts


#: What a build makes: a program (the command's first word), a bundle or an archive. A missing ``bot.py`` is a typo, not a step skipped.
BUILT_SUFFIXES = (".js", ".mjs", ".cjs", ".jar")


def _missing_hint(folder: Path, word: str, index: int) -> str:
    """Why a file the command names may be missing: a near name the folder has, else an unbuilt bot when a build makes such files."""
    near: list[str] = []
    where = os.path.dirname(word)
    with contextlib.suppress(OSError):  # no such folder, or not readable: no names to offer
        suffix = os.path.splitext(word)[1]  # main.ts is no answer for a missing main.js: the bundle is what runs
        names = [os.path.join(where, name) for name in os.listdir(folder / where) if os.path.splitext(name)[1] == suffix]
        near = difflib.get_close_matches(word, names, n=1)
    if near:
        return f"did you mean {near[0]}?"
    if index == 0 or word.endswith(BUILT_SUFFIXES):
        how = " (npm run build)" if has_build_script(folder) else ""
        return f"build the bot first{how}: a bot cannot build itself at run time"
    return "a bot's folder holds every file its command runs"


def check_built(manifest: BotManifest) -> None:
    """Refuse a bot whose command names a relative program or script its folder lacks, or a program it may not run (ManifestError).

    A program is a first word with a slash (``./bot``, ``build/bot``), a script a later word ending in a
    script's suffix (``dist/main.js``, ``bot.py``); absolute paths and words with spaces (a shell's script)
    are left alone. An unbuilt bot, such as a TypeScript bot before its bundle is made, would otherwise
    start, die at once, and leave the reason in its log alone. Checked before a match or a submission, not
    on loading, so that a manifest can be read and checked apart from its bot."""
    for i, word in enumerate(manifest.command):
        named = "/" in word if i == 0 else not word.startswith("-") and word.endswith(SCRIPT_SUFFIXES)
        if not named or word.startswith(("/", "~", "$")) or " " in word:
            continue
        target = manifest.path / word
        if not os.path.lexists(target):
            raise ManifestError(f"{manifest.path / MANIFEST}: its command names {word}, which is not in the bot's folder ({_missing_hint(manifest.path, word, i)})")
        if i == 0 and target.is_file() and not os.access(target, os.X_OK):  # else the shell's "Permission denied", code 126
            raise ManifestError(
                f"{manifest.path / MANIFEST}: its command runs {word}, which is not executable"
                f" (chmod +x {word}, or start the command with its interpreter)"
            )


def stale_build(manifest: BotManifest) -> str | None:
    """Say which of a TypeScript bot's sources changed after the bundle its command runs was built (None: none did).

    The referee runs the bundle (``dist/main.js``), not the ``.ts`` files: an author who edited bot.ts and played
    without building again played the old bot, and nothing said so. Tests (``*.test.ts``) are not the bot's sources,
    nor are ``node_modules``, ``dist`` and hidden folders. Only a warning: a file's time is no proof, and the ladder,
    which gets the files from an archive, does not ask."""
    if manifest.language != "typescript":
        return None
    bundles = [w for w in manifest.command[1:] if w.endswith((".js", ".cjs", ".mjs")) and (manifest.path / w).is_file()]
    if not bundles:
        return None
    built = min((manifest.path / w).stat().st_mtime for w in bundles)
    newer = []
    for root, dirs, files in os.walk(manifest.path):
        dirs[:] = [d for d in dirs if d not in ("node_modules", "dist") and not d.startswith(".")]
        for f in files:
            source = Path(root) / f
            with contextlib.suppress(OSError):  # a dangling link, a file gone meanwhile
                if f.endswith(".ts") and not f.endswith(".test.ts") and source.stat().st_mtime > built:
                    newer.append(str(source.relative_to(manifest.path)))
    if not newer:
        return None
    return f"{manifest.name}: {', '.join(sorted(newer))} changed after {bundles[0]} was built, so the old bot plays: build it again (npm run build)"


def check_keys(file: Path, data: dict[str, object]) -> None:
    """Refuse keys the referee does not read: a misspelt optional key would otherwise be silently ignored."""
    for key in data:
        if key not in KEYS:
            close = difflib.get_close_matches(key, KEYS, n=1)
            hint = f"did you mean '{close[0]}'?" if close else f"the keys are {', '.join(KEYS)}"
            raise ManifestError(f"{file}: unknown key {key!r} ({hint})")  # quoted so: a key may hold a line break
