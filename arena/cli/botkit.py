"""``arena bot new``: starter kits, a working bot directory to build on, in Python or TypeScript.

A kit has a manifest, the bot (a random legal player to make smarter), a README and a test:
a pytest file for Python (the bot plays whole games, in this process and as `arena match`
runs it), a node test for TypeScript (the bot answers decisions recorded from a real game of
its own, each with one well-formed action, and a listed one when the referee listed them).
`arena match` runs the kit at once: the TypeScript kit is bundled when it is created.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from arena.cli.failing import fail
from arena.cli.folders import first_missing, remove_made
from referee.core.game import OptionError
from referee.games.registry import GAMES, game_class
from referee.server.manifest import NAME_RE, NAME_RULE

ROOT = Path(__file__).resolve().parents[2]
TS_SDK = ROOT / "sdk" / "typescript"
LANGS = ("python", "typescript")

bot_app = typer.Typer(help="Start a bot (a working directory to build on), and check it as the ladder will.", no_args_is_help=True)
console = Console()


class KitError(Exception):
    """A kit that cannot be made; the message says why."""


def class_name(name: str) -> str:
    """``my-bot`` -> ``MyBot`` (a valid identifier in Python and TypeScript)."""
    words = [w for w in re.split(r"[^A-Za-z0-9]+", name) if w]
    ident = "".join(w[:1].upper() + w[1:] for w in words) or "My"
    if ident[0].isdigit():
        ident = "Bot" + ident
    return ident if ident.endswith("Bot") else ident + "Bot"


def test_file(name: str) -> str:
    """``my-bot`` -> ``test_my_bot.py``: two kits' tests in one pytest run must not share a module name."""
    return "test_" + re.sub(r"[^A-Za-z0-9_]", "_", name) + ".py"


def ts_field(game: str) -> str:
    """The TypeScript SDK's name for a game: ``generals-war`` -> ``generalsWar``."""
    return re.sub(r"[-_]+([a-z0-9])", lambda m: m.group(1).upper(), game)


def seats_for(game: str) -> int:
    return min(game_class(game).spec.player_counts)


def match_command(game: str, directory: str) -> str:
    return f"arena match {game} " + " ".join([directory] * seats_for(game))


# --- the Python kit -------------------------------------------------------------------------

PY_BOT = '''"""__NAME__: a bot for __GAME_NAME__, made by `arena bot new`."""

from __future__ import annotations

import os
import random
from typing import Any

from arena.v1 import referee_pb2 as pb
from arena_sdk import Bot, Request, random_action, run


class __CLASS__(Bot):
    name = "__NAME__"  # for its log when run by hand; its version is bot.toml's (raise it there)

    def __init__(self, seed: int | str | None = None) -> None:
        self.seed = seed
        self.rng = random.Random(seed if seed is not None else os.environ.get("ARENA_BOT_SEED"))

    def on_start(self, start: pb.GameStart) -> None:
        # A process that plays several matches in a row (matches_per_process) is handed each one's seed in
        # ARENA_BOT_SEED: seed again at each new match (not a resumed one) so a match seed replays the same match.
        if self.seed is None and not start.resumed and os.environ.get("ARENA_BOT_SEED"):
            self.rng.seed(os.environ["ARENA_BOT_SEED"])

    def act(self, request: Request) -> Any:
        # request.view is what this seat knows now; request.kind names the decision and
        # request.choice holds its constraints; request.legal_actions lists every legal action
        # when there are at most 64 (else None). arena_sdk.games.__MODULE__ builds actions.
        # This plays a random legal action: make it smarter.
        return random_action(request, self.rng)


if __name__ == "__main__":
    run(__CLASS__())
'''

PY_TEST = '''"""Tests for __NAME__: `pytest` in this directory (with the arena environment's Python)."""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path
from typing import Any

from arena.cli.verdicts import verdicts_line
from referee.games.registry import game_class
from referee.server.inprocess import play
from referee.server.runner import MatchSetup, run_local_match
from referee.server.session import TimeControl
from referee.server.words import verdict_json

HERE = Path(__file__).resolve().parent
GAME = "__GAME__"
SEATS = min(game_class(GAME).spec.player_counts)


def bot_class() -> Any:
    spec = importlib.util.spec_from_file_location("__MODULE_NAME__", HERE / "bot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.__CLASS__


def test_it_plays_whole_games_without_a_penalty() -> None:
    """In this process, through the real referee session and SDK driver: quick, with tracebacks."""
    for seed in (1, 2, 3):
        game = game_class(GAME)(SEATS, seed)
        record = play(game, [bot_class()(seed * 10 + seat) for seat in range(SEATS)])
        assert record.game.is_over()
        for s in record.result.seats:  # the verdicts as `arena match` words them
            assert not s.verdicts, f"seed {seed}, seat {s.seat}: " + verdicts_line([verdict_json(v) for v in s.verdicts])


def test_it_plays_a_match_as_arena_match_runs_it(tmp_path: Path) -> None:
    """As its own processes over gRPC, one per seat, like `arena match`."""
    setup = MatchSetup(GAME, [HERE] * SEATS, 7, {}, TimeControl(), tmp_path / "logs")
    played = asyncio.run(run_local_match(setup))
    assert played.record.game.is_over()
    for seat in played.record.result.seats:
        log = played.logs[seat.seat].read_text(errors="replace") if played.logs[seat.seat].exists() else ""
        assert not seat.verdicts, log[-2000:]
'''

PY_README = """# __NAME__

A bot for __GAME_NAME__ (`__GAME__`), made by `arena bot new`. It plays a random
legal action: make `act` in `bot.py` smarter.

- `bot.toml` names the bot, its games and the command that starts it.
- `bot.py` is the bot: a subclass of `arena_sdk.Bot` (__DOCS__/bots.md). `request.view`
  is what the seat knows (the `View` of __PROTO__, whose comments say what each
  field holds), `request.kind` and `request.choice` the decision and its
  constraints, `request.legal_actions` every legal action when there are at most 64.
  `arena_sdk.games.__MODULE__` has the game's action builders and helpers, and
  __DOCS__/games/__GAME__.md the rules as the referee reads them.
- `__TEST_FILE__` plays whole games with the bot in every seat.

Play it and test it (with the arena environment, such as `.venv/bin/`):

    __MATCH__
    pytest __DIR__

`arena match __GAME__ __DIR__ __RANDOM__ ...` plays it against other bots
(one directory per seat; that one is the random sample bot, in Arena's sample_bots/). Before `arena ladder submit __DIR__`, `arena bot check __DIR__`
tells whether the ladder would take it (its validation matches, played here).
"""

# --- the TypeScript kit ---------------------------------------------------------------------

TS_BOT = """/**
 * __NAME__: a bot for __GAME_NAME__, made by `arena bot new`.
 *
 * request.view is what this seat knows now; request.kind names the decision and request.choice
 * holds its constraints (request.choiceFor("...") gives them typed; `const asked = request.asked` and a
 * `switch (asked.kind)` type asked.choice in each case); request.legalActions lists
 * every legal action when there are at most 64 (else null). `__FIELD__`, imported below, builds
 * actions and has the game's helpers (docs/typescript.md). This plays a random legal action: make it smarter.
 */

import { type ActionOf, Bot, type GameStart, __FIELD__, randomAction, Request, Rng } from "arena-sdk";

export class __CLASS__ extends Bot<"__GAME__"> {
  override name = "__NAME__"; // for its log when run by hand; its version is bot.toml's (raise it there)
  rng: Rng;

  constructor(readonly seed?: number | string) {
    super();
    this.rng = new Rng(seed ?? process.env.ARENA_BOT_SEED); // the same match seed replays the same match
  }

  // A process that plays several matches in a row (matches_per_process) is handed each one's seed in
  // ARENA_BOT_SEED: seed again at each new match (not a resumed one) so a match seed replays the same match.
  override onStart(start: GameStart): void {
    if (this.seed === undefined && !start.resumed && process.env.ARENA_BOT_SEED) this.rng = Rng.fromEnv();
  }

  act(request: Request<"__GAME__">): ActionOf<"__GAME__"> {
    return randomAction(request, this.rng);
  }
}
"""

TS_MAIN = """/** The bot's process: play the match the referee started it for. */

import { run } from "arena-sdk";

import { __CLASS__ } from "./bot.js";

void run(new __CLASS__());
"""

TS_TEST = """/**
 * Tests for __NAME__ (`npm test`, which builds first): the bot answers decisions recorded from
 * a real game of __GAME_NAME__ (fixtures.json, made by `arena bot new`) with one well-formed action
 * each, one of the listed actions when the referee listed them; then it plays a whole match in
 * every seat as `arena match` runs it, and the referee, which checks every action, penalises none.
 */

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { isDeepStrictEqual } from "node:util";

import { decodeBotMessage, decodeRefereeMessage, encodeBotMessage, Request, wrap } from "arena-sdk";

import { __CLASS__ } from "./bot.js";

const fixtures = JSON.parse(readFileSync(path.join(__dirname, "..", "fixtures.json"), "utf8")) as { start: string; requests: string[] };
const decode = (b64: string) => decodeRefereeMessage(Buffer.from(b64, "base64"));
const start = decode(fixtures.start).start!;
const requests = fixtures.requests.map((b64) => new Request<"__GAME__">(decode(b64).decision!, start));
/** An action as the referee weighs it: its lists (card ids, offers) are sets, so their order is left out. */
const unordered = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(unordered).sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1))
    : value !== null && typeof value === "object"
      ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, unordered(v)]))
      : value;

test("the fixtures hold decisions of __GAME__", () => {
  assert.equal(start.game, "__GAME__");
  assert.ok(requests.length > 0);
});

test("every decision gets one well-formed action, a listed one when actions are listed", async () => {
  const bot = new __CLASS__(1);
  for (const [i, request] of requests.entries()) {
    const action = await bot.act(request);
    // What the referee would read: the action through the wire format.
    const sent = decodeBotMessage(encodeBotMessage({ action: { requestId: request.requestId, action: wrap(action, start.game) } }));
    const read = sent.action?.action?.__FIELD__;
    const which = `request ${i} of fixtures.json (decision ${request.decisionIndex}: ${request.kind})`;
    assert.ok(read?.kind, `${which}: ${JSON.stringify(action)} is no action of __GAME__ (the SDK's ERROR line says why)`);
    const listed = request.legalActions;
    if (listed && !listed.some((a) => isDeepStrictEqual(unordered(a), unordered(read)))) {
      const like = listed.find((a) => a.kind === read.kind) ?? listed[0];
      assert.fail(`${which}: ${JSON.stringify(read)} is not one of its ${listed.length} legal actions, such as ${JSON.stringify(like)}`);
    }
  }
});

/** `arena`: ARENA_COMMAND, else the Python of the environment that made this kit, else the shell's `arena`. */
const PYTHON = __PYTHON__;
const ARENA = process.env.ARENA_COMMAND ? [process.env.ARENA_COMMAND] : existsSync(PYTHON) ? [PYTHON, "-m", "arena.cli.main"] : ["arena"];

/** The end of a log, about 2000 characters from a line's start (cut inside a line, "action rejected" read "ction rejected"). */
function lastLines(text: string): string {
  const cut = text.indexOf("\\n", text.length - 2000);
  return text.length <= 2000 ? text : cut < 0 ? text.slice(-2000) : text.slice(cut + 1);
}

test("it plays a whole match in every seat as arena match runs it, and no seat is penalised", (t) => {
  const here = path.join(__dirname, "..");
  const scratch = mkdtempSync(path.join(tmpdir(), "__NAME__-"));
  t.after(() => rmSync(scratch, { recursive: true, force: true }));
  const args = ["match", "__GAME__", ...Array<string>(__SEATS__).fill(here), "--seed", "7", "--json"];
  const played = spawnSync(ARENA[0]!, [...ARENA.slice(1), ...args, "--replay", path.join(scratch, "replay.json"), "--log-dir", path.join(scratch, "logs")], {
    encoding: "utf8",
  });
  if ((played.error as NodeJS.ErrnoException | undefined)?.code === "ENOENT") {
    t.skip(`no arena command (${ARENA.join(" ")}): set ARENA_COMMAND to Arena's arena to play whole matches here`);
    return;
  }
  assert.equal(played.status, 0, `arena match failed:\\n${played.stderr}`);
  const match = JSON.parse(played.stdout) as { seats: { seat: number; verdicts: { kind: string; detail: string }[]; log: string }[] };
  for (const seat of match.seats) {
    const log = existsSync(seat.log) ? lastLines(readFileSync(seat.log, "utf8")) : "";
    assert.deepEqual(seat.verdicts, [], `seat ${seat.seat} (seed 7): its log ends\\n${log}`);
  }
});
"""

TS_README = """# __NAME__

A TypeScript bot for __GAME_NAME__ (`__GAME__`), made by `arena bot new`. It plays a random
legal action: make `act` in `bot.ts` smarter.

- `bot.toml` names the bot, its games and the command that starts it (`node --enable-source-maps dist/main.js`).
- `bot.ts` is the bot: a subclass of `Bot<"__GAME__">` from the Arena TypeScript SDK
  (__DOCS__/typescript.md). `main.ts` runs it. `request.view` is what the seat knows: the `View` of
  __PROTO__, whose comments say what each field holds (its names in camelCase).
- `bot.test.ts` checks the bot's answers to decisions recorded from a real game
  (`fixtures.json`), then plays a whole match with the bot in every seat, as
  `arena match` does (with the Arena that made the kit, or `ARENA_COMMAND`).
- `npm run build` type-checks and bundles `main.ts` and `bot.test.ts` with the SDK
  (__SDK__) into `dist/`: one file each that needs only `node` at run time. Build again
  after every change: the referee runs `dist/main.js`. `npm test` builds first, so it
  never tests an old `dist/`.

Test (and build), then play, both from where `arena bot new` ran:

    (cd __DIR__ && npm test)
    __MATCH__

`arena match __GAME__ __DIR__ __RANDOM__ ...` plays it against other bots
(one directory per seat; that one is the random sample bot, in Arena's sample_bots/).
Before `arena ladder submit __DIR__`, `arena bot check __DIR__` tells whether the ladder
would take it (its validation matches, played here).
"""


def ts_tsconfig() -> str:
    config = {
        "compilerOptions": {
            "target": "es2022",
            "lib": ["es2022"],
            "module": "nodenext",
            "moduleResolution": "nodenext",
            "strict": True,
            "noImplicitOverride": True,
            "skipLibCheck": True,
            "noEmit": True,
            "types": ["node"],
            "typeRoots": [str(TS_SDK / "node_modules" / "@types")],
            "paths": {"arena-sdk": [str(TS_SDK / "src" / "index.ts")]},
        },
        "include": ["*.ts"],
    }
    return json.dumps(config, indent=2) + "\n"


def ts_package(name: str) -> str:
    bundle = TS_SDK / "scripts" / "bundle.mjs"
    package = {
        "name": name.lower(),
        "version": "0.1.0",
        "private": True,
        "type": "commonjs",
        # pretest: a test of the dist/ left by the last good build passed after an edit that does not even compile.
        # --enable-source-maps: a failure's stack named dist/bot.test.js:31215, a line of the bundle, not bot.ts:17.
        "scripts": {
            "build": f"node {bundle} main.ts bot.test.ts",
            "pretest": "npm run -s build",
            "test": "node --enable-source-maps --test dist/bot.test.js",
        },
    }
    return json.dumps(package, indent=2) + "\n"


# --- recorded decisions (the TypeScript kit's fixtures) -------------------------------------


def record_decisions(game: str, seed: int = 1, per_kind: int = 2) -> dict[str, Any]:
    """Seat 0's GameStart and some of its DecisionRequests, from two in-process games of random bots
    (one with actions listed as usual, one with none listed), as base64 RefereeMessage bytes."""
    import random

    from arena.v1 import referee_pb2 as pb
    from arena_sdk import Bot, Request, random_action
    from referee.server.inprocess import play

    class Recorder(Bot):
        name = "recorder"

        def __init__(self, seed: int) -> None:
            self.rng = random.Random(seed)

        def act(self, request: Request) -> Any:
            return random_action(request, self.rng)

    cls = game_class(game)
    seats = seats_for(game)
    field = game.replace("-", "_")
    start: list[str] = []
    requests: list[str] = []
    counts: dict[tuple[str, bool], int] = {}

    def on_send(seat: int, data: bytes) -> None:
        if seat != 0:
            return
        msg = pb.RefereeMessage.FromString(data)
        which = msg.WhichOneof("msg")
        if which == "start" and not start:
            start.append(base64.b64encode(data).decode())
        elif which == "decision":
            kind = str(getattr(msg.decision.decision, field).WhichOneof("kind"))
            key = (kind, msg.decision.legal_actions_listed)
            if counts.get(key, 0) < per_kind:
                counts[key] = counts.get(key, 0) + 1
                requests.append(base64.b64encode(data).decode())

    for list_limit in (64, 0):
        play(cls(seats, seed), [Recorder(seed * 10 + s) for s in range(seats)], on_send=on_send, list_limit=list_limit)
    return {"game": game, "start": start[0], "requests": requests}


# --- making kits ----------------------------------------------------------------------------


def fill(template: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        template = template.replace(f"__{key}__", value)
    return template


def manifest(name: str, game: str, language: str, command: list[str]) -> str:
    return (
        "# Made by `arena bot new`: the bot's name, version, language, games and the command that\n"
        f"# starts it, run in this directory ({ROOT / 'docs' / 'bots.md'}).\n"
        f'name = "{name}"\nversion = "0.1.0"\nlanguage = "{language}"\ngames = ["{game}"]\n'
        f"command = {json.dumps(command)}\n"
    )


def check_node() -> str:
    node = shutil.which("node")
    if node is None:
        raise KitError("a TypeScript bot needs Node.js (node 20 or later) on PATH")
    if not (TS_SDK / "node_modules" / "esbuild").is_dir():
        raise KitError(f"the TypeScript SDK's packages are not installed: run `npm ci` in {TS_SDK} (scripts/setup.sh does)")
    return node


def create_kit(name: str, game: str, lang: str, directory: Path) -> list[Path]:
    """Write a kit into ``directory`` (new or empty); returns the files written."""
    if not NAME_RE.match(name):
        raise KitError(f"name {name!r} {NAME_RULE}")
    try:
        spec = game_class(game).spec
    except OptionError as exc:
        raise KitError(str(exc)) from None
    if lang not in LANGS:
        raise KitError(f"--lang must be one of {', '.join(LANGS)}, not {lang!r}")
    if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
        raise KitError(f"{directory} already exists and is not an empty directory")
    node = check_node() if lang == "typescript" else ""
    values = {
        "NAME": name,
        "CLASS": class_name(name),
        "GAME": game,
        "GAME_NAME": spec.name,
        "MODULE": game.replace("-", "_"),
        "MODULE_NAME": f"{name.replace('-', '_').replace('.', '_')}_bot",
        "FIELD": ts_field(game),
        "DIR": shlex.quote(str(directory)),  # the README's commands, as a shell takes a folder with a space in its name
        "MATCH": match_command(game, shlex.quote(str(directory))),
        "SDK": str(TS_SDK),
        "DOCS": str(ROOT / "docs"),  # in full, as RANDOM: a kit is made anywhere
        "PROTO": str(ROOT / "proto" / "arena" / "v1" / f"{game.replace('-', '_')}.proto"),
        "RANDOM": shlex.quote(str(ROOT / "sample_bots" / "random")),  # in full: a kit is made anywhere
        "TEST_FILE": test_file(name),
        "SEATS": str(seats_for(game)),
        "PYTHON": json.dumps(sys.executable),  # the TypeScript kit's test plays a match with this environment's arena
    }
    if lang == "python":
        files = {
            "bot.toml": manifest(name, game, "python", ["python", "bot.py"]),
            "bot.py": fill(PY_BOT, values),
            test_file(name): fill(PY_TEST, values),
            "README.md": fill(PY_README, values),
        }
    else:
        files = {
            "bot.toml": manifest(name, game, "typescript", ["node", "--enable-source-maps", "dist/main.js"]),
            "bot.ts": fill(TS_BOT, values),
            "main.ts": fill(TS_MAIN, values),
            "bot.test.ts": fill(TS_TEST, values),
            "fixtures.json": json.dumps(record_decisions(game), indent=1) + "\n",
            "package.json": ts_package(name),
            "tsconfig.json": ts_tsconfig(),
            "README.md": fill(TS_README, values),
        }
    made = first_missing(directory)
    try:
        return write_kit(directory, files, node)
    except BaseException as exc:  # no half-made kit is left: the directory goes back to missing or empty
        remove_made(made) if made is not None else empty(directory)
        if isinstance(exc, OSError):
            raise KitError(f"cannot write the kit in {directory}: {exc.strerror or exc}") from None
        raise


def write_kit(directory: Path, files: dict[str, str], node: str) -> list[Path]:
    """Write ``files`` into ``directory``, then bundle a TypeScript kit (``node`` given); returns the files written."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for file, text in files.items():
        (directory / file).write_text(text, encoding="utf-8")
        written.append(directory / file)
    if node:
        build = subprocess.run(
            [node, str(TS_SDK / "scripts" / "bundle.mjs"), "main.ts", "bot.test.ts"], cwd=directory, capture_output=True, text=True
        )
        if build.returncode != 0:
            raise KitError(f"bundling the bot failed:\n{build.stdout}{build.stderr}")
        written.append(directory / "dist" / "main.js")
    return written


def empty(directory: Path) -> None:
    """Remove everything in ``directory`` (one that was empty before the kit was written into it)."""
    for child in directory.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child, ignore_errors=True)
        else:
            child.unlink(missing_ok=True)


def not_on_path(tools: list[str]) -> Path | None:
    """The folder of this environment's ``tools`` when the shell finds other ones, or none, under their bare names:
    arena run as ``.venv/bin/arena`` printed ``pytest my-bot``, and the shell's pytest, another Python's, failed to
    import the kit's test (no arena package there) while ``arena match`` was not found at all."""
    here = Path(sys.executable).parent
    for tool in tools:
        own, found = here / tool, shutil.which(tool)
        if own.is_file() and (found is None or not os.path.samefile(found, own)):
            return here
    return None


@bot_app.command("new")
def new(
    name: Annotated[str, typer.Argument(help="The bot's name: letters, digits, '_', '.', '-'.")],
    game: Annotated[str, typer.Option("--game", "-g", help=f"The game it plays: {', '.join(GAMES)}.")],
    lang: Annotated[str, typer.Option("--lang", "-l", help="python or typescript.")] = "python",
    directory: Annotated[Path | None, typer.Option("--dir", help="Where to make it (default: ./NAME); new or empty.")] = None,
) -> None:
    """Make a working bot directory: manifest, a random legal bot to build on, a README and a test."""
    where = directory if directory is not None else Path(name)
    try:
        written = create_kit(name, game, lang, where)
    except KitError as exc:
        fail(str(exc))
    # soft_wrap: each line whole, for the terminal to wrap; rich broke a long path at 80 columns, and a command's
    # end (or a comment's, "before arena match") began the next line as if a command of its own.
    console.print(f"made {lang} bot [bold]{escape(name)}[/] for {game} in {escape(str(where))}/:", soft_wrap=True)
    for path in written:
        console.print(f"  {path.relative_to(where)}", soft_wrap=True, markup=False)
    tools = ["pytest", "arena"] if lang == "python" else ["arena"]
    elsewhere = not_on_path(tools)
    if elsewhere is not None:
        which = "are those" if len(tools) > 1 else "is the one"
        said = f"{' and '.join(tools)} below {which} in {elsewhere}, which your shell does not find first"
        console.print(f"{said}: export PATH={shlex.quote(str(elsewhere))}:$PATH", soft_wrap=True, markup=False)
    console.print("try it:")
    typed = shlex.quote(str(where))  # a folder with a space in its name, as a shell takes it
    if lang == "typescript":
        console.print(f"  (cd {typed} && npm test)   # builds, then tests", soft_wrap=True, markup=False)
        console.print(f"  (cd {typed} && npm run build)   # after each change, before arena match", soft_wrap=True, markup=False)
    else:
        console.print(f"  pytest {typed}", soft_wrap=True, markup=False)
    console.print(f"  {match_command(game, typed)}", soft_wrap=True, markup=False)
    console.print(f"  arena bot check {typed}   # would the ladder take it? before arena ladder submit", soft_wrap=True, markup=False)


