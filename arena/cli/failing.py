"""How an ``arena`` command refuses: the reason on one line of standard error, then exit code 2 (or the one given)."""

from __future__ import annotations

from typing import NoReturn

import typer
from rich.console import Console
from rich.markup import escape

err = Console(stderr=True)


def fail(message: str, code: int = 2) -> NoReturn:
    err.print(f"[bold red]error:[/] {escape(message)}", soft_wrap=True)  # one line, however long; escaped: "[/x]" in a name raised MarkupError
    raise typer.Exit(code)
