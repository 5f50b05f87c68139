"""Behaviour is pinned by golden playthroughs (regenerate with ``python -m tests.golden_playthrough``)."""

from __future__ import annotations

import dataclasses
import json
import shutil
import sys
from pathlib import Path

import pytest

from referee.games.registry import GAMES
from tests.golden_playthrough import configs, path_for, playthrough, replays_otherwise, written_under


@pytest.mark.parametrize("game_id,n,seed", list(configs()))
def test_playthrough_matches_golden(game_id: str, n: int, seed: int) -> None:
    path = path_for(game_id, n, seed)
    assert path.exists(), f"no golden file {path}; run python -m tests.golden_playthrough {game_id}"
    expected = path.read_text().splitlines()
    actual = playthrough(game_id, n, seed)
    for i, (a, e) in enumerate(zip(actual, expected)):
        assert a == e, f"{path.name}: step line {i} differs; if the change is intended, regenerate the golden files"
    assert len(actual) == len(expected)


@pytest.mark.parametrize("game_id,n,seed", list(configs()))
def test_while_the_rules_version_holds_the_recorded_actions_re_play_to_the_recorded_events(game_id: str, n: int, seed: int) -> None:
    """What makes a replay's rules version honest: a change that makes (seed, actions) re-play otherwise raises it."""
    assert written_under().get(game_id) == GAMES[game_id].spec.rules_version, (
        f"{game_id}'s golden files were written under another rules version; regenerate them"
    )
    where = replays_otherwise(game_id, n, seed, path_for(game_id, n, seed).read_text().splitlines())
    assert where is None, f"{game_id}: the recorded actions re-play otherwise ({where}): raise its rules_version"


def test_regenerating_files_whose_actions_now_re_play_otherwise_is_refused_until_the_version_is_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests import golden_playthrough as golden

    game_id = "land-and-castle"
    shutil.copytree(golden.GOLDEN / game_id, tmp_path / game_id)
    monkeypatch.setattr(golden, "GOLDEN", tmp_path)
    monkeypatch.setattr(golden, "VERSIONS", tmp_path / "rules_versions.json")
    version = GAMES[game_id].spec.rules_version
    golden.VERSIONS.write_text(json.dumps({game_id: version}))
    # As if the files had been written under rules whose first action told something else than today's rules do.
    tampered = {}
    for g, n, seed in golden.configs():
        if g != game_id:
            continue
        path = golden.path_for(game_id, n, seed)
        lines = path.read_text().splitlines()
        step = json.loads(lines[1])
        step["events"] = step["events"][1:]
        lines[1] = json.dumps(step, sort_keys=True)
        path.write_text("\n".join(lines) + "\n")
        tampered[(n, seed)] = (path, lines[1])
    assert len(tampered) >= 2  # the second file is the one a version raised with the first must not refuse
    monkeypatch.setattr(sys, "argv", ["golden_playthrough", game_id])

    assert golden.main() == 1
    assert "raise the game's rules_version" in capsys.readouterr().err
    for path, line in tampered.values():
        assert path.read_text().splitlines()[1] == line  # left as it was
    monkeypatch.setattr(GAMES[game_id], "spec", dataclasses.replace(GAMES[game_id].spec, rules_version=version + 1))
    assert golden.main() == 0, capsys.readouterr().err
    for (n, seed), (path, _) in tampered.items():
        assert path.read_text().splitlines() == golden.playthrough(game_id, n, seed)
    assert json.loads(golden.VERSIONS.read_text()) == {game_id: version + 1}
