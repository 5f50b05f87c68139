"""The compiled build of the rules: found by the hash of their sources, used only when asked for and current."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from referee import compiled
from referee.compiled import BuildError, activate, build, build_dir, in_use, is_built, source_hash


def fake_package(root: Path) -> Path:
    package = root / "referee"
    for sub, text in (("core", "A = 1\n"), ("games", "B = 2\n"), ("server", "C = 3\n")):
        (package / sub).mkdir(parents=True)
        (package / sub / "m.py").write_text(text)
    return package


def test_the_hash_follows_the_rules_sources_and_nothing_else(tmp_path: Path) -> None:
    package = fake_package(tmp_path)
    first = source_hash(package)
    (package / "server" / "m.py").write_text("C = 4\n")
    assert source_hash(package) == first, "the server is not compiled"
    (package / "games" / "m.py").write_text("B = 3\n")
    changed = source_hash(package)
    assert changed != first
    (package / "core" / "new.py").write_text("")
    assert source_hash(package) != changed, "a new module is a new build"


def test_the_pure_rules_unless_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(compiled.SWITCH, raising=False)
    assert activate(["/x/referee"]) == ["/x/referee"]


def test_asked_for_without_a_current_build_it_says_so_and_stays_pure(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(compiled.SWITCH, "1")
    monkeypatch.setenv("ARENA_COMPILED_CACHE", str(tmp_path))
    assert activate(["/x/referee"]) == ["/x/referee"]
    assert "arena compile" in capsys.readouterr().err
    build_dir().mkdir(parents=True)  # a build interrupted before it was marked complete
    assert activate(["/x/referee"]) == ["/x/referee"]


def test_asked_for_with_a_current_build_its_folder_comes_first(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(compiled.SWITCH, "1")
    monkeypatch.setenv("ARENA_COMPILED_CACHE", str(tmp_path))
    where = build_dir()
    (where / "referee").mkdir(parents=True)
    (where / "BUILT").write_text(source_hash())
    monkeypatch.setattr(sys, "path", list(sys.path))
    assert activate(["/x/referee"]) == [str(where / "referee"), "/x/referee"]
    assert sys.path[-1] == str(where)


def test_building_without_a_c_compiler_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ARENA_COMPILED_CACHE", str(tmp_path))
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(BuildError, match="C compiler"):
        build(fake_package(tmp_path / "src"))
    assert not any(tmp_path.glob("*/BUILT"))


def test_the_rules_in_use_are_the_ones_asked_for() -> None:
    """scripts/test.sh runs the conformance suite again with ARENA_COMPILED=1, after ``arena compile``."""
    asked = os.environ.get(compiled.SWITCH) == "1"
    assert in_use() == (asked and is_built(build_dir()))
    if asked and os.environ.get("CI"):
        assert in_use(), "the compiled run of the suite would test the pure rules"


@pytest.mark.parametrize("game", ["generals_war", "glory", "generals_and_assassins", "land_and_castle", "assassination"])
def test_a_build_compiles_the_rules_and_their_records_with_written_constructors(game: str) -> None:
    """Records (``types``), enumerations and rules are all compiled; the records' ``__init__`` is the one the rewrite wrote."""
    import importlib.machinery
    import types as pytypes

    types = importlib.import_module(f"referee.games.{game}.types")
    enums = importlib.import_module(f"referee.games.{game}.enums")
    rules = importlib.import_module(f"referee.games.{game}.rules")
    extension = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    assert str(types.__file__).endswith(extension) == str(enums.__file__).endswith(extension) == in_use()
    assert str(rules.__file__).endswith(extension) == in_use()
    assert types.Phase is enums.Phase
    init = types.View.__init__
    if in_use():
        assert not isinstance(init, pytypes.FunctionType), "a native constructor, not one dataclasses made"
    else:
        assert "__quick_dict__" in init.__code__.co_varnames, "quicken gave the view its constructor"


def test_the_rewrite_of_the_records_is_part_of_the_hash(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    package = fake_package(tmp_path)
    first = source_hash(package)
    rewrite = tmp_path / "rewrite.py"
    rewrite.write_bytes(compiled.REWRITE.read_bytes() + b"# changed\n")
    monkeypatch.setattr(compiled, "REWRITE", rewrite)
    assert source_hash(package) != first
