"""Cross-origin reads of the API (CORS): a spectator's dashboard served from another site may GET (and HEAD) what the
ladder's own pages read, from a browser; nothing else.

Every GET and HEAD answer under ``/api/`` says ``Access-Control-Allow-Origin: *`` (whatever the request's Origin, or
none: a cache that kept an answer to a same-site request then serves it to another site's too), and exposes the
headers a script needs (``Link`` to page, ``ETag`` to revalidate, ``Retry-After`` during an outage). No credentials
are allowed: the ladder has no cookies, and a token is sent in ``Authorization``, a header a browser asks leave for
first (a preflight) and is refused here. So a page of another site cannot submit, withdraw, challenge, or read an
owner's logs with a token its user typed in: those are for the ladder's own pages, ``arena ladder``, and scripts run
outside a browser, which CORS does not concern. There is no setting to open them: a site that wants to act for an
owner does it from its own server, where the token stays.

A preflight (OPTIONS with ``Access-Control-Request-Method``) for GET or HEAD, with at most ``If-None-Match`` among
its headers, is answered 204 with the leave; any other is refused, 403 with a sentence that says why (a browser then
refuses the request itself). Starlette's CORSMiddleware was not used: it gives leave for every path and, to a request
that needs none, for every method, where only the read-only API's GET and HEAD are meant.
"""

from __future__ import annotations

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ladder.web.http import send_refusal

#: The methods another site's page may use: reading.
READ_METHODS = ("GET", "HEAD")
#: The request headers it may send beyond those a browser sends without asking (Accept is one): revalidating a replay.
READ_HEADERS = ("if-none-match",)
#: The answer's headers a script of another site may read beyond Content-Type, Cache-Control and the like.
EXPOSED = "Link, ETag, Retry-After"
#: Seconds a browser may keep a preflight's leave.
MAX_AGE = 600


def allowed(method: str, headers: str) -> str | None:
    """Why a preflight for ``method`` with ``headers`` (Access-Control-Request-Headers) is refused; None when it is not."""
    if method.upper() not in READ_METHODS:
        return f"{method} is not open to other sites: they may only GET or HEAD the read-only API"
    asked = {h.strip().lower() for h in headers.split(",") if h.strip()}
    extra = sorted(asked - set(READ_HEADERS))
    if "authorization" in extra:
        return "a token (Authorization) may not be sent from another site's page: act for an owner from a server or a script"
    if extra:
        return f"header {', '.join(extra)} may not be sent from another site's page (only If-None-Match)"
    return None


def read_leave(method: str, path: str) -> dict[str, str]:
    """The headers that let another site's page read an answer to ``method`` on ``path``; none where it may not.

    For answers made outside the middleware: the ladder's 500, which Starlette writes outermost of all."""
    if method in READ_METHODS and path.startswith("/api/"):
        return {"Access-Control-Allow-Origin": "*", "Access-Control-Expose-Headers": EXPOSED}
    return {}


class CrossOrigin:
    """The API's CORS, as the module says: leave to read for every origin, on GET and HEAD under ``/api/``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith("/api/"):
            await self.app(scope, receive, send)
            return
        method = scope["method"]
        headers = Headers(scope=scope)
        if method == "OPTIONS" and "origin" in headers and "access-control-request-method" in headers:
            await self.preflight(headers, send)
            return
        if method not in READ_METHODS:
            await self.app(scope, receive, send)
            return

        async def opened(message: Message) -> None:
            if message["type"] == "http.response.start":
                MutableHeaders(scope=message).update(read_leave(method, scope["path"]))
            await send(message)

        await self.app(scope, receive, opened)

    @staticmethod
    async def preflight(headers: Headers, send: Send) -> None:
        refused = allowed(headers["access-control-request-method"], headers.get("access-control-request-headers", ""))
        if refused is None:
            leave = [
                (b"access-control-allow-origin", b"*"), (b"access-control-allow-methods", ", ".join(READ_METHODS).encode()),
                (b"access-control-allow-headers", b"If-None-Match"), (b"access-control-max-age", str(MAX_AGE).encode()),
            ]
            await send({"type": "http.response.start", "status": 204, "headers": leave})
            await send({"type": "http.response.body", "body": b""})
            return
        await send_refusal(send, 403, f"cross-origin request refused: {refused}")
