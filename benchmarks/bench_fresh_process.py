"""The first request of a fresh process: is anything compiled on it? In CPU seconds (not wall,
so that a loaded machine still gives comparable figures):

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_fresh_process.py [--data sample_data/teaching_es_en]
        [--lp LP] [--metrics bleu,chrf,ter] [--repeat 2]

Each run is a new interpreter that imports evalcore, loads the data and scores it with the
metrics at both levels (``score --level both``, the statistics store off so that the kernels
really run), reporting CPU seconds for the import, the load and the scoring, and how many numba
index files the kernel cache holds afterwards. Three situations, each in a new empty
``$EVALCORE_CACHE``:

* ``compile``: an empty numba cache (``$NUMBA_CACHE_DIR`` a new empty folder): every kernel
  is compiled on the request — what a fresh install or a read-only install without a cache
  paid;
* ``cached``: a second fresh process on the kernels the first one left in
  ``<cache>/numba`` (evalcore's cache folder, the default since the kernels are kept there);
* ``cached`` again ``--repeat`` times, medians reported.

Never part of the test suite.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = """
import json, os, resource, sys, time
sys.path.insert(0, {root!r})
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
t0 = cpu()
from evalcore.io import load_dataset
from evalcore.metrics import levels
t1 = cpu()
ds = load_dataset({data!r}, lp={lp!r})
t2 = cpu()
rows = 0
for metric, tables in levels.iter_score_levels(ds, {metrics!r}, level="both"):
    rows += sum(len(t) for t in tables.values())
t3 = cpu()
import numba
print(json.dumps({{"import": t1 - t0, "load": t2 - t1, "score": t3 - t2, "total": t3,
                  "rows": rows, "numba_cache_dir": numba.config.CACHE_DIR}}))
"""


def run_child(data: str, lp: str | None, metrics: list[str], cache: Path, numba_dir: Path | None) -> dict:
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", EVALCORE_HOME=str(cache.parent),
               EVALCORE_CACHE=str(cache), EVALCORE_STATS_CACHE="0")
    env.pop("NUMBA_CACHE_DIR", None)
    if numba_dir is not None:
        env["NUMBA_CACHE_DIR"] = str(numba_dir)
    code = CHILD.format(root=str(ROOT), data=data, lp=lp, metrics=metrics)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    folder = Path(got["numba_cache_dir"]) if got["numba_cache_dir"] else None
    got["index_files"] = len(list(folder.rglob("*.nbi"))) if folder and folder.exists() else 0
    return got


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=str(ROOT / "sample_data" / "teaching_es_en"))
    ap.add_argument("--lp", default=None)
    ap.add_argument("--metrics", default="bleu,chrf,ter")
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    metrics = [m for m in args.metrics.split(",") if m]
    with tempfile.TemporaryDirectory(prefix="evalcore-fresh-") as tmp:
        tmp = Path(tmp)
        first = run_child(args.data, args.lp, metrics, tmp / "a" / "cache", tmp / "empty-numba")
        # evalcore's own cache folder: the first process compiles into <cache>/numba ...
        own = run_child(args.data, args.lp, metrics, tmp / "b" / "cache", None)
        # ... and every later fresh process on that cache loads the kernels
        later = [run_child(args.data, args.lp, metrics, tmp / "b" / "cache", None) for _ in range(args.repeat)]
    print("situation\timport CPU-s\tload CPU-s\tscore CPU-s (first request)\ttotal CPU-s\tnumba index files")
    for name, r in (("compile (empty numba cache)", first), ("first process on an empty <cache>/numba", own)):
        print(f"{name}\t{r['import']:.2f}\t{r['load']:.2f}\t{r['score']:.2f}\t{r['total']:.2f}\t{r['index_files']}")
    med = {k: statistics.median(r[k] for r in later) for k in ("import", "load", "score", "total")}
    print(f"fresh process, kernels in <cache>/numba (median of {len(later)})\t{med['import']:.2f}\t{med['load']:.2f}"
          f"\t{med['score']:.2f}\t{med['total']:.2f}\t{later[-1]['index_files']}")
    assert len({r["rows"] for r in [first, own, *later]}) == 1  # the same work every time


if __name__ == "__main__":
    main()
