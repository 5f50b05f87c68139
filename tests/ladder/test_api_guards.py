"""What the API keeps back or refuses: a deal before all of it is played, ids beyond the database's range."""

from __future__ import annotations

import json
import random
import re
import shutil

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update

from ladder.api import QUOTED_INPUT, quoted_input
from ladder.datafiles import located
from ladder.models import Match, MatchSeat
from ladder.upload import zip_directory
from tests.ladder.conftest import LadderFixture
from tests.support import SAMPLE_BOTS

GREEDY = SAMPLE_BOTS / "generals_war_greedy"
RANDOM = SAMPLE_BOTS / "random"


def played_pair(ladder: LadderFixture) -> tuple[dict[str, str], int, int]:
    """Two bots of one owner after a duplicate set is played: the owner's headers and the set's two match ids."""
    owner = ladder.user("owner")
    for bot in (GREEDY, RANDOM):
        assert ladder.submit(owner, bot)[1]["accepted"]

    def a_pair_done() -> bool:
        with ladder.make() as db:
            done = db.scalars(select(Match.deal).where(Match.status == "done")).all()
        return any(done.count(d) == 2 for d in done)

    ladder.play(2, until=a_pair_done)
    with ladder.make() as db:
        done = db.scalars(select(Match).where(Match.status == "done").order_by(Match.id)).all()
        first = next(m for m in done if sum(o.deal == m.deal for o in done) == 2)
        second = next(m for m in done if m.deal == first.deal and m.id != first.id)
        return owner, first.id, second.id


def crosstable_games(ladder: LadderFixture) -> int:
    return sum(row["games"] for row in ladder.client.get("/api/bots/random/crosstable").json())


def test_a_deal_is_kept_back_until_every_match_of_it_is_over(ladder: LadderFixture) -> None:
    """A bot that could read its twin's seed, replay or log (it may call the API from its process) knew every hidden card."""
    owner, first, twin = played_pair(ladder)
    client, someone, seat = ladder.client, ladder.user("someone"), 0
    verdict = {"kind": "FORFEIT", "decision": 7, "detail": "card 23 is not in your hand"}
    with ladder.make() as db:
        seed = db.get_one(Match, first).seed
        db.execute(update(MatchSeat).where(MatchSeat.match_id == first, MatchSeat.seat == 1).values(verdicts=[verdict]))
        db.commit()
    for status in ("queued", "running"):
        with ladder.make() as db:
            db.execute(update(Match).where(Match.id == twin).values(status=status))
            db.commit()
        for match_id in (first, twin):
            summary = client.get(f"/api/matches/{match_id}").json()
            assert (summary["seed"], summary["deal"], summary["settled"]) == (None, None, False), summary
            assert summary["seats"] and summary["kind"], "what spectators need is still there"
            for path in (f"/api/matches/{match_id}/replay", f"/api/matches/{match_id}/frames", f"/api/matches/{match_id}/frames?seat=0"):
                refused = client.get(path)
                assert refused.status_code == 404 and "deal" in refused.json()["detail"], path
            page = client.get(f"/matches/{match_id}")
            assert page.status_code == 200 and "Not yet" in page.text  # the match exists: its page says where it is
        listed = {m["id"]: m for m in client.get("/api/matches", params={"limit": 50}).json()}
        assert listed[first]["seed"] is None and listed[first]["deal"] is None and listed[first]["settled"] is False
        # How the deal went for each seat tells the twin's bots something of its cards.
        assert all(seat["rank"] is None and seat["score"] is None for seat in listed[first]["seats"])
        # A forfeit tells a rank, a detail may name a card, a timeout's decision how long the match ran.
        assert all(seat["verdicts"] == [] for m in (listed[first], client.get(f"/api/matches/{first}").json()) for seat in m["seats"])
        unsettled_games = crosstable_games(ladder)  # the same without either match of the deal
        log = client.get(f"/api/matches/{first}/logs/{seat}", headers=owner)
        assert log.status_code == 404 and "deal" in log.json()["detail"]
    assert client.get(f"/api/matches/{first}/logs/{seat}", headers=someone).status_code == 403, "others are refused first, as ever"
    for status in ("done", "failed"):
        with ladder.make() as db:
            db.execute(update(Match).where(Match.id == twin).values(status=status))
            db.commit()
        summary = client.get(f"/api/matches/{first}").json()
        assert (summary["seed"], summary["settled"]) == (seed, True) and summary["deal"]
        assert sorted(seat["rank"] for seat in summary["seats"]) in ([1, 1], [1, 2]) and all(seat["score"] is not None for seat in summary["seats"])
        assert crosstable_games(ladder) == unsettled_games + (2 if status == "done" else 1), "now the deal's finished matches count"
        assert summary["seats"][1]["verdicts"] == [verdict]
        assert client.get(f"/api/matches/{first}/replay").json()["seed"] == seed
        assert client.get(f"/api/matches/{first}/frames").status_code == 200
        for seat_asked in ("abc", "2", "-1"):  # a seat this two-seat match does not have: told so, not a 500
            bad = client.get(f"/api/matches/{first}/frames", params={"seat": seat_asked})
            assert bad.status_code == 422 and "seat" in bad.json()["detail"], bad.text
        assert client.get(f"/matches/{first}").status_code == 200
        assert client.get(f"/api/matches/{first}/logs/{seat}", headers=owner).status_code == 200
    with ladder.make() as db:  # its files gone from the data folder (removed by hand, a disk replaced): not found, not a 500
        played = db.get_one(Match, first)
        log_path = db.scalars(select(MatchSeat.log_path).where(MatchSeat.match_id == first, MatchSeat.seat == seat)).one()
        assert played.replay_path and log_path, "the local pool keeps them as files"
        gone = [located(played.replay_path, ladder.ladder.config.data_dir), located(log_path, ladder.ladder.config.data_dir)]
    for file in gone:
        file.unlink()
    for path in (f"/api/matches/{first}/replay", f"/api/matches/{first}/frames", f"/api/matches/{first}/frames?seat=1"):
        no_replay = client.get(path)  # the frames were a 500 ("cannot be shown: No such file")
        assert no_replay.status_code == 404 and no_replay.json()["detail"] == f"no replay for match {first}", path
    no_log = client.get(f"/api/matches/{first}/logs/{seat}", headers=owner)
    assert no_log.status_code == 404 and no_log.json()["detail"] == "no log kept for this seat"


@pytest.mark.parametrize("match_id", [2**31, 2**63, 2**64, -(2**63) - 1, -1])
def test_ids_beyond_the_databases_range_are_not_found(ladder: LadderFixture, match_id: int) -> None:
    """SQLite overflowed beyond 2**63 - 1, PostgreSQL's integer beyond 2**31 - 1: a 500 either way."""
    headers = ladder.user("reader")
    for path in (f"/api/matches/{match_id}", f"/api/matches/{match_id}/replay", f"/api/matches/{match_id}/frames", f"/matches/{match_id}"):
        assert ladder.client.get(path).status_code == 404, path
    assert ladder.client.get(f"/api/matches/{match_id}/logs/0", headers=headers).status_code == 404
    with ladder.make() as db:  # a match that is there: its seat is what is out of range
        there = Match(game="generals-war", seed=1, num_players=2, kind="exhibition", status="done", deal="d", created_at=0.0, finished_at=1.0)
        db.add(there)
        db.commit()
        there_id = there.id
    refused = ladder.client.get(f"/api/matches/{there_id}/logs/{match_id}", headers=headers)
    assert refused.status_code == 404
    if match_id > 0:  # one the route takes (a minus sign is no id): the seats it has are named, not "no such seat"
        assert refused.json()["detail"] == f"match {there_id} has no seat {match_id} (its seats: 0 to 1)"


def test_ids_of_more_digits_than_python_reads_are_not_found(ladder: LadderFixture) -> None:
    """Python reads no integer of more than 4300 digits (a ValueError): such an id in the address was a 500, on the
    API and on the match page (found by tests/ladder/test_api_fuzz.py)."""
    headers, huge = ladder.user("reader"), "9" * 5000
    for path in (f"/api/matches/{huge}", f"/api/matches/{huge}/replay", f"/api/matches/{huge}/frames", f"/matches/{huge}"):
        assert ladder.client.get(path).status_code == 404, path
    for path in (f"/api/matches/{huge}/logs/0", f"/api/matches/1/logs/{huge}"):
        assert ladder.client.get(path, headers=headers).status_code == 404, path


@pytest.mark.parametrize("raw_id", ["abc", "1.5", "1e3", "\uff11", "\u00b2", "0x1"])
def test_an_id_that_is_not_a_number_is_not_found_as_on_the_page(ladder: LadderFixture, raw_id: str) -> None:
    """/api/matches/abc answered FastAPI's 422 validation error where the page /matches/abc is a 404."""
    headers = ladder.user("reader")
    for path in (f"/api/matches/{raw_id}", f"/api/matches/{raw_id}/replay", f"/api/matches/{raw_id}/frames", f"/matches/{raw_id}"):
        assert ladder.client.get(path).status_code == 404, path
    assert ladder.client.get(f"/api/matches/1/logs/{raw_id}", headers=headers).status_code == 404


def test_matches_of_an_unknown_game_or_bot_are_a_404_not_an_empty_list(ladder: LadderFixture) -> None:
    """`arena ladder matches --game nosuch` showed an empty table where `standings nosuch` said the game is unknown."""
    assert ladder.client.get("/api/matches", params={"game": "generals-war"}).json() == []
    nosuch = ladder.client.get("/api/matches", params={"game": "nosuch"})
    assert nosuch.status_code == 404 and nosuch.json()["detail"] == "unknown game 'nosuch'"
    nobody = ladder.client.get("/api/matches", params={"bot": "nobody"})
    assert nobody.status_code == 404 and nobody.json()["detail"] == "no bot 'nobody'"


def test_a_bot_named_in_another_case_is_a_404_that_names_the_bot_as_it_is_written(ladder: LadderFixture) -> None:
    """Names that differ only in case are one (a second owner's is refused), but "no bot 'Random'" read as if random
    were gone; the operator's `retire` and `reinstate` said the same."""
    from ladder.submissions import WithdrawalRefused, withdraw
    from ladder.suspension import ReinstatementRefused, reinstate

    owner = ladder.user("owner")
    assert ladder.submit(owner, RANDOM)[1]["accepted"]
    said = "no bot 'Random' (did you mean 'random'? a bot is named as it is written)"
    for path, params in (("/api/bots/Random", {}), ("/api/bots/Random/crosstable", {}), ("/api/matches", {"bot": "Random"})):
        reply = ladder.client.get(path, params=params)
        assert reply.status_code == 404 and reply.json()["detail"] == said, (path, reply.text)
    refused = ladder.client.post("/api/bots/Random/withdraw", headers=owner)
    assert refused.status_code == 404 and refused.json()["detail"] == said
    with ladder.make() as db:
        with pytest.raises(WithdrawalRefused, match=re.escape(said)):
            withdraw(db, None, "Random")
        with pytest.raises(ReinstatementRefused, match=re.escape(said)):
            reinstate(db, "Random")
    assert ladder.client.get("/api/bots/nobody").json()["detail"] == "no bot 'nobody'"


def test_the_rating_history_of_an_unknown_bot_is_a_404_not_an_empty_list(ladder: LadderFixture) -> None:
    """It was an empty history (200) where the bot's crosstable and matches said there is no such bot."""
    nobody = ladder.client.get("/api/bots/nobody/history", params={"game": "generals-war"})
    assert nobody.status_code == 404 and nobody.json()["detail"] == "no bot 'nobody'"
    assert ladder.submit(ladder.user("owner"), RANDOM)[1]["accepted"]
    assert ladder.client.get("/api/bots/random/history", params={"game": "generals-war"}).json() == []
    for path in ("/api/bots/random/history", "/api/bots/random/crosstable", "/api/matches"):
        for game in ("nosuch", ""):  # an empty name too: the crosstable's was every game's (200)
            unknown = ladder.client.get(path, params={"game": game})
            assert unknown.status_code == 404 and unknown.json()["detail"] == f"unknown game {game!r}", (path, game)
    for points in (1, 0, -4, "many"):  # a thinned history needs two points at least (its first and its last)
        refused = ladder.client.get("/api/bots/random/history", params={"game": "generals-war", "points": points})
        assert refused.status_code == 422 and refused.json()["detail"][0]["loc"] == ["query", "points"], refused.text
    assert ladder.client.get("/api/bots/random/history", params={"game": "generals-war", "points": 2}).json() == []


def test_a_listing_limit_out_of_range_is_refused_not_changed(ladder: LadderFixture) -> None:
    """limit=0 gave one match and limit=5000 gave 200, with nothing said."""
    for limit in (0, -3, 201):
        refused = ladder.client.get("/api/matches", params={"limit": limit})
        assert refused.status_code == 422 and "limit" in str(refused.json()["detail"]), limit
    assert ladder.client.get("/api/matches", params={"limit": 200}).status_code == 200


def test_an_upload_cut_off_by_its_client_is_answered_not_raised(ladder: LadderFixture) -> None:
    """An uploader hanging up mid-body (Ctrl-C in `arena ladder submit`, a dropped line) raised ClientDisconnect out of
    the app: uvicorn logged 'Exception in ASGI application' with a traceback, as for a bug of the ladder."""
    import asyncio
    from collections.abc import MutableMapping
    from typing import Any

    headers = ladder.user("owner")
    incoming: list[MutableMapping[str, Any]] = [
        {"type": "http.request", "body": b"PK\x03\x04 the first bytes of a zip", "more_body": True},
        {"type": "http.disconnect"},
    ]
    sent: list[dict[str, Any]] = []

    async def receive() -> MutableMapping[str, Any]:
        return incoming.pop(0) if incoming else {"type": "http.disconnect"}

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(dict(message))

    async def upload() -> None:
        await ladder.client.app(scope, receive, send)

    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
        "path": "/api/bots", "raw_path": b"/api/bots", "root_path": "", "query_string": b"",
        "headers": [(b"authorization", headers["Authorization"].encode()), (b"content-length", b"100000")],
        "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 8765),
    }
    asyncio.run(upload())
    assert sent[0]["status"] == 400 and b"cut off" in sent[1]["body"]
    assert not any(ladder.ladder.store.rglob("*.toml")), "nothing of the upload was kept"


def test_the_token_s_scheme_is_read_whatever_its_case(ladder: LadderFixture) -> None:
    """'bearer TOKEN' (as some HTTP clients write it) was refused as if no token had been sent."""
    token = ladder.user("owner")["Authorization"].removeprefix("Bearer ")
    for header in (f"Bearer {token}", f"bearer {token}", f"BEARER  {token} "):
        reply = ladder.client.get("/api/me", headers={"Authorization": header})
        assert reply.status_code == 200 and reply.json() == {"name": "owner"}, (header, reply.text)
    for header in ("Bearer", "Bearer ", f"Basic {token}", token):
        reply = ladder.client.get("/api/me", headers={"Authorization": header})
        assert reply.status_code == 401 and "Bearer TOKEN" in reply.json()["detail"], (header, reply.text)
    unknown = ladder.client.get("/api/me", headers={"Authorization": f"Bearer {token}x"})
    assert unknown.status_code == 401 and unknown.json()["detail"].startswith("unknown API token: not one of this ladder's, or replaced or revoked")


def test_a_request_body_past_the_limit_is_refused_with_413(ladder: LadderFixture) -> None:
    """FastAPI reads a JSON body whole before it checks the token: a challenge of gigabytes, sent with no token at all,
    was held in the ladder's memory before the 401. An upload keeps its own, larger limit."""
    megabyte = 1 << 20  # past the ladder's MAX_BODY; far within an upload's limit
    big = b'{"bot": "' + b"x" * megabyte + b'", "opponent": "y", "game": "generals-war"}'
    owner = ladder.user("owner")
    for headers in ({}, owner):
        refused = ladder.client.post("/api/challenges", content=big, headers=headers)
        assert refused.status_code == 413 and "the request's body is larger than" in refused.json()["detail"], refused.text
    small = ladder.client.post("/api/challenges", json={"bot": "x", "opponent": "y", "game": "generals-war"}, headers=owner)
    assert small.status_code == 422 and small.json()["detail"] == "no active bot named 'x'"
    bulky = ladder.tmp / "bulky"
    shutil.copytree(RANDOM, bulky)
    (bulky / "data.bin").write_bytes(random.Random(1).randbytes(megabyte))
    assert len(zip_directory(bulky)) > megabyte
    assert ladder.submit(owner, bulky)[0] == 201, "an upload of a megabyte is taken"


def test_a_replay_file_that_cannot_be_shown_is_a_500_that_names_the_match_not_the_servers_folders(ladder: LadderFixture) -> None:
    """A damaged file's frames answered 'cannot be shown: /srv/arena/data/replays/…json: not a JSON replay' to anyone;
    an unreadable one, the operating system's error with its path. Its log has those; the answer names the match."""
    _, first, _ = played_pair(ladder)
    data_dir = ladder.ladder.config.data_dir.resolve()
    with ladder.make() as db:
        path = located(db.get_one(Match, first).replay_path, data_dir)  # type: ignore[arg-type]
    path.write_text("not a replay")
    for seat in ("all", "0"):
        damaged = ladder.client.get(f"/api/matches/{first}/frames", params={"seat": seat})
        assert damaged.status_code == 500, damaged.text
        assert damaged.json()["detail"].startswith(f"the replay of match {first} cannot be shown: match {first}: not a JSON replay")
        assert str(data_dir) not in damaged.text and path.name not in damaged.text
    path.unlink()
    path.mkdir()  # read as a file: the operating system's error, which names the path
    for asked in ("frames", "replay"):  # the file itself: a 404 "no replay" hid what the operator should see
        with TestClient(ladder.client.app, raise_server_exceptions=False) as client:
            unreadable = client.get(f"/api/matches/{first}/{asked}")
        assert unreadable.status_code == 500 and "internal error" in unreadable.json()["detail"], unreadable.text
        assert str(data_dir) not in unreadable.text and path.name not in unreadable.text
    path.rmdir()
    assert ladder.client.get(f"/api/matches/{first}/replay").status_code == 404, "a file gone is no replay"


def test_a_body_of_exactly_the_limit_is_read_and_one_byte_more_is_not(ladder: LadderFixture) -> None:
    from ladder.api import MAX_BODY

    owner = ladder.user("owner")
    body = b'{"bot": "x", "opponent": "y", "game": "generals-war"}'
    for size, status in ((MAX_BODY, 422), (MAX_BODY + 1, 413)):
        padded = body + b" " * (size - len(body))  # white space after the object: still the same JSON
        assert len(padded) == size
        reply = ladder.client.post("/api/challenges", content=padded, headers={**owner, "Content-Type": "application/json"})
        assert reply.status_code == status, (size, reply.text)


def test_a_failed_match_has_no_replay_and_no_frames(ladder: LadderFixture) -> None:
    """Settled (its deal is over) but never played out: a 404 as for a replay removed, not a 500."""
    with ladder.make() as db:
        failed = Match(game="generals-war", seed=1, num_players=2, kind="rated", status="failed", deal="f", created_at=0.0, finished_at=1.0)
        db.add(failed)
        db.commit()
        failed_id = failed.id
    assert ladder.client.get(f"/api/matches/{failed_id}").json()["settled"] is True
    for path in (f"/api/matches/{failed_id}/replay", f"/api/matches/{failed_id}/frames", f"/api/matches/{failed_id}/frames?seat=1"):
        reply = ladder.client.get(path)
        assert reply.status_code == 404 and reply.json()["detail"] == f"no replay for match {failed_id}", (path, reply.text)


@pytest.mark.parametrize("body", [b"{not json", b'{"bot": 1}'])
def test_a_request_needing_a_token_is_refused_401_before_its_body_is_judged(ladder: LadderFixture, body: bytes) -> None:
    """FastAPI reads a body before it checks the token: a stranger's malformed challenge got a 422 that described
    the body's fields, where anyone without a token is to hear only that they need one."""
    json_type = {"Content-Type": "application/json"}
    for headers, told in (({}, "send your API token"), ({"Authorization": "Bearer nonsense"}, "unknown API token")):
        refused = ladder.client.post("/api/challenges", content=body, headers={**json_type, **headers})
        assert refused.status_code == 401 and told in refused.json()["detail"], refused.text
    owner = ladder.user("olga")
    judged = ladder.client.post("/api/challenges", content=body, headers={**json_type, **owner})
    assert judged.status_code == 422 and isinstance(judged.json()["detail"], list), judged.text
    # A route with no token to check answers its malformed request 422, as before.
    assert ladder.client.get("/api/matches", params={"limit": "many"}).status_code == 422


@pytest.mark.parametrize("content_type", [None, "text/plain"])
def test_a_body_not_utf8_nor_json_is_refused_422_not_a_500(ladder: LadderFixture, content_type: str | None) -> None:
    """Sent as something other than JSON, the body is judged as bytes, and the refusal quotes it: bytes that are not
    UTF-8 made the refusal itself fail to be written, a 500 (found by tests/ladder/test_api_fuzz.py)."""
    headers = {**ladder.user("olga"), **({"Content-Type": content_type} if content_type else {})}
    refused = ladder.client.post("/api/challenges", content=b'{"bot": "\x80"}', headers=headers)
    assert refused.status_code == 422 and isinstance(refused.json()["detail"], list), refused.text


def test_a_json_body_not_utf8_is_refused_401_without_a_token(ladder: LadderFixture) -> None:
    """FastAPI refuses JSON it cannot decode (bytes that are not UTF-8) with a 400 before the token is looked at:
    a stranger heard about the body, where anyone without a token is to hear only that they need one."""
    json_type, body = {"Content-Type": "application/json"}, b'{"bot": "\x80"}'
    for headers, told in (({}, "send your API token"), ({"Authorization": "Bearer nonsense"}, "unknown API token")):
        refused = ladder.client.post("/api/challenges", content=body, headers={**json_type, **headers})
        assert refused.status_code == 401 and told in refused.json()["detail"], refused.text
    judged = ladder.client.post("/api/challenges", content=body, headers={**json_type, **ladder.user("olga")})
    assert judged.status_code == 400 and judged.json()["detail"], judged.text


@pytest.mark.parametrize("content_type", ["text/plain", "application/json"])
def test_a_long_refused_input_is_quoted_in_part(ladder: LadderFixture, content_type: str) -> None:
    """A 422 quotes what it refused: a body of 60,000 characters came back whole, in every refusal of it."""
    owner = ladder.user("olga")
    body = json.dumps({"bot": ["x" * 60_000], "opponent": "b", "game": "glory"}).encode()
    refused = ladder.client.post("/api/challenges", content=body, headers={"Content-Type": content_type, **owner})
    assert refused.status_code == 422, refused.text
    assert len(refused.content) < 2_000
    quoted = [e["input"] for e in refused.json()["detail"] if "input" in e]
    assert quoted and all(isinstance(q, str) and q.endswith("more characters)") for q in quoted), quoted
    short = ladder.client.post("/api/challenges", content=b'{"bot": 7}', headers={"Content-Type": "application/json", **owner})
    assert short.status_code == 422 and 7 in [e.get("input") for e in short.json()["detail"]], "a short input is quoted as it was"


def test_an_input_is_quoted_whole_up_to_the_limit_and_past_it_cut_there_with_the_rest_counted() -> None:
    """The cut falls at QUOTED_INPUT characters exactly; an object or list is measured, and cut, as the JSON text a
    reader would see (its characters, not their escapes), and left as it was while short."""
    at_limit, over = "a" * QUOTED_INPUT, "b" * QUOTED_INPUT + "cde"
    assert quoted_input(at_limit) == at_limit
    assert quoted_input(over) == f"{'b' * QUOTED_INPUT}… (3 more characters)"
    short = {"bot": ["é" * (QUOTED_INPUT - 20)]}  # 193 characters of JSON, 1,093 with é escaped
    assert len(json.dumps(short, ensure_ascii=False)) <= QUOTED_INPUT < len(json.dumps(short))
    assert quoted_input(short) is short and quoted_input(7) == 7
    long = ["x" * QUOTED_INPUT]
    text = json.dumps(long)
    assert quoted_input(long) == f"{text[:QUOTED_INPUT]}… ({len(text) - QUOTED_INPUT} more characters)"
