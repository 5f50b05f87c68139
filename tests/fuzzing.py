"""Shared pieces of the input fuzz tests (tests/test_input_fuzz_*.py): their settings, and one value of a JSON
document changed or dropped."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

#: As tests/conformance/test_rules_contract.py: the same examples every run, no example database, no deadline.
FUZZ = settings(derandomize=True, database=None, deadline=None, suppress_health_check=list(HealthCheck))


def json_places(value: Any, items: int | None = None, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The path to every value inside ``value``; of a list, every item, or (``items``) its first few and its last."""
    out = [at] if at else []
    if isinstance(value, dict):
        for key, inner in value.items():
            out += json_places(inner, items, (*at, key))
    elif isinstance(value, list):
        chosen = range(len(value)) if items is None else sorted({*range(min(items, len(value))), len(value) - 1} - {-1})
        for i in chosen:
            out += json_places(value[i], items, (*at, i))
    return out


@st.composite
def one_value_changed(draw: st.DrawFn, value: Any, junk: st.SearchStrategy[Any], items: int | None = None) -> tuple[tuple[Any, ...], Any]:
    """A copy of the JSON document ``value`` with one value in it replaced by ``junk`` (or, one time in five, dropped),
    and the path to it."""
    value = json.loads(json.dumps(value))
    where = draw(st.sampled_from(json_places(value, items)))
    parent = value
    for key in where[:-1]:
        parent = parent[key]
    if draw(st.integers(0, 4)) == 0:
        del parent[where[-1]]
    else:
        parent[where[-1]] = draw(junk)
    return where, value
