"""bot.toml fuzzed: whatever a manifest holds, it is read as the bot it describes or refused with a ManifestError
that names the file (and the key, when one key is wrong), never another exception."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from arena.cli.main import app
from referee.games.registry import GAMES
from referee.server.manifest import KEYS, MANIFEST, BotManifest, ManifestError, load_manifest
from tests.fuzzing import FUZZ
from tests.support import SAMPLE_BOTS

runner = CliRunner()
RANDOM = str(SAMPLE_BOTS / "random")
VALID: dict[str, Any] = {
    "name": "fuzz",
    "version": "1.0",
    "language": "python",
    "games": ["glory"],
    "command": ["python", "bot.py"],
    "matches_per_process": 1,
}


def toml_value(value: Any) -> str:
    """``value`` written as TOML: strings as basic strings (JSON's escapes are TOML's, but for those of surrogates)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value) if value.bit_length() < 10_000 else "9" * 5000
    if isinstance(value, float):
        return {"inf": "inf", "-inf": "-inf", "nan": "nan"}.get(repr(value), repr(value))
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k, ensure_ascii=False)} = {toml_value(v)}" for k, v in value.items()) + "}"
    raise AssertionError(value)


def toml_document(data: dict[str, Any]) -> str:
    return "".join(f"{json.dumps(k, ensure_ascii=False)} = {toml_value(v)}\n" for k, v in data.items())


SCALARS = st.one_of(
    st.booleans(),
    st.integers(),
    st.integers(10**4300, 10**4400),
    st.floats(),
    st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=80),
    st.sampled_from(["", " ", "glory", "python bot.py", "a\0b", "x" * 70, "\u202e", "\n"]),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=5), inner, max_size=3)),
    max_leaves=12,
)


@st.composite
def manifests(draw: st.DrawFn) -> tuple[dict[str, Any], str | None]:
    """A manifest, and the key made wrong in it (None: every key but one may be as valid as before)."""
    data = dict(VALID)
    data["games"] = draw(st.lists(st.sampled_from(list(GAMES)), min_size=1, unique=True))
    data["matches_per_process"] = draw(st.integers(1, 1000))
    changed: str | None = None
    what = draw(st.sampled_from(["replace", "drop", "add", "none"]))
    if what == "replace":
        changed = draw(st.sampled_from(KEYS))
        data[changed] = draw(VALUES)
    elif what == "drop":
        changed = draw(st.sampled_from(KEYS))
        del data[changed]
    elif what == "add":
        changed = draw(st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=20).filter(lambda k: k not in KEYS))
        data[changed] = draw(VALUES)
    return data, changed


def written(folder: Path, content: bytes) -> Path:
    folder.mkdir(exist_ok=True)
    (folder / MANIFEST).write_bytes(content)
    return folder


def read(folder: Path) -> BotManifest | ManifestError:
    try:
        return load_manifest(folder)
    except ManifestError as exc:
        message = str(exc)
        assert message.startswith(f"{folder / MANIFEST}: ") and "\n" not in message, message
        return exc


@FUZZ
@given(manifests())
def test_a_manifest_is_read_as_written_or_refused_naming_the_file_and_the_key(case: tuple[dict[str, Any], str | None]) -> None:
    data, changed = case
    with tempfile.TemporaryDirectory() as scratch:
        folder = written(Path(scratch) / "bot", toml_document(data).encode())
        got = read(folder)
    if isinstance(got, ManifestError):
        message = str(got)
        assert changed is not None, message
        # the key is named, unless the document was not TOML at all (a number too long, a value TOML cannot hold)
        named = (repr(changed), f"'{changed}'", f": {changed} ", "not valid TOML")
        assert any(words in message for words in named), message
        return
    assert changed is None or changed in data or changed in ("language", "matches_per_process")  # the two with defaults
    command = data["command"].split() if isinstance(data["command"], str) else data["command"]
    assert (got.name, got.version, list(got.games), list(got.command)) == (data["name"].strip(), data["version"].strip(), data["games"], command)
    assert got.language == data.get("language", "other") and got.matches_per_process == data.get("matches_per_process", 1)


CONTENT = st.one_of(
    st.binary(max_size=300),
    st.binary(max_size=100).map(lambda junk: toml_document(VALID).encode() + junk),
    st.binary(min_size=1, max_size=40).map(lambda junk: toml_document(VALID).encode()[: len(junk) * 3] + junk),
    st.integers(1, 5000).map(lambda depth: f'command = ["python", "bot.py"]\nx = {"[" * depth}{"]" * depth}\n'.encode()),
    st.integers(1, 2000).map(lambda depth: ("x = " + "{a=" * depth + "1" + "}" * depth + "\n").encode()),
    st.integers(4000, 6000).map(lambda n: (toml_document(VALID) + f"y = {'7' * n}\n").encode()),
    st.just(b"\xff\xfe" + toml_document(VALID).encode("utf-16-le")),
    st.just(toml_document(VALID).encode() + b"# " + b"x" * 2_000_000 + b"\n"),
)


@FUZZ
@given(CONTENT)
def test_any_bytes_as_a_manifest_are_a_bot_or_a_manifest_error_naming_the_file(content: bytes) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        got = read(written(Path(scratch) / "bot", content))
    assert isinstance(got, (BotManifest, ManifestError))


def test_an_integer_too_long_to_read_is_a_manifest_error() -> None:
    """tomllib's int() raises ValueError past 4300 digits: `arena match` printed a traceback, the ladder a 500."""
    with tempfile.TemporaryDirectory() as scratch:
        folder = written(Path(scratch) / "bot", (toml_document(VALID) + f"matches_per_process = {'9' * 5000}\n").encode().replace(b"matches_per_process = 1\n", b""))
        with pytest.raises(ManifestError, match="bot.toml: not valid TOML for a bot: it holds a number too long to read"):
            load_manifest(folder)


def test_an_unknown_key_holding_a_line_break_is_told_in_one_line(tmp_path: Path) -> None:
    folder = written(tmp_path / "bot", (toml_document(VALID) + '"a\\nb" = 1\n').encode())
    with pytest.raises(ManifestError, match=r"unknown key 'a\\nb' \(the keys are"):
        load_manifest(folder)


@pytest.mark.parametrize(
    "content",
    [
        (toml_document(VALID) + f"extra = {'1' * 5000}\n").encode(),
        b"\x80\x81 not utf-8",
        b"name = [" * 3000,
        toml_document({**VALID, "games": "glory"}).encode(),
        toml_document({**VALID, "\n": 1}).encode(),
    ],
    ids=["long-number", "not-utf8", "deep", "games-a-string", "key-a-line-break"],
)
def test_match_with_a_broken_manifest_says_so_in_one_line(tmp_path: Path, content: bytes) -> None:
    folder = written(tmp_path / "bot", content)
    result = runner.invoke(app, ["match", "glory", str(folder), RANDOM])
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {folder / MANIFEST}: "), result.output
