#!/usr/bin/env bash
# Set up, then run the type checker and the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python scripts/gen_proto.py --check
.venv/bin/mypy
.venv/bin/pytest -q -n "${ARENA_TEST_WORKERS:-2}" "$@"
