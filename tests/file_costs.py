"""Writes tests/costs.tsv (the order of the test files in tests/conftest.py) from a pytest
``--durations=0`` log: the seconds of every setup, call and teardown, summed per test file.

    python -m pytest -q -p no:xdist --durations=0 > /tmp/durations.txt
    python tests/file_costs.py /tmp/durations.txt > tests/costs.tsv

Measure on an otherwise idle machine (or single files with their CPU time): only the order of
the files matters, not the seconds."""
from __future__ import annotations

import re
import sys
from collections import defaultdict

_ROW = re.compile(r"^([0-9.]+)s\s+(?:setup|call|teardown)\s+(?:\S+/)?(test_[^/:]+\.py)::")


def file_costs(log: str) -> dict[str, float]:
    """{test file name: seconds} summed over the ``--durations`` rows of ``log``."""
    costs: dict[str, float] = defaultdict(float)
    for line in log.splitlines():
        m = _ROW.match(line.strip())
        if m:
            costs[m.group(2)] += float(m.group(1))
    return dict(costs)


if __name__ == "__main__":
    costs = file_costs(open(sys.argv[1], encoding="utf-8").read())
    print("# test file\tseconds (tests/file_costs.py from a --durations=0 log); most costly first")
    for name, seconds in sorted(costs.items(), key=lambda kv: -kv[1]):
        print(f"{name}\t{seconds:.1f}")
