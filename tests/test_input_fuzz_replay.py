"""Replay files fuzzed: a real replay, cut, flipped, retyped or pruned, is shown as the match it records or refused
with a ReplayError (`arena replay` exits 2 in one line), never a traceback, and a whole replay that re-plays
otherwise is never shown as good."""

from __future__ import annotations

import copy
import functools
import gzip
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from arena.cli.main import app
from referee.games.registry import GAMES
from referee.server.frames import ALL, build_frames
from referee.server.inprocess import play
from referee.server.replay import ReplayError, load_replay, parse_replay, replay_dict
from tests.fuzzing import FUZZ, one_value_changed
from tests.support import load_bot_class

runner = CliRunner()
RandomBot = load_bot_class("random", "RandomBot")
#: Each game with options that keep its match short: a replay of a few steps, re-played in a few ms.
SHORT = {
    "glory": {"rounds": 1},
    "generals-war": {"conquest_points": 1},
    "assassination": {"target_score": 1, "max_rounds": 1},
    "land-and-castle": {"max_turns": 3},
    "generals-and-assassins": {"rounds": 1},
}
JUNK = st.one_of(
    st.none(), st.booleans(), st.integers(), st.sampled_from([2**63, -(2**63) - 1, 10**30]), st.floats(allow_nan=False),
    st.text(max_size=4), st.sampled_from([[], {}, [0], {"seat": 0}, [[[]]], "0", "1"]),
)  # fmt: skip


@functools.cache
def replay(game_id: str, compact: bool) -> str:
    """A short seeded match's replay, as its file holds it."""
    n = GAMES[game_id].spec.player_counts[0]
    record = play(GAMES[game_id](n, 3, SHORT[game_id]), [RandomBot(i + 1) for i in range(n)])
    return json.dumps(replay_dict(record, compact), separators=(",", ":"))


@functools.cache
def frames_of(game_id: str, compact: bool) -> list[dict[str, Any]]:
    data = parse_replay(replay(game_id, compact).encode(), "r.json")
    return [build_frames(copy.deepcopy(data), seat)["frames"] for seat in [ALL, *range(data["num_players"])]]


def shown(raw: bytes) -> list[list[dict[str, Any]]] | ReplayError:
    """The frames ``arena replay`` shows for a file of ``raw`` (every seat's), or the ReplayError that refuses it."""
    try:
        data = parse_replay(raw, "r.json")
        return [build_frames(copy.deepcopy(data), seat)["frames"] for seat in [ALL, *range(data["num_players"])]]
    except ReplayError as exc:
        assert "\n" not in str(exc), str(exc)
        return exc


@st.composite
def retyped(draw: st.DrawFn) -> tuple[str, bool, tuple[Any, ...], bytes]:
    """A replay with one value replaced by junk, or dropped: (game, compact, where, the file)."""
    game_id, compact = draw(st.sampled_from(list(SHORT))), draw(st.booleans())
    where, data = draw(one_value_changed(json.loads(replay(game_id, compact)), JUNK, items=3))
    return game_id, compact, where, json.dumps(data).encode()


#: What a replay holds that the viewer shows as recorded (names, verdicts, ids, times), re-playing none of it.
UNCHECKED = {"seats", "match_id", "finished_at", "started_at", "final_state", "rules_version", "time_control", "referee"}


@FUZZ
@given(retyped())
def test_a_replay_with_a_value_changed_or_dropped_is_refused_or_shows_its_own_match(case: tuple[str, bool, tuple[Any, ...], bytes]) -> None:
    game_id, compact, where, raw = case
    got = shown(raw)
    if isinstance(got, ReplayError) or compact or where[0] in UNCHECKED:
        return  # a compact replay has no events to hold its actions to: a seed changed may still re-play to its result
    # a whole replay accepted shows the match its events record (a value changed to one that means the same)
    assert got == frames_of(game_id, False), where


@st.composite
def damaged(draw: st.DrawFn) -> bytes:
    """A replay's bytes cut, with bytes flipped or put in, or gzipped."""
    raw = replay(draw(st.sampled_from(list(SHORT))), draw(st.booleans())).encode()
    how = draw(st.sampled_from(["cut", "flip", "insert", "gzip", "gzip-cut"]))
    if how == "cut":
        return raw[: draw(st.integers(0, len(raw) - 1))]
    if how == "gzip":
        return gzip.compress(raw)
    if how == "gzip-cut":
        packed = gzip.compress(raw)
        return packed[: draw(st.integers(0, len(packed)))]
    out = bytearray(raw)
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(out) - 1))
        if how == "flip":
            out[at] ^= 1 << draw(st.integers(0, 7))
        else:
            out[at:at] = draw(st.binary(min_size=1, max_size=4) | st.sampled_from([b"[" * 5000, b"1" * 5000, b"\xff", b"\x00"]))
    return bytes(out)


@FUZZ
@given(damaged())
def test_a_replay_with_bytes_cut_flipped_or_put_in_is_refused_or_shown_not_a_traceback(raw: bytes) -> None:
    got = shown(raw)
    if not isinstance(got, ReplayError):  # a flip in a name, or in a digit of a score the viewer takes as recorded
        assert len(got) >= 3 and all(frames for frames in got)  # everyone's frames and each seat's, each from the deal on


def test_a_seat_recorded_as_true_is_refused_not_taken_for_seat_1() -> None:
    """Python takes JSON's true for 1: a compact replay with one such seat was re-played, and a TypeError from
    the protocol's encoder escaped as a traceback (a whole one was re-played with true as seat 1)."""
    for compact in (True, False):
        data = json.loads(replay("generals-war", compact))
        step = next(s for s in data["actions"] if s["seat"] == 1)
        step["seat"] = True
        with pytest.raises(ReplayError, match="action .* is refused: its seat True is not a whole number"):
            build_frames(parse_replay(json.dumps(data).encode(), "r.json"), ALL)


@pytest.mark.parametrize("seat", ["[/x]", True, 1.0, "1", None, [1]], ids=["markup", "true", "float", "text", "null", "list"])
def test_arena_replay_says_a_seat_that_is_no_whole_number_in_one_line(tmp_path: Path, seat: Any) -> None:
    """A seat of "[/x]" was read by rich as a closing tag: MarkupError, a traceback, in place of the error."""
    data = json.loads(replay("generals-war", False))
    data["actions"][0]["seat"] = seat
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data))
    for args in (["--no-browser"], ["--text"]):
        result = runner.invoke(app, ["replay", str(path), *args])
        assert result.exit_code == 2 and isinstance(result.exception, SystemExit), result.output
        assert result.output.splitlines() == [f"error: action 0 of seat {seat} is refused: its seat {seat!r} is not a whole number"]


@settings(FUZZ, max_examples=25)
@given(st.one_of(damaged(), retyped().map(lambda case: case[3])))
def test_arena_replay_refuses_a_broken_file_in_one_line(raw: bytes) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "r.json"
        path.write_bytes(raw)
        try:
            build_frames(load_replay(path), ALL)
            return  # shown: the served viewer would show it
        except ReplayError as exc:
            said = str(exc)
        for args in (["--no-browser", "--port", "0"], ["--text"], ["--text", "--seat", "0"]):
            result = runner.invoke(app, ["replay", str(path), *args])
            assert result.exit_code == 2 and isinstance(result.exception, SystemExit), result.output
            lines = result.output.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith("error: "), result.output
        assert said in runner.invoke(app, ["replay", str(path), "--no-browser"]).output.replace("\n", "")
