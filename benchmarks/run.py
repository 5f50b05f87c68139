"""Run every benchmark and write docs/benchmarks.md: ``python -m benchmarks.run``.

Nothing here passes or fails: each figure is printed beside its target. The
whole run takes about half an hour on two cores.
"""

from __future__ import annotations

import asyncio
import os
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.engine import decisions_per_second
from benchmarks.startup import median_ms, time_to_hello
from benchmarks.wire import bare_round_trips, referee_round_trips, replayed_round_trips, round_trip_parts, seat_messages, summary
from referee.games.registry import GAMES

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "benchmarks.md"
CHANGES = ROOT / "benchmarks" / "CHANGES.md"


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import grpc

    return f"{os.cpu_count()} cores ({cpu}), Python {platform.python_version()}, grpcio {grpc.__version__}, {platform.system()} {platform.release()}"


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.1f} (1 min), {five:.1f} (5 min)"


def met(ok: bool | None) -> str:
    return "n/a" if ok is None else ("met" if ok else "**missed**")


class Report:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.summary: list[tuple[str, str, str, str]] = []  # what, figure, target, met

    def add(self, *lines: str) -> None:
        self.lines.extend(lines)
        for line in lines:
            print(line, flush=True)

    def target(self, what: str, figure: str, target: str, ok: bool | None) -> None:
        self.summary.append((what, figure, target, met(ok)))


def engine(r: Report) -> None:
    from benchmarks.peers import PEERS

    r.add(
        "## 1. Engine: decisions per second in process",
        "",
        f"Command: `python -m benchmarks.run` (benchmarks/engine.py, benchmarks/peers.py). {load()} at the start.",
        "Random legal play, single thread, about 3 seconds per configuration, three runs each, the median shown.",
        "Ours: each decision costs the acting seat's view, its decision (the constraints), the legal actions",
        "the referee would list (up to 64), a random legal action and the action applied.",
        "OpenSpiel 2.0.2 (C++ engines through pybind11): legal actions, the acting player's observation",
        "(or information state) string and the action applied; chance nodes sampled and not counted.",
        "RLCard 1.2 (pure Python): `env.step`, which builds the next player's state (its view and legal actions).",
        "",
    )
    peers: dict[str, float] = {}
    beside: dict[str, Callable[[float], tuple[float, int] | None]] = {}
    rows = []
    for library, name, fn in PEERS:
        runs = [x for x in (fn(3.0) for _ in range(3)) if x is not None]
        if not runs:
            rows.append(f"| {library} {name} | — | not installed |")
            continue
        rate = statistics.median(x[0] for x in runs)
        peers[f"{library} {name}"] = rate
        beside[f"{library} {name}"] = fn
        rows.append(f"| {library} {name} | {rate:,.0f} | |")
    r.add("| peer | steps/s | |", "|---|---|---|", *rows, "")
    rl = {k: v for k, v in peers.items() if k.startswith("RLCard")}
    rl_name = max(rl, key=rl.__getitem__) if rl else None
    hearts_name = "OpenSpiel hearts" if "OpenSpiel hearts" in peers else None
    r.add(
        "Targets: at least 10 times RLCard's rate (its faster engine in the table above is taken) and at least a quarter of OpenSpiel's hearts.",
        "This host's speed has swung within a run (benchmarks/CHANGES.md, twentieth round), so each ratio is taken in the same minute:",
        f"every run of a configuration (3 s) is followed by a second of {rl_name or 'RLCard'} and one of OpenSpiel hearts, and the",
        "ratio shown is the median of the three runs' ratios; the peers' rates measured so are given beside.",
        "",
        "| game | players | decisions/s | × RLCard (best) | × OpenSpiel hearts | RLCard, hearts beside (steps/s) | 10× RLCard | ¼ OpenSpiel hearts |",
        "|---|---|---|---|---|---|---|---|",
    )
    ratios: dict[tuple[str, int], tuple[float | None, float | None]] = {}
    for game_id, cls in GAMES.items():
        for n in cls.spec.player_counts:
            ours: list[float] = []
            by_rl: list[float] = []
            by_os: list[float] = []
            rl_rates: list[float] = []
            os_rates: list[float] = []
            against: list[tuple[str | None, list[float], list[float]]] = [(rl_name, rl_rates, by_rl), (hearts_name, os_rates, by_os)]
            for _ in range(3):
                rate = decisions_per_second(game_id, n)[0]
                ours.append(rate)
                for peer, rates, out in against:
                    found = beside[peer](1.0) if peer is not None else None
                    if found is not None:
                        rates.append(found[0])
                        out.append(rate / found[0])
            x_rl = statistics.median(by_rl) if by_rl else None
            x_os = statistics.median(by_os) if by_os else None
            ratios[(game_id, n)] = (x_rl, x_os)
            peers_beside = f"{statistics.median(rl_rates) if rl_rates else 0:,.0f}, {statistics.median(os_rates) if os_rates else 0:,.0f}"
            r.add(
                f"| {game_id} | {n} | {statistics.median(ours):,.0f} | {x_rl or 0:.2f} | {x_os or 0:.3f} | {peers_beside} |"
                f" {met(x_rl >= 10 if x_rl else None)} | {met(x_os >= 0.25 if x_os else None)} |"
            )
    r.add("")
    worst_rl = min((x for x, _ in ratios.values() if x is not None), default=None)
    worst_os = min((x for _, x in ratios.values() if x is not None), default=None)
    if worst_rl is not None:
        r.target("engine: slowest game vs RLCard", f"{worst_rl:.2f}×", "≥ 10×", worst_rl >= 10)
    if worst_os is not None:
        r.target("engine: slowest game vs OpenSpiel hearts", f"{worst_os:.3f}×", "≥ 0.25×", worst_os >= 0.25)
    engine_parts(r)
    engine_compiled(r, ratios)


def engine_compiled(r: Report, ratios: dict[tuple[str, int], tuple[float | None, float | None]]) -> None:
    """The same loop with the rules compiled by mypyc, as ``arena compile`` and ``ARENA_COMPILED=1`` play them.

    Its ratios to the peers are chained from two taken in the same minute: compiled over pure (the two runs
    alternate) times pure over the peer (section 1's, measured beside each configuration)."""
    from benchmarks.compiled import compiled_rates

    configs = [(g, n) for g, cls in GAMES.items() for n in sorted({min(cls.spec.player_counts), max(cls.spec.player_counts)})]
    r.add(
        "The rules compiled with mypyc (`python -m benchmarks.compiled`), as an operator gets them with `arena compile`",
        "and `ARENA_COMPILED=1` (docs/deploy.md; Arena's default is pure Python): built into a scratch cache, the same loop",
        "timed in a process that imports the compiled rules, alternating with one that imports the pure ones",
        "(2 seconds per configuration, median of 2 runs each; every game at its smallest and largest table).",
        "The ratios to the peers are the speed-up (×, compiled over pure, which alternate) times the pure rules' ratio",
        "in the table above (taken beside the peers): each factor comes from one minute, whatever the host does between.",
        "",
    )
    found = compiled_rates(configs)
    if isinstance(found, str):
        r.add(f"Not measured: {found}.", "")
        return
    rates, seconds = found
    r.add(
        "| game | players | pure Python | compiled | × | compiled × RLCard (best) | compiled × OpenSpiel hearts |",
        "|---|---|---|---|---|---|---|",
    )
    chained: list[tuple[float | None, float | None]] = []
    for (game_id, n), (pure, fast) in rates.items():
        pure_rl, pure_os = ratios.get((game_id, n), (None, None))
        x_rl = fast / pure * pure_rl if pure_rl else None
        x_os = fast / pure * pure_os if pure_os else None
        chained.append((x_rl, x_os))
        cells = f"{x_rl:.2f}" if x_rl is not None else "—", f"{x_os:.3f}" if x_os is not None else "—"
        r.add(f"| {game_id} | {n} | {pure:,.0f} | {fast:,.0f} | {fast / pure:.2f} | {cells[0]} | {cells[1]} |")
    r.add("", f"Compiling took {seconds:.0f} s.", "")
    worst_rl = min((x for x, _ in chained if x is not None), default=None)
    worst_os = min((x for _, x in chained if x is not None), default=None)
    if worst_rl is not None:
        r.target("engine, compiled: slowest game vs RLCard", f"{worst_rl:.2f}×", "≥ 10×", worst_rl >= 10)
    if worst_os is not None:
        r.target("engine, compiled: slowest game vs OpenSpiel hearts", f"{worst_os:.3f}×", "≥ 0.25×", worst_os >= 0.25)


def engine_parts(r: Report) -> None:
    from benchmarks.engine_parts import PARTS, parts

    r.add(
        "Where a decision's time goes (`python -m benchmarks.engine_parts`, the same loop with each part timed, µs per",
        "decision; the lists: decisions whose legal actions were listed, 8 or fewer or 9 to 64, or not, more than 64):",
        "",
        "| game | players | " + " | ".join(PARTS) + " | lists ≤ 8 / 9–64 / none |",
        "|---|---|" + "---|" * len(PARTS) + "---|",
    )
    for game_id, cls in GAMES.items():
        for n in sorted({min(cls.spec.player_counts), max(cls.spec.player_counts)}):
            times, sizes = parts(game_id, n)
            total = sum(sizes.values())
            share = " / ".join(f"{sizes[k] / total:.0%}" for k in ("≤ 8", "9–64", "none"))
            r.add(f"| {game_id} | {n} | " + " | ".join(f"{times[p]:.1f}" for p in PARTS) + f" | {share} |")
    r.add("")


#: The referee's work between decisions emulated by the replayed round trips (section 2): none, and about what
#: the rules of General's War take per decision pure (engine_parts, this host) and three times that.
REPLAY_WORK_MS = (0.0, 0.2, 0.6)


def wire(r: Report) -> None:
    ref: list[float] = []
    kept: list[float] = []
    bare: list[float] = []
    turns: list[float] = []
    sizes: list[tuple[int, int]] = []
    events: list[int] = []
    rounds = 3
    for _ in range(rounds):  # interleaved, so that all see the same load
        samples, request_size, answer_size = asyncio.run(referee_round_trips(8, events))
        ref.extend(samples)
        kept.extend(asyncio.run(referee_round_trips(8, pooled=True))[0])
        sizes.append((request_size, answer_size))
        bare.extend(asyncio.run(bare_round_trips(request_size, answer_size, 1000)))
        turns.extend(asyncio.run(bare_round_trips(request_size, answer_size, 500, clients=2)))
    messages = asyncio.run(seat_messages())
    replayed: dict[float, list[float]] = {work: [] for work in REPLAY_WORK_MS}
    for _ in range(rounds):
        for work in REPLAY_WORK_MS:
            replayed[work].extend(asyncio.run(replayed_round_trips(messages, 250, work)))
    parts = asyncio.run(round_trip_parts(8))
    bare_parts: dict[str, list[float]] = {}
    asyncio.run(bare_round_trips(*sizes[0], 1000, parts=bare_parts))
    ref_median, ref_p99 = summary(ref)
    kept_median, kept_p99 = summary(kept)
    bare_median, bare_p99 = summary(bare)
    turns_median, turns_p99 = summary(turns)
    request_size, answer_size = sizes[0]

    def cell(values: list[float] | None) -> str:
        return "" if not values else f"{summary(values)[0]:.3f} | {summary(values)[1]:.3f}"

    r.add(
        "## 2. The wire: one decision's round trip",
        "",
        f"Command: `python -m benchmarks.run` (benchmarks/wire.py). {load()}. Unix socket, each client in its own process,",
        "timed on the serving side. Referee: General's War matches between two SDK random bots (sample_bots/random)",
        f"({len(ref)} decisions in {rounds} rounds of 8 matches), from the request handed to gRPC to the legal answer handled by the session.",
        f"Bare: a gRPC bidirectional ping-pong with the same mean sizes ({request_size} bytes out, {answer_size} back),",
        f"{len(bare)} rounds, its client driven as the SDK drives its stream (grpc.aio, one thread). The rounds alternate between the two.",
        "",
        "| path | median ms | p99 ms |",
        "|---|---|---|",
        f"| referee + SDK | {ref_median:.3f} | {ref_p99:.3f} |",
        f"| bare gRPC ping-pong | {bare_median:.3f} | {bare_p99:.3f} |",
        f"| ratio (target ≤ 1.2) | {ref_median / bare_median:.2f} | {ref_p99 / bare_p99:.2f} |",
        f"| bare, two clients taking turns (not the target's baseline) | {turns_median:.3f} | {turns_p99:.3f} |",
        f"| referee + SDK, the two bot processes kept for all 8 matches of a round | {kept_median:.3f} | {kept_p99:.3f} |",
        f"| its ratio to the bare ping-pong | {kept_median / bare_median:.2f} | {kept_p99 / bare_p99:.2f} |",
        "",
        "The fourth row is the same ping-pong with two client processes served in turn, as the referee serves the two",
        "seats of a game: each client sleeps through the other's round trip. It shows what taking turns costs by itself.",
        "The last two: the same matches with each seat's bot process started once and handed every match on its stdin",
        "(`ARENA_CONTROL=stdin`, as `arena tournament` and the ladder run bots whose manifest sets `matches_per_process`),",
        "so that, as the bare client, it answers warm: the first row's bots answer some forty decisions each before they exit.",
        "",
        f"A seat's events ride inside its next decision request: one message out per decision, as in the bare ping-pong "
        f"({len(events)} event batches went out on their own, before results, against {len(ref)} requests).",
        "Where a round trip goes (a further 8 matches and 1000 bare rounds, ms; the bot and the echo client note",
        "when a message reached them and when they answered, on the clock the server reads; each round trip's parts add up to it, their medians need not):",
        "",
        "| part | referee: median | p99 | bare: median | p99 |",
        "|---|---|---|---|---|",
        f"| the session hands the request to the stream's task | {cell(parts['session to stream task'])} | — | — |",
        f"| gRPC to the bot (or client), its process waking, parsing | {cell(parts['to the bot'])} | {cell(bare_parts.get('to the client'))} |",
        f"| the SDK and the bot's move (the client's reply) | {cell(parts['SDK and bot'])} | {cell(bare_parts.get('client'))} |",
        f"| gRPC back to the stream's reader | {cell(parts['back to the referee'])} | {cell(bare_parts.get('back to the server'))} |",
        f"| the session decodes and checks the answer | {cell(parts['answer checked'])} | — | — |",
        "",
        "The referee's own work is the first and last rows; the stream's reader now hands the answer to the session",
        "directly (it was a queue and a task switch, about 0.03 ms at the same load). The gRPC legs are longer than",
        "the bare ones partly because the two seats take turns (the row above), and partly because of the work the",
        "referee does between an answer and the next request, outside the timed span (the rules, the next view):",
        "the bots sleep through it and come back slower. Below, one seat's real messages of a match are replayed to",
        "two SDK random bots taking turns, by a server with the referee's gRPC settings that does nothing else but",
        f"spin for the given time between an answer and the next request ({rounds} × 250 rounds per client each):",
        "",
        "| work between decisions, outside the span | median ms | p99 ms | × bare |",
        "|---|---|---|---|",
        *(f"| {work:g} ms | {cell(replayed[work])} | {summary(replayed[work])[0] / bare_median:.2f} |" for work in REPLAY_WORK_MS),
        "",
    )
    r.target("wire: median round trip vs bare gRPC", f"{ref_median / bare_median:.2f}× ({ref_median:.2f} vs {bare_median:.2f} ms);"
             f" bot processes kept between matches {kept_median / bare_median:.2f}×", "≤ 1.2×", ref_median / bare_median <= 1.2)
    r.target("wire: p99 round trip vs bare gRPC", f"{ref_p99 / bare_p99:.2f}× ({ref_p99:.2f} vs {bare_p99:.2f} ms)", "≤ 1.2×", ref_p99 / bare_p99 <= 1.2)


def matches(r: Report) -> None:
    from benchmarks.matches import arena_match_seconds, ladder_pins, ladder_rate, sample_bots_for, tournament_rate

    r.add(
        "## 3. Matches",
        "",
        f"Command: `python -m benchmarks.run` (benchmarks/matches.py). {load()}.",
        "",
        "One `arena match` (the CLI in its own process, from start to exit: start-up, bots, match, replay), median of 3 seeds,",
        "the game's sample bot against the random bot (or as many seats of them as the game's smallest table needs):",
        "",
        "| game | seats | wall time s |",
        "|---|---|---|",
    )
    for game_id in GAMES:
        seconds, seats = arena_match_seconds(game_id)
        r.add(f"| {game_id} | {', '.join(p.name for p in seats)} | {seconds:.2f} |")
    bots = sample_bots_for("generals-war")
    games = 48
    pooled_games = 3 * games  # pooled matches are four times as fast: as many matches would time a second or two
    runs = 5
    fresh: list[tuple[float, int, int]] = []
    pooled: list[tuple[float, int, int]] = []
    ladders: list[tuple[float, list[str], int] | str] = []
    ladders_pooled: list[tuple[float, list[str], int] | str] = []
    for _ in range(runs):  # interleaved, so that a slow spell of the shared machine falls on both runners
        fresh.append(tournament_rate(bots, games, 2, pooled=False))
        ladders.append(ladder_rate(games, workers=2))
        pooled.append(tournament_rate(bots, pooled_games, 2, pooled=True))
        ladders_pooled.append(ladder_rate(pooled_games, workers=2, pooled=True))
    fresh_rate = statistics.median(x[0] for x in fresh)
    pooled_rate = statistics.median(x[0] for x in pooled)
    ladder = _median_rate(ladders)
    ladder_pooled = _median_rate(ladders_pooled)
    r.add(
        "",
        f"Matches per minute, two-player General's War, {', '.join(p.name for p in bots)} (the ladder's sample bots for that game),",
        "two matches at a time, move time 2 s. `arena tournament` is a round robin (its duplicate deals: each seed played",
        f"with the seats rotated) timed as the ladder is, over {games} matches ({pooled_games} with bot processes kept) from the moment",
        f"its first two are done. The four configurations are run in turn, {runs} rounds; the medians are shown.",
        "The ladder: `ladder.service.Ladder` on SQLite with two local workers and the same bots (submitted and validated as",
        "any bot), scheduling, claiming, copying the bots, recording, writing the replay and rating each match; timed as the",
        "tournament is. Claims and recording are done by the ladder's books process (ladder/books.py), as `arena ladder serve` does",
        "by default. With `matches_per_process` the ladder keeps bot processes between",
        "matches but never hands one process both matches of a duplicate pair (the same deal).",
        "Bot processes pinned to a CPU each in both runners" if ladder_pins() else "Bot processes unpinned in both runners",
        "(the ladder pins unless `ARENA_PIN_CPUS=0`; `benchmarks.matches.ladder_pins`).",
        "",
        "| runner | bot processes | matches/min | processes started while timed |",
        "|---|---|---|---|",
        f"| `arena tournament` | one per seat per match | {fresh_rate:.1f} | {fresh[0][2]} for {fresh[0][1]} matches |",
        f"| `arena tournament` | several matches each (`matches_per_process`) | {pooled_rate:.1f} | {pooled[0][2]} for {pooled[0][1]} matches |",
    )
    overheads: list[str] = []
    worst = 0.0
    for label, measured, runs_of_ladder, bare_runs, timed in (
        ("one per seat per match", ladder, ladders, fresh, games),
        ("several matches each (`matches_per_process`)", ladder_pooled, ladders_pooled, pooled, pooled_games),
    ):
        if isinstance(measured, str):
            r.add(f"| ladder | {label} | not measured: {measured} | |")
            continue
        rate, _, launched = measured
        r.add(f"| ladder | {label} | {rate:.1f} | {launched} for {timed} matches |")
        # Each round's ladder against the tournament run just before it: the machine's speed drifts between rounds.
        paired = statistics.median(b[0] / x[0] - 1 for b, x in zip(bare_runs, runs_of_ladder) if not isinstance(x, str))
        worst = max(worst, paired)
        of_medians = statistics.median(b[0] for b in bare_runs) / rate - 1
        overheads.append(f"{paired * 100:+.0f}% ({label.split(' (')[0]}; the medians' ratio {of_medians * 100:+.0f}%)")
    r.add("")
    r.add(
        "Each round, matches/min, in the order run (the machine's speed drifts between rounds; compare within a row):",
        "",
        "| round | tournament, one per seat | ladder, one per seat | overhead | tournament, pooled | ladder, pooled | overhead |",
        "|---|---|---|---|---|---|---|",
    )

    def cell(bare: tuple[float, int, int], lad: tuple[float, list[str], int] | str) -> str:
        return f"{bare[0]:.0f} | {lad} | " if isinstance(lad, str) else f"{bare[0]:.0f} | {lad[0]:.0f} | {(bare[0] / lad[0] - 1) * 100:+.0f}%"

    for i, (f, lf, p, lp) in enumerate(zip(fresh, ladders, pooled, ladders_pooled), start=1):
        r.add(f"| {i} | {cell(f, lf)} | {cell(p, lp)} |")
    r.add("")
    if overheads:
        r.add(
            "The ladder's scheduling, database, rating and replay work, as time per match over the bare runner (which keeps",
            "no replay) with the same kind of bot processes, the median over the rounds of each round's overhead",
            "(target ≤ 20%), and beside it the ratio of the two runners' medians above: " + "; ".join(overheads) + ".",
            "The target is judged on the first, which compares runs made a minute apart.",
            "",
        )
        r.target("ladder overhead over `arena tournament`", "; ".join(overheads), "≤ +20%", worst <= 0.2)
    else:
        r.target("ladder overhead over the bare runner", "not measured", "≤ 20%", None)
    r.target("tournament, processes kept between matches", f"{pooled_rate / fresh_rate:.2f}× the matches/min of a process per match", "(no target)", None)


def _median_rate(runs: list[tuple[float, list[str], int] | str]) -> tuple[float, list[str], int] | str:
    """The run with the median rate, or the first failure."""
    for run in runs:
        if isinstance(run, str):
            return run
    done = sorted((run for run in runs if not isinstance(run, str)), key=lambda run: run[0])
    return done[len(done) // 2]


def ratings(r: Report) -> None:
    from benchmarks.ratings import HOLD, NOISES, TAU, compare, quartiles

    cap = 250
    trials = 48
    out = compare(trials, cap, progress=print, workers=2)
    ladder_q, baseline_q = quartiles(out["ladder"], cap), quartiles(out["trueskill-random"], cap)

    def fmt(values: list[float | None]) -> str:
        return ", ".join("—" if v is None else f"{v:.0f}" for v in values)

    def figure(x: float) -> str:
        return f"> {cap}" if x > cap else f"{x:.0f}"

    def row(name: str, q: tuple[float, float, float], values: list[float | None]) -> str:
        reached = sum(v is not None for v in values)
        return f"| {name} | {figure(q[1])} | {figure(q[0])}–{figure(q[2])} | {reached} of {len(values)} |"

    r.add(
        "## 4. Ratings: games until the order is right",
        "",
        f"Command: `python -m benchmarks.run` (benchmarks/ratings.py). {load()}. Eight bots of known strength,",
        f"tests/bots/gw_noisy with noise {', '.join(f'{x:g}' for x in NOISES)} (lower is stronger), General's War",
        "with two or four seats, real matches in process (referee.server.inprocess.play). The ladder's own code without",
        "its database: its matchmaking (ladder/scheduler.py `choose_table`: at most tables two neighbours in the order by mu",
        "drawn by their chance of being in the wrong order, at a fifth the bot with the fewest games against random opponents),",
        "each deal played from every",
        "seat (`set_orders`: the seat order's rotations; at two seats the order and its reverse), the set rated as one comparison",
        "(ladder/ratings.py `set_ranks`), beside TrueSkill with random tables and a fresh deal each match. The figure: games per",
        f"bot from which Kendall's τ between the order by mu - 3 sigma and the true order is ≥ {TAU} and stays so for",
        f"{HOLD} more games per bot; {trials} runs (seeds 1000 to {999 + trials}) of up to {cap} games per bot each,",
        "a run that never got there counted as beyond the cap. One run's figure swings widely with its seed, hence",
        "the quartiles and the many runs: the medians of five runs (this section until the eleventh round) could differ",
        "by a factor of two between schemes by luck alone.",
        "",
        "| scheme | games per bot (median) | quartiles | runs that got there |",
        "|---|---|---|---|",
        row("ladder (the pairs likeliest misordered or random opponents, duplicate deals rated as one comparison)", ladder_q, out["ladder"]),
        row("TrueSkill, random tables, no duplicates", baseline_q, out["trueskill-random"]),
        "",
        "Each run, in seed order (— : not within the cap):",
        "",
        f"- ladder: {fmt(out['ladder'])}",
        f"- TrueSkill, random tables: {fmt(out['trueskill-random'])}",
        "",
    )
    ladder, baseline = ladder_q[1], baseline_q[1]
    if ladder <= cap and baseline <= cap:
        r.target("ratings: games per bot, ladder vs TrueSkill random", f"{ladder:.0f} vs {baseline:.0f} ({ladder / baseline:.2f}×)", "≤ 0.5×", ladder <= baseline / 2)
    else:
        # The baseline beyond the cap: the ladder's figure within half the cap is within half the baseline's too.
        verdict = False if ladder > cap else (True if ladder <= cap / 2 else None)
        r.target("ratings: games per bot, ladder vs TrueSkill random", f"{figure(ladder)} vs {figure(baseline)}", "≤ 0.5×", verdict)


def memory(r: Report) -> None:
    from benchmarks.memory import rss_with_matches

    rows = []
    per: list[float] = []
    held = 0
    for k in (100, 500):
        try:
            before, live = asyncio.run(asyncio.wait_for(rss_with_matches(k), 180))
        except Exception as exc:  # noqa: BLE001
            rows.append(f"| {k} | not measured: {type(exc).__name__} {exc} | | |")
            continue
        per.append((live - before) / k)
        held = k
        rows.append(f"| {k} | {before / 1024:.1f} | {live / 1024:.1f} | {(live - before) / k:.0f} |")
    r.add(
        "## 5. Memory: the referee per concurrent match",
        "",
        f"Command: `python -m benchmarks.run` (benchmarks/memory.py). {load()}. One referee process serving K two-player",
        "General's War matches on one socket, both seats of each connected (a gRPC channel per match) and asked for",
        "a decision they never answer, so that all K are live at once. VmRSS of the referee process.",
        "",
        "| live matches | RSS before MiB | RSS live MiB | KiB per match |",
        "|---|---|---|---|",
        *rows,
        "",
    )
    if per:
        r.add(
            f"At about {max(per):.0f} KiB per match, a GiB holds some {1024 * 1024 / max(per):,.0f} live matches; memory is not what",
            "limits a referee process. Its one thread is: every decision of every match is handled by it (section 1",
            "and 2 give the cost of one), so a process holds as many matches as its bots' thinking time allows it to serve.",
            "",
        )
        r.target("memory per live match (referee)", f"{max(per):.0f} KiB; {held:,} live matches held by one process (the most tried)", "(no target)", None)


def startup(r: Report) -> None:
    from referee.server.launchers import ProcessLauncher

    process = median_ms(asyncio.run(time_to_hello(ProcessLauncher())))
    r.add(
        "## 6. Bot start-up: process and container",
        "",
        "Command: `python -m benchmarks.run` (benchmarks/startup.py). Median of 5 launches of the random sample bot,",
        "from launch to its Hello reaching the referee.",
        "",
        "| launcher | median ms |",
        "|---|---|",
        f"| process | {process:.0f} |",
    )
    try:
        from referee.server.sandbox import DockerLauncher

        docker = median_ms(asyncio.run(time_to_hello(DockerLauncher())))
        r.add(f"| docker | {docker:.0f} |", f"| extra for a container | {docker - process:.0f} |", "")
    except Exception as exc:  # no engine or image on this machine
        r.add("", f"Docker: not measured ({type(exc).__name__}: {str(exc)[:120]}).", "")


def main() -> int:
    started = time.time()
    r = Report()
    header = [
        "# Benchmarks",
        "",
        f"Written by `python -m benchmarks.run` on {time.strftime('%Y-%m-%d')}; machine: {machine()}.",
        "Each figure below comes from that one command, in one run, on the same machine. The machine is shared:",
        f"the load average is given per section (at the start: {load()}); with two cores, a load above 2 means",
        "other work competed for the CPU, which slows every figure and widens the tails. Nothing here is a pass/fail test.",
        "",
    ]
    engine(r)
    wire(r)
    matches(r)
    ratings(r)
    memory(r)
    startup(r)
    table = ["## Summary", "", "| what | figure | target | |", "|---|---|---|---|"]
    table += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in r.summary]
    table += ["", f"The run took {(time.time() - started) / 60:.1f} minutes.", ""]
    changes = CHANGES.read_text().splitlines() + [""] if CHANGES.exists() else []
    OUT.write_text("\n".join(header + table + r.lines + changes))
    print("\n".join(table))
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
