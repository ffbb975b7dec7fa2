#!/usr/bin/env bash
# Sets everything up and runs the whole test suite (the README's second command; CI runs it).
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
# the package itself (editable) with the neural extra, so `python -m evalcore` works from any folder
python -m pip install --quiet --disable-pip-version-check --no-build-isolation -e ".[neural]"
# unbabel-comet declares numpy<2 (it runs on numpy 2): installed without its declared pins, its real
# dependencies pinned in the file (the neural tests build tiny models; nothing is downloaded)
python -m pip install --quiet --disable-pip-version-check --no-deps -r requirements-neural.txt
# Browser tests need a Chromium; install Debian's package when we can (root + apt), never a
# browser download. Without one the browser tests skip locally and fail under CI=true.
if ! command -v chromium >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  (apt-get update -qq && apt-get install -y -qq chromium fonts-noto-color-emoji >/dev/null) || echo "warning: could not install chromium" >&2
fi
# The project's bytecode, once (about a CPU-second): the suite starts hundreds of Python processes
# (command-line tests, dashboard servers), and where PYTHONDONTWRITEBYTECODE is set, as on our
# machines, each would otherwise compile evalcore from source again (about 0.15 CPU-s each).
python -m compileall -q -j 0 evalcore pages app.py
# Lint first (seconds): pyflakes and pycodestyle errors, configured in pyproject.toml.
python -m ruff check --quiet .
# Types: mypy over the whole evalcore package (strict on core/, stats/ and metrics/base.py),
# configured in pyproject.toml's [tool.mypy]. It runs beside pytest at low priority (about a minute
# of one core, taken from the time the test workers spend waiting on browsers and servers); its
# report is printed after pytest's and a type error fails the command just as a failed test does.
mypy_log="$(mktemp)"
nice -n 10 python -m mypy >"$mypy_log" 2>&1 &
mypy_pid=$!
trap 'kill "$mypy_pid" 2>/dev/null || true; rm -f "$mypy_log"' EXIT
# One pytest worker per CPU core (pytest-xdist), each test file on one worker so that its
# module fixtures are built once; every worker has its own workspace and cache (tests/conftest.py).
# Files are handed out in tests/conftest.py's order, the most costly first (tests/costs.tsv), not
# xdist's default by number of tests, which started the longest one-test files last.
set +e
python -m pytest -q -n auto --dist loadfile --no-loadscope-reorder --durations=15 "$@"
tests_rc=$?
wait "$mypy_pid"
mypy_rc=$?
set -e
echo "mypy:"
cat "$mypy_log"
if [ "$mypy_rc" -ne 0 ]; then
  echo "mypy found type errors (exit $mypy_rc)" >&2
  [ "$tests_rc" -ne 0 ] || tests_rc=$mypy_rc
fi
exit "$tests_rc"
