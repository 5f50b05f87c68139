"""The pages in headless Chromium, against a ladder on localhost that has played real matches.

Set ARENA_SCREENSHOTS=1 to write the screenshots of docs/web.md into docs/screenshots/.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import select

from ladder.models import Bot, BotVersion, Match, MatchSeat
from ladder.queries import UNSETTLED_DEALS
from referee.core.cards import card_str
from referee.server.replay import load_replay
from tests.web.conftest import GAME, ServedLadder, arena_replay, settled_matches
from tests.web.test_frames import steps

if TYPE_CHECKING:
    from playwright.sync_api import Page


def rows(page: Page) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = page.eval_on_selector_all(
        "#standings tbody tr",
        "trs => trs.map(tr => ({bot: tr.dataset.bot, games: Number(tr.dataset.games), rating: Number(tr.querySelector('[data-field=conservative]').textContent)}))",
    )
    return found


def dom_cards(page: Page) -> tuple[set[str], set[int]]:
    """The short names and the ids of every card chip in the document."""
    names = page.eval_on_selector_all("[data-card]", "els => els.map(e => e.dataset.card)")
    ids = page.eval_on_selector_all("[data-card-id]", "els => els.map(e => Number(e.dataset.cardId))")
    return set(names), set(ids)


def go_to_step(page: Page, step: int) -> None:
    page.fill("#scrub", str(step))
    page.wait_for_selector(f"body[data-step='{step}']")


def test_the_leaderboard_lists_the_bots_in_rating_order_and_updates_live(page: Page, served: ServedLadder, shots: Path) -> None:
    page.goto(served.url + "/")
    page.wait_for_selector(f".game-card[data-game='{GAME}'] ol.top li")
    page.wait_for_selector("#recent table.matches tbody tr")
    page.screenshot(path=str(shots / "index.png"), full_page=True)
    page.click(f".game-card[data-game='{GAME}']")
    page.wait_for_url(f"**/games/{GAME}")
    page.wait_for_function("document.querySelectorAll('#standings tbody tr').length === 3")
    shown = rows(page)
    api = served.get(f"/api/games/{GAME}/standings").json()
    assert [r["bot"] for r in shown] == [r["bot"] for r in api]
    assert [r["rating"] for r in shown] == sorted((r["rating"] for r in shown), reverse=True)
    assert [r["rating"] for r in shown] == [round(r["conservative"], 2) for r in api]
    assert page.inner_text("#standings tbody tr:first-child td:nth-child(3)") in ("alice", "bob")
    page.screenshot(path=str(shots / "leaderboard.png"), full_page=True)

    page.evaluate("window.__sameDocument = true")
    before = sum(r["games"] for r in shown)
    player = served.play_in_background(lambda: sum(r["games"] for r in served.get(f"/api/games/{GAME}/standings").json()) > before)
    try:
        page.wait_for_function(
            f"[...document.querySelectorAll('#standings tbody tr')].reduce((n, tr) => n + Number(tr.dataset.games), 0) > {before}", timeout=150_000
        )
    finally:
        player.join(timeout=200)
    assert page.evaluate("window.__sameDocument === true"), "the leaderboard changed by reloading the page"
    after = rows(page)
    assert [r["rating"] for r in after] == sorted((r["rating"] for r in after), reverse=True)


def test_the_bot_page_draws_the_chart_the_crosstable_and_gives_logs_to_the_owner_only(page: Page, served: ServedLadder, shots: Path) -> None:
    bot = "gw-greedy"
    with served.ladder.make() as db:  # a verdict to show: as if the bot had timed out once
        seat = db.scalars(
            select(MatchSeat)
            .join(BotVersion, BotVersion.id == MatchSeat.bot_version_id)
            .join(Bot, Bot.id == BotVersion.bot_id)
            .join(Match, Match.id == MatchSeat.match_id)
            # Settled: a match whose twin is still queued (a ladder stopped between them) keeps its verdicts back.
            .where(Bot.name == bot, Match.status == "done", Match.deal.not_in(UNSETTLED_DEALS))
            .order_by(Match.id.desc())
        ).first()
        assert seat is not None
        # and as if it had sent one decision the same illegal action three times (one badge, not three alike)
        illegal = {"kind": "ILLEGAL_ACTION", "decision": 5, "detail": "there is no land 99"}
        seat.verdicts = [{"kind": "TIMEOUT", "decision": 3, "detail": "no answer within 2000 ms"}, illegal, illegal, illegal]
        db.commit()

    def rated_games() -> int:
        return int(next(r for r in served.get(f"/api/games/{GAME}/standings").json() if r["bot"] == bot)["games"])

    before = rated_games()
    page.goto(f"{served.url}/bots/{bot}")
    page.wait_for_selector("body[data-ready]")

    history = served.get(f"/api/bots/{bot}/history", game=GAME).json()
    assert len(history) >= 2, "a rating point per duplicate set rated"
    # Beside the active version's rating, its rated matches: not every version's rating points (one per set).
    assert int(page.inner_text("#rated-matches b")) in (before, rated_games())
    assert "rated matches of #1" in page.inner_text("#rated-matches")
    assert page.locator("svg.rating-chart circle.dot.mu").count() == len(history)
    # One point per set, two matches each: the x axis counts rating updates, and says so (it said "rated matches played").
    assert len(history) < rated_games()
    assert "one per duplicate set" in (page.text_content("svg.rating-chart .axis-title") or "")
    mu_path = page.get_attribute("svg.rating-chart path.line.mu", "d") or ""
    assert mu_path.count("L") == len(history) - 1
    box = page.locator("svg.rating-chart").bounding_box()
    assert box is not None and box["width"] > 300 and box["height"] > 100

    crosstable = served.get(f"/api/bots/{bot}/crosstable").json()
    shown = page.eval_on_selector_all("#crosstable tbody tr", "trs => trs.map(tr => [tr.dataset.opponent, ...[...tr.querySelectorAll('td.num')].map(td => Number(td.textContent))])")
    assert shown == [[r["opponent"], r["games"], r["wins"], r["draws"], r["losses"]] for r in crosstable]

    badges = page.locator(f"#matches tr[data-match='{seat.match_id}'] .badge.verdict")
    assert badges.all_inner_texts() == ["timeout@3", "illegal action@5 ×3"]
    verdict = badges.nth(0)
    assert verdict.get_attribute("data-kind") == "TIMEOUT"  # in words, as the API's name
    assert badges.nth(1).get_attribute("title") == "there is no land 99 (3 times)"
    assert page.locator(".log-button").count() == 0

    page.fill("#token", served.tokens["bob"])
    page.click("#token-form button[type=submit]")
    page.wait_for_function("document.getElementById('token-status').textContent.includes('not the owner')")
    assert page.locator(".log-button").count() == 0

    page.fill("#token", served.tokens["alice"])
    page.click("#token-form button[type=submit]")
    page.wait_for_selector(".log-button")
    assert "the owner" in page.inner_text("#token-status")
    assert page.evaluate("localStorage.getItem('arena.token')") == served.tokens["alice"]
    button = page.locator(".log-button").first
    match_id, seat_no = button.get_attribute("data-match"), button.get_attribute("data-seat")
    with page.expect_download() as download:
        button.click()
    text = Path(download.value.path()).read_text()
    assert text == served.get(f"/api/matches/{match_id}/logs/{seat_no}", token=served.tokens["alice"]).json()["log"]
    page.reload()
    page.wait_for_selector(".log-button")  # the token is remembered
    page.screenshot(path=str(shots / "bot.png"), full_page=True)
    page.click("#token-forget")
    page.wait_for_function("document.querySelectorAll('.log-button').length === 0")


def test_the_viewer_steps_through_a_match_and_a_seat_sees_only_what_it_knew(page: Page, served: ServedLadder, shots: Path) -> None:
    with served.ladder.make() as db:
        match = db.scalars(settled_matches()).first()
        assert match is not None and match.replay_path
    data = load_replay(served.file(match.replay_path))
    hidden_from_0: list[set[int]] = []
    hands_of_1: list[set[str]] = []
    for game, _ in steps(data):
        hidden_from_0.append(set(game.hidden_cards(0)))
        hands_of_1.append(set(game.full_state()["players"][1]["hand"]))
    last = len(hidden_from_0) - 1
    # A step, as near the middle as can be, where seat 1 holds cards that seat 0 has never seen: screenshots are taken there.
    secret = [k for k in range(last + 1) if hands_of_1[k] & {card_str(c) for c in hidden_from_0[k]}]
    assert secret, "the match never hid a card of seat 1 from seat 0"
    telling = min(secret, key=lambda k: abs(k - last // 2))

    page.goto(f"{served.url}/matches/{match.id}")
    page.wait_for_selector("body[data-step='0'][data-mode='all']")
    assert page.inner_text("#step-label") == f"step 0 / {last}"
    page.click("#next")
    page.wait_for_selector("body[data-step='1']")
    page.keyboard.press("ArrowRight")
    page.wait_for_selector("body[data-step='2']")
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector("body[data-step='1']")
    page.keyboard.press("End")
    page.wait_for_selector(f"body[data-step='{last}']")
    assert page.locator("#step-info .result").count() == 1
    page.keyboard.press("Home")
    page.wait_for_selector("body[data-step='0']")
    page.select_option("#speed", "8")
    page.click("#play")
    page.wait_for_function("Number(document.body.dataset.step) >= 3")
    page.click("#play")
    paused = page.evaluate("Number(document.body.dataset.step)")
    time.sleep(0.5)
    assert page.evaluate("Number(document.body.dataset.step)") == paused

    # Everything: seat 1's hand is on the table at every step.
    for k in range(last + 1):
        go_to_step(page, k)
        names, _ = dom_cards(page)
        assert hands_of_1[k] <= names, f"step {k}: seat 1's hand is not shown in the everything view"
        if k == telling:
            page.screenshot(path=str(shots / "match-everything.png"), full_page=True)
    assert page.locator("#events .badge.private").count() > 0

    # As seat 0: no card seat 0 may not know is anywhere in the document, at any step.
    page.select_option("#mode", "0")
    page.wait_for_selector("body[data-mode='0']")
    assert "As seat 0" in page.inner_text("#mode-note")
    for k in range(last + 1):
        go_to_step(page, k)
        names, ids = dom_cards(page)
        hidden_names = {card_str(c) for c in hidden_from_0[k]}
        assert not names & hidden_names, f"step {k}: seat 0's view shows {sorted(names & hidden_names)}"
        assert not ids & hidden_from_0[k], f"step {k}: seat 0's view shows cards {sorted(ids & hidden_from_0[k])}"
        if k == telling:
            assert page.locator(".player[data-seat='1'] [data-field='hand_size']").inner_text() == str(len(hands_of_1[k]))
            page.screenshot(path=str(shots / "match-seat0.png"), full_page=True)
    assert page.locator("#events .badge.private").count() == 0
    assert page.url.endswith(f"#view=0&step={last}")


def test_arena_replay_serves_a_replay_file_in_the_same_viewer(page: Page, served: ServedLadder) -> None:
    with served.ladder.make() as db:
        match = db.scalars(settled_matches().order_by(None).order_by(Match.id.desc())).first()
        assert match is not None and match.replay_path
    path = served.file(match.replay_path)
    with arena_replay(path) as url:
        page.goto(url)
        page.wait_for_selector("body[data-step='0'][data-mode='all']")
        assert path.name in page.inner_text("#match-title")
        frames = served.get(f"/api/matches/{match.id}/frames", seat="1").json()["frames"]
        page.select_option("#mode", "1")
        page.wait_for_selector("body[data-mode='1']")
        page.keyboard.press("End")
        page.wait_for_selector(f"body[data-step='{len(frames) - 1}']")
        _, ids = dom_cards(page)
        game, _ = list(steps(load_replay(path)))[-1]
        assert not ids & game.hidden_cards(1)
        assert page.locator("#nav a").count() == 0  # no ladder behind a local replay


def test_a_suspended_bots_page_says_so_and_why(page: Page, served: ServedLadder) -> None:
    """A version the ladder suspended (ladder/suspension.py) plays no match: its author reads why at the top of its page."""
    from ladder.models import User

    reason = "suspended: forfeited its last 5 matches (#1, #2, #3, #4, #5); last: crash: the bot's process exited with code 1."
    with served.ladder.make() as db:  # a bot of its own, with no match: the other tests' bots and standings stay as they are
        owner = db.scalars(select(User.id).where(User.name == "alice")).one()
        bot = Bot(name="gw-crashy", owner_id=owner, created_at=time.time())
        db.add(bot)
        db.flush()
        db.add(BotVersion(
            bot_id=bot.id, seq=1, version="0.1", status="suspended", reason=reason, games=[GAME], language="python", path="gw-crashy/1",
            created_at=time.time(),
        ))
        db.commit()
    page.goto(f"{served.url}/bots/gw-crashy")
    page.wait_for_selector("body[data-ready]")
    assert page.inner_text("#bot-owner") == "owned by alice · version 0.1 (#1) suspended"
    assert page.is_visible("#suspended") and page.inner_text("#suspended") == f"#1 {reason}"
    assert page.inner_text("#versions .badge.status-suspended") == "suspended"
    page.goto(f"{served.url}/bots/gw-greedy")
    page.wait_for_selector("body[data-ready]")
    assert page.is_hidden("#suspended")
