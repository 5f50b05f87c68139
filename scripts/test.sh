#!/usr/bin/env bash
# Set up, then run the type checker and the whole test suite; then the rules compiled with mypyc
# (`arena compile`, referee/compiled.py) through the conformance suite, the rules' tests, the golden playthroughs,
# the records' behaviour and the referee's sessions over gRPC (the codec meets the compiled records there).
# Arguments go to the first pytest run, and skip the compiled one.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if [ $# -eq 0 ]; then
  # The build (minutes of one core: one C file) runs meanwhile at the lowest priority, in the time the cores are idle
  # (the type check uses one; tests wait on bots, servers and clocks); the compiled run starts once it is done.
  compile_log=$(mktemp)
  nice -n 19 .venv/bin/arena compile >"$compile_log" 2>&1 &
  compiling=$!
  trap 'kill "$compiling" 2>/dev/null || true' EXIT
fi
.venv/bin/python scripts/gen_proto.py --check
.venv/bin/mypy
# Three workers on two cores: most tests wait on bot processes, servers, browsers and clocks rather than compute (the
# run used 174% of the CPU with three). On the 2-core host the main run took 17:19 with three against 22:59 with two.
workers="${ARENA_TEST_WORKERS:-3}"
.venv/bin/pytest -q -n "$workers" "$@"
if [ $# -eq 0 ]; then
  wait "$compiling" || { cat "$compile_log"; exit 1; }
  # The sample bots' strength (bot_strength) is theirs, not the rules': played once, above.
  ARENA_COMPILED=1 .venv/bin/pytest -q -n "$workers" -p no:cacheprovider -m "not bot_strength" \
    tests/conformance tests/games tests/test_golden.py tests/test_compiled.py tests/test_records.py \
    tests/test_session.py tests/test_grpc.py tests/test_grpc_connections.py
fi
