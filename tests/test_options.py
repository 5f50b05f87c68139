"""Game options from a game's metadata: each value is coerced to the option's type and kept in its bounds."""

from __future__ import annotations

import dataclasses

import pytest

from referee.core.game import OptionError, OptionSpec
from referee.games.registry import GAMES

ROUNDS = OptionSpec("rounds", 4, "Rounds.", minimum=1, maximum=20)
FLAG = OptionSpec("bad_cop", True, "A switch.")
STYLE = OptionSpec("style", "plain", "A choice.", choices=("plain", "fancy"))


@pytest.mark.parametrize("raw,value", [(1, 1), (20, 20), ("1", 1), (" 20 ", 20), ("+7", 7), (7, 7)])
def test_a_whole_number_within_the_bounds_is_taken(raw: object, value: int) -> None:
    assert ROUNDS.parse(raw) == value
    assert type(ROUNDS.parse(raw)) is int


@pytest.mark.parametrize("raw,message", [(0, "at least 1, not 0"), ("0", "at least 1"), (21, "at most 20, not 21"), ("-3", "at least 1")])
def test_a_number_out_of_range_is_refused(raw: object, message: str) -> None:
    with pytest.raises(OptionError, match=message):
        ROUNDS.parse(raw)


@pytest.mark.parametrize("raw", [True, False, "True", "1.5", "１", "1_0", "", "four", 2.0])
def test_what_is_not_a_whole_number_in_ascii_digits_is_refused(raw: object) -> None:
    with pytest.raises(OptionError, match="takes a whole number"):
        ROUNDS.parse(raw)


@pytest.mark.parametrize("raw", ["1", "true", "TRUE", "yes", "on", True])
def test_true_is_spelled_several_ways(raw: object) -> None:
    assert OptionSpec("f", False, "A switch.").parse(raw) is True


@pytest.mark.parametrize("raw", ["0", "false", "No", "off", False])
def test_false_is_spelled_several_ways(raw: object) -> None:
    assert FLAG.parse(raw) is False


@pytest.mark.parametrize("raw", ["2", "maybe", "", 1.0])
def test_a_switch_refuses_anything_else(raw: object) -> None:
    with pytest.raises(OptionError, match="takes true or false"):
        FLAG.parse(raw)


def test_a_choice_must_be_one_of_those_listed() -> None:
    assert STYLE.parse("fancy") == "fancy"
    with pytest.raises(OptionError, match="one of plain, fancy, not 'Fancy'"):
        STYLE.parse("Fancy")
    assert OptionSpec("name", "x", "Free text.").parse(12) == "12"


def test_a_games_options_are_its_defaults_overlaid_with_those_given() -> None:
    spec = GAMES["glory"].spec
    assert spec.resolve_options() == {"rounds": 4, "max_extra_rounds": 10}
    assert spec.resolve_options({"rounds": "6"}) == {"rounds": 6, "max_extra_rounds": 10}
    assert GAMES["assassination"].spec.resolve_options({"bad_cop": "off"})["bad_cop"] is False


def test_an_unknown_or_bad_option_of_a_game_is_refused() -> None:
    spec = GAMES["glory"].spec
    with pytest.raises(OptionError, match="glory has no option 'round' .options: max_extra_rounds, rounds"):
        spec.resolve_options({"round": 3})
    with pytest.raises(OptionError, match="at most 20"):
        spec.resolve_options({"rounds": 21})
    with pytest.raises(OptionError, match="at most 20"):
        GAMES["glory"](4, 1, {"rounds": "21"})


def test_a_game_is_played_only_by_its_numbers_of_players() -> None:
    cls = GAMES["generals-war"]
    for n in range(0, 8):
        if n in cls.spec.player_counts:
            assert cls(n, 1).num_players == n
        else:
            with pytest.raises(OptionError, match=f"played by .* players, not {n}"):
                cls(n, 1)


@pytest.mark.parametrize("counts,said", [((2,), "2"), ((2, 4), "2 or 4"), ((2, 3, 5), "2, 3 or 5"), ((2, 3, 4), "2 to 4"), ((3, 4, 5, 6), "3 to 6")])
def test_the_player_counts_are_said_as_a_person_would(counts: tuple[int, ...], said: str) -> None:
    """The refusal of a wrong count read "played by 2, 3, 4, 5, 6 players"."""
    spec = dataclasses.replace(GAMES["glory"].spec, player_counts=counts)
    assert spec.players_text == said
    with pytest.raises(OptionError, match=f"^glory is played by {said} players, not 7$"):
        spec.check_players(7)


def test_a_value_is_shown_as_a_user_types_it() -> None:
    assert [FLAG.typed(True), FLAG.typed(False), ROUNDS.typed(7), STYLE.typed("fancy")] == ["true", "false", "7", "fancy"]
    assert FLAG.parse(FLAG.typed(False)) is False and ROUNDS.parse(ROUNDS.typed(7)) == 7
