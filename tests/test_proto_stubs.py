"""The generated stubs in arena/v1 match the .proto files, and every message and field is documented."""

from __future__ import annotations

import re
import subprocess
import sys

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
