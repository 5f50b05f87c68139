"""What a script that reads the ladder over HTTP expects of any API: HEAD answered as GET without the body, an API
address with a trailing slash answered as the one without (not a redirect a client may not follow), a query parameter
the endpoint does not take refused by name (not ignored: ``?offset=`` read the first page for ever), as is one given
twice, an answer that never changes once served (a settled match's replay and frames) revalidated by ETag rather than sent again,
and a request whose ``Accept`` takes no JSON refused (406) rather than answered JSON all the same."""

from __future__ import annotations

import hashlib
import json
import re
from types import UnionType
from typing import Any, Union, get_args, get_origin

from fastapi import HTTPException, Request
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from starlette.datastructures import Headers
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send


class PoliteHttp:
    """HEAD as GET with the body left out (FastAPI's routes answered 405), and ``/api/…/`` as ``/api/…``, a page's
    ``/games/glory/`` as ``/games/glory``: the router redirected those (307) to an absolute ``http://`` address, which
    httpx and curl do not follow unless told, and which names the wrong scheme behind a proxy it does not trust. An
    address under ``/static/`` is left to the static files."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        trimmed = path.rstrip("/")
        if trimmed != path and trimmed and not path.startswith("/static/") and (trimmed.startswith("/api/") or not path.startswith("/api/")):
            raw: bytes = scope.get("raw_path") or path.encode()
            scope = {**scope, "path": trimmed, "raw_path": raw.rstrip(b"/")}
        if scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def bodiless(message: Message) -> None:
            if message["type"] == "http.response.body":
                message = {**message, "body": b""}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, bodiless)


def query_names(dependant: Dependant) -> dict[str, bool]:
    """The query parameters a route takes, its dependencies' too, each with whether it takes several values (a list)."""
    found = {p.alias: many_valued(p.field_info.annotation) for p in dependant.query_params}
    for sub in dependant.dependencies:
        found.update(query_names(sub))
    return found


def many_valued(annotation: Any) -> bool:
    """Whether a parameter of this type takes a list of values (``?x=1&x=2``), itself or as an optional."""
    origin = get_origin(annotation)
    if origin in (list, set, tuple, frozenset):
        return True
    return origin in (Union, UnionType) and any(many_valued(a) for a in get_args(annotation))


#: A path parameter's converter (``{match_id:arena_id}``), which is the router's business: the refusal names the address
#: as the OpenAPI document does (``{match_id}``).
CONVERTER = re.compile(r":[^{}]*}")


def refuse_unknown_parameters(request: Request) -> None:
    """A dependency of every route: under /api/, a query parameter the endpoint does not take is refused (422) with
    the ones it takes, where it was ignored and a client's ``offset`` or ``page`` silently read the first page again."""
    route = request.scope.get("route")
    if not request.url.path.startswith("/api/") or not isinstance(route, APIRoute):
        return
    taken = query_names(route.dependant)
    unknown = sorted(set(request.query_params) - set(taken))
    if unknown:
        names = ", ".join(repr(u) for u in unknown)
        offered = ", ".join(sorted(taken)) or "none"
        raise HTTPException(422, f"unknown query parameter {names}: {CONVERTER.sub('}', route.path)} takes {offered}")
    given = [name for name, _ in request.query_params.multi_items()]
    twice = sorted({name for name in given if given.count(name) > 1 and not taken[name]})
    if twice:  # the last was read and the others dropped: ?seat=all&seat=0 answered seat 0's view
        raise HTTPException(422, f"query parameter {', '.join(repr(t) for t in twice)} given more than once: it takes one value")


def revalidated(request: Request, body: bytes, media_type: str = "application/json") -> Response:
    """``body`` with a weak ETag of its content (weak: it may go gzipped) and ``Cache-Control: no-cache`` (a cache asks
    again each time, since the operator may prune it: 410), or 304 with no body when the client holds it already."""
    tag = f'W/"{hashlib.sha256(body).hexdigest()[:32]}"'
    headers = {"ETag": tag, "Cache-Control": "no-cache"}
    held = {t.strip() for t in request.headers.get("if-none-match", "").split(",")}
    if tag in held or tag[2:] in held or "*" in held:
        return Response(status_code=304, headers=headers)
    return Response(body, media_type=media_type, headers=headers)


#: What every endpoint under /api/ answers in, its refusals too.
JSON = "application/json"
#: How specific each media range that takes JSON is: the most specific one an Accept header names decides (RFC 9110, 12.5.1).
JSON_RANGES = {JSON: 2, "application/*": 1, "*/*": 0}


def accepts_json(accept: str) -> bool:
    """Whether an ``Accept`` header takes JSON: some range of it matches application/json, and the most specific that
    does has a weight (q) above 0. A blank header is no preference. A weight that is no number is read as 1, as the
    header's media type and other parameters are not judged: a client's quirk is not worth a refusal."""
    weight: tuple[int, float] | None = None  # (specificity, q) of the most specific range that takes JSON
    for part in accept.split(","):
        media, *params = (p.strip() for p in part.split(";"))
        specificity = JSON_RANGES.get(media.lower())
        if specificity is None or (weight is not None and weight[0] >= specificity):
            continue
        q = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value.strip())
                except ValueError:
                    q = 1.0
        weight = (specificity, q)
    return not accept.strip() or (weight is not None and weight[1] > 0)


class JsonOnly:
    """Refuse (406) a request under /api/ whose ``Accept`` takes no JSON, the only thing the API answers in: ``Accept:
    text/html`` on /api/games was answered JSON, which a client that asked so cannot read. No Accept, ``*/*`` and
    application/json go on as ever (a browser's own ``text/html,...,*/*;q=0.8`` does too). A CORS preflight is not
    judged: it asks for leave, not for an answer (ladder/web/cors.py)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith("/api/") or scope["method"] == "OPTIONS":
            await self.app(scope, receive, send)
            return
        accept = Headers(scope=scope).get("accept")
        if accept is None or accepts_json(accept):
            await self.app(scope, receive, send)
            return
        said = f"the API answers {JSON} only, which this request's Accept ({accept[:200]}) does not take: send Accept: {JSON}, or */*"
        await send_refusal(send, 406, said)  # HEAD's body is left out by PoliteHttp, outside this


async def send_refusal(send: Send, status: int, detail: str) -> None:
    """Answer ``{"detail": detail}`` with ``status`` from a middleware, before any route is reached."""
    body = json.dumps({"detail": detail}).encode()
    headers = [(b"content-type", JSON.encode()), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
