"""Game options fuzzed: every game's metadata says what it takes, and whatever else it is given is refused by name.

Valid option dicts (each option in any of the spellings a user may type) create the game, which then plays;
anything else (an unknown name, a bool for a number, a float, None, a nested value, a number out of its bounds
or of thousands of digits) raises OptionError naming the option, never an error from deep inside, and `arena
match -o` says it in one line with exit code 2.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from arena.cli.main import app
from referee.core.game import OptionError, OptionSpec
from referee.games.registry import GAMES
from tests.fuzzing import FUZZ
from tests.support import SAMPLE_BOTS

runner = CliRunner()
RANDOM = str(SAMPLE_BOTS / "random")
STEPS = 30


def spelled(spec: OptionSpec) -> st.SearchStrategy[tuple[object, object]]:
    """(what is given, the value it means) for a valid value of ``spec``, in the spellings a user or a program gives."""
    if isinstance(spec.default, bool):
        true = st.sampled_from([True, "1", "true", "TRUE", "Yes", "on", 1])
        false = st.sampled_from([False, "0", "false", "No", "OFF", 0])
        return st.one_of(true.map(lambda raw: (raw, True)), false.map(lambda raw: (raw, False)))
    assert isinstance(spec.default, int) and spec.minimum is not None and spec.maximum is not None
    low, high = spec.minimum, spec.maximum

    def forms(n: int) -> st.SearchStrategy[tuple[object, object]]:
        texts = [str(n), f" {n} ", f"{'+' if n >= 0 else ''}{n}", f"{n:+04d}" if n >= 0 else str(n)]
        return st.sampled_from([n, *texts]).map(lambda raw: (raw, n))

    return st.integers(low, high).flatmap(forms)


def wrong(spec: OptionSpec) -> st.SearchStrategy[object]:
    """A value ``spec`` must refuse."""
    junk: list[st.SearchStrategy[Any]] = [
        st.none(),
        st.floats(allow_nan=True, allow_infinity=True),
        st.lists(st.integers(), max_size=3),
        st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
        st.recursive(st.lists(st.integers(), max_size=1), lambda inner: st.lists(inner, min_size=1, max_size=1), max_leaves=50),
        st.text(alphabet=st.characters(blacklist_characters="0123456789"), min_size=1, max_size=20).filter(
            lambda t: t.strip().lower() not in ("1", "true", "yes", "on", "0", "false", "no", "off")
        ),
        st.sampled_from(["1.5", "1e3", "1_0", "１", "٣", "0x10", "", "  ", "2 3", "++1", "--1", "1-"]),
        st.integers(10**4300, 10**4400),  # str() of these raises ValueError
        st.integers(-(10**4400), -(10**4300)),
        st.just("9" * 5000),
        st.just("-" + "0" * 5000 + "1"),
    ]
    if isinstance(spec.default, bool):
        junk.append(st.integers().filter(lambda n: n not in (0, 1)))
    else:
        assert spec.minimum is not None and spec.maximum is not None
        junk += [
            st.booleans(),
            st.integers(max_value=spec.minimum - 1),
            st.integers(min_value=spec.maximum + 1),
            st.integers(max_value=spec.minimum - 1).map(str),
            st.integers(min_value=spec.maximum + 1).map(lambda n: f" +{n}"),
        ]
    return st.one_of(junk)


@st.composite
def valid_options(draw: st.DrawFn) -> tuple[str, int, dict[str, object], dict[str, object]]:
    """A game, its player count, the options given and the values they mean."""
    game_id = draw(st.sampled_from(list(GAMES)))
    spec = GAMES[game_id].spec
    n = draw(st.sampled_from(spec.player_counts))
    chosen = draw(st.lists(st.sampled_from(spec.options), unique_by=lambda o: o.name))
    given, meant = {}, {}
    for option in chosen:
        given[option.name], meant[option.name] = draw(spelled(option))
    return game_id, n, given, meant


@st.composite
def invalid_options(draw: st.DrawFn) -> tuple[str, dict[str, object], str]:
    """A game, options holding one that is wrong (and maybe valid others), and the name the error must say."""
    game_id = draw(st.sampled_from(list(GAMES)))
    spec = GAMES[game_id].spec
    given: dict[str, object] = {}
    for option in draw(st.lists(st.sampled_from(spec.options), unique_by=lambda o: o.name)):
        given[option.name] = draw(spelled(option))[0]
    known = {o.name for o in spec.options}
    if draw(st.booleans()):
        name = draw((st.text(max_size=30) | st.sampled_from(["[/x]", "[red]r", "[/]", "a\nb"])).filter(lambda t: t not in known))
        value: object = draw(st.one_of(st.integers(), st.text(max_size=5), st.none()))
    else:
        option = draw(st.sampled_from(spec.options))
        name, value = option.name, draw(wrong(option))
    given[name] = value
    return game_id, given, name


@FUZZ
@given(valid_options(), st.integers(0, 2**31 - 1))
def test_valid_options_in_any_spelling_make_the_game_which_plays(case: tuple[str, int, dict[str, object], dict[str, object]], seed: int) -> None:
    game_id, n, given, meant = case
    cls = GAMES[game_id]
    game = cls(n, seed, given)
    assert game.options == {**{o.name: o.default for o in cls.spec.options}, **meant}
    assert all(type(game.options[o.name]) is type(o.default) for o in cls.spec.options)
    rng = random.Random(seed)
    for _ in range(STEPS):
        acting = game.to_act()
        if not acting:
            break
        seat = rng.choice(acting)
        game.apply(seat, game.random_action(seat, rng))


def refused(game_id: str, given: dict[str, object]) -> str:
    with pytest.raises(OptionError) as caught:
        GAMES[game_id].spec.resolve_options(given)
    return str(caught.value)


@FUZZ
@given(invalid_options())
def test_an_option_wrong_in_any_way_is_refused_by_name(case: tuple[str, dict[str, object], str]) -> None:
    game_id, given, name = case
    message = refused(game_id, given)
    assert repr(name) in message and "\n" not in message
    n = GAMES[game_id].spec.player_counts[0]
    with pytest.raises(OptionError, match="option"):
        GAMES[game_id](n, 1, given)


@pytest.mark.parametrize("raw", ["9" * 5000, "-" + "0" * 5000 + "3", 10**5000, -(10**5000)], ids=["text", "zeros", "int", "negative"])
def test_a_number_of_thousands_of_digits_is_refused_as_an_option_error(raw: object) -> None:
    """Past 4300 digits int() and str() raise ValueError: `arena match -o rounds=999…` printed a traceback."""
    for game_id in ("glory", "assassination"):  # a number option and a switch
        for option in GAMES[game_id].spec.options:
            message = refused(game_id, {option.name: raw})
            assert repr(option.name) in message and len(message) < 200


def test_leading_zeros_and_signs_do_not_change_a_number() -> None:
    rounds = GAMES["glory"].spec.options[0]
    assert [rounds.parse(raw) for raw in ["0" * 200 + "7", " +07 ", "+" + "0" * 150 + "3"]] == [7, 7, 3]
    with pytest.raises(OptionError, match="at least 1, not -2"):
        rounds.parse("-" + "0" * 300 + "2")


def cli_text(value: object) -> str:
    """``value`` as it arrives from a command line: text (without the NUL no argument can hold)."""
    if isinstance(value, int) and value.bit_length() > 10_000:  # str() refuses it: typed, it is thousands of digits
        return "-" * (value < 0) + "9" * 5000
    return str(value).replace("\0", "")


@settings(FUZZ, max_examples=40)
@given(invalid_options())
def test_match_refuses_a_wrong_option_in_one_line_with_code_2(case: tuple[str, dict[str, object], str]) -> None:
    game_id, given, name = case
    pairs = [f"{k}={cli_text(v)}" for k, v in given.items()]
    stripped = {k.strip(): cli_text(v).strip() for k, v in given.items()}
    if not name.strip() or "=" in name or len(stripped) < len(given):
        return  # not this option's error: parse_options' own, tested below
    try:
        GAMES[game_id].spec.resolve_options(stripped)
        return  # as text it is valid: 1 for a switch, [] stripped of nothing… (the command line has only text)
    except OptionError as exc:
        said = str(exc)
    bots = [RANDOM] * GAMES[game_id].spec.player_counts[0]
    result = runner.invoke(app, ["match", game_id, *bots] + [a for p in pairs for a in ("-o", p)])
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit)
    assert result.output.strip().splitlines() == [f"error: {said}"]


@pytest.mark.parametrize(
    "pairs,message",
    [
        (["rounds"], "--option takes NAME=VALUE"),
        (["=3"], "--option takes NAME=VALUE"),
        (["rounds=3", " rounds =4"], "--option rounds is given twice"),
        (["rounds=" + "9" * 5000], "at most 100 digits"),
        (["rounds=" + "0" * 5000 + "3", "max_extra_rounds=1e3"], "'max_extra_rounds' takes a whole number"),
        (["[/x]=1"], "glory has no option '[/x]'"),  # rich read it as a closing tag: MarkupError, a traceback
        (["rounds=[red]x"], "takes a whole number, not '[red]x'"),  # rich ate "[red]" as markup
    ],
)
def test_match_refuses_a_malformed_option_in_one_line(pairs: list[str], message: str) -> None:
    result = runner.invoke(app, ["match", "glory", RANDOM, RANDOM] + [a for p in pairs for a in ("-o", p)])
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), result.output
    assert len(result.output.strip().splitlines()) == 1 and message in result.output, result.output
