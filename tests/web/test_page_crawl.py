"""A spectator's walk through the ladder's pages: every page a link leads to, from the front page, in Chromium.

Each page is opened once its scripts have filled it from the JSON API (the network idle), and must: answer 200,
make no request that fails or answers 4xx/5xx, log no console error nor throw, give every element id once, every
image an alt text and every form control a name. axe-core (axe-playwright-python) checks one page of each kind for
serious and critical accessibility violations.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING
from urllib.parse import urldefrag, urlsplit

from tests.web.conftest import ServedLadder
from tests.web.page_checks import Tab, Visit

if TYPE_CHECKING:
    from playwright.sync_api import Browser

MAX_PAGES = 60
TABS = 4


def kind(path: str) -> str:
    """The kind of page an address is of: its first segment ("home" for /)."""
    first = path.strip("/").split("/")[0]
    return first or "home"


def crawl(browser: Browser, root: str) -> list[Visit]:
    """Every same-origin page reachable by links from ``root``/, breadth first, up to MAX_PAGES, TABS loading at a
    time (the match pages wait on the server re-playing their frames); axe on the first page of each kind."""
    origin = urlsplit(root).netloc
    queue = deque([root + "/"])
    queued = {root + "/"}
    visits: list[Visit] = []
    axed: set[str] = set()
    while queue and len(visits) < MAX_PAGES:
        batch = [queue.popleft() for _ in range(min(TABS, len(queue), MAX_PAGES - len(visits)))]
        tabs = [Tab(browser, url) for url in batch]
        for tab in tabs:
            path = urlsplit(tab.seen.url).path
            seen = tab.finish(run_axe=kind(path) not in axed)
            if seen.content_type.startswith("text/html"):
                axed.add(kind(path))
            visits.append(seen)
            for link in seen.checks.get("links", []):
                # the query is dropped too: no page links to one, and a link that only differs by it is the same page
                target = urldefrag(link).url.split("?")[0]
                if urlsplit(target).netloc == origin and target not in queued:
                    queued.add(target)
                    queue.append(target)
    return visits


def test_every_page_a_spectator_can_reach_loads_cleanly_and_accessibly(browser: Browser, served: ServedLadder) -> None:
    visits = crawl(browser, served.url)
    print(f"crawled {len(visits)} pages:", *(urlsplit(v.url).path for v in visits))
    kinds = {kind(urlsplit(v.url).path) for v in visits}
    assert {"home", "games", "bots", "matches"} <= kinds, f"the crawl missed a kind of page: {sorted(kinds)}"
    problems = [p for v in visits for p in v.problems()]
    assert not problems, "\n".join(problems)
