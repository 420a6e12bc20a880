#!/usr/bin/env bash
# Set up (no-op when done) and run the test suite with the real tools and the bundled model.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python -m pytest -q -ra "$@"
