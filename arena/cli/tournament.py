"""``arena tournament``: a local event between bot directories, with standings, a crosstable or an SPRT verdict."""

from __future__ import annotations

import json
import math
import os
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.cells import cell_len, set_cell_size
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from arena.cli import running
from arena.cli.clock import SEED_MAX, SEED_MIN, MoveTimeMs, StrikeLimit, TimeBankMs, seed_option
from arena.cli.folders import removed_on_failure
from arena.cli.pinning import PinCpus, check_pin_cpus
from arena.cli.standings import print_crosstable, print_standings
from arena.cli.verdicts import last_words, verdict_line
from referee.core.game import OptionError, shown
from referee.server.manifest import ManifestError
from referee.server.seeds import draw_seed
from referee.server.words import verdict_text
from referee.tournament.schedule import FORMATS, games_played
from referee.tournament.elo import EloEstimate, estimate, first_over_second
from referee.tournament.sprt import MODELS, PENTANOMIAL, Sprt, score_to_elo

if TYPE_CHECKING:
    from referee.tournament.run import TournamentResult
    from referee.tournament.standings import SoFar

console = Console()
err = Console(stderr=True)


def tournament(
    game: Annotated[str, typer.Argument(help="Game id (see `arena games`).")],
    bots: Annotated[list[Path], typer.Argument(help="Bot directories (a directory may be given twice).")],
    fmt: Annotated[
        str, typer.Option("--format", "-f", help="round-robin, gauntlet (the first bot against each other) or swiss.")
    ] = "round-robin",
    games: Annotated[
        int | None,
        typer.Option(
            "--games",
            "-n",
            help="Games per table (round-robin, gauntlet; default 2), rounds (swiss; default 2), "
            "or the most games (--sprt; default 1000).",
        ),
    ] = None,
    concurrency: Annotated[
        int | None, typer.Option("--concurrency", "-j", help="Matches played at once (default: one per core Arena may use).")
    ] = None,
    seed: Annotated[int | None, seed_option("Tournament seed: the same seed gives the same schedule and deals.", "the --save file's, else one drawn at random")] = None,
    players: Annotated[int | None, typer.Option(help="Seats per table (default 2, or the game's smallest count).")] = None,
    option: Annotated[list[str], typer.Option("--option", "-o", help="Game option NAME=VALUE (repeatable).")] = [],  # noqa: B006
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object (no progress bar).")] = False,
    sprt: Annotated[bool, typer.Option("--sprt", help="Test whether the first bot is stronger than the second.")] = False,
    elo0: Annotated[float | None, typer.Option(help="SPRT: Elo difference under H0 (default 0).")] = None,
    elo1: Annotated[float | None, typer.Option(help="SPRT: Elo difference under H1 (default 50).")] = None,
    alpha: Annotated[float | None, typer.Option(help="SPRT: false-positive rate (default 0.05).")] = None,
    beta: Annotated[float | None, typer.Option(help="SPRT: false-negative rate (default 0.05).")] = None,
    sprt_model: Annotated[str | None, typer.Option(help="SPRT: pentanomial (duplicate pairs; the default) or trinomial (games).")] = None,
    move_time_ms: MoveTimeMs = 1000,
    time_bank_ms: TimeBankMs = 10000,
    strike_limit: StrikeLimit = 3,
    log_dir: Annotated[Path, typer.Option(help="Where bot logs go.")] = Path("replays/logs"),
    replay_dir: Annotated[Path | None, typer.Option(help="Write every match's replay here (default: none).")] = None,
    sandbox: Annotated[
        str, typer.Option(help="Run bots as local processes, or in Docker containers (see `arena sandbox build`): for bots you do not trust.")
    ] = "process",
    pin_cpus: PinCpus = False,
    report_every: Annotated[
        int, typer.Option(help="Print the standings so far every this many games (0: only at the end), as cutechess's -ratinginterval.", min=0)
    ] = 0,
    save: Annotated[
        Path | None,
        typer.Option(
            help="Keep every finished game in this file: the same command run again (after Ctrl-C, a crash) "
            "goes on where it stopped, and plays only the games the file lacks.",
        ),
    ] = None,
) -> None:
    """Play a local tournament and print TrueSkill standings and a crosstable (or, with --sprt, a verdict).

    Games come in duplicate deals: one seed played once per rotation of the \
seats (for two players: swapped), so each bot plays each seat equally and \
card luck cancels. The result depends on the seed, never on --concurrency.
    """  # one paragraph (a backslash at a line's end joins the next): `--help` kept each break, cut raggedly at 60 columns
    from arena.cli.failing import fail
    from arena.cli.main import check_dir, check_file, parse_options
    from arena.cli.stale import warn_stale
    from referee.games.registry import GAMES, game_class
    from referee.server.session import TimeControl
    from referee.tournament.run import (
        MAX_AT_ONCE, TournamentConfig, TournamentError, adopt_saved_seeds, check, open_saved, planned_games, run_sprt,
        run_tournament, unique_labels,
    )  # fmt: skip
    from referee.tournament.saved import SavedGamesError, read_header
    from referee.tournament.standings import SoFar

    options = parse_options(option)
    check_pin_cpus(pin_cpus, sandbox)
    if sprt_model is not None and sprt_model not in MODELS:
        fail(f"unknown --sprt-model {sprt_model!r} (models: {', '.join(MODELS)})")
    given = {"--elo0": elo0, "--elo1": elo1, "--alpha": alpha, "--beta": beta, "--sprt-model": sprt_model}
    for flag, value in given.items():
        if value is not None and not sprt:  # ignored, `--elo1 10 -n 2000` with --sprt forgotten played a long round-robin
            fail(f"{flag} applies only with --sprt")
    if fmt not in FORMATS:
        fail(f"unknown format {fmt!r} (formats: {', '.join(FORMATS)})")
    if sprt and fmt != "round-robin":  # an SPRT plays its own pairs of the first two bots: a format asked for was ignored
        fail(f"--format {fmt} does not apply with --sprt (it plays the first bot against the second in duplicate pairs)")
    try:
        counts = game_class(game).spec.player_counts
    except OptionError as exc:
        fail(str(exc))
    if players is None:
        players = 2 if 2 in counts else min(counts)
    if seed is None and save is not None:
        try:  # the same command again: its seed was drawn at random the first time, and the file has it
            held = read_header(save)
        except (SavedGamesError, OSError) as exc:
            fail(str(exc))
        if held is not None and "seed" in held:
            seed = held["seed"]
            if type(seed) is not int or not SEED_MIN <= seed <= SEED_MAX:  # true, 1e30: a file edited since, not a seed to play
                fail(f"{save} holds the seed {shown(seed)}, which is no seed (a whole number from {SEED_MIN} to {SEED_MAX}): give another file")
    seed = seed if seed is not None else draw_seed()  # as every match seed drawn: its matches' seeds follow from it
    if games is None:
        games = 1000 if sprt else 2
    if concurrency is None:  # one match at a time left a core of two idle, the tournament twice as long
        concurrency = min(usable_cores(), MAX_AT_ONCE)
    config = TournamentConfig(
        game, list(bots), fmt, games, players, seed, options,
        TimeControl(move_time_ms, time_bank_ms, strike_limit), log_dir, replay_dir, concurrency, save, sandbox,
        pin_cpus=pin_cpus,
    )  # fmt: skip
    test: Sprt | None = None
    saved_before, assumed = 0, []
    try:
        manifests = check(config, sprt=sprt)
        warn_stale(manifests)
        labels = unique_labels(manifests)
        if sprt:
            d = Sprt()  # its defaults, for those not given
            test = Sprt(
                d.elo0 if elo0 is None else elo0, d.elo1 if elo1 is None else elo1, d.alpha if alpha is None else alpha,
                d.beta if beta is None else beta, sprt_model or d.model,
            )  # fmt: skip
        if save is not None:
            if save.is_dir():
                raise TournamentError(f"--save {save} is a folder; it names a file")
            adopt_saved_seeds(config)  # an earlier Arena's file: its match seeds, below 2**31
            saved = open_saved(config, manifests, test)  # refused now, before any match, if it is another tournament's
            assert saved is not None
            saved_before, assumed = saved.usable, saved.assumed
            saved.close()
    except (OptionError, ManifestError, TournamentError, ValueError, OSError) as exc:
        fail(str(exc))
    if saved_before:
        said = "1 game saved there is" if saved_before == 1 else f"{saved_before} games saved there are"
        err.print(f"going on from {save}: {said} not played again", soft_wrap=True, markup=False)
    if assumed:
        named = [f"the {key}" for key in assumed]
        listed = " and ".join([", ".join(named[:-1]), named[-1]] if len(named) > 1 else named)
        err.print(f"{save} was written by an earlier Arena, which did not record {listed}: its games are"
                  " taken to have been played under this run's", soft_wrap=True, markup=False)
    with removed_on_failure(log_dir, *([replay_dir] if replay_dir is not None else []), *([save.parent] if save is not None else [])):
        check_dir(log_dir, "--log-dir")
        if replay_dir is not None:
            check_dir(replay_dir, "--replay-dir")
        if save is not None:
            check_file(save, "--save")  # found unwritable after the first game, it stopped the tournament with a traceback

    rounded = games_played("sprt" if sprt else fmt, games, players)
    if rounded != games:
        err.print(f"note: --games {games} rounded up to {rounded}: whole duplicate deals of {2 if sprt else players} games")
    total = planned_games(config, sprt=sprt)
    label = f"{'sprt' if sprt else fmt} · {GAMES[game].spec.name}"
    progress, bar = progress_bar(err, disable=as_json or not err.is_terminal)  # into a file or a pipe: it left a blank line
    with progress:
        task = progress.add_task(fitted(bar, label, "", total, err.width), total=total)

        so_far = SoFar(len(labels))
        reached = [0, total, 0]  # games done, planned, and (SPRT) played ahead of the test: for the line a stopped tournament ends with
        restored_report = [False]  # a report fell due among the saved games: said once, at the first game played afresh

        def played_ahead(games: int) -> None:
            reached[2] = games

        def advance(done: int, planned: int, played: Any) -> None:
            reached[:2] = [done, planned]
            note = f"  LLR {test.llr:+.2f}" if test is not None and test.pairs else ""
            description = fitted(bar, label, note, planned, err.width)
            if played.from_save:  # counted at once: the time left is estimated from the games played from here on
                progress.reset(task, completed=done, total=planned, description=description)
            else:
                progress.update(task, completed=done, total=planned, description=description)
            so_far.add(played.scheduled.index, played.result)
            if not report_every or as_json or done >= planned:
                return
            due = done % report_every == 0
            if played.from_save:  # a resumed tournament's saved games come at once: their reports, one line each, said nothing new
                restored_report[0] = restored_report[0] or due
                return
            if due or restored_report[0]:
                restored_report[0] = False
                width = err.width if err.is_terminal else None  # into a file: one line for each report, for a script
                progress.console.print(interim_line(so_far, labels, done, planned, width), soft_wrap=True, highlight=False, markup=False)

        try:
            if test is not None:
                result = running.run(run_sprt(config, test, advance, played_ahead))
            else:
                result = running.run(run_tournament(config, advance))
        except SavedGamesError as exc:  # another tournament took the file since it was checked
            progress.stop()
            fail(str(exc))
        except (KeyboardInterrupt, running.Terminated, OSError) as exc:
            progress.stop()  # how far it got: the progress bar that said so is gone, and into a file there was none
            stopped = stopped_line(*reached)
            if save is not None and not (saved_before or reached[0] or reached[2]):  # "kept in t.jsonl" sent one to an empty file
                err.print(f"{stopped}: none had finished, so {save} keeps none yet; the same command starts the tournament again", soft_wrap=True, markup=False)
            elif save is not None:
                err.print(f"{stopped}: the games finished so far are kept in {save}; the same command goes on from there", soft_wrap=True, markup=False)
            elif not isinstance(exc, OSError):
                err.print(
                    f"{stopped}: the games played so far are not kept; --save FILE keeps each finished game, and the same command"
                    " then goes on where it stopped", soft_wrap=True, markup=False,
                )  # fmt: skip
            if isinstance(exc, OSError):  # a full disk, a folder taken away: a replay or a saved game not written
                fail(f"the tournament stopped: {exc.filename}: {exc.strerror}" if exc.filename and exc.strerror else f"the tournament stopped: {exc}")
            raise

    data = result_json(result)
    if as_json:
        print(json.dumps(data))
        return
    print_result(data, log_dir)


def stopped_line(done: int, planned: int, ahead: int) -> str:
    """How far a stopped tournament got. An SPRT reads its games in order: those played ahead of it under
    --concurrency, which its --save file keeps as well, were not counted, and `stopped after 0 of 1000 games` was
    said of a test with a dozen games kept."""
    line = f"stopped after {done} of {planned} games"
    if ahead:
        line += f" the test has read, and {ahead} more played ahead of it"
    return line


def progress_bar(console: Console, disable: bool) -> tuple[Progress, BarColumn]:
    """The tournament's progress bar on ``console`` (its line cleared when it ends), and its bar, which ``fitted`` sizes."""
    bar = BarColumn()
    progress = Progress(
        TextColumn("{task.description}"), bar, MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn(),
        console=console, disable=disable, transient=True,
    )  # fmt: skip
    return progress, bar


def fitted(bar: BarColumn, label: str, note: str, total: int, width: int) -> str:
    """The progress bar's description, ``label`` then ``note``, with ``bar`` sized for a line of ``width`` cells: the
    bar gives way first (from 40 cells to 10), then the end of the label; the note (an SPRT's LLR), the counts and the
    times never do. Rich cut them all alike: at 80 columns an SPRT's "12345/100000" read "12345/1000…", at 60 "12…"."""
    counts = 2 * len(str(total)) + 1  # "12345/100000"
    room = width - counts - 2 * len("0:00:00") - 4  # the times, elapsed and left, and a space between each column
    spare = room - cell_len(label + note)
    if spare < 10:
        keep = room - 10 - cell_len(note)
        label = set_cell_size(label, keep - 1) + "…" if keep > 1 else ""
        spare = 10
    bar.bar_width = min(spare, 40)
    return label + note


def usable_cores() -> int:
    """The cores this process may run on (a container's or ``taskset``'s share, not the machine's)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def interim_line(played: SoFar, labels: list[str], done: int, planned: int, width: int | None = None) -> str:
    """The standings after the games played so far (``--report-every``), in schedule order, on one line; or, where
    that line is wider than ``width`` (a terminal's), a bot a line under "after N of M games:", as cutechess's table
    is: eight bots ran over six lines of the terminal, their names cut across lines."""
    rows = [r for r in played.standings().rows if r.games]
    shown = [
        f"{place}. {labels[r.bot]} {r.wins}-{r.draws}-{r.losses} ({r.points / r.games:.0%}, μ−3σ {r.conservative:.1f})"
        for place, r in enumerate(rows, start=1)
    ]  # fmt: skip
    waiting = len(labels) - len(rows)  # places among those that have played: a bot yet to play has no place to skip
    rest = f"({waiting} yet to play)" if waiting else ""
    line = f"after {done} of {planned} games: " + " · ".join(shown) + (f" {rest}" if rest else "")
    if width is None or cell_len(line) <= width:
        return line
    return "\n  ".join([f"after {done} of {planned} games:", *shown, *([rest] if rest else [])])


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def result_json(result: TournamentResult) -> dict[str, Any]:
    """The tournament as one JSON-ready object."""
    labels = result.labels
    cfg = result.config
    st = result.standings
    n = len(labels)
    drawn: list[Counter[str]] = [Counter() for _ in labels]  # each bot's verdicts, by kind, over every game
    for g in result.games:
        for bot, kinds in zip(g.scheduled.seats, g.verdicts):
            drawn[bot].update(kinds)
    data: dict[str, Any] = {
        "game": cfg.game,
        "format": "sprt" if result.sprt is not None else cfg.fmt,
        "players": cfg.players,
        "seed": cfg.seed,
        "matches": len(result.games),
        "bots": [{"name": labels[i], "path": str(m.path)} for i, m in enumerate(result.manifests)],
        "standings": [
            {
                "place": place,
                "bot": labels[r.bot],
                "mu": r.mu,
                "sigma": r.sigma,
                "conservative": r.conservative,
                "wins": r.wins,
                "draws": r.draws,
                "losses": r.losses,
                "points": r.points,
                "avg_rank": r.avg_rank,
                "games": r.games,
                "forfeits": r.forfeits,
                "verdicts": dict(sorted(drawn[r.bot].items())),
            }
            for place, r in enumerate(st.rows, 1)
        ],
        "crosstable": {
            labels[a]: {
                labels[b]: {"wins": h.wins, "draws": h.draws, "losses": h.losses, "points": h.points, "games": h.games}
                for b in range(n)
                if b != a and (h := st.against(a, b)).games
            }
            for a in range(n)
        },
        "results": [
            {
                "index": g.scheduled.index,
                "round": g.scheduled.round,
                "deal": g.scheduled.deal,
                "seed": g.scheduled.seed,
                "seats": [labels[b] for b in g.scheduled.seats],
                "ranks": list(g.ranks),
                "scores": list(g.scores),
                "forfeited": list(g.forfeited),
                "match_id": g.match_id,
                "replay": str(g.replay) if g.replay else None,
                "logs": list(g.logs),
                "why": [verdict_line(w) if w else None for w in g.why],
                "verdicts": list(g.verdicts) if g.verdicts else None,
            }
            for g in result.games
        ],
    }
    if cfg.fmt == "swiss" and result.sprt is None:
        data["byes"] = [{"round": r, "bots": [labels[b] for b in bye]} for r, bye in result.byes if bye]
    test = result.sprt
    if test is None and n == 2 and cfg.players == 2:  # one bot against another: by how much, as the SPRT tells it
        counts, values = first_over_second((g.scheduled.deal, g.scheduled.seats, g.ranks) for g in result.games)
        found = estimate(counts, values)
        if found is not None:
            data["head_to_head"] = {"bot": labels[0], "opponent": labels[1], "counted_by": "pair" if values == PENTANOMIAL else "game", **_elo_json(found)}
    if test is not None:
        lower, upper = test.bounds
        decision = test.decision()
        a, b = labels[0], labels[1]
        losses, draws, wins = test.trinomial
        data["sprt"] = {
            "verdict": decision,
            "summary": (
                f"H1 accepted: {a} is stronger than {b}"
                if decision == "H1"
                else f"H0 accepted: {a} is not stronger than {b} by elo1"
                if decision == "H0"
                else "inconclusive: the game limit came first"
            ),
            "llr": test.llr,
            "lower": lower,
            "upper": upper,
            "elo0": test.elo0,
            "elo1": test.elo1,
            "alpha": test.alpha,
            "beta": test.beta,
            "model": test.model,
            "games": test.games,
            "pairs": test.pairs,
            "wins": wins,
            "draws": draws,
            "losses": losses,
            "pentanomial": list(test.pentanomial),
            "score": test.score,
            "elo": _finite(score_to_elo(test.score)),
        }
        found = estimate(*test.counted)
        if found is not None:
            data["sprt"] |= {"elo_margin": found.margin, "los": found.los}
    return data


def _elo_json(found: EloEstimate) -> dict[str, Any]:
    return {"samples": found.samples, "score": found.score, "elo": found.elo, "elo_margin": found.margin, "los": found.los}


def elo_text(elo: float | None, margin: float | None, los: float | None, score: float | None = None) -> str:
    """"Elo +70 ± 112 (95%), LOS 97.3%": cutechess and fastchess users read a match's result so. Without a finite Elo
    (``elo`` None), ``score`` says why: every result a win, or every one a loss."""
    if elo is None:
        why = {1.0: "every result a win", 0.0: "every result a loss"}.get(score) if score is not None else None
        said = "Elo n/a" if why is None else f"Elo n/a ({why}: no finite estimate)"
    else:
        # No margin and no LOS: results all alike (one pair, or twenty all drawn), a spread of 0 to measure nothing by;
        # "± too wide to tell" read as a huge margin. A margin alone is missing where the interval reaches 0% or 100%.
        unknown = " (± unknown: no two results differ)" if los is None else " (± too wide to tell)"
        said = f"Elo {round(elo) + 0:+d}" + (f" ± {margin:.0f} (95%)" if margin is not None else unknown)
    return said if los is None else f"{said}, LOS {los:.1%}"


def first_forfeits(data: dict[str, Any]) -> list[str]:
    """For each bot that forfeited, its first forfeit: why (the verdict), its last words when it crashed, and which of
    the log folder's many logs is its own, as `arena match` says it. Games read from a file an older Arena saved have
    neither, and are passed over."""
    lines: list[str] = []
    told: set[str] = set()
    for game, r in enumerate(data.get("results", ()), 1):
        for seat, (bot, lost) in enumerate(zip(r["seats"], r["forfeited"])):
            why, logs = r.get("why") or (), r.get("logs") or ()
            if not lost or bot in told or seat >= len(why) or seat >= len(logs) or not why[seat]:
                continue
            told.add(bot)
            lines.append(f"  {bot}, first at game {game} (match {r['match_id']}): {why[seat]}")
            words = last_words(Path(logs[seat])) if why[seat].startswith(verdict_text("CRASH")) else None
            if words:
                lines.append(f"    its last words: {words}")
            lines.append(f"    log: {logs[seat]}")
    return lines


def drawn_verdicts(data: dict[str, Any]) -> list[str]:
    """For each bot that drew verdicts, a line of their kinds counted and in how many games: ``  my-bot: timeout ×3,
    illegal action ×8 in 2 of 40 games``. Its forfeits are counted apart; a bot that timed out and played on was told
    nowhere. Games read from a file an older Arena saved counted none, and are passed over."""
    games: Counter[str] = Counter()
    for r in data.get("results", ()):
        for bot, counts in zip(r["seats"], r.get("verdicts") or ()):
            games[bot] += any(kind != "FORFEIT" for kind in counts)
    lines = []
    for row in data["standings"]:
        kinds = {kind: n for kind, n in row.get("verdicts", {}).items() if kind != "FORFEIT"}
        if kinds:
            said = ", ".join(f"{verdict_text(kind)} ×{n}" for kind, n in sorted(kinds.items(), key=lambda kn: (-kn[1], kn[0])))
            lines.append(f"  {row['bot']}: {said} in {games[row['bot']]} of {row['games']} games")
    return lines


def print_result(data: dict[str, Any], log_dir: Path) -> None:
    print_standings(data, console)
    print_crosstable(data, console)
    forfeits = [f"{r['bot']} ({r['forfeits']})" for r in data["standings"] if r["forfeits"]]
    if forfeits:
        console.print(f"[yellow]forfeited games:[/] {escape(', '.join(forfeits))} — see the bot logs in {escape(str(log_dir))}/", soft_wrap=True)
        for line in first_forfeits(data):
            console.print(line, highlight=False, markup=False, soft_wrap=True)  # soft: a path cut in two cannot be pasted
    strikes = drawn_verdicts(data)
    if strikes:
        console.print("[yellow]verdicts drawn[/] (as `arena match` lists them; a timeout or a disconnect is a strike, past --strike-limit a forfeit):", soft_wrap=True)
        for line in strikes:
            console.print(line, highlight=False, markup=False, soft_wrap=True)
    for bye in data.get("byes", []):
        say(f"round {bye['round'] + 1}: bye for {escape(', '.join(bye['bots']))}")
    h = data.get("head_to_head")
    if h is not None:
        unit = "duplicate pair" if h["counted_by"] == "pair" else "game"
        counted = f"{h['samples']} {unit}{'' if h['samples'] == 1 else 's'}"
        say(f"[bold]{escape(h['bot'])} vs {escape(h['opponent'])}[/]: score {h['score']:.1%} over {counted}, {elo_text(h['elo'], h['elo_margin'], h['los'], h['score'])}")
    s = data.get("sprt")
    if s is not None:  # short lines, each saying one thing, as fastchess prints its result: one long line was cut anywhere
        say(f"[bold]SPRT[/] ({s['model']}, elo0={s['elo0']:g}, elo1={s['elo1']:g}, α={s['alpha']:g}, β={s['beta']:g}): [bold]{escape(s['summary'])}[/]")
        say(f"LLR {s['llr']:+.3f}, bounds [{s['lower']:+.3f}, {s['upper']:+.3f}]")
        say(f"games {s['games']} ({s['pairs']} pairs), W-D-L {s['wins']}-{s['draws']}-{s['losses']}")
        say(f"pairs scoring 0, ¼, ½, ¾, 1: {escape(str(s['pentanomial']))}")
        say(f"score {s['score']:.3f}, {elo_text(s['elo'], s.get('elo_margin'), s.get('los'), s['score'])}")


def say(text: str) -> None:
    """A line (rich markup) under the tables: on a terminal wrapped at words to its width; into a file or a pipe, one
    line however long, for a script to read (rich cut it at 80 columns there: an SPRT's figures over three lines)."""
    console.print(text, soft_wrap=not console.is_terminal, highlight=False)
