"""The JSON API as a script reads it (a stats site, a CI job waiting for its bot's rating), against a ladder whose rows
are written by hand: paging the matches by cursor while new ones land, polling for new ones, refusals that say what
was wrong, HEAD, and a trailing slash."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from ladder import queries
from tests.web.conftest import GAME
from tests.web.test_latest_matches import Rows, hand_made


@pytest.fixture
def rows(tmp_path: Path) -> Iterator[Rows]:
    """Rows of its own: the tests add matches."""
    with hand_made(tmp_path) as made:
        yield made


def next_page(response: httpx.Response) -> str | None:
    """The address the ``Link`` header names as the next page, if any."""
    found = re.fullmatch(r'<([^>]+)>; rel="next"', response.headers.get("link", ""))
    return found.group(1) if found else None


def ids(response: httpx.Response) -> list[int]:
    assert response.status_code == 200, response.text
    return [m["id"] for m in response.json()]


def test_pages_by_before_stay_put_while_new_matches_land_and_the_link_header_leads_through_all(rows: Rows) -> None:
    expected = rows.latest()
    first = rows.get("/api/matches", limit=4)
    assert ids(first) == expected[:4]
    rows.add_match(GAME, rows.now, "ace", "bee")  # lands between two pages: an offset would shift by one
    seen = ids(first)
    address = next_page(first)
    while address is not None:
        page = httpx.get(rows.url + address, timeout=60)
        seen += ids(page)
        address = next_page(page)
    assert seen == expected, "every match once, in the list's order, none shifted in or repeated"
    assert next_page(rows.get("/api/matches", limit=len(expected) + 5)) is None  # a page that is not full has no next
    listing = rows.get("/openapi.json").json()["paths"]["/api/matches"]["get"]
    assert "rel=\"next\"" in listing["responses"]["200"]["headers"]["Link"]["description"]
    assert {p["name"] for p in listing["parameters"]} == {"game", "bot", "limit", "before", "after"}


@pytest.mark.parametrize("few_seats", [1000, 1], ids=["by ids", "by exists"])
def test_before_keeps_the_game_and_bot_filters_and_orders_ties_by_id(rows: Rows, few_seats: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot's matches are found by their ids when it has few seats, else along the end-time index: both alike."""
    monkeypatch.setattr(queries, "FEW_SEATS", few_seats)
    mine = rows.latest(GAME)
    page = rows.get("/api/matches", game=GAME, bot="bee", limit=3, before=mine[2])
    assert ids(page) == [i for i in mine[3:6]]
    assert "game=" + GAME in (next_page(page) or "") and "bot=bee" in (next_page(page) or "")
    assert ids(rows.get("/api/matches", bot="cat", before=rows.latest()[0])) == [i for _, i, g in sorted(rows.finished, reverse=True) if g != GAME][1:]


def test_after_polls_for_new_matches_in_the_order_they_were_settled_each_read_once(rows: Rows) -> None:
    """The one whose twin is still running is not in the feed, nor a cursor of it (see test_a_bad_cursor...)."""
    recorded = [i for _, i, _ in rows.finished if i != rows.unsettled]  # in the order they were added, not that of their end times
    newest = recorded[-1]
    assert ids(rows.get("/api/matches", after=newest)) == []
    landed = [rows.add_match(GAME, rows.now + k, "ace", "bee") for k in (1, 2, 3)]
    first = rows.get("/api/matches", after=newest, limit=2)
    assert ids(first) == landed[:2], "the oldest of the new first, so that a limit cuts the newest, which the next poll reads"
    assert next_page(first) == f"/api/matches?limit=2&after={landed[1]}"
    assert ids(rows.get("/api/matches", after=landed[1], limit=2)) == landed[2:]
    older = rows.latest()[5]
    assert ids(rows.get("/api/matches", after=older, limit=200)) == recorded[recorded.index(older) + 1:] + landed, (
        "those recorded after it, though some ended before it"
    )
    assert ids(rows.get("/api/matches", after=0, limit=200)) == recorded + landed


@pytest.mark.parametrize(
    ("params", "said"),
    [
        ({"after": 99999}, "there is no match 99999"),
        ({"before": "queued"}, "is queued, not finished"),
        ({"after": "unsettled"}, "is not settled yet (another match of its deal is still to play), so it has no place in the after feed"),
        ({"before": 1, "after": 2}, "not both"),
        ({"offset": 20}, "unknown query parameter 'offset': /api/matches takes after, before, bot, game, limit"),
        ({"page": 2, "per_page": 50}, "unknown query parameter 'page', 'per_page'"),
    ],
)
def test_a_bad_cursor_or_an_unknown_parameter_is_refused_by_name(rows: Rows, params: dict[str, Any], said: str) -> None:
    if params.get("before") == "queued":
        params = {"before": rows.queued}
    if params.get("after") == "unsettled":  # finished, listed by a page, but its twin is still running
        params = {"after": rows.unsettled}
    answer = rows.get("/api/matches", **params)
    assert answer.status_code == 422 and answer.headers["content-type"] == "application/json"
    assert said in answer.json()["detail"]


def test_unknown_parameters_are_refused_on_every_endpoint_but_its_own_are_taken(rows: Rows) -> None:
    assert rows.get("/api/games/glory/standings", limit=5).json()["detail"] == "unknown query parameter 'limit': /api/games/{game}/standings takes none"
    assert "takes game, points" in rows.get("/api/bots/ace/history", game=GAME, point=3).json()["detail"]
    # the address as the OpenAPI document names it, not with the router's converter ({match_id:arena_id})
    said = rows.get(f"/api/matches/{rows.latest()[0]}/frames", view=0).json()["detail"]
    assert said == "unknown query parameter 'view': /api/matches/{match_id}/frames takes seat"
    assert rows.get("/api/bots/ace/history", game=GAME, points=3).status_code == 200
    assert rows.get("/api/bots/ace/crosstable", game=GAME).status_code == 200
    assert rows.get("/api/matches", before=-1).status_code == 422  # a negative cursor, as FastAPI refuses a range


def test_head_is_answered_as_get_without_a_body(rows: Rows) -> None:
    for path in ("/api/matches", "/api/games", f"/api/matches/{rows.latest()[0]}", "/", f"/games/{GAME}"):
        got, head = httpx.get(rows.url + path), httpx.head(rows.url + path)
        assert head.status_code == 200, path
        assert head.content == b"" and head.headers["content-type"] == got.headers["content-type"]
        assert head.headers["content-length"] == got.headers["content-length"]
    assert httpx.head(rows.url + "/api/bots/nobody").status_code == 404


def test_an_api_address_with_a_trailing_slash_answers_as_without_it(rows: Rows) -> None:
    """It was a 307 to an absolute http:// address, which httpx and curl do not follow unless told: a script read an empty body."""
    for path in ("/api/games/", f"/api/games/{GAME}/standings/", "/api/matches/"):
        answer = rows.get(path)
        assert answer.status_code == 200 and answer.json() == rows.get(path.rstrip("/")).json(), path
    assert rows.get("/api/bots/nobody/").json() == {"detail": "no bot 'nobody'"}


def test_an_address_or_a_method_no_endpoint_takes_is_told_so_in_json(rows: Rows) -> None:
    """Both were a bare {"detail": "Not Found"} or "Method Not Allowed", the same as for a typo in a bot's name."""
    for path in ("/api/nope", "/api/matches/abc", "/api/bots/ace/ratings"):
        answer = rows.get(path)
        assert answer.status_code == 404 and answer.headers["content-type"] == "application/json"
        assert answer.json()["detail"] == f"no API endpoint answers {path} (an id is digits); the endpoints are listed in /openapi.json"
    assert rows.get("/api/matches/99999").json()["detail"] == "no match 99999"  # an endpoint's own refusal is kept
    refused = httpx.delete(rows.url + "/api/matches")
    assert refused.status_code == 405 and refused.headers["allow"] == "GET, HEAD"  # HEAD is answered as GET
    assert refused.json()["detail"] == "DELETE is not answered at /api/matches: it takes GET, HEAD"
    assert httpx.options(rows.url + "/api/games").json()["detail"] == "OPTIONS is not answered at /api/games: it takes GET, HEAD"
    assert httpx.get(rows.url + "/nowhere").headers["content-type"].startswith("text/html")  # a page's address: the page


def test_a_parameter_given_twice_is_refused_not_read_as_its_last(rows: Rows) -> None:
    """``?game=glory&game=generals-war`` listed the second game's matches alone, as if the first were not asked."""
    answer = httpx.get(rows.url + "/api/matches", params=[("game", "glory"), ("game", GAME), ("limit", "3")])
    assert answer.status_code == 422
    assert answer.json()["detail"] == "query parameter 'game' given more than once: it takes one value"
    assert httpx.get(rows.url + "/api/matches", params=[("game", GAME), ("limit", "3")]).status_code == 200
