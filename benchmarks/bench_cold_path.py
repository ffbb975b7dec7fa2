"""What every page pays on a fresh server, in CPU seconds (CPU, not wall, so
that a loaded machine still gives comparable figures):

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_cold_path.py [--data ../shared/data/wmt24_esa]
        [--lp en-cs] [--repeat 3]

* ``workspace.load_saved`` of the saved dataset (all language pairs) from its Arrow snapshot,
  and the same TSVs parsed and validated (``load_collection``: what every load did before);
* importing every metric module (``evalcore.metrics._load_all``) in a fresh interpreter, and
  whether numba got imported;
* the Data page opened by a deep link through AppTest in a fresh interpreter (``app.py``, the
  sidebar, the page): CPU of the run and which heavy modules it imported.

Medians of ``--repeat`` runs. Never part of the test suite.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

APPTEST = """
import json, os, sys, time
sys.path.insert(0, {root!r})
from streamlit.testing.v1 import AppTest
at = AppTest.from_file(os.path.join({root!r}, "app.py"), default_timeout=600)
at.query_params["dataset"] = {name!r}; at.query_params["lp"] = {lp!r}
c = time.process_time(); at.run(); cpu = time.process_time() - c
print(json.dumps({{"cpu": cpu, "exceptions": [e.message[:200] for e in at.exception],
                  "imported": [m for m in ("sacrebleu", "numba", "evalcore.metrics._load_all", "evalcore.metrics.meteor")
                               if m in sys.modules]}}))
"""
IMPORTS = """
import json, sys, time
import numpy, pandas
c = time.process_time(); import evalcore.metrics._load_all; cpu = time.process_time() - c
print(json.dumps({"cpu": cpu, "numba": "numba" in sys.modules}))
"""


def cpu(fn) -> float:
    c = time.process_time()
    fn()
    return time.process_time() - c


def child(code: str, env: dict) -> dict:
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "wmt24_esa"))
    ap.add_argument("--lp", default="en-cs")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    try:  # the kernels as compiled before (a restarted server), not compiled into the empty cache
        from evalcore.metrics._jit import pin_cache_folder
        pin_cache_folder()
    except ImportError:  # an older checkout: numba's own folder
        pass
    home = Path(tempfile.mkdtemp(prefix="bench-cold-"))
    os.environ["EVALCORE_HOME"] = str(home)
    from evalcore.io import workspace
    from evalcore.io import load_collection

    name = workspace.save(load_collection(args.data), Path(args.data).name)
    folder = workspace.datasets_dir() / name
    print(f"dataset {name} saved in {home}; load average {os.getloadavg()[0]:.1f}")
    snap = statistics.median(cpu(lambda: workspace.load_saved(name)) for _ in range(args.repeat))
    tsv = statistics.median(cpu(lambda: load_collection(folder, name=name, fmt="tidy", quoting="csv"))
                            for _ in range(args.repeat))
    env = dict(os.environ, EVALCORE_CACHE=str(home / "cache"), OPENBLAS_NUM_THREADS="1")
    imports = [child(IMPORTS, env) for _ in range(args.repeat)]
    pages = [child(APPTEST.format(root=str(ROOT), name=name, lp=args.lp), env) for _ in range(args.repeat)]
    print("| step | CPU s (median of %d) | note |" % args.repeat)
    print("|---|---|---|")
    print(f"| load_saved, all language pairs, from the snapshot | {snap:.3f} | |")
    print(f"| the same TSVs parsed and validated (every load before) | {tsv:.3f} | |")
    print(f"| import every metric module | {statistics.median(r['cpu'] for r in imports):.3f} | "
          f"numba imported: {imports[0]['numba']} |")
    print(f"| Data page deep link, AppTest run (app.py + sidebar + page) | "
          f"{statistics.median(r['cpu'] for r in pages):.3f} | imported: {', '.join(pages[0]['imported']) or 'none of sacrebleu, numba, the metric modules'}"
          f"{'; ERRORS ' + str(pages[0]['exceptions']) if pages[0]['exceptions'] else ''} |")
    import shutil

    shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
