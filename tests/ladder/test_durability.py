"""SIGKILL the ladder at random moments, again and again: no result lost, none counted twice, nothing claimed forever."""

from __future__ import annotations

import random
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from sqlalchemy import select

from ladder.db import default_url, make_engine, sessions
from ladder.models import Match, MatchSeat
from ladder.rebuild import mismatches
from tests.ladder.conftest import check_rated_once

#: ``arena`` with Ctrl-C's default restored first: a job started with ``&`` by a non-interactive shell (CI's,
#: perhaps) inherits SIGINT ignored, and the ladder would not stop at the test's Ctrl-C. The exec resets the handler
#: set here to the default, and the ladder's Python installs its own.
ARENA = [
    sys.executable, "-c",
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "os.execv(sys.executable, [sys.executable, '-m', 'arena.cli.main', *sys.argv[1:]])",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def done_matches(data: Path) -> int:
    if not (data / "ladder.db").exists():
        return 0
    try:
        with sessions(make_engine(default_url(data)))() as db:
            return len(db.scalars(select(Match.id).where(Match.status == "done")).all())
    except Exception:  # the schema may not exist yet
        return 0


def start(data: Path, port: int) -> subprocess.Popen[bytes]:
    cmd = ARENA + ["ladder", "serve", "--data", str(data), "--port", str(port), "--workers", "2", "--game", "generals-war",
                   "--lease-seconds", "3", "--seed", "1", "--move-time-ms", "2000"]
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def test_repeated_sigkill_loses_and_doubles_nothing(tmp_path: Path) -> None:
    data = tmp_path / "data"
    port = free_port()
    rng = random.Random(11)
    proc = start(data, port)
    deadline = time.monotonic() + 120
    while done_matches(data) < 3:  # the sample bots are entered (validated) and a few matches played
        assert time.monotonic() < deadline, "the ladder played nothing"
        time.sleep(1)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    for _ in range(6):
        proc = start(data, port)
        time.sleep(rng.uniform(1.5, 5.0))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    proc = start(data, port)
    time.sleep(10)  # leases of the killed runs (3 s) run out and are reaped
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=60)  # raises if the ladder does not stop

    make = sessions(make_engine(default_url(data)))
    with make() as db:
        assert mismatches(db) == []
        matches = db.scalars(select(Match)).all()
        done = [m for m in matches if m.status == "done"]
        assert len(done) >= 4, f"only {len(done)} matches finished"
        assert not [m.id for m in matches if m.status == "running"], "a match was left claimed"
        assert any(m.attempts > 0 for m in matches), "no kill hit a running match; the test proved nothing"
        for m in done:
            for seat in db.scalars(select(MatchSeat).where(MatchSeat.match_id == m.id)):
                assert seat.rank is not None
        check_rated_once(db)
