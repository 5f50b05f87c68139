"""The pages no link leads to, and the states a page is only in after a spectator acts, checked as the crawl
(test_page_crawl.py) checks the pages it reaches: the document's status, no failed request, console error or thrown
error, no id twice, no image without alt, no unnamed control, and no serious or critical axe-core violation.

They are: the "Not found" page of an unknown address (404); a match page while its deal is still playing ("Not yet", 200:
the match exists) and once its replay was pruned ("Pruned", 410); the viewer as one seat saw the match, a few steps in and at the end;
and the same viewer as ``arena replay FILE`` serves it, on a replay of another game.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import update

from ladder.models import Match
from tests.web.conftest import ServedLadder, arena_replay, settled_matches
from tests.web.page_checks import Tab, Visit
from tests.web.test_frames import replay_data

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

STEPS = 3  # steps taken with → before the viewer is looked at again: cards dealt and played by then
REPLAY_GAME = "assassination"  # the served ladder plays General's War only: `arena replay` shows another game


def problems(visits: list[Visit]) -> str:
    return "\n".join(p for v in visits for p in v.problems())


def test_an_unknown_address_answers_a_clean_not_found_page(browser: Browser, served: ServedLadder) -> None:
    # One template for all: axe looks at the first, the other checks at every one.
    tabs = [Tab(browser, served.url + path, expected=404) for path in ("/nope", "/bots/nobody", "/matches/999999", "/games/nogame")]
    visits = [tab.finish(run_axe=i == 0) for i, tab in enumerate(tabs)]
    assert problems(visits) == ""


@contextmanager
def match_changed(served: ServedLadder, match_id: int, **values: object) -> Iterator[None]:
    """A match of the served ladder with some of its columns set otherwise, for the time of a check."""
    with served.ladder.make() as db:
        match = db.get(Match, match_id)
        assert match is not None
        before = {column: getattr(match, column) for column in values}
        db.execute(update(Match).where(Match.id == match_id).values(**values))
        db.commit()
    try:
        yield
    finally:
        with served.ladder.make() as db:
            db.execute(update(Match).where(Match.id == match_id).values(**before))
            db.commit()


def test_a_match_not_over_yet_and_a_pruned_one_answer_clean_pages(browser: Browser, served: ServedLadder) -> None:
    with served.ladder.make() as db:
        match_id = db.scalars(settled_matches().with_only_columns(Match.id)).first()
    assert match_id is not None
    url = f"{served.url}/matches/{match_id}"
    visits = []
    for heading, status, values in (("Not yet", 200, {"status": "running"}), ("Pruned", 410, {"replay_pruned_days": 30})):
        # running: its deal is not settled; pruned as `arena ladder prune --replays-older-than 30` leaves it (the files kept: no reader opens them)
        with match_changed(served, match_id, **values):
            tab = Tab(browser, url, expected=status)
            tab.page.wait_for_function(f"document.getElementById('not-found-heading')?.textContent === '{heading}'")
            visits.append(tab.finish(run_axe=True))
    assert problems(visits) == ""


def look_at_a_seat(tab: Tab, seat: str) -> Visit:
    """The viewer as ``seat`` saw the match: at its start, STEPS steps in (by the keyboard), and at its end."""
    tab.page.wait_for_selector("body[data-step='0'][data-mode='all']")
    tab.page.select_option("#mode", seat)
    tab.page.wait_for_selector(f"body[data-mode='{seat}']")
    tab.look(run_axe=False, state=f"seat {seat}, step 0")
    for _ in range(STEPS):
        tab.page.keyboard.press("ArrowRight")  # the view list keeps the focus, and → still steps
    tab.page.wait_for_selector(f"body[data-step='{STEPS}']")
    tab.look(run_axe=True, state=f"seat {seat}, step {STEPS}")
    tab.page.click("#last")
    tab.page.wait_for_function(f"document.body.dataset.step !== '{STEPS}'")
    return tab.finish(run_axe=True, state=f"seat {seat}, last step")


def test_the_viewer_at_a_seat_stepped_through_is_clean(browser: Browser, served: ServedLadder, tmp_path: Path) -> None:
    with served.ladder.make() as db:
        match_id = db.scalars(settled_matches().with_only_columns(Match.id)).first()
    visits = [look_at_a_seat(Tab(browser, f"{served.url}/matches/{match_id}"), "1")]
    replay = tmp_path / f"{REPLAY_GAME}.json"
    replay.write_text(json.dumps(replay_data(REPLAY_GAME, 4, 1)))
    with arena_replay(replay) as url:
        tab = Tab(browser, url)
        tab.page.wait_for_selector("body[data-step='0'][data-mode='all']")
        tab.look(run_axe=True, state="everything, step 0")  # the crawl never reaches `arena replay`
        visits.append(look_at_a_seat(tab, "0"))
    assert problems(visits) == ""


def test_a_match_not_shown_yet_says_where_it_is_and_opens_by_itself_once_it_can_be(page: Page, served: ServedLadder) -> None:
    """A "Not yet" page stayed so until reloaded, and said nothing of the match: it looks every five seconds (here on
    Playwright's clock) and opens the viewer once the match's deal is over."""
    with served.ladder.make() as db:
        match_id = db.scalars(settled_matches().with_only_columns(Match.id)).first()
    assert match_id is not None
    kind = served.get(f"/api/matches/{match_id}").json()["kind"]
    page.clock.install()
    with match_changed(served, match_id, status="running"):
        page.goto(f"{served.url}/matches/{match_id}")
        page.wait_for_function("document.getElementById('not-found-detail').textContent.includes('being played')")
        said = page.inner_text("#not-found-detail")
        assert said.startswith(f"General's War · {kind} · being played (seat 0 ") and "opens by itself" in said, said
        page.clock.run_for(5_000)
        page.wait_for_function("Number(document.body.dataset.looks) >= 2")
        assert page.inner_text("#not-found-heading") == "Not yet"
    page.clock.run_for(5_000)
    page.wait_for_selector("body[data-step='0'][data-mode='all']")
    assert page.inner_text("#match-title") == f"Match #{match_id}"
