"""Routes of the web pages. The pages are shells: their scripts read the JSON API (or, for a local replay, its two endpoints)."""

from __future__ import annotations

import hashlib
import html
import json
import re
from functools import cache
from http import HTTPStatus
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, HTTPException, Query, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from sqlalchemy import select
from sqlalchemy.orm import Session
from starlette.datastructures import QueryParams
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import Scope

from ladder import queries
from ladder.models import ID_DIGITS, UNPLAYED, Bot, BotVersion, Rating, bots_alike, name_is
from ladder.web.http import PoliteHttp
from referee.games.registry import GAMES
from referee.server.frames import FrameCache, parse_seat, replay_summary
from referee.server.replay import ReplayError, load_replay
from referee.server.words import verdict_words

WEB = Path(__file__).resolve().parent
STATIC = WEB / "static"
TEMPLATES = WEB / "templates"
PLACEHOLDER = re.compile(r"\{\{ (title|body_attrs|version|scripts|content) \}\}")
#: A placeholder of a page's own template (not_found.html's heading and message), filled in as text.
FIELD = re.compile(r"\{\{ (\w+) \}\}")


@cache
def _asset_version() -> str:
    """A digest of the static files, appended to their URLs so that a new release is not served from a stale cache."""
    digest = hashlib.sha256()
    for path in sorted(STATIC.iterdir()):
        digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()[:10]


#: A static file asked at the address the pages name it by (``?v=`` the files' digest): that address never names
#: other content, so a browser keeps it a year without asking again.
IMMUTABLE = "public, max-age=31536000, immutable"


class Assets(StaticFiles):
    """The static files, each answer saying how long it may be kept: without ``Cache-Control`` a browser guessed from
    the file's age (a tenth of it), asking again for every script of every page once that ran out, and keeping a file
    asked without the digest (or with an old one) past a new release. Only ``?v=`` the current digest is kept for good;
    any other is asked again each time (its ETag answered 304 while unchanged)."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        if response.status_code in (200, 304):
            current = QueryParams(scope["query_string"]).get("v") == _asset_version()
            response.headers["Cache-Control"] = IMMUTABLE if current else "no-cache"
        return response


#: Every page's own headers. No other site may frame a page (frame-ancestors, and X-Frame-Options for older browsers):
#: framed under a decoy, a bot's page took its owner's two clicks on *Withdraw from the ladder* (the token is in the
#: ladder's localStorage, which the framed page reads). No script-src: the browser tests drive the pages with
#: Playwright's wait_for_function, which evaluates its text in the page, and a policy that forbade it would also keep
#: those tests from seeing what the policy broke.
PAGE_HEADERS = {
    "Content-Security-Policy": "frame-ancestors 'none'; object-src 'none'; base-uri 'none'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
}


def render(
    page: str, title: str, data: dict[str, str] | None = None, scripts: tuple[str, ...] = (), status: int = 200, text: dict[str, str] | None = None,
) -> HTMLResponse:
    """``templates/page`` inside ``templates/base.html``; ``data`` becomes data-* attributes of <body> for the scripts,
    with the verdicts' kinds in words (common.js ``verdictWords``): the pages show them, the API names them; and the
    statuses of a match over unplayed (common.js ``UNPLAYED``), from the one place they are defined. ``text`` fills the
    page template's own placeholders (``{{ message }}``), escaped: what a page says without its scripts."""
    version = _asset_version()
    data = {**(data or {}), "verdict-words": json.dumps(dict(verdict_words())), "unplayed": json.dumps(list(UNPLAYED))}
    attrs = "".join(f' data-{html.escape(k)}="{html.escape(v)}"' for k, v in data.items())
    tags = "\n".join(f'<script src="/static/{html.escape(s)}?v={version}" defer></script>' for s in ("common.js", *scripts))
    said = text or {}
    content = FIELD.sub(lambda m: html.escape(said[m.group(1)]) if m.group(1) in said else m.group(0), (TEMPLATES / page).read_text())
    fill = {"title": html.escape(title), "body_attrs": attrs, "version": version, "scripts": tags, "content": content}
    # in one pass: a placeholder inside a filled-in value (a name from the address, say) stays as it is
    whole = PLACEHOLDER.sub(lambda m: fill[m.group(1)], (TEMPLATES / "base.html").read_text())
    return HTMLResponse(whole, status_code=status, headers=PAGE_HEADERS)


def game_list() -> list[dict[str, Any]]:
    """Every game, as /api/games lists them."""
    return [
        {"id": c.spec.id, "name": c.spec.name, "players": list(c.spec.player_counts), "players_text": c.spec.players_text, "summary": c.spec.summary,
         "score": c.spec.score}
        for c in GAMES.values()
    ]


def suspended_bots(db: Session, game: str | None = None) -> dict[str, list[str]]:
    """By game (or ``game`` alone), the bots entered in it whose version the ladder suspended (ladder/suspension.py),
    by name: the standings leave them out, and a game whose bots were all suspended read "No bot is entered in this
    game yet"."""
    query = (
        select(Rating.game, Bot.name).join(BotVersion, BotVersion.id == Rating.bot_version_id).join(Bot, Bot.id == BotVersion.bot_id)
        .where(BotVersion.status == "suspended").distinct().order_by(Rating.game, Bot.name)
    )  # fmt: skip
    found: dict[str, list[str]] = {}
    for of_game, name in db.execute(query if game is None else query.where(Rating.game == game)):
        found.setdefault(of_game, []).append(name)
    return found


def not_found(message: str, heading: str = "Not found", status: int = 404) -> HTMLResponse:
    """The page of what cannot be shown, its heading and message in the HTML itself: written there by a script, a
    client without one (curl, a reader view, a crawler) read a bare "Not found" even on the "Pruned" page (410)."""
    said = {"message": message, "heading": heading}
    return render("not_found.html", heading, said, status=status, text=said)


def not_yet(match_id: int) -> HTMLResponse:
    """A match not shown yet, which the page watches (waiting.js) and opens once it can: answered 200, since the match
    exists and the page says where it is (as a 404 the browser's console logged an error on every such page)."""
    message = f"Match {match_id} is not over yet, or another match of its deal is still to play: it is shown once they are all over."
    said = {"message": message, "heading": "Not yet"}
    return render("not_found.html", "Not yet", {**said, "waiting-for": str(match_id)}, ("waiting.js",), text=said)


def _viewer(title: str, summary_url: str, frames_url: str, local: bool) -> HTMLResponse:
    data = {"summary": summary_url, "frames": frames_url}
    if local:
        data["local"] = "1"
    return render("match.html", title, data, ("cards.js", "viewer.js"))


def pages_router() -> APIRouter:
    router = APIRouter(include_in_schema=False)

    @router.get("/", response_class=HTMLResponse)
    def index(request: Request) -> HTMLResponse:
        with request.app.state.ladder.make() as db:
            suspended = suspended_bots(db)
        return render("index.html", "Arena ladder", {"suspended": json.dumps(suspended)}, ("index.js",))

    @router.get("/games/{game}", response_class=HTMLResponse)
    def leaderboard(game: str, request: Request) -> HTMLResponse:
        if game not in GAMES:
            return not_found(f"There is no game {game!r}.")
        with request.app.state.ladder.make() as db:
            suspended = suspended_bots(db, game).get(game, [])
        data = {"game": game, "suspended": json.dumps(suspended)}
        return render("leaderboard.html", f"{GAMES[game].spec.name} · Arena ladder", data, ("leaderboard.js",))

    @router.get("/bots/{name}", response_class=HTMLResponse)
    def bot_page(name: str, request: Request) -> Response:
        with request.app.state.ladder.make() as db:
            if db.scalar(select(Bot.id).where(name_is(Bot.name, name))) is None:
                # Names that differ only in case are one bot's (submissions refuse a second): /bots/RANDOM is random's page.
                # Relative, as the address was asked: behind a proxy an absolute one could name the wrong scheme.
                held = bots_alike(db, name)
                if held:  # the query goes along (a link's own parameters are the linker's business)
                    query = f"?{request.url.query}" if request.url.query else ""
                    return RedirectResponse(f"/bots/{held[0]}{query}", status_code=HTTPStatus.MOVED_PERMANENTLY)
                return not_found(f"There is no bot {name!r}.")
        return render("bot.html", f"{name} · Arena ladder", {"bot": name}, ("chart.js", "bot.js"))

    @router.get("/matches/{raw_id}", response_class=HTMLResponse)
    def match_page(raw_id: str, request: Request) -> HTMLResponse:
        # a mistyped id is a page not found too, as is one of more digits than any id has (and than Python reads)
        match_id = int(raw_id) if raw_id.isascii() and raw_id.isdigit() and len(raw_id) <= ID_DIGITS else None
        with request.app.state.ladder.make() as db:
            found = queries.get_match(db, match_id) if match_id is not None else None
            if found is None:
                return not_found(f"There is no match {raw_id}.")
            if not queries.settled(db, found):  # its twin plays the same deal: nothing of it is shown before
                return not_yet(found.id)
            if found.replay_pruned_days is not None:  # its results are still on the bots' pages and in the match lists
                return not_found(f"The replay of match {match_id} is no longer kept: the ladder's operator removed the replays of matches"
                                 f" finished more than {found.replay_pruned_days} days before.", "Pruned", status=410)
        return _viewer(f"Match {match_id} · Arena ladder", f"/api/matches/{match_id}", f"/api/matches/{match_id}/frames", local=False)

    return router


def allowed_methods(exc: StarletteHTTPException) -> str:
    """The ``Allow`` of a 405, HEAD named beside GET: PoliteHttp answers it wherever GET is (the router named GET alone)."""
    methods = [m.strip() for m in (exc.headers or {}).get("Allow", "").split(",") if m.strip()]
    if "GET" in methods and "HEAD" not in methods:
        methods.insert(methods.index("GET") + 1, "HEAD")
    return ", ".join(methods)


def is_page(path: str) -> bool:
    """Whether an address is a page's (or of no page), answered in HTML: not the API's nor a static file's, in JSON."""
    return not path.startswith(("/api/", "/static/"))


async def page_not_found(request: Request, exc: Exception) -> Response:
    """The not-found page for an address of no page, and a page of its own for any other refusal of a page's address
    (a POST to a leaderboard was a JSON 405 in the browser); the API and the static files answer as FastAPI does, but
    that an address or a method no endpoint takes is told so, not with a bare "Not Found" or "Method Not Allowed"."""
    assert isinstance(exc, StarletteHTTPException)
    path = request.url.path
    headers = dict(exc.headers or {})
    if exc.status_code == 405 and allowed_methods(exc):
        headers["Allow"] = allowed_methods(exc)
    if is_page(path):
        if exc.status_code == 404:
            return not_found(f"There is no page {path}.")
        phrase = HTTPStatus(exc.status_code).phrase
        if exc.status_code == 405:
            said = f"{request.method} is not answered at {path}: this page is read with {headers.get('Allow') or 'no method'}, as a link or the address bar asks for it."
        else:
            said = str(exc.detail) if exc.detail != phrase else f"The ladder refused this request ({exc.status_code})."
        page = not_found(said, phrase, status=exc.status_code)
        page.headers.update(headers)
        return page
    if path.startswith("/api/") and exc.detail == HTTPStatus(exc.status_code).phrase:  # the router's, not an endpoint's
        if exc.status_code == 404:
            said = f"no API endpoint answers {path} (an id is digits); the endpoints are listed in /openapi.json"
            return JSONResponse({"detail": said}, status_code=404)
        if exc.status_code == 405:
            said = f"{request.method} is not answered at {path}: it takes {headers.get('Allow') or 'no method'}"
            return JSONResponse({"detail": said}, status_code=405, headers=headers)
    if exc.status_code == 405:
        exc = StarletteHTTPException(405, exc.detail, headers)
    return await http_exception_handler(request, exc)


def mount_pages(app: FastAPI) -> None:
    """Add the pages and their static files to the ladder's app."""
    app.include_router(pages_router())
    app.router.redirect_slashes = False  # PoliteHttp answers a trailing slash; "/static" was sent to an absolute "/static/"
    app.mount("/static", Assets(directory=STATIC), name="static")
    app.add_exception_handler(StarletteHTTPException, page_not_found)


def compress(app: FastAPI) -> None:
    """Answers gzipped to a client that takes it: a match's frames are its state at every step written out (an
    Assassination Game's seat view 1.4 MB, some 27 KB gzipped), which a phone fetched whole for each view."""
    app.add_middleware(GZipMiddleware, minimum_size=1024)


def replay_app(path: Path) -> FastAPI:
    """An app that shows one replay file in the viewer (``arena replay FILE``): frames are built as the ladder builds them."""
    data = load_replay(path)  # fail early on a file that is not a replay
    num_players = int(data["num_players"])
    cache_ = FrameCache()
    app = FastAPI(title=f"Arena replay {path.name}", version="1", description="One replay file in the Arena viewer.")
    compress(app)
    app.add_middleware(PoliteHttp)  # HEAD as GET, as on the ladder (and as a 405's Allow says)
    app.router.redirect_slashes = False

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def viewer() -> HTMLResponse:
        return _viewer(f"{path.name} · Arena replay", "/api/replay", "/api/replay/frames", local=True)

    @app.get("/api/games", summary="The games with their player counts", tags=["replay"])
    def games() -> list[dict[str, Any]]:
        return game_list()

    def changed(exc: Exception) -> HTTPException:
        """The file was read once at the start; rewritten or removed since, it is told so, not a bare 500."""
        return HTTPException(409, f"{path.name} has changed or is gone since `arena replay` opened it: {exc}")

    @app.get("/api/replay", summary="The replay's match: game, seed and seats with their results", tags=["replay"])
    def summary() -> dict[str, Any]:
        try:
            return replay_summary(load_replay(path), path.name)
        except (ReplayError, OSError) as exc:
            raise changed(exc) from None

    @app.get("/api/replay/frames", summary="Frames of the replay, for everyone or as one seat saw them", tags=["replay"])
    def frames(seat: Annotated[str, Query(description="'all' or a seat number")] = "all") -> Any:
        try:
            chosen = parse_seat(seat, num_players)
        except ValueError as exc:
            raise HTTPException(422, str(exc)) from None
        try:
            return JSONResponse(cache_.frames(path, chosen))
        except (ReplayError, OSError) as exc:
            raise changed(exc) from None

    app.mount("/static", Assets(directory=STATIC), name="static")
    app.add_exception_handler(StarletteHTTPException, page_not_found)  # a mistyped address is a page, as on the ladder
    return app
