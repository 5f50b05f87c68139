"""Every ``arena`` command line the docs show parses against the real CLI.

README.md and docs/*.md (not docs/benchmarks.md, not docs/games/) show ``arena ...``
and ``.venv/bin/arena ...`` lines in code blocks and inline backticks; an option renamed or
removed left them wrong with nothing to say so. Each line is split with shlex, walked down
Typer's Click tree to its subcommand and parsed with ``make_context``: an unknown command or
option, a value of the wrong type or out of range, or a missing required argument fails, naming
the doc's file and line (the CLI has no Choice parameters: ``--sandbox``, ``--format``,
``--executor`` and ``--lang`` are text its commands check when run, out of reach here). Nothing is
run: ``make_context`` parses and converts, it does not invoke (an eager ``--help`` or
``--version`` ends the parse with ``Exit``, taken as a pass: it is what the real command does).
Typer parses with its own copy of Click (``typer._click``), so the walk uses its classes.

Filesystem: no parameter of the CLI checks a path's existence or opens a file (checked below,
so a new one shows here: it would need relaxing); the parse runs from the repository's root all
the same, so relative paths such as ``sample_bots/random`` mean what the docs mean.

How a doc line is read (each a doc convention, not a way around a failure):
- ``VAR=value`` before ``arena`` is the environment, dropped;
- ``# ...`` ends the command (shlex comments), ``\\`` at a line's end joins the next;
- a token ``...`` or ``…`` (and ``[options]``) elides arguments: the rest is parsed, but a
  missing required argument is then not an error (Click converts the given values first);
- an upper-case token (``N``, ``MATCH``, ``BOT_DIR...``, ``http://127.0.0.1:PORT`` is left as it
  is) is a placeholder for a value: parsed as ``1``, which every int, float or text parameter takes;
- ``[--flag VALUE]`` marks optional parts: the brackets are dropped and the parts parsed;
- ``a|b`` as one token offers alternatives: each one is parsed;
- an inline span is prose naming a command and some of its options (`` `arena match` ``,
  `` `arena replay --text` ``, `` `--connect-timeout-s` `` at its end with no value): the command
  must resolve and the options exist and take what is given, but a missing required argument,
  or a last option's missing value, is not an error.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import typer
from typer._click.core import Command, Context, Parameter
from typer._click.exceptions import ClickException, MissingParameter, UsageError
from typer._click.types import File
from typer.core import TyperGroup

from arena.cli.main import app

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").glob("*.md") if p.name != "benchmarks.md")]
ELISIONS = {"...", "…", "[options]"}
ENV = re.compile(r"^(?:[A-Z_][A-Z0-9_]*=\S*\s+)+")
PROGRAM = re.compile(r"^(?:\.venv/bin/)?arena(?:\s|$)")
INLINE = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.DOTALL)
PLACEHOLDER = re.compile(r"^[A-Z][A-Z0-9_]*(?:\.\.\.)?$")
PLACEHOLDER_VALUE = "1"
FENCE = re.compile(r"^\s*(```|~~~)")
CLI = typer.main.get_command(app)


@dataclass(frozen=True)
class DocCommand:
    file: str
    line: int
    text: str
    inline: bool

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


def _command(text: str) -> str | None:
    """The command of a code line or inline span, without the environment before it; None if no arena command."""
    text = ENV.sub("", text.strip())
    return text if PROGRAM.match(text) else None


def _code_lines(lines: list[str]) -> Iterator[tuple[int, str]]:
    """Fenced and indented code lines (1-based numbers), backslash continuations joined."""
    fenced = False
    indented = False
    pending: tuple[int, str] | None = None
    for number, line in enumerate(lines, 1):
        if FENCE.match(line):
            fenced = not fenced
            indented = False
            continue
        blank = not line.strip()
        if not fenced:
            indented = (line.startswith(("    ", "\t")) and (indented or number == 1 or not lines[number - 2].strip())) or (
                indented and blank
            )
        if not (fenced or indented):
            continue
        if pending is not None:
            start, text = pending
            pending = None
            line = text + " " + line.strip()
            number = start
        if line.rstrip().endswith("\\"):
            pending = (number, line.rstrip()[:-1])
            continue
        yield number, line


def _prose(lines: list[str]) -> Iterator[tuple[int, str]]:
    """Paragraphs outside code blocks with the number of their first line, for inline spans that wrap."""
    code = {number for number, _ in _code_lines(lines)}
    fenced = False
    paragraph: list[str] = []
    start = 0
    for number, line in enumerate(lines, 1):
        fence = bool(FENCE.match(line))
        if fence:
            fenced = not fenced
        if fence or fenced or number in code or not line.strip():
            if paragraph:
                yield start, "\n".join(paragraph)
            paragraph = []
            continue
        if not paragraph:
            start = number
        paragraph.append(line)
    if paragraph:
        yield start, "\n".join(paragraph)


def doc_commands() -> Iterator[DocCommand]:
    for path in DOCS:
        name = str(path.relative_to(ROOT))
        lines = path.read_text(encoding="utf-8").splitlines()
        for number, line in _code_lines(lines):
            text = _command(line)
            if text is not None:
                yield DocCommand(name, number, text, inline=False)
        for start, paragraph in _prose(lines):
            for match in INLINE.finditer(paragraph):
                text = _command(" ".join(match.group(2).split()))
                if text is not None:
                    yield DocCommand(name, start + paragraph.count("\n", 0, match.start()), text, inline=True)


COMMANDS = list(doc_commands())


def _variants(tokens: list[str]) -> list[list[str]]:
    """One argument list per alternative of each ``a|b`` token (the alternatives vary together)."""
    choices = [token.split("|") if "|" in token and not token.startswith("|") else [token] for token in tokens]
    width = max((len(options) for options in choices), default=1)
    return [[options[min(i, len(options) - 1)] for options in choices] for i in range(width)]


def _parse(doc: DocCommand) -> None:
    tokens = shlex.split(doc.text, comments=True)[1:]
    elided = any(token in ELISIONS for token in tokens)
    tokens = [token.strip("[]") for token in tokens if token not in ELISIONS]
    tokens = [PLACEHOLDER_VALUE if PLACEHOLDER.match(token) else token for token in tokens if token]
    for args in _variants(tokens):
        _walk(args, elided=elided or doc.inline, reference=doc.inline)


def _walk(args: list[str], *, elided: bool, reference: bool) -> None:
    command: Command = CLI
    name = "arena"
    parent: Context | None = None
    while isinstance(command, TyperGroup):
        options = []
        while args and args[0].startswith("-"):
            options.append(args.pop(0))
        try:
            ctx = command.make_context(name, options, parent=parent) if options else Context(command, info_name=name, parent=parent)
        except typer.Exit:
            return
        if not args:
            if reference or options:  # `arena ladder`, `arena --version`: a group named, or its own option
                return
            raise UsageError(f"{ctx.command_path}: no subcommand")
        found, sub, args = command.resolve_command(ctx, args)
        assert found is not None and sub is not None
        name, command, parent = found, sub, ctx
    if reference and not args:
        return
    if reference and args[-1].startswith("-") and not _takes_no_value(command, args[-1]):
        args = [*args, PLACEHOLDER_VALUE]
    try:
        command.make_context(name, args, parent=parent)
    except typer.Exit:
        return
    except MissingParameter:
        if not elided:
            raise


def _takes_no_value(command: Command, option: str) -> bool:
    """Whether ``option`` is a flag of ``command`` (an unknown one is left for the parse to refuse)."""
    for param in command.params:
        if option in (*param.opts, *param.secondary_opts):
            return bool(getattr(param, "is_flag", False) or getattr(param, "count", False))
    return True


@pytest.mark.parametrize("doc", COMMANDS, ids=str)
def test_doc_command_parses(doc: DocCommand, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    try:
        _parse(doc)
    except ClickException as exc:
        pytest.fail(f"{doc}: {doc.text}\n  {type(exc).__name__}: {exc.format_message()}")
    except ValueError as exc:  # some of Typer's conversions (a parameter's own parser) raise it bare
        pytest.fail(f"{doc}: {doc.text}\n  {type(exc).__name__}: {exc}")


def _params(command: Command) -> Iterator[Parameter]:
    yield from command.params
    if isinstance(command, TyperGroup):
        for sub in command.commands.values():
            yield from _params(sub)


def test_no_parameter_touches_the_filesystem() -> None:
    # The docstring's promise: were one added, doc paths such as path/to/bot would fail to parse, or a file be opened.
    touching = [param.name for param in _params(CLI) if isinstance(param.type, File) or getattr(param.type, "exists", False)]
    assert touching == []


def test_the_docs_show_commands() -> None:
    # An extraction that found nothing would pass every parametrized case vacuously.
    assert len({doc.file for doc in COMMANDS}) >= 6
    assert sum(not doc.inline for doc in COMMANDS) >= 30


@pytest.mark.parametrize(
    "text",
    [
        "arena match generals-war a b --no-such-option",  # unknown option
        "arena ladder serve --port 70000",  # out of the option's range
        "arena ladder user add",  # a required argument missing
        "arena ladder no-such-command",
    ],
)
def test_a_wrong_command_fails(text: str) -> None:
    # The walk reaches the subcommand and Click's checks bite: without this, a walk that stopped at
    # the top group passed every doc line.
    with pytest.raises(UsageError):
        _parse(DocCommand("example.md", 1, text, inline=False))
