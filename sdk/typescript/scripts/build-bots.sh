#!/usr/bin/env bash
# Build the TypeScript SDK (tsc into sdk/typescript/dist) and bundle the TypeScript sample bots
# (sample_bots/typescript_*/main.ts -> dist/main.js, self-contained: node is all they need at run time).
# Needs the SDK's packages: `npm ci` in sdk/typescript (scripts/setup.sh does both).
set -euo pipefail
SDK="$(cd "$(dirname "$0")/.." && pwd)"
ROOT="$(cd "$SDK/../.." && pwd)"
cd "$SDK"
# esbuild bundles from the SDK's sources; the type checks come after, so a type error still leaves runnable bots.
for bot in "$ROOT"/sample_bots/typescript_*/; do
  node scripts/bundle.mjs --no-check --outdir "${bot%/}/dist" "${bot%/}/main.ts"
done
node node_modules/typescript/bin/tsc -p tsconfig.build.json
node node_modules/typescript/bin/tsc --noEmit   # the tests and the sample bots too
