"""A page of another site may read the API from a browser (CORS): GET and HEAD under /api/, no credentials, no token,
nothing that writes (ladder/web/cors.py). And a request whose Accept takes no JSON is refused 406 (ladder/web/http.py
``JsonOnly``) where it was answered JSON all the same."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session, sessionmaker

from ladder.accounts import add_user
from ladder.api import LadderState, create_app
from ladder.db import make_engine, migrate, sessions
from ladder.web.http import accepts_json

SITE = "https://dashboard.example"
GAME = "generals-war"


@pytest.fixture
def make(tmp_path: Path) -> Iterator[sessionmaker[Session]]:
    url = f"sqlite:///{tmp_path / 'ladder.db'}"
    migrate(url)
    engine = make_engine(url)
    yield sessions(engine)
    engine.dispose()


@pytest.fixture
def client(make: sessionmaker[Session], tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(LadderState(make, tmp_path, tmp_path))) as made:
        yield made


def preflight(client: TestClient, path: str, method: str, headers: str | None = None) -> tuple[int, dict[str, str], str]:
    asked = {"Origin": SITE, "Access-Control-Request-Method": method}
    if headers is not None:
        asked["Access-Control-Request-Headers"] = headers
    answer = client.options(path, headers=asked)
    return answer.status_code, dict(answer.headers), answer.text


@pytest.mark.parametrize("path", ["/api/games", f"/api/games/{GAME}/standings", "/api/matches?limit=5", "/api/matches/9"])
def test_another_site_s_page_reads_the_api_and_its_paging_headers(client: TestClient, path: str) -> None:
    """A 404 too: the script can read why."""
    answer = client.get(path, headers={"Origin": SITE})
    assert answer.headers["access-control-allow-origin"] == "*", answer.headers
    assert {h.strip() for h in answer.headers["access-control-expose-headers"].split(",")} >= {"Link", "ETag"}
    assert "access-control-allow-credentials" not in answer.headers
    head = client.head(path, headers={"Origin": SITE})
    assert head.headers["access-control-allow-origin"] == "*" and head.content == b""
    same_site = client.get(path)  # no Origin: the same, so that a cache keeps one answer for both
    assert same_site.headers["access-control-allow-origin"] == "*"


def test_a_preflight_for_reading_gets_leave_and_one_for_anything_else_is_refused_saying_why(client: TestClient) -> None:
    status, headers, _ = preflight(client, f"/api/games/{GAME}/standings", "GET", "If-None-Match")
    assert status == 204 and headers["access-control-allow-origin"] == "*", headers
    assert headers["access-control-allow-methods"] == "GET, HEAD" and "access-control-allow-credentials" not in headers
    refusals = [
        ("/api/challenges", "POST", None, "POST is not open to other sites"),
        ("/api/bots/a/withdraw", "POST", "Authorization", "POST is not open to other sites"),
        ("/api/me", "GET", "authorization", "a token (Authorization) may not be sent"),
        ("/api/matches/1/logs/0", "GET", "If-None-Match, Authorization", "a token (Authorization) may not be sent"),
        ("/api/games", "GET", "X-Custom", "header x-custom may not be sent"),
        ("/api/matches/1", "DELETE", None, "DELETE is not open"),
    ]
    for path, method, asked, said in refusals:
        status, headers, text = preflight(client, path, method, asked)
        assert status == 403 and "access-control-allow-origin" not in headers, (path, method, headers)
        assert said in text, text


def test_writes_and_pages_carry_no_leave_and_a_plain_options_is_still_405(client: TestClient, make: sessionmaker[Session]) -> None:
    with make() as db:
        token = add_user(db, "alice")
    challenge = {"bot": "a", "opponent": "b", "game": GAME}
    posted = client.post("/api/challenges", json=challenge, headers={"Origin": SITE, "Authorization": f"Bearer {token}"})
    assert posted.status_code == 422 and "access-control-allow-origin" not in posted.headers, posted.headers
    assert "access-control-allow-origin" not in client.get("/", headers={"Origin": SITE}).headers
    plain = client.options("/api/games")
    assert plain.status_code == 405 and plain.json()["detail"] == "OPTIONS is not answered at /api/games: it takes GET, HEAD"


@pytest.mark.parametrize("accept", ["text/html", "application/xml", "application/json;q=0, text/html", "application/json; q=0", "image/*"])
def test_a_request_that_takes_no_json_is_refused_406_saying_what_the_api_answers(client: TestClient, accept: str) -> None:
    answer = client.get(f"/api/games/{GAME}/standings", headers={"Accept": accept, "Origin": SITE})
    assert answer.status_code == 406 and answer.headers["content-type"] == "application/json"
    assert answer.json()["detail"] == (
        f"the API answers application/json only, which this request's Accept ({accept}) does not take: send Accept: application/json, or */*"
    )
    assert answer.headers["access-control-allow-origin"] == "*", "another site's script reads why too"
    head = client.head("/api/games", headers={"Accept": accept})
    assert head.status_code == 406 and head.content == b""


@pytest.mark.parametrize(
    "accept",
    [None, "", "*/*", "application/json", "Application/JSON; charset=utf-8", "application/*", "text/html, */*;q=0.1",
     "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8", "application/json;q=nonsense"],
)
def test_no_accept_any_and_json_are_answered_as_before(client: TestClient, accept: str | None) -> None:
    headers = {} if accept is None else {"Accept": accept}
    answer = client.get("/api/games", headers=headers)
    assert answer.status_code == 200 and answer.headers["content-type"] == "application/json", (accept, answer.text)
    assert client.get("/", headers={"Accept": "application/xml"}).status_code == 200, "the pages are not the API's"


def test_the_most_specific_range_decides() -> None:
    assert accepts_json("application/json;q=0.5, */*;q=0")
    assert not accepts_json("*/*, application/json;q=0")
    assert not accepts_json("application/*;q=0, */*")
    assert accepts_json("application/*;q=0, application/json")


def test_the_ladders_own_failure_is_readable_by_another_sites_page(make: sessionmaker[Session], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Starlette writes a 500 outside every middleware: it went without the leave, and a dashboard saw a CORS error
    where the ladder said what failed."""
    import ladder.api

    def broken() -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(ladder.api, "game_list", broken)
    with TestClient(create_app(LadderState(make, tmp_path, tmp_path)), raise_server_exceptions=False) as client:
        failed = client.get("/api/games", headers={"Origin": SITE})
    assert failed.status_code == 500 and "internal error" in failed.json()["detail"], failed.text
    assert failed.headers["access-control-allow-origin"] == "*", failed.headers


def test_a_page_the_ladder_fails_to_make_is_its_error_page_and_the_apis_stays_json(
    make: sessionmaker[Session], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page's 500 was the bare line "Internal Server Error" in plain text; it is the ladder's page saying its log
    tells why (and never the exception's text, which is the operator's)."""
    import ladder.web.routes

    def broken(db: Session, game: str | None = None) -> dict[str, list[str]]:
        raise RuntimeError("a bug at /srv/secret")

    monkeypatch.setattr(ladder.web.routes, "suspended_bots", broken)
    with TestClient(create_app(LadderState(make, tmp_path, tmp_path)), raise_server_exceptions=False) as client:
        page = client.get("/games/generals-war")
        api = client.get("/api/games/generals-war/standings")
    assert page.status_code == 500 and page.headers["content-type"].startswith("text/html"), page.text
    assert "Something went wrong" in page.text and "internal error" in page.text and "/srv/secret" not in page.text
    assert api.headers["content-type"].startswith("application/json")
