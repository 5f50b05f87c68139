#!/usr/bin/env bash
# Set up, then run the type checker and the whole test suite; then the rules compiled with mypyc
# (`arena compile`, referee/compiled.py) through the conformance suite, the rules' tests, the golden playthroughs,
# the records' behaviour and the referee's sessions over gRPC (the codec meets the compiled records there).
# Arguments go to the first pytest run, and skip the compiled one.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python scripts/gen_proto.py --check
.venv/bin/mypy
.venv/bin/pytest -q -n "${ARENA_TEST_WORKERS:-2}" "$@"
if [ $# -eq 0 ]; then
  .venv/bin/arena compile
  ARENA_COMPILED=1 .venv/bin/pytest -q -n "${ARENA_TEST_WORKERS:-2}" -p no:cacheprovider \
    tests/conformance tests/games tests/test_golden.py tests/test_compiled.py tests/test_records.py \
    tests/test_session.py tests/test_grpc.py
fi
