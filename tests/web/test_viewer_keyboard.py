"""The replay viewer's tables as a screen reader and a keyboard reach them, in Chromium: the records' column of row
numbers has a header a screen reader reads, and a panel of the table that scrolls sideways takes the focus and
scrolls with the arrows."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from axe_playwright_python.sync_playwright import Axe

from ladder.web.routes import replay_app
from tests.web.conftest import BackgroundServer
from tests.web.test_frames import replay_data
from tests.web.test_pages import go_to_step

if TYPE_CHECKING:
    from playwright.sync_api import Page

PHONE = {"width": 360, "height": 740}
#: How many of the table's panels scroll sideways out of a keyboard's reach.
UNREACHED = "() => [...document.querySelectorAll('#table .sub-panel')].filter((p) => p.scrollWidth > p.clientWidth && p.tabIndex < 0).length"


def axe_ids(page: Page) -> set[str]:
    return {v["id"] for v in Axe().run(page).response["violations"]}


def test_the_row_numbers_column_of_a_records_table_has_a_header_a_screen_reader_reads(page: Page, tmp_path: Path) -> None:
    """Glory's offers and assists, numbered from 0, had an empty header cell over their numbers (axe:
    empty-table-header): a screen reader read the column as nothing. It reads "row", which the screen does not show."""
    replay = tmp_path / "glory.json"
    replay.write_text(json.dumps(replay_data("glory", 4, 1)))
    with BackgroundServer(replay_app(replay)) as server:
        page.goto(server.url)
        page.wait_for_selector("body[data-step='0'][data-mode='all']")
        go_to_step(page, 5)
        firsts = page.eval_on_selector_all(
            "#table table.records > thead > tr > th:first-child",
            "ths => ths.map((th) => [th.textContent, th.firstElementChild ? th.firstElementChild.getBoundingClientRect().width : -1])",
        )
        assert firsts and all(text == "row" and 0 <= width <= 1 for text, width in firsts), firsts
        assert "empty-table-header" not in axe_ids(page)


def test_a_panel_that_scrolls_sideways_takes_the_focus_and_scrolls_with_the_arrows(page: Page, tmp_path: Path) -> None:
    """On a phone, a seat's known face-down cards under a long bot name scrolled sideways in their panel, which had no
    tabindex: a keyboard could not scroll it (axe: scrollable-region-focusable). The panel takes the focus, is named by
    its heading, and scrolls with → (which steps the replay elsewhere); once the window is wide enough, it is no stop."""
    data = replay_data("generals-war", 4, 1)
    for seat in data["seats"]:
        seat["name"] = f"a-bot-with-a-rather-long-name-v2-final{seat['seat']}"
    replay = tmp_path / "generals-war.json"
    replay.write_text(json.dumps(data))
    with BackgroundServer(replay_app(replay)) as server:
        page.set_viewport_size(PHONE)  # type: ignore[arg-type]
        page.goto(f"{server.url}#view=0&step=0")
        page.wait_for_selector("body[data-step='0'][data-mode='0']")
        step = 0
        for step in range(len(data["actions"]) + 1):
            go_to_step(page, step)
            if page.evaluate("() => [...document.querySelectorAll('#table .sub-panel')].some((p) => p.scrollWidth > p.clientWidth)"):
                break
        else:
            raise AssertionError("no panel scrolls sideways at any step")
        assert page.evaluate(UNREACHED) == 0
        panel = page.locator("#table .sub-panel[data-field=known]")
        assert panel.get_attribute("tabindex") == "0" and panel.get_attribute("role") == "region"
        assert panel.get_attribute("aria-label") == "known face-down cards"
        assert "scrollable-region-focusable" not in axe_ids(page)
        panel.focus()
        page.keyboard.press("ArrowRight")
        page.wait_for_function("() => document.querySelector('#table .sub-panel[data-field=known]').scrollLeft > 0")
        assert page.evaluate("document.body.dataset.step") == str(step)  # scrolled, not stepped
        page.set_viewport_size({"width": 1280, "height": 860})
        page.wait_for_function("() => !document.querySelector('#table .sub-panel[tabindex]')")


#: The long piles of the table (more cards than drawn in a row: a summary, opened on a click), by where they are.
LONG_PILES = "() => [...document.querySelectorAll('#table details.long-pile')].map((d) => [d.closest('[data-field]').dataset.field, d.open])"


def test_a_long_pile_opened_stays_open_and_focused_as_the_replay_steps(page: Page, tmp_path: Path) -> None:
    """A pile of more than 18 cards (the Assassination Game's movement hand) is folded under "49 cards": opened to be
    followed step by step, it closed again at each step, and its summary lost the keyboard's focus."""
    data = replay_data("assassination", 4, 1)
    replay = tmp_path / "assassination.json"
    replay.write_text(json.dumps(data))
    with BackgroundServer(replay_app(replay)) as server:
        page.goto(f"{server.url}#view=0&step=0")
        page.wait_for_selector("body[data-step='0'][data-mode='0']")
        assert page.evaluate(LONG_PILES), "no long pile at the deal"
        pile = page.evaluate(LONG_PILES)[0][0]
        page.focus(f"#table [data-field='{pile}'] details.long-pile > summary")
        page.keyboard.press("Enter")
        assert [pile, True] in page.evaluate(LONG_PILES)
        page.keyboard.press("ArrowRight")
        page.wait_for_selector("body[data-step='1']")
        assert [pile, True] in page.evaluate(LONG_PILES), "closed again by the step"
        assert page.evaluate("document.activeElement.closest('[data-field]')?.dataset.field") == pile
        page.keyboard.press("ArrowRight")  # the focus on the summary, the arrows still step
        page.wait_for_selector("body[data-step='2']")
