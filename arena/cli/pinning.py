"""``--pin-cpus`` of ``arena match`` and ``arena tournament``: each process bot held to one CPU (referee/server/cpus.py)."""

from __future__ import annotations

from typing import Annotated

import typer

from arena.cli.failing import fail
from referee.server import cpus

PinCpus = Annotated[
    bool,
    typer.Option(
        "--pin-cpus",
        help="Hold each bot process, and all it starts, to one CPU (one of its own while there are enough), as a container "
        "is held to one: a bot that searches on many threads cannot take its opponent's cores. Linux only; --sandbox process.",
    ),
]


def check_pin_cpus(pin_cpus: bool, sandbox: str) -> None:
    """Refuse ``--pin-cpus`` where it would do nothing: with containers, or on a platform that cannot pin (macOS)."""
    if not pin_cpus:
        return
    if sandbox == "docker":
        fail("--pin-cpus is for --sandbox process: a container is held to one CPU already")
    if not cpus.available():
        fail(f"--pin-cpus is not available here: {cpus.UNAVAILABLE}")
