"""Every numbered ruling in docs/games/<game>.md has a test named after it.

A ruling is a line ``GW-7. ...``; a test of it is named ``test_gw7_...`` (several rulings: ``test_gw6_and_gw7_...``,
``test_as10_as11_...``) in one of the game's test files, ``tests/games/test_<module>*.py``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from referee.games.registry import GAMES

ROOT = Path(__file__).resolve().parents[2]


def rulings(doc: str) -> tuple[str, set[int]]:
    """The rulings' prefix (``GW``) and numbers in a game's document."""
    found = re.findall(r"^([A-Z]+)-(\d+)\. ", doc, re.M)
    prefixes = {prefix for prefix, _ in found}
    assert len(prefixes) == 1, f"one prefix per document, not {sorted(prefixes)}"
    return prefixes.pop(), {int(n) for _, n in found}


def named_in_tests(prefix: str, sources: list[str]) -> set[int]:
    """The ruling numbers named by the tests' function names."""
    p = prefix.lower()
    numbers: set[int] = set()
    for name in re.findall(r"^def (test_\w+)\(", "\n".join(sources), re.M):
        numbers |= {int(n) for n in re.findall(rf"(?<=_){p}(\d+)(?=_)", name + "_")}
    return numbers


@pytest.mark.parametrize("game", list(GAMES))
def test_every_ruling_is_numbered_in_order_and_has_a_test(game: str) -> None:
    module = GAMES[game].__module__.split(".")[2]
    prefix, numbers = rulings((ROOT / "docs" / "games" / f"{game}.md").read_text())
    assert numbers == set(range(1, max(numbers) + 1)), "rulings numbered 1 to n without gaps"
    sources = [p.read_text() for p in sorted((ROOT / "tests" / "games").glob(f"test_{module}*.py"))]
    assert sources, f"no test files for {game}"
    assert numbers - named_in_tests(prefix, sources) == set(), f"rulings of {game} without a test named after them"


def test_a_test_named_after_two_rulings_counts_for_both() -> None:
    assert named_in_tests("GW", ["def test_gw6_and_gw7_x() -> None:", "def test_gw10_y():", "def test_gwx1_z():"]) == {6, 7, 10}
