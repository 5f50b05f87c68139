#!/usr/bin/env bash
# Create .venv (if needed) and install Arena with its development tools into it.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
# Installed once per change of pyproject.toml (the install is editable: the code itself needs no new install).
# test.sh runs this after .ci/run did: a second pip run cost 7 s of asking the index what was there already.
stamp=.venv/.arena-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -e '.[dev]'
  touch "$stamp"
fi

# The TypeScript SDK and its sample bots (sdk/typescript, docs/typescript.md), where Node.js is installed:
# its packages from package-lock.json, then tsc into sdk/typescript/dist and the bots bundled.
if command -v npm >/dev/null 2>&1; then
  if [ ! sdk/typescript/node_modules/.package-lock.json -nt sdk/typescript/package-lock.json ]; then
    (cd sdk/typescript && npm ci --no-audit --no-fund --loglevel=error)
  fi
  bash sdk/typescript/scripts/build-bots.sh || echo "setup: the TypeScript build failed (above); tests/test_typescript.py says more" >&2
fi

# The C++ sample bot (sample_bots/cpp_random), where g++ and Debian's gRPC development packages are installed.
if command -v grpc_cpp_plugin >/dev/null 2>&1 && pkg-config --exists grpc++ protobuf 2>/dev/null; then
  # Under the lock the tests' build takes too (.ci/run may have started one already: this one then waits for it).
  mkdir -p sample_bots/cpp_random/build
  flock sample_bots/cpp_random/build/.lock bash sample_bots/cpp_random/build.sh >/dev/null || echo "setup: the C++ sample bot did not build (above); tests/test_cpp_bot.py says more" >&2
fi
