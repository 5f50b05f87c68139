"""The ``arena`` command."""

from __future__ import annotations

import os

# Bots are started with fork+exec while the referee's gRPC server runs; gRPC's fork handlers are not needed.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "0")

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from arena.cli import running
from arena.cli.botkit import bot_app
from arena.cli.clock import MAX_STRIKE_LIMIT, MoveTimeMs, StrikeLimit, TimeBankMs, seed_option
from arena.cli.failing import fail
from arena.cli.folders import removed_on_failure
from arena.cli.pinning import PinCpus, check_pin_cpus
from arena.cli.ladder import ladder_app
from arena.cli import ladder_admin, ladder_bot  # noqa: F401  (their commands join ladder_app)
from arena.cli import bot_check  # noqa: F401  (its command joins bot_app)
from arena.cli.replay import listen_or_exit
from arena.cli.stale import warn_stale
from arena.cli.verdicts import last_words, verdict_cell, verdicts_line
from referee.core.game import OptionError
from referee.games.registry import GAMES
from referee.server.manifest import ManifestError, check_built
from referee.server.seeds import draw_seed
from referee.server.words import verdict_json

if TYPE_CHECKING:
    from arena.cli.keyboard import KeyboardPlayer
    from referee.server.session import TimeControl

app = typer.Typer(help="Arena: bots in any language play hidden-information card games.", no_args_is_help=True)
referee_app = typer.Typer(help="Host matches for remote bots.", no_args_is_help=True)
app.add_typer(referee_app, name="referee")
app.add_typer(ladder_app, name="ladder")
app.add_typer(bot_app, name="bot")
console = Console()
err = Console(stderr=True)


def _print_version(asked: bool) -> None:
    if asked:
        from importlib.metadata import version

        from referee.protocol.messages import PROTOCOL_VERSION

        console.print(f"arena {version('arena')} (bot protocol {PROTOCOL_VERSION})", markup=False, highlight=False)
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool, typer.Option("--version", callback=_print_version, is_eager=True, help="Print Arena's version and its bot protocol's, and exit.")
    ] = False,
) -> None:
    # A bug report or a ladder's bot author needs to say which Arena they run; `arena --version` was an error.
    from referee.server import cpus

    try:  # read when the ladder's modules are imported: a traceback from deep in `arena ladder serve` otherwise
        cpus.ladder_setting(os.environ)
    except ValueError as exc:
        fail(str(exc))


def check_dir(path: Path, flag: str) -> None:
    """Fail before any match is played unless ``path`` is a directory or can be made one."""
    if path.exists() and not path.is_dir():
        fail(f"{flag} {path} is not a directory")
    # "Not a directory" alone, for a folder under a file, left the author looking at the folder they named.
    blocking = next((p for p in path.parents if p.exists() and not p.is_dir()), None)
    if blocking is not None:
        fail(f"{flag} {path}: {blocking} is a file, not a directory")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        fail(f"{flag} {path}: {exc.strerror or exc}")


def check_file(path: Path, flag: str) -> None:
    """Fail before any match is played unless a file can be written at ``path`` (it is opened to see, not changed)."""
    if path.is_dir():
        fail(f"{flag} {path} is a directory")
    check_dir(path.parent, f"{flag}'s folder")
    existed = path.exists()
    try:
        with path.open("ab"):
            pass
    except OSError as exc:  # a read-only folder, a file of another user, a path under /proc: found after the match, it lost it
        fail(f"{flag} {path}: {exc.strerror or exc}")
    if not existed:
        path.unlink(missing_ok=True)


def saved_replay(record: Any, path: Path) -> bool:
    """Write the replay; a failure (the disk full) is said in one line, and the match's result is still shown."""
    from referee.server.replay import write_replay

    try:
        write_replay(record, path)
    except OSError as exc:
        err.print(f"[bold red]error:[/] the replay could not be written to {escape(str(path))}: {escape(str(exc.strerror or exc))}", soft_wrap=True)
        return False
    return True


def free_replay_path(folder: Path, stem: str) -> Path:
    """``folder/stem.json``, or ``stem-2.json``, ``stem-3.json``... past replays already there: the same seed
    with other bots, or other options, is another match, and its replay must not overwrite the first."""
    path, n = folder / f"{stem}.json", 1
    while path.exists() or path.is_symlink():
        n += 1
        path = folder / f"{stem}-{n}.json"
    return path


def parse_options(pairs: list[str]) -> dict[str, str]:
    options: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            fail(f"--option takes NAME=VALUE, not {pair!r}")
        if name.strip() in options:
            fail(f"--option {name.strip()} is given twice")
        options[name.strip()] = value.strip()
    return options


@app.command()
def games(as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False) -> None:
    """List the games with their player counts and options."""
    if as_json:
        data = [
            {
                "id": cls.spec.id,
                "name": cls.spec.name,
                "players": list(cls.spec.player_counts),
                "rules_version": cls.spec.rules_version,
                "score": cls.spec.score,
                "options": {o.name: {"default": o.default, "description": o.description} for o in cls.spec.options},
            }
            for cls in GAMES.values()
        ]
        print(json.dumps(data, indent=1))
        return
    table = Table(title="Games")
    # The id and the options are what a user types: the name and counts wrap instead, even at 80 columns.
    table.add_column("id", style="bold", no_wrap=True)
    table.add_column("name")
    table.add_column("players")
    table.add_column("options (default)", no_wrap=True)
    for cls in GAMES.values():
        spec = cls.spec
        table.add_row(
            spec.id, spec.name, spec.players_text, "\n".join(f"{o.name}={o.typed(o.default)}" for o in spec.options)
        )
    console.print(table)


@app.command()
def match(
    game: Annotated[str, typer.Argument(help="Game id (see `arena games`).")],
    bots: Annotated[list[Path], typer.Argument(help="Bot directories, one per seat, in seat order.")],
    seed: Annotated[int | None, seed_option("Match seed; the same seed and bots replay the same match.")] = None,
    option: Annotated[list[str], typer.Option("--option", "-o", help="Game option NAME=VALUE (repeatable).")] = [],  # noqa: B006
    replay: Annotated[Path | None, typer.Option(help="Where to write the replay (default: replays/<game>-<seed>.json, or -2, -3... after it if taken).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of a table.")] = False,
    move_time_ms: MoveTimeMs = 1000,
    time_bank_ms: TimeBankMs = 10000,
    strike_limit: StrikeLimit = 3,
    log_dir: Annotated[Path, typer.Option(help="Where bot logs go.")] = Path("replays/logs"),
    sandbox: Annotated[str, typer.Option(help="Run bots as local processes, or in Docker containers (see `arena sandbox build`).")] = "process",
    pin_cpus: PinCpus = False,
) -> None:
    """Play one local match: a referee on a unix socket per seat and one process (or container) per bot."""
    from referee.server.session import TimeControl

    clock = TimeControl(move_time_ms, time_bank_ms, strike_limit)
    run_match(game, bots, seed, parse_options(option), replay, as_json, clock, log_dir, sandbox, pin_cpus=pin_cpus)


def run_match(
    game: str, bots: list[Path], seed: int | None, options: dict[str, str], replay: Path | None, as_json: bool, clock: TimeControl,
    log_dir: Path, sandbox: str, keyboard: tuple[int, KeyboardPlayer] | None = None, pin_cpus: bool = False,
) -> None:
    """``arena match``, and ``arena play`` with ``keyboard``: the seat at the keyboard and its player."""
    from referee.server.runner import MatchSetup, launcher_for, prepare, run_local_match

    try:
        manifests = prepare(game, bots)
        for manifest in manifests:
            check_built(manifest)
        GAMES[game].spec.resolve_options(options)
    except (OptionError, ManifestError) as exc:
        fail(str(exc))
    warn_stale(manifests)
    seed = seed if seed is not None else draw_seed()  # referee/server/seeds.py: too many to try
    check_pin_cpus(pin_cpus, sandbox)
    try:
        launcher = launcher_for(sandbox, pin_cpus)
    except OptionError as exc:
        fail(str(exc))
    if keyboard is not None:
        from arena.cli.keyboard import KeyboardLauncher

        launcher = KeyboardLauncher(launcher, *keyboard)
    path = replay or free_replay_path(Path("replays"), f"{game}-{seed}")
    with removed_on_failure(log_dir, path.parent):
        check_dir(log_dir, "--log-dir")
        check_file(path, "--replay")
    setup = MatchSetup(game, bots, seed, options, clock, log_dir, sandbox)
    try:
        played = running.run(run_local_match(setup, launcher))
    except (KeyboardInterrupt, running.Terminated):
        err.print(f"stopped: the match was not finished, so no replay was written; the bots' logs so far are in {log_dir}/", soft_wrap=True, markup=False)
        raise
    record = played.record
    saved = saved_replay(record, path)
    seats: list[dict[str, Any]] = [
        {
            "seat": s.seat,
            "bot": played.manifests[s.seat].name,
            "rank": s.rank,
            "score": s.score,
            "forfeited": s.forfeited,
            "verdicts": [verdict_json(v) for v in s.verdicts],
            "log": str(played.logs[s.seat]),
        }
        for s in record.result.seats
    ]
    if as_json:
        print(json.dumps({"game": game, "seed": seed, "match_id": record.match_id, "replay": str(path) if saved else None, "seats": seats}))
        if not saved:
            raise typer.Exit(1)
        return
    table = Table(title=f"{GAMES[game].spec.name} · seed {seed} · {len(record.actions)} actions", caption=f"score: {GAMES[game].spec.score}")
    for column in ("seat", "bot", "rank", "score", "verdicts"):
        table.add_column(column)
    for s in seats:
        table.add_row(str(s["seat"]), str(s["bot"]), str(s["rank"]), f"{s['score']:g}", verdict_cell(s["verdicts"]))
    console.print(table)
    console.print(f"replay: {path if saved else '(not written)'}   logs: {log_dir}/", soft_wrap=True, markup=False)  # paths whole, to copy
    for s in seats:
        if s["verdicts"]:
            console.print(verdict_note(s), highlight=False, markup=False, soft_wrap=True)  # soft: a path cut in two cannot be pasted
    if not saved:
        raise typer.Exit(1)


@app.command()
def play(
    game: Annotated[str, typer.Argument(help="Game id (see `arena games`).")],
    bots: Annotated[list[Path], typer.Argument(help="The other seats' bot directories, in seat order (yours left out).")],
    seat: Annotated[int, typer.Option(help="Your seat, from 0.", min=0)] = 0,
    name: Annotated[str, typer.Option(help="Your name at the table.")] = "you",
    seed: Annotated[int | None, seed_option("Match seed; the same seed and the same play replay the same match.")] = None,
    option: Annotated[list[str], typer.Option("--option", "-o", help="Game option NAME=VALUE (repeatable).")] = [],  # noqa: B006
    replay: Annotated[Path | None, typer.Option(help="Where to write the replay (default: replays/<game>-<seed>.json, or -2, -3... after it if taken).")] = None,
    move_time_ms: MoveTimeMs = 600_000,
    time_bank_ms: TimeBankMs = 0,
    strike_limit: Annotated[int, typer.Option(help="Strikes allowed a seat before it forfeits (yours too): a decision whose time ran out, or refused 20 times.", min=0, max=MAX_STRIKE_LIMIT)] = 10,
    log_dir: Annotated[Path, typer.Option(help="Where bot logs go.")] = Path("replays/logs"),
    sandbox: Annotated[str, typer.Option(help="Run the bots as local processes, or in Docker containers (see `arena sandbox build`).")] = "process",
) -> None:
    """Play a match yourself against bots, in the terminal: you see only what your seat may know.

    The referee checks the actions you pick or type as it checks a bot's.
    """
    import tempfile

    from arena.cli.keyboard import KeyboardPlayer
    from referee.server.manifest import MANIFEST, NAME_RE, NAME_RULE
    from referee.server.seeds import bot_seed
    from referee.server.session import TimeControl

    if not NAME_RE.match(name):
        fail(f"--name {name!r} {NAME_RULE}")
    count = len(bots) + 1
    if seat >= count:
        fail(f"--seat {seat}: with {len(bots)} bot{'s' * (len(bots) != 1)} the seats are 0 to {count - 1}")
    if game not in GAMES:
        fail(f"no game called {game!r}: `arena games` lists them")
    with tempfile.TemporaryDirectory(prefix="arena-keyboard-") as tmp:
        # The keyboard's seat is a bot directory like the others to the runner; its command is never run.
        you = Path(tmp) / "you"
        you.mkdir()
        (you / MANIFEST).write_text(f'name = {json.dumps(name)}\nversion = "1"\ngames = [{json.dumps(game)}]\ncommand = ["true"]\n')
        seated = [*bots[:seat], you, *bots[seat:]]
        clock = TimeControl(move_time_ms, time_bank_ms, strike_limit)
        seed = seed if seed is not None else draw_seed()  # chosen here so that r's draws follow it too
        # r draws as a bot would, from the seat's seed: seeded with the match seed itself, its generator was the rules'
        # own, so which of a list r picked told the player the draws that had shuffled the decks
        keyboard = KeyboardPlayer(seed=int(bot_seed(seed, seat)))
        run_match(game, seated, seed, parse_options(option), replay, False, clock, log_dir, sandbox, keyboard=(seat, keyboard))


def verdict_note(seat: dict[str, Any]) -> str:
    """Why a seat drew verdicts, and which of the many logs is its own: the table gives only kinds."""
    first = seat["verdicts"][0]
    status = "forfeited" if seat["forfeited"] else "drew verdicts"
    words = last_words(Path(seat["log"])) if first["kind"] == "CRASH" else None
    said = f"\n  its last words: {words}" if words else ""
    return f"seat {seat['seat']} ({seat['bot']}) {status}: {verdicts_line(seat['verdicts'])}{said}\n  log: {seat['log']}"


sandbox_app = typer.Typer(help="The Docker sandbox for untrusted bots.", no_args_is_help=True)
app.add_typer(sandbox_app, name="sandbox")


@sandbox_app.command("build")
def sandbox_build() -> None:
    """Build the bots' runtime image locally (nothing is pulled from a registry)."""
    from referee.server.sandbox import IMAGE, SandboxError, build_image

    try:
        image = build_image()
    except SandboxError as exc:
        fail(str(exc))
    console.print(f"built {IMAGE} ({image[:19]})")


@app.command("compile")
def compile_rules(
    force: Annotated[bool, typer.Option(help="Build again even if a build of the current sources exists.")] = False,
) -> None:
    """Compile the rules with mypyc (1.5-3.5 min of one core) into your cache; ARENA_COMPILED=1 then plays with them."""
    import time

    from referee.compiled import SWITCH, BuildError, build, build_dir, is_built

    if is_built(build_dir()) and not force:
        console.print(f"the rules as they are now are already compiled: {build_dir()}", soft_wrap=True, markup=False)
    else:
        started = time.perf_counter()
        try:
            where = build(force=force)
        except BuildError as exc:
            fail(str(exc))
        console.print(f"compiled the rules in {time.perf_counter() - started:.0f} s: {where}", soft_wrap=True, markup=False)
    console.print(f"set {SWITCH}=1 to play with them (a build is used only while the sources it was built from are unchanged)")


@referee_app.command("serve")
def referee_serve(
    game: Annotated[str, typer.Argument(help="Game id.")],
    players: Annotated[int | None, typer.Option(help="Number of seats (default 2, or the game's smallest count).")] = None,
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port (0 picks a free one).", min=0, max=65535)] = 50051,
    seed: Annotated[int | None, seed_option("Match seed.")] = None,
    option: Annotated[list[str], typer.Option("--option", "-o", help="Game option NAME=VALUE.")] = [],  # noqa: B006
    move_time_ms: MoveTimeMs = 1000,
    time_bank_ms: TimeBankMs = 10000,
    connect_timeout_s: Annotated[int, typer.Option(help="How long to wait for every bot to connect.", min=1)] = 300,
    replay: Annotated[Path | None, typer.Option(help="Where to write the replay.")] = None,
    name: Annotated[
        list[str], typer.Option("--name", help="The bot of each seat, in seat order (once per seat; default seat0, seat1, ...).")
    ] = [],  # noqa: B006
) -> None:
    """Host one match on TCP for remote bots: prints the match id and each seat's token, plays, prints the result."""
    from referee.games.registry import game_class
    from referee.server.manifest import NAME_RE, NAME_RULE
    from referee.server.service import HANG_UP_WAIT_S, MAX_CONNECTIONS, RefereeService, make_server
    from referee.server.session import MatchSession, TimeControl

    try:
        cls = game_class(game)
        if players is None:  # as `arena tournament`: a game with no two-seat table is played at its smallest
            players = 2 if 2 in cls.spec.player_counts else min(cls.spec.player_counts)
        the_game = cls(players, seed if seed is not None else draw_seed(), parse_options(option))
    except OptionError as exc:
        fail(str(exc))
    # The names are every seat's GameStart (seat_names) and the replay's: fixed before the first bot connects, so
    # they cannot come from the bots' hellos (bot_name, for logs).
    if name and len(name) != players:
        fail(f"--name is given once per seat: {players} names for {players} seats, not {len(name)}")
    for given in name:
        if not NAME_RE.match(given):
            fail(f"--name {given!r} {NAME_RULE}")
    names = name or [f"seat{i}" for i in range(players)]
    listen_or_exit(host, port).close()  # here, for the reason: gRPC's bind tells only that it failed

    async def serve() -> None:
        tc = TimeControl(move_time_ms, time_bank_ms, connect_timeout_ms=connect_timeout_s * 1000)
        session = MatchSession(the_game, names, tc)
        service = RefereeService()
        service.add(session)
        server = make_server(service, MAX_CONNECTIONS * players)
        try:
            bound = server.add_insecure_port(f"[{host}]:{port}" if ":" in host else f"{host}:{port}")  # an IPv6 address in brackets
        except RuntimeError:  # taken since the check above
            fail(f"cannot listen on {host}:{port}")
        path = replay or Path("replays") / f"{game}-{the_game.seed}-{session.match_id}.json"
        check_file(path, "--replay")  # the default folder too: found unwritable after the match, it lost the replay
        await server.start()
        console.print(f"referee for {game} listening on {host}:{bound}", markup=False)
        console.print(f"ARENA_MATCH_ID={session.match_id}")
        for i, token in enumerate(session.tokens()):
            console.print(f"seat {i}: ARENA_TOKEN={token}" + (f"  ({names[i]})" if name else ""), markup=False)
        try:
            record = await session.run()
        except asyncio.CancelledError:  # Ctrl-C or SIGTERM: the server stopped on this loop, not left to a closed one
            await server.stop(grace=None)
            raise
        # The streams first, as the local runner does: each waits up to HANG_UP_WAIT_S for its bot to hang up,
        # and a shorter grace cancelled them, with a traceback at exit.
        await service.streams_ended(session.match_id, HANG_UP_WAIT_S)
        await server.stop(grace=1.0)
        for s in record.result.seats:
            console.print(f"seat {s.seat}: rank {s.rank} score {s.score:g}" + (" (forfeited)" if s.forfeited else ""))
        if not saved_replay(record, path):
            raise typer.Exit(1)
        console.print(f"replay: {path}", soft_wrap=True, markup=False)

    running.run(serve())


from arena.cli.tournament import tournament  # noqa: E402

app.command()(tournament)

from arena.cli.replay import replay  # noqa: E402

app.command()(replay)


if __name__ == "__main__":
    app()
