"""`arena ladder prune` (ladder/prune.py): old matches' logs and replays removed, rows and files, only once their whole
deal is over; readers then answer 410 "pruned"; results, standings and ratings stay."""

from __future__ import annotations

import gzip
import json
import uuid
from pathlib import Path

import pytest
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from arena.cli.main import app
from ladder.jobs import REPLAY_FILE, seat_log_name
from ladder.models import Match, MatchFile, MatchSeat
from ladder.prune import DAY, PruneError, Pruned, prune
from tests.ladder.conftest import LadderFixture
from tests.ladder.test_api_rows import GAME, add_bot
from tests.ladder.test_cli import arena, greedy_against_random, runner
from tests.web.test_frames import replay_data

NOW = 1000 * DAY
OLD = NOW - 40 * DAY  # finished 40 days before NOW
RECENT = NOW - 5 * DAY


def add_match(
    db: Session, versions: list[int], finished_at: float | None, *, status: str = "done", deal: str | None = None,
    rows: dict[str, bytes] | None = None, data_dir: Path | None = None, files: dict[str, bytes] | None = None,
) -> int:
    """A match of ``versions`` with its logs and replay as MatchFile ``rows``, or as ``files`` in ``data_dir`` (named
    as the local pool names them: the replay under replays/, each seat's log under logs/MATCH/); its id."""
    match = Match(game=GAME, seed=1, num_players=len(versions), kind="rated", status=status, deal=deal or uuid.uuid4().hex,
                  created_at=0.0, finished_at=finished_at)
    db.add(match)
    db.flush()
    files = files or {}
    for seat, version in enumerate(versions):
        log_path = None
        if seat_log_name(seat) in files:
            assert data_dir is not None
            log_path = f"logs/{match.id}/try-seat{seat}.log"
            (data_dir / log_path).parent.mkdir(parents=True, exist_ok=True)
            (data_dir / log_path).write_bytes(files[seat_log_name(seat)])
        db.add(MatchSeat(match_id=match.id, seat=seat, bot_version_id=version, rank=seat + 1, score=0.0, verdicts=[], log_path=log_path))
    if REPLAY_FILE in files:
        assert data_dir is not None
        match.replay_path = f"replays/{match.id}-lease-x.json"
        (data_dir / "replays").mkdir(parents=True, exist_ok=True)
        (data_dir / match.replay_path).write_bytes(files[REPLAY_FILE])
    db.add_all(MatchFile(match_id=match.id, name=name, size=len(data), data=gzip.compress(data), created_at=1.0) for name, data in (rows or {}).items())
    db.commit()
    return match.id


def stored(db: Session, match_id: int) -> set[str]:
    return set(db.scalars(select(MatchFile.name).where(MatchFile.match_id == match_id)))


def gz(data: bytes) -> int:
    return len(gzip.compress(data))


LOGS = {seat_log_name(0): b"seat 0 wrote this\n", seat_log_name(1): b"seat 1 wrote more than this\n"}
REPLAY = json.dumps(replay_data(GAME, 2, 1)).encode()


@pytest.fixture
def two(ladder: LadderFixture) -> list[int]:
    """Two bots of one owner, "owner": their active versions' ids."""
    ladder.user("owner")
    with ladder.make() as db:
        versions = [add_bot(db, "owner", name, versions=1) for name in ("a", "b")]
        db.commit()
        return versions


def test_old_finished_matches_lose_their_logs_rows_and_files_and_their_replays_only_when_asked(ladder: LadderFixture, two: list[int]) -> None:
    root = ladder.ladder.config.data_dir
    with ladder.make() as db:
        in_rows = add_match(db, two, OLD, rows={**LOGS, REPLAY_FILE: REPLAY})
        as_files = add_match(db, two, OLD, data_dir=root, files={**LOGS, REPLAY_FILE: REPLAY})
        recent = add_match(db, two, RECENT, rows={**LOGS, REPLAY_FILE: REPLAY})
        recent_files = add_match(db, two, RECENT, data_dir=root, files={**LOGS, REPLAY_FILE: REPLAY})
    log_bytes = sum(map(len, LOGS.values()))
    assert prune(ladder.make, root, 30, None, now=NOW) == Pruned(logs=2, replays=0, bytes=sum(map(gz, LOGS.values())) + log_bytes)
    with ladder.make() as db:
        assert stored(db, in_rows) == {REPLAY_FILE} and stored(db, recent) == {*LOGS, REPLAY_FILE}
        marks = {m.id: (m.logs_pruned_days, m.replay_pruned_days) for m in db.scalars(select(Match))}
    assert marks == {in_rows: (30, None), as_files: (30, None), recent: (None, None), recent_files: (None, None)}
    assert not (root / "logs" / str(as_files)).exists(), "its logs' folder goes with them"
    assert sorted(p.name for p in (root / "logs" / str(recent_files)).iterdir()) == ["try-seat0.log", "try-seat1.log"]
    assert sorted(p.name for p in (root / "replays").iterdir()) == [f"{as_files}-lease-x.json", f"{recent_files}-lease-x.json"]

    assert prune(ladder.make, root, 30, None, now=NOW) == Pruned(), "pruned once"
    assert prune(ladder.make, root, None, 30, now=NOW) == Pruned(logs=0, replays=2, bytes=gz(REPLAY) + len(REPLAY))
    with ladder.make() as db:
        assert stored(db, in_rows) == set() and stored(db, recent) == {*LOGS, REPLAY_FILE}
        assert db.get_one(Match, as_files).replay_pruned_days == 30 and db.get_one(Match, recent).replay_pruned_days is None
    assert [p.name for p in (root / "replays").iterdir()] == [f"{recent_files}-lease-x.json"]
    # An age of 0 takes every finished match, the recent ones too.
    assert prune(ladder.make, root, 0, 0, now=NOW) == Pruned(logs=2, replays=2, bytes=sum(map(gz, LOGS.values())) + log_bytes + gz(REPLAY) + len(REPLAY))


def test_unfinished_matches_and_every_match_of_a_deal_not_wholly_over_keep_their_files(ladder: LadderFixture, two: list[int]) -> None:
    """A deal's logs and replays are held back until every match of it is over (``queries.settled``): the twin's
    bots play the same cards. Its finished half keeps them too, however old; a failed match, which has no replay,
    loses the logs no seat names (logs/MATCH/, what the operator read to see why it failed)."""
    root = ladder.ladder.config.data_dir
    with ladder.make() as db:
        queued = add_match(db, two, None, status="queued", rows=dict(LOGS))
        running = add_match(db, two, None, status="running", data_dir=root, files=dict(LOGS))
        half = add_match(db, two, OLD, deal="half", rows={**LOGS, REPLAY_FILE: REPLAY})
        half_files = add_match(db, two, OLD, deal="half", data_dir=root, files={**LOGS, REPLAY_FILE: REPLAY})
        twin = add_match(db, two, None, status="running", deal="half")
        failed = add_match(db, two, OLD, status="failed")
    (root / "logs" / str(failed)).mkdir(parents=True)
    (root / "logs" / str(failed) / "try-seat0.log").write_bytes(b"it crashed\n")
    before = {p.relative_to(root) for p in root.rglob("*") if p.is_file() and p.suffix in (".log", ".json")}
    assert prune(ladder.make, root, 1, 1, now=NOW) == Pruned(logs=1, replays=0, bytes=len(b"it crashed\n"))
    after = {p.relative_to(root) for p in root.rglob("*") if p.is_file() and p.suffix in (".log", ".json")}
    assert before - after == {Path("logs", str(failed), "try-seat0.log")}
    with ladder.make() as db:
        assert stored(db, queued) == set(LOGS) and stored(db, half) == {*LOGS, REPLAY_FILE}
        marks = {m.id: (m.logs_pruned_days, m.replay_pruned_days) for m in db.scalars(select(Match))}
        assert marks == {queued: (None, None), running: (None, None), half: (None, None), half_files: (None, None), twin: (None, None), failed: (1, None)}
        db.get_one(Match, twin).status, db.get_one(Match, twin).finished_at = "done", NOW - 2 * DAY
        db.commit()
    # The deal over, its old half goes (the twin, finished 2 days ago, stays under an age of 30).
    assert prune(ladder.make, root, 30, 30, now=NOW).logs == 2
    with ladder.make() as db:
        assert stored(db, half) == set() and db.get_one(Match, twin).logs_pruned_days is None


def test_a_dry_run_touches_nothing_and_tells_what_the_prune_then_removes(ladder: LadderFixture, two: list[int]) -> None:
    root = ladder.ladder.config.data_dir
    with ladder.make() as db:
        add_match(db, two, OLD, rows={**LOGS, REPLAY_FILE: REPLAY})
        add_match(db, two, OLD, data_dir=root, files={**LOGS, REPLAY_FILE: REPLAY})
        add_match(db, two, RECENT, data_dir=root, files=dict(LOGS))

    def state() -> tuple[object, ...]:
        with ladder.make() as db:
            rows = sorted((f.match_id, f.name, f.data) for f in db.scalars(select(MatchFile)))
            marks = sorted((m.id, m.logs_pruned_days, m.replay_pruned_days) for m in db.scalars(select(Match)))
        return rows, marks, sorted((str(p), p.read_bytes()) for p in root.rglob("*") if p.is_file() and p.suffix in (".log", ".json"))

    before = state()
    told = prune(ladder.make, root, 30, 30, now=NOW, dry_run=True)
    assert told.logs == 2 and told.replays == 2 and told.bytes > 0
    assert state() == before
    assert prune(ladder.make, root, 30, 30, now=NOW) == told
    assert state() != before


def test_readers_of_a_pruned_log_or_replay_are_told_it_was_pruned(ladder: LadderFixture, two: list[int]) -> None:
    """410 Gone, naming the age: not 404 "no such match", which reads as a wrong id, nor 500."""
    root = ladder.ladder.config.data_dir
    owner = ladder.user("owner2")
    with ladder.make() as db:
        mine = add_bot(db, "owner2", "c", versions=1)
        gone = add_match(db, [mine, two[1]], 1.0, rows={**LOGS, REPLAY_FILE: REPLAY})
        kept = add_match(db, [mine, two[1]], 1.0, data_dir=root, files={**LOGS, REPLAY_FILE: REPLAY})
        db.execute(update(Match).where(Match.id == kept).values(finished_at=None))  # nothing of it is old
        db.commit()
    prune(ladder.make, root, 30, None)
    log = ladder.client.get(f"/api/matches/{gone}/logs/0", headers=owner)
    assert log.status_code == 410 and "pruned" in log.json()["detail"] and "more than 30 days" in log.json()["detail"], log.text
    assert ladder.client.get(f"/api/matches/{gone}/logs/1", headers=owner).status_code == 403, "still its owner's only"
    assert ladder.client.get(f"/api/matches/{gone}/replay").status_code == 200, "the replay was not asked for"
    assert ladder.client.get(f"/api/matches/{gone}/frames").status_code == 200
    prune(ladder.make, root, None, 7)
    for path in (f"/api/matches/{gone}/replay", f"/api/matches/{gone}/frames"):
        answer = ladder.client.get(path)
        assert answer.status_code == 410 and "replay of match" in answer.json()["detail"] and "more than 7 days" in answer.json()["detail"], (path, answer.text)
    page = ladder.client.get(f"/matches/{gone}")
    assert page.status_code == 410 and "Pruned" in page.text and "more than 7 days" in page.text
    summary = ladder.client.get(f"/api/matches/{gone}").json()
    assert summary["seats"][0]["rank"] == 1, "its result stays"
    assert (summary["logs_pruned_days"], summary["replay_pruned_days"]) == (30, 7), "the summary says what is gone"
    listed = {m["id"]: m for m in ladder.client.get("/api/matches").json()}
    assert (listed[gone]["logs_pruned_days"], listed[gone]["replay_pruned_days"]) == (30, 7)
    # A match never pruned still reads as before.
    with ladder.make() as db:
        db.execute(update(Match).where(Match.id == kept).values(finished_at=1.0))
        db.commit()
    assert ladder.client.get(f"/api/matches/{kept}/logs/0", headers=owner).json() == {"log": LOGS[seat_log_name(0)].decode()}
    assert ladder.client.get(f"/matches/{kept}").status_code == 200
    summary = ladder.client.get(f"/api/matches/{kept}").json()
    assert (summary["logs_pruned_days"], summary["replay_pruned_days"]) == (None, None)


def test_the_prune_command_tells_what_it_removed_and_refuses_bad_ages(ladder: LadderFixture, two: list[int]) -> None:
    root = ladder.ladder.config.data_dir
    with ladder.make() as db:
        old = add_match(db, two, 1.0, data_dir=root, files={**LOGS, REPLAY_FILE: REPLAY})
    size = sum(map(len, LOGS.values()))
    data = ["--data", str(root)]
    said = " ".join(arena("ladder", "prune", "--logs-older-than", "30", "--dry-run", *data).split())
    assert said == f"would remove the logs of 1 matches: {size} bytes (--dry-run: nothing removed)"
    assert (root / "logs" / str(old)).is_dir()
    said = " ".join(arena("ladder", "prune", "--logs-older-than", "30", "--replays-older-than", "60", *data).split())
    assert said == f"removed the logs of 1 matches and the replays of 1 matches: {size + len(REPLAY)} bytes"
    assert not (root / "logs" / str(old)).exists() and not list((root / "replays").iterdir())
    for args, reason in (
        ([], "give --logs-older-than DAYS, --replays-older-than DAYS or both"),
        (["--logs-older-than", "-1"], "Invalid value for '--logs-older-than'"),
        (["--replays-older-than", "-3"], "Invalid value for '--replays-older-than'"),
        (["--logs-older-than", "many"], "Invalid value for '--logs-older-than'"),
    ):
        refused = runner.invoke(app, ["ladder", "prune", *args, *data])
        assert refused.exit_code == 2 and reason in " ".join(refused.output.split()), (args, refused.output)
    with pytest.raises(PruneError):
        prune(ladder.make, root, None, None)
    with pytest.raises(PruneError):
        prune(ladder.make, root, -1, None)


def test_a_data_folder_without_the_files_its_database_names_is_refused(ladder: LadderFixture, two: list[int], tmp_path: Path) -> None:
    """A wrong --data with --db: the rows were marked pruned while their files stayed, for no later prune to find."""
    root = ladder.ladder.config.data_dir
    with ladder.make() as db:
        old = add_match(db, two, 1.0, data_dir=root, files=dict(LOGS))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    refused = runner.invoke(app, ["ladder", "prune", "--logs-older-than", "1", "--data", str(elsewhere), "--db", ladder.ladder.config.db_url])
    assert refused.exit_code == 2 and "holds no replays/ or logs/ folder" in " ".join(refused.output.split()), refused.output
    with ladder.make() as db:
        assert db.get_one(Match, old).logs_pruned_days is None


def test_a_played_ladder_pruned_keeps_its_standings_match_list_and_ratings(ladder: LadderFixture, server: str) -> None:
    """On matches played for real (files in the data folder): standings, the match list and `check-ratings` as
    before; `arena ladder log` and `arena ladder replay` say the files were pruned, and fail."""
    data, token, _ = greedy_against_random(ladder, server)
    standings = ladder.client.get(f"/api/games/{GAME}/standings").json()
    listed = ladder.client.get("/api/matches", params={"limit": 200}).json()
    done = next(m for m in listed if m["status"] == "done" and m["settled"])
    assert any(r["games"] for r in standings)
    assert "ratings match the match log" in arena("ladder", "check-ratings", "--data", data)
    with ladder.make() as db:
        logs = [s.log_path for s in db.scalars(select(MatchSeat).where(MatchSeat.match_id == done["id"]))]
        replay = db.get_one(Match, done["id"]).replay_path
    assert all(logs) and replay and (Path(data) / replay).is_file()

    said = arena("ladder", "prune", "--logs-older-than", "0", "--replays-older-than", "0", "--data", data)
    assert "removed the logs of" in said and " 0 matches" not in said
    assert not (Path(data) / replay).exists() and not any((Path(data) / p).exists() for p in logs if p)
    assert ladder.client.get(f"/api/games/{GAME}/standings").json() == standings
    after = ladder.client.get("/api/matches", params={"limit": 200}).json()
    pruned = ("logs_pruned_days", "replay_pruned_days")
    assert [{k: v for k, v in m.items() if k not in pruned} for m in after] == [{k: v for k, v in m.items() if k not in pruned} for m in listed]
    assert {(m["logs_pruned_days"], m["replay_pruned_days"]) for m in after if m["id"] == done["id"]} == {(0, 0)}
    assert "ratings match the match log" in arena("ladder", "check-ratings", "--data", data)
    seat = next(s["seat"] for s in done["seats"] if s["bot"] == "gw-greedy")
    for args in (["log", str(done["id"]), str(seat), "--token", token], ["replay", str(done["id"]), "-o", str(ladder.tmp / "r.json")]):
        refused = runner.invoke(app, ["ladder", *args, "--server", server])
        told = " ".join(refused.output.split())
        assert refused.exit_code != 0 and "410" in told and "pruned" in told and "more than 0 days" in told, (args, told)
    assert not (ladder.tmp / "r.json").exists()


def test_on_either_database_rows_are_pruned_and_measured(any_url: str, tmp_path: Path) -> None:
    """SQLite and PostgreSQL: the deals still to play, the stored sizes (gzipped) and the marks, by SQLAlchemy alone."""
    from ladder.accounts import add_user
    from ladder.db import make_engine, migrate, sessions

    migrate(any_url)
    engine = make_engine(any_url)
    try:
        make = sessions(engine)
        with make() as db:
            add_user(db, "owner")
            two = [add_bot(db, "owner", name, versions=1) for name in ("a", "b")]
            db.commit()
            old = add_match(db, two, OLD, rows={**LOGS, REPLAY_FILE: REPLAY})
            half = add_match(db, two, OLD, deal="half", rows=dict(LOGS))
            add_match(db, two, None, status="queued", deal="half")
        told = prune(make, tmp_path, 30, 30, now=NOW, dry_run=True)
        assert told == Pruned(logs=1, replays=1, bytes=sum(map(gz, LOGS.values())) + gz(REPLAY))
        assert prune(make, tmp_path, 30, 30, now=NOW) == told
        with make() as db:
            assert stored(db, old) == set() and stored(db, half) == set(LOGS)
            assert (db.get_one(Match, old).logs_pruned_days, db.get_one(Match, old).replay_pruned_days) == (30, 30)
            assert db.get_one(Match, half).logs_pruned_days is None
    finally:
        engine.dispose()


def test_the_migration_upgrades_a_ladder_with_matches_to_nothing_pruned(ladder: LadderFixture, two: list[int]) -> None:
    from alembic import command

    from ladder.db import alembic_config, migrate

    root = ladder.ladder.config.data_dir
    with ladder.make() as db:
        played = add_match(db, two, OLD, rows=dict(LOGS))
    url = ladder.ladder.config.db_url
    command.downgrade(alembic_config(url), "0007")
    with ladder.make() as db:
        assert db.scalar(select(Match.id)) == played  # the columns 0007 has: the model's whole row names the new ones
    migrate(url)
    with ladder.make() as db:
        match = db.get_one(Match, played)
        assert (match.logs_pruned_days, match.replay_pruned_days, match.finished_at) == (None, None, OLD)
    assert prune(ladder.make, root, 30, None, now=NOW).logs == 1


def test_only_the_data_folder_s_own_files_are_removed(ladder: LadderFixture, two: list[int], tmp_path: Path) -> None:
    """A row naming a file by the absolute path of the folder this one was copied from (a backup served elsewhere,
    its original still there) loses this folder's copy, not the original; a path leading out of the data folder, or a
    link, is left alone."""
    root = ladder.ladder.config.data_dir
    original = tmp_path / "original"
    with ladder.make() as db:
        copied = add_match(db, two, OLD, data_dir=root, files={**LOGS, REPLAY_FILE: REPLAY})
        linked = add_match(db, two, OLD)
        outside = add_match(db, two, OLD)
        folder_linked = add_match(db, two, OLD)
        kept = db.get_one(Match, copied).replay_path
        assert kept is not None
        (original / "replays").mkdir(parents=True)
        (original / kept).write_bytes(b"the original's")
        db.get_one(Match, copied).replay_path = str(original / kept)
        for seat, path in enumerate(sorted((root / "logs" / str(copied)).iterdir())):
            (original / "logs" / str(copied)).mkdir(parents=True, exist_ok=True)
            (original / "logs" / str(copied) / path.name).write_bytes(b"the original's")
            db.execute(update(MatchSeat).where(MatchSeat.match_id == copied, MatchSeat.seat == seat)
                       .values(log_path=str(original / "logs" / str(copied) / path.name)))
        (tmp_path / "elsewhere.log").write_bytes(b"not the ladder's")
        db.execute(update(MatchSeat).where(MatchSeat.match_id == outside, MatchSeat.seat == 0).values(log_path="logs/../../elsewhere.log"))
        db.execute(update(MatchSeat).where(MatchSeat.match_id == outside, MatchSeat.seat == 1).values(log_path="ladder.db"))
        db.commit()
    (root / "logs" / str(linked)).mkdir(parents=True)
    (root / "logs" / str(linked) / "try-seat0.log").symlink_to(tmp_path / "elsewhere.log")
    (tmp_path / "a-folder").mkdir()
    (tmp_path / "a-folder" / "try-seat0.log").write_bytes(b"not the ladder's either")
    (root / "logs" / str(folder_linked)).symlink_to(tmp_path / "a-folder")
    assert prune(ladder.make, root, 30, 30, now=NOW) == Pruned(logs=1, replays=1, bytes=sum(map(len, LOGS.values())) + len(REPLAY))
    assert not (root / "logs" / str(copied)).exists() and not (root / kept).exists()
    assert (original / kept).read_bytes() == b"the original's"
    assert (tmp_path / "a-folder" / "try-seat0.log").is_file()
    assert sorted(p.read_bytes() for p in (original / "logs" / str(copied)).iterdir()) == [b"the original's"] * 2
    assert (tmp_path / "elsewhere.log").read_bytes() == b"not the ladder's"
    assert (root / "logs" / str(linked) / "try-seat0.log").is_symlink() and (root / "ladder.db").is_file()


def test_a_logs_folder_linked_from_another_disk_is_pruned(ladder: LadderFixture, two: list[int], tmp_path: Path) -> None:
    """The data folder's replays/ or logs/ may be a link to a bigger disk (ladder/datafiles.py): their files are its own."""
    root = ladder.ladder.config.data_dir
    for folder in ("logs", "replays"):
        (tmp_path / "disk" / folder).mkdir(parents=True)
        (root / folder).symlink_to(tmp_path / "disk" / folder)
    with ladder.make() as db:
        add_match(db, two, OLD, data_dir=root, files={**LOGS, REPLAY_FILE: REPLAY})
    assert prune(ladder.make, root, 30, 30, now=NOW) == Pruned(logs=1, replays=1, bytes=sum(map(len, LOGS.values())) + len(REPLAY))
    assert [p for p in (tmp_path / "disk").rglob("*") if p.is_file()] == []
