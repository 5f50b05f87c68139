"""`arena ladder ...`: run the ladder, manage owners, submit bots, watch the standings."""

from __future__ import annotations

import contextlib
import json
import sys
from urllib.parse import quote
from pathlib import Path
from collections.abc import Callable, Iterator
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from arena.cli import running
from arena.cli.clock import MoveTimeMs, seed_option
from arena.cli.failing import fail
from arena.cli.folders import first_missing, remove_made
from arena.cli.replay import listen_or_exit

ladder_app = typer.Typer(help="The ladder: submit bots, schedule and rate matches, watch the standings.", no_args_is_help=True)
user_app = typer.Typer(help="Bot owners and their API tokens.", no_args_is_help=True)
ladder_app.add_typer(user_app, name="user")
console = Console()
err = Console(stderr=True)

DataDir = Annotated[Path, typer.Option("--data", help="The ladder's data folder (database, bot store, replays).")]
DbUrl = Annotated[str | None, typer.Option("--db", help="SQLAlchemy URL (default: SQLite in the data folder).")]
Server = Annotated[str, typer.Option("--server", envvar="ARENA_LADDER_URL", help="The ladder's address.")]
Token = Annotated[str, typer.Option("--token", envvar="ARENA_LADDER_TOKEN", help="Your API token.")]
DEFAULT_DATA = Path("arena-data")
T = TypeVar("T")
DEFAULT_SERVER = "http://127.0.0.1:8765"


@ladder_app.callback()
def ladder_command(ctx: typer.Context) -> None:
    """The ladder: submit bots, schedule and rate matches, watch the standings."""
    ctx.call_on_close(let_go_of_vacuums)


def let_go_of_vacuums() -> None:
    """The command is over: its share of a vacuum's lock (wait_for_vacuum) ends, in a test's process too."""
    if (vacuums := sys.modules.get("ladder.vacuum")) is not None:  # not imported here: most commands never open a database
        vacuums.let_go()


def open_ladder_db(data: Path, db: str | None, existing: bool = False, write: bool = False, upgrade: bool = False, moved: bool = False) -> Any:
    """The ladder's database as a sessionmaker, or a clear error; ``existing``: the data folder must hold a ladder
    already; ``write``: the command writes, so a database it cannot write is refused now; ``upgrade``: an older
    schema is brought up to date (`serve` only: another command would change it under an older ladder running);
    ``moved``: an SQLite file `copy-database` copied elsewhere is opened all the same (to copy it again)."""
    from alembic.util.exc import CommandError
    from sqlalchemy import make_url
    from sqlalchemy.exc import NoSuchModuleError, SQLAlchemyError

    from ladder.db import SchemaBehind, check_writable
    from ladder.hold import LadderBusy
    from ladder.service import LadderConfig, open_db
    from ladder.transfer import moved_away

    if db is not None and not db.strip():  # an unset variable in `--db "$URL"`: SQLite in the data folder was used instead
        fail("--db is empty (leave it out for SQLite in the data folder)")
    if data.exists() and not data.is_dir():
        fail(f"--data {data} is not a directory")
    if existing and db is None:
        require_ladder(data)
    if not moved and (away := moved_away(sqlite_database(data, db))) is not None:
        fail(away)
    if existing and db is not None and missing_sqlite_file(db):
        fail(f"no ladder at {db} (no such database file)")
    made = first_missing(data)
    config = LadderConfig(data, db)
    database = sqlite_database(data, db) if write or upgrade else None
    if database is not None and database.is_file():
        wait_for_vacuum(database)
    try:
        make = open_db(config, upgrade)
        if database is not None:
            wait_for_vacuum(database)  # a new file: shared from now on, so that no vacuum starts under the command
        if write:
            check_writable(make)
        return make
    except (SQLAlchemyError, OSError, ImportError, CommandError, SchemaBehind, LadderBusy) as exc:  # ImportError: the URL's driver is not installed
        remove_made(made)  # no data folder left, made for a database that did not open
        reason = first_line(exc)
        if isinstance(exc, LadderBusy):  # `serve` of a newer Arena: the schema is changed once the older ladder is gone
            reason = f"its schema is older than this Arena's, to be brought up to date once it is free: {reason}"
        if isinstance(exc, ImportError):
            reason = f"its driver is not installed ({reason})"
        if isinstance(exc, NoSuchModuleError):  # postgres://, libpq's and Heroku's spelling: "Can't load plugin: sqlalchemy.dialects:postgres"
            scheme = config.db_url.partition(":")[0]
            reason = f"{scheme}:// names no database SQLAlchemy knows (PostgreSQL's is postgresql+psycopg://USER:PASSWORD@HOST/DB)"
        folder = (sqlite_file_of(config.db_url) or Path("/")).parent
        if not folder.is_dir():  # SQLite said only "unable to open database file", not which part of the path was wrong
            reason = f"{reason}: its folder {folder} does not exist (SQLite makes the file, not its folder)"
        if isinstance(exc, CommandError):  # Alembic: a schema revision not among ladder/migrations
            reason = f"its schema is not one this version of Arena knows ({reason}); was it upgraded by a newer Arena?"
        try:
            shown = make_url(config.db_url).render_as_string(hide_password=True)
        except SQLAlchemyError:
            shown = repr(config.db_url)
        fail(f"cannot open the database {shown}: {reason}")


def first_line(exc: BaseException) -> str:
    """The reason of a database error, without SQLAlchemy's statement and link."""
    return str(getattr(exc, "orig", None) or exc).splitlines()[0]


@contextlib.contextmanager
def database_errors() -> Iterator[None]:
    """A database that fails while a command reads or writes it (a damaged file, a server gone) is one line, not a traceback."""
    from sqlalchemy.exc import SQLAlchemyError

    try:
        yield
    except SQLAlchemyError as exc:
        fail(f"the database failed: {first_line(exc)}")


def missing_sqlite_file(url: str) -> bool:
    """Whether ``url`` names an SQLite file that is not there (opening it would make an empty one)."""
    path = sqlite_file_of(url)
    return path is not None and not path.is_file()


def sqlite_file_of(url: str) -> Path | None:
    """The SQLite file ``url`` names, or None for another database, one in memory or a URL that is not one."""
    from sqlalchemy import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        parsed = make_url(url)
    except ArgumentError:
        return None  # told when it is opened
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    path = sqlite_uri_path(parsed.database) if str(parsed.query.get("uri", "")).lower() in ("true", "1") else parsed.database
    return None if path is None else Path(path)


def sqlite_database(data: Path, db: str | None) -> Path | None:
    """The ladder's SQLite file (in the data folder unless --db names another), or None for another database."""
    from ladder.db import DB_FILE

    return data / DB_FILE if db is None else sqlite_file_of(db)


def wait_for_vacuum(database: Path) -> None:
    """Share the vacuum's lock of ``database`` (ladder/vacuum.py) until the command ends: while `arena ladder
    vacuum` rewrites the file, say so once and wait for it, rather than fail on SQLite's lock after 30 s."""
    from ladder.vacuum import share

    said: list[str] = []

    def waiting(why: str) -> None:
        err.print(f"[yellow]note:[/] {escape(why)}", soft_wrap=True, highlight=False)
        said.append(why)

    share(database, waiting)
    if said:
        err.print("the vacuum has ended: going on", soft_wrap=True)


def require_ladder(data: Path) -> None:
    """Fail unless the data folder ``data`` holds a ladder's SQLite database (a mistyped --data, or none given)."""
    from ladder.db import DB_FILE

    if not (data / DB_FILE).is_file():
        fail(f"no ladder in {data} (no {DB_FILE} there; --data names the folder `arena ladder serve` uses)")


def sqlite_uri_path(database: str) -> str | None:
    """The file an SQLite URI filename names (``file:/abs/ladder.db``, ``file:///abs/ladder.db``, ``file:rel.db``),
    or None for an in-memory database. SQLAlchemy hands ``?uri=true`` URLs to SQLite as they are."""
    from urllib.parse import unquote, urlsplit

    if not database.startswith("file:"):
        return database
    parts = urlsplit(database)
    if parts.path in ("", ":memory:") or "mode=memory" in parts.query:
        return None
    return unquote(parts.path)


NO_TOKEN = "give your API token with --token or ARENA_LADDER_TOKEN (an operator makes one: arena ladder user add NAME)"


def as_owner(server: str, path: str, token: str, answer_has: str, **kwargs: Any) -> Any:
    """An owner's POST: the token is required, and an answer without ``answer_has`` is the ladder's refusal, told."""
    if not token:
        fail(NO_TOKEN)
    reply = call("POST", server, path, token, **kwargs)
    if not isinstance(reply, dict) or answer_has not in reply:
        detail = reply.get("detail") if isinstance(reply, dict) else None
        fail(not_the_ladder(server) if detail is None else str(detail))
    return reply


def not_the_ladder(server: str) -> str:
    return f"{server} does not answer as the ladder does (is --server the ladder's address?)"


def rows_of(server: str, answer: Any) -> list[dict[str, Any]]:
    """``answer`` if it is a list of records, as the ladder's lists are; --json printed any JSON at all with exit 0."""
    if not isinstance(answer, list) or not all(isinstance(row, dict) for row in answer):
        fail(not_the_ladder(server))
    return answer


@contextlib.contextmanager
def ladder_answers(server: str) -> Iterator[None]:
    """Reading the ladder's answers: JSON of another shape (another service at --server) is one line, not a traceback."""
    try:
        yield
    except (KeyError, TypeError, AttributeError, ValueError, IndexError):
        fail(not_the_ladder(server))


class Unreachable(Exception):
    """The ladder could not be reached or failed (5xx): for a command that watches, worth trying again."""


def call(method: str, server: str, path: str, token: str | None = None, retry: bool = False, **kwargs: Any) -> Any:
    """The ladder's answer; any failure ends the command with its reason, except, with ``retry``, one worth
    trying again (no connection, a 5xx), which raises Unreachable."""
    import httpx  # here: the ladder's client is 0.04 s of imports every other command would pay

    if token and not (token.isascii() and token.isprintable()):  # httpx: a UnicodeEncodeError traceback, or "cannot reach"
        fail("--token is not an API token: it has characters no token has (a line break, a control character, a letter outside ASCII)")
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    if "://" not in server:  # "localhost:8765", as curl takes it: httpx wanted a protocol
        server = f"http://{server}"
    try:
        response = httpx.request(method, server.rstrip("/") + path, headers=headers, timeout=300, **kwargs)
    except httpx.InvalidURL as exc:
        fail(f"--server {server!r} is not an address: {exc}")
    except httpx.HTTPError as exc:
        if retry:
            raise Unreachable(f"cannot reach the ladder at {server}: {exc}") from None
        fail(f"cannot reach the ladder at {server}: {exc}")
    try:
        body = response.json()
    except ValueError:
        body = None
    wrong_server = not_the_ladder(server)
    if response.status_code >= 400 and response.status_code != 422:
        detail = body.get("detail") if isinstance(body, dict) else None
        said = f"{response.status_code}: {detail if detail is not None else wrong_server}"
        if retry and response.status_code >= 500:
            raise Unreachable(said)
        fail(said)
    if body is None:
        fail(wrong_server)
    return body


@ladder_app.command()
def serve(
    data: DataDir = DEFAULT_DATA,
    db: DbUrl = None,
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="HTTP port (0: a free one, named at start).", min=0, max=65535)] = 8765,
    workers: Annotated[int, typer.Option(help="Matches played at once.")] = 2,
    samples: Annotated[bool, typer.Option(help="Enter the sample bots of every game (of the --game ones, when given).")] = True,
    game: Annotated[list[str], typer.Option("--game", help="Schedule only these games (repeatable).")] = [],  # noqa: B006
    move_time_ms: MoveTimeMs = 1000,
    seed: Annotated[int | None, seed_option("Seed of the scheduler's choices.")] = None,
    lease_seconds: Annotated[float, typer.Option(help="How long a claimed match stays claimed without news from its worker.", min=1.0)] = 60.0,
    sandbox: Annotated[str, typer.Option(help="Run bots as processes or in Docker containers (`arena sandbox build` first, on every machine that plays).")] = "process",
    executor: Annotated[str, typer.Option(help="Who plays the matches: 'local' (this process, --workers at once) or 'dask' (a Dask cluster).")] = "local",
    dask_address: Annotated[str | None, typer.Option(help="With --executor dask: the address of a `dask scheduler`, e.g. tcp://host:8786 (its workers need --resources \"matches=N\").")] = None,
    dask_workers: Annotated[int, typer.Option(help="With --executor dask and no --dask-address: worker processes of a LocalCluster on this machine.")] = 2,
    matches_per_worker: Annotated[int, typer.Option(help="With a LocalCluster: matches each of its workers plays at once.")] = 1,
    keep: Annotated[str | None, typer.Option(help="Where replays and bot logs go: 'files' (the data folder) or 'database' (default: files for local, database for dask).")] = None,
    books_process: Annotated[bool, typer.Option(help="With --executor local: record results in a process of their own, so that the matches' referee does not wait for that work.")] = True,
    db_url_in_jobs: Annotated[bool, typer.Option(help="With --executor dask: send the database URL (password included) in every job; with --no-db-url-in-jobs every worker needs its own in ARENA_DB_URL.")] = True,
    suspend_after: Annotated[int, typer.Option(help="Suspend a bot version that forfeits this many finished matches in a row (crashed, never connected, over the strike limit); 0: never.", min=0)] = 5,  # ladder.suspension.SUSPEND_AFTER, not imported: it costs every command a second
    submissions_per_day: Annotated[int, typer.Option(help="Versions an owner may submit in any 24 hours (more are answered 429 saying when the next is taken); 0: no limit.", min=0)] = 20,  # ladder.submissions.SUBMISSIONS_PER_DAY, not imported, as above
    keep_retired: Annotated[int, typer.Option(help="Retired versions of each bot whose files the bot store keeps; older ones' folders are removed once no queued or playing match seats them (their replays, ratings and logs stay).", min=0)] = 10,  # ladder.retention.KEEP_RETIRED
    hold_missing_seconds: Annotated[float, typer.Option(help="How long a match waits for a bot version whose folder is gone from the bot store before it is cancelled (the version stays out of the draw until its folder is back); 0: for ever.", min=0.0)] = 3600.0,  # ladder.grounds.HOLD_MISSING_S
) -> None:
    """Run the ladder: HTTP API, scheduler and the dispatcher of matches to local workers or a Dask cluster."""
    import logging

    from ladder.service import Ladder, LadderConfig
    from referee.games.registry import GAMES
    from referee.server.session import TimeControl

    for g in game:
        if g not in GAMES:
            fail(f"unknown game {g!r} (games: {', '.join(GAMES)})")
    from referee.tournament.run import MAX_AT_ONCE

    if not 1 <= workers <= MAX_AT_ONCE:
        fail(f"--workers must be at least 1 and at most {MAX_AT_ONCE} (every match runs its bots' processes at once)")
    if executor not in ("local", "dask"):
        fail(f"unknown executor {executor!r} (local or dask)")
    if executor == "dask" and dask_address is None and not (1 <= dask_workers <= MAX_AT_ONCE and 1 <= matches_per_worker <= MAX_AT_ONCE):
        fail(f"--dask-workers and --matches-per-worker must be at least 1 and at most {MAX_AT_ONCE}")
    if executor == "local" and dask_address is not None:
        fail("--dask-address needs --executor dask")
    if dask_address is not None:
        from ladder.executors import address_problem

        if (problem := address_problem(dask_address)) is not None:
            fail(f"--dask-address {dask_address!r} is not a Dask scheduler's address: {problem} (e.g. tcp://HOST:8786)")
    if executor == "local" and not db_url_in_jobs:
        fail("--no-db-url-in-jobs needs --executor dask (local workers use the ladder's own connection)")
    if keep not in (None, "files", "database"):
        fail(f"unknown --keep {keep!r} (files or database)")
    if executor == "dask" and keep == "files" and dask_address is not None:
        fail("with workers on other machines, replays and logs must be kept in the database (--keep database)")
    if executor == "dask" and dask_address is not None and (db is None or db.startswith("sqlite")):
        err.print("[yellow]warning:[/] the workers write results to the database named by --db: SQLite works only if every worker is on this"
                  " machine; for workers elsewhere use a database server (--db postgresql+psycopg://USER:PASSWORD@HOST/DB)")
    from referee.core.game import OptionError
    from referee.server.runner import launcher_for

    try:
        launcher_for(sandbox)
    except OptionError as exc:
        fail(str(exc))
    if sandbox == "process" and not loopback(host):
        err.print(f"[yellow]warning:[/] --host {escape(host)} lets other machines reach this ladder, and its bots run as processes of this"
                  " user (--sandbox process): every owner with a token runs code here unconfined; for bots you do not trust"
                  " use --sandbox docker (docs/faults.md)", soft_wrap=True)
    # A vacuum of the SQLite file is waited for before the port is taken (ladder/vacuum.py): its pages answer nothing
    # meanwhile, and a port let go for the minutes of a vacuum (--port 0's, named in no banner yet) was another
    # program's to take, the ladder failing to listen after its banner once the vacuum ended.
    if (database := sqlite_database(data, db)) is not None and database.is_file():
        wait_for_vacuum(database)
    # Before a new ladder is made in --data, and the sample bots validated, for nothing. Port 0 becomes the free port
    # found here, so that the banner and the hold (which a second ladder is told of) name where the ladder answers;
    # the socket is held from here and handed to the HTTP server, so that nothing takes the port in between.
    listening = listen_or_exit(host, port)
    port = int(listening.getsockname()[1])
    with listening:  # closed on every way out: a refusal below (in a test's process too), or the ladder's end
        made = first_missing(data)
        # Before the database is opened: an older schema brought up to date is said (ladder/db.py, bring_up), in one line,
        # not Alembic's, which name each migration, of a new database too, and at every start the dialect they drive.
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
        logging.getLogger("alembic.runtime.migration").setLevel(logging.WARNING)
        make = open_ladder_db(data, db, write=True, upgrade=True)
        from ladder.hold import HoldLost, LadderBusy, check_free

        try:
            with database_errors():
                check_free(make)  # first: a second ladder started from another folder was told its store was wrong
        except LadderBusy as exc:
            remove_made(made)
            fail(str(exc))
        check_store(make, data, made, hold_missing_seconds)  # a wrong --db or --data is told here, not in a traceback from the service
        config = LadderConfig(
            data, db, host, port, workers, samples, list(game) or None, TimeControl(move_time_ms=move_time_ms), lease_seconds, seed, sandbox,
            executor=executor, dask_address=dask_address, dask_workers=dask_workers, matches_per_worker=matches_per_worker, keep=keep,
            db_url_in_jobs=db_url_in_jobs,
            recorder=books_process,
            suspend_after=suspend_after,
            submissions_per_day=submissions_per_day,
            keep_retired=keep_retired,
            hold_missing_seconds=hold_missing_seconds,
        )
        ladder = Ladder(config)
        try:
            with database_errors():
                ladder.hold.take()  # here rather than in the service: one line, before the banner
        except LadderBusy as exc:
            fail(str(exc))
        console.print(f"ladder: http://{host}:{port}  (API at /api, OpenAPI at /docs)  data: {data}  matches: {ladder.executor.describe()}", soft_wrap=True, markup=False)
        console.print(f"watch the standings: {watch_command(host, port)}", soft_wrap=True)
        from ladder.grounds import DatabaseReplaced

        try:
            running.run(ladder.run(listening=listening))
        except (KeyboardInterrupt, running.Terminated):  # Ctrl-C ended it without a word (SIGTERM's was only its name)
            err.print("ladder stopped: the matches it was playing were handed back, and its next start plays them", soft_wrap=True, markup=False)
            raise
        except (HoldLost, DatabaseReplaced) as exc:
            fail(f"the ladder stopped: {exc}", code=1)
        except (OSError, TimeoutError) as exc:
            if executor != "dask" or dask_address is not None:  # a scheduler out of reach is waited for (docs/deploy.md)
                raise
            fail(f"the ladder's Dask LocalCluster could not be started: {exc}")


def loopback(host: str) -> bool:
    """Whether ``host`` is an address only this machine reaches (a name other than localhost counts as reachable)."""
    import ipaddress

    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def watch_command(host: str, port: int) -> str:
    """The `standings --watch` that reaches a ladder listening on host:port: with --server unless that is the default."""
    client = {"0.0.0.0": "127.0.0.1", "": "127.0.0.1", "::": "::1"}.get(host, host)  # a wildcard is listened on, not called
    server = f"http://[{client}]:{port}" if ":" in client else f"http://{client}:{port}"
    command = "arena ladder standings GAME --watch"
    return command if server == DEFAULT_SERVER else f"{command} --server {server}"


def check_store(make: Any, data: Path, made: Path | None, hold_for: float) -> None:
    """Refuse a --data whose bot store holds none of the database's active versions (every match would fail); warn of a
    few, whose matches wait ``hold_for`` seconds at most (--hold-missing-seconds; ladder/grounds.py, MissingVersions)."""
    from ladder.grounds import held_for
    from ladder.submissions import missing_from_store

    with database_errors():
        missing, active = missing_from_store(make, data / "bots")
    if missing and len(missing) == active:
        remove_made(made)
        fail(f"the bot store {data / 'bots'} holds none of the database's {active} active bot versions (e.g. {missing[0]}):"
             " is --data the folder this ladder used with this database?")
    if missing:
        err.print(f"[yellow]warning:[/] the files of {len(missing)} active bot versions are gone from {escape(str(data / 'bots'))}"
                  f" ({escape(', '.join(missing[:5]))}): they are drawn for no match, and their queued matches wait for them,"
                  f" {held_for(hold_for)}", soft_wrap=True)


def on_owner(act: Callable[[Any, str], T], name: str, data: Path, db: str | None, existing: bool = True) -> T:
    """``act(session, name)`` on the ladder's database, its AccountError a one-line error."""
    from ladder.accounts import AccountError

    with database_errors(), open_ladder_db(data, db, existing=existing, write=True)() as session:
        try:
            return act(session, name)
        except AccountError as exc:
            fail(str(exc))


@ladder_app.command()
def submit(
    bot: Annotated[Path, typer.Argument(help="A bot directory or a .zip of one.")],
    server: Server = DEFAULT_SERVER,
    token: Token = "",
) -> None:
    """Upload a new version of your bot; it joins the ladder once its validation matches pass."""
    from arena.cli.stale import warn_stale_folder
    from ladder.upload import UploadError, bot_archive

    if not token:  # before the bot is read and zipped
        fail(NO_TOKEN)
    warn_stale_folder(bot)
    try:
        data = bot_archive(bot)
    except UploadError as exc:
        fail(str(exc))
    try:
        reply = as_owner(server, "/api/bots", token, "accepted", content=data)
    except KeyboardInterrupt:  # it went silent: whether the ladder had the upload, and went on validating it, was not said
        err.print(
            "stopped waiting: the ladder may have the upload and go on validating it without you; "
            "`arena ladder bot NAME` (the name in its bot.toml) says whether it joined", soft_wrap=True, markup=False,
        )
        raise
    from arena.cli.replay_text import printable, printable_log

    with ladder_answers(server):
        if reply["accepted"]:
            console.print(f"[green]accepted[/]: {escape(reply['bot'])} version {escape(reply['version'])} (#{reply['seq']}) {escape(reply['reason'] or 'is on the ladder')}")
            return
        # the ladder's text, never markup; it quotes the bot's note on a malformed answer, whose escape sequences are written out
        console.print(f"[red]rejected[/]: {escape(reply['bot'])} version {escape(reply['version'])}: {escape(printable(reply['reason']))}")
        if reply.get("log"):

            # lines whole, as the bot wrote them, but not its escape sequences: they would drive the reader's terminal
            console.print(printable_log(reply["log"][-4000:]), markup=False, highlight=False, soft_wrap=True)
    raise typer.Exit(1)


@ladder_app.command()
def standings(
    game: str,
    server: Server = DEFAULT_SERVER,
    watch: Annotated[bool, typer.Option("--watch", help="Keep the table up to date.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON (with --watch, one line per update).")] = False,
    interval: Annotated[float, typer.Option(help="Seconds between updates with --watch.", min=0.1)] = 2.0,
) -> None:
    """The leaderboard of one game, by conservative rating μ − 3σ."""
    with ladder_answers(server):
        from arena.cli.ladder_watch import show_standings

        show_standings(server, game, watch, as_json, interval)


@ladder_app.command()
def matches(
    server: Server = DEFAULT_SERVER,
    game: Annotated[str | None, typer.Option(help="Only this game.")] = None,
    bot: Annotated[str | None, typer.Option(help="Only matches of this bot.")] = None,
    limit: Annotated[int, typer.Option(help="How many (200 at most).", min=1, max=200)] = 20,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON (with --follow, one line per match).")] = False,
    follow: Annotated[bool, typer.Option("--follow", "-f", help="Print the last LIMIT matches, then each match once its result is known, until Ctrl-C.")] = False,
    interval: Annotated[float, typer.Option(help="Seconds between looks with --follow.", min=0.1)] = 2.0,
) -> None:
    """Recent matches with their results and verdicts."""
    from arena.cli.ladder_watch import MAX_FOLLOWED, Watcher, follow_matches, matches_table

    params: dict[str, Any] = {"limit": MAX_FOLLOWED if follow else limit}
    if game:
        params["game"] = game
    if bot:
        params["bot"] = bot
    rows = rows_of(server, call("GET", server, "/api/matches", params=params))
    with ladder_answers(server):
        if follow:
            try:
                follow_matches(rows, limit, Watcher(lambda: rows_of(server, call("GET", server, "/api/matches", params=params, retry=True))), interval, as_json)
            except KeyboardInterrupt:
                pass
            return
        if as_json:
            print(json.dumps(rows))
            return
        console.print(matches_table(rows))


@ladder_app.command()
def withdraw(
    bot: Annotated[str, typer.Argument(help="Your bot.")],
    server: Server = DEFAULT_SERVER,
    token: Token = "",
) -> None:
    """Take your bot off the ladder: it is scheduled no more (its matches already queued are played); submitting brings it back."""
    reply = as_owner(server, f"/api/bots/{quote(bot, safe='')}/withdraw", token, "seq")
    with ladder_answers(server):
        console.print(f"withdrawn: {reply['bot']} (version #{reply['seq']} retired); `arena ladder submit` brings it back")


@ladder_app.command()
def retire(name: Annotated[str, typer.Argument(help="Any bot.")], data: DataDir = DEFAULT_DATA, db: DbUrl = None) -> None:
    """Operator: take any bot off the ladder, on its database (no token); its owner's `withdraw` does the same."""
    from ladder.submissions import WithdrawalRefused, withdraw

    def retired(session: Any, bot: str) -> int:
        try:
            return withdraw(session, None, bot)
        except WithdrawalRefused as exc:
            fail(str(exc))

    seq = on_owner(retired, name, data, db)
    console.print(f"withdrawn: {name} (version #{seq} retired); a new submission by its owner brings it back")


@ladder_app.command()
def reinstate(name: Annotated[str, typer.Argument(help="A suspended bot.")], data: DataDir = DEFAULT_DATA, db: DbUrl = None) -> None:
    """Operator: put a bot the ladder suspended (it forfeited match after match) back on it, on its database (no token)."""
    from ladder.suspension import ReinstatementRefused, reinstate as reinstated

    def back(session: Any, bot: str) -> int:
        try:
            return reinstated(session, bot)
        except ReinstatementRefused as exc:
            fail(str(exc))

    seq = on_owner(back, name, data, db)
    console.print(f"reinstated: {name} (version #{seq} active); its forfeits so far no longer count towards a suspension")


@ladder_app.command("challenge")
def challenge_cmd(
    bot: Annotated[str, typer.Argument(help="Your bot.")],
    opponent: Annotated[str, typer.Argument(help="The bot to play.")],
    game: Annotated[str, typer.Option(help="The game.")],
    server: Server = DEFAULT_SERVER,
    token: Token = "",
) -> None:
    """Ask for a challenge: a duplicate pair between your bot and another, ahead of the queue."""
    reply = as_owner(server, "/api/challenges", token, "matches", json={"bot": bot, "opponent": opponent, "game": game})
    with ladder_answers(server):
        console.print(f"queued matches {', '.join(map(str, reply['matches']))}")


@ladder_app.command()
def backup(
    to: Annotated[Path, typer.Argument(help="A new (or empty) folder for the backup: a data folder `serve --data` can use.")],
    data: DataDir = DEFAULT_DATA,
    db: DbUrl = None,
) -> None:
    """Operator: copy the ladder (its database, bots, logs and replays) into a new folder, while it runs."""
    from ladder.backup import BackupError, back_up
    from ladder.db import default_url
    from ladder.transfer import moved_away

    if db is None:
        require_ladder(data)
    if (away := moved_away(sqlite_database(data, db))) is not None:
        fail(away)
    try:
        made = back_up(db or default_url(data), data, to)
    except (BackupError, OSError) as exc:
        fail(str(exc))
    if made.database:
        console.print(f"backed up {made.files} files into {to}; `arena ladder serve --data {to}` serves the copy", soft_wrap=True, markup=False)
    else:  # `serve --data TO` alone would start an empty ladder in a new SQLite file beside the copied bots
        console.print(f"backed up {made.files} files into {to}; with the database restored, `arena ladder serve --data {to} --db URL`"
                      " serves the copy", soft_wrap=True, markup=False)
        err.print("[yellow]note:[/] the database is not SQLite: back it up with its own tools (pg_dump for PostgreSQL, docs/deploy.md)", soft_wrap=True)


@ladder_app.command("check-ratings")
def check_ratings(data: DataDir = DEFAULT_DATA, db: DbUrl = None) -> None:
    """Rebuild every rating from the match log and compare with the stored ones."""
    from ladder.rebuild import check

    with database_errors():
        problems = check(open_ladder_db(data, db, existing=True))
    for p in problems:
        console.print(p)
    if problems:
        raise typer.Exit(1)
    console.print("ratings match the match log")



#: The longest age ``prune`` takes (a thousand years): its days are stored in an integer column.
MAX_DAYS = 365_000


@ladder_app.command()
def prune(
    logs_older_than: Annotated[int | None, typer.Option("--logs-older-than", metavar="DAYS", help="Remove the bots' logs of the matches finished more than DAYS days ago.", min=0, max=MAX_DAYS)] = None,
    replays_older_than: Annotated[int | None, typer.Option("--replays-older-than", metavar="DAYS", help="Remove the replays of the matches finished more than DAYS days ago.", min=0, max=MAX_DAYS)] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Say what would be removed, and remove nothing.")] = False,
    data: DataDir = DEFAULT_DATA,
    db: DbUrl = None,
) -> None:
    """Operator: remove the logs (and replays) of matches finished long ago, on the ladder's database and data folder (no token); results and ratings stay."""
    from ladder.prune import PruneError, prune as pruned

    if logs_older_than is None and replays_older_than is None:
        fail("give --logs-older-than DAYS, --replays-older-than DAYS or both")
    make = open_ladder_db(data, db, existing=True, write=not dry_run)
    try:
        with database_errors():
            done = pruned(make, data, logs_older_than, replays_older_than, dry_run=dry_run)
    except PruneError as exc:
        fail(str(exc))
    said = [f"the logs of {done.logs} matches"] if logs_older_than is not None else []
    said += [f"the replays of {done.replays} matches"] if replays_older_than is not None else []
    verb = "would remove" if dry_run else "removed"
    console.print(f"{verb} {' and '.join(said)}: {done.bytes} bytes" + (" (--dry-run: nothing removed)" if dry_run else ""), soft_wrap=True)
