"""Behaviour is pinned by golden playthroughs (regenerate with ``python -m tests.golden_playthrough``)."""

from __future__ import annotations

import pytest

from tests.golden_playthrough import configs, path_for, playthrough


@pytest.mark.parametrize("game_id,n,seed", list(configs()))
def test_playthrough_matches_golden(game_id: str, n: int, seed: int) -> None:
    path = path_for(game_id, n, seed)
    assert path.exists(), f"no golden file {path}; run python -m tests.golden_playthrough {game_id}"
    expected = path.read_text().splitlines()
    actual = playthrough(game_id, n, seed)
    for i, (a, e) in enumerate(zip(actual, expected)):
        assert a == e, f"{path.name}: step line {i} differs; if the change is intended, regenerate the golden files"
    assert len(actual) == len(expected)
