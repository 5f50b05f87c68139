"""A tournament's finished games kept in a file as they end, so that an interrupted tournament goes on where it stopped.

The file is JSON lines: a header naming the tournament (game, bots, format, games, seed, options, clock), then one
line per finished game. Run again with the same file, a tournament takes the games the file holds instead of playing
them, and plays the rest. A file of another tournament (other settings, or a bot whose files changed since) is
refused rather than mixed in: its games would not be this tournament's.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import math
import os
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

from referee.core.game import OptionError, shown
from referee.games.registry import GAMES
from referee.server.manifest import BotManifest
from referee.tournament.schedule import SEED_BOUNDS, ScheduledGame, games_played

FORMAT = "arena-tournament"
VERSION = 1
#: Settings a header names since a later Arena: a file without them, an earlier Arena's, is taken to hold this run's
#: (refused, a tournament under way when Arena was upgraded could not go on, and its games were lost to it).
RECORDED_LATER = ("rules_version", "sandbox", "pin_cpus", "elo0", "elo1", "alpha", "beta", "sprt_model")
#: Settings of an SPRT alone: a file of one, taken up by another format, is refused for its format, not for each of these.
SPRT_SETTINGS = frozenset({"elo0", "elo1", "alpha", "beta", "sprt_model"})
#: Folders of a bot that do not make it another bot: caches, and version control.
UNHASHED = frozenset({"__pycache__", ".git", ".mypy_cache", ".pytest_cache"})


class SavedGamesError(ValueError):
    """A file that is not this tournament's saved games; the message says why."""


def bot_digest(folder: Path, skip: Iterable[Path] = ()) -> str:
    """A digest of every file of the bot's folder (names and bytes): a bot edited since it was saved is another bot.

    ``skip``: folders and files inside it that the tournament itself writes (its logs, replays, this file). Linked
    folders are read as the bot reads them (its code kept elsewhere and linked in), each real folder once, so that a
    link back up is no endless walk; names are their bytes, whatever their encoding.
    """
    skipped = {p.resolve() for p in skip}
    digest = hashlib.sha256()
    walked: set[Path] = set()
    for root, dirs, files in os.walk(folder, followlinks=True):
        here = Path(root)
        if here.resolve() in walked:
            dirs[:] = []
            continue
        walked.add(here.resolve())
        dirs[:] = sorted(d for d in dirs if d not in UNHASHED and (here / d).resolve() not in skipped)
        for name in sorted(files):
            path = here / name
            if path.resolve() in skipped or not path.is_file():
                continue
            digest.update(os.fsencode(path.relative_to(folder)) + b"\0")
            with open(path, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    digest.update(block)
            digest.update(b"\0")
    return digest.hexdigest()


def describe(settings: dict[str, Any], manifests: list[BotManifest], skip: Iterable[Path], digests: dict[Path, str] | None = None) -> dict[str, Any]:
    """The header's tournament: ``settings`` (game, format, games, seed…) and each bot by name, version and files.

    ``digests`` keeps each folder's digest for the caller (one tournament's check and run, a bot entered twice): a
    large bot folder was read whole each time.
    """
    skip = list(skip)
    digests = {} if digests is None else digests
    for m in manifests:
        if m.path.resolve() not in digests:
            digests[m.path.resolve()] = bot_digest(m.path, skip)
    bots = [{"name": m.name, "version": m.version, "files": digests[m.path.resolve()]} for m in manifests]
    return {**settings, "bots": bots}


def differences(saved: dict[str, Any], wanted: dict[str, Any]) -> list[str]:
    """What differs between two tournaments' descriptions, in words."""
    keys = sorted(
        k for k in set(saved) | set(wanted)
        if k != "bots" and (k in saved or k not in RECORDED_LATER) and (k in wanted or k not in SPRT_SETTINGS)
    )  # fmt: skip
    same_there, same_here = as_played(saved), as_played(wanted)
    longer = extends(same_there, same_here)
    out = [
        f"{key} {saved.get(key)!r} there, {wanted.get(key)!r} here" + (" (it may go on with more games, not fewer)" if key == "games" else "")
        for key in keys if same_there.get(key) != same_here.get(key) and not (key == "games" and longer)
    ]  # fmt: skip
    there, here = saved.get("bots", []), wanted.get("bots", [])
    if len(there) != len(here):
        out.append(f"{len(there)} bots there, {len(here)} here")
    for i, (a, b) in enumerate(zip(there, here)):
        if (a.get("name"), a.get("version")) != (b["name"], b["version"]):
            out.append(f"bot {i + 1} is {a.get('name')} {a.get('version')} there, {b['name']} {b['version']} here")
        elif a.get("files") != b["files"]:
            out.append(f"bot {i + 1} ({b['name']}): its files changed since")
    return out


def as_played(settings: dict[str, Any]) -> dict[str, Any]:
    """``settings`` as the games are played: options with their defaults and parsed (``-o rounds=03`` plays as
    ``rounds=3``, and as no ``-o`` where 3 is the default), and games rounded up to whole deals (``--games 3`` of two
    bots plays 4). Two headers alike here name the same games, however the command was typed."""
    out = dict(settings)
    cls = GAMES.get(str(out.get("game")))
    options = out.get("options")
    if cls is not None and isinstance(options, dict):
        try:
            out["options"] = cls.spec.resolve_options(options)
        except OptionError:  # a header edited by hand: compared as written
            pass
    games, players = out.get("games"), out.get("players")
    if type(games) is int and type(players) is int and games > 0 and players > 0:
        out["games"] = games_played(str(out.get("format")), games, players)
    return out


def extends(saved: dict[str, Any], wanted: dict[str, Any]) -> bool:
    """``wanted`` (as played) is ``saved``'s tournament with as many games or more. Every format's schedule for more
    games begins with the one for fewer (round after round, pair after pair; a swiss round is paired from the rounds
    before it), so the file's games are the first of the longer run's. Fewer is refused: a command that left out
    --games would otherwise report a few of the file's games as if they were the tournament."""
    there, here = saved.get("games"), wanted.get("games")
    return type(there) is int and type(here) is int and 0 < there <= here  # not a bool, nor none at all: a header edited


def read_header(path: Path) -> dict[str, Any] | None:
    """The tournament a saved file holds, or None when there is no file (or it is empty)."""
    if not path.is_file() or path.stat().st_size == 0:
        return None
    with open(path, "rb") as f:
        first = f.readline()
    try:
        header = json.loads(first)
    except (ValueError, RecursionError):  # not JSON, not UTF-8 (a binary file), or nested deeper than the parser goes
        header = None
    tournament = header.get("tournament") if isinstance(header, dict) else None
    bots = tournament.get("bots", []) if isinstance(tournament, dict) else None
    # its bots are compared field by field: a header edited to hold other than a list of objects there was a traceback
    if not isinstance(header, dict) or header.get("format") != FORMAT or not isinstance(bots, list) or not all(isinstance(b, dict) for b in bots):
        raise SavedGamesError(f"{path} is not a file of saved tournament games: it is never written over; give another file")
    if header.get("version") != VERSION:
        raise SavedGamesError(f"{path} holds saved games of format version {shown(header.get('version'))}, not {VERSION}")
    return dict(header["tournament"])


def seeds_of(path: Path, held: dict[str, Any]) -> int:
    """The version of the match seeds' derivation (schedule.SEED_BOUNDS) the tournament ``held`` in ``path`` plays:
    1 when it names none (an earlier Arena's file, whose games were played on seeds below 2**31)."""
    seeds = held.get("seeds", 1)
    if type(seeds) is not int or seeds not in SEED_BOUNDS:
        raise SavedGamesError(f"{path} holds games played on match seeds of version {shown(seeds)}, which this Arena does not know: a later Arena's, or edited since; give another file")
    return seeds


class SavedGames:
    """The saved games of one tournament: those ``path`` held when opened, and each game added since."""

    def __init__(self, path: Path, tournament: dict[str, Any], hold: bool = False) -> None:
        """``hold``: keep the file to this tournament until ``close`` (the one that plays); else only check that no
        other tournament holds it now."""
        self.path = path
        self.games: dict[int, dict[str, Any]] = {}
        self._file: IO[str] | None = None
        if hold:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._file = open(path, "a", encoding="utf-8")  # appended to, even when it is new: written by one only
            _lock(self._file, path)
        elif path.is_file():
            with open(path, "rb") as f:
                _lock(f, path)  # and let go at once
        try:
            held = read_header(path)
        except BaseException:
            self.close()
            raise
        if held is not None:
            diff = differences(held, tournament)
            if diff:
                self.close()
                raise SavedGamesError(f"{path} holds another tournament's games ({'; '.join(diff)}): give another file, or delete it to start again")
            self.games = self._read_games()
        #: Settings this file does not name (an earlier Arena's), taken to be this run's.
        self.assumed = [k for k in RECORDED_LATER if held is not None and k not in held and k in tournament]
        self._fresh = held is None  # no header yet: the first game added writes it
        self._started = False
        self._tournament = tournament

    def _read_games(self) -> dict[int, dict[str, Any]]:
        games: dict[int, dict[str, Any]] = {}
        with open(self.path, "rb") as f:
            next(f)
            for line in f:
                try:
                    game = json.loads(line)
                except (ValueError, RecursionError):
                    continue  # the last line, cut short when the tournament was killed while writing it
                if not isinstance(game, dict) or type(game.get("index")) is not int:  # not Infinity (int() raised OverflowError), 1.5 or "2"
                    continue
                if _usable(game) or not _usable(games.get(game["index"])):  # a line edited into junk after it loses it not
                    games[game["index"]] = game
        return games

    @property
    def usable(self) -> int:
        """How many of the games held give a result (those that do not are played again)."""
        return sum(1 for game in self.games.values() if _usable(game))

    @property
    def furthest(self) -> int:
        """The index of the last game held that gives a result; -1 when none does (a line of junk is no game)."""
        return max((i for i, game in self.games.items() if _usable(game)), default=-1)

    def get(self, scheduled: ScheduledGame) -> dict[str, Any] | None:
        """The saved result of ``scheduled``, if this file has it (the same deal, the same bots in the same seats)."""
        game = self.games.get(scheduled.index)
        seats = game.get("seats") if game is not None else None
        if game is None or game.get("seed") != scheduled.seed or not isinstance(seats, list) or tuple(seats) != scheduled.seats:
            return None
        return game if _whole(game, len(scheduled.seats)) else None

    def add(self, game: dict[str, Any]) -> None:
        """Keep a finished game: written and flushed at once, so that a tournament killed after it keeps it."""
        if self._file is None:  # not held: a check's, or a test's
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = open(self.path, "a", encoding="utf-8")
        if not self._started:
            self._started = True
            if self._fresh:
                self._file.write(json.dumps({"format": FORMAT, "version": VERSION, "tournament": self._tournament}) + "\n")
            elif not self._ends_with_newline():
                self._file.write("\n")  # after a line cut short, the next game starts a line of its own
        self._file.write(json.dumps(game, separators=(",", ":")) + "\n")
        self._file.flush()
        self.games[int(game["index"])] = game

    def _ends_with_newline(self) -> bool:
        with open(self.path, "rb") as f:
            f.seek(-1, os.SEEK_END)
            return f.read(1) == b"\n"

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def _lock(f: IO[Any], path: Path) -> None:
    """Take ``f``'s file for this process alone: two tournaments run at once on one file both wrote it over."""
    try:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        f.close()
        raise SavedGamesError(f"{path} is being written by another tournament running now: let it end (or stop it), or give another file") from None


def _usable(game: dict[str, Any] | None) -> bool:
    """Whether a saved game holds a result for each of the seats it names."""
    seats = game.get("seats") if game is not None else None
    return game is not None and isinstance(seats, list) and _whole(game, len(seats))


def _whole(game: dict[str, Any], seats: int) -> bool:
    """Whether a saved game holds a result for each of its ``seats``: a line edited since is played again, not a traceback."""
    ranks, scores, forfeited = game.get("ranks"), game.get("scores"), game.get("forfeited")
    return (
        isinstance(ranks, list) and isinstance(scores, list) and isinstance(forfeited, list)
        and len(ranks) == len(scores) == len(forfeited) == seats
        and all(type(r) is int and 1 <= r <= seats for r in ranks) and all(type(f) is bool for f in forfeited)
        and all(type(s) in (int, float) and math.isfinite(s) for s in scores)  # json reads NaN and Infinity
        and isinstance(game.get("match_id"), str) and isinstance(game.get("replay"), str | None)
    )  # fmt: skip
