"""The generated stubs in arena/v1 match the .proto files, and every message and field is documented."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from typing import Any

from tests.support import ROOT


def test_generated_stubs_are_up_to_date() -> None:
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_proto.py"), "--check"], capture_output=True, text=True)
    assert result.returncode == 0, f"run `python scripts/gen_proto.py`:\n{result.stdout}{result.stderr}"


def test_every_message_field_and_enum_value_has_a_comment() -> None:
    undocumented: list[str] = []
    for path in sorted((ROOT / "proto").rglob("*.proto")):
        lines = path.read_text().splitlines()
        for i, line in enumerate(lines):
            code = line.strip()
            declares = re.match(r"(message|enum|service|rpc|oneof)\s+\w+", code) or re.match(
                r"((optional|repeated)\s+)?[\w.<>, ]+\s+\w+\s*=\s*\d+;", code
            )
            if code.startswith(("syntax", "package", "import", "//")) or not declares:
                continue
            if i == 0 or not lines[i - 1].strip().startswith("//"):
                undocumented.append(f"{path.relative_to(ROOT)}:{i + 1}: {code}")
    assert not undocumented, "\n".join(undocumented)


def proto_comments() -> dict[tuple[str, str], dict[str, str]]:
    """By (.proto file's stem, message name), each field's comment, read from the .proto text itself."""
    found: dict[tuple[str, str], dict[str, str]] = {}
    for path in sorted((ROOT / "proto").rglob("*.proto")):
        message: dict[str, str] | None = None
        comment: list[str] = []
        for line in path.read_text().splitlines():
            code = line.strip()
            if code.startswith("//"):
                comment.append(code.removeprefix("//").strip())
                continue
            opened = re.match(r"message (\w+) \{", code)
            field = re.match(r"(?:(?:optional|repeated)\s+)?(?:map<[\w., ]+>|[\w.]+)\s+(\w+)\s*=\s*\d+;", code)
            if opened:
                message = found.setdefault((path.stem, opened.group(1)), {})
            elif field and message is not None:
                message[field.group(1)] = " ".join(comment)
            comment = []
    return found


def message_classes() -> list[tuple[tuple[str, str], Any]]:
    from importlib import import_module

    classes = []
    for stub in sorted((ROOT / "arena" / "v1").glob("*_pb2.py")):
        module = import_module(f"arena.v1.{stub.stem}")
        classes += [((stub.stem.removesuffix("_pb2"), name), getattr(module, name)) for name in module.DESCRIPTOR.message_types_by_name]
    return classes


def test_help_on_a_message_lists_its_fields_with_their_proto_comments() -> None:
    """upb's fields are no Python attributes: help(generals_war_pb2.SquadChoice) showed no field, and a Python bot
    author had to open the .proto files to learn what ``max_cards`` holds. Each class's doc now lists them."""
    import pydoc

    comments = proto_comments()
    classes = message_classes()
    assert len(classes) > 100
    for name, cls in classes:
        for field in cls.DESCRIPTOR.fields:
            said = comments[name][field.name]
            assert re.search(rf"^    {field.name} \([^)]*\): {re.escape(said)}$", cls.__doc__ or "", re.M), (name, field.name)
    from arena.v1 import generals_war_pb2 as gw

    shown = pydoc.render_doc(gw.SquadChoice, renderer=pydoc.plaintext)  # type: ignore[attr-defined]  # in pydoc, not in its stubs
    assert "max_cards (uint32): Most cards in a squad (3, or the hand size if smaller)." in shown


def test_the_type_stubs_hold_each_fields_comment_for_an_editor_to_show() -> None:
    """An editor's hover over ``choice.max_cards`` said only ``int``: the .pyi stubs carry the comment under each field."""
    comments = proto_comments()
    checked = 0
    for stub in sorted((ROOT / "arena" / "v1").glob("*_pb2.pyi")):
        for node in ast.parse(stub.read_text()).body:
            if not isinstance(node, ast.ClassDef) or (stub.stem.removesuffix("_pb2"), node.name) not in comments:
                continue
            fields = comments[stub.stem.removesuffix("_pb2"), node.name]
            for statement, following in zip(node.body, node.body[1:]):
                if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) and statement.target.id in fields:
                    assert isinstance(following, ast.Expr) and isinstance(following.value, ast.Constant), (node.name, statement.target.id)
                    assert following.value.value == fields[statement.target.id]
                    checked += 1
    assert checked == sum(len(fields) for fields in comments.values())
