"""Replay files (referee/server/replay.py): what a replay keeps of its match, and the damaged or foreign files it refuses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from referee.games.registry import GAMES
from referee.server.frames import ALL, build_frames
from referee.server.inprocess import play
from referee.server.replay import ReplayError, load_replay, parse_replay, replay_dict, replay_game
from tests.support import load_bot_class
from tests.test_session import driver_answers, run_session, silent

RandomBot = load_bot_class("random", "RandomBot")


def compact_replay() -> dict[str, Any]:
    record = play(GAMES["generals-war"](2, 3), [RandomBot(1), RandomBot(2)])
    return replay_dict(record, compact=True)


def test_a_replay_holds_the_match_s_result() -> None:
    record = play(GAMES["glory"](3, 2), [RandomBot(1), RandomBot(2), RandomBot(3)])
    for compact in (False, True):
        data = replay_dict(record, compact)
        assert data["game_result"] == {"ranks": list(record.game_result.ranks), "scores": list(record.game_result.scores)}
        assert [(s["rank"], s["score"]) for s in data["seats"]] == [(s.rank, s.score) for s in record.result.seats]


def test_a_match_with_options_is_replayed_with_them() -> None:
    """Options left out of the replay re-play another match: the ladder's compact replays were refused on reading."""
    options = {"conquest_points": 2}
    record = play(GAMES["generals-war"](2, 5, options), [RandomBot(1), RandomBot(2)])
    assert record.game.options != GAMES["generals-war"](2, 5).options
    compact = replay_dict(record, compact=True)
    assert compact["options"] == record.game.options
    whole = parse_replay(json.dumps(compact).encode(), "r.json")
    assert whole["final_state"] == json.loads(json.dumps(record.game.full_state()))
    game, _ = replay_game(json.loads(json.dumps(replay_dict(record))))
    assert game.options == record.game.options


def test_the_steps_the_referee_played_for_a_seat_stay_marked_in_the_replay_and_its_frames() -> None:
    record, _ = run_session([silent, driver_answers(3)])
    data = json.loads(json.dumps(replay_dict(record)))
    assert [step["auto"] for step in data["actions"]] == [a.auto for a in record.actions]
    assert any(a.auto for a in record.actions) and not all(a.auto for a in record.actions)
    for seat in (ALL, 0, 1):
        frames = build_frames(data, seat)["frames"][1:]
        assert [f["auto"] for f in frames] == [a.auto for a in record.actions]
        # what the referee played for seat 0 is seat 0's as much as its own actions: seat 1 sees only that it acted
        assert [("action" in f) for f in frames] == [seat in (ALL, a.seat) for a in record.actions]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.pop("seed"), "no seed"),  # a KeyError traceback
        (lambda d: d.__setitem__("actions", [7]), "action 0 of seat None is refused"),  # a TypeError traceback
        (lambda d: d.__setitem__("game_result", [1, 2]), "result differs"),  # an AttributeError traceback
        (lambda d: d["seats"][0].__setitem__("verdicts", ["TIMEOUT"]), "its seats are not a list"),  # the summary's traceback
        (lambda d: d.__setitem__("format", "other-replay"), "not an arena replay"),  # another tool's file, of the same version
        (lambda d: d.__setitem__("compact", 1), "no events and is not compact"),  # only true marks a compact replay
        (lambda d: d.__setitem__("version", 3), "replay version 3 is not one of 1, 2"),  # a newer format, read as this one
        (lambda d: d.__setitem__("seats", 5), "its seats are not a list"),  # a TypeError traceback
    ],
)
def test_a_damaged_or_foreign_compact_replay_is_refused_saying_why(change: Any, message: str) -> None:
    data = compact_replay()
    change(data)
    with pytest.raises(ReplayError, match=message):
        parse_replay(json.dumps(data).encode(), "r.json")


def test_a_replay_whose_result_was_changed_does_not_re_play() -> None:
    record = play(GAMES["generals-war"](2, 3), [RandomBot(1), RandomBot(2)])
    data = json.loads(json.dumps(replay_dict(record)))
    data["game_result"]["ranks"] = list(reversed(data["game_result"]["ranks"]))
    assert data["game_result"]["ranks"] != list(record.game_result.ranks)
    with pytest.raises(ReplayError, match="result differs"):
        replay_game(data)


@pytest.mark.parametrize("seat", [0, -1])
def test_a_compact_replay_whose_scores_were_changed_does_not_re_play(seat: int) -> None:
    """A compact replay has no events to compare: its ranks and scores are what its re-play is checked against. Any
    seat's score changed (the ranks left as they were) is refused; a replay that records no scores is judged by its
    ranks."""
    data = compact_replay()
    parse_replay(json.dumps(data).encode(), "r.json")
    changed = json.loads(json.dumps(data))
    changed["game_result"]["scores"][seat] += 1
    with pytest.raises(ReplayError, match="scores differ"):
        parse_replay(json.dumps(changed).encode(), "r.json")
    del data["game_result"]["scores"]
    parse_replay(json.dumps(data).encode(), "r.json")


def test_a_folder_given_as_a_replay_is_refused_naming_it(tmp_path: Path) -> None:
    with pytest.raises(ReplayError, match=str(tmp_path)):
        load_replay(tmp_path)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["actions"].pop(), "result differs"),  # the match cut short: shown, its last frame not over
        (lambda d: d["game_result"]["scores"].__setitem__(0, d["game_result"]["scores"][0] + 1), "scores differ"),
    ],
    ids=["an-action-cut", "a-score-changed"],
)
def test_the_viewer_refuses_a_compact_replay_that_does_not_re_play(tmp_path: Path, change: Any, message: str) -> None:
    """The web viewer reads a compact replay as it is (no events to compare) and re-plays it for its frames: a replay cut
    short was shown as a match that never ended, and one whose scores were changed as it was, where `arena replay` and
    every other reader refuse both."""
    from referee.server.frames import FrameCache

    data = compact_replay()
    change(data)
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ReplayError, match=message):
        load_replay(path)
    with pytest.raises(ReplayError, match=message):
        FrameCache().frames(path, ALL)
