"""A bot's page lists its newest 25 matches, and then older ones page by page (the API's ``before`` cursor); a match
whose twin (the duplicate set's other match, the same deal) is still to play is listed saying when its result comes."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from ladder.api import LadderState, create_app
from ladder.models import Match, MatchSeat
from ladder.service import Ladder, LadderConfig
from tests.web.conftest import GAME, BackgroundServer, alices_bots

if TYPE_CHECKING:
    from playwright.sync_api import Page

PLAYED = 31  # a full page of 25, then 6 older: one click shows them and leaves no button


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp("older")
    config = LadderConfig(tmp / "data", workers=1, samples=False, games=[GAME])
    ladder = Ladder(config)
    now = time.time()
    with ladder.make() as db:
        *versions, three, four = alices_bots(db, ("one", "two", "three", "four"), now)
        for i in range(PLAYED):  # each its own deal, so settled; ended in the order of their ids
            ended = now - (PLAYED - i) * 60
            match = Match(game=GAME, seed=i, num_players=2, kind="rated", status="done", deal=f"d{i}", created_at=ended, finished_at=ended)
            db.add(match)
            db.flush()
            for seat, version_id in enumerate(versions):
                db.add(MatchSeat(match_id=match.id, seat=seat, bot_version_id=version_id, rank=seat + 1, score=None, verdicts=[]))
        for status in ("done", "queued"):  # three's only match over, its twin (the same deal) still to play
            match = Match(game=GAME, seed=1, num_players=2, kind="rated", status=status, deal="set", created_at=now, finished_at=now if status == "done" else None)
            db.add(match)
            db.flush()
            for seat, version_id in enumerate((three, four)):
                db.add(MatchSeat(match_id=match.id, seat=seat, bot_version_id=version_id, rank=seat + 1 if status == "done" else None, score=None, verdicts=[]))
        db.commit()
    with BackgroundServer(create_app(LadderState(ladder.make, ladder.store, config.data_dir))) as server:
        yield server.url


def listed(page: Page) -> list[int]:
    return [int(row) for row in page.locator("#matches tbody tr").evaluate_all("rows => rows.map((r) => r.dataset.match)")]


def test_a_bots_page_lists_its_older_matches_when_asked_and_says_when_there_are_no_more(page: Page, url: str) -> None:
    """The page showed the newest 25 matches and no way to the rest, which the API pages through."""
    page.goto(f"{url}/bots/one")
    page.wait_for_selector("body[data-ready='1']")
    newest = listed(page)
    assert newest == list(range(PLAYED, PLAYED - 25, -1))  # newest first
    page.click("#older-matches")
    page.wait_for_function("n => document.querySelectorAll('#matches tbody tr').length === n", arg=PLAYED)
    assert listed(page) == list(range(PLAYED, 0, -1))  # each match once, the older ones after
    assert page.locator("#older-matches").count() == 0  # the last page was not full: nothing older


def test_the_older_matches_button_takes_the_keyboards_focus_to_the_first_older_match(page: Page, url: str) -> None:
    """Disabled while the next page loaded, the button dropped the focus to the page's body: the keyboard's user had to
    tab again from the top of the page. It goes on to the first of the older matches."""
    page.goto(f"{url}/bots/two")
    page.wait_for_selector("body[data-ready='1']")
    page.focus("#older-matches")
    page.keyboard.press("Enter")
    page.wait_for_function("n => document.querySelectorAll('#matches tbody tr').length === n", arg=PLAYED)
    focused = page.evaluate("(() => { const e = document.activeElement; const row = e.closest('tr'); return [e.getAttribute('href'), row && row.dataset.match]; })()")
    assert focused == [f"/matches/{PLAYED - 25}", str(PLAYED - 25)], "on the first of the older matches"


def test_a_match_whose_twin_is_still_to_play_is_listed_saying_when_its_result_comes(page: Page, url: str) -> None:
    """Its seats alone, the reason in a title a phone never shows, read as a result gone missing; and the head to head
    said "No finished match yet." above the finished match."""
    page.goto(f"{url}/bots/three")
    page.wait_for_selector("body[data-ready='1']")
    row = page.locator("#matches tbody tr")
    assert row.count() == 1 and row.locator("a[href^='/matches/']").count() == 0
    assert "result once every match of its deal is over" in row.inner_text()
    said = page.inner_text("#crosstable")
    assert "finished" not in said and "once every match of its deal is over" in said, said
    page.goto(f"{url}/games/{GAME}")
    page.wait_for_selector("body[data-refreshes='1']")
    assert "result once every match of its deal is over" in page.inner_text("#recent tbody tr")
