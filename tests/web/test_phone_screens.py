"""The pages on a phone's screen (360 × 740 pixels, a small Android's), as a spectator holds it: the header, the replay
viewer's controls, the Assassination Game's tables of records, the owner's token box: each checked by where it is
drawn, in Chromium. And, at any width, what a spectator reads: colours against their background (as axe-core weighs
them), and a leaderboard with no rated bot yet."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import select, update

from ladder.models import BotVersion, Rating
from ladder.web.routes import replay_app
from referee.games.registry import GAMES
from referee.server.frames import ALL, build_frames
from tests.web.conftest import BackgroundServer, ServedLadder, settled_matches
from tests.web.test_frames import replay_data
from tests.web.test_page_guards import Rows, rows  # noqa: F401  (rows: the fixture)
from tests.web.test_pages import go_to_step

if TYPE_CHECKING:
    from playwright.sync_api import Page, ViewportSize

PHONE: ViewportSize = {"width": 360, "height": 740}

BOX = "(selector) => { const r = document.querySelector(selector).getBoundingClientRect(); return {top: r.top, bottom: r.bottom, left: r.left, right: r.right}; }"


def box(page: Page, selector: str) -> dict[str, float]:
    found: dict[str, float] = page.evaluate(BOX, selector)
    return found


def contrast(fore: str, back: str) -> float:
    """WCAG's contrast ratio of two colours as getComputedStyle gives them ("rgb(r, g, b)")."""

    def luminance(colour: str) -> float:
        channels = [int(part) / 255 for part in colour[colour.index("(") + 1 : colour.index(")")].split(",")[:3]]
        r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    lighter, darker = sorted((luminance(fore), luminance(back)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def test_on_a_phone_the_games_links_take_a_row_under_the_brand_not_four_lines_beside_it(rows: Rows, page: Page) -> None:
    """Squeezed between the brand and the API link, the five games' links stacked four lines deep: a header of 163 pixels."""
    with BackgroundServer(rows.client.app) as server:
        page.set_viewport_size(PHONE)
        page.goto(server.url + "/")
        page.wait_for_function(f"document.querySelectorAll('#nav a').length === {len(GAMES)}")
        header, brand, api = box(page, "header.top"), box(page, "header .brand"), box(page, "header .api-link")
        links = page.eval_on_selector_all("#nav a", "links => links.map(a => { const r = a.getBoundingClientRect(); return [r.top, r.left, r.right]; })")
        assert abs(brand["top"] - api["top"]) < 8 and api["right"] <= PHONE["width"], (brand, api)
        assert all(top >= brand["bottom"] and left >= 0 and right <= PHONE["width"] for top, left, right in links), links
        assert len({round(top) for top, _, _ in links}) <= 2, f"the games' links take {len({round(t) for t, _, _ in links})} lines"
        assert header["bottom"] <= 100, f"the header is {header['bottom']} pixels high"


def test_on_a_phone_the_viewers_controls_keep_two_rows_in_sight_and_let_the_view_list_scroll_away(page: Page, tmp_path: Path) -> None:
    """The controls stick to the top of the screen: on a phone they wrapped into four rows, 170 pixels of 740 always
    covered. The view list, chosen once, scrolls away; the buttons, the step, the slider and the speed stay in sight,
    and the view list comes back into sight when the keyboard reaches it (Shift+Tab from the first button)."""
    replay = tmp_path / "generals-war.json"
    replay.write_text(json.dumps(replay_data("generals-war", 4, 1)))
    with BackgroundServer(replay_app(replay)) as server:
        page.set_viewport_size(PHONE)
        page.goto(server.url)
        page.wait_for_selector("body[data-step='0'][data-mode='all']")
        go_to_step(page, 10)
        controls = ("#mode", "#first", "#prev", "#play", "#next", "#last", "#scrub", "#step-label", "#speed")
        for selector in controls:  # at the top of the page, all of them on the screen
            where = box(page, selector)
            assert where["left"] >= 0 and where["right"] <= PHONE["width"] and where["bottom"] <= PHONE["height"], (selector, where)
        page.evaluate("window.scrollTo(0, 1500)")
        assert page.evaluate("window.scrollY") == 1500, "the page is long enough to scroll under the controls"
        stuck = box(page, "#controls")
        assert stuck["bottom"] <= 80, f"the controls cover the top {stuck['bottom']} pixels of the screen"
        for selector in controls[1:]:
            assert box(page, selector)["top"] >= 0, f"{selector} is out of sight"
        assert box(page, "#mode")["bottom"] <= 0, "the view list scrolls away"
        page.focus("#first")
        page.keyboard.press("Shift+Tab")
        assert page.evaluate("document.activeElement.id") == "mode"
        assert box(page, "#mode")["top"] >= 0, "the view list, focused, is in sight"


def visited_step(data: dict[str, Any]) -> int:
    """A step at which some piece has visited three rooms or more (a long list in the table's last column)."""
    states = [frame["state"] for frame in build_frames(data, ALL)["frames"]]
    return next(i for i, state in enumerate(states) if any(len(piece.get("visited") or []) >= 3 for piece in state["pieces"]))


def test_on_a_phone_the_assassination_games_pieces_fit_with_the_rooms_visited_on_a_line_of_their_own(page: Page, tmp_path: Path) -> None:
    """Squeezed into the pieces' sixth column, the rooms each piece visited stood a word a line and the table scrolled
    sideways in its panel (out of reach of a keyboard: axe's scrollable-region-focusable); and each seat's box, at least
    300 pixels wide, ran 5 pixels out of the table's panel."""
    data = replay_data("assassination", 4, 1)
    replay = tmp_path / "assassination.json"
    replay.write_text(json.dumps(data))
    with BackgroundServer(replay_app(replay)) as server:
        page.set_viewport_size(PHONE)
        page.goto(server.url)
        page.wait_for_selector("body[data-step='0'][data-mode='all']")
        go_to_step(page, visited_step(data))
        pieces = page.evaluate("""() => {
          const panel = document.querySelector('.sub-panel[data-field=pieces]');
          const table = panel.querySelector('table.records');
          const width = table.getBoundingClientRect().width;
          return {over: panel.scrollWidth - panel.clientWidth, width,
                  visited: [...table.tBodies[0].rows].map((tr) => tr.cells[tr.cells.length - 1].getBoundingClientRect().width)};
        }""")
        assert pieces["over"] <= 0, f"the pieces' table runs {pieces['over']} pixels past its panel"
        assert all(abs(w - pieces["width"]) < 1 for w in pieces["visited"]), pieces
        seats = page.evaluate("""() => [...document.querySelectorAll('#table .player')].map((p) =>
          p.getBoundingClientRect().right - p.closest('.panel').getBoundingClientRect().right)""")
        assert seats and max(seats) <= 0, f"a seat runs past the table's panel: {seats}"
        # the pieces' numbered tokens on the board: a white number on each colour, 4.5:1 at least (amber was 3.2:1)
        tokens = page.eval_on_selector_all(
            "#table .board .token:not(.president)", "ts => ts.map(t => [t.textContent, getComputedStyle(t).color, getComputedStyle(t).backgroundColor])"
        )
        assert len({text for text, _, _ in tokens}) == 5, tokens
        low = {text: round(contrast(fore, back), 2) for text, fore, back in tokens if contrast(fore, back) < 4.5}
        assert low == {}, f"tokens whose number is hard to read: {low}"


def test_on_a_phone_the_owners_token_box_lines_up_with_the_panels_text(rows: Rows, page: Page) -> None:
    """Its status, empty until a token is given, still took a place in the row: the box stood 6 pixels in from the text."""
    with BackgroundServer(rows.client.app) as server:
        page.set_viewport_size(PHONE)
        page.goto(f"{server.url}/bots/one")
        page.wait_for_selector("body[data-ready]")
        heading = page.evaluate("document.getElementById('token-form').closest('.panel').querySelector('h2').getBoundingClientRect().left")
        assert box(page, "#token")["left"] == heading


def test_a_leaderboard_of_no_rated_bot_marks_no_leader_and_says_why(rows: Rows, page: Page) -> None:
    """The first row is the leader's, shaded: with no rated bot (only exhibitions so far) an unranked bot was shaded so."""
    with rows.ladder.make() as db:
        db.add_all(Rating(bot_version_id=v, game="generals-war", mu=25.0, sigma=25 / 3, games=0, updated_at=0.0) for v in db.scalars(select(BotVersion.id)))
        db.commit()
    shade = "getComputedStyle(document.querySelector('#standings tbody tr td')).backgroundColor"
    with BackgroundServer(rows.client.app) as server:
        page.goto(f"{server.url}/games/generals-war")
        page.wait_for_selector("#standings tbody tr")
        assert page.eval_on_selector_all("#standings td.rank", "cells => cells.map(c => c.textContent)") == ["\u2013", "\u2013"]
        assert page.evaluate(shade) == "rgba(0, 0, 0, 0)", "an unranked bot's row is shaded as the leader's"
        assert "2 bots are entered, and a bot is rated once a duplicate set of its matches is over" in page.inner_text("#empty")
        with rows.ladder.make() as db:
            db.execute(update(Rating).values(games=3))
            db.commit()
        page.wait_for_function("document.querySelector('#standings td.rank').textContent === '1'")
        assert page.evaluate(shade) != "rgba(0, 0, 0, 0)", "the leader's row is shaded"


def test_the_scores_and_links_of_the_bots_and_match_pages_read_against_their_background(page: Page, served: ServedLadder) -> None:
    """The grey of a score read 4.3:1 on the pale blue of the bot's own seat in its matches (axe: color-contrast), and a
    bot's name in the viewer's seat cards was told from the text around it by its blue alone, 2.4:1 (link-in-text-block)."""
    with served.ladder.make() as db:
        match = db.scalars(settled_matches()).first()
        assert match is not None
        bot = served.get(f"/api/matches/{match.id}").json()["seats"][0]["bot"]
    page.goto(f"{served.url}/bots/{bot}")
    page.wait_for_selector("#matches .seat-result.me .score")
    scores = page.eval_on_selector_all(
        "#matches .seat-result.me .score", "ss => ss.map(s => [getComputedStyle(s).color, getComputedStyle(s.closest('.me')).backgroundColor])"
    )
    assert min(contrast(fore, back) for fore, back in scores) >= 4.5, scores
    page.goto(f"{served.url}/matches/{match.id}")
    page.wait_for_selector(".seat-card a.bot")
    links = page.eval_on_selector_all(
        ".seat-card a.bot", "as => as.map(a => [getComputedStyle(a).textDecorationLine, getComputedStyle(a).color, getComputedStyle(a.parentElement).color])"
    )
    assert all(line == "underline" or contrast(fore, text) >= 3 for line, fore, text in links), links
