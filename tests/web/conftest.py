"""A ladder that has played real matches, served over HTTP on localhost, and headless Chromium to look at it.

The browser tests need Debian's chromium (/usr/bin/chromium) and the playwright package. Without them they
skip, except under CI (the CI variable set), where a missing browser is a failure.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest
import uvicorn
from sqlalchemy import Select, select
from sqlalchemy.orm import Session

from ladder.datafiles import located
from ladder.accounts import add_user
from ladder.api import LadderState, create_app
from ladder.models import Bot, BotVersion, Match, User
from ladder.queries import UNSETTLED_DEALS
from ladder.service import Ladder, LadderConfig, count_done
from ladder.upload import zip_directory
from referee.server.session import TimeControl
from tests.support import ROOT, SAMPLE_BOTS

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

CHROMIUM = Path(os.environ.get("ARENA_CHROMIUM", "/usr/bin/chromium"))  # Debian's chromium
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
GAME = "generals-war"


def alices_bots(db: Session, names: tuple[str, ...], now: float) -> list[int]:
    """User alice and her bots ``names``, each with one active version in GAME (rows written by hand, no upload):
    their versions' ids, in the order of ``names``."""
    add_user(db, "alice")
    owner = db.scalar(select(User.id).where(User.name == "alice"))
    assert owner is not None
    versions = []
    for name in names:
        bot = Bot(name=name, owner_id=owner, created_at=now)
        db.add(bot)
        db.flush()
        version = BotVersion(bot_id=bot.id, seq=1, version="1", status="active", games=[GAME], language="python", path=name, created_at=now)
        db.add(version)
        db.flush()
        versions.append(version.id)
    return versions
FIRST_MATCHES = 12  # six duplicate sets: a few rating points (one per set) for every bot


def free_socket() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    return sock


class BackgroundServer:
    """uvicorn serving ``app`` from a thread, on a socket bound to a free port of 127.0.0.1."""

    def __init__(self, app: Any) -> None:
        self.sock = free_socket()
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    def __enter__(self) -> BackgroundServer:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.sock.close()


@dataclass
class ServedLadder:
    ladder: Ladder
    url: str
    tmp: Path
    tokens: dict[str, str] = field(default_factory=dict)

    def file(self, stored: str) -> Path:
        """A replay or log the database names (relative to the data folder, ladder.datafiles)."""
        return located(stored, self.ladder.config.data_dir)

    def get(self, path: str, token: str | None = None, **params: Any) -> httpx.Response:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.get(self.url + path, headers=headers, params=params, timeout=60)

    def play(self, matches: int, timeout: float = 180) -> None:
        """Run the scheduler and the workers until ``matches`` more matches are done (any thread)."""
        target = count_done(self.ladder.make) + matches

        async def go() -> None:
            runner = asyncio.create_task(self.ladder.run(serve_http=False))
            try:
                async with asyncio.timeout(timeout):
                    while count_done(self.ladder.make) < target:
                        await asyncio.sleep(0.2)
            finally:
                runner.cancel()
                await asyncio.gather(runner, return_exceptions=True)

        # In a thread of its own: a session's Playwright browser may hold an event loop in this one.
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            pool.submit(asyncio.run, go()).result()

    def play_in_background(self, until: Callable[[], bool], timeout: float = 180) -> threading.Thread:
        """Play two matches at a time until ``until()`` holds (or ``timeout`` s pass): a match is rated with the other
        of its duplicate set, so a count of matches done may end on halves of two sets and change no rating."""

        def go() -> None:
            end = time.monotonic() + timeout
            while not until() and time.monotonic() < end:
                self.play(2, timeout=max(1.0, end - time.monotonic()))

        thread = threading.Thread(target=go, daemon=True)
        thread.start()
        return thread


@contextmanager
def arena_replay(path: Path) -> Iterator[str]:
    """``arena replay FILE --no-browser`` run as a user runs it; yields the address it serves the viewer at, once it answers."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena.cli.main", "replay", str(path), "--no-browser", "--port", "0"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert found, line
        url = found.group(0)
        for _ in range(100):  # the address is printed just before uvicorn starts
            try:
                httpx.get(url, timeout=5)
                break
            except httpx.TransportError:
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def settled_matches() -> Select[Match]:
    """Done matches whose deal is settled, oldest first: a stopped ladder can leave a set's twin queued, and until
    it is played the API keeps the first match's replay, frames and logs back (ladder/queries.py ``settled``)."""
    return select(Match).where(Match.status == "done", Match.deal.not_in(UNSETTLED_DEALS)).order_by(Match.id)


def noisy_bot(tmp: Path, name: str, noise: float) -> Path:
    """The greedy General's War bot that plays a random legal action with probability ``noise``."""
    path = tmp / "bots" / name
    shutil.copytree(ROOT / "tests" / "bots" / "gw_noisy", path)
    greedy = SAMPLE_BOTS / "generals_war_greedy" / "bot.py"
    (path / "bot.toml").write_text(
        f'name = "{name}"\nversion = "1"\nlanguage = "python"\ngames = ["{GAME}"]\ncommand = ["python", "bot.py", "{noise}", "{greedy}"]\n'
    )
    return path


@pytest.fixture(scope="session")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServedLadder]:
    """Three bots of two owners (alice: gw-greedy and gw-noisy-60; bob: random) after FIRST_MATCHES matches."""
    tmp = tmp_path_factory.mktemp("web-ladder")
    config = LadderConfig(tmp / "data", workers=2, samples=False, games=[GAME], time_control=TimeControl(move_time_ms=2000), seed=11)
    ladder = Ladder(config)
    app = create_app(LadderState(ladder.make, ladder.store, config.data_dir))
    with BackgroundServer(app) as server:
        found = ServedLadder(ladder, server.url, tmp)
        with ladder.make() as db:
            found.tokens = {name: add_user(db, name) for name in ("alice", "bob")}
        for owner, bot in (("alice", SAMPLE_BOTS / "generals_war_greedy"), ("bob", SAMPLE_BOTS / "random"), ("alice", noisy_bot(tmp, "gw-noisy-60", 0.6))):
            response = httpx.post(server.url + "/api/bots", content=zip_directory(bot), headers={"Authorization": f"Bearer {found.tokens[owner]}"}, timeout=120)
            assert response.status_code == 201 and response.json()["accepted"], response.text
        found.play(FIRST_MATCHES)
        yield found


def browser_missing() -> str | None:
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is missing (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is missing (pip install -e '.[dev]')"
    return None


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Chromium for one module's tests. Playwright's sync API runs an event loop on this thread while it is
    open, so it must close before later tests in the same process call ``asyncio.run`` (they would fail)."""
    missing = browser_missing()
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"browser tests cannot run under CI: {missing}")
        pytest.skip(missing)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A fresh page (its own context: empty localStorage) that fails the test on a script error."""
    context = browser.new_context(viewport={"width": 1280, "height": 860}, accept_downloads=True)
    errors: list[str] = []
    opened = context.new_page()
    opened.on("pageerror", lambda exc: errors.append(str(exc)))
    opened.set_default_timeout(20_000)
    try:
        yield opened
    finally:
        context.close()
    assert not errors, f"script errors in the page: {errors}"


@pytest.fixture(scope="session")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the page screenshots go: docs/screenshots when ARENA_SCREENSHOTS=1, else a temporary folder."""
    if os.environ.get("ARENA_SCREENSHOTS"):
        folder = ROOT / "docs" / "screenshots"
        folder.mkdir(parents=True, exist_ok=True)
        return folder
    return tmp_path_factory.mktemp("screenshots")
