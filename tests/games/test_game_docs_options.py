"""Each game's document (docs/games/<game>.md) states its options as the game's spec has them.

The "Options:" paragraph must name every option of ``GameSpec.options`` with its default and, where it has them,
its bounds (``(default 7, 1 to 100``), and no option the game does not have: the documents gave defaults without
the ranges `arena match -o` enforces, and one that drifted from the code would not be seen.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from referee.core.game import OptionSpec
from referee.games.registry import GAMES

ROOT = Path(__file__).resolve().parents[2]


def options_paragraph(doc: str) -> str:
    """The paragraph that starts with "Options:" (the empty string when there is none)."""
    found = re.search(r"^Options: .*?(?:\n\n|\Z)", doc, re.M | re.S)
    return found.group(0) if found else ""


def stated(option: OptionSpec) -> str:
    """How the paragraph must state one option: its name, its default, its bounds when it has both."""
    text = f"`{option.name}` (default {option.typed(option.default)}"
    if option.minimum is not None and option.maximum is not None:
        text += f", {option.minimum} to {option.maximum}"
    return text


@pytest.mark.parametrize("game", list(GAMES))
def test_each_game_document_states_its_options_as_the_spec_has_them(game: str) -> None:
    spec = GAMES[game].spec
    paragraph = " ".join(options_paragraph((ROOT / "docs" / "games" / f"{game}.md").read_text()).split())
    assert paragraph, f"docs/games/{game}.md has no 'Options:' paragraph"
    for option in spec.options:
        assert stated(option) in paragraph, f"docs/games/{game}.md should say {stated(option)!r}: {paragraph!r}"
    named = set(re.findall(r"`([a-z_]+)` \(default", paragraph))
    assert named == {o.name for o in spec.options}


def test_a_paragraph_with_a_wrong_default_or_no_range_does_not_pass() -> None:
    option = OptionSpec("rounds", 4, "rounds", minimum=1, maximum=20)
    assert stated(option) not in "Options: `rounds` (default 4) and more."
    assert stated(option) not in "Options: `rounds` (default 5, 1 to 20)."
    assert stated(option) in "Options: `rounds` (default 4, 1 to 20)."
    assert stated(OptionSpec("bad_cop", True, "bad cop")) == "`bad_cop` (default true"
    assert options_paragraph("# T\n\nOptions: `a` (default 1).\nmore\n\n## Next\n") == "Options: `a` (default 1).\nmore\n\n"
