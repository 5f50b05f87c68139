"""The ladder's HTTP API and pages, fuzzed: bad input gets a clear error, and nothing is lost.

Against a ladder whose rows are written by hand (two owners' bots; a settled match with its replay and logs, one whose
twin is still queued, one pruned), hypothesis-made requests: every GET route (and the other methods but POST) with
arbitrary path segments (unicode, encoded slashes, dots, very long, ids negative, huge or not numbers) and query
parameters (unknown, of the wrong type, repeated, huge); uploads of random bytes, of a real bot's zip cut or with
bytes flipped, of zips with hostile entries, and of bots whose bot.toml is changed or garbage, to the ladder's limits
and to small ones; challenges and withdrawals with arbitrary bodies; each with or without a good token and content
type. No answer is a 5xx; a refusal under /api/ is JSON with a ``detail``; no body shows a traceback or a path of
the server's; and a refused request changes nothing (the database's rows, the data folder's files). Uploads are not
validated (``validate=False``, no matches played): an accepted one is unpacked and registered only, and must add
its version and folder and nothing else. SQLite only, to stay fast: test_postgres.py holds what PostgreSQL answered
otherwise (a name holding NUL)."""

from __future__ import annotations

import dataclasses
import io
import json
import struct
import warnings
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlencode

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session, sessionmaker

from ladder.accounts import add_user
from ladder.api import MAX_BODY, LadderState, create_app
from ladder.jobs import REPLAY_FILE, seat_log_name
from ladder.models import Base, Bot, BotVersion, Match, MatchSeat, User
from ladder.service import Ladder, LadderConfig
from ladder.submissions import store_dirs
from ladder.upload import Limits, zip_directory
from referee.server.session import TimeControl
from tests.ladder.test_api_rows import GAME, add_bot, add_played
from tests.support import ROOT
from tests.web.test_frames import replay_data

FUZZ = settings(deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
BOT_TOML: dict[str, Any] = {"name": "a", "version": "1", "language": "python", "games": [GAME], "command": ["python", "bot.py"]}
MANIFEST = "".join(f"{k} = {json.dumps(v)}\n" for k, v in BOT_TOML.items())
#: Limits an upload's archive passes with a few hundred bytes (the sample bot is within them).
SMALL = Limits(archive_bytes=2000, unpacked_bytes=4000, files=4)
LEAKS = ("Traceback (most recent call last)", str(ROOT))


@dataclass
class Fuzzed:
    client: TestClient
    make: sessionmaker[Session]
    data: Path
    tokens: dict[str, str]  # alice owns bot "a", bob bot "b"
    matches: list[int]  # settled, with its twin; unsettled (its twin queued); pruned
    sample: bytes  # a bot "a" zipped as `arena ladder submit` zips it
    small: TestClient  # the same ladder taking archives of at most SMALL's sizes, for uploads to pass them cheaply

    def snapshot(self) -> tuple[dict[str, list[str]], dict[str, bytes | None]]:
        """Every row of every table, and every file and folder of the data folder but the database's own."""
        with self.make() as db:
            rows = {t.name: sorted(repr(tuple(r)) for r in db.execute(select(t))) for t in Base.metadata.sorted_tables}
        files = {
            p.relative_to(self.data).as_posix(): None if p.is_dir() else p.read_bytes()
            for p in self.data.rglob("*")
            if not p.name.startswith("ladder.db")
        }
        return rows, files


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fuzzed]:
    tmp = tmp_path_factory.mktemp("api-fuzz")
    config = LadderConfig(tmp / "data", samples=False, games=[GAME], time_control=TimeControl(move_time_ms=2000), seed=1)
    ladder = Ladder(config)
    with ladder.make() as db:
        tokens = {name: add_user(db, name) for name in ("alice", "bob")}
        a, b = add_bot(db, "alice", "a", versions=2), add_bot(db, "bob", "b", versions=1)
        files = {REPLAY_FILE: json.dumps(replay_data(GAME, 2, 1)).encode(), seat_log_name(0): b"alice's log", seat_log_name(1): b"bob's log"}
        settled = add_played(db, [a, b], files)
        twin = add_played(db, [b, a], files)
        unsettled = add_played(db, [a, b], files)
        pruned = add_played(db, [a, b], {})
        deals = {m.id: m for m in db.scalars(select(Match))}
        deals[twin].deal = deals[settled].deal
        db.add(Match(game=GAME, seed=1, num_players=2, kind="rated", status="queued", deal=deals[unsettled].deal, created_at=0.0))
        deals[pruned].replay_pruned_days = deals[pruned].logs_pruned_days = 30
        db.commit()
    store_dirs(ladder.store)  # made by the first upload: there from the start, so that no snapshot differs by them
    bot = tmp / "bot"
    bot.mkdir()
    (bot / "bot.toml").write_text(MANIFEST)
    (bot / "bot.py").write_text("print('hello')\n" * 20)
    state = LadderState(ladder.make, ladder.store, config.data_dir, validate=False, per_day=0)
    with (
        TestClient(create_app(state), raise_server_exceptions=False) as client,
        TestClient(create_app(dataclasses.replace(state, limits=SMALL)), raise_server_exceptions=False) as small,
    ):
        yield Fuzzed(client, ladder.make, config.data_dir, tokens, [settled, twin, unsettled, pruned], zip_directory(bot), small)


def check_answer(f: Fuzzed, path: str, reply: Any, sent: str = "") -> None:
    """Not a 5xx; a refusal under /api/ is JSON with a detail; nothing of the server's insides shown."""
    assert reply.status_code < 500, (path, reply.status_code, reply.text[:2000])
    for leak in (*LEAKS, str(f.data)):
        assert leak not in reply.text or leak in sent or leak in unquote(path), (path, leak, reply.text[:2000])
    if reply.status_code >= 400 and reply.request.url.path.startswith("/api/"):  # as the server saw it: "/api/." is "/api"
        assert reply.headers["content-type"].startswith("application/json"), (path, reply.headers)
        body = reply.json()
        assert isinstance(body, dict) and body.get("detail"), (path, body)
        assert isinstance(body["detail"], (str, list)), (path, body)


# --- GET routes -------------------------------------------------------------------------------------------------

NAMES = ["a", "b", "alice", GAME, "all", "0", "1", "-1", ".", "..", "...", "a.b", "%", "%2F", "%00", "a/b", "a%2Fb", "é", "\u202e", "x" * 5000]
segments = st.one_of(st.sampled_from(NAMES), st.text(max_size=40), st.text(alphabet="./%\\a0", max_size=12))
ids = st.one_of(
    st.integers(-(2**70), 2**70).map(str),
    st.sampled_from(["0", "1", "2", "3", "4", "5", "2147483647", "2147483648", "9" * 400, "1e3", "0x1", " 1", "１"]),
    segments,
)
#: Ids of more digits than any: past 4300, more than Python reads as an integer (its ValueError was a 500).
LONG_IDS = ["9" * 33, "0" * 40 + "1", "9" * 4301, "0" * 5000 + "1"]


@st.composite
def segment(draw: st.DrawFn, values: st.SearchStrategy[str] = segments) -> str:
    """A path segment: encoded whole (slashes as %2F), or with its slashes and percent signs left as they are."""
    raw = draw(values)
    return quote(raw, safe=draw(st.sampled_from(["", "/%", "%"])))


TEMPLATES = [
    "/", "/api/health", "/api/games", "/api/matches", "/api/me", "/metrics", "/openapi.json", "/docs", "/redoc",
    "/api/games/{s}/standings", "/api/bots/{s}", "/api/bots/{s}/history", "/api/bots/{s}/crosstable", "/api/matches/{i}",
    "/api/matches/{i}/replay", "/api/matches/{i}/frames", "/api/matches/{i}/logs/{j}", "/games/{s}", "/bots/{s}",
    "/matches/{i}", "/static/{s}", "/static/{s}/{s}", "/api/{s}", "/{s}", "/api/bots/{s}/withdraw", "/api/challenges",
]  # fmt: skip
query_keys = st.one_of(st.sampled_from(["limit", "game", "bot", "points", "seat", "name", "limit[]", ""]), st.text(max_size=10))
query_values = st.one_of(st.sampled_from(["all", "a", "b", GAME, "0", "1", "2", "-1", "200", "201", "100000", "1.5", "true", ""]), ids, st.just("9" * 5000))
headers = st.sampled_from(["none", "alice", "bob", "garbage", "basic"])


def auth(f: Fuzzed, who: str) -> dict[str, str]:
    return {
        "none": {},
        "alice": {"Authorization": f"Bearer {f.tokens['alice']}"},
        "bob": {"Authorization": f"bearer  {f.tokens['bob']} "},  # the scheme in any case, spaces around the token
        "garbage": {"Authorization": "Bearer not-a-token"},
        "basic": {"Authorization": f"Basic {f.tokens['alice']}"},
    }[who]


#: Query parameters the routes take, with values they take: the drawn ones alone seldom reach a route's answer.
GOOD_QUERY = [("game", GAME), ("seat", "0"), ("seat", "1"), ("seat", "all"), ("points", "2"), ("limit", "5"), ("bot", "a")]
#: Any method but POST, whose routes change things (fuzzed below, with the changes checked).
METHODS = ["GET"] * 6 + ["HEAD", "OPTIONS", "PUT", "DELETE", "PATCH"]


@settings(FUZZ, max_examples=400)
@given(
    template=st.sampled_from(TEMPLATES),
    data=st.data(),
    query=st.lists(st.one_of(st.tuples(query_keys, query_values), st.sampled_from(GOOD_QUERY)), max_size=4),
    who=st.sampled_from(["alice", "alice", "bob", "none", "garbage", "basic"]),
    method=st.sampled_from(METHODS),
)
def test_no_get_is_answered_5xx_or_with_the_server_s_insides(
    fuzzed: Fuzzed, template: str, data: st.DataObject, query: list[tuple[str, str]], who: str, method: str
) -> None:
    known = [str(m) for m in fuzzed.matches]
    path = template.format(
        s=data.draw(segment(st.one_of(st.sampled_from(["a", "b", GAME]), segments))),
        i=data.draw(st.one_of(st.sampled_from(known), segment(ids), st.sampled_from(LONG_IDS))),
        j=data.draw(st.one_of(st.sampled_from(["0", "1", "2"]), segment(ids), st.sampled_from(LONG_IDS))),
    )
    before = None if method == "GET" else fuzzed.snapshot()
    reply = fuzzed.client.request(method, path, params=urlencode(query), headers=auth(fuzzed, who))
    if method == "HEAD":  # no body to judge
        assert reply.status_code < 500 and not reply.content, (path, reply.status_code)
        return
    check_answer(fuzzed, path, reply)
    if before is not None:
        assert reply.status_code >= 400 and fuzzed.snapshot() == before, (method, path, reply.text[:2000])


# --- uploads ----------------------------------------------------------------------------------------------------


def changed_by_upload(f: Fuzzed, before: tuple[dict[str, list[str]], dict[str, bytes | None]], reply: Any, owner: str) -> None:
    """An upload taken (201) adds its version, active, with its ratings (the bot's previous version retired), the bot
    if it is new (the uploader's), and the version's folder in the store: nothing else."""
    rows, files = f.snapshot()
    outcome = reply.json()
    assert outcome["accepted"] is True, outcome
    with f.make() as db:
        bot = db.scalars(select(Bot).where(Bot.name == outcome["bot"])).one()
        assert db.get_one(User, bot.owner_id).name == owner
        version = db.scalars(select(BotVersion).where(BotVersion.bot_id == bot.id, BotVersion.seq == outcome["seq"])).one()
    assert version.status == "active" and len(rows["bot_versions"]) == len(before[0]["bot_versions"]) + 1
    assert set(before[0]["bots"]) <= set(rows["bots"]) and len(rows["bots"]) - len(before[0]["bots"]) in (0, 1)
    changing = ("bots", "bot_versions", "ratings")
    assert {t: r for t, r in rows.items() if t not in changing} == {t: r for t, r in before[0].items() if t not in changing}
    added = {name for name in files if name not in before[1]}
    assert added and all(name.startswith(f"bots/{version.path}/") or name in (f"bots/{bot.name}", f"bots/{version.path}") for name in added), added
    assert (f.data / "bots" / version.path / "bot.toml").is_file()
    assert {name: data for name, data in files.items() if name not in added} == before[1]


def wire(headers: dict[str, str]) -> dict[bytes, bytes]:
    """Headers as bytes: a value outside ASCII (a made-up content type) is sent as it is, not refused by the client."""
    return {k.encode("latin-1"): v.encode("latin-1") for k, v in headers.items()}


def flipped(data: bytes, edits: list[tuple[int, int]], cut: int | None) -> bytes:
    """``data`` with some bytes replaced (position modulo its length, new value) and perhaps cut short."""
    out = bytearray(data)
    for at, value in edits:
        out[at % len(out)] = value
    return bytes(out[:cut])


HOSTILE_NAMES = ["../escape.py", "/etc/cron.d/x", "a/../../x", "C:/x", "a\\..\\x", ".", "..", "./..", "x/../../../y"]
#: Each entry of a made archive: its name, kind and contents, and whether the ladder must refuse the archive for it.
plain_names = st.one_of(st.sampled_from(["bot.py", "lib/x.py", "a", "a/b", "top/bot.py", "__MACOSX/._bot.py", "./x", "é.py", "n" * 300]), st.text(min_size=1, max_size=20))
toml_values = st.one_of(
    st.text(max_size=10), st.integers(-(2**70), 2**70), st.floats(), st.booleans(), st.lists(st.one_of(st.text(max_size=8), st.integers()), max_size=3),
    st.sampled_from(["a", "b", "", GAME, "../x", "/bin/sh", "x" * 100, ["python"], ["./bot"], ["python", "../../x.py"], [GAME, GAME]]),
)
KINDS = {"file": 0o100644, "exec": 0o100755, "dir": 0o040755, "link": 0o120777, "fifo": 0o010644, "device": 0o020644, "none": 0}


@st.composite
def manifest_text(draw: st.DrawFn) -> str:
    """A bot.toml: a good one with fields changed (any TOML value), added or left out, or text that may not be TOML."""
    fields = dict(json.loads(json.dumps(BOT_TOML)))
    fields.update(draw(st.dictionaries(st.sampled_from([*BOT_TOML, "extra", "env", "matches_per_process"]), toml_values, max_size=3)))
    for gone in draw(st.lists(st.sampled_from(list(fields)), max_size=2)):
        fields.pop(gone, None)
    as_toml = "\n".join(f"{k} = {json.dumps(v)}" for k, v in fields.items())
    return draw(st.one_of(st.just(as_toml), st.just(MANIFEST), st.text(max_size=200), st.binary(max_size=100).map(lambda b: b.decode("latin-1"))))


def bot_zip(manifest: str) -> bytes:
    """A well-made zip of a bot whose bot.toml is ``manifest``."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("bot.toml", manifest)
        zf.writestr("bot.py", "print(1)\n")
    return buffer.getvalue()


@st.composite
def hostile_zip(draw: st.DrawFn) -> tuple[bytes, bool]:
    """A zip of made entries, and whether something in it must be refused (a name leaving the folder, a link or a
    device, a declared size past the limit); others may be refused too (no manifest, a bad one, a file twice)."""
    hostile = False
    buffer = io.BytesIO()
    with warnings.catch_warnings(), zipfile.ZipFile(buffer, "w", draw(st.sampled_from([zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED]))) as zf:
        warnings.simplefilter("ignore")  # zipfile warns of a name written twice
        top = draw(st.sampled_from(["", "", "", "", "top/", "top/", "../", "/"]))
        hostile |= top in ("../", "/")
        manifest = draw(manifest_text())
        if draw(st.booleans()) or top:
            zf.writestr(top + "bot.toml", manifest)
        if draw(st.booleans()):
            zf.writestr(top + "bot.py", "print(1)\n")
        for _ in range(draw(st.integers(0, 4))):
            bad = draw(st.integers(0, 3)) == 0
            name = draw(st.sampled_from(HOSTILE_NAMES) if bad else plain_names)
            kind = draw(st.sampled_from(["file"] * 4 + list(KINDS)))
            hostile |= bad or kind in ("link", "fifo", "device")
            info = zipfile.ZipInfo(top + name if not bad else name)
            info.external_attr = KINDS[kind] << 16
            zf.writestr(info, draw(st.sampled_from([b"", b"print(1)\n", b"\0" * 50_000, b"/etc/passwd"])))
    data = buffer.getvalue()
    if draw(st.integers(0, 3)) == 0:  # a declared size past the limit, in the central directory's first entry
        at = data.find(b"PK\x01\x02")
        if at >= 0:
            data = data[: at + 24] + struct.pack("<I", 0xFFFFFFF0) + data[at + 28 :]
            hostile = True
    return data, hostile


CONTENT_TYPES = [None, "application/zip", "application/json", "multipart/form-data; boundary=x", "text/plain", "application/x-www-form-urlencoded", "\u00e9/\u00e9"]


@settings(FUZZ, max_examples=250)
@given(
    kind=st.sampled_from(["bytes", "flipped", "made", "manifest", "sample"]),
    data=st.data(),
    who=st.sampled_from(["alice", "alice", "alice", "bob", "none", "garbage", "basic"]),
    content_type=st.sampled_from(CONTENT_TYPES),
    small=st.booleans(),
)
def test_an_upload_refused_is_told_why_and_changes_nothing(
    fuzzed: Fuzzed, kind: str, data: st.DataObject, who: str, content_type: str | None, small: bool
) -> None:
    hostile = False
    if kind == "bytes":
        body = data.draw(st.binary(max_size=3000))
    elif kind == "flipped":
        edits = data.draw(st.lists(st.tuples(st.integers(0, 2**16), st.integers(0, 255)), max_size=4))
        body = flipped(fuzzed.sample, edits, data.draw(st.none() | st.integers(0, len(fuzzed.sample))))
    elif kind == "made":
        body, hostile = data.draw(hostile_zip())
    elif kind == "manifest":
        body = bot_zip(data.draw(manifest_text()))
    else:
        body = fuzzed.sample
    sent = {**auth(fuzzed, who), **({"Content-Type": content_type} if content_type else {})}
    before = fuzzed.snapshot()
    reply = (fuzzed.small if small else fuzzed.client).post("/api/bots", content=body, headers=wire(sent))
    check_answer(fuzzed, "/api/bots", reply)
    if who not in ("alice", "bob"):
        assert reply.status_code == 401, reply.text
    elif small and len(body) > SMALL.archive_bytes:
        assert reply.status_code == 413, reply.text
    if reply.status_code == 201:
        assert not hostile, reply.text
        changed_by_upload(fuzzed, before, reply, who)
        return
    assert reply.status_code in (401, 403, 413, 422) and isinstance(reply.json()["detail"], str), reply.text
    assert fuzzed.snapshot() == before
    if kind == "sample" and who == "bob":  # "a" is alice's
        assert reply.status_code == 403


# --- challenges and withdrawals ---------------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=8,
)
#: Values of a challenge's fields: names of bots or not, JSON of any kind; a NUL and a lone surrogate ("\ud800" in
#: JSON), which no database holds; and one past the body's limit.
fields = st.one_of(st.sampled_from(["a", "b", "c", GAME, "", "A", "a ", "a\x00", "\ud800", "no-such-game", "x" * 70_000]), json_values)


@st.composite
def challenge_body(draw: st.DrawFn) -> bytes:
    """A challenge's JSON (its fields of any type, some missing or extra), other JSON, or bytes that are not JSON."""
    shape = draw(st.sampled_from(["challenge", "challenge", "json", "bytes", "cut"]))
    if shape == "bytes":
        return draw(st.binary(max_size=200))
    if shape == "json":
        return json.dumps(draw(json_values)).encode()
    body: dict[str, Any]
    if draw(st.booleans()):  # a good challenge of either owner's, perhaps with one field changed
        body = dict(zip(("bot", "opponent", "game"), draw(st.sampled_from([("a", "b", GAME), ("b", "a", GAME)]))))
        if draw(st.booleans()):
            body[draw(st.sampled_from(list(body)))] = draw(st.one_of(st.sampled_from(["c", "A", "a ", "a\x00", "\x00", "\ud800"]), fields))
    else:
        body = {key: draw(fields) for key in ("bot", "opponent", "game") if draw(st.integers(0, 5))}
    body.update(draw(st.dictionaries(st.text(max_size=8), json_values, max_size=2)))
    raw = json.dumps(body).encode()
    return raw[: draw(st.integers(0, len(raw)))] if shape == "cut" else raw


def plays(f: Fuzzed, name: str) -> list[str]:
    """The games of the bot's version on the ladder (none when it has none)."""
    with f.make() as db:
        found = db.scalar(select(BotVersion.games).join(Bot).where(Bot.name == name, BotVersion.status == "active"))
    return list(found or [])


@settings(FUZZ, max_examples=200)
@example(body=json.dumps({"bot": "\ud800", "opponent": "b", "game": GAME}).encode(), who="alice", content_type="application/json")
@example(body=json.dumps({"bot": "a", "opponent": "b\x00", "game": GAME}).encode(), who="alice", content_type="application/json")
@example(body=b"Infinity", who="alice", content_type="application/json")  # a 422 quoting it failed: JSON has no infinity
@example(body=b'{"bot": NaN, "opponent": [-Infinity], "game": 1e999}', who="alice", content_type="application/json")
@given(
    body=challenge_body(),
    who=st.sampled_from(["alice", "alice", "alice", "bob", "none", "garbage", "basic"]),
    content_type=st.sampled_from(["application/json"] * 8 + CONTENT_TYPES),
)
def test_a_challenge_refused_is_told_why_and_changes_nothing(fuzzed: Fuzzed, body: bytes, who: str, content_type: str | None) -> None:
    sent = {**auth(fuzzed, who), **({"Content-Type": content_type} if content_type else {})}
    before = fuzzed.snapshot()
    reply = fuzzed.client.post("/api/challenges", content=body, headers=wire(sent))
    check_answer(fuzzed, "/api/challenges", reply, body.decode("utf-8", "replace"))
    expected = 413 if len(body) > MAX_BODY else 401 if who not in ("alice", "bob") else None
    assert expected in (None, reply.status_code), (expected, reply.text)
    try:
        asked = json.loads(body)
    except ValueError:
        asked = None
    good = {"alice": {"bot": "a", "opponent": "b", "game": GAME}, "bob": {"bot": "b", "opponent": "a", "game": GAME}}.get(who)
    if good is not None and asked == good and content_type == "application/json" and all(GAME in plays(fuzzed, n) for n in ("a", "b")):
        assert reply.status_code == 201, reply.text
    if reply.status_code != 201:
        assert reply.status_code in (400, 401, 404, 413, 422, 429), reply.text  # 400: JSON that is not UTF-8
        assert fuzzed.snapshot() == before
        return
    made = reply.json()["matches"]
    with fuzzed.make() as db:
        new = db.scalars(select(Match).where(Match.id.in_(made))).all()
        user = db.scalar(select(User.id).where(User.name == who))
        assert len(new) == 2 and all(m.kind == "challenge" and m.challenger_id == user and m.status == "queued" for m in new)
        db.execute(delete(MatchSeat).where(MatchSeat.match_id.in_(made)))
        db.execute(delete(Match).where(Match.id.in_(made)))  # so that each example starts alike (a few are open at most)
        db.commit()
    assert fuzzed.snapshot() == before


@settings(FUZZ, max_examples=150)
@given(
    name=st.one_of(st.sampled_from(["a", "b", "a", "b", "c", "A"]), segments),
    encode=st.sampled_from(["", "/%"]),
    body=st.one_of(st.binary(max_size=100), challenge_body(), st.just(b"")),
    who=st.sampled_from(["alice", "bob", "none", "garbage", "basic"]),
    content_type=st.sampled_from(CONTENT_TYPES),
)
def test_a_withdrawal_refused_is_told_why_and_changes_nothing(fuzzed: Fuzzed, name: str, encode: str, body: bytes, who: str, content_type: str | None) -> None:
    sent = {**auth(fuzzed, who), **({"Content-Type": content_type} if content_type else {})}
    path = f"/api/bots/{quote(name, safe=encode)}/withdraw"
    body = body or b" " * (MAX_BODY + 1)  # past the limit of every body but an upload's: no route here reads it
    with fuzzed.make() as db:
        owner = db.scalar(select(User.name).join(Bot, Bot.owner_id == User.id).where(Bot.name == name))
        on_ladder = db.scalars(select(BotVersion).join(Bot).where(Bot.name == name, BotVersion.status.in_(("active", "suspended")))).all()
    before = fuzzed.snapshot()
    reply = fuzzed.client.post(path, content=body, headers=wire(sent))
    check_answer(fuzzed, path, reply)
    # Else the address is another route's, or none's (and the test client decodes a path twice: "%252F" is "/").
    if not {"/", "%"} & set(name) and name not in ("", ".", ".."):
        expected = 401 if who not in ("alice", "bob") else 404 if owner is None else 403 if owner != who else 200 if on_ladder else 409
        assert reply.status_code == expected, (name, who, reply.text)
    if reply.status_code != 200:
        assert 400 <= reply.status_code < 500 and fuzzed.snapshot() == before, reply.text
        return
    assert reply.json() == {"bot": name, "seq": max(v.seq for v in on_ladder), "status": "retired"}
    with fuzzed.make() as db:
        for version in on_ladder:  # put back, so that each example starts alike
            db.execute(update(BotVersion).where(BotVersion.id == version.id).values(status=version.status, reason=version.reason))
        db.commit()
    assert fuzzed.snapshot() == before
