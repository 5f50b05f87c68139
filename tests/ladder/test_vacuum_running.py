"""A ladder (or a command that writes) started while `arena ladder vacuum` rewrites its SQLite file waits for the
vacuum to end, saying once what it waits for; it waited on SQLite's lock for 30 s and failed ("database is locked").

The vacuum is held in progress, SQLite's write lock taken, by its test hook (ladder/vacuum.py, PAUSE_ENV): real
processes, and no vacuum of a file big enough to last."""

from __future__ import annotations

import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from ladder.db import DB_FILE
from ladder.vacuum import PAUSE_ENV
from tests.ladder.test_cli import arena
from tests.ladder.test_durability import ARENA
from tests.support import stop_if_running
from tests.waiting import wait_for


class Run:
    """A command run as a process of its own, its output in files that are read while it runs."""

    def __init__(self, folder: Path, name: str, *args: str, env: dict[str, str] | None = None) -> None:
        import os

        self.out, self.err = folder / f"{name}.out", folder / f"{name}.err"
        with self.out.open("wb") as out, self.err.open("wb") as err:
            self.proc = subprocess.Popen(ARENA + list(args), stdout=out, stderr=err, env={**os.environ, **(env or {})})

    def said(self) -> str:
        return " ".join((self.out.read_text(errors="replace") + self.err.read_text(errors="replace")).split())

    def ended(self, timeout: float = 120) -> int:
        return self.proc.wait(timeout=timeout)


@pytest.fixture
def paused(tmp_path: Path) -> Iterator[tuple[Path, Run]]:
    """A ladder's data folder and `arena ladder vacuum` on it, paused inside SQLite's VACUUM until ``go`` is made."""
    data = tmp_path / "data"
    arena("ladder", "user", "add", "alice", "--data", str(data))
    gate = tmp_path / "gate"
    gate.mkdir()
    vacuum = Run(tmp_path, "vacuum", "ladder", "vacuum", "--data", str(data), env={PAUSE_ENV: str(gate)})
    try:
        wait_for("the vacuum to hold the database", lambda: (gate / "paused").exists() or vacuum.proc.poll() is not None)
        assert vacuum.proc.poll() is None, vacuum.said()
        yield data, vacuum
    finally:
        (gate / "go").touch()
        stop_if_running(vacuum.proc)


def go(data: Path) -> None:
    (data.parent / "gate" / "go").touch()


def test_a_command_that_writes_waits_for_the_vacuum_and_says_so(paused: tuple[Path, Run], tmp_path: Path) -> None:
    data, vacuum = paused
    add = Run(tmp_path, "add", "ladder", "user", "add", "bob", "--data", str(data))
    try:
        wait_for("the command to say what it waits for", lambda: "waiting" in add.said() or add.proc.poll() is not None)
        assert add.proc.poll() is None, add.said()
        said = add.said()
        assert "arena ladder vacuum" in said and f"pid {vacuum.proc.pid}" in said and str(data / DB_FILE) in said, said
        go(data)
        assert add.ended() == 0, add.said()
        assert vacuum.ended() == 0 and "bytes before" in vacuum.said(), vacuum.said()
    finally:
        stop_if_running(add.proc)
    assert add.said().count("waiting") == 1, add.said()
    assert "bob" in arena("ladder", "user", "list", "--data", str(data))


def test_a_ladder_waits_for_the_vacuum_then_serves_and_a_vacuum_is_refused_while_it_does(paused: tuple[Path, Run], tmp_path: Path) -> None:
    data, vacuum = paused
    serve = Run(tmp_path, "serve", "ladder", "serve", "--data", str(data), "--port", "0", "--no-samples")
    try:
        wait_for("the ladder to say what it waits for", lambda: "waiting" in serve.said() or serve.proc.poll() is not None)
        assert serve.proc.poll() is None and "ladder: http" not in serve.said(), serve.said()
        assert f"`arena ladder vacuum` (pid {vacuum.proc.pid}" in serve.said(), serve.said()
        go(data)
        assert vacuum.ended() == 0, vacuum.said()
        wait_for("the ladder to serve", lambda: "ladder: http" in serve.said() or serve.proc.poll() is not None)
        assert serve.proc.poll() is None, serve.said()
        again = Run(tmp_path, "again", "ladder", "vacuum", "--data", str(data))
        assert again.ended() == 2 and "another ladder serves this database" in again.said(), again.said()
    finally:
        stop_if_running(serve.proc)


def test_a_port_taken_while_the_ladder_waited_for_the_vacuum_is_told_before_its_banner(paused: tuple[Path, Run], tmp_path: Path) -> None:
    """`serve` tried its port, let it go, and then waited for the vacuum, minutes of a big file: a program that took the
    port meanwhile (--port 0's above all, named nowhere yet) left the ladder printing its banner, taking the database's
    hold and only then failing to listen. The port is taken once the vacuum is over, and one taken meanwhile is told
    in one line, exit 2, with no banner."""
    data, _ = paused
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    serve = Run(tmp_path, "serve", "ladder", "serve", "--data", str(data), "--port", str(port), "--no-samples")
    try:
        wait_for("the ladder to say what it waits for", lambda: "waiting" in serve.said() or serve.proc.poll() is not None)
        assert serve.proc.poll() is None, serve.said()
        with socket.socket() as other:  # the ladder holds no port while it waits: another program takes this one
            other.bind(("127.0.0.1", port))
            other.listen()
            go(data)
            assert serve.ended() == 2, serve.said()
        assert f"cannot listen on 127.0.0.1:{port}" in serve.said(), serve.said()
        assert "ladder: http" not in serve.said(), serve.said()
    finally:
        stop_if_running(serve.proc)


def test_a_second_vacuum_is_refused_at_once_naming_the_first(paused: tuple[Path, Run], tmp_path: Path) -> None:
    data, vacuum = paused
    second = Run(tmp_path, "second", "ladder", "vacuum", "--data", str(data))
    assert second.ended() == 2, second.said()
    assert f"`arena ladder vacuum` (pid {vacuum.proc.pid}" in second.said(), second.said()
    go(data)
    assert vacuum.ended() == 0, vacuum.said()
