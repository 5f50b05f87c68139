"""A bot's page while its only finished match waits for its twin (the duplicate set's other match, the same deal): the
match is listed without its result, which the page says it will show, and the head to head, which counts it only once the
deal is over, does not say that no match finished."""

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


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp("unsettled")
    config = LadderConfig(tmp / "data", workers=1, samples=False, games=[GAME])
    ladder = Ladder(config)
    now = time.time()
    with ladder.make() as db:
        versions = alices_bots(db, ("one", "two"), now)
        for status in ("done", "queued"):  # the first of the set over, its twin still to play
            match = Match(game=GAME, seed=1, num_players=2, kind="rated", status=status, deal="d1", created_at=now, finished_at=now if status == "done" else None)
            db.add(match)
            db.flush()
            for seat, version_id in enumerate(versions):
                db.add(MatchSeat(match_id=match.id, seat=seat, bot_version_id=version_id, rank=seat + 1 if status == "done" else None, score=None, verdicts=[]))
        db.commit()
    with BackgroundServer(create_app(LadderState(ladder.make, ladder.store, config.data_dir))) as server:
        yield server.url


def test_a_match_whose_twin_is_still_to_play_is_listed_saying_when_its_result_comes(page: Page, url: str) -> None:
    """Its seats alone, the reason in a title a phone never shows, read as a result gone missing; and the head to head
    said "No finished match yet." above the finished match."""
    page.goto(f"{url}/bots/one")
    page.wait_for_selector("body[data-ready='1']")
    row = page.locator("#matches tbody tr")
    assert row.count() == 1 and row.locator("a[href^='/matches/']").count() == 0
    assert "result once every match of its deal is over" in row.inner_text()
    said = page.inner_text("#crosstable")
    assert "finished" not in said and "once every match of its deal is over" in said, said
    page.goto(f"{url}/games/{GAME}")
    page.wait_for_selector("body[data-refreshes='1']")
    assert "result once every match of its deal is over" in page.inner_text("#recent tbody tr")
