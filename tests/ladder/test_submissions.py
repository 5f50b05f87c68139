"""Submissions that fail, anywhere: a clear 4xx, no version left validating, nothing left in the bot store."""

from __future__ import annotations

import asyncio
import io
import os
import shutil
import time
import zipfile
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from sqlalchemy import select

from ladder.models import Bot, BotVersion, User
from ladder.upload import Limits
from tests.ladder.conftest import LadderFixture
from tests.support import SAMPLE_BOTS

BOT_PY = (SAMPLE_BOTS / "random" / "bot.py").read_bytes()


def manifest(name: str, version: str = "1.0", games: str = '["generals-war"]') -> str:
    return f'name = "{name}"\nversion = "{version}"\nlanguage = "python"\ngames = {games}\ncommand = ["python", "bot.py"]\n'


def archive(*entries: tuple[str, str | bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries:
            zf.writestr(name, data)
    return buffer.getvalue()


def left_in_store(ladder: LadderFixture) -> list[str]:
    store = ladder.ladder.store
    return sorted(str(p.relative_to(store)) for p in store.rglob("*"))


@pytest.mark.parametrize(
    "entries,message",
    [
        ((("bot.toml", manifest("dup")), ("bot.py", BOT_PY), ("bot.py", b"print(1)")), "holds this file twice"),
        ((("bot.toml", manifest("filedir")), ("bot.py", BOT_PY), ("a", "x"), ("a/b", "y")), "both a file and a folder"),
        ((("bot.toml", manifest("longname")), ("bot.py", BOT_PY), ("n" * 300, "x")), "at most 255 bytes"),
        ((("bot.toml", manifest("dupgames", games='["generals-war", "generals-war"]')), ("bot.py", BOT_PY)), "more than once"),
        ((("bot.toml", manifest("longver", version="v" * 5000)), ("bot.py", BOT_PY)), "at most 64 printable characters"),
        ((("bot.toml", manifest("unbuilt")),), "its command names bot.py, which is not in the bot's folder"),
        ((("bot.toml", manifest("chess-bot", games='["chess"]')), ("bot.py", BOT_PY)), "unknown games in bot.toml: chess"),
        ((("bot.toml", manifest("deep") + "x = " + "[" * 3000 + "]" * 3000 + "\n"), ("bot.py", BOT_PY)), "its values nest too deep"),
    ],
)
def test_bad_uploads_are_told_why_and_leave_nothing(ladder: LadderFixture, entries: tuple[tuple[str, str | bytes], ...], message: str) -> None:
    """Each of these was a 500 that left its files in staging (and a game listed twice, a version stuck validating)."""
    owner = ladder.user("mallory")
    reply = ladder.client.post("/api/bots", content=archive(*entries), headers=owner)
    assert reply.status_code == 422 and message in reply.json()["detail"], reply.text
    assert str(ladder.ladder.store) not in reply.text, "the ladder's folders are its own"
    assert left_in_store(ladder) == [".staging", ".validation"]
    with ladder.make() as db:
        assert db.scalars(select(BotVersion)).all() == []


def test_a_refusal_names_the_bot_not_the_ladders_folders_when_its_store_is_given_relative(
    ladder: LadderFixture, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`arena ladder serve --data arena-data` (a relative folder, as docs/ladder.md writes it): a manifest whose command
    names a missing file was refused with "/home/op/<bot>/bot.toml: …", the ladder's working folder shown to the owner
    before a placeholder, since the manifest names its folder resolved and only the relative form was hidden."""
    from ladder.submissions import SubmissionRefused, submit

    ladder.user("mallory")
    with ladder.make() as db:
        owner = db.scalars(select(User).where(User.name == "mallory")).one()
    monkeypatch.chdir(tmp_path)
    store = Path("relative-data") / "bots"
    store.mkdir(parents=True)
    with pytest.raises(SubmissionRefused) as refused:
        asyncio.run(submit(ladder.make, store, owner, archive(("bot.toml", manifest("unbuilt"))), validate=False))
    assert str(refused.value).startswith("<bot>/bot.toml: its command names bot.py, which is not in the bot's folder"), str(refused.value)
    assert str(tmp_path) not in str(refused.value)


def test_a_rejected_bots_log_names_its_folder_as_arena_bot_check_does(ladder: LadderFixture) -> None:
    """A traceback in the validation log named the ladder's bot store (/srv/arena-data/bots/NAME/1/bot.py) where
    `arena bot check`, whose log docs/ladder.md says `arena ladder submit` shows alike, names <bot>/bot.py."""
    owner = ladder.user("mallory")
    bot = archive(("bot.toml", manifest("tracing")), ("bot.py", 'raise RuntimeError("boom")\n'))
    reply = ladder.client.post("/api/bots", content=bot, headers=owner)
    assert reply.status_code == 422 and 'File "<bot>/bot.py", line 1' in reply.json()["log"], reply.text
    assert str(ladder.ladder.store) not in reply.text


def test_an_upload_over_the_size_limit_is_refused_with_413_and_leaves_nothing(ladder: LadderFixture) -> None:
    """The body is read only up to the limit (8 MiB): a bigger one is refused before it is stored or unpacked."""
    from ladder.upload import Limits

    too_big = Limits().archive_bytes + 1
    reply = ladder.client.post("/api/bots", content=b"\0" * too_big, headers=ladder.user("hoarder"))
    assert reply.status_code == 413 and f"larger than {too_big - 1} bytes" in reply.json()["detail"], reply.text
    assert left_in_store(ladder) == [], "not even a staging folder"
    with ladder.make() as db:
        assert db.scalars(select(BotVersion)).all() == []


def test_a_submission_that_fails_after_it_is_registered_is_rejected_and_removed(ladder: LadderFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    import ladder.submissions as submissions

    async def broken(*args: object, **kwargs: object) -> tuple[str, str]:
        raise RuntimeError("the validation machinery broke")

    monkeypatch.setattr(submissions, "validation_matches", broken)
    reply = ladder.client.post("/api/bots", content=archive(("bot.toml", manifest("unlucky")), ("bot.py", BOT_PY)), headers=ladder.user("ursula"))
    assert reply.status_code == 500 and "nothing of it was kept" in reply.json()["detail"]
    assert "machinery" not in reply.text, "the internal error's text stays in the ladder's log"
    with ladder.make() as db:
        (version,) = db.scalars(select(BotVersion)).all()
        assert version.status == "rejected" and "submit again" in version.reason
    assert left_in_store(ladder) == [".staging", ".validation"]


def test_a_version_whose_activation_committed_before_the_connection_dropped_keeps_its_folder(ladder: LadderFixture) -> None:
    """A connection dropped as the version's activation committed (a PostgreSQL server restarting) raised, though the
    version was on the ladder: its folder was removed as a failed submission's, and every match it was drawn for
    failed, its opponents' with it."""
    from sqlalchemy.exc import OperationalError
    from sqlalchemy.orm import Session

    from ladder.submissions import SubmissionRefused, submit

    ladder.user("dropped")
    with ladder.make() as db:
        user = db.scalars(select(User).where(User.name == "dropped")).one()
    sessions = 0

    def make() -> Session:  # the second session is the activation's: its commit lands, then the connection drops
        nonlocal sessions
        sessions += 1
        db = ladder.make()
        if sessions == 2:
            commit = db.commit

            def committed_then_dropped() -> None:
                commit()
                raise OperationalError("COMMIT", {}, Exception("server closed the connection unexpectedly"))

            db.commit = committed_then_dropped  # type: ignore[method-assign]
        return db

    with pytest.raises(SubmissionRefused):
        asyncio.run(submit(make, ladder.ladder.store, user, archive(("bot.toml", manifest("dropped")), ("bot.py", BOT_PY)), validate=False))  # type: ignore[arg-type]
    with ladder.make() as db:
        (version,) = db.scalars(select(BotVersion)).all()
    assert version.status == "active"
    assert (ladder.ladder.store / version.path / "bot.py").read_bytes() == BOT_PY


def test_an_archive_that_breaks_the_reader_is_a_json_500_and_leaves_nothing(ladder: LadderFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    """An error of the reader's own (RecursionError was one) left the staging folder behind, and answered in plain
    text, which `arena ladder submit` took for a server that is not the ladder."""
    import ladder.submissions as submissions

    def broken(*args: object) -> None:
        raise RuntimeError("the reader broke")

    monkeypatch.setattr(submissions, "unpack", broken)
    reply = ladder.client.post("/api/bots", content=archive(("bot.toml", manifest("odd")), ("bot.py", BOT_PY)), headers=ladder.user("olga"))
    assert reply.status_code == 500 and "nothing of it was kept" in reply.json()["detail"], reply.text
    assert "reader broke" not in reply.text
    assert left_in_store(ladder) == [".staging", ".validation"]


def test_an_archive_is_unpacked_off_the_event_loop(ladder: LadderFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    """Unpacking and checking a large archive took seconds, and every page and API call of the ladder waited for it."""
    import asyncio

    import ladder.submissions as submissions

    from ladder.upload import unpack as real

    on_loop: list[bool] = []

    def unpack(*args: object) -> None:
        try:
            asyncio.get_running_loop()
            on_loop.append(True)
        except RuntimeError:
            on_loop.append(False)
        real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(submissions, "unpack", unpack)
    reply = ladder.client.post("/api/bots", content=archive(("bot.toml", manifest("calm")), ("bot.py", BOT_PY)), headers=ladder.user("paula"))
    assert reply.status_code == 201, reply.text
    assert on_loop == [False]


def test_an_internal_error_under_the_api_answers_in_json(ladder: LadderFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    from fastapi.testclient import TestClient

    from ladder import queries

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(queries, "standings", broken)
    with TestClient(ladder.client.app, raise_server_exceptions=False) as client:
        reply = client.get("/api/games/generals-war/standings")
    assert reply.status_code == 500 and "internal error" in reply.json()["detail"], reply.text
    assert "a bug" not in reply.text


def test_leftovers_of_interrupted_submissions_are_removed_at_start(tmp_path: Path) -> None:
    from ladder.submissions import clear_stale_uploads

    store = tmp_path / "bots"
    old, fresh = store / ".staging" / "old", store / ".validation" / "fresh"
    for folder in (old, fresh):
        folder.mkdir(parents=True)
        (folder / "bot.py").write_text("x")
    (store / ".staging" / "stray").write_text("x")
    hour_ago = time.time() - 3600
    for path in (old, old / "bot.py", store / ".staging" / "stray"):
        os.utime(path, (hour_ago, hour_ago))
    assert clear_stale_uploads(store) == 2
    assert sorted(str(p.relative_to(store)) for p in store.rglob("*")) == [".staging", ".validation", ".validation/fresh", ".validation/fresh/bot.py"]


def test_the_folder_of_a_version_left_validating_is_removed_when_it_is_rejected_at_start(ladder: LadderFixture) -> None:
    """A ladder killed mid-validation left the version's unpacked bot in the store: rejected at the next start, it stayed
    there for good (only retired versions' folders are ever pruned), up to the archive's 32 MiB unpacked each time."""
    from ladder.submissions import register, unpacked

    owner = ladder.user("killed")
    with ladder.make() as db:
        user = db.scalars(select(User).where(User.name == "killed")).one()
    store = ladder.ladder.store
    # What a submission has done when its validation starts: the version registered, its bot in the store.
    manifest_read = unpacked(archive(("bot.toml", manifest("killed")), ("bot.py", BOT_PY)), store / ".staging" / "up", Limits())
    _, rel = register(ladder.make, user, manifest_read, [], store)
    (store / rel).parent.mkdir(parents=True)
    (store / ".staging" / "up").rename(store / rel)
    (store / "kept" / "1").mkdir(parents=True)  # another bot's folder, named by no version left validating
    ladder.ladder._clear_interrupted_validations()  # the next start
    with ladder.make() as db:
        assert db.scalars(select(BotVersion.status)).one() == "rejected"
    assert not (store / "killed").exists() and (store / "kept" / "1").is_dir()
    assert ladder.client.post("/api/bots", content=archive(("bot.toml", manifest("killed")), ("bot.py", BOT_PY)), headers=owner).status_code == 201


def test_a_folder_already_in_the_store_is_neither_overwritten_nor_removed(ladder: LadderFixture) -> None:
    """A store kept while its database was replaced (a backup restored) holds NAME/1 of a version the database forgot:
    the new version 1 was a 500 whose clean-up removed that folder, and the ladder's sample bots stopped it starting."""
    left = ladder.ladder.store / "clash" / "1"
    left.mkdir(parents=True)
    (left / "bot.py").write_text("# a version the database no longer knows")
    reply = ladder.client.post("/api/bots", content=archive(("bot.toml", manifest("clash")), ("bot.py", BOT_PY)), headers=ladder.user("olga"))
    assert reply.status_code == 201 and reply.json()["accepted"], reply.text
    assert (left / "bot.py").read_text() == "# a version the database no longer knows"
    with ladder.make() as db:
        (version,) = db.scalars(select(BotVersion)).all()
    assert version.status == "active" and version.path.startswith("clash/1-")
    assert (ladder.ladder.store / version.path / "bot.py").read_bytes() == BOT_PY


@pytest.mark.parametrize("meanwhile", ["", "suspended", "retired"])
def test_of_two_versions_validated_at_once_the_later_stays_active(ladder: LadderFixture, monkeypatch: pytest.MonkeyPatch, meanwhile: str) -> None:
    """Whichever passed last became active and retired the other: version 1, slower to validate, retired version 2.

    With version 2 suspended meanwhile (it crashed match after match), version 1 became active again, although
    its owner had replaced it: only an active newer version was looked for. With version 2 withdrawn meanwhile
    (retired), version 1 joined the ladder: the bot its owner had taken off came back, and older.
    """
    import asyncio

    import ladder.submissions as submissions
    from ladder.models import User

    async def scenario() -> list[submissions.Outcome]:
        second_passed = asyncio.Event()

        async def validation(bot_dir: Path, *args: object, **kwargs: object) -> tuple[str, str]:
            if bot_dir.name == "1":
                await second_passed.wait()
                while True:  # version 2 on the ladder, and suspended from it if the case says so
                    with ladder.make() as db:
                        second = db.scalars(select(BotVersion).where(BotVersion.seq == 2)).first()
                        if second is not None and second.status == "active":
                            if meanwhile == "retired":
                                submissions.withdraw(db, owner.id, "racer")
                            elif meanwhile:
                                second.status = meanwhile
                                db.commit()
                            break
                    await asyncio.sleep(0.01)
            else:
                second_passed.set()
            return "", ""

        monkeypatch.setattr(submissions, "validation_matches", validation)
        uploads = [archive(("bot.toml", manifest("racer", version=v)), ("bot.py", BOT_PY)) for v in ("1.0", "2.0")]
        return list(await asyncio.gather(*(submissions.submit(ladder.make, ladder.ladder.store, owner, data) for data in uploads)))

    ladder.user("rita")
    with ladder.make() as db:
        owner = db.scalars(select(User).where(User.name == "rita")).one()
    # By the order they were registered in (their seq): archives are unpacked on threads, so either may come first.
    first, second = sorted(asyncio.run(scenario()), key=lambda outcome: outcome.seq)
    assert second.accepted and second.reason == ""
    where = "joined the ladder first and has left it since" if meanwhile == "retired" else "is on the ladder already"
    assert first.accepted and f"version #2, submitted after it, {where}" in first.reason
    with ladder.make() as db:
        assert [(v.seq, v.status) for v in db.scalars(select(BotVersion).order_by(BotVersion.seq))] == [(1, "retired"), (2, meanwhile or "active")]


def test_a_sample_bot_the_ladder_refuses_is_logged_and_the_others_are_entered(ladder: LadderFixture, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """A refused sample (its store folder in the way, say) ended serve at start with a traceback."""
    import asyncio

    import ladder.service as service
    from ladder.submissions import SubmissionRefused, submit

    async def refusing_random(make: object, store: Path, owner: object, data: bytes, **kwargs: object) -> object:
        if 'name = "random"' in zipfile.ZipFile(io.BytesIO(data)).read("bot.toml").decode():
            raise SubmissionRefused(500, "the ladder failed to register this version")
        return await submit(make, store, owner, data, validate=False)  # type: ignore[arg-type]

    monkeypatch.setattr(service, "submit", refusing_random)
    asyncio.run(service.register_samples(ladder.make, ladder.ladder.store, ["generals-war"]))
    with ladder.make() as db:
        entered = {v.path.split("/")[0] for v in db.scalars(select(BotVersion)).all()}
    assert "random" not in entered and "gw-greedy" in entered
    assert "sample bot random" in caplog.text and "was not entered" in caplog.text


@pytest.mark.parametrize("entering", ["slow", "failing"])
def test_the_ladder_plays_while_the_samples_are_entered_and_goes_on_if_that_fails(
    ladder: LadderFixture, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, entering: str
) -> None:
    """A first start validates every sample bot (10 s on an idle machine, over a minute on a busy one): the ladder waited for the last
    before it served a page or played a match. Now it enters them beside the rest, and an error there is logged."""
    import asyncio

    import ladder.service as service
    from tests.ladder.conftest import enter

    enter(ladder.ladder, [SAMPLE_BOTS / "generals_war_greedy", SAMPLE_BOTS / "random"], validate=False)
    stopped: list[str] = []

    async def samples(*args: object) -> None:
        try:
            await asyncio.sleep(0.1)
            if entering == "failing":
                raise RuntimeError("the store is read-only")
            await asyncio.Event().wait()  # entering outlasts the matches below
        finally:
            stopped.append("stopped")

    monkeypatch.setattr(service, "register_samples", samples)
    ladder.ladder.config.samples = True
    ladder.play(2)
    assert stopped == ["stopped"]  # ended (failing) or cancelled with the ladder (slow), never left running
    failed = "the sample bots could not all be entered" in caplog.text
    assert failed == (entering == "failing") and ("the store is read-only" in caplog.text) == failed


def test_a_sample_bot_the_operator_withdrew_is_not_entered_again_at_the_next_start(
    ladder: LadderFixture, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import asyncio

    import ladder.service as service
    from ladder.accounts import house_user
    from ladder.submissions import submit, withdraw

    async def unvalidated(make: object, store: Path, owner: object, data: bytes, **kwargs: object) -> object:
        return await submit(make, store, owner, data, validate=False)  # type: ignore[arg-type]

    monkeypatch.setattr(service, "submit", unvalidated)

    def entered() -> list[tuple[str, int, str]]:
        with ladder.make() as db:
            rows = db.execute(select(BotVersion.path, BotVersion.seq, BotVersion.status).order_by(BotVersion.id)).all()
        return [(path.split("/")[0], seq, status) for path, seq, status in rows]

    asyncio.run(service.register_samples(ladder.make, ladder.ladder.store, ["generals-war"]))
    assert ("gw-greedy", 1, "active") in entered()
    with ladder.make() as db:
        withdraw(db, house_user(db).id, "gw-greedy")
    asyncio.run(service.register_samples(ladder.make, ladder.ladder.store, ["generals-war"]))  # the next start
    assert [e for e in entered() if e[0] == "gw-greedy"] == [("gw-greedy", 1, "retired")]
    # An upgrade of Arena that ships a newer version of it: the sample came back, against the operator's withdrawal.
    samples = tmp_path / "sample_bots"
    shutil.copytree(SAMPLE_BOTS / "generals_war_greedy", samples / "generals_war_greedy")
    manifest = samples / "generals_war_greedy" / "bot.toml"
    manifest.write_text(manifest.read_text().replace('version = "1.0.0"', 'version = "1.0.1"'))
    monkeypatch.setattr(service, "SAMPLE_BOTS", samples)
    asyncio.run(service.register_samples(ladder.make, ladder.ladder.store, ["generals-war"]))
    assert [e for e in entered() if e[0] == "gw-greedy"] == [("gw-greedy", 1, "retired")]


@pytest.mark.parametrize("status", ["active", "suspended"])
def test_a_newer_version_of_a_sample_bot_replaces_the_one_on_the_ladder(
    ladder: LadderFixture, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, status: str
) -> None:
    """An upgrade of Arena that ships a fixed sample enters it, as an owner's new version would (not so a withdrawn one)."""
    import asyncio

    import ladder.service as service
    from ladder.submissions import submit

    async def unvalidated(make: object, store: Path, owner: object, data: bytes, **kwargs: object) -> object:
        return await submit(make, store, owner, data, validate=False)  # type: ignore[arg-type]

    monkeypatch.setattr(service, "submit", unvalidated)
    samples = tmp_path / "sample_bots"
    shutil.copytree(SAMPLE_BOTS / "generals_war_greedy", samples / "generals_war_greedy")
    monkeypatch.setattr(service, "SAMPLE_BOTS", samples)
    asyncio.run(service.register_samples(ladder.make, ladder.ladder.store, ["generals-war"]))
    with ladder.make() as db:
        db.scalars(select(BotVersion)).one().status = status
        db.commit()
    manifest = samples / "generals_war_greedy" / "bot.toml"
    manifest.write_text(manifest.read_text().replace('version = "1.0.0"', 'version = "1.0.1"'))
    asyncio.run(service.register_samples(ladder.make, ladder.ladder.store, ["generals-war"]))
    with ladder.make() as db:
        assert [(v.version, v.status) for v in db.scalars(select(BotVersion).order_by(BotVersion.seq))] == [("1.0.0", "retired"), ("1.0.1", "active")]


def test_an_owner_has_a_few_submissions_in_progress_at_a_time_and_validations_take_turns(ladder: LadderFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    """An owner's token posting uploads in a loop started a validation match (bot processes) per request, all at once."""
    import asyncio

    import httpx

    import ladder.submissions as submissions
    from ladder.admission import OPEN_SUBMISSIONS, VALIDATIONS_AT_ONCE
    from ladder.api import LadderState, create_app

    assert OPEN_SUBMISSIONS == VALIDATIONS_AT_ONCE == 2  # the scenario below: two of one owner's hold both turns
    app = create_app(LadderState(ladder.make, ladder.ladder.store, ladder.ladder.config.data_dir))
    alice, bob = ladder.user("alice"), ladder.user("bob")

    async def scenario() -> None:
        started: list[str] = []
        release = asyncio.Event()

        async def validation(bot_dir: Path, *args: object, **kwargs: object) -> tuple[str, str]:
            started.append(bot_dir.parent.name)
            if bot_dir.parent.name.startswith("held"):
                await release.wait()
            return "", ""

        monkeypatch.setattr(submissions, "validation_matches", validation)

        async def until(condition: Callable[[], bool]) -> None:
            async with asyncio.timeout(30):
                while not condition():
                    await asyncio.sleep(0.01)

        def upload(client: httpx.AsyncClient, name: str, headers: dict[str, str]) -> Awaitable[httpx.Response]:
            return client.post("/api/bots", content=archive(("bot.toml", manifest(name)), ("bot.py", BOT_PY)), headers=headers)

        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://ladder") as client:
            held = [asyncio.ensure_future(upload(client, f"held-{i}", alice)) for i in range(OPEN_SUBMISSIONS)]
            await until(lambda: len(started) == OPEN_SUBMISSIONS)
            async with asyncio.timeout(30):  # taken, it would wait for a turn that never comes
                refused = await upload(client, "one-too-many", alice)
            assert refused.status_code == 429, refused.text
            assert f"{OPEN_SUBMISSIONS} submissions of yours are in progress already" in refused.json()["detail"]
            waiting = asyncio.ensure_future(upload(client, "bobs", bob))  # another owner's: taken, but waits its turn
            await asyncio.sleep(0.5)
            assert sorted(started) == ["held-0", "held-1"] and not waiting.done()
            release.set()
            answers = await asyncio.gather(*held, waiting)
            assert [a.status_code for a in answers] == [201] * 3, [a.text for a in answers]
            assert started[-1] == "bobs"
            again = await upload(client, "after", alice)  # her submissions were answered: she may submit again
            assert again.status_code == 201, again.text
        with ladder.make() as db:
            names = db.scalars(select(Bot.name).join(BotVersion, BotVersion.bot_id == Bot.id).where(BotVersion.status == "active"))
            assert sorted(names) == ["after", "bobs", "held-0", "held-1"]

    asyncio.run(scenario())


def test_a_version_that_repeats_an_earlier_ones_version_string_is_taken_and_its_owner_told(ladder: LadderFixture) -> None:
    """The standings, matches and logs name a version by its string: two of "1.0" on one bot could not be told apart."""
    owner = ladder.user("vera")

    def send(version: str) -> dict[str, object]:
        reply = ladder.client.post("/api/bots", content=archive(("bot.toml", manifest("twin", version)), ("bot.py", BOT_PY)), headers=owner)
        assert reply.status_code == 201 and reply.json()["accepted"], reply.text
        return dict(reply.json())

    assert send("1.0")["reason"] == ""
    assert send("1.0")["reason"] == "is on the ladder; #1 had the same version (1.0): raise `version` in bot.toml to tell them apart"
    assert send("1.1")["reason"] == ""
    assert "#2 had the same version (1.0)" in str(send("1.0")["reason"])  # the latest of them


def test_a_rejected_bots_log_keeps_its_end_where_it_failed(tmp_path: Path) -> None:
    """A log past LOG_CAP is cut from its start: its end says why the bot failed its validation match."""
    import asyncio

    from ladder.submissions import LOG_CAP, validation_matches

    bot = tmp_path / "chatty"
    bot.mkdir()
    (bot / "bot.toml").write_text(manifest("chatty"))
    (bot / "bot.py").write_text(f"import sys\nsys.stderr.write('chatter\\n' * {LOG_CAP // 8 + 1000})\nsys.exit('the last words')\n")
    reason, log = asyncio.run(validation_matches(bot, ["generals-war"], tmp_path / "logs"))
    assert reason and len(log) == LOG_CAP
    assert "the last words" in log[-200:] and "validation match, generals-war" not in log, "the start is what was cut"


def test_an_upload_of_exactly_the_size_limit_is_taken_and_one_byte_more_is_not(ladder: LadderFixture) -> None:
    from fastapi.testclient import TestClient

    from ladder.api import LadderState, create_app
    from ladder.upload import Limits

    data = archive(("bot.toml", manifest("exact")), ("bot.py", BOT_PY))
    state = LadderState(ladder.make, ladder.ladder.store, ladder.ladder.config.data_dir, limits=Limits(archive_bytes=len(data)), validate=False)
    owner = ladder.user("esther")
    with TestClient(create_app(state)) as client:
        over = client.post("/api/bots", content=data + b"\0", headers=owner)
        assert over.status_code == 413, over.text
        exact = client.post("/api/bots", content=data, headers=owner)
        assert exact.status_code == 201 and exact.json()["accepted"], exact.text


def test_an_interrupted_unpacking_is_not_answered_as_an_error_and_leaves_nothing(ladder: LadderFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cancellation (the ladder stopping) or an interrupt while an archive is unpacked goes on up, not as a 500 to answer."""
    import asyncio

    import ladder.submissions as submissions
    from ladder.models import User

    def interrupted(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(submissions, "unpack", interrupted)
    ladder.user("ida")
    with ladder.make() as db:
        owner = db.scalars(select(User).where(User.name == "ida")).one()
    with pytest.raises(KeyboardInterrupt):
        asyncio.run(submissions.submit(ladder.make, ladder.ladder.store, owner, archive(("bot.toml", manifest("cut")), ("bot.py", BOT_PY))))
    assert left_in_store(ladder) == [".staging", ".validation"]
