"""Hostile inputs that used to hang: CPU seconds of reading them (never part of the tests).

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_hostile.py [--columns 100003] [--repeat 3]

* ``read_tsv`` of a one-line header of ``--columns`` columns with one duplicate name (the
  duplicate-column check used ``header.count(h)`` per column: quadratic, 331 s at 100,003);
* ``python -m evalcore validate`` of a tidy folder whose segments.tsv has that header (a fresh
  interpreter: CPU of the child, import included);
* ``read_tsv`` of a file with a 1,000,001-character field and 10,000 short rows after it (the
  long field is reported and the rest still checked).

Target: the wide header under 2 s of CPU. Medians of ``--repeat`` runs.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "hostile"))


def cpu(fn) -> float:
    t = time.process_time()
    fn()
    return time.process_time() - t


def child_cpu(args) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(args, cwd=ROOT, capture_output=True, env=dict(os.environ, OPENBLAS_NUM_THREADS="1"))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--columns", type=int, default=100_003)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    from evalcore.io.text import read_tsv
    from evalcore.core.problems import Report
    import make_corpus

    header = ("\t".join(f"c{k}" for k in range(a.columns - 1)) + "\tc17\n").encode()
    t_header = statistics.median(cpu(lambda: read_tsv(header, "wide.tsv", Report(), ["c1"])) for _ in range(a.repeat))
    long_rows = ("a\tb\n1\t" + "x" * 1_000_001 + "\n" + "".join(f"{i}\tok\n" for i in range(10_000))).encode()
    t_long = statistics.median(cpu(lambda: read_tsv(long_rows, "long.tsv", Report(), ["a", "b"])) for _ in range(a.repeat))
    with tempfile.TemporaryDirectory() as tmp:
        folder = make_corpus.make_big(Path(tmp))["wide_header"]
        t_cli = statistics.median(child_cpu([sys.executable, "-m", "evalcore", "validate", str(folder)])
                                  for _ in range(a.repeat))
    print(f"read_tsv header of {a.columns:,} columns (1 duplicate): {t_header:.3f} s CPU")
    print(f"python -m evalcore validate, segments.tsv of 100,003 columns: {t_cli:.2f} s CPU (child, imports included)")
    print(f"read_tsv, a 1,000,001-character field + 10,000 rows: {t_long:.3f} s CPU")


if __name__ == "__main__":
    main()
