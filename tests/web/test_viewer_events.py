"""The replay viewer's list of events, in Chromium, as a spectator steps through a long match: at every step it holds
the events of the steps so far, this step's marked, whichever way the step was reached (a button, the keyboard, the
slider, the address) and in whichever view; and a step adds or removes only the events of the steps between, where the
whole list was drawn again (at the end of a Generals & Assassins game of a thousand events, a step took a third
to more than half of a second on a 2-core machine, and autoplay at 8× fell behind)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

from ladder.web.routes import replay_app
from tests.web.conftest import BackgroundServer
from tests.web.test_frames import replay_data
from tests.web.test_pages import go_to_step

if TYPE_CHECKING:
    from playwright.sync_api import Page

#: The events drawn, each as [seq, whether it is marked as this step's].
DRAWN = "() => [...document.querySelectorAll('#events > li.event')].map((li) => [Number(li.dataset.seq), li.classList.contains('now')])"


def expected(frames: dict[str, Any], step: int) -> list[list[Any]]:
    """The events of frames 0 to ``step`` of a view, in order, those of ``step`` marked."""
    return [[ev["seq"], i == step] for i in range(step + 1) for ev in frames["frames"][i]["events"]]


def check(page: Page, frames: dict[str, Any], step: int) -> None:
    page.wait_for_selector(f"body[data-step='{step}']")
    assert page.evaluate(DRAWN) == expected(frames, step), f"step {step}"


def test_the_events_list_follows_every_step_and_keeps_what_it_drew(page: Page, tmp_path: Path) -> None:
    replay = tmp_path / "glory.json"
    replay.write_text(json.dumps(replay_data("glory", 4, 3)))
    with BackgroundServer(replay_app(replay)) as server:
        everything = httpx.get(f"{server.url}/api/replay/frames?seat=all").json()
        seat1 = httpx.get(f"{server.url}/api/replay/frames?seat=1").json()
        last = len(everything["frames"]) - 1
        assert last > 40 and sum(len(f["events"]) for f in everything["frames"]) > 100
        page.goto(f"{server.url}#view=all&step=0")
        check(page, everything, 0)
        for step in range(1, 12):  # forward by the button, then by the keyboard
            page.click("#next") if step < 6 else page.keyboard.press("ArrowRight")
            check(page, everything, step)
        # the events drawn before are kept as they were, not drawn again
        page.evaluate("() => { document.querySelector('#events > li.event').dataset.kept = '1'; }")
        go_to_step(page, 30)
        check(page, everything, 30)
        assert page.evaluate("() => document.querySelector('#events > li.event').dataset.kept") == "1"
        for step in (29, 28):  # back, one step at a time and by the slider to an earlier step
            page.click("#prev")
            check(page, everything, step)
        go_to_step(page, 4)
        check(page, everything, 4)
        page.click("#last")
        check(page, everything, last)
        page.keyboard.press("Home")
        check(page, everything, 0)
        page.evaluate("() => { location.hash = 'view=all&step=25'; }")
        check(page, everything, 25)
        # another view's events are its own, drawn anew, and stepping on in it follows it
        page.select_option("#mode", "1")
        page.wait_for_selector("body[data-mode='1']")
        check(page, seat1, 25)
        page.click("#next")
        check(page, seat1, 26)
        page.select_option("#mode", "all")
        page.wait_for_selector("body[data-mode='all']")
        check(page, everything, 26)


def test_the_events_list_says_its_numbers_are_the_logs_not_steps(page: Page, tmp_path: Path) -> None:
    """Several events to a step: a spectator at step 100 of 395 read the list's last number, 397, as a step past the
    match's end. The list says what its numbers count, and each number's title says it."""
    replay = tmp_path / "glory.json"
    replay.write_text(json.dumps(replay_data("glory", 4, 3)))
    with BackgroundServer(replay_app(replay)) as server:
        page.goto(f"{server.url}#view=all&step=30")
        page.wait_for_selector("body[data-step='30']")
        seqs = page.eval_on_selector_all("#events .seq", "ss => ss.map(s => [s.textContent, s.title])")
        assert int(seqs[-1][0]) > 30, "the numbers are not the steps'"
        assert all(title == f"event {seq} of the match's log" for seq, title in seqs), seqs[:3]
        assert "not by step" in page.inner_text("#events-note")
