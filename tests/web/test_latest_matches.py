"""The latest matches of the front page, a leaderboard and a bot's page, and the front page refreshing itself, against
a ladder whose rows are written by hand (no match is played): which matches are listed (the finished ones, newest
first, so many), what a failed or cancelled match or one whose twin is still playing shows, and what the front page redraws on its
own, when, and what it keeps when a poll fails. The page's timers run on Playwright's clock, never on the wall's."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest
from sqlalchemy import select, update

from ladder.accounts import add_user
from ladder.api import LadderState, create_app
from ladder.models import FINISHED, Bot, BotVersion, Match, MatchSeat, Rating, User
from ladder.recorded import number_settled
from ladder.service import Ladder, LadderConfig
from referee.games.registry import GAMES
from tests.web.conftest import GAME, BackgroundServer

if TYPE_CHECKING:
    from playwright.sync_api import Page

OTHER = "glory"
#: The lists' lengths, as the pages ask for them (index.js, leaderboard.js, bot.js).
FRONT, LEADERBOARD, BOT_PAGE = 10, 10, 25
#: Finished matches of GAME between ace and bee: more than a bot's page lists.
PLAYED = 28
ERROR = "the worker was lost <b>twice</b>"  # written as text, never as markup
CANCELLED = "the files of <b>bee</b> #1 were gone from the ladder's bot store for 1 h, the longest a match waits for them"
#: bot -> (owner, {game: (mu, sigma, games)}): the top three of GAME are ace, bee, cat; dog is fourth.
BOTS = {
    "ace": ("alice", {GAME: (30.0, 2.0, 30), OTHER: (27.0, 2.0, 2)}),
    "bee": ("bob", {GAME: (27.0, 2.0, 28)}),
    "cat": ("bob", {GAME: (24.0, 2.0, 6), OTHER: (25.0, 2.0, 2)}),
    "dog": ("alice", {GAME: (21.0, 2.0, 6)}),
}


@dataclass
class Rows:
    ladder: Ladder
    url: str
    finished: list[tuple[float, int, str]]  # (finished_at, id, game) of every finished match
    failed: int
    cancelled: int  # held for a version whose files were gone, never played
    unsettled: int  # done, its twin still running
    running: int
    queued: int
    now: float

    def get(self, path: str, **params: Any) -> httpx.Response:
        return httpx.get(self.url + path, params=params, timeout=60)

    def latest(self, game: str | None = None) -> list[int]:
        """The finished matches' ids, the last finished first (the later id first between two that ended together)."""
        return [i for _, i, g in sorted(self.finished, reverse=True) if game in (None, g)]

    def add_match(self, game: str, finished_at: float, winner: str, loser: str, status: str = "done") -> int:
        """A match of two seats, finished at ``finished_at`` (None while queued or running), in a deal of its own; a
        finished one is settled after every match added before it, whatever its end time (ladder/recorded.py)."""
        with self.ladder.make() as db:
            ids = dict(db.execute(select(Bot.name, BotVersion.id).join(BotVersion, BotVersion.bot_id == Bot.id)).all())
            found = Match(game=game, seed=7, num_players=2, kind="rated", status=status, deal=f"d{len(self.finished)}-{winner}-{loser}-{finished_at}",
                          created_at=self.now, finished_at=finished_at if status in FINISHED else None)  # fmt: skip
            db.add(found)
            db.flush()
            done = status == "done"
            for seat, (bot, rank) in enumerate(((winner, 1), (loser, 2))):
                db.add(MatchSeat(match_id=found.id, seat=seat, bot_version_id=ids[bot], rank=rank if done else None, score=3 - rank if done else None, verdicts=[]))
            number_settled(db.connection(), [found.id])
            db.commit()
            if status in FINISHED:
                self.finished.append((finished_at, found.id, game))
            return found.id


@contextmanager
def hand_made(tmp: Path) -> Iterator[Rows]:
    """PLAYED matches of GAME finished in an order that is not their ids' (two of them at the same time), two of OTHER
    the last to finish, a failed one, a cancelled one, one whose twin is running, and one queued: served on localhost."""
    config = LadderConfig(tmp / "data", workers=1, samples=False, games=[GAME, OTHER])
    ladder = Ladder(config)
    now = time.time()
    with ladder.make() as db:
        for name in ("alice", "bob"):
            add_user(db, name)
        users = {u.name: u.id for u in db.scalars(select(User))}
        for name, (owner, ratings) in BOTS.items():
            bot = Bot(name=name, owner_id=users[owner], created_at=now)
            db.add(bot)
            db.flush()
            version = BotVersion(bot_id=bot.id, seq=1, version="1", status="active", reason="", games=[GAME, OTHER], language="python", path=name, created_at=now)
            db.add(version)
            db.flush()
            for game, (mu, sigma, games) in ratings.items():
                db.add(Rating(bot_version_id=version.id, game=game, mu=mu, sigma=sigma, games=games, updated_at=now))
        db.commit()
    rows = Rows(ladder, "", [], 0, 0, 0, 0, 0, now)
    # the k-th match made ended (11 k mod PLAYED) minutes before the tenth minute ago: the newest ids are not the newest matches
    for k in range(PLAYED):
        rows.add_match(GAME, now - 60 * (11 * k % PLAYED) - 600, *(("ace", "bee") if k % 2 else ("bee", "ace")))
    tie = max(rows.finished)[0]
    rows.failed = rows.add_match(GAME, tie, "bee", "ace", status="failed")  # ends with the newest of them: the later id first
    rows.cancelled = rows.add_match(GAME, tie - 1, "ace", "bee", status="cancelled")
    rows.unsettled = rows.latest(GAME)[3]
    rows.running = rows.add_match(GAME, now, "bee", "ace", status="running")
    with ladder.make() as db:
        db.execute(update(Match).where(Match.id == rows.failed).values(error=ERROR))
        db.execute(update(Match).where(Match.id == rows.cancelled).values(error=CANCELLED))
        twin = db.get_one(Match, rows.unsettled)
        db.execute(update(Match).where(Match.id == rows.running).values(deal=twin.deal))
        db.execute(update(Match).where(Match.id == rows.unsettled).values(recorded=None))  # as the ladder leaves it, its twin playing
        db.commit()
    rows.queued = rows.add_match(GAME, now, "ace", "bee", status="queued")
    rows.add_match(OTHER, now - 120, "cat", "ace")
    rows.add_match(OTHER, now - 60, "ace", "cat")
    app = create_app(LadderState(ladder.make, ladder.store, config.data_dir))
    with BackgroundServer(app) as server:
        rows.url = server.url
        yield rows


@pytest.fixture(scope="module")
def rows(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Rows]:
    with hand_made(tmp_path_factory.mktemp("latest-matches")) as made:
        yield made


@pytest.fixture
def changing(tmp_path: Path) -> Iterator[Rows]:
    """Rows of its own, for a test that adds matches and changes ratings."""
    with hand_made(tmp_path) as made:
        yield made


def test_the_fixture_orders_the_matches_otherwise_by_end_time_than_by_id(rows: Rows) -> None:
    """What the other tests lean on: listing by id, or by end time without the id between equals, is told apart."""
    front = rows.latest()[:FRONT]
    assert front != sorted(front, reverse=True)
    assert rows.failed in front and rows.cancelled in front and rows.unsettled in front
    times = [t for t, i, _ in rows.finished if i in front]
    assert len(set(times)) < len(times)


def test_the_api_lists_the_finished_matches_newest_first_then_by_id_so_many_of_a_game_or_a_bot(rows: Rows) -> None:
    listed = rows.get("/api/matches", limit=FRONT).json()
    assert [m["id"] for m in listed] == rows.latest()[:FRONT]
    assert [m["id"] for m in rows.get("/api/matches").json()] == rows.latest()[:20]  # the default
    assert [m["id"] for m in rows.get("/api/matches", limit=200).json()] == rows.latest()  # nothing queued or running
    assert [m["id"] for m in rows.get("/api/matches", game=GAME, limit=LEADERBOARD).json()] == rows.latest(GAME)[:LEADERBOARD]
    cat = [i for _, i, g in sorted(rows.finished, reverse=True) if g == OTHER]
    assert [m["id"] for m in rows.get("/api/matches", bot="cat", limit=BOT_PAGE).json()] == cat
    assert [m["id"] for m in rows.get("/api/matches", bot="ace", limit=BOT_PAGE).json()] == rows.latest()[:BOT_PAGE]
    shown = {m["id"]: m for m in listed}
    failed = shown[rows.failed]
    assert (failed["status"], failed["error"], [s["rank"] for s in failed["seats"]]) == ("failed", ERROR, [None, None])
    cancelled = shown[rows.cancelled]
    assert (cancelled["status"], cancelled["error"], cancelled["settled"]) == ("cancelled", CANCELLED, True)
    unsettled = shown[rows.unsettled]
    assert unsettled["status"] == "done" and unsettled["settled"] is False
    assert sorted(s["bot"] for s in unsettled["seats"]) == ["ace", "bee"]
    assert [(s["rank"], s["score"], s["verdicts"]) for s in unsettled["seats"]] == [(None, None, [])] * 2


# Each listed row: its match, the text of its result cell and of each seat in it, whether it is marked failed (or
# cancelled), and who is marked the winner.
ROWS = """(selector) => [...document.querySelectorAll(selector + " tbody tr")].map((tr) => ({
  id: Number(tr.dataset.match),
  result: tr.cells[tr.cells.length - 1].textContent,
  seats: [...tr.querySelectorAll(".seat-result")].map((s) => s.textContent),
  failed: tr.classList.contains("failed"),
  cancelled: tr.classList.contains("cancelled"),
  won: [...tr.querySelectorAll(".seat-result.won a.bot")].map((a) => a.textContent),
  markup: tr.querySelector("td b") !== null,
  linked: tr.cells[0].querySelector("a") !== null,
}))"""


def test_the_front_page_and_a_leaderboard_list_the_ten_latest_finished_matches_newest_first(rows: Rows, page: Page) -> None:
    api = {m["id"]: m["seats"] for m in rows.get("/api/matches", limit=200).json()}
    # a played match: the winner first, marked so, each seat with its rank and score
    ranked = {i: [f"{s['rank']}. {s['bot']} {s['score']:g}" for s in sorted(seats, key=lambda s: s["rank"])] for i, seats in api.items() if seats[0]["rank"]}
    for path, expected in (("/", rows.latest()[:FRONT]), (f"/games/{GAME}", rows.latest(GAME)[:LEADERBOARD])):
        page.goto(rows.url + path)
        page.wait_for_selector("#recent tbody tr")
        shown = {r["id"]: r for r in page.evaluate(ROWS, "#recent")}
        assert list(shown) == expected, path
        failed = shown[rows.failed]
        assert (failed["result"], failed["seats"], failed["failed"], failed["markup"]) == (f"failed: {ERROR}", [], True, False), path
        # never played, a cancelled match is no failure: it says so, and why
        cancelled = shown[rows.cancelled]
        assert (cancelled["result"], cancelled["seats"], cancelled["failed"], cancelled["cancelled"], cancelled["markup"]) == (
            f"cancelled: {CANCELLED}", [], False, True, False), path
        # its twin still playing, a match shows who played and nothing of how it went
        assert (shown[rows.unsettled]["seats"], shown[rows.unsettled]["won"]) == ([s["bot"] for s in api[rows.unsettled]], []), path
        # nor a link to its page, which says "not yet" (a 404) until the deal is over; every other row has one
        assert [i for i, r in shown.items() if not r["linked"]] == [rows.unsettled], path
        played = {i: (r["seats"], r["won"]) for i, r in shown.items() if i not in (rows.failed, rows.cancelled, rows.unsettled)}
        assert played == {i: (ranked[i], [ranked[i][0].split()[1]]) for i in played}, path
        assert not any(r["failed"] or r["cancelled"] for i, r in shown.items() if i not in (rows.failed, rows.cancelled)), path
        # what a score counts, where the winner's may be the lower ("1. random 4  2. gw-greedy 5" in General's War)
        said = f"score: {GAMES[GAME].spec.score}"
        titles = page.eval_on_selector_all(f"#recent tr[data-match='{played.popitem()[0]}'] .seat-result .score", "ss => ss.map(s => s.title)")
        assert titles == [said, said], path
        if path != "/":  # a leaderboard's matches are of its game alone: it says it in sight, for a phone too
            assert page.inner_text("#score-meaning") == f"Score: {GAMES[GAME].spec.score}.", path


def test_a_bots_page_lists_its_twenty_five_latest_finished_matches_of_every_game(rows: Rows, page: Page) -> None:
    page.goto(f"{rows.url}/bots/ace")
    page.wait_for_selector("body[data-ready] #matches tbody tr")
    assert [r["id"] for r in page.evaluate(ROWS, "#matches")] == rows.latest()[:BOT_PAGE]
    page.goto(f"{rows.url}/bots/cat")
    page.wait_for_selector("body[data-ready] #matches tbody tr")
    assert [r["id"] for r in page.evaluate(ROWS, "#matches")] == rows.latest(OTHER)


def listed(page: Page) -> list[int]:
    return [int(i) for i in page.eval_on_selector_all("#recent tbody tr", "trs => trs.map(tr => tr.dataset.match)")]


def top_three(page: Page, game: str = GAME) -> list[str]:
    return page.eval_on_selector_all(f".game-card[data-game='{game}'] ol.top li b", "bs => bs.map(b => b.textContent)")


def polls(page: Page, latest: int, games: int) -> None:
    """Wait until the front page's polls of its latest matches and of its games have ended so many times each (index.js)."""
    page.wait_for_selector(f"body[data-recent-polls='{latest}'][data-games-polls='{games}']")


def requests_to(page: Page, path: str) -> list[str]:
    """The addresses the page asks under ``path`` from now on (the list grows as it asks)."""
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url) if path in request.url else None)
    return asked


def stop_the_clock(page: Page, rows: Rows) -> None:
    """The page's timers on Playwright's clock, which moves only when the test moves it."""
    page.clock.install(time=rows.now)
    page.clock.pause_at(rows.now + 1)


def dog_wins(rows: Rows) -> int:
    """A new match, the last to finish, and dog rated first in GAME: the match it returns."""
    newest = rows.add_match(GAME, rows.now, "dog", "cat")
    with rows.ladder.make() as db:
        dog = select(BotVersion.id).join(Bot).where(Bot.name == "dog").scalar_subquery()
        db.execute(update(Rating).where(Rating.bot_version_id == dog, Rating.game == GAME).values(mu=40.0, games=Rating.games + 1))
        db.commit()
    return newest


def test_the_front_page_shows_a_new_match_within_five_seconds_and_new_standings_within_fifteen(changing: Rows, page: Page) -> None:
    # the latest matches (a game with no bot asks for one match of its own, index.js lookForMatches), the standings
    matches, standings = requests_to(page, "/api/matches?limit="), requests_to(page, "/standings")
    stop_the_clock(page, changing)
    page.goto(changing.url)
    polls(page, 1, 1)
    assert listed(page) == changing.latest()[:FRONT] and top_three(page) == ["ace", "bee", "cat"]
    newest = dog_wins(changing)
    page.clock.run_for(4_999)
    assert (len(matches), len(standings)) == (1, len(GAMES)), "nothing asked again before 5 s"
    page.clock.run_for(1)
    polls(page, 2, 1)
    assert listed(page) == changing.latest()[:FRONT] and listed(page)[0] == newest, "the new match on top, the oldest of before gone"
    assert top_three(page) == ["ace", "bee", "cat"] and page.url == changing.url + "/"
    page.clock.run_for(9_999)
    polls(page, 3, 1)
    assert len(standings) == len(GAMES) and top_three(page) == ["ace", "bee", "cat"]
    page.clock.run_for(1)
    polls(page, 4, 2)
    assert top_three(page) == ["dog", "ace", "bee"]
    assert (len(matches), len(standings)) == (4, 2 * len(GAMES)), "the latest matches asked at 0, 5, 10 and 15 s, the games at 0 and 15 s"


def test_a_failed_poll_keeps_what_the_front_page_shows_and_the_next_one_catches_up(changing: Rows, page: Page) -> None:
    stop_the_clock(page, changing)
    page.goto(changing.url)
    polls(page, 1, 1)
    before = listed(page)
    newest = dog_wins(changing)
    page.route("**/api/**", lambda route: route.abort())
    page.clock.run_for(15_000)
    polls(page, 4, 2)  # every one of them refused
    assert listed(page) == before
    assert top_three(page) == ["ace", "bee", "cat"], "a standings poll that failed is not 'no rated bot yet'"
    page.unroute("**/api/**")
    page.clock.run_for(15_000)
    polls(page, 7, 3)
    assert listed(page)[0] == newest and top_three(page) == ["dog", "ace", "bee"]


def test_the_games_come_at_the_next_poll_when_the_ladder_could_not_list_them_at_first(changing: Rows, page: Page) -> None:
    """The list of games was asked once: refused, the front page stayed without a game until it was reloaded."""
    from playwright.sync_api import expect

    stop_the_clock(page, changing)
    page.route("**/api/games", lambda route: route.abort())
    page.route("**/standings", lambda route: route.abort())
    page.goto(changing.url)
    polls(page, 1, 1)
    assert page.locator(".game-card").count() == 0 and page.locator("#nav a[href^='/games/']").count() == 0
    page.unroute("**/api/games")
    page.clock.run_for(15_000)
    polls(page, 4, 2)
    # The navigation bar's links to the games too (asked again every 5 s until the ladder answers)
    expect(page.locator("#nav a[href^='/games/']")).to_have_count(len(GAMES))
    said = page.eval_on_selector_all(".game-card p.small:not(:first-of-type)", "ps => ps.map(p => p.textContent)")
    assert said == ["cannot reach the ladder; trying again"] * len(GAMES), "standings never read are not 'no rated bot yet'"
    page.unroute("**/standings")
    page.clock.run_for(15_000)
    polls(page, 7, 3)
    assert top_three(page) == ["ace", "bee", "cat"]


FOCUSED = "(() => { const e = document.activeElement; return [e.tagName, e.getAttribute('href'), e.isConnected]; })()"


def test_a_redrawn_list_keeps_the_keyboards_focus_where_it_was(rows: Rows, page: Page) -> None:
    """The front page redraws its latest matches every 5 s and its games every 15 s, a leaderboard its standings and
    matches every 2 s, changed or not: a link tabbed to was taken away with them, the focus left on the page's body, and
    Enter opened nothing."""
    stop_the_clock(page, rows)
    page.goto(rows.url)
    polls(page, 1, 1)
    match = rows.latest()[1]
    page.focus(f"#recent tr[data-match='{match}'] a[href='/matches/{match}']")
    page.clock.run_for(5_000)
    polls(page, 2, 1)
    assert page.evaluate(FOCUSED) == ["A", f"/matches/{match}", True]
    page.focus(f".game-card[data-game='{OTHER}']")
    page.clock.run_for(15_000)
    polls(page, 5, 2)
    assert page.evaluate(FOCUSED) == ["A", f"/games/{OTHER}", True]

    page.goto(f"{rows.url}/games/{GAME}")
    page.wait_for_selector("body[data-refreshes='1']")
    page.focus("#standings tr[data-bot='bee'] a")
    page.clock.run_for(2_000)
    page.wait_for_selector("body[data-refreshes='2']")
    assert page.evaluate(FOCUSED) == ["A", "/bots/bee", True]
    page.keyboard.press("Enter")
    page.wait_for_url("**/bots/bee")
