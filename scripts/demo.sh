#!/usr/bin/env bash
# Set up, then run the ladder with its embedded database and the sample bots of every game.
# It plays matches until you stop it (Ctrl-C); watch with `arena ladder standings GAME --watch`
# or open http://127.0.0.1:8765/ in a browser.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/arena games
exec .venv/bin/arena ladder serve --data arena-data "$@"
