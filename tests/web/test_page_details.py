"""What a spectator or a bot's owner reads on the pages, against a ladder whose rows are written by hand (no match is
played): the standings' order, ranks and links, the front page's top three, a bot's versions, chart and owner's
controls, and the viewer opened from an address, stepping and playing, and saying why a replay cannot be shown."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
import pytest
from sqlalchemy import select, update

from ladder.accounts import add_user
from ladder.api import LadderState, create_app
from ladder.models import FINISHED, Bot, BotVersion, Match, MatchSeat, Rating, RatingChange, User
from ladder.service import Ladder, LadderConfig
from ladder.web.routes import replay_app
from referee.core.cards import card_str
from referee.games.registry import GAMES
from tests.web.conftest import GAME, BackgroundServer
from tests.web.test_frames import replay_data, steps
from tests.web.test_spectator import HOLD_SEAT_FRAMES

if TYPE_CHECKING:
    from playwright.sync_api import Page

OTHER = "glory"
HOSTILE_VERSION = '<img src=x onerror="window.injected = 1">'
#: bot -> (owner, [(status, version, {game: (mu, sigma, games)}) of each version]); a suspended version's reason holds markup
BOTS: dict[str, tuple[str, list[tuple[str, str, dict[str, tuple[float, float, int]]]]]] = {
    "one": ("alice", [("retired", "1", {GAME: (20.0, 3.0, 4)}), ("active", "2", {GAME: (30.0, 2.0, 2), OTHER: (25.0, 4.0, 10)})]),
    "two": ("bob", [("active", HOSTILE_VERSION, {GAME: (26.0, 2.0, 6)})]),
    "three": ("bob", [("active", "3", {GAME: (22.0, 2.0, 3), OTHER: (25.0, 8.333, 0)})]),  # entered in OTHER, unrated there
    "newbie": ("bob", [("active", "0.1", {GAME: (25.0, 8.333, 0), OTHER: (25.0, 8.333, 0)})]),
    "phoenix": ("alice", [("suspended", "1", {}), ("active", "2", {})]),
    "retiree": ("alice", [("retired", "1", {})]),
}


@dataclass
class Shown:
    ladder: Ladder
    url: str
    tokens: dict[str, str]
    played: int  # a settled match between one and two (two won), with a replay
    twin: int  # the other match of its deal
    failed: int
    cancelled: int  # never played: held for a version whose files were gone
    unsettled: int  # done, its twin still running
    gone: int  # settled, its replay file removed
    history: list[int]  # the matches of one's rating changes in GAME, oldest first (μ rising)


@pytest.fixture(scope="module")
def shown(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Shown]:
    tmp = tmp_path_factory.mktemp("page-details")
    config = LadderConfig(tmp / "data", workers=1, samples=False, games=[GAME, OTHER])
    ladder = Ladder(config)
    replay = tmp / "replay.json"
    replay.write_text(json.dumps(replay_data(GAME, 2, 7)))
    now = time.time()
    with ladder.make() as db:
        tokens = {name: add_user(db, name) for name in ("alice", "bob")}
        users = {u.name: u.id for u in db.scalars(select(User))}
        version_of: dict[tuple[str, int], int] = {}
        for name, (owner, versions) in BOTS.items():
            bot = Bot(name=name, owner_id=users[owner], created_at=now)
            db.add(bot)
            db.flush()
            for seq, (status, version, ratings) in enumerate(versions, start=1):
                reason = f"<i>forfeited</i> {seq}" if status == "suspended" else ""
                row = BotVersion(bot_id=bot.id, seq=seq, version=version, status=status, reason=reason, games=[GAME, OTHER], language="python", path=f"{name}/{seq}", created_at=now)
                db.add(row)
                db.flush()
                version_of[name, seq] = row.id
                for game, (mu, sigma, games) in ratings.items():
                    db.add(Rating(bot_version_id=row.id, game=game, mu=mu, sigma=sigma, games=games, updated_at=now))

        def match(status: str, deal: str, ranks: tuple[int | None, int | None], replay_path: str | None = None, error: str = "") -> int:
            found = Match(game=GAME, seed=7, num_players=2, kind="rated", status=status, deal=deal, created_at=now, error=error,
                          finished_at=now if status in FINISHED else None, replay_path=replay_path)  # fmt: skip
            db.add(found)
            db.flush()
            for seat, (bot, rank) in enumerate(zip((("one", 2), ("two", 1)), ranks, strict=True)):
                db.add(MatchSeat(match_id=found.id, seat=seat, bot_version_id=version_of[bot], rank=rank, score=None if rank is None else 3 - rank, verdicts=[]))
            return found.id

        played = match("done", "d1", (2, 1), str(replay))
        twin = match("done", "d1", (1, 2), str(replay))
        failed = match("failed", "d2", (None, None), error="the worker was lost")
        cancelled = match("cancelled", "d5", (None, None), error="one #1 is off the ladder and its files are gone from the ladder's bot store")
        unsettled = match("done", "d3", (1, 2), str(replay))
        match("running", "d3", (None, None))
        gone = match("done", "d4", (1, 2), str(tmp / "removed.json"))
        history = [played, twin, gone]
        for i, match_id in enumerate(history):  # one's first version only: its active one has no point yet
            db.add(RatingChange(match_id=match_id, bot_version_id=version_of["one", 1], game=GAME, mu=18.0 + i, sigma=3.0 - i / 2, created_at=now))
        db.commit()
    app = create_app(LadderState(ladder.make, ladder.store, config.data_dir))
    with BackgroundServer(app) as server:
        yield Shown(ladder, server.url, tokens, played, twin, failed, cancelled, unsettled, gone, history)


def sign_in(page: Page, token: str) -> None:
    page.fill("#token", token)
    page.click("#token-form button[type=submit]")
    page.wait_for_function("t => localStorage.getItem('arena.token') === t", arg=token)


def test_the_standings_rank_the_rated_bots_link_them_and_leave_a_newcomer_unranked_last(page: Page, shown: Shown) -> None:
    page.goto(f"{shown.url}/games/{GAME}")
    page.wait_for_selector("body[data-refreshes] #standings tbody tr")
    cells = page.eval_on_selector_all(
        "#standings tbody tr", "trs => trs.map(tr => [...tr.cells].slice(0, 4).map(td => td.innerText.trim()).concat(tr.querySelector('a.bot').getAttribute('href')))"
    )
    assert cells == [
        ["1", "one", "alice", "2 #2", "/bots/one"],
        ["2", "two", "bob", f"{HOSTILE_VERSION} #1", "/bots/two"],  # a version string is shown as written, never as HTML
        ["3", "three", "bob", "3 #1", "/bots/three"],
        ["\u2013", "newbie", "bob", "0.1 #1", "/bots/newbie"],
    ], cells
    # the newcomer's μ, σ and rating are the starting ones, which it never earned: none is shown (they read 0.00)
    figures = page.eval_on_selector_all("#standings tbody tr", "trs => trs.map(tr => [...tr.cells].slice(4, 7).map(td => td.innerText.trim()))")
    assert figures[-1] == ["\u2013"] * 3 and all("\u2013" not in f and f[2] for f in figures[:-1]), figures
    assert page.locator("#standings img").count() == 0 and page.evaluate("window.injected") is None
    assert page.is_hidden("#empty")
    # The latest matches: each links to its viewer (but one whose twin still plays: its page says "not yet"), the winner
    # first, and a failed match says why instead of a result.
    links = page.eval_on_selector_all("#recent tbody tr", "trs => trs.map(tr => [tr.dataset.match, tr.cells[0].querySelector('a')?.getAttribute('href')])")
    assert links and all(href == (None if int(match) == shown.unsettled else f"/matches/{match}") for match, href in links), links
    result = page.locator(f"#recent tr[data-match='{shown.played}'] .seat-result")
    assert result.all_inner_texts() == ["1. two 2", "2. one 1"]
    assert page.get_attribute(f"#recent tr[data-match='{shown.played}'] .seat-result:first-child", "class") == "seat-result won"
    assert page.inner_text(f"#recent tr[data-match='{shown.failed}'] td:last-child") == "failed: the worker was lost"
    assert page.inner_text(f"#recent tr[data-match='{shown.cancelled}'] td:last-child") == (
        "cancelled: one #1 is off the ladder and its files are gone from the ladder's bot store"
    )
    page.goto(f"{shown.url}/games/assassination")
    page.wait_for_selector("body[data-refreshes]")
    assert page.locator("#standings tbody tr").count() == 0 and page.is_visible("#no-bot") and page.is_hidden("#empty")


def test_a_row_whose_games_changed_flashes_and_a_ladder_out_of_reach_is_said_so(page: Page, shown: Shown) -> None:
    page.goto(f"{shown.url}/games/{GAME}")
    page.wait_for_selector("body[data-refreshes] #standings tbody tr")
    with shown.ladder.make() as db:
        three = select(BotVersion.id).join(Bot).where(Bot.name == "three").scalar_subquery()
        db.execute(update(Rating).where(Rating.bot_version_id == three, Rating.game == GAME).values(games=Rating.games + 1))
        db.commit()
    page.wait_for_selector("#standings tr[data-bot='three'].flash")  # at the next poll, without reloading
    assert page.eval_on_selector_all("#standings tr.flash", "trs => trs.map(tr => tr.dataset.bot)") == ["three"]
    page.route("**/api/games/*/standings", lambda route: route.abort())
    page.wait_for_selector("#live-status.stale")
    assert page.inner_text("#updated").startswith("cannot reach the ladder")
    page.unroute("**/api/games/*/standings")
    page.wait_for_selector("#live-status:not(.stale)")
    assert page.locator("#standings tr.flash").count() == 0, "a row flashes once, when its games change"


def test_the_front_page_shows_each_games_top_three_rated_bots_and_no_newcomer(page: Page, shown: Shown) -> None:
    page.goto(shown.url)
    page.wait_for_selector(f".game-card[data-game='{GAME}'] ol.top li")
    tops = page.eval_on_selector_all(".game-card", "cards => Object.fromEntries(cards.map(c => [c.dataset.game, [...c.querySelectorAll('ol.top li b')].map(b => b.textContent)]))")
    assert tops[GAME] == ["one", "two", "three"]
    assert tops[OTHER] == ["one"]
    assert tops["assassination"] == []
    counts = page.eval_on_selector_all(".game-card", "cards => Object.fromEntries(cards.map(c => [c.dataset.game, c.querySelector('p.small').textContent]))")
    assert counts["generals-war"] == "2 or 4 players" and counts["glory"] == "2 to 6 players", "said as a person would, not '2, 3, 4, 5, 6'"


def test_a_bots_page_lists_its_versions_newest_first_and_draws_its_history_where_it_belongs(page: Page, shown: Shown) -> None:
    page.goto(f"{shown.url}/bots/one")
    page.wait_for_selector("body[data-ready]")
    versions = page.eval_on_selector_all("#versions tbody tr", "trs => trs.map(tr => [...tr.cells].slice(0, 4).map(td => td.innerText.trim()))")
    assert versions == [["#2", "2", "active", "12"], ["#1", "1", "retired", "4"]]
    ratings = page.inner_text("#versions tbody tr:first-child td:nth-child(5)")
    assert f"{GAMES[GAME].spec.name}: " in ratings and GAME not in ratings, f"each game by its name, not its id: {ratings}"
    # Rated in two games: the picker is shown, the most played first (10 matches of Glory against 6 of General's War).
    assert page.is_visible("#game-pick-label")
    assert page.eval_on_selector_all("#game-pick option", "os => os.map(o => o.value)") == [OTHER, GAME]
    page.select_option("#game-pick", GAME)
    page.wait_for_selector("svg.rating-chart circle.dot.mu")
    # The active version's rating, although every point drawn is the first version's.
    assert page.inner_text("#rated-matches").replace("\n", " ") == "2 rated matches of #2"
    dots = page.eval_on_selector_all(
        "svg.rating-chart .dots a",
        "as => as.map(a => [a.getAttribute('href'), Number(a.querySelector('circle.mu').getAttribute('cy')), Number(a.nextElementSibling.getAttribute('cy'))])",
    )
    assert [href for href, _, _ in dots] == [f"/matches/{m}" for m in shown.history], "a point links to the match that rated it"
    mu_heights = [cy for _, cy, _ in dots]
    assert mu_heights == sorted(mu_heights, reverse=True) and len(set(mu_heights)) == 3, f"μ rose: each point is drawn higher ({mu_heights})"
    assert all(conservative > mu for _, mu, conservative in dots), "μ − 3σ is drawn below μ"
    lines = [page.get_attribute(f"svg.rating-chart path.line.{line}", "d") for line in ("mu", "conservative")]
    assert lines[0] and lines[1] and lines[0] != lines[1]


def test_a_game_of_no_rated_match_is_no_choice_of_the_chart_and_its_rating_reads_not_rated_yet(page: Page, shown: Shown) -> None:
    """three is entered in OTHER and has no rated match there: the chart's picker offered it (an empty chart) and its
    version read "Glory: 0.00 (μ 25.00, σ 8.33)", a rating it never earned. A newcomer rated in nothing keeps its games."""
    page.goto(f"{shown.url}/bots/three")
    page.wait_for_selector("body[data-ready]")
    assert page.eval_on_selector_all("#game-pick option", "os => os.map(o => o.value)") == [GAME]
    assert page.is_hidden("#game-pick-label")
    ratings = page.inner_text("#versions tbody tr:first-child td:nth-child(5)").splitlines()
    assert f"{GAMES[OTHER].spec.name}: not rated yet" in ratings and any(r.startswith(f"{GAMES[GAME].spec.name}: ") and "μ 22.00" in r for r in ratings), ratings
    page.goto(f"{shown.url}/bots/newbie")
    page.wait_for_selector("body[data-ready]")
    assert page.eval_on_selector_all("#game-pick option", "os => os.map(o => o.value)") == sorted([GAME, OTHER])
    # nor do the figures above its chart read a rating: they gave the starting one, "0.00 rating, 25.00 μ, 8.33 σ"
    assert page.inner_text("#rating-now").split() == ["–", "not", "rated", "yet", "0", "rated", "matches", "of", "#1"]
    assert "25.00" not in page.inner_text("#rating-now") and "No rated match" in page.inner_text("#chart")


def test_the_owner_gets_logs_of_settled_matches_only_and_no_withdrawal_without_an_active_version(page: Page, shown: Shown) -> None:
    page.goto(f"{shown.url}/bots/one")
    page.wait_for_selector("body[data-ready]")
    sign_in(page, shown.tokens["alice"])
    page.wait_for_selector(".log-button")
    offered = sorted({int(m) for m in page.eval_on_selector_all(".log-button", "bs => bs.map(b => b.dataset.match)")})
    assert offered == sorted([shown.played, shown.twin, shown.gone]), "no log of a failed match, nor of one whose twin is still played"
    # Its logs pruned (arena ladder prune), a match offers none: the button only answered 410.
    with shown.ladder.make() as db:
        db.execute(update(Match).where(Match.id == shown.gone).values(logs_pruned_days=30))
        db.commit()
    try:
        page.reload()
        page.wait_for_selector(".log-button")
        offered = sorted({int(m) for m in page.eval_on_selector_all(".log-button", "bs => bs.map(b => b.dataset.match)")})
        assert offered == sorted([shown.played, shown.twin])
        assert page.locator(".pruned").count() == 1 and "more than 30 days" in (page.get_attribute(".pruned", "title") or "")
    finally:
        with shown.ladder.make() as db:
            db.execute(update(Match).where(Match.id == shown.gone).values(logs_pruned_days=None))
            db.commit()
    assert page.is_visible("#withdraw")
    page.goto(f"{shown.url}/bots/retiree")
    page.wait_for_selector("body[data-ready]")
    assert "no active version" in page.inner_text("#bot-owner")
    page.wait_for_function("document.getElementById('token-status').textContent.includes('the owner')")
    assert page.is_hidden("#withdraw"), "nothing to withdraw"
    # A suspended version replaced by an active one: the page no longer says the bot is suspended.
    page.goto(f"{shown.url}/bots/phoenix")
    page.wait_for_selector("body[data-ready]")
    assert page.inner_text("#bot-owner") == "owned by alice · version 2 (#2) active"
    assert page.is_hidden("#suspended")
    assert page.inner_text("#versions tbody tr:last-child td:last-child") == "<i>forfeited</i> 1" and page.locator("#versions i").count() == 0


def test_the_viewer_opens_the_view_and_step_its_address_names_and_follows_the_address(page: Page, shown: Shown) -> None:
    viewer = f"{shown.url}/matches/{shown.played}"
    page.goto(viewer + "#view=1&step=3")
    page.wait_for_selector("body[data-mode='1'][data-step='3']")
    assert page.input_value("#mode") == "1" and "as seat 1 (two)" in page.inner_text("#table-title")
    page.evaluate("location.hash = '#view=0&step=5'")  # a link followed on the same page
    page.wait_for_selector("body[data-mode='0'][data-step='5']")
    page.evaluate("location.hash = '#view=all&step=2'")
    page.wait_for_selector("body[data-mode='all'][data-step='2']")
    page.goto(f"{shown.url}/")
    page.goto(viewer + "#view=7&step=2")  # no seat 7: everything, at that step
    page.wait_for_selector("body[data-mode='all'][data-step='2']")
    assert page.eval_on_selector_all("#match-seats a", "as => as.map(a => a.getAttribute('href'))") == ["/bots/one", "/bots/two"]


def test_the_viewers_buttons_stop_at_the_ends_and_play_starts_again_from_the_deal(page: Page, shown: Shown) -> None:
    page.goto(f"{shown.url}/matches/{shown.played}")
    page.wait_for_selector("body[data-step='0'][data-mode='all']")
    last = int(page.get_attribute("#scrub", "max") or 0)
    # said unavailable at an end, and still focusable: a disabled button dropped the focus it held (Enter on "last step"
    # left the keyboard's user on the page's body, nowhere among the controls)
    disabled = "() => ['first', 'prev', 'next', 'last'].map(id => document.getElementById(id).getAttribute('aria-disabled'))"
    assert page.evaluate(disabled) == ["true", "true", "false", "false"]
    page.focus("#last")
    page.keyboard.press("Enter")
    page.wait_for_selector(f"body[data-step='{last}']")
    assert page.evaluate(disabled) == ["false", "false", "true", "true"]
    assert page.evaluate("document.activeElement.id") == "last"
    page.keyboard.press("Enter")  # at the end already: nothing moves
    assert page.evaluate("document.body.dataset.step") == str(last)
    ranks = page.eval_on_selector_all("#step-info .result tbody td:first-child", "tds => tds.map(td => td.textContent)")
    assert ranks == sorted(ranks), "the result lists the winner first"
    page.select_option("#speed", "8")
    page.focus("#play")
    page.keyboard.press(" ")  # the focused button takes the space: it plays once, not play-then-pause
    page.wait_for_selector("#play.playing")
    page.wait_for_function(f"Number(document.body.dataset.step) < {last}")  # from the end, it plays from the deal again
    page.click("#play")
    page.wait_for_selector("#play:not(.playing)")


def test_in_a_seats_view_its_hand_is_on_its_own_panel_which_says_you(page: Page, shown: Shown) -> None:
    page.goto(f"{shown.url}/matches/{shown.played}#view=0&step=1")
    page.wait_for_selector("body[data-mode='0'][data-step='1']")
    assert page.locator(".player[data-seat='0'] [data-field='hand'] [data-card]").count() > 0
    assert page.locator(".player[data-seat='1'] [data-field='hand'], #table .piles [data-field='hand']").count() == 0
    assert page.locator(".player[data-seat='0'] .badge.you").count() == 1 and page.locator(".player[data-seat='1'] .badge.you").count() == 0
    to_act = page.eval_on_selector_all("#step-info .seat-ref", "refs => refs.map(r => r.textContent)")
    acting = page.eval_on_selector_all(".player:has(.badge.to-act)", "ps => ps.map(p => `seat ${p.dataset.seat}`)")
    assert acting and all(any(ref.startswith(seat) for ref in to_act) for seat in acting), (acting, to_act)


def test_a_card_chip_is_read_out_by_its_name_not_its_symbols(page: Page, shown: Shown) -> None:
    """A screen reader read a chip's text, "Q♥", as "Q black heart suit": each chip is an image named by its card."""
    page.goto(f"{shown.url}/matches/{shown.played}#view=0&step=1")
    page.wait_for_selector("body[data-mode='0'][data-step='1'] .player[data-seat='0'] [data-field='hand'] [data-card]")
    chips = page.eval_on_selector_all("[data-card]", "els => els.map(e => [e.dataset.card, e.getAttribute('role'), e.getAttribute('aria-label')])")
    ranks = dict(zip("A23456789TJQK", "ace two three four five six seven eight nine ten jack queen king".split()))
    suits = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}
    assert chips and all(role == "img" for _, role, _ in chips), chips
    assert all(label == ("joker" if card == "Jk" else f"{ranks[card[0]]} of {suits[card[1]]}") for card, _, label in chips), chips
    label = chips[0][2]
    assert page.get_by_role("img", name=label, exact=True).count() >= 1  # in the accessibility tree by that name


def test_a_seats_frames_that_come_after_another_view_was_chosen_are_not_drawn_in_it(page: Page, shown: Shown) -> None:
    """Seat 0's frames held back, seat 1 chosen meanwhile: when seat 0's come, seat 1's view stays drawn from its own."""
    deal, _ = next(steps(replay_data(GAME, 2, 7)))  # the game as dealt (the generator plays on in the same object)
    hidden_from_1 = {card_str(c) for c in deal.hidden_cards(1)}
    page.add_init_script(HOLD_SEAT_FRAMES)
    page.goto(f"{shown.url}/matches/{shown.played}")
    page.wait_for_selector("body[data-step='0'][data-mode='all']")
    page.select_option("#mode", "0")
    page.select_option("#mode", "1")
    page.wait_for_selector("body[data-mode='1']")
    with page.expect_response(lambda r: "frames?seat=0" in r.url):
        page.evaluate("window.releaseSeatFrames()")
    page.wait_for_timeout(500)  # time for the late frames to be (wrongly) drawn
    names = set(page.eval_on_selector_all("#table [data-card]", "els => els.map(e => e.dataset.card)"))
    assert page.evaluate("document.body.dataset.mode") == "1" and not names & hidden_from_1, sorted(names & hidden_from_1)
    assert names, "seat 1's own hand is drawn"


def test_the_viewer_of_a_match_failed_or_cancelled_says_so_and_why(page: Page, shown: Shown) -> None:
    """A cancelled match was told "This match is cancelled: its replay can be watched once it is over": it never will."""
    for match_id, said in ((shown.failed, "This match failed: the worker was lost."),
                           (shown.cancelled, "This match was cancelled, never played: one #1 is off the ladder and its files are gone from"
                                             " the ladder's bot store.")):
        page.goto(f"{shown.url}/matches/{match_id}")
        page.wait_for_selector("#viewer section.panel p")
        assert page.inner_text("#viewer section.panel p") == said


def test_the_viewer_says_why_a_replay_cannot_be_shown(page: Page, shown: Shown) -> None:
    page.goto(f"{shown.url}/matches/{shown.gone}")
    page.wait_for_selector("#table .error")
    assert page.inner_text("#table .error") == f"The replay cannot be shown: no replay for match {shown.gone}"


def test_a_local_replay_removed_since_it_was_opened_is_said_to_be_gone(page: Page, tmp_path: Path) -> None:
    replay = tmp_path / "gone.json"
    replay.write_text(json.dumps(replay_data(GAME, 2, 7)))
    app = replay_app(replay)  # reads the file once, to refuse what is not a replay
    replay.unlink()
    with BackgroundServer(app) as server:
        page.goto(server.url)
        page.wait_for_selector("#viewer .error")
        assert page.inner_text("#match-title") == "Match not found"
        assert "gone.json has changed or is gone since `arena replay` opened it" in page.inner_text("#viewer .error")


@pytest.mark.parametrize("where", ["bots", "games", "matches"])
def test_markup_in_an_address_is_written_as_text_in_the_not_found_page(shown: Shown, where: str) -> None:
    """The name is put into the page's title and into a data-* attribute its script reads: escaped in both."""
    name = '"><script>window.injected = 1</script><b title="'
    page = httpx.get(f"{shown.url}/{where}/{name}", timeout=30)
    assert page.status_code == 404
    assert "<script>window" not in page.text and "<b " not in page.text, page.text
    assert page.text.count("<script") == 1  # common.js: the page's heading and message are in its HTML
    escaped = name.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    assert escaped in page.text.split('data-message="')[1].split('"')[0]


def test_markup_in_a_local_replays_file_name_is_written_as_text_in_the_title(tmp_path: Path) -> None:
    """`arena replay FILE` names the page after the file, and a file name may hold markup (not a slash)."""
    replay = tmp_path / '<img src=x onerror="window.injected = 1">.json'
    replay.write_text(json.dumps(replay_data(GAME, 2, 7)))
    with BackgroundServer(replay_app(replay)) as server:
        page = httpx.get(server.url, timeout=30)
    assert page.status_code == 200 and "<img" not in page.text
    assert "<title>&lt;img src=x onerror=&quot;window.injected = 1&quot;&gt;.json · Arena replay</title>" in page.text


def test_only_a_missing_page_is_the_not_found_page(shown: Shown) -> None:
    """A page asked with the wrong method is refused as such (405, in a page: tests/web/test_page_guards.py), not called missing."""
    refused = httpx.post(f"{shown.url}/games/{GAME}", timeout=30)
    assert refused.status_code == 405 and refused.headers["content-type"].startswith("text/html"), refused.text
    assert "<h1 id=\"not-found-heading\">Method Not Allowed</h1>" in refused.text
    assert httpx.get(f"{shown.url}/games/{GAME}", timeout=30).status_code == 200


#: The cells of each table under ``selectors`` drawn past its container's right edge (out of sight, or scrolled to).
CUT_CELLS = """(selectors) => selectors.flatMap((selector) => {
  const box = document.querySelector(selector);
  const right = box.getBoundingClientRect().left + box.clientWidth + 0.5;
  return [...box.querySelectorAll("th, td")]
    .filter((cell) => cell.getClientRects().length && cell.getBoundingClientRect().right > right)
    .map((cell) => `${selector}: ${cell.textContent}`);
})"""


def test_a_bots_head_to_head_and_versions_fit_a_phone(page: Page, shown: Shown) -> None:
    """At 390 pixels a head to head of several games ran past its panel (the losses and the score out of sight), and so
    did the versions' seven columns (the ratings cut, the note out of sight): both scrolled sideways in their panel."""
    rows: list[dict[str, object]] = [{"game": g, "opponent": f"opponent-{i}", "games": 200, "wins": 38, "draws": 3, "losses": 159, "score": 0.2025, "last_match": 1.0} for i, g in enumerate(GAMES)]
    page.route("**/api/bots/one/crosstable*", lambda route: route.fulfill(json=rows))  # a bot of every game
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{shown.url}/bots/one")
    page.wait_for_selector("body[data-ready] #crosstable tbody tr")
    assert page.evaluate(CUT_CELLS, ["#crosstable", "#versions"]) == []
    # every figure is still there: the game under the opponent, the score as a percentage
    first = page.locator("#crosstable tbody tr").first
    assert first.inner_text().split() == ["opponent-0", *GAMES[next(iter(GAMES))].spec.name.split(), "200", "38", "3", "159", "20%"]
    said = page.eval_on_selector_all("#versions tbody tr:first-child td", "tds => tds.map(td => getComputedStyle(td, '::before').content)")
    assert said[4] == '"Ratings: "', said  # with no header above it, each line says what it is
