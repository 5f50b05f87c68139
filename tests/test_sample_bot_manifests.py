"""Each sample bot says the same name and version in its code (sent in its hello) as in its bot.toml.

A bot author copies a sample bot and edits both; a pair that already disagrees leaves them to guess which counts.
"""

from __future__ import annotations

import ast
import re

import pytest

from referee.server.manifest import load_manifest
from tests.support import SAMPLE_BOTS

PYTHON = sorted(p.parent.name for p in SAMPLE_BOTS.glob("*/bot.py"))
TYPESCRIPT = sorted(p.parent.name for p in SAMPLE_BOTS.glob("*/bot.ts"))


def python_class_attributes(bot_dir: str) -> tuple[str, str]:
    """The name and version a sample bot's Bot class declares, read from its source."""
    tree = ast.parse((SAMPLE_BOTS / bot_dir / "bot.py").read_text())
    [cls] = [node for node in tree.body if isinstance(node, ast.ClassDef) and any(getattr(b, "id", "") == "Bot" for b in node.bases)]
    values: dict[str, str] = {
        target.id: node.value.value
        for node in cls.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    return values["name"], values["version"]


def test_every_sample_bot_is_checked() -> None:
    assert len(PYTHON) == 6 and len(TYPESCRIPT) == 6


@pytest.mark.parametrize("bot_dir", PYTHON)
def test_a_python_sample_bot_declares_its_manifest_name_and_version(bot_dir: str) -> None:
    manifest = load_manifest(SAMPLE_BOTS / bot_dir)
    assert python_class_attributes(bot_dir) == (manifest.name, manifest.version)


@pytest.mark.parametrize("bot_dir", TYPESCRIPT)
def test_a_typescript_sample_bot_declares_its_manifest_name_and_version(bot_dir: str) -> None:
    manifest = load_manifest(SAMPLE_BOTS / bot_dir)
    source = (SAMPLE_BOTS / bot_dir / "bot.ts").read_text()
    declared = {key: re.findall(rf'override {key} = "([^"]*)";', source) for key in ("name", "version")}
    assert declared == {"name": [manifest.name], "version": [manifest.version]}
