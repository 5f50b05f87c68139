"""The rewrite that gives dataclasses constructors mypyc compiles (referee/native_records.py)."""

from __future__ import annotations

import ast
import dataclasses
import pickle
import sys
import textwrap
from types import ModuleType
from typing import Any

import pytest

from referee.native_records import with_native_constructors

SOURCE = textwrap.dedent(
    '''
    from __future__ import annotations

    from dataclasses import dataclass, field
    from typing import ClassVar


    @dataclass(frozen=True)
    class Frozen:
        """Kept."""

        a: int
        b: tuple[int, ...] = ()
        limit: ClassVar[int] = 3

        def total(self) -> int:
            return self.a + sum(self.b)


    @dataclass
    class Mutable:
        a: int
        b: str | None = None


    @dataclass(frozen=True)
    class Empty:
        pass


    @dataclass
    class Factory:
        a: list[int] = field(default_factory=list)


    @dataclass(frozen=True)
    class Own:
        a: int

        def __post_init__(self) -> None:
            pass


    @dataclass(
        frozen=True,
    )
    class Spread:
        a: int


    class NotARecord:
        a: int = 1
    '''
)


def classes(source: str) -> dict[str, ast.ClassDef]:
    return {node.name: node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.ClassDef)}


def methods(node: ast.ClassDef) -> list[str]:
    return [s.name for s in node.body if isinstance(s, ast.FunctionDef)]


def run(source: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """``source`` as a module registered under its name, so that dataclasses and pickle can find its classes."""
    module = ModuleType("rewritten_records")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    exec(compile(source, module.__name__, "exec"), module.__dict__)  # noqa: S102 - the test's own source, rewritten
    return module.__dict__


def test_plain_dataclasses_get_a_written_constructor_and_reduce() -> None:
    out = with_native_constructors(SOURCE)
    made = classes(out)
    for name in ("Frozen", "Mutable", "Empty"):
        assert methods(made[name])[-2:] == ["__init__", "__reduce__"], name
    assert "@dataclass(frozen=True, init=False)\nclass Frozen:" in out
    assert "@dataclass(init=False)\nclass Mutable:" in out
    assert "def __init__(self, a: int, b: tuple[int, ...] = ()) -> None:" in out, "ClassVars are not fields"
    assert "self.a = a  # type: ignore[misc]" in out, "mypy reads a frozen record's fields as read-only"
    assert "self.b = b\n" in out, "a mutable record's fields are assigned plainly"


def test_classes_whose_construction_is_not_plain_are_left_as_they_are() -> None:
    out = with_native_constructors(SOURCE)
    before, after = classes(SOURCE), classes(out)
    for name in ("Factory", "Own", "Spread", "NotARecord"):
        assert ast.dump(after[name]) == ast.dump(before[name]), name
    assert with_native_constructors("x = 1\n") == "x = 1\n"


def test_the_written_methods_build_equal_records_that_pickle(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run by the interpreter, where only a mutable record can take them (the compiled build runs them all)."""
    source = with_native_constructors(SOURCE.replace("@dataclass(frozen=True)\nclass Frozen", "@dataclass\nclass Frozen"))
    ns = run(source, monkeypatch)
    frozen, mutable = ns["Frozen"], ns["Mutable"]
    record = frozen(1, (2, 3))
    assert record == frozen(a=1, b=(2, 3)) and record.total() == 6 and frozen(1).b == ()
    assert repr(mutable(4)) == "Mutable(a=4, b=None)"
    assert [f.name for f in dataclasses.fields(frozen)] == ["a", "b"]
    assert pickle.loads(pickle.dumps(mutable(4, "x"))) == mutable(4, "x")
    assert pickle.loads(pickle.dumps(ns["Empty"]())) == ns["Empty"]()
