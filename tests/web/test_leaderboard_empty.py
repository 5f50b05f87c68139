"""A leaderboard with no rank to show, in Chromium: no bot entered in the game at all, and bots entered but none rated
yet, each told as what it is. Both read "no rated bot yet" (exhibitions and all), so a ladder just started told a
visitor nothing of how a bot is entered."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import select

from ladder.accounts import add_user
from ladder.api import LadderState, create_app
from ladder.models import Bot, BotVersion, Match, MatchSeat, Rating, User
from ladder.service import Ladder, LadderConfig
from tests.web.conftest import BackgroundServer
from tests.web.test_page_guards import Rows, rows  # noqa: F401  (rows: the fixture)

if TYPE_CHECKING:
    from playwright.sync_api import Page

CARD_SAYS = "game => document.querySelector(`.game-card[data-game='${game}'] p.small:not(:first-of-type)`)?.textContent"


def test_a_game_with_no_bot_entered_says_how_one_is_entered(tmp_path: Path, page: Page) -> None:
    config = LadderConfig(tmp_path / "data", workers=1, samples=False, games=["glory"])
    ladder = Ladder(config)
    with BackgroundServer(create_app(LadderState(ladder.make, ladder.store, config.data_dir))) as server:
        page.goto(f"{server.url}/games/glory")
        page.wait_for_selector("body[data-refreshes]")
        said = page.inner_text("#no-bot")
        assert "No bot is entered in this game yet" in said and "arena ladder submit" in said, said
        assert "docs/ladder.md" in said and "docs/bots.md" in said, said
        assert page.is_hidden("#empty"), "an empty ladder is not one whose bots are unrated"
        page.goto(server.url + "/")
        page.wait_for_function(f"({CARD_SAYS})('glory') !== undefined")
        assert page.evaluate(f"({CARD_SAYS})('glory')") == "no bot entered yet"


def test_bots_entered_below_the_smallest_table_are_said_to_play_exhibitions_and_how_many_more_are_needed(rows: Rows, page: Page) -> None:
    """Two bots of the Assassination Game, which seats four: unrated until two more join (not "no bot entered")."""
    with rows.ladder.make() as db:
        db.add_all(Rating(bot_version_id=v, game="assassination", mu=25.0, sigma=25 / 3, games=0, updated_at=0.0) for v in db.scalars(select(BotVersion.id)))
        db.commit()
    with BackgroundServer(rows.client.app) as server:
        page.goto(f"{server.url}/games/assassination")
        page.wait_for_selector("body[data-refreshes]")
        said = page.inner_text("#empty")
        assert "2 bots are entered" in said and "smallest table seats 4" in said and "exhibitions" in said and "until 2 more join" in said, said
        assert page.is_hidden("#no-bot")
        # "Games 0" and "Last match –" beside the exhibitions listed under them: the headers say what they count
        titles = page.eval_on_selector_all("#standings thead th", "ths => Object.fromEntries(ths.map(th => [th.textContent, th.title]))")
        assert "exhibitions" in titles["Games"] and "rating last changed" in titles["Last match"], titles
        page.goto(server.url + "/")
        page.wait_for_function(f"({CARD_SAYS})('assassination') !== undefined")
        assert page.evaluate(f"({CARD_SAYS})('assassination')") == "no rated bot yet"


def test_a_game_whose_bots_are_all_suspended_says_so_and_how_they_come_back(tmp_path: Path, page: Page) -> None:
    """Two bots entered in Glory, both suspended for forfeiting (ladder/suspension.py): the standings leave them out, and
    the page read "No bot is entered in this game yet", the front page's card "no bot entered yet"."""
    config = LadderConfig(tmp_path / "data", workers=1, samples=False, games=["glory", "generals-war"])
    ladder = Ladder(config)
    with ladder.make() as db:
        add_user(db, "alice")
        owner = db.scalars(select(User.id)).one()
        for name in ("crashy", "silent"):
            bot = Bot(name=name, owner_id=owner, created_at=0.0)
            db.add(bot)
            db.flush()
            version = BotVersion(bot_id=bot.id, seq=1, version="1", status="suspended", reason="suspended: forfeited", games=["glory"], language="python", path=name, created_at=0.0)
            db.add(version)
            db.flush()
            db.add(Rating(bot_version_id=version.id, game="glory", mu=25.0, sigma=25 / 3, games=0, updated_at=0.0))
        # and a match of General's War, settled, whose two bots were retired since
        played = Match(game="generals-war", seed=1, num_players=2, kind="rated", status="done", deal="d", created_at=0.0, finished_at=1.0)
        db.add(played)
        db.flush()
        for seat, name in enumerate(("gone", "went")):
            bot = Bot(name=name, owner_id=owner, created_at=0.0)
            db.add(bot)
            db.flush()
            version = BotVersion(bot_id=bot.id, seq=1, version="1", status="retired", games=["generals-war"], language="python", path=name, created_at=0.0)
            db.add(version)
            db.flush()
            db.add(MatchSeat(match_id=played.id, seat=seat, bot_version_id=version.id, rank=seat + 1, score=None, verdicts=[]))
        db.commit()
    with BackgroundServer(create_app(LadderState(ladder.make, ladder.store, config.data_dir))) as server:
        page.goto(f"{server.url}/games/glory")
        page.wait_for_selector("body[data-refreshes]")
        assert page.is_hidden("#no-bot") and page.is_hidden("#empty")
        said = page.inner_text("#all-suspended")
        assert "2 bots are entered in this game, all suspended (crashy, silent; their pages say why)" in said, said
        assert "arena ladder submit" in said and "arena ladder reinstate NAME" in said, said
        assert page.locator("#all-suspended a.bot").evaluate_all("links => links.map(a => a.getAttribute('href'))") == ["/bots/crashy", "/bots/silent"]
        page.goto(f"{server.url}/games/generals-war")  # a game none of them is entered in, whose bots that played left
        page.wait_for_selector("body[data-refreshes]")
        assert page.is_visible("#no-bot") and page.is_hidden("#all-suspended")
        said = page.inner_text("#no-bot")
        assert said.startswith("No bot is entered in this game now: those that played the matches below have left"), said
        assert page.locator("#recent tbody tr").count() == 1
        page.goto(server.url + "/")
        page.wait_for_function(f"({CARD_SAYS})('glory') !== undefined")
        assert page.evaluate(f"({CARD_SAYS})('glory')") == "2 bots entered, all suspended"
        assert page.evaluate(f"({CARD_SAYS})('generals-war')") == "no bot entered now: those that played have left"
