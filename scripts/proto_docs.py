"""The .proto files' comments, for the generated Python stubs (scripts/gen_proto.py).

protoc's Python output keeps no comment: ``help(generals_war_pb2.SquadChoice)``
showed no field at all (upb's fields are no Python attributes), and an editor's
hover over ``choice.max_cards`` said only ``int``. From the same comments the
TypeScript types carry, each generated ``_pb2.py`` sets its messages' ``__doc__``
(the message's comment, then each field with its type and comment), and each
``_pb2.pyi`` gets docstrings under its classes, fields and enum values.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from google.protobuf import descriptor_pb2

# FileDescriptorProto field numbers (descriptor.proto), the steps of a SourceCodeInfo location's path
_MESSAGE_TYPE, _ENUM_TYPE = 4, 5
_FIELD, _NESTED_TYPE, _NESTED_ENUM = 2, 3, 4
_ENUM_VALUE = 2

_TYPE_NAMES = {
    value: name.removeprefix("TYPE_").lower()
    for name, value in descriptor_pb2.FieldDescriptorProto.Type.items()
    if name not in ("TYPE_MESSAGE", "TYPE_ENUM", "TYPE_GROUP")
}


@dataclass
class Documented:
    """A message or enum: its comment, and its fields' (or values') names, types and comments, in order."""

    name: str  # as in Python: "SquadChoice", "Outer.Inner"
    comment: str
    members: list[tuple[str, str, str]] = field(default_factory=list)  # (name, type words, comment)
    is_enum: bool = False


def _comment(location: descriptor_pb2.SourceCodeInfo.Location | None) -> str:
    if location is None:
        return ""
    text = location.leading_comments or location.trailing_comments
    return " ".join(line.strip() for line in text.strip().splitlines())


def _field_type(f: descriptor_pb2.FieldDescriptorProto, package: str, maps: dict[str, descriptor_pb2.DescriptorProto]) -> str:
    entry = maps.get(f.type_name)
    if entry is not None:  # a map<k, v> field is a repeated message of a made-up nested type
        key, value = (_field_type(part, package, maps) for part in entry.field)
        return f"map<{key}, {value}>"
    if f.type in (f.TYPE_MESSAGE, f.TYPE_ENUM):
        name = f.type_name.lstrip(".").removeprefix(package + ".")
    else:
        name = _TYPE_NAMES[f.type]
    return ("repeated " if f.label == f.LABEL_REPEATED else "") + name


def documented(file: descriptor_pb2.FileDescriptorProto) -> list[Documented]:
    """Every message and enum of ``file`` (nested ones too), with the comments its source gives them."""
    where = {tuple(loc.path): loc for loc in file.source_code_info.location}
    out: list[Documented] = []

    def enum(e: descriptor_pb2.EnumDescriptorProto, path: tuple[int, ...], prefix: str) -> None:
        doc = Documented(prefix + e.name, _comment(where.get(path)), is_enum=True)
        doc.members = [(v.name, str(v.number), _comment(where.get((*path, _ENUM_VALUE, i)))) for i, v in enumerate(e.value)]
        out.append(doc)

    def message(m: descriptor_pb2.DescriptorProto, path: tuple[int, ...], prefix: str) -> None:
        doc = Documented(prefix + m.name, _comment(where.get(path)))
        maps = {f".{file.package}.{doc.name}.{n.name}": n for n in m.nested_type if n.options.map_entry}
        for i, f in enumerate(m.field):
            kind = _field_type(f, file.package, maps)
            if f.HasField("oneof_index") and not f.proto3_optional:
                kind += f", one of {m.oneof_decl[f.oneof_index].name}"
            elif f.proto3_optional:
                kind += ", optional"
            doc.members.append((f.name, kind, _comment(where.get((*path, _FIELD, i)))))
        out.append(doc)
        for i, nested in enumerate(m.nested_type):
            if not nested.options.map_entry:
                message(nested, (*path, _NESTED_TYPE, i), doc.name + ".")
        for i, e in enumerate(m.enum_type):
            enum(e, (*path, _NESTED_ENUM, i), doc.name + ".")

    for i, m in enumerate(file.message_type):
        message(m, (_MESSAGE_TYPE, i), "")
    for i, e in enumerate(file.enum_type):
        enum(e, (_ENUM_TYPE, i), "")
    return out


def class_doc(doc: Documented) -> str:
    """What ``help()`` shows of a message: its comment, then each field with its type and comment."""
    lines = [doc.comment] if doc.comment else []
    if doc.members:
        lines += ["", "Fields:"] if lines else ["Fields:"]
        lines += [f"    {name} ({kind}): {comment}".rstrip(": ") for name, kind, comment in doc.members]
    return "\n".join(lines)


def runtime_docs(docs: Sequence[Documented]) -> str:
    """The lines appended to a ``_pb2.py``: each message class's ``__doc__`` (an enum's wrapper takes none)."""
    lines = ["", "# The .proto comments, for help() (scripts/proto_docs.py)"]
    lines += [f"{doc.name}.__doc__ = {class_doc(doc)!r}" for doc in docs if not doc.is_enum and class_doc(doc)]
    return "\n".join(lines) + "\n"


def _docstring(text: str, indent: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"""', "'''")  # a backslash or three quotes would end it early
    return f'{indent}"""{escaped}"""'


def stub_with_docs(stub: str, docs: Sequence[Documented]) -> str:
    """``stub`` (a ``_pb2.pyi``) with a docstring under each documented class, field and enum value."""
    by_name = {doc.name: doc for doc in docs}
    out: list[str] = []
    classes: list[tuple[int, str]] = []  # (indent, Python name) of the classes the line is in
    for line in stub.splitlines():
        out.append(line)
        indent = len(line) - len(line.lstrip())
        while classes and line.strip() and indent <= classes[-1][0]:
            classes.pop()
        opened = re.match(r"(\s*)class (\w+)\(", line)
        if opened:
            name = ".".join([c for _, c in classes] + [opened.group(2)])
            classes.append((indent, name))
            doc = by_name.get(name)
            if doc is not None and doc.comment:
                out.append(_docstring(doc.comment, " " * (indent + 4)))
            continue
        member = re.match(r"(\s*)(\w+): ", line)
        if member and classes and (doc := by_name.get(classes[-1][1])) is not None:
            said = {name: comment for name, _, comment in doc.members}
            if said.get(member.group(2)):
                out.append(_docstring(said[member.group(2)], member.group(1)))
    return "\n".join(out) + ("\n" if stub.endswith("\n") else "")


def read_set(path: Path) -> Iterator[descriptor_pb2.FileDescriptorProto]:
    files = descriptor_pb2.FileDescriptorSet()
    files.ParseFromString(path.read_bytes())
    yield from files.file
