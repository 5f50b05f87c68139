"""A spectator's walk through the ladder's pages: every page a link leads to, from the front page, in Chromium.

Each page is opened once its scripts have filled it from the JSON API (the network idle), and must: answer 200,
make no request that fails or answers 4xx/5xx, log no console error nor throw, give every element id once, every
image an alt text and every form control a name. axe-core (axe-playwright-python) checks one page of each kind for
serious and critical accessibility violations.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urldefrag, urlsplit

from tests.web.conftest import ServedLadder

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, Request, Response

MAX_PAGES = 60
TABS = 4
AXE_IMPACTS = {"serious", "critical"}

# Ids that appear twice, a form control without a name, an image without alt: found by script in the page.
PAGE_CHECKS = """() => {
  const seen = new Map();
  for (const e of document.querySelectorAll("[id]")) seen.set(e.id, (seen.get(e.id) || 0) + 1);
  const named = (e) => {
    if ((e.getAttribute("aria-label") || "").trim() || (e.getAttribute("title") || "").trim()) return true;
    const by = (e.getAttribute("aria-labelledby") || "").split(/\\s+/).filter(Boolean);
    if (by.some((id) => (document.getElementById(id)?.textContent || "").trim())) return true;
    if ([...(e.labels || [])].some((l) => l.textContent.trim())) return true;
    if (e.tagName === "BUTTON") return e.textContent.trim() !== "";
    if (e.tagName === "INPUT" && ["submit", "button", "reset"].includes(e.type)) return (e.value || "").trim() !== "";
    return false;
  };
  const describe = (e) => e.outerHTML.slice(0, 120);
  return {
    duplicate_ids: [...seen].filter(([, n]) => n > 1).map(([id]) => id),
    unnamed_controls: [...document.querySelectorAll("input:not([type=hidden]), select, textarea, button")].filter((e) => !named(e)).map(describe),
    images_without_alt: [...document.querySelectorAll("img:not([alt])")].map(describe),
    links: [...document.querySelectorAll("a[href]")].map((a) => new URL(a.getAttribute("href"), document.baseURI).href),  // an SVG link's href is no string
  };
}"""


def kind(path: str) -> str:
    """The kind of page an address is of: its first segment ("home" for /)."""
    first = path.strip("/").split("/")[0]
    return first or "home"


@dataclass
class Visit:
    """What one page did while it loaded."""

    url: str
    status: int | None = None
    content_type: str = ""
    bad_responses: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    checks: dict[str, Any] = field(default_factory=dict)
    axe: list[str] = field(default_factory=list)

    def problems(self) -> list[str]:
        found = [f"{self.url}: the document answered {self.status}"] if self.status != 200 else []
        if not self.content_type.startswith("text/html"):
            # a document that is no page (the OpenAPI JSON the header links) is only fetched: Chromium asks for
            # /favicon.ico itself to show it, which answers 404 (the pages give their icon inline, base.html)
            return found
        for what in ("bad_responses", "failed_requests", "console_errors", "page_errors"):
            found += [f"{self.url}: {what}: {item}" for item in getattr(self, what)]
        for what in ("duplicate_ids", "unnamed_controls", "images_without_alt"):
            found += [f"{self.url}: {what}: {item}" for item in self.checks.get(what, [])]
        found += [f"{self.url}: axe: {item}" for item in self.axe]
        return found


def axe_violations(page: Page) -> list[str]:
    """The serious and critical axe-core violations of the page: id, impact and the selectors of where."""
    from axe_playwright_python.sync_playwright import Axe

    response: dict[str, Any] = Axe().run(page).response
    return [f"{v['id']} ({v['impact']}) at {[n['target'] for n in v['nodes']]}" for v in response["violations"] if v["impact"] in AXE_IMPACTS]


class Tab:
    """A page opened in a context of its own, noting what goes wrong while it loads."""

    def __init__(self, browser: Browser, url: str) -> None:
        self.seen = Visit(url)
        self.context = browser.new_context(viewport={"width": 1280, "height": 860})
        self.page = self.context.new_page()
        self.page.set_default_timeout(20_000)
        self.page.on("response", self.answered)
        self.page.on("requestfailed", self.failed)
        self.page.on("console", lambda message: self.seen.console_errors.append(message.text) if message.type == "error" else None)
        self.page.on("pageerror", lambda exc: self.seen.page_errors.append(str(exc)))
        document = self.page.goto(url, wait_until="commit")
        assert document is not None
        self.seen.status = document.status
        self.seen.content_type = document.headers.get("content-type", "")

    def answered(self, response: Response) -> None:
        if response.status >= 400:
            self.seen.bad_responses.append(f"{response.status} {response.request.method} {response.url}")

    def failed(self, request: Request) -> None:
        self.seen.failed_requests.append(f"{request.method} {request.url}: {request.failure}")

    def finish(self, run_axe: bool) -> Visit:
        """Wait until the page's scripts have drawn it (the network idle), look at it, and close it."""
        try:
            self.page.wait_for_load_state("networkidle")
            if self.seen.content_type.startswith("text/html"):
                self.seen.checks = self.page.evaluate(PAGE_CHECKS)
                if run_axe:
                    self.seen.axe = axe_violations(self.page)
            self.page.remove_listener("response", self.answered)  # what closing the page cuts short is not the page's doing
            self.page.remove_listener("requestfailed", self.failed)
        finally:
            self.context.close()
        return self.seen


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
