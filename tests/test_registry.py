"""The game registry: every game by id, each imported only when it is asked for."""

from __future__ import annotations

import subprocess
import sys

import pytest

from referee.core.game import OptionError
from referee.games import registry
from referee.games.registry import GAMES, game_class


def test_every_game_is_registered_under_its_own_id() -> None:
    assert list(GAMES) == list(registry._WHERE)
    for game_id, cls in GAMES.items():
        assert cls.spec.id == game_id
        assert game_class(game_id) is cls


def test_an_unknown_id_is_a_clear_error() -> None:
    assert "chess" not in GAMES
    with pytest.raises(KeyError):
        GAMES["chess"]
    with pytest.raises(OptionError, match="unknown game 'chess' .*generals-war"):
        game_class("chess")


def test_a_class_registered_under_another_id_is_refused() -> None:
    wrong = registry._Registry({"glory": ("referee.games.generals_war", "GeneralsWar")})
    with pytest.raises(RuntimeError, match="is game 'generals-war', registered as 'glory'"):
        wrong["glory"]


def test_listing_the_ids_imports_no_game_and_asking_for_one_imports_that_one() -> None:
    """A fresh interpreter, since this one has imported every game already."""
    script = (
        "import sys\n"
        "from referee.games.registry import GAMES\n"
        "ids = ', '.join(GAMES) + str(len(GAMES)) + str('glory' in GAMES)\n"
        "def games(): return sorted({m.split('.')[2] for m in sys.modules if m.startswith('referee.games.') and m != 'referee.games.registry'})\n"
        "before = games()\n"
        "GAMES['glory']\n"
        "print(before, games())\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[] ['glory']"
