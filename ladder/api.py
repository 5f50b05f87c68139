"""The ladder's HTTP JSON API (FastAPI; its OpenAPI document is at /openapi.json)."""

from __future__ import annotations

import json
import logging
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Callable, Iterator
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Header, HTTPException, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.dependencies.models import Dependant
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from fastapi.responses import JSONResponse, Response
from starlette.convertors import IntegerConvertor, register_url_convertor
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from pydantic import BaseModel
from sqlalchemy import select
from sqlalchemy.exc import DBAPIError, SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from ladder import queries
from ladder.accounts import user_for_token
from ladder.admission import Admission
from ladder.db import unreachable
from ladder.jobs import REPLAY_FILE
from ladder.metrics import LadderMetrics
from ladder.models import ID_DIGITS, MAX_INT, Bot, BotVersion, Match, MatchSeat, User, name_is, no_bot
from ladder.prune import pruned_detail
from ladder.schemas import (
    BotDetail, Challenge, Game, HeadToHead, Health, HealthDown, MatchSummary, Me, NotPlaying, Playing, RatingPoint, SeatLog, Standing, Submission,
    Withdrawal,
)
from ladder.scheduler import ScheduleError, TooManyChallenges, challenge
from ladder.submissions import SUBMISSIONS_PER_DAY, SubmissionRefused, WithdrawalRefused, check_daily_limit, submit, with_unscheduled, withdraw
from ladder.upload import Limits
from ladder.web import game_list, mount_pages
from ladder.web.routes import not_found
from ladder.web.cors import CrossOrigin, read_leave
from ladder.web.http import JsonOnly, PoliteHttp, refuse_unknown_parameters, revalidated
from ladder.web.listing import BadCursor, cursor_match, matches_from, next_link, poll_cursor
from ladder.web.routes import compress, page_not_found
from referee.games.registry import GAMES
from referee.server.frames import FrameCache, parse_seat
from referee.server.replay import OtherRules, ReplayError, parse_replay
from referee.server.seeds import draw_seed


class IdConvertor(IntegerConvertor):
    """An id or seat number in an address: digits, at most ID_DIGITS of them; any other address names no route (404)."""

    regex = f"[0-9]{{1,{ID_DIGITS}}}"


register_url_convertor("arena_id", IdConvertor())


@dataclass
class LadderState:
    make: sessionmaker[Session]
    store: Path
    data_dir: Path
    limits: Limits = Limits()
    validate: bool = True
    sandbox: str = "process"
    admission: Admission = field(default_factory=Admission)
    per_day: int = SUBMISSIONS_PER_DAY  # versions an owner may submit in 24 hours (0: no limit)
    metrics: LadderMetrics | None = None  # the serving ladder's (its counters); None: the database's figures alone
    games: list[str] | None = None  # the games the ladder schedules (`serve --game`); None: every game
    #: The serving ladder's matches at once and why it plays none, if so (Ladder.playing_now); None: the API alone.
    playing: Callable[[], tuple[int, str | None]] | None = None


class ChallengeRequest(BaseModel):
    bot: str
    opponent: str
    game: str


def get_db(request: Request) -> Iterator[Session]:
    state: LadderState = request.app.state.ladder
    with state.make() as session:
        yield session


Db = Annotated[Session, Depends(get_db)]
#: The most bytes a request's body may hold, but an upload's (Limits.archive_bytes): a challenge is a few dozen.
MAX_BODY = 64 * 1024
#: Most matches one listing gives (/api/matches?limit=, arena ladder matches --limit).
MAX_LISTED = 200


#: The answer to a token the ladder does not know: another ladder's, mistyped, or replaced or revoked since.
UNKNOWN_TOKEN = ("unknown API token: not one of this ladder's, or replaced or revoked by its operator since"
                 " (`arena ladder user token NAME` gives its owner a new one)")


def owner_of(make: sessionmaker[Session], authorization: str | None) -> User:
    """The user whose API token is in the Authorization header (401 if none), read in a session closed at once."""
    scheme, _, token = (authorization or "").strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():  # the scheme's case does not matter (RFC 9110, 11.1)
        raise HTTPException(401, "send your API token as 'Authorization: Bearer TOKEN'")
    with make() as db:
        user = user_for_token(db, token.strip())
    if user is None:
        # A revoked or replaced token is told apart from no other (only hashes are kept): what the owner can do is said.
        raise HTTPException(401, UNKNOWN_TOKEN)
    return user


def get_owner(request: Request, authorization: Annotated[str | None, Header()] = None) -> User:
    """The owner of a request's token. Not in the route's session (``Db``), which stays open until the answer: an
    upload held a connection of the pool while it arrived and was validated, and a rush of them held them all."""
    state: LadderState = request.app.state.ladder
    return owner_of(state.make, authorization)


Owner = Annotated[User, Depends(get_owner)]


def needs_owner(dependant: Dependant) -> bool:
    """Whether a route (its dependencies, all the way down) asks for the owner's token."""
    return any(d.call is get_owner or needs_owner(d) for d in dependant.dependencies)


def find_match(db: Session, match_id: int) -> Match:
    """The match ``match_id``, or 404."""
    found = queries.get_match(db, match_id)
    if found is None:
        raise HTTPException(404, f"no match {match_id}")
    return found


def held_back(match_id: int) -> HTTPException:
    return HTTPException(404, f"no replay for match {match_id} yet: it is shown once every match of its deal is over")


def check_kept(what: str, match_id: int, pruned_days: int | None) -> None:
    """410 Gone for a log or replay the operator pruned (``arena ladder prune``): it was there, and will not be again."""
    if pruned_days is not None:
        raise HTTPException(410, pruned_detail(what, match_id, pruned_days))


#: Characters of a refused request's input that a 422 quotes back; the rest is counted, not repeated.
QUOTED_INPUT = 200


def quoted_input(value: Any) -> Any:
    """A refused input as a 422 quotes it: whole if short, else its first QUOTED_INPUT characters (as JSON text, for
    an object or a list) and how many more there were."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    if len(text) <= QUOTED_INPUT:
        return value
    return f"{text[:QUOTED_INPUT]}… ({len(text) - QUOTED_INPUT} more characters)"


def finite(value: Any) -> Any:
    """``value`` with each float JSON cannot hold (Python's json reads a body's ``Infinity``, ``-Infinity`` and ``NaN``)
    as the text it was sent as: a 422 that quoted one failed to be written, a 500."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else "Infinity" if value > 0 else "-Infinity"
    if isinstance(value, list):
        return [finite(v) for v in value]
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    return value


log = logging.getLogger("arena.ladder.api")

API_DESCRIPTION = (
    "Standings, bots, matches and replays of the Arena ladder. Every time (`created_at`, `finished_at`, `at`, a standing's "
    "`last_match`) is in seconds since the Unix epoch (UTC), a number with a fraction. A refusal is JSON, `{\"detail\": ...}`: a "
    "sentence, or for a parameter of the wrong type or range FastAPI's list of errors, each with `loc`, `msg` and `input`. "
    "A query parameter an endpoint does not take is refused (422). `/api/matches` pages by cursor (`before`, `after`), "
    "naming the next page in its `Link` header; `after` lists in the order the ladder settled the matches, for a poller. "
    "Replays and frames carry an ETag (answered 304 to `If-None-Match`) and go gzipped to a client that takes it. "
    "HEAD is answered as GET, and `/api/...` with a trailing slash as without it. Another site's page may GET and HEAD "
    "(CORS: any origin, no credentials, no token, no write). A request whose `Accept` takes no JSON is refused (406)."
)

OUTAGE_TOLD_S = 60.0  # the database out of reach: requests answered 503 are logged this often at most
OUTAGE_RETRY_S = 5  # and are told to try again after this many seconds


def error_page(message: str, heading: str, status: int, headers: dict[str, str] | None = None) -> Response:
    """A page's 500 or 503 as the ladder's other pages, in a browser (it was a bare line of plain text); that line
    still, should the page itself fail to be made."""
    try:
        page: Response = not_found(message, heading, status)
    except Exception:  # noqa: BLE001 - the error being answered is already logged
        log.exception("the error page of a %d could not be made", status)
        page = Response(f"{heading}: {message}", status_code=status, media_type="text/plain")
    page.headers.update(headers or {})
    return page


def create_app(state: LadderState) -> FastAPI:
    app = FastAPI(
        title="Arena ladder", version="1", description=API_DESCRIPTION, dependencies=[Depends(refuse_unknown_parameters)],
    )
    app.state.ladder = state
    app.add_middleware(BodyLimit)
    compress(app)
    app.add_middleware(JsonOnly)
    app.add_middleware(PoliteHttp)
    app.add_middleware(CrossOrigin)  # outermost: its preflights answered first, its leave on every answer of the others
    frame_cache = FrameCache()

    @app.exception_handler(Exception)
    async def internal_error(request: Request, exc: Exception) -> Response:
        """The ladder's own failure (the server logs its traceback): JSON under /api, as every other answer there, so
        that `arena ladder submit` does not take a plain-text 500 for a server that is not the ladder."""
        if request.url.path.startswith("/api/"):
            # With the CORS leave (written outside every middleware): another site's dashboard could not read it.
            return JSONResponse(
                {"detail": "the ladder failed to answer this request (an internal error; its log has the details)"}, status_code=500,
                headers=read_leave(request.method, request.url.path),
            )
        return error_page("The ladder failed to show this page: an internal error, which its log tells.", "Something went wrong", 500)

    told = [-OUTAGE_TOLD_S]  # when a request was last answered 503 for the database out of reach, as logged

    def tell_outage(exc: SQLAlchemyError) -> None:
        """Log the database out of reach, once a minute at most (a probe asks every few seconds)."""
        if time.monotonic() - told[0] >= OUTAGE_TOLD_S:
            told[0] = time.monotonic()
            orig = getattr(exc, "orig", None) or exc
            line = (str(orig).strip().splitlines() or [""])[0]
            log.warning("answering 503 while the database is out of reach (%s: %s)", type(orig).__name__, line)

    @app.exception_handler(DBAPIError)
    async def database_out_of_reach(request: Request, exc: DBAPIError) -> Response:
        """The database out of reach (PostgreSQL restarted, the network cut): 503 and when to try again, and a line in
        the log once a minute at most. Each request was a 500, "an internal error", with a traceback of 180 lines in
        the log, every 2 s for each `standings --watch`. Any other database error is the ladder's own: raised again."""
        if not unreachable(exc):
            raise exc
        tell_outage(exc)
        said = "the ladder's database is out of reach for a moment: try again shortly"
        headers = {"Retry-After": str(OUTAGE_RETRY_S)}
        if request.url.path.startswith("/api/"):
            return JSONResponse({"detail": said}, status_code=503, headers=headers)
        return error_page(f"The ladder's database is out of reach for a moment: this page is shown again once it is back (try"
                          f" again in {OUTAGE_RETRY_S} seconds or so).", "Try again shortly", 503, headers)

    async def token_refused(request: Request) -> Response | None:
        """The 401 of a request to a route that needs a token when it brings no good one; None otherwise."""
        route = request.scope.get("route")
        if not (isinstance(route, APIRoute) and needs_owner(route.dependant)):
            return None

        def check_token() -> None:
            owner_of(state.make, request.headers.get("authorization"))

        try:
            await run_in_threadpool(check_token)
        except HTTPException as refused:
            return JSONResponse({"detail": refused.detail}, status_code=refused.status_code)
        return None

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> Response:
        """A request that needs a token and brings no good one is refused 401 even when its body is malformed too:
        FastAPI reads the body before it checks the token, so a stranger's garbage got a 422 that described the body.

        A body sent as other than JSON is judged as bytes, and quoted: bytes that are not UTF-8 failed FastAPI's own
        answer (a 500), so they are written with their undecodable bytes replaced. A long input is quoted in part
        (``quoted_input``): a 60 KiB body came back whole in every refusal of it."""
        if (refused := await token_refused(request)) is not None:
            return refused
        errors = finite(jsonable_encoder(exc.errors(), custom_encoder={bytes: lambda raw: raw.decode("utf-8", "replace")}))
        for error in errors:
            if isinstance(error, dict) and "input" in error:
                error["input"] = quoted_input(error["input"])
        return JSONResponse({"detail": errors}, status_code=422)

    def known_game(game: str) -> str:
        if game not in GAMES:
            raise HTTPException(404, f"unknown game {game!r}")
        return game

    def known_bot(db: Session, name: str) -> str:
        # An unknown name is a 404, as for a game: an empty list would read as "nothing yet".
        if db.scalar(select(Bot.id).where(name_is(Bot.name, name))) is None:
            raise HTTPException(404, no_bot(db, name))
        return name

    metrics = state.metrics or LadderMetrics(state.make)
    metrics.watch(
        "arena_submissions_in_progress", "Uploads being read, unpacked or validated.", lambda: sum(state.admission.open.values())
    )

    @app.get("/metrics", include_in_schema=False)  # for Prometheus, not an API client (docs/deploy.md, Monitoring)
    def prometheus_metrics() -> Response:
        from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

        return Response(generate_latest(metrics.registry), media_type=CONTENT_TYPE_LATEST)

    def database_down() -> JSONResponse | None:
        """The 503 of a database out of reach, or None when it answers."""
        try:
            with state.make() as db:
                db.execute(select(1))
        except SQLAlchemyError as exc:
            tell_outage(exc)
            said = "the ladder answers, but its database is out of reach: what reads it is answered 503 until it is back (the ladder's log says why)"
            return JSONResponse({"status": "database_down", "detail": said}, status_code=503, headers={"Retry-After": str(OUTAGE_RETRY_S)})
        return None

    def playing() -> dict[str, Any]:
        at_once, warning = state.playing() if state.playing is not None else (None, None)
        return {"matches_at_once": at_once, "warning": warning}

    @app.get(
        "/api/health", summary="Whether the ladder answers, and its database", tags=["ladder"], response_model=Health,
        responses={503: {"model": HealthDown, "description": "The ladder answers but its database does not: what reads it is a 503 meanwhile."}},
    )
    def health() -> Any:
        """200 and "ok" when the ladder and its database answer; 503 and "database_down" when the database does not. It
        answered "ok" whatever the database did, while every page and answer that read it was a 503: a load balancer
        or an operator's probe was told all was well. /metrics answers 200 either way (arena_database_up says which).
        A ladder that answers but plays no match (no Dask worker, the data folder gone) is still "ok", its pages and
        submissions being served, with a ``warning`` saying why; /api/health/matches is the probe that fails then."""
        return database_down() or {"status": "ok", **playing()}

    @app.get(
        "/api/health/matches", summary="Whether the ladder plays matches now", tags=["ladder"], response_model=Playing,
        responses={503: {"model": NotPlaying, "description": "It plays none (no worker, its data folder gone...) or its database is out of reach."}},
    )
    def health_matches() -> Any:
        """200 "playing" when the ladder can play matches now, 503 "not_playing" with the reason when it cannot (the
        ``warning`` of /api/health), or "database_down": for an uptime check that alerts on a standing queue, where
        /api/health stays 200 for a load balancer, the pages and submissions being served."""
        if (down := database_down()) is not None:
            return down
        now = playing()
        if now["warning"] is not None or not now["matches_at_once"]:
            detail = now["warning"] or "this process serves the API alone: no ladder plays matches here"
            return JSONResponse({"status": "not_playing", "detail": detail}, status_code=503, headers={"Retry-After": str(OUTAGE_RETRY_S)})
        return {"status": "playing", "matches_at_once": now["matches_at_once"]}

    @app.get("/api/games", summary="The games with their player counts", tags=["games"], response_model=list[Game])
    def games() -> list[dict[str, Any]]:
        return game_list()

    @app.get("/api/games/{game}/standings", summary="The leaderboard of a game: active versions by conservative rating", tags=["games"], response_model=list[Standing])
    def standings(game: str, db: Db) -> list[dict[str, Any]]:
        return queries.standings(db, known_game(game))

    @app.get(
        "/api/matches", summary="Finished matches, the last to end first (after a cursor: as settled), optionally of one game or one bot; paged by cursor", tags=["matches"],
        response_model=list[MatchSummary], responses={200: {"headers": {"Link": {
            "description": 'On a full page, the next one (RFC 8288): `</api/matches?limit=20&before=425>; rel="next"`.', "schema": {"type": "string"},
        }}}},
    )
    def matches(
        db: Db, response: Response, game: Annotated[str | None, Query(description="Only this game's matches.")] = None,
        bot: Annotated[str | None, Query(description="Only the matches this bot played in (any of its versions).")] = None,
        limit: Annotated[int, Query(ge=1, le=MAX_LISTED, description="How many at most.")] = 20,
        before: Annotated[int | None, Query(ge=0, description="A match id from an earlier page: the matches that ended before it, newest first (the next page).")] = None,
        after: Annotated[int | None, Query(ge=0, description=(
            "A match id the `after` feed gave: the matches the ladder settled after it (every match of a deal, once the last"
            " of them is over), in the order it settled them, to poll for new ones: each is listed once, settled, with its"
            " ranks, even one that ended before a match listed earlier. 0: from the first settled. A match not settled yet"
            " (`settled` false on a page) is refused (422): it has no place in that order until its deal is over."
        ))] = None,
    ) -> list[dict[str, Any]]:
        """The finished matches (done, failed or cancelled) by end time, the later id first between two that ended
        together; with ``after``, only settled ones, in the order the ladder settled them instead, the first first. A full
        page's ``Link`` header names the next (``rel="next"``). A match listed with ``settled`` false (without ``after``,
        or with ``before``) gets its ranks, scores and verdicts once every match of its deal is over: ask
        ``/api/matches/{id}`` again, or read it from the ``after`` feed, which lists it then."""
        if game is not None:
            known_game(game)
        if bot is not None:
            known_bot(db, bot)
        if before is not None and after is not None:
            raise HTTPException(422, "give before or after, not both: before pages back to older matches, after polls for newer ones")
        if before is None and after is None:
            listed = queries.recent_matches(db, game, bot, limit)
        else:
            try:
                older = cursor_match(db, "before", before) if before is not None else None
                recorded = poll_cursor(db, after) if after is not None else None
            except BadCursor as exc:
                raise HTTPException(422, str(exc)) from None
            listed = matches_from(db, game, bot, limit, older, recorded)
        link = next_link("/api/matches", {"game": game, "bot": bot, "limit": limit}, listed, limit, newer=after is not None)
        if link is not None:
            response.headers["Link"] = link
        return listed

    @app.get("/api/matches/{match_id:arena_id}", summary="A match: its seats, results and verdicts", tags=["matches"], response_model=MatchSummary)
    def match(match_id: int, db: Db) -> dict[str, Any]:
        return queries.match_summary(db, find_match(db, match_id))

    @app.get("/api/matches/{match_id:arena_id}/replay", summary="The replay file of a finished match (once every match of its deal is over)", tags=["matches"])
    def replay(match_id: int, db: Db, request: Request) -> Any:
        found = find_match(db, match_id)
        if not queries.settled(db, found):
            raise held_back(match_id)
        check_kept("replay", match_id, found.replay_pruned_days)
        try:
            raw = queries.replay_json(db, match_id, state.data_dir)
        except FileNotFoundError:  # removed by hand, a disk replaced; any other OSError is the ladder's (logged 500)
            raw = None
        if raw is None:
            raise HTTPException(404, f"no replay for match {match_id}")
        try:  # the ladder keeps compact replays: reading one puts its events and final state back
            data = parse_replay(raw, f"match {match_id}")
        except OtherRules:  # older rules than this referee plays: the file as it was kept is still the match's record
            return revalidated(request, raw)
        except ReplayError as exc:
            raise HTTPException(500, f"the replay of match {match_id} cannot be read: {exc}") from None
        return revalidated(request, json.dumps(data, separators=(",", ":")).encode())

    @app.get("/api/bots/{name}", summary="A bot: owner, versions and their ratings", tags=["bots"], response_model=BotDetail)
    def bot(name: str, db: Db) -> dict[str, Any]:
        detail = queries.bot_detail(db, name)
        if detail is None:
            raise HTTPException(404, no_bot(db, name))
        return detail

    @app.get("/api/bots/{name}/history", summary="Rating history of a bot in one game: one point per rating update (a duplicate set), version by version", tags=["bots"], response_model=list[RatingPoint])
    def history(
        name: str, game: str, db: Db,
        points: Annotated[int | None, Query(ge=2, le=100_000, description="At most about this many points, evenly spread, with each version's first and last (all when left out).")] = None,
    ) -> list[dict[str, Any]]:
        return queries.rating_history(db, known_bot(db, name), known_game(game), points)

    # The archive is read from the stream (413 as soon as it passes the limit), so FastAPI cannot see the body:
    # it is described here, for clients made from /openapi.json and for /docs to offer a file to send.
    zip_body = {"required": True, "content": {"application/zip": {"schema": {"type": "string", "format": "binary"}}}}

    @app.post(
        "/api/bots", status_code=201, summary="Submit a bot version (a zip archive; owner token)", tags=["bots"], openapi_extra={"requestBody": zip_body},
        response_model=Submission, responses={422: {"model": Submission, "description": "Rejected by its validation: `reason` and `log` say why."}},
    )
    async def upload(request: Request, user: Owner) -> Any:
        try:
            async with state.admission.owner(user.id):
                with state.make() as db:  # before the upload is read; submit counts again as it registers the version
                    check_daily_limit(db, user.id, state.per_day, time.time())
                body = await read_upload(request, state.limits.archive_bytes)
                async with state.admission.turn():
                    outcome = await submit(state.make, state.store, user, body, state.limits, state.validate, state.sandbox, state.per_day)
        except SubmissionRefused as exc:
            raise HTTPException(exc.status, str(exc), exc.headers) from None
        reason = with_unscheduled(outcome, state.games)
        payload = {"bot": outcome.bot, "seq": outcome.seq, "version": outcome.version, "accepted": outcome.accepted, "reason": reason, "log": outcome.log}
        return JSONResponse(payload, status_code=201 if outcome.accepted else 422)

    @app.post("/api/bots/{name}/withdraw", summary="Take your bot off the ladder (owner token); a new submission brings it back", tags=["bots"], response_model=Withdrawal)
    def withdraw_bot(name: str, user: Owner, db: Db) -> dict[str, Any]:
        try:
            seq = withdraw(db, user.id, name)
        except WithdrawalRefused as exc:
            raise HTTPException(exc.status, str(exc)) from None
        return {"bot": name, "seq": seq, "status": "retired"}

    @app.post("/api/challenges", status_code=201, summary="Challenge another bot to a duplicate pair of unrated matches (owner token; a few open at a time)", tags=["matches"], response_model=Challenge)
    def make_challenge(body: ChallengeRequest, user: Owner, db: Db) -> dict[str, Any]:
        known_game(body.game)
        try:
            made = challenge(db, user.id, body.bot, body.opponent, body.game, draw_seed())
        except ScheduleError as exc:
            raise HTTPException(429 if isinstance(exc, TooManyChallenges) else 422, str(exc)) from None
        return {"matches": [m.id for m in made]}

    @app.get("/api/matches/{match_id:arena_id}/logs/{seat:arena_id}", summary="The log a bot wrote in a match (its owner only, once every match of its deal is over)", tags=["matches"], response_model=SeatLog)
    def seat_log(match_id: int, seat: int, user: Owner, db: Db) -> Any:
        found = find_match(db, match_id)
        row = db.execute(select_seat(match_id, seat)).first() if 0 <= seat <= MAX_INT else None
        if row is None:
            raise HTTPException(404, f"match {match_id} has no seat {seat} (its seats: 0 to {found.num_players - 1})")
        match_seat, bot_owner = row
        if bot_owner != user.id:
            raise HTTPException(403, "only the bot's owner may read its logs")
        if not queries.settled(db, found):  # the log shows a hand the opponent holds in the twin match
            raise HTTPException(404, f"no log for match {match_id} yet: logs are kept back until every match of its deal is over")
        check_kept("log", match_id, found.logs_pruned_days)
        text = queries.seat_log(db, match_seat, state.data_dir)
        if text is None:
            raise HTTPException(404, "no log kept for this seat")
        return JSONResponse({"log": text})

    @app.get("/api/me", summary="The owner an API token belongs to", tags=["bots"], response_model=Me)
    def me(user: Owner) -> dict[str, Any]:
        return {"name": user.name}

    @app.get("/api/bots/{name}/crosstable", summary="Head-to-head results of a bot against every opponent", tags=["bots"], response_model=list[HeadToHead])
    def crosstable(name: str, db: Db, game: str | None = None) -> list[dict[str, Any]]:
        return queries.crosstable(db, known_bot(db, name), None if game is None else known_game(game))

    @app.get("/api/matches/{match_id:arena_id}/frames", summary="Replay frames of a finished match (once every match of its deal is over), for everyone or as one seat saw them", tags=["matches"])
    def frames(
        match_id: int,
        db: Db,
        request: Request,
        seat: Annotated[str, Query(description="'all' (full state and every event) or a seat number (that seat's views and events)")] = "all",
    ) -> Any:
        found = find_match(db, match_id)
        if not queries.settled(db, found):
            raise held_back(match_id)
        check_kept("replay", match_id, found.replay_pruned_days)
        stored = queries.match_file(db, match_id, REPLAY_FILE) if found.status == "done" else None
        path = queries.replay_path(db, match_id, state.data_dir)
        if stored is None and path is None:
            raise HTTPException(404, f"no replay for match {match_id}")
        try:
            which = parse_seat(seat, found.num_players)
        except ValueError as exc:
            raise HTTPException(422, str(exc)) from None
        try:
            if stored is not None:  # a replay never changes once stored: the match id names it
                data = stored
                built = frame_cache.frames_for(f"match/{match_id}", which, lambda: parse_replay(data, f"match {match_id}", complete=False))
                return revalidated(request, bytes(JSONResponse(built).body))
            assert path is not None
            # Read here, not by load_replay: its errors name the file, a path of the server's for anyone to read.
            built = frame_cache.frames(path, which, lambda: parse_replay(path.read_bytes(), f"match {match_id}", complete=False))
            return revalidated(request, bytes(JSONResponse(built).body))
        except OtherRules as exc:  # the ladder is fine: its referee plays newer rules than this match was played under
            raise HTTPException(
                409, f"the replay of match {match_id} cannot be shown: {exc}; its file is at /api/matches/{match_id}/replay"
            ) from None
        except FileNotFoundError:  # removed by hand, a disk replaced: as /replay says
            raise HTTPException(404, f"no replay for match {match_id}") from None
        except ReplayError as exc:  # an OSError but FileNotFoundError: the ladder's own failure (logged; its answer names no path)
            raise HTTPException(500, f"the replay of match {match_id} cannot be shown: {exc}") from None

    mount_pages(app)

    @app.exception_handler(StarletteHTTPException)
    async def refused_request(request: Request, exc: StarletteHTTPException) -> Response:
        """JSON that is not UTF-8 is refused 400 by FastAPI, before the token is checked: without a good one, 401 as
        for any other malformed body. Every other refusal is answered as the pages answer it (mount_pages)."""
        if exc.status_code == 400 and (refused := await token_refused(request)) is not None:
            return refused
        return await page_not_found(request, exc)

    return app


class BodyLimit:
    """Refuse (413) a request's body past MAX_BODY bytes, on every route but the upload's, which reads its own to its limit.

    FastAPI reads a JSON body whole before it checks the token: a client with none made the ladder hold all it sent."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] == "/api/bots":
            await self.app(scope, receive, send)
            return
        received = 0

        async def limited() -> Message:
            nonlocal received
            message = await receive()
            received += len(message.get("body", b""))
            if received > MAX_BODY:  # raised where the route reads its body: answered as its other refusals are
                raise HTTPException(413, f"the request's body is larger than {MAX_BODY} bytes")
            return message

        await self.app(scope, limited, send)


async def read_upload(request: Request, most: int) -> bytes:
    """The request's body, refused (413) as soon as it passes ``most`` bytes."""
    body = bytearray()
    try:
        async for chunk in request.stream():
            body += chunk
            if len(body) > most:
                raise HTTPException(413, f"the archive is larger than {most} bytes")
    except ClientDisconnect:  # the uploader hung up (Ctrl-C, a dropped line): not a traceback in the ladder's log
        raise HTTPException(400, "the upload was cut off before its end") from None
    return bytes(body)


def select_seat(match_id: int, seat: int) -> Any:
    """A seat of a match with the owner id of the bot that sat there."""
    return (
        select(MatchSeat, Bot.owner_id)
        .join(BotVersion, BotVersion.id == MatchSeat.bot_version_id)
        .join(Bot, Bot.id == BotVersion.bot_id)
        .where(MatchSeat.match_id == match_id, MatchSeat.seat == seat)
    )
