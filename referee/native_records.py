"""The source of a module, rewritten so that mypyc compiles its dataclasses' constructors.

mypyc compiles a dataclass into a native class but keeps the ``__init__``
that the ``dataclasses`` module generates, in Python, and that constructor
sets each field through the native class's descriptor: a three-field action
took 0.57 µs to build from compiled code, against 0.075 µs with an
``__init__`` written in the class, which mypyc compiles like any method. The
games build a score of records per decision, so ``arena compile``
(referee/compiled.py) passes every module it compiles through
``with_native_constructors``: each plain dataclass gets its ``__init__``
written out (``init=False`` tells ``dataclasses`` not to make one) and a
``__reduce__``, because a native class with its own ``__init__`` cannot be
rebuilt field by field as pickle and copy would.

The rewrite is for the compiled build only: the assignments in a frozen
class's ``__init__`` write the native fields directly, past the frozen
``__setattr__``, which in the interpreter would refuse them. A class is left
as it is when it declares its own ``__init__``, ``__post_init__`` or
``__reduce__``, has a base class, a field named ``self``, a default made
by ``field(...)``, ``init=False`` already, or a decorator written over several lines.
"""

from __future__ import annotations

import ast

_KEEP = ("__init__", "__post_init__", "__reduce__")


def _dataclass_decorator(node: ast.ClassDef) -> ast.expr | None:
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(target, ast.Name) and target.id == "dataclass":
            return decorator
    return None


def _is_pseudo_field(annotation: str) -> bool:
    return annotation.split("[", 1)[0].strip().rsplit(".", 1)[-1] in ("ClassVar", "InitVar")


def _constructor(
    node: ast.ClassDef, source: str
) -> tuple[ast.expr, str, list[tuple[str, str, str | None]], bool] | None:
    """(the decorator, its new text, the fields as (name, annotation, default), frozen), or None to leave the class."""
    decorator = _dataclass_decorator(node)
    if decorator is None or node.bases or node.keywords or decorator.end_lineno != decorator.lineno:
        return None
    keywords = decorator.keywords if isinstance(decorator, ast.Call) else []
    flags = {k.arg: k.value for k in keywords}
    if None in flags or "init" in flags:
        return None
    frozen_flag = flags.get("frozen")
    frozen = isinstance(frozen_flag, ast.Constant) and frozen_flag.value is True
    fields: list[tuple[str, str, str | None]] = []
    for statement in node.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and statement.name in _KEEP:
            return None
        if not isinstance(statement, ast.AnnAssign):
            continue
        if not isinstance(statement.target, ast.Name):
            return None
        annotation = ast.get_source_segment(source, statement.annotation)
        assert annotation is not None
        if _is_pseudo_field(annotation):
            continue
        default = None
        if statement.value is not None:
            if isinstance(statement.value, ast.Call):  # field(...), or a default computed by a call
                return None
            default = ast.get_source_segment(source, statement.value)
        if statement.target.id == "self":
            return None
        fields.append((statement.target.id, annotation, default))
    given = ast.get_source_segment(source, decorator)
    assert given is not None
    if isinstance(decorator, ast.Call):
        inside = given[given.index("(") + 1 : given.rindex(")")].strip()
        text = f"dataclass({inside + ', ' if inside else ''}init=False)"
    else:
        text = "dataclass(init=False)"
    return decorator, text, fields, frozen


def _methods(name: str, fields: list[tuple[str, str, str | None]], frozen: bool, indent: str) -> list[str]:
    ignore = "  # type: ignore[misc]" if frozen else ""  # mypy reads a frozen dataclass's fields as read-only
    params = "".join(f", {n}: {a}" + (f" = {d}" if d is not None else "") for n, a, d in fields)
    lines = [f"{indent}def __init__(self{params}) -> None:"]
    lines += [f"{indent}    self.{n} = {n}{ignore}" for n, _, _ in fields] or [f"{indent}    pass"]
    values = "".join(f"self.{n}, " for n, _, _ in fields)
    lines += [
        "",
        f"{indent}def __reduce__(self) -> tuple[type[{name}], tuple[object, ...]]:",
        f"{indent}    return (type(self), ({values}))",
    ]
    return lines


def with_native_constructors(source: str) -> str:
    """``source`` with each plain dataclass given a written ``__init__`` and ``__reduce__`` (see the module's docstring)."""
    tree = ast.parse(source)
    lines = source.splitlines()
    edits: list[tuple[int, ast.expr, str, list[str]]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        found = _constructor(node, source)
        if found is None:
            continue
        decorator, text, fields, frozen = found
        indent = " " * (node.col_offset + 4)
        assert node.end_lineno is not None
        edits.append((node.end_lineno, decorator, text, _methods(node.name, fields, frozen, indent)))
    for end, decorator, text, methods in sorted(edits, key=lambda e: e[0], reverse=True):
        lines[end:end] = ["", *methods]
        # A decorator on one line, above the class: editing it leaves the line numbers below as they are.
        row = decorator.lineno - 1
        lines[row] = lines[row][: decorator.col_offset] + text + lines[row][decorator.end_col_offset :]
    return "\n".join(lines) + ("\n" if source.endswith("\n") else "")
