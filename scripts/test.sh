#!/usr/bin/env bash
# Set up (no-op when done) and run the test suite with the real tools and the bundled model.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# one worker per core (at most 4: each may load the model), a test file stays on one worker (its fixtures
# are built once); the tools are single-threaded, so this roughly divides the wall time by the cores
workers=$(nproc); [ "$workers" -le 4 ] || workers=4
exec .venv/bin/python -m pytest -q -ra -n "$workers" --dist loadfile --durations=20 "$@"
