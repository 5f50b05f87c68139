"""The faster __init__ of frozen dataclasses builds the same objects the generated one did; LastBuilt rebuilds on a new key only."""

from __future__ import annotations

import copy
import dataclasses
import itertools
import pickle
import random
import sys
from collections.abc import Iterator
from types import ModuleType
from dataclasses import dataclass, field
from typing import Any

import pytest

from referee.compiled import in_use
from referee.core.records import LastBuilt, quicken, quicken_module
from referee.games.glory.types import AttackKing, Discard
from referee.games.registry import GAMES
from tests.support import CONFIGS


@dataclass(frozen=True)
class Plain:
    a: int
    b: tuple[int, ...]
    c: str = "x"
    d: int | None = None
    self: int = 0


@dataclass(frozen=True)
class Reference:  # the same fields, left as dataclasses made it
    a: int
    b: tuple[int, ...]
    c: str = "x"
    d: int | None = None
    self: int = 0


assert quicken(Plain)


def test_instances_equal_hash_print_and_refuse_writes_as_before() -> None:
    for args, kwargs in [((1, (2,)), {}), ((1, (2,), "y"), {}), ((1,), {"b": (), "d": 4, "self": 5})]:
        mine, theirs = Plain(*args, **kwargs), Reference(*args, **kwargs)  # type: ignore[arg-type]
        assert dataclasses.astuple(mine) == dataclasses.astuple(theirs)
        assert repr(mine).replace("Plain", "Reference") == repr(theirs)
        assert hash(mine) == hash(Plain(*args, **kwargs))  # type: ignore[arg-type]
        assert mine == Plain(*args, **kwargs) and mine != Plain(9, ())  # type: ignore[arg-type]
        with pytest.raises(dataclasses.FrozenInstanceError):
            mine.a = 5  # type: ignore[misc]
        assert dataclasses.replace(mine, a=7).a == 7
        assert pickle.loads(pickle.dumps(mine)) == mine


def test_wrong_arguments_still_fail_as_calls_do() -> None:
    with pytest.raises(TypeError):
        Plain()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Plain(1, (), "y", 2, 3, 4)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Plain(1, (), e=3)  # type: ignore[call-arg]


def test_classes_whose_init_does_more_are_left_alone() -> None:
    @dataclass(frozen=True)
    class Factory:
        a: list[int] = field(default_factory=list)

    @dataclass(frozen=True)
    class Post:
        a: int

        def __post_init__(self) -> None:
            object.__setattr__(self, "a", self.a * 2)

    @dataclass(frozen=True, slots=True)
    class Slotted:
        a: int

    @dataclass
    class Mutable:
        a: int

    @dataclass(frozen=True)
    class KeywordOnly:
        a: int = 0
        b: int = field(kw_only=True)

    @dataclass(frozen=True)
    class Computed:
        a: int
        b: int = field(init=False, default=7)

    @dataclass(frozen=True, init=False)
    class OwnInit:
        a: int

        def __init__(self, text: str) -> None:
            object.__setattr__(self, "a", int(text))

    for cls in (Factory, Post, Slotted, Mutable, KeywordOnly, Computed, OwnInit):
        before = cls.__init__
        assert not quicken(cls), cls
        assert cls.__init__ is before
    assert Post(2).a == 4
    assert KeywordOnly(b=2) == KeywordOnly(0, b=2)
    with pytest.raises(TypeError):
        KeywordOnly(1, 2)  # type: ignore[call-arg]
    assert Computed(1).b == 7 and OwnInit("12").a == 12


def test_a_class_whose_instances_have_no_dict_is_left_alone() -> None:
    """Instances of a slotted class under a plain one keep a ``__dict__``, yet its own fields live in slots;
    a class without ``__slots__`` whose instances have no ``__dict__`` is what mypyc compiles."""

    @dataclass(frozen=True)
    class Base:
        a: int

    @dataclass(frozen=True, slots=True)
    class SlottedChild(Base):
        b: int

    @dataclass(frozen=True, slots=True)
    class Compiledish:
        a: int

    del Compiledish.__slots__  # as a compiled class: no __slots__ entry, instances without a __dict__
    for cls in (SlottedChild, Compiledish):
        assert not quicken(cls), cls
    assert SlottedChild(1, 2).b == 2 and Compiledish(3).a == 3


def test_quicken_module_changes_only_the_modules_own_classes_and_counts_them() -> None:
    module = ModuleType("tests.quicken_sample")
    module.Reference = Reference  # type: ignore[attr-defined]  # imported from elsewhere: not this module's to change
    before = Reference.__init__
    sys.modules[module.__name__] = module
    try:
        exec(  # noqa: S102 - a module made for the test
            "from dataclasses import dataclass\n"
            "@dataclass(frozen=True)\nclass Own:\n    a: int\n"
            "@dataclass(frozen=True)\nclass AlsoOwn:\n    a: int\n    b: int = 2\n",
            module.__dict__,
        )
        assert quicken_module(module.__name__) == 2
    finally:
        del sys.modules[module.__name__]
    assert Reference.__init__ is before
    assert "__quick_dict__" in module.Own.__init__.__code__.co_varnames
    assert module.AlsoOwn(1) == module.AlsoOwn(1, 2)


def test_the_games_types_are_quickened_unless_compiled() -> None:
    """Compiled, the records have the constructor referee/native_records.py writes instead (tests/test_compiled.py)."""
    code = getattr(Discard.__init__, "__code__", None)  # a compiled constructor has no Python code
    assert (code is not None and "__quick_dict__" in code.co_varnames) != in_use()
    assert AttackKing(1, (2,), ()) == AttackKing(target=1, card_ids=(2,), money_ids=())


def records_of_a_match(game_id: str, n: int, seed: int) -> Iterator[Any]:
    """Every view, decision, listed action, event and payload, and the result, of one random match."""
    game = GAMES[game_id](n, seed)
    rng = random.Random(seed)
    while game.to_act():
        seat = rng.choice(game.to_act())
        yield game.view(seat)
        yield game.decision(seat)
        yield from game.listing(seat, 8) or ()
        action = game.random_action(seat, rng)
        yield action
        for event in game.apply(seat, action):
            yield event
            yield event.payload
    yield game.result()


@pytest.mark.parametrize("game_id,n", CONFIGS)
def test_records_compare_hash_copy_pickle_and_refuse_writes_in_either_build(game_id: str, n: int) -> None:
    """The same behaviour whether ``quicken`` or the compiled build's written constructors made them."""
    seen = 0
    for record in itertools.islice(records_of_a_match(game_id, n, 3), 0, None, 7):
        fields = dataclasses.fields(record)
        again = type(record)(**{f.name: getattr(record, f.name) for f in fields})
        assert again == record and hash(again) == hash(record) and again is not record
        assert repr(again) == repr(record) and repr(record).startswith(type(record).__name__ + "(")
        assert pickle.loads(pickle.dumps(record)) == record
        assert copy.copy(record) == record and copy.deepcopy(record) == record
        assert dataclasses.replace(record) == record
        for f in fields[:1]:
            with pytest.raises(dataclasses.FrozenInstanceError):
                setattr(record, f.name, getattr(record, f.name))
        seen += 1
    assert seen > 20


def test_last_built_rebuilds_a_seats_record_only_when_its_key_changes() -> None:
    built: list[tuple[int, tuple[int, ...]]] = []

    def build(seat: int, key: tuple[int, ...]) -> Plain:
        built.append((seat, key))
        return Plain(seat, key)

    last: LastBuilt[tuple[int, ...], Plain] = LastBuilt(2)
    first = last.get(0, (1, 2), build)
    assert last.get(0, (1, 2), build) is first
    assert last.get(1, (1, 2), build) is not first, "each seat keeps its own"
    changed = last.get(0, (1, 3), build)
    assert changed == Plain(0, (1, 3))
    assert last.get(0, (1, 2), build) == first and built == [(0, (1, 2)), (1, (1, 2)), (0, (1, 3)), (0, (1, 2))]
