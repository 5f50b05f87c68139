"""Playing a tournament: local matches run as asyncio tasks, at most ``concurrency`` at once.

Results are kept by schedule index, so standings, ratings, swiss pairings and
the SPRT verdict depend only on the schedule and the bots, never on how many
matches ran at once or which finished first. Each match starts fresh bot
processes (``run_local_match`` does), except for bots whose manifest sets
``matches_per_process`` above 1: their processes are kept in a ``BotPool`` and
play several matches in a row, never the same deal twice.
"""

from __future__ import annotations

import asyncio
import itertools
import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.games.registry import game_class
from referee.server.manifest import BotManifest, check_built, load_manifest
from referee.server.runner import BotPool, LocalMatch, MatchSetup, check_plays, launcher_for, run_local_match
from referee.server.session import TimeControl
from referee.server.words import verdict_json
from referee.tournament.schedule import (
    FORMATS,
    SEEDS,
    ScheduledGame,
    SwissState,
    deal_games,
    deals_for,
    derive_seed,
    fixed_schedule,
    rotations,
)
from referee.tournament.saved import SavedGames, SavedGamesError, describe, read_header, seeds_of
from referee.tournament.sprt import Sprt
from referee.tournament.standings import GameResult, Standings, compute_standings

#: Called after each counted match with (matches done, matches planned, the match).
Progress = Callable[[int, int, "PlayedGame"], None]


#: The most matches played at once (--concurrency, and the ladder's --workers): each runs a process per seat, and
#: thousands of processes would exhaust the machine's file descriptors before they played faster.
MAX_AT_ONCE = 256
#: The most matches one tournament plays: its schedule is made whole before the first match (300 MB at a million),
#: and `--games 100000000` filled the memory and never began. A million matches of a second each is eleven days.
MAX_GAMES = 1_000_000


class TournamentError(ValueError):
    """A tournament that cannot be played as asked; the message says why."""


@dataclass
class TournamentConfig:
    game: str
    bot_dirs: list[Path]
    fmt: str = "round-robin"
    games: int = 2  # per table (round-robin, gauntlet), rounds (swiss), or the most games (SPRT)
    players: int = 2
    seed: int = 0
    options: dict[str, str] = field(default_factory=dict)
    time_control: TimeControl = field(default_factory=TimeControl)
    log_dir: Path = Path("replays/logs")
    replay_dir: Path | None = None
    concurrency: int = 1
    save: Path | None = None  # each finished game kept here; a tournament run again with it goes on where it stopped
    sandbox: str = "process"  # or "docker": every bot in a container of the sandbox image
    pin_cpus: bool = False  # each process bot held to one CPU (referee/server/cpus.py)
    #: How match seeds follow from ``seed`` (schedule.SEED_BOUNDS): a tournament going on from an earlier Arena's
    #: ``save`` file keeps that file's (``adopt_saved_seeds``).
    seeds: int = SEEDS
    #: Each bot folder's digest for ``save``, read once per tournament (saved.py ``describe``).
    digests: dict[Path, str] = field(default_factory=dict, repr=False)


def kept_notes(kept: dict[str, Any], seats: int) -> tuple[tuple[str, ...], tuple[dict[str, Any] | None, ...]]:
    """A saved game's ``logs`` and ``why``, when whole; else none (a file of an older Arena, or edited since: the
    result, checked apart, still counts, and only the explanation of a forfeit is lost)."""
    logs, why = kept.get("logs"), kept.get("why")

    def verdict(v: object) -> bool:
        return v is None or (
            isinstance(v, dict) and isinstance(v.get("kind"), str) and type(v.get("decision")) is int and isinstance(v.get("detail"), str)
        )  # fmt: skip

    if not (isinstance(logs, list) and isinstance(why, list) and len(logs) == len(why) == seats):
        return (), ()
    if not all(isinstance(log, str) for log in logs) or not all(verdict(v) for v in why):
        return (), ()
    return tuple(logs), tuple(why)


def kept_verdicts(kept: dict[str, Any], seats: int) -> tuple[dict[str, int], ...]:
    """A saved game's ``verdicts`` (each seat's, counted by kind), when whole; else none (a file of an older Arena, or
    edited since: its bots' verdicts go uncounted)."""
    verdicts = kept.get("verdicts")
    if not isinstance(verdicts, list) or len(verdicts) != seats:
        return ()
    if not all(isinstance(v, dict) and all(isinstance(k, str) and type(n) is int and n > 0 for k, n in v.items()) for v in verdicts):
        return ()
    return tuple(dict(v) for v in verdicts)


@dataclass
class PlayedGame:
    scheduled: ScheduledGame
    ranks: tuple[int, ...]
    scores: tuple[float, ...]
    forfeited: tuple[bool, ...]
    match_id: str
    replay: Path | None = None
    #: Each seat's log, and for a seat that forfeited its first verdict (``kind``, ``decision``, ``detail``; else
    #: None): what says why a bot forfeited, which a tournament's standings count but do not explain. Empty for a
    #: game read from a file saved by an Arena that kept neither.
    logs: tuple[str, ...] = ()
    why: tuple[dict[str, Any] | None, ...] = ()
    #: Each seat's verdicts counted by kind (``TIMEOUT``, ``ILLEGAL_ACTION``…, as ``--json`` names them): the strikes
    #: of a bot that played on, which its forfeits do not count. Empty for a game an earlier Arena saved.
    verdicts: tuple[dict[str, int], ...] = ()
    #: Read from the ``--save`` file, not played now: a progress bar leaves it out of its rate.
    from_save: bool = False

    @property
    def result(self) -> GameResult:
        return GameResult(self.scheduled.seats, self.ranks, self.forfeited)


@dataclass
class TournamentResult:
    config: TournamentConfig
    manifests: list[BotManifest]
    labels: list[str]  # unique display names, by bot index
    games: list[PlayedGame]  # schedule order
    standings: Standings
    byes: list[tuple[int, list[int]]] = field(default_factory=list)  # swiss: (round, bots sitting it out)
    sprt: Sprt | None = None


def check(config: TournamentConfig, sprt: bool = False) -> list[BotManifest]:
    """Validate the whole tournament before any match starts.

    Raises OptionError (game, options), ManifestError (bot directories) or TournamentError.
    """
    cls = game_class(config.game)
    cls.spec.resolve_options(config.options)
    if config.players not in cls.spec.player_counts:
        raise TournamentError(f"{config.game} is played by {cls.spec.players_text} players, not {config.players} (--players)")
    if not sprt and config.fmt not in FORMATS:
        raise TournamentError(f"unknown format {config.fmt!r} (formats: {', '.join(FORMATS)})")
    n = len(config.bot_dirs)
    if sprt and (n != 2 or config.players != 2):
        raise TournamentError(f"--sprt compares exactly two bots in two-player games; got {n} bots, {config.players} players")
    if n < max(2, config.players):
        raise TournamentError(f"{config.players}-player tables need at least {max(2, config.players)} bots, got {n} (a bot may be entered more than once: give its folder again)")
    if config.games < 1:
        raise TournamentError("--games must be at least 1")
    if (planned := planned_games(config, sprt)) > MAX_GAMES:
        raise TournamentError(f"{planned:,} games: a tournament plays at most {MAX_GAMES:,} (play it as several, or with fewer --games or bots)")
    if not 1 <= config.concurrency <= MAX_AT_ONCE:
        raise TournamentError(f"--concurrency must be at least 1 and at most {MAX_AT_ONCE} (every match runs its bots' processes at once)")
    manifests = [load_manifest(d) for d in config.bot_dirs]
    for m in manifests:
        check_plays(m, config.game)
        check_built(m)
    launcher_for(config.sandbox)  # an unknown sandbox, or Docker out of reach or without its image (SandboxError)
    return manifests


def unique_labels(manifests: Sequence[BotManifest]) -> list[str]:
    """Bot names, with ``#2``, ``#3``… on repeats, so each entrant has its own row and column."""
    seen: dict[str, int] = {}
    out = []
    for m in manifests:
        seen[m.name] = seen.get(m.name, 0) + 1
        out.append(m.name if seen[m.name] == 1 else f"{m.name}#{seen[m.name]}")
    return out


def planned_games(config: TournamentConfig, sprt: bool = False) -> int:
    """How many matches the tournament plays (for SPRT: at most)."""
    n, p = len(config.bot_dirs), config.players
    if sprt:
        return 2 * deals_for(config.games, 2)
    if config.fmt == "swiss":
        return config.games * (n - n % p)
    # Counted, not made: a schedule past MAX_GAMES is refused before it is made (fixed_schedule's tables, deals and seats).
    tables = math.comb(n, p) if config.fmt == "round-robin" else math.comb(n - 1, p - 1)
    return tables * deals_for(config.games, p) * p


def adopt_saved_seeds(config: TournamentConfig) -> None:
    """Derive match seeds as the tournament ``config.save`` holds did (SavedGamesError if it names an unknown way): a
    tournament saved by an earlier Arena, on seeds below 2**31, goes on with the very matches it would have played."""
    if config.save is not None and (held := read_header(config.save)) is not None:
        config.seeds = seeds_of(config.save, held)


def open_saved(config: TournamentConfig, manifests: list[BotManifest], sprt: Sprt | None, hold: bool = False) -> SavedGames | None:
    """The file of saved games ``config.save`` names (SavedGamesError if it is another tournament's, or another
    tournament running now holds it), or None; ``sprt``: the test that reads its pairs; ``hold``: kept to this one
    until closed."""
    if config.save is None:
        return None
    c = config.time_control
    settings = {
        "game": config.game, "format": "sprt" if sprt is not None else config.fmt, "games": config.games, "players": config.players,
        "seed": config.seed, "options": dict(sorted(config.options.items())),
        "move_time_ms": c.move_time_ms, "time_bank_ms": c.time_bank_ms, "strike_limit": c.strike_limit,
        "rules_version": game_class(config.game).spec.rules_version,  # an arena update that changed the rules plays other games
        "sandbox": config.sandbox,  # a container's limits fail bots that play as processes, as another clock does
        "pin_cpus": config.pin_cpus,  # a bot searching on threads plays on one CPU pinned, on every core not
        # other seeds are other deals; an earlier Arena's file names none (and plays version 1: adopt_saved_seeds)
        **({"seeds": config.seeds} if config.seeds != 1 else {}),
    }  # fmt: skip
    if sprt is not None:  # another test: its pairs read against other bounds, a verdict reached could be undone
        settings |= {"elo0": sprt.elo0, "elo1": sprt.elo1, "alpha": sprt.alpha, "beta": sprt.beta, "sprt_model": sprt.model}
    written = [config.log_dir, config.save, *([config.replay_dir] if config.replay_dir is not None else [])]
    saved = SavedGames(config.save, describe(settings, manifests, written, config.digests), hold)
    # Its header names the --games it began with: a run made longer since left games past a shorter --games than
    # that, which read the file's first games alone as the tournament (an SPRT decided at game 40 said inconclusive at 30).
    if (last := saved.furthest) >= (planned := planned_games(config, sprt is not None)):
        saved.close()
        raise SavedGamesError(
            f"{config.save} holds another tournament's games (game {last + 1} there, of a run made longer since it began;"
            f" {planned} here (it may go on with more games, not fewer)): give another file, or delete it to start again"
        )
    return saved


class _Player:
    """Plays scheduled games, at most ``concurrency`` at once; those ``saved`` holds are taken from it instead."""

    def __init__(
        self, config: TournamentConfig, labels: list[str], total: int, progress: Progress | None, saved: SavedGames | None = None
    ) -> None:
        self.config = config
        self.labels = labels
        self.total = total
        self.progress = progress
        self.saved = saved
        self.done = 0
        self.limit = asyncio.Semaphore(config.concurrency)
        self.pool = BotPool(config.log_dir, pin_cpus=config.pin_cpus)
        self.launcher = launcher_for(config.sandbox, config.pin_cpus)

    async def play(self, game: ScheduledGame) -> PlayedGame:
        kept = self.saved.get(game) if self.saved is not None else None
        if kept is not None:
            replay = Path(kept["replay"]) if kept.get("replay") else None
            return PlayedGame(
                game, tuple(kept["ranks"]), tuple(kept["scores"]), tuple(kept["forfeited"]), kept["match_id"],
                replay if replay is not None and replay.is_file() else None, *kept_notes(kept, len(game.seats)),
                kept_verdicts(kept, len(game.seats)), from_save=True,
            )  # fmt: skip
        played = await self._play(game)
        if self.saved is not None:
            self.saved.add(
                {
                    "index": game.index, "seed": game.seed, "seats": list(game.seats), "ranks": list(played.ranks),
                    "scores": list(played.scores), "forfeited": list(played.forfeited), "match_id": played.match_id,
                    "replay": str(played.replay.resolve()) if played.replay is not None else None,  # found from any folder
                    "logs": list(played.logs), "why": list(played.why), "verdicts": list(played.verdicts),
                }
            )  # fmt: skip
        return played

    async def close(self) -> None:
        await self.pool.close()
        if self.saved is not None:
            self.saved.close()

    async def _play(self, game: ScheduledGame) -> PlayedGame:
        c = self.config
        async with self.limit:
            setup = MatchSetup(
                c.game, [c.bot_dirs[b] for b in game.seats], game.seed, dict(c.options), c.time_control, c.log_dir, c.sandbox
            )
            match = await run_local_match(setup, self.launcher, pool=self.pool)
        return self._played(game, match)

    def _played(self, game: ScheduledGame, match: LocalMatch) -> PlayedGame:
        seats = sorted(match.record.result.seats, key=lambda s: s.seat)
        played = PlayedGame(
            game,
            tuple(int(s.rank) for s in seats),
            tuple(float(s.score) for s in seats),
            tuple(bool(s.forfeited) for s in seats),
            match.record.match_id,
            logs=tuple(str(log) for log in match.logs),
            why=tuple(verdict_json(s.verdicts[0]) if s.forfeited and s.verdicts else None for s in seats),
            verdicts=tuple(dict(Counter(verdict_json(v)["kind"] for v in s.verdicts)) for s in seats),
        )
        if self.config.replay_dir is not None:
            from referee.server.replay import write_replay

            names = "-".join(self.labels[b] for b in game.seats)
            played.replay = self.config.replay_dir / f"{game.index:04d}-{self.config.game}-{game.seed}-{names}.json"
            write_replay(match.record, played.replay)
        return played

    def count(self, played: PlayedGame) -> None:
        self.done += 1
        if self.progress is not None:
            self.progress(self.done, self.total, played)

    async def play_all(self, games: Sequence[ScheduledGame]) -> list[PlayedGame]:
        async def one(g: ScheduledGame) -> PlayedGame:
            played = await self.play(g)
            self.count(played)
            return played

        try:
            async with asyncio.TaskGroup() as tg:
                tasks = [tg.create_task(one(g)) for g in games]
        except BaseExceptionGroup as group:
            raise group.exceptions[0] from None
        return [t.result() for t in tasks]  # schedule order, whatever order they finished in


async def run_tournament(config: TournamentConfig, progress: Progress | None = None) -> TournamentResult:
    """Play a round-robin, gauntlet or swiss tournament and compute the standings."""
    manifests = check(config)
    labels = unique_labels(manifests)
    adopt_saved_seeds(config)
    player = _Player(config, labels, planned_games(config), progress, open_saved(config, manifests, None, hold=True))
    try:
        return await _run_tournament(config, manifests, labels, player)
    finally:
        await player.close()


async def _run_tournament(config: TournamentConfig, manifests: list[BotManifest], labels: list[str], player: _Player) -> TournamentResult:
    n = len(manifests)
    byes: list[tuple[int, list[int]]] = []
    if config.fmt == "swiss":
        state = SwissState(n, config.players)
        played: list[PlayedGame] = []
        for r in range(config.games):
            tables, bye = state.pair()
            state.record_round(tables, bye)
            byes.append((r, bye))
            schedule = deal_games(tables, r, config.seed, len(played), r * len(tables), config.seeds)
            round_games = await player.play_all(schedule)
            for g in round_games:
                state.record_game(g.scheduled.seats, g.ranks)
            played.extend(round_games)
    else:
        played = await player.play_all(fixed_schedule(config.fmt, n, config.players, config.games, config.seed, config.seeds))
    standings = compute_standings(n, (g.result for g in played))
    return TournamentResult(config, manifests, labels, played, standings, byes)


def sprt_schedule(seed: int, max_games: int, seeds: int = SEEDS) -> list[ScheduledGame]:
    """Duplicate pairs of bot 0 against bot 1: pair j is games 2j (bot 0 in seat 0) and 2j+1 (seats swapped)."""
    out: list[ScheduledGame] = []
    for j in range(deals_for(max_games, 2)):
        deal_seed = derive_seed(seed, "round", j, seeds=seeds)
        for seats in rotations((0, 1)):
            out.append(ScheduledGame(len(out), j, j, (0, 1), deal_seed, seats))
    return out


def score_of(game: PlayedGame, bot: int) -> float:
    """1 for a win, ½ for a draw, 0 for a loss of ``bot`` in a two-player game."""
    seat = game.scheduled.seats.index(bot)
    mine, theirs = game.ranks[seat], game.ranks[1 - seat]
    return 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0


async def run_sprt(
    config: TournamentConfig, test: Sprt, progress: Progress | None = None, ahead: Callable[[int], None] | None = None
) -> TournamentResult:
    """Play duplicate pairs of bot 0 against bot 1 until ``test`` accepts H0 or H1, or ``config.games`` games.

    Up to ``concurrency`` matches run ahead of the test; the test reads pairs
    strictly in schedule order and stops at the first decision, so later
    matches that already ran (or failed) are left out of the result (a ``--save`` file keeps those that ran) and the
    verdict does not depend on the concurrency. ``ahead`` is told how many finished matches the test has yet to read, each time that changes:
    ``progress`` counts only those it has read, and a stopped SPRT's ``--save`` file holds the others too.
    """
    manifests = check(config, sprt=True)
    labels = unique_labels(manifests)
    adopt_saved_seeds(config)
    schedule = sprt_schedule(config.seed, config.games, config.seeds)
    player = _Player(config, labels, len(schedule), progress, open_saved(config, manifests, test, hold=True))
    results: dict[int, PlayedGame] = {}
    errors: dict[int, BaseException] = {}  # by index: a match played ahead of the decision that failed is no part of it
    changed = asyncio.Event()
    indices = itertools.count()
    counted: list[PlayedGame] = []

    def tell_ahead() -> None:
        if ahead is not None:
            ahead(len(results) - len(counted))  # every match the test has read is among the results

    async def worker() -> None:
        while (i := next(indices)) < len(schedule):
            try:
                results[i] = await player.play(schedule[i])
            except Exception as exc:  # noqa: BLE001 - handed to the main loop
                errors[i] = exc
                changed.set()
                return  # no more: a match that fails often fails the next too (every earlier match has its worker)
            tell_ahead()
            changed.set()

    workers = [asyncio.create_task(worker()) for _ in range(config.concurrency)]
    try:
        while len(counted) < len(schedule) and test.decision() is None:
            i = len(counted)
            while i not in results or i + 1 not in results:
                for j in (i, i + 1):
                    if j in errors:
                        raise errors[j]
                changed.clear()
                await changed.wait()
            pair = [results[i], results[i + 1]]
            for g in pair:
                counted.append(g)
                player.count(g)
            tell_ahead()
            test.add_pair(score_of(pair[0], 0), score_of(pair[1], 0))
    finally:
        for w in workers:
            w.cancel()
        await asyncio.gather(*workers, return_exceptions=True)
        await player.close()
    for i, extra in results.items():  # played ahead of the decision: not part of the result
        if i >= len(counted) and extra.replay is not None:
            extra.replay.unlink(missing_ok=True)
    standings = compute_standings(2, (g.result for g in counted))
    return TournamentResult(config, manifests, labels, counted, standings, sprt=test)
