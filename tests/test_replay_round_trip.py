"""Replay files written and read back: a compact file reads as the whole replay, and files of no known shape are refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from referee.games.registry import GAMES
from referee.server.frames import ALL, build_frames
from referee.server.inprocess import play
from referee.server.replay import OtherRules, ReplayError, load_replay, parse_replay, replay_dict, replay_game, verdict_names, write_replay
from tests.support import load_bot_class
from tests.test_session import driver_answers, run_session, silent

RandomBot = load_bot_class("random", "RandomBot")


def test_a_compact_replay_file_holds_no_events_and_reads_back_as_the_whole_replay(tmp_path: Path) -> None:
    record = play(GAMES["generals-war"](2, 7), [RandomBot(1), RandomBot(2)])
    write_replay(record, tmp_path / "whole.json")
    write_replay(record, tmp_path / "compact.json", compact=True)
    raw = json.loads((tmp_path / "compact.json").read_text())
    assert raw["compact"] is True and "events" not in raw and "final_state" not in raw
    whole = load_replay(tmp_path / "whole.json")
    assert whole["events"] and whole["final_state"] == json.loads(json.dumps(record.game.full_state()))
    assert load_replay(tmp_path / "compact.json") == whole


def whole_replay() -> dict[str, Any]:
    return json.loads(json.dumps(replay_dict(play(GAMES["generals-war"](2, 3), [RandomBot(1), RandomBot(2)]))))


def test_the_viewer_refuses_a_replay_whose_result_was_changed() -> None:
    """The frames show the result the actions give: a file claiming another one is refused, not shown."""
    data = whole_replay()
    ranks = data["game_result"]["ranks"]
    data["game_result"]["ranks"] = list(reversed(ranks))
    assert data["game_result"]["ranks"] != ranks
    with pytest.raises(ReplayError, match="result differs"):
        build_frames(data, ALL)
    data["game_result"]["ranks"] = ranks
    assert build_frames(data, ALL)["frames"][-1]["result"]["ranks"] == ranks


def test_a_compact_replay_whose_actions_are_no_list_is_refused_even_by_a_reader_that_re_plays_it_later() -> None:
    """The viewer reads a compact replay without re-playing it (complete=False): {} would have shown the deal alone."""
    data = replay_dict(play(GAMES["generals-war"](2, 3), [RandomBot(1), RandomBot(2)]), compact=True)
    data["actions"] = {}
    with pytest.raises(ReplayError, match="its actions are not a list"):
        parse_replay(json.dumps(data).encode(), "r.json", complete=False)


def test_a_replay_whose_events_were_changed_does_not_re_play() -> None:
    data = whole_replay()
    game, produced = replay_game(json.loads(json.dumps(data)))
    assert produced == data["events"] and game.is_over()
    data["events"].pop()
    with pytest.raises(ReplayError, match=f"differ from the recorded ones from event {len(data['events'])} on"):
        replay_game(data)


def test_a_replay_that_does_not_re_play_under_older_rules_says_so_and_under_these_rules_is_damaged() -> None:
    """The ladder serves a replay of older rules as it was kept (OtherRules) and reports a damaged one (ReplayError)."""
    current = GAMES["generals-war"].spec.rules_version
    assert current > 1  # a replay without rules_version is of version 1: older rules
    data = replay_dict(play(GAMES["generals-war"](2, 3), [RandomBot(1), RandomBot(2)]), compact=True)
    assert data["rules_version"] == current
    data["game_result"]["ranks"].reverse()
    with pytest.raises(ReplayError, match="result differs") as damaged:
        parse_replay(json.dumps(data).encode(), "r.json")
    assert not isinstance(damaged.value, OtherRules)
    for older in ({"rules_version": 1}, {}):
        data.pop("rules_version", None)
        data.update(older)
        with pytest.raises(OtherRules, match=f"version 1 of the rules of generals-war, and this referee plays version {current}"):
            parse_replay(json.dumps(data).encode(), "r.json")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.__setitem__("num_players", 3), "cannot set the game up"),  # General's War is for 2 or 4: an OptionError
        (lambda d: d["actions"].__setitem__(1, d["actions"][0]), "action 1 of seat .* is refused"),  # the rules refuse it
    ],
)
def test_a_replay_the_rules_refuse_is_a_replay_error(change: Any, message: str) -> None:
    data = whole_replay()
    change(data)
    with pytest.raises(ReplayError, match=message):
        replay_game(data)


def test_a_replay_keeps_who_forfeited_and_every_verdict() -> None:
    record, _ = run_session([silent, driver_answers(3)])
    seats = json.loads(json.dumps(replay_dict(record)))["seats"]
    assert [s["forfeited"] for s in seats] == [True, False]
    assert [[v["kind"] for v in s["verdicts"]] for s in seats] == [verdict_names(r) for r in record.result.seats]
