#!/usr/bin/env bash
# Set up, then list the games and play a local match between the sample bots.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/arena games
.venv/bin/arena match generals-war sample_bots/generals_war_greedy sample_bots/random --seed 1
