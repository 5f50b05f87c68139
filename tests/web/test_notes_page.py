"""A bot's notes in the viewer (headless Chromium): beside its actions, as text, and never in another seat's view."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.support import ROOT, SAMPLE_BOTS
from tests.web.test_pages import go_to_step

if TYPE_CHECKING:
    from playwright.sync_api import Page

NOTING = ROOT / "tests" / "bots" / "noting"


@pytest.fixture(scope="module")
def noted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A replay of a real match (bot processes over gRPC) in which seat 0 notes every decision."""
    tmp = tmp_path_factory.mktemp("noted")
    replay = tmp / "noted.json"
    command = [sys.executable, "-m", "arena.cli.main", "match", "generals-war", str(NOTING), str(SAMPLE_BOTS / "random")]
    command += ["--seed", "3", "--replay", str(replay), "--log-dir", str(tmp / "logs"), "--json"]
    subprocess.run(command, cwd=ROOT, check=True, capture_output=True, timeout=300)
    return replay


@pytest.fixture
def viewer(noted: Path) -> Iterator[str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena.cli.main", "replay", str(noted), "--no-browser", "--port", "0"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        found = re.search(r"http://127\.0\.0\.1:\d+/", proc.stdout.readline())
        assert found
        yield found.group(0)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def open_viewer(page: Page, url: str) -> None:
    deadline = time.monotonic() + 30
    while True:  # the address is printed just before uvicorn starts
        try:
            page.goto(url)
            break
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
    page.wait_for_selector("body[data-step='0'][data-mode='all']")


def test_the_viewer_shows_a_bots_note_beside_its_action_as_text_and_only_to_that_seat(page: Page, noted: Path, viewer: str) -> None:
    actions = json.loads(noted.read_text())["actions"]
    step = 1 + next(i for i, a in enumerate(actions) if a["seat"] == 0 and a.get("note"))
    other = 1 + next(i for i, a in enumerate(actions) if a["seat"] == 1)
    note = actions[step - 1]["note"]
    open_viewer(page, viewer)
    go_to_step(page, step)
    assert page.inner_text("#step-info .note") == f"its note: {note}"
    assert page.locator("#step-info .note b").count() == 0  # markup in a note is shown as written, never rendered
    go_to_step(page, other)
    assert page.locator("#step-info .note").count() == 0  # the random bot wrote none
    page.select_option("#mode", "1")
    page.wait_for_selector("body[data-mode='1']")
    go_to_step(page, step)
    assert page.locator(".note").count() == 0 and note not in page.inner_text("body")
    page.select_option("#mode", "0")
    page.wait_for_selector("body[data-mode='0']")
    go_to_step(page, step)
    assert page.inner_text("#step-info .note") == f"its note: {note}"
