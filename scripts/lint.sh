#!/usr/bin/env bash
# Lint, format and type checks (what .ci/run and pre-commit run); exits non-zero if any fails.
# Usage: bash scripts/lint.sh   (PYTHON=<interpreter> to use another environment than .venv)
set -uo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-.venv/bin/python}
status=0
run() {
    echo "+ $*"
    "$@" || status=1
}
run "$PYTHON" -m ruff check .
run "$PYTHON" -m ruff format --check .
run "$PYTHON" -m mypy
exit "$status"
