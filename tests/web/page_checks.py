"""What the browser tests check of every page they open, whatever the state it is in: the document's status, no
request that fails or answers 4xx/5xx, no console error nor thrown error, every element id once, every image an alt
text, every form control a name, and (when asked) no serious or critical axe-core violation.

A ``Tab`` opens one address in a context of its own; ``look`` checks the page as it is drawn now, and may be called
again after an action (a seat chosen, a step taken), each time naming the state in what it finds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playwright.sync_api import Browser, ConsoleMessage, Page, Request, Response

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


@dataclass
class Visit:
    """What one page did while it loaded, and what ``Tab.look`` found in it (each item after the state it was in)."""

    url: str
    expected: int = 200  # the document's status: a page of a missing thing answers 404, a pruned replay 410
    status: int | None = None
    content_type: str = ""
    bad_responses: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    checks: dict[str, Any] = field(default_factory=dict)
    axe: list[str] = field(default_factory=list)

    def problems(self) -> list[str]:
        found = [f"{self.url}: the document answered {self.status}, not {self.expected}"] if self.status != self.expected else []
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

    def __init__(self, browser: Browser, url: str, expected: int = 200) -> None:
        self.seen = Visit(url, expected)
        self.context = browser.new_context(viewport={"width": 1280, "height": 860})
        self.page = self.context.new_page()
        self.page.set_default_timeout(20_000)
        self.page.on("response", self.answered)
        self.page.on("requestfailed", self.failed)
        self.page.on("console", self.logged)
        self.page.on("pageerror", lambda exc: self.seen.page_errors.append(str(exc)))
        document = self.page.goto(url, wait_until="commit")
        assert document is not None
        self.seen.status = document.status
        self.seen.content_type = document.headers.get("content-type", "")

    def answered(self, response: Response) -> None:
        if response.status >= 400 and response.url != self.seen.url:  # the document's own status is Visit.status
            self.seen.bad_responses.append(f"{response.status} {response.request.method} {response.url}")

    def logged(self, message: ConsoleMessage) -> None:
        # Chromium logs a document's own error status (a 404 page's) as a failed resource: that is Visit.status
        own = message.location.get("url") == self.seen.url and message.text.startswith(f"Failed to load resource: the server responded with a status of {self.seen.expected} ")
        if message.type == "error" and not (own and self.seen.expected != 200):
            self.seen.console_errors.append(message.text)

    def failed(self, request: Request) -> None:
        self.seen.failed_requests.append(f"{request.method} {request.url}: {request.failure}")

    def look(self, run_axe: bool, state: str = "") -> None:
        """Check the page as it is drawn now; ``state`` (a seat chosen, a step taken) heads what is found."""
        if not self.seen.content_type.startswith("text/html"):
            return
        head = f"{state}: " if state else ""
        for what, items in self.page.evaluate(PAGE_CHECKS).items():
            self.seen.checks.setdefault(what, []).extend(items if what == "links" else [head + item for item in items])
        if run_axe:
            self.seen.axe += [head + item for item in axe_violations(self.page)]

    def finish(self, run_axe: bool, state: str = "") -> Visit:
        """Wait until the page's scripts have drawn it (the network idle), look at it, and close it."""
        try:
            self.page.wait_for_load_state("networkidle")
            self.look(run_axe, state)
            self.page.remove_listener("response", self.answered)  # what closing the page cuts short is not the page's doing
            self.page.remove_listener("requestfailed", self.failed)
        finally:
            self.context.close()
        return self.seen
