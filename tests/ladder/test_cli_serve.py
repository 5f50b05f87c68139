"""`arena ladder serve` in the terminal: what it refuses before serving, its banner and warnings, and how it stops."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from tests.ladder.conftest import LadderFixture
from tests.support import SAMPLE_BOTS, stop_if_running

runner = CliRunner()


def test_a_serve_refused_after_taking_its_port_lets_the_port_go(tmp_path: Path) -> None:
    """`serve` holds its port from the start until its HTTP server serves on it; refused on the way (a database that
    does not open), the port is let go at once, not left listening for as long as the command's process lives."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    result = CliRunner().invoke(app, ["ladder", "serve", "--data", str(tmp_path / "d"), "--port", str(port), "--no-samples",
                                      "--db", "postgresql+psycopg://ann@127.0.0.1:1/x"])
    assert result.exit_code == 2 and "cannot open the database" in result.output, result.output
    with socket.socket() as after:  # no SO_REUSEADDR: refused while any socket still listens there
        after.bind(("127.0.0.1", port))
        after.listen()


def test_sigterm_stops_the_ladder_after_its_clean_up(tmp_path: Path) -> None:
    """A service manager stops the ladder with SIGTERM: the HTTP server, the matches' bots and the books end first."""
    import os
    import signal
    import sqlite3
    import subprocess
    import sys
    import urllib.request

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    data = tmp_path / "data"
    serve = subprocess.Popen(
        [sys.executable, "-m", "arena.cli.main", "ladder", "serve", "--data", str(data), "--port", str(port), "--game", "generals-war"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )  # fmt: skip

    def played() -> int:
        try:
            with sqlite3.connect(data / "ladder.db") as db:
                return int(db.execute("select count(*) from matches where status = 'done'").fetchone()[0])
        except sqlite3.Error:
            return 0

    try:
        deadline = time.monotonic() + 180  # its start validates the sample bots: over a minute on a busy machine
        while played() < 4 and time.monotonic() < deadline and serve.poll() is None:
            time.sleep(0.2)
        assert played() >= 4, serve.communicate(timeout=5)[0].decode(errors="replace") if serve.poll() is not None else "no match played"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/games") as answer:
            assert answer.status == 200
        serve.send_signal(signal.SIGTERM)
        out = serve.communicate(timeout=60)[0].decode(errors="replace")
    finally:
        stop_if_running(serve)
    assert serve.returncode == 128 + signal.SIGTERM, out
    assert "Traceback" not in out, out
    assert "ladder stopped: the matches it was playing were handed back" in out, out
    with sqlite3.connect(data / "ladder.db") as db:
        assert db.execute("select count(*) from matches where status = 'running'").fetchone()[0] == 0  # handed back
    store = str(data.resolve())
    left = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.readlink(f"/proc/{pid}/cwd").startswith(store):
                left.append(pid)
        except OSError:
            continue
    assert left == [], "bot processes outlived the ladder"


def test_serve_refuses_a_data_folder_that_holds_none_of_the_databases_bots(ladder: LadderFixture, tmp_path: Path) -> None:
    """`serve --db postgresql://...` from another directory (its --data left out, so ./arena-data) found none of the
    database's bot versions in its store and failed every match it handed out: thousands in a minute, each rated as lost."""
    import shutil

    from ladder.submissions import missing_from_store
    from tests.ladder.conftest import enter

    enter(ladder.ladder, [SAMPLE_BOTS / "generals_war_greedy", SAMPLE_BOTS / "random"], validate=False)
    url = ladder.ladder.config.db_url
    elsewhere = tmp_path / "elsewhere"
    result = runner.invoke(app, ["ladder", "serve", "--data", str(elsewhere), "--db", url, "--no-samples", "--port", "0"])
    assert result.exit_code == 2, result.output
    assert "holds none of the database's 2 active bot versions" in " ".join(result.output.split()), result.output
    assert not elsewhere.exists(), "no data folder is left behind"
    store = ladder.ladder.store
    assert missing_from_store(ladder.make, store) == ([], 2)
    shutil.rmtree(store / "random")
    assert missing_from_store(ladder.make, store) == (["random 1.0.0"], 2)


@pytest.mark.parametrize("host, warned", [("127.0.0.1", False), ("localhost", False), ("::1", False), ("0.0.0.0", True), ("10.1.2.3", True), ("ladder.example", True)])
def test_a_ladder_open_to_other_machines_with_unconfined_bots_is_told_to_use_docker(host: str, warned: bool) -> None:
    """Owners' uploads run as this user's processes under --sandbox process; reachable from elsewhere, say so."""
    from arena.cli.ladder import loopback

    assert loopback(host) is not warned


def test_serve_on_every_address_with_process_bots_warns_before_its_banner(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys

    serve = subprocess.Popen(
        [sys.executable, "-m", "arena.cli.main", "ladder", "serve", "--data", str(tmp_path / "data"), "--host", "0.0.0.0", "--port", "0", "--no-samples"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1", "COLUMNS": "400"},
    )  # fmt: skip
    try:
        assert serve.stdout is not None
        lines = [serve.stdout.readline().decode(errors="replace") for _ in range(2)]
        assert lines[0].startswith("warning: --host 0.0.0.0 lets other machines reach this ladder") and "--sandbox docker" in lines[0], lines
        assert lines[1].startswith("ladder: http://0.0.0.0:"), lines
        serve.send_signal(signal.SIGTERM)
        serve.communicate(timeout=60)
    finally:
        stop_if_running(serve)


def test_serve_on_port_0_names_the_port_it_answers_on(tmp_path: Path) -> None:
    """The banner said http://127.0.0.1:0, and the hold told a second ladder that the first served there."""
    import os
    import re
    import signal
    import subprocess
    import sys
    import urllib.request

    from sqlalchemy import select

    from ladder.db import default_url, make_engine, sessions
    from ladder.models import LadderHold

    data = tmp_path / "data"
    serve = subprocess.Popen(
        [sys.executable, "-m", "arena.cli.main", "ladder", "serve", "--data", str(data), "--port", "0", "--no-samples"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    try:
        assert serve.stdout is not None
        banner = serve.stdout.readline().decode(errors="replace")
        found = re.search(r"ladder: (http://127\.0\.0\.1:(\d+))", banner)
        assert found and int(found[2]) != 0, banner
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{found[1]}/api/games") as answer:
                    assert answer.status == 200
                    break
            except OSError:
                assert time.monotonic() < deadline and serve.poll() is None, "nothing answered on the port the banner named"
                time.sleep(0.2)
        with sessions(make_engine(default_url(data)))() as db:
            told = db.scalar(select(LadderHold.address).where(LadderHold.holder.is_not(None)))
        assert told == found[1], told
        serve.send_signal(signal.SIGTERM)
        serve.communicate(timeout=60)
    finally:
        stop_if_running(serve)


def test_serve_warns_that_the_matches_of_versions_whose_files_are_gone_wait_then_are_cancelled(
    ladder: LadderFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """The warning said each of their matches was queued again, then failed at its third try: what happened before such
    a version was held (ladder/grounds.py, MissingVersions)."""
    import shutil

    from arena.cli.ladder import check_store
    from tests.ladder.conftest import enter

    enter(ladder.ladder, [SAMPLE_BOTS / "generals_war_greedy", SAMPLE_BOTS / "random"], validate=False)
    shutil.rmtree(ladder.ladder.store / "random")
    check_store(ladder.make, ladder.ladder.config.data_dir, None, 1800)
    said = " ".join(capsys.readouterr().err.split())
    assert "the files of 1 active bot versions are gone" in said and "third try" not in said, said
    assert "they are drawn for no match, and their queued matches wait for them, 30 min at most, then cancelled" in said, said
