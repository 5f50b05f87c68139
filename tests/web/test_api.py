"""The web pages' JSON endpoints and the pages themselves, over HTTP against a ladder that played real matches (no browser)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
from fastapi.testclient import TestClient
from sqlalchemy import update
from typer.testing import CliRunner

from arena.cli.main import app as cli
from ladder.models import Match
from ladder.web.routes import replay_app
from referee.server.frames import build_frames
from referee.server.replay import load_replay
from tests.web.conftest import GAME, ServedLadder, settled_matches


def done_matches(served: ServedLadder) -> list[Match]:
    with served.ladder.make() as db:
        return list(db.scalars(settled_matches()))


def test_the_openapi_document_lists_every_endpoint_with_a_summary(served: ServedLadder) -> None:
    doc = served.get("/openapi.json").json()
    paths = doc["paths"]
    for path in (
        "/api/games",
        "/api/games/{game}/standings",
        "/api/bots/{name}",
        "/api/bots/{name}/history",
        "/api/bots/{name}/crosstable",
        "/api/matches",
        "/api/matches/{match_id}",
        "/api/matches/{match_id}/replay",
        "/api/matches/{match_id}/frames",
        "/api/matches/{match_id}/logs/{seat}",
        "/api/me",
    ):
        assert path in paths, path
    for path, operations in paths.items():
        for method, operation in operations.items():
            assert operation.get("summary"), f"{method.upper()} {path} has no summary"
    assert not [p for p in paths if not p.startswith("/api/")], "pages and static files stay out of the API document"
    seat = next(p for p in paths["/api/matches/{match_id}/frames"]["get"]["parameters"] if p["name"] == "seat")
    assert "seat number" in seat["description"]
    # The upload is read from the stream, out of FastAPI's sight: the document still says what to send.
    upload = paths["/api/bots"]["post"]["requestBody"]
    assert upload["required"] and upload["content"]["application/zip"]["schema"] == {"type": "string", "format": "binary"}


def test_the_crosstable_is_the_head_to_head_record_of_match_seats(served: ServedLadder) -> None:
    for bot in ("gw-greedy", "random", "gw-noisy-60"):
        expected: dict[str, list[int]] = {}
        for m in served.get("/api/matches", bot=bot, limit=200).json():
            if m["status"] != "done" or not m["settled"]:  # no ranks before the deal is settled, and no crosstable row
                continue
            mine = [s for s in m["seats"] if s["bot"] == bot]
            for me in mine:
                for other in m["seats"]:
                    if other["bot"] == bot:
                        continue
                    tally = expected.setdefault(other["bot"], [0, 0, 0])
                    tally[0 if me["rank"] < other["rank"] else 2 if me["rank"] > other["rank"] else 1] += 1
        rows = served.get(f"/api/bots/{bot}/crosstable").json()
        assert {r["opponent"]: [r["wins"], r["draws"], r["losses"]] for r in rows} == expected
        for r in rows:
            assert r["game"] == GAME and r["games"] == r["wins"] + r["draws"] + r["losses"]
            assert r["score"] == (r["wins"] + r["draws"] / 2) / r["games"]
    assert sum(r["games"] for r in served.get("/api/bots/gw-greedy/crosstable", game=GAME).json()) > 0
    assert served.get("/api/bots/nobody/crosstable").status_code == 404
    assert served.get("/api/bots/gw-greedy/crosstable", game="chess").status_code == 404


def test_frames_are_the_replay_re_played_for_a_seat_or_for_everyone(served: ServedLadder) -> None:
    match = done_matches(served)[0]
    assert match.replay_path
    data = load_replay(served.file(match.replay_path))
    for seat in (0, 1, "all"):
        got = served.get(f"/api/matches/{match.id}/frames", seat=str(seat))
        assert got.status_code == 200
        assert got.json() == json.loads(json.dumps(build_frames(data, seat)))
        assert len(got.json()["frames"]) == len(data["actions"]) + 1
    assert served.get(f"/api/matches/{match.id}/frames").json()["seat"] == "all"
    assert served.get(f"/api/matches/{match.id}/frames", seat="2").status_code == 422
    assert served.get(f"/api/matches/{match.id}/frames", seat="dealer").status_code == 422
    assert served.get("/api/matches/999999/frames").status_code == 404


def test_the_ladder_keeps_compact_replays_and_serves_them_whole(served: ServedLadder) -> None:
    match = done_matches(served)[0]
    assert match.replay_path
    kept = json.loads(served.file(match.replay_path).read_bytes())
    assert kept["compact"] is True and "events" not in kept and "final_state" not in kept
    got = served.get(f"/api/matches/{match.id}/replay")
    assert got.status_code == 200
    whole = got.json()
    assert whole == load_replay(served.file(match.replay_path))
    assert whole["actions"] == kept["actions"] and whole["events"] and whole["final_state"] and "compact" not in whole


def test_a_match_of_older_rules_that_no_longer_re_plays_is_refused_as_such_and_its_file_still_served(served: ServedLadder) -> None:
    """A ladder upgraded across a change of the rules: the viewer's frames say why (409, both versions named, not a 500
    as for a damaged file), and the replay file is still served as it was kept, the match's record."""
    match = done_matches(served)[0]
    assert match.replay_path
    kept = json.loads(served.file(match.replay_path).read_bytes())
    current = kept["rules_version"]
    assert current >= 2  # the four older games were raised to 2 when their rules had changed without it
    older = dict(kept, rules_version=current - 1, actions=kept["actions"][1:])  # actions the rules now refuse
    path = served.file(match.replay_path).with_name(f"older-rules-{match.id}.json")
    path.write_text(json.dumps(older))
    with served.ladder.make() as db:
        db.execute(update(Match).where(Match.id == match.id).values(replay_path=str(path)))
        db.commit()
    try:
        frames = served.get(f"/api/matches/{match.id}/frames")
        assert frames.status_code == 409, frames.text
        said = frames.json()["detail"]
        assert f"recorded under version {current - 1} of the rules of {GAME}" in said and f"plays version {current}" in said
        assert f"/api/matches/{match.id}/replay" in said
        got = served.get(f"/api/matches/{match.id}/replay")
        assert got.status_code == 200 and got.json() == older
        path.write_text(json.dumps(dict(older, rules_version=current)))  # the same actions under today's rules: damaged
        assert served.get(f"/api/matches/{match.id}/replay").status_code == 500
    finally:
        with served.ladder.make() as db:
            db.execute(update(Match).where(Match.id == match.id).values(replay_path=match.replay_path))
            db.commit()


def test_me_names_the_token_owner_and_logs_are_for_the_owner_only(served: ServedLadder) -> None:
    alice, bob = served.tokens["alice"], served.tokens["bob"]
    assert served.get("/api/me", token=alice).json() == {"name": "alice"}
    assert served.get("/api/me").status_code == 401
    assert served.get("/api/me", token="arena_nope").status_code == 401
    match = next(m for m in served.get("/api/matches", bot="gw-greedy").json() if m["settled"] and m["status"] == "done")
    seat = next(s["seat"] for s in match["seats"] if s["bot"] == "gw-greedy")
    assert served.get(f"/api/matches/{match['id']}/logs/{seat}", token=alice).status_code == 200
    assert served.get(f"/api/matches/{match['id']}/logs/{seat}", token=bob).status_code == 403
    assert served.get(f"/api/matches/{match['id']}/logs/{seat}").status_code == 401


def test_the_pages_are_served_with_their_static_files(served: ServedLadder) -> None:
    match = done_matches(served)[0]
    for path in ("/", f"/games/{GAME}", "/bots/gw-greedy", f"/matches/{match.id}"):
        page = served.get(path)
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html"), path
        assert "/static/common.js?v=" in page.text
        text = page.text.replace("http://www.w3.org/2000/svg", "")  # a namespace name, not an address
        assert "http://" not in text and "https://" not in text, f"{path} must fetch nothing from the internet"
    viewer = served.get(f"/matches/{match.id}").text
    assert f'data-frames="/api/matches/{match.id}/frames"' in viewer and "data-local" not in viewer  # local: no links to the ladder's pages
    for path in ("/games/chess", "/bots/nobody", "/matches/999999"):
        assert served.get(path).status_code == 404, path
    static = Path(__file__).resolve().parents[2] / "ladder" / "web" / "static"
    for asset in sorted(static.iterdir()):
        got = served.get(f"/static/{asset.name}")
        assert got.status_code == 200 and got.content == asset.read_bytes(), asset.name
        if asset.suffix in (".js", ".css"):
            text = got.text.replace("http://www.w3.org/2000/svg", "")  # a namespace name, not an address
            assert "http://" not in text and "https://" not in text, f"{asset.name} must fetch nothing from the internet"


def test_arena_replay_refuses_what_is_not_a_replay(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "something else"}')
    result = CliRunner().invoke(cli, ["replay", str(bad), "--no-browser"])
    assert result.exit_code == 2 and "not an arena replay" in result.output


def test_only_the_api_documentation_pages_fetch_from_a_cdn_as_docs_web_md_says(served: ServedLadder) -> None:
    """docs/web.md said nothing was fetched from the internet, while /docs loads Swagger UI from cdn.jsdelivr.net."""
    said = (Path(__file__).resolve().parents[2] / "docs" / "web.md").read_text()
    for path in ("/docs", "/redoc"):
        assert "cdn.jsdelivr.net" in served.get(path).text and f"`{path}`" in said
    assert "cdn.jsdelivr.net" in said


def test_frames_and_pages_are_sent_compressed_to_a_browser_that_takes_it(served: ServedLadder, tmp_path: Path) -> None:
    """A match's frames are the state at every step written out: an Assassination Game's seat view was 1.4 MB, sent as
    it was to a phone; gzipped it is some 27 KB. The same for ``arena replay``'s own app."""
    match = done_matches(served)[0]
    for path in (f"/api/matches/{match.id}/frames", "/static/viewer.js", "/"):
        got = httpx.get(served.url + path, headers={"Accept-Encoding": "gzip"}, timeout=60)
        assert got.status_code == 200 and got.headers.get("content-encoding") == "gzip", path
    plain = httpx.get(served.url + f"/api/matches/{match.id}/frames", headers={"Accept-Encoding": "identity"}, timeout=60)
    assert "content-encoding" not in plain.headers and plain.json()["frames"]  # a client that asks for none gets none
    replay = tmp_path / "r.json"
    replay.write_text(json.dumps(load_replay(served.file(str(match.replay_path)))))
    local = TestClient(replay_app(replay))
    framed = local.get("/api/replay/frames", headers={"Accept-Encoding": "gzip"})
    assert framed.status_code == 200 and framed.headers.get("content-encoding") == "gzip" and framed.json()["frames"]


def test_replays_and_frames_carry_an_etag_and_a_client_that_holds_them_gets_304(served: ServedLadder) -> None:
    """A settled match's replay and frames never change (but for a prune, 410): a stats site that fetched a big replay
    fetched it whole again at each look. Each now has a weak ETag (it goes gzipped too) and asks caches to revalidate."""
    match = done_matches(served)[0]
    tags = set()
    for path, params in ((f"/api/matches/{match.id}/replay", {}), (f"/api/matches/{match.id}/frames", {"seat": "0"}), (f"/api/matches/{match.id}/frames", {})):
        first = httpx.get(served.url + path, params=params, headers={"Accept-Encoding": "gzip"}, timeout=60)
        tag = first.headers["etag"]
        assert tag.startswith('W/"') and first.headers["cache-control"] == "no-cache" and first.json()
        assert httpx.get(served.url + path, params=params, timeout=60).headers["etag"] == tag  # the same content, the same tag
        again = httpx.get(served.url + path, params=params, headers={"If-None-Match": tag}, timeout=60)
        assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == tag
        assert httpx.get(served.url + path, params=params, headers={"If-None-Match": 'W/"other"'}, timeout=60).status_code == 200
        tags.add(tag)
    assert len(tags) == 3, "the replay, a seat's frames and everyone's are told apart"


JSON_TYPES: dict[str, tuple[type, ...]] = {"object": (dict,), "array": (list,), "string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,)}


def conforms(doc: dict[str, Any], schema: dict[str, Any], value: Any, where: str) -> None:
    """``value`` is what ``schema`` (of the OpenAPI document ``doc``) says: its type, and for an object its fields, every
    one of them named by the schema (a field the document does not list is one a generated client drops)."""
    if "$ref" in schema:
        schema = doc["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    if "anyOf" in schema:
        assert any(value is None if s.get("type") == "null" else isinstance(value, JSON_TYPES[s.get("type", "object")]) for s in schema["anyOf"]), where
        schema = next((s for s in schema["anyOf"] if s.get("type") != "null"), {}) if value is not None else {}
    kind = schema.get("type")
    if kind is None:
        return
    assert isinstance(value, JSON_TYPES[kind]) and not (kind in ("integer", "number") and isinstance(value, bool)), f"{where}: {value!r} is no {kind}"
    if isinstance(value, list):
        for i, item in enumerate(value):
            conforms(doc, schema.get("items", {}), item, f"{where}[{i}]")
    if isinstance(value, dict) and "properties" in schema:
        assert set(value) == set(schema["properties"]), f"{where}: answered {sorted(value)}, documented {sorted(schema['properties'])}"
        for key, item in value.items():
            conforms(doc, schema["properties"][key], item, f"{where}.{key}")


def test_every_get_answer_is_what_the_openapi_document_says_field_by_field(served: ServedLadder) -> None:
    """The standings, the rating history, the crosstable, the games and /api/me were documented as "a list of objects"
    only: a client generated from /openapi.json had no fields to read, and nothing said a time was epoch seconds."""
    doc = served.get("/openapi.json").json()
    match = done_matches(served)[0]
    token = served.tokens["alice"]
    asked: dict[str, dict[str, Any]] = {
        "/api/games": {}, f"/api/games/{GAME}/standings": {}, "/api/matches": {"limit": 5}, f"/api/matches/{match.id}": {},
        "/api/bots/gw-greedy": {}, "/api/bots/gw-greedy/history": {"game": GAME}, "/api/bots/gw-greedy/crosstable": {}, "/api/me": {},
    }
    for path, params in asked.items():
        got = served.get(path, token=token, **params)
        assert got.status_code == 200, path
        template = next(p for p in doc["paths"] if re.fullmatch(re.sub(r"\{[^}]+\}", "[^/]+", p), path))
        schema = doc["paths"][template]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
        assert "$ref" in schema or "$ref" in schema.get("items", {}), f"{template} names no model of its answer"
        assert got.json(), path
        conforms(doc, schema, got.json(), path)
    times = doc["components"]["schemas"]
    for model, field in (("Standing", "last_match"), ("RatingPoint", "at"), ("MatchSummary", "finished_at"), ("BotVersion", "created_at")):
        assert "seconds since the Unix epoch, UTC" in times[model]["properties"][field]["description"], (model, field)
    assert "a match id" in times["HeadToHead"]["properties"]["last_match"]["description"]
