"""The ladder's terminal commands that watch it: `standings --watch` and `matches --follow`, against a live ladder."""

from __future__ import annotations

import json
import threading
import time

import pytest

from tests.ladder.conftest import LadderFixture
from tests.support import SAMPLE_BOTS


@pytest.mark.parametrize("as_json", [False, True])
def test_watching_the_standings_through_a_pipe_prints_each_update(server: str, as_json: bool) -> None:
    """Through a pipe (a log, `| tee`), rich's Live drew only when the command ended, and nothing when it was killed;
    with --json, --watch was ignored: one list, then the end. Now one JSON line per update, for a tool to follow."""
    import select
    import subprocess
    import sys

    args = [sys.executable, "-m", "arena.cli.main", "ladder", "standings", "glory", "--watch", "--interval", "0.2", "--server", server]
    args += ["--json"] if as_json else []
    watcher = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert watcher.stdout is not None
        titles = 0
        deadline = time.monotonic() + 30
        while titles < 3 and time.monotonic() < deadline:
            ready, _, _ = select.select([watcher.stdout], [], [], 0.5)  # never blocks past the deadline: the old code printed nothing
            if ready:
                line = watcher.stdout.readline()
                if not line:
                    break
                titles += isinstance(json.loads(line), list) if as_json else "glory ·" in line
        assert titles == 3, f"{titles} tables printed while it ran"
    finally:
        watcher.terminate()
        watcher.wait(10)


def test_the_banner_of_serve_names_the_server_to_watch() -> None:
    """On another port or address, the `--watch` the banner suggests reached the default 127.0.0.1:8765 instead."""
    from arena.cli.ladder import watch_command

    assert watch_command("127.0.0.1", 8765) == "arena ladder standings GAME --watch"
    assert watch_command("127.0.0.1", 18765).endswith("--watch --server http://127.0.0.1:18765")
    assert watch_command("0.0.0.0", 8765) == "arena ladder standings GAME --watch"  # listening everywhere: the default reaches it
    assert watch_command("::", 9000).endswith("--server http://[::1]:9000")
    assert watch_command("ladder.example.org", 8765).endswith("--server http://ladder.example.org:8765")


def test_following_the_matches_prints_each_once_when_its_result_is_out(ladder: LadderFixture, server: str) -> None:
    """`matches --follow`: the last LIMIT settled matches, then each match as its deal settles, never twice, never one
    whose ranks are still held back."""
    import queue
    import subprocess
    import sys

    owner = ladder.user("fay")
    for bot in ("generals_war_greedy", "random"):
        assert ladder.submit(owner, SAMPLE_BOTS / bot)[0] == 201
    ladder.play(4)

    def settled() -> list[dict]:  # type: ignore[type-arg]
        return [m for m in ladder.client.get("/api/matches", params={"limit": 200}).json() if m["settled"]]

    before = settled()
    every = 0.2  # the follower's look, in seconds
    args = [sys.executable, "-m", "arena.cli.main", "ladder", "matches", "--follow", "--json", "--limit", "2", "--interval", str(every), "--server", server]
    follower = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: queue.Queue[str] = queue.Queue()  # a thread reads: select() on the pipe misses lines already buffered

    def pump() -> None:
        for line in follower.stdout or ():
            lines.put(line)

    threading.Thread(target=pump, daemon=True).start()
    printed: list[dict] = []  # type: ignore[type-arg]

    def read_until(count: int) -> None:
        deadline = time.monotonic() + 30
        while len(printed) < count and time.monotonic() < deadline:
            try:
                printed.append(json.loads(lines.get(timeout=0.5)))
            except queue.Empty:
                pass

    try:
        read_until(2)
        assert [m["id"] for m in printed] == [m["id"] for m in before[:2]][::-1], "the two newest, oldest first"
        ladder.play(4)
        fresh = [m for m in settled() if m["id"] not in {b["id"] for b in before}]
        assert len(fresh) >= 2
        read_until(2 + len(fresh))
        time.sleep(5 * every)  # on purpose: five more looks, nothing printed twice
        while not lines.empty():
            printed.append(json.loads(lines.get_nowait()))
    finally:
        follower.terminate()
        follower.wait(10)
    assert sorted(m["id"] for m in printed[2:]) == sorted(m["id"] for m in fresh)
    assert all(m["settled"] and all(s["rank"] is not None for s in m["seats"]) for m in printed if m["status"] == "done")


def test_a_followed_match_is_one_line_with_its_verdicts() -> None:
    from arena.cli.ladder_watch import match_line

    seats = [
        {"seat": 0, "bot": "gw-greedy", "rank": 1, "verdicts": []},
        {"seat": 1, "bot": "crashy", "rank": None, "verdicts": [{"kind": "CRASH"}, {"kind": "FORFEIT"}]},
    ]
    line = match_line({"id": 7, "game": "generals-war", "kind": "rated", "status": "failed", "seats": seats})
    assert line == "#7 generals-war rated failed  0: gw-greedy rank 1  1: crashy  verdicts: crashy: crash, crashy: forfeit"


def test_a_watch_rides_out_a_ladder_that_cannot_be_reached_for_a_while(capsys: pytest.CaptureFixture[str]) -> None:
    """A restart of the ladder ended `--follow` and `--watch` with an error: now they say so once and go on."""
    from arena.cli.ladder import Unreachable
    from arena.cli.ladder_watch import Watcher, follow_matches

    def match(i: int) -> dict:  # type: ignore[type-arg]
        return {"id": i, "game": "glory", "kind": "rated", "status": "done", "settled": True, "seats": [{"seat": 0, "bot": "b", "rank": 1, "verdicts": []}]}

    answers: list[object] = [Unreachable("cannot reach the ladder at http://[::1]:9: refused"), Unreachable("503: busy"), [match(2), match(1)], KeyboardInterrupt()]

    def look() -> object:
        answer = answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        return answer

    with pytest.raises(KeyboardInterrupt):
        follow_matches([match(1)], 20, Watcher(look), 0.01, as_json=False)
    out, err = capsys.readouterr()
    assert [line.split()[0] for line in out.splitlines()] == ["#1", "#2"]
    assert " ".join(err.split()) == "warning: cannot reach the ladder at http://[::1]:9: refused; trying again the ladder answers again"


def test_the_matches_table_says_the_verdicts_in_words() -> None:
    from rich.console import Console

    from arena.cli.ladder_watch import matches_table

    seats = [{"seat": 0, "bot": "a", "rank": 1, "verdicts": []}, {"seat": 1, "bot": "b", "rank": 2, "verdicts": [{"kind": "ILLEGAL_ACTION"}]}]
    console = Console(width=200, record=True)
    console.print(matches_table([{"id": 3, "game": "glory", "kind": "rated", "status": "done", "seats": seats}]))
    text = console.export_text()
    assert "b: illegal action" in text and "ILLEGAL_ACTION" not in text, text


def test_a_verdict_that_came_many_times_is_listed_once_with_how_many() -> None:
    """A bot sending illegal actions until its SDK gave up was listed "b: illegal action" once for each, four over."""
    from arena.cli.ladder_watch import match_line

    kinds = ["ILLEGAL_ACTION"] * 4 + ["TIMEOUT", "FORFEIT"]
    seats = [{"seat": 0, "bot": "a", "rank": 1, "verdicts": []}, {"seat": 1, "bot": "b", "rank": 2, "verdicts": [{"kind": k} for k in kinds]}]
    line = match_line({"id": 9, "game": "glory", "kind": "rated", "status": "done", "seats": seats})
    assert line.endswith("verdicts: b: illegal action (4 times), b: timeout, b: forfeit"), line
