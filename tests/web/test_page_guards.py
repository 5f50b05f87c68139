"""Pages and summaries against a ladder whose rows are written by hand (no match is played: fast); the tests given a `page` drive Chromium."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from fastapi import FastAPI, HTTPException
from fastapi.testclient import TestClient
from sqlalchemy import select, update

from ladder.accounts import add_user
from ladder.api import LadderState, create_app
from ladder.models import Bot, BotVersion, Match, MatchSeat, Rating, RatingChange
from ladder.service import Ladder, LadderConfig
from ladder.web import replay_app
from tests.web.conftest import BackgroundServer, alices_bots
from tests.web.test_frames import replay_data

if TYPE_CHECKING:
    from playwright.sync_api import Page

GAME = "generals-war"
ILLEGAL = {"kind": "ILLEGAL_ACTION", "decision": 3, "detail": "card 23 is not in your hand"}


@dataclass
class Rows:
    ladder: Ladder
    client: TestClient
    first: int  # a finished match of a duplicate set
    twin: int  # the other match of its deal, still running


@pytest.fixture
def rows(tmp_path: Path) -> Iterator[Rows]:
    """Two bots and a duplicate set: the first match done (seat 0 with an ILLEGAL_ACTION verdict), its twin running."""
    config = LadderConfig(tmp_path / "data", workers=1, samples=False, games=[GAME])
    ladder = Ladder(config)
    now = time.time()
    with ladder.make() as db:
        versions = alices_bots(db, ("one", "two"), now)
        first, twin = (
            Match(game=GAME, seed=7, num_players=2, kind="rated", status=status, deal="deal-1", created_at=now, finished_at=now if status == "done" else None)
            for status in ("done", "running")
        )
        db.add_all([first, twin])
        db.flush()
        for match in (first, twin):
            for seat, version_id in enumerate(versions):
                done = match is first
                verdicts = [ILLEGAL] if done and seat == 0 else []
                db.add(MatchSeat(match_id=match.id, seat=seat, bot_version_id=version_id, rank=seat + 1 if done else None, score=None, verdicts=verdicts))
        db.commit()
        ids = first.id, twin.id
    app = create_app(LadderState(ladder.make, ladder.store, config.data_dir))
    with TestClient(app) as client:
        yield Rows(ladder, client, *ids)


def test_verdicts_are_kept_back_until_the_deal_is_settled(rows: Rows) -> None:
    """An illegal action's detail names the cards the bot tried ("card 23 is not in your hand"): while the twin is
    played, the other bot (which holds that hand there) could read them as well as it could the replay. The kind
    and the decision alone told how the deal went too (a forfeit, a rank; a timeout, how long the match ran)."""
    for listed in (rows.client.get(f"/api/matches/{rows.first}").json(), *rows.client.get("/api/matches").json()):
        assert listed["seats"][0]["verdicts"] == []
        assert "card 23" not in str(listed) and "ILLEGAL_ACTION" not in str(listed), listed
    with rows.ladder.make() as db:
        db.execute(update(Match).where(Match.id == rows.twin).values(status="done"))
        db.commit()
    assert rows.client.get(f"/api/matches/{rows.first}").json()["seats"][0]["verdicts"] == [ILLEGAL]


@pytest.mark.parametrize("path", ["/bots/{{ content }}", "/games/{{ scripts }}", "/bots/{{ body_attrs }}", "/games/x{{ title }}", "/bots/{{ message }}", "/games/{{ heading }}"])
def test_a_name_in_the_address_is_shown_as_text_and_never_filled_in_as_a_template(rows: Rows, path: str) -> None:
    """The page template's placeholders were filled in one after another, so a placeholder in an unknown name (put
    into the page's title and its not-found message) was filled in too: markup spliced into an attribute."""
    page = rows.client.get(path)
    assert page.status_code == 404
    text = page.text
    assert text.count('id="not-found-message"') == 1 and text.count("<script src=") == 1 and text.count("<body") == 1
    assert text.count("<title>") == 1 and text.count('data-message="') == 1
    name = path.split("/")[-1]
    assert name in text.split('data-message="')[1].split('"')[0]
    assert name in text.split('<p id="not-found-message">')[1].split("</p>")[0]
    assert '<h1 id="not-found-heading">Not found</h1>' in text


@pytest.mark.parametrize("path", ["/matches/abc", "/matches/1.5", "/matches/%20", "/nope", "/games/generals-war/extra", "/bots/one/versions"])
def test_an_address_of_no_page_is_the_not_found_page(rows: Rows, path: str) -> None:
    """A mistyped match id was a 422 in JSON and any other address a JSON 404: a spectator following a bad link got no page."""
    page = rows.client.get(path)
    assert page.status_code == 404 and page.headers["content-type"].startswith("text/html"), page.text
    assert 'id="not-found-message"' in page.text


def shown_text(page: str) -> tuple[str, str]:
    """The heading and the message of a not-found page as its HTML holds them, before any script ran."""
    heading = page.split('<h1 id="not-found-heading">')[1].split("</h1>")[0]
    return heading, page.split('<p id="not-found-message">')[1].split("</p>")[0]


def test_the_not_found_pages_say_why_in_their_html(rows: Rows) -> None:
    """Their heading and message were written in by an inline script: without it (curl, a reader view, a crawler, a
    script blocked) every such page read "Not found" and nothing more, the "Pruned" (410) and "Not yet" ones too."""
    assert shown_text(rows.client.get("/bots/<b>x").text) == ("Not found", "There is no bot &#x27;&lt;b&gt;x&#x27;.")
    heading, message = shown_text(rows.client.get(f"/matches/{rows.first}").text)
    assert heading == "Not yet" and message.startswith(f"Match {rows.first} is not over yet")
    with rows.ladder.make() as db:
        db.execute(update(Match).where(Match.id == rows.twin).values(status="done", finished_at=time.time()))
        db.execute(update(Match).where(Match.id == rows.first).values(replay_pruned_days=30))
        db.commit()
    pruned = rows.client.get(f"/matches/{rows.first}")
    heading, message = shown_text(pruned.text)
    assert pruned.status_code == 410 and heading == "Pruned" and message.startswith(f"The replay of match {rows.first} is no longer kept")
    assert "<title>Pruned</title>" in pruned.text and "<script>" not in pruned.text


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"])
def test_a_page_asked_with_a_method_it_does_not_take_answers_a_page_saying_so(rows: Rows, method: str) -> None:
    """A form or a script that POSTed to a page's address got {"detail":"Method Not Allowed"} in JSON, in a browser;
    the page says what was asked and how the page is read, with the status and the methods it takes (HEAD among them:
    it is answered as GET)."""
    for path in ("/", f"/games/{GAME}", "/bots/one", f"/matches/{rows.first}"):
        refused = rows.client.request(method, path)
        assert refused.status_code == 405 and refused.headers["content-type"].startswith("text/html"), (path, refused.text)
        assert refused.headers["allow"] == "GET, HEAD"
        heading, message = shown_text(refused.text)
        assert heading == "Method Not Allowed"
        assert message == f"{method} is not answered at {path}: this page is read with GET, HEAD, as a link or the address bar asks for it."
    # the API keeps answering in JSON, its Allow naming HEAD too
    api = rows.client.request(method, "/api/games")
    assert api.status_code == 405 and api.headers["content-type"] == "application/json" and api.headers["allow"] == "GET, HEAD"
    assert api.json()["detail"] == f"{method} is not answered at /api/games: it takes GET, HEAD"
    assert rows.client.head("/").status_code == rows.client.head("/api/games").status_code == 200


def test_any_other_refusal_of_a_pages_address_is_a_page_too(rows: Rows) -> None:
    """Whatever a page's route refuses with, a browser is shown a page with the status, the reason in words and the
    refusal's headers; under /api/ the same refusal stays JSON."""
    def refuse() -> None:
        raise HTTPException(418, "short and stout", {"X-Spout": "1"})

    app = rows.client.app
    assert isinstance(app, FastAPI)
    for path in ("/teapot", "/api/teapot"):
        app.add_api_route(path, refuse, include_in_schema=False)
    page = rows.client.get("/teapot")
    assert page.status_code == 418 and page.headers["content-type"].startswith("text/html") and page.headers["x-spout"] == "1"
    assert shown_text(page.text) == ("I&#x27;m a Teapot", "short and stout")
    api = rows.client.get("/api/teapot")
    assert api.status_code == 418 and api.json() == {"detail": "short and stout"}


def test_the_static_files_are_kept_for_good_at_the_address_the_pages_name_them_by_and_asked_again_at_any_other(rows: Rows, tmp_path: Path) -> None:
    """They carried no Cache-Control: a browser guessed how long to keep them from their age, asked again for every
    script of every page once that ran out, and kept one asked without the digest past a new release."""
    replay = tmp_path / "replay.json"
    replay.write_text(json.dumps(replay_data(GAME, 2, 7)))
    for client in (rows.client, TestClient(replay_app(replay))):
        page = client.get("/").text
        named = re.findall(r'src="(/static/[a-z]+\.js\?v=\w+)"', page) + re.findall(r'href="(/static/style\.css\?v=\w+)"', page)
        assert len(named) >= 3, page
        for address in named:
            kept = client.get(address)
            assert kept.status_code == 200 and kept.headers["cache-control"] == "public, max-age=31536000, immutable", address
        for other in ("/static/viewer.js", "/static/viewer.js?v=0123456789", "/static/style.css?v="):
            asked = client.get(other)
            assert asked.status_code == 200 and asked.headers["cache-control"] == "no-cache", other
            again = client.get(other, headers={"If-None-Match": asked.headers["etag"]})
            assert again.status_code == 304 and again.headers["cache-control"] == "no-cache", other
        assert "cache-control" not in client.get("/static/nope.js").headers


def test_no_other_site_may_frame_a_page(rows: Rows, tmp_path: Path) -> None:
    """A page could be framed by any site: under a decoy, a bot's page took its owner's two clicks on *Withdraw from
    the ladder* with the token the page keeps."""
    replay = tmp_path / "replay.json"
    replay.write_text(json.dumps(replay_data(GAME, 2, 7)))
    local = TestClient(replay_app(replay))
    answers = [rows.client.request(*asked) for asked in (
        ("GET", "/"), ("GET", f"/games/{GAME}"), ("GET", "/bots/one"), ("GET", f"/matches/{rows.first}"), ("GET", "/nope"), ("POST", "/bots/one"),
    )] + [local.get("/")]  # fmt: skip
    for answer in answers:
        policy = {d.strip().split()[0]: d.strip().split()[1:] for d in answer.headers["content-security-policy"].split(";")}
        assert policy["frame-ancestors"] == ["'none'"], answer.url
        assert answer.headers["x-frame-options"] == "DENY" and answer.headers["x-content-type-options"] == "nosniff"
    assert "x-frame-options" not in rows.client.get("/api/games").headers  # the API is read by scripts, framed by no one


def test_arena_replay_answers_a_mistyped_address_or_method_as_the_ladder_does(tmp_path: Path) -> None:
    """`arena replay`'s own app answered {"detail":"Not Found"} in JSON to a browser at /nope, a bare "Method Not
    Allowed" to a POST, and 405 to HEAD; its API's refusals stay JSON."""
    replay = tmp_path / "replay.json"
    replay.write_text(json.dumps(replay_data(GAME, 2, 7)))
    local = TestClient(replay_app(replay))
    missing = local.get("/nope")
    assert missing.status_code == 404 and shown_text(missing.text) == ("Not found", "There is no page /nope.")
    refused = local.post("/")
    assert refused.status_code == 405 and refused.headers["allow"] == "GET, HEAD" and shown_text(refused.text)[0] == "Method Not Allowed"
    assert local.head("/").status_code == local.head("/api/replay").status_code == 200  # as Allow says (it was 405)
    assert local.get("/api/nope").json()["detail"].startswith("no API endpoint answers /api/nope")
    assert local.get("/api/replay/frames", params={"seat": "9"}).status_code == 422


def test_a_pages_address_with_a_trailing_slash_is_the_page_not_a_redirect_to_an_absolute_address(rows: Rows) -> None:
    """/games/glory/ was a 307 to http://host/games/glory: behind a proxy it does not trust, the ladder named the wrong
    scheme (http for https), and curl or httpx, which follow no redirect unless told, read an empty body; /static was
    sent to /static/, a JSON 404."""
    for path in (f"/games/{GAME}", "/bots/one", f"/matches/{rows.first}"):
        for asked in (f"{path}/", f"{path}//"):
            page = rows.client.get(asked, follow_redirects=False)
            assert page.status_code == 200 and page.text == rows.client.get(path).text, asked
    assert rows.client.get("/api/games/", follow_redirects=False).json() == rows.client.get("/api/games").json()
    for missing in ("/static", "/nope/", "/bots/three/"):
        page = rows.client.get(missing, follow_redirects=False)
        assert page.status_code == 404 and page.headers["content-type"].startswith("text/html"), missing
    assert rows.client.get("/api/", follow_redirects=False).headers["content-type"] == "application/json"
    assert rows.client.get("/static/", follow_redirects=False).headers["content-type"] == "application/json"  # the files' own 404


def test_the_not_yet_page_of_a_match_answers_200_as_it_exists(rows: Rows) -> None:
    """A match whose deal is still playing was answered 404, and the browser's console logged an error on a page that
    says where the match is and opens it by itself once it can."""
    page = rows.client.get(f"/matches/{rows.first}")
    assert page.status_code == 200 and "waiting.js" in page.text and 'data-heading="Not yet"' in page.text
    with rows.ladder.make() as db:
        db.execute(update(Match).where(Match.id == rows.twin).values(status="done"))
        db.execute(update(MatchSeat).where(MatchSeat.match_id == rows.twin).values(rank=1))
        db.commit()
    assert "waiting.js" not in rows.client.get(f"/matches/{rows.first}").text


def test_the_api_still_answers_in_json_when_nothing_is_there(rows: Rows) -> None:
    for path in ("/api/nope", "/api/matches/999", "/api/matches/abc", "/api/bots/nobody", "/static/nope.js"):
        missing = rows.client.get(path)
        assert missing.status_code == 404 and missing.headers["content-type"] == "application/json", path
    assert rows.client.get("/api/me").status_code == 401


def past(page: Page, outer: str) -> list[str]:
    """The elements that reach beyond the right edge of the ``outer`` element holding them (or of the window), for a failure's message."""
    return list(
        page.evaluate(
            """outer => [...document.querySelectorAll(outer)].flatMap(o => [...o.querySelectorAll('*')]
                .filter(e => e.getBoundingClientRect().right > Math.min(o.getBoundingClientRect().right, innerWidth) + 1)
                .map(e => `${e.tagName}.${e.getAttribute('class') || ''}`)).slice(0, 8)""",
            outer,
        )
    )


@pytest.mark.parametrize("width", [1280, 1024, 390])
def test_the_longest_names_a_bot_may_have_stay_inside_the_pages(rows: Rows, page: Page, width: int, tmp_path: Path) -> None:
    """A bot name and a version may be 64 characters with no space: the leaderboard ran past its panel and the page.
    On a phone (390 pixels) the tables, the bot page's rating figures and the viewer's seat picker ran past the page,
    and in the viewer a seat's name (in the facts, the events, "to act next") ran past its panel at any width."""
    name, version = "L" * 64, "V" * 64
    now = time.time()
    replay = tmp_path / "replay.json"
    replay.write_text(json.dumps(replay_data(GAME, 2, 7)))
    with rows.ladder.make() as db:
        db.execute(update(Bot).where(Bot.name == "one").values(name=name))
        db.execute(update(BotVersion).values(version=version))
        for version_id in db.scalars(select(BotVersion.id)):
            db.add(Rating(bot_version_id=version_id, game=GAME, mu=25.0, sigma=8.0, games=3, updated_at=now))
        db.execute(update(Match).where(Match.id == rows.first).values(replay_path=str(replay)))
        db.execute(update(Match).where(Match.id == rows.twin).values(status="done", finished_at=now))  # the deal is settled: the viewer shows it
        db.commit()
    last = len(replay_data(GAME, 2, 7)["actions"])
    viewer = f"/matches/{rows.first}#view=0&step="
    pages = [(f"/games/{GAME}", "#standings tbody tr"), (f"/bots/{name}", "body[data-ready]"), ("/", "#recent table"), (viewer + "0", "body[data-step='0']")]
    with BackgroundServer(rows.client.app) as server:
        for path, ready in [*pages, (viewer + str(last), f"body[data-step='{last}']")]:
            page.set_viewport_size({"width": width, "height": 800})
            page.goto(server.url + path)
            page.wait_for_selector(ready)
            shown = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
            assert shown[0] <= shown[1], f"{path} is {shown[0]} pixels wide in a {shown[1]} pixel window: {past(page, 'body')}"
            panels = page.evaluate("[...document.querySelectorAll('.panel')].map(p => p.scrollWidth - p.clientWidth)")
            assert max(panels) <= 0, f"{path}: something runs past its panel ({panels}): {past(page, '.panel')}"
            assert name in page.inner_text("body"), "the whole name is there, wrapped rather than cut"


def test_a_long_address_stays_inside_its_not_found_page_on_a_phone(rows: Rows, page: Page) -> None:
    """The page says which address it did not find: a long one without a space (a mangled link, a bot name asked in
    full) ran past the page's panel and made a phone's screen scroll sideways."""
    page.set_viewport_size({"width": 360, "height": 740})
    with BackgroundServer(rows.client.app) as server:
        for path in ("/nope/" + "x" * 300, "/bots/" + "B" * 200):
            page.goto(server.url + path)
            page.wait_for_selector("#not-found-message")
            assert page.evaluate("document.documentElement.scrollWidth") <= 360, past(page, "body")
            assert page.evaluate("[...document.querySelectorAll('.panel')].map(p => p.scrollWidth - p.clientWidth)") == [0], past(page, ".panel")


def test_a_long_rating_history_is_drawn_thinned_along_the_whole_axis(rows: Rows, page: Page) -> None:
    """A busy bot's page drew every update, each a linked dot (6,410 in one game at 200,000 matches), in a chart
    660 pixels wide; now it asks for a few hundred, placed by their update numbers, and says how many are drawn."""
    now, updates, second_from = time.time(), 1500, 900
    with rows.ladder.make() as db:
        bot = db.scalar(select(Bot.id).where(Bot.name == "one"))
        first = db.scalar(select(BotVersion.id).where(BotVersion.bot_id == bot))
        newer = BotVersion(bot_id=bot, seq=2, version="2", status="active", games=[GAME], language="python", path="y", created_at=now)
        db.add(newer)
        db.execute(update(BotVersion).where(BotVersion.id == first).values(status="retired"))
        db.flush()
        rated = [Match(game=GAME, seed=i, num_players=2, kind="rated", status="done", deal=f"d{i}", created_at=now, finished_at=now) for i in range(updates)]
        db.add_all(rated)
        db.flush()
        db.add_all(
            RatingChange(match_id=m.id, bot_version_id=first if i < second_from else newer.id, game=GAME, mu=20 + i / 100, sigma=3.0, created_at=now)
            for i, m in enumerate(rated)
        )
        db.add(Rating(bot_version_id=newer.id, game=GAME, mu=35.0, sigma=3.0, games=1200, updated_at=now))
        db.commit()
    with BackgroundServer(rows.client.app) as server:
        page.goto(f"{server.url}/bots/one")
        page.wait_for_selector("body[data-ready]")
        dots = page.locator("svg.rating-chart circle.dot.mu").count()
        assert 300 <= dots <= 410, f"{dots} points drawn of {updates}"
        assert f"{dots} of {updates} drawn" in (page.text_content("svg.rating-chart .axis-title") or "")
        assert page.locator("svg.rating-chart .versions text").all_text_contents() == ["version #2"]
        labels = [int(t) for t in page.locator("svg.rating-chart .axis text:not(.axis-title)").all_text_contents() if t.isdigit()]
        assert max(labels) > 1000, f"the axis counts updates, not the points drawn: {labels}"
        # The version line sits where update 901 is on the axis: 900/1499 of the way along it, not at the 900th point drawn.
        line = page.locator("svg.rating-chart .versions line")
        axis = page.locator("svg.rating-chart .axis line.base")
        x1, left, right = (float(el.get_attribute(a) or "nan") for el, a in ((line, "x1"), (axis, "x1"), (axis, "x2")))
        assert abs((x1 - left) / (right - left) - 899.5 / 1499) < 0.01, (x1, left, right)


def test_the_owner_withdraws_a_bot_from_its_page_with_a_second_click(rows: Rows, page: Page) -> None:
    from ladder.accounts import reissue_token

    with rows.ladder.make() as db:
        alice = reissue_token(db, "alice")
        bob = add_user(db, "bob")
    with BackgroundServer(rows.client.app) as server:
        page.goto(f"{server.url}/bots/one")
        page.wait_for_selector("body[data-ready]")
        assert page.is_hidden("#withdraw"), "nobody signed in: no withdrawal"
        for token, shown in ((bob, False), (alice, True)):
            page.fill("#token", token)
            page.click("#token-form button[type=submit]")
            page.wait_for_function("t => localStorage.getItem('arena.token') === t", arg=token)
            page.wait_for_function(f"document.getElementById('withdraw').hidden === {str(not shown).lower()}")
        page.click("#withdraw")
        assert "Click again" in page.inner_text("#withdraw")
        with rows.ladder.make() as db:
            assert db.scalar(select(BotVersion.status).join(Bot).where(Bot.name == "one")) == "active", "one click withdrew it"
        page.click("#withdraw")
        page.wait_for_function("document.getElementById('withdraw-status').textContent.startsWith('withdrawn')")
        assert page.is_hidden("#withdraw") and "no active version" in page.inner_text("#bot-owner")
        assert "withdrawn by its owner" in page.inner_text("#versions")
    with rows.ladder.make() as db:
        assert db.scalar(select(BotVersion.status).join(Bot).where(Bot.name == "one")) == "retired"
        assert db.scalar(select(BotVersion.status).join(Bot).where(Bot.name == "two")) == "active"


def test_the_owners_controls_stay_inside_a_phones_screen(rows: Rows, page: Page) -> None:
    """Signed in, the token form (its status, box and two buttons) ran 70 pixels past a 390-pixel screen."""
    from ladder.accounts import reissue_token

    with rows.ladder.make() as db:
        alice = reissue_token(db, "alice")
    with BackgroundServer(rows.client.app) as server:
        page.set_viewport_size({"width": 390, "height": 800})
        page.goto(f"{server.url}/bots/one")
        page.wait_for_selector("body[data-ready]")
        page.fill("#token", alice)
        page.click("#token-form button[type=submit]")
        page.wait_for_function("document.getElementById('withdraw').hidden === false")
        page.click("#withdraw")  # its question is the longest the panel shows
        shown = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert shown[0] <= shown[1], f"the page is {shown[0]} pixels wide in a {shown[1]} pixel window: {past(page, 'body')}"
        panels = page.evaluate("[...document.querySelectorAll('.panel')].map(p => p.scrollWidth - p.clientWidth)")
        assert max(panels) <= 0, f"something runs past its panel ({panels}): {past(page, '.panel')}"


def test_the_pages_take_the_unplayed_statuses_from_the_ladders_models(rows: Rows) -> None:
    """common.js greys and explains a match failed or cancelled: it kept a list of those statuses of its own, which a
    new status would have had to be added to by hand. Each page now carries the models' list on <body>."""
    from ladder.models import UNPLAYED

    text = rows.client.get("/").text
    carried = text.split('data-unplayed="')[1].split('"')[0]
    assert json.loads(carried.replace("&quot;", '"')) == list(UNPLAYED)
    script = rows.client.get("/static/common.js").text
    assert not any(f'"{status}"' in script for status in UNPLAYED), "common.js names the statuses itself"


def test_a_bot_page_asked_in_another_case_is_sent_to_the_bots_own(rows: Rows) -> None:
    """Submissions hold names that differ only in case for one bot's, but /bots/ONE was a page not found."""
    moved = rows.client.get("/bots/ONE", follow_redirects=False)
    assert moved.status_code == 301 and moved.headers["location"] == "/bots/one"
    asked = rows.client.get("/bots/ONE?from=news&x=%26", follow_redirects=False)
    assert asked.status_code == 301 and asked.headers["location"] == "/bots/one?from=news&x=%26"
    assert rows.client.get("/bots/oNe").url.path == "/bots/one"
    for missing in ("/bots/three", "/bots/ONE%00", "/bots/%C3%96NE"):  # no bot, and names no bot can have
        page = rows.client.get(missing, follow_redirects=False)
        assert page.status_code == 404 and "There is no bot" in page.text, missing
