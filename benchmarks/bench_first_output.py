"""When a page's Python emits its first table and its first figure, in AppTest.

    python benchmarks/bench_first_output.py [--data ../shared/data/wmt24_esa] [--lp en-cs]
        [--pages systems campaign compare] [--state sys_boot=0 ...]

For each page: a new process-wide AppTest of app.py deep-linked to the page on the saved
dataset (saved once into a temporary workspace), an empty cache (a new ``EVALCORE_CACHE``), and
the wall and process-CPU seconds from the start of the run to the first ``st.dataframe`` and
the first ``st.plotly_chart`` call and to the end of the run. CPU seconds are the figure to
compare under load (several developers share the machine); they include the app shell and the
dataset load, not the browser (benchmarks/bench_browser_pages.py measures the browser).
Every page runs in its own subprocess so imports are cold. Never part of the test suite.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, os, sys, time
sys.path.insert(0, {root!r}); os.chdir({root!r})
marks = {{}}
def mark(name):
    if name not in marks:
        marks[name] = (time.perf_counter() - W0, time.process_time() - C0)
import streamlit as st
from streamlit.delta_generator import DeltaGenerator
for meth in ("plotly_chart", "dataframe"):
    for owner in (DeltaGenerator, st):
        orig = getattr(owner, meth)
        def wrap(*a, _o=orig, _m=meth, **k):
            mark(_m)
            return _o(*a, **k)
        setattr(owner, meth, wrap)
from streamlit.testing.v1 import AppTest
at = AppTest.from_file({app!r}, default_timeout=1800)
at.query_params["dataset"] = {name!r}
at.query_params["lp"] = {lp!r}
for k, v in {state!r}.items():
    at.session_state[k] = v
at.switch_page("pages/{page}.py")
W0, C0 = time.perf_counter(), time.process_time()
at.run()
mark("end")
print(json.dumps({{"marks": marks, "exceptions": [e.message[:200] for e in at.exception]}}))
"""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "wmt24_esa"))
    ap.add_argument("--lp", default="en-cs")
    ap.add_argument("--pages", nargs="*", default=["systems", "campaign", "compare"])
    ap.add_argument("--state", nargs="*", default=[], help="session-state overrides KEY=PYTHON_LITERAL")
    args = ap.parse_args(argv)
    try:  # the kernels as compiled before (a restarted server), not compiled into the empty cache
        from evalcore.metrics._jit import pin_cache_folder
        pin_cache_folder()
    except ImportError:  # an older checkout: numba's own folder
        pass
    import ast

    state = {k: ast.literal_eval(v) for k, v in (s.split("=", 1) for s in args.state)}
    tmp = Path(tempfile.mkdtemp(prefix="bench-first-"))
    os.environ["EVALCORE_HOME"] = str(tmp / "home")
    sys.path.insert(0, str(ROOT))
    from evalcore.io import workspace
    from evalcore.io import load_collection

    name = workspace.save(load_collection(args.data), Path(args.data).name)
    print(f"dataset {name} ({args.lp}); load average {os.getloadavg()[0]:.1f}", flush=True)
    print("| page | first table: wall / CPU (s) | first figure: wall / CPU (s) | done: wall / CPU (s) | load |")
    print("|---|---|---|---|---|")
    for page in args.pages:
        env = {**os.environ, "EVALCORE_CACHE": str(tmp / f"cache-{page}-{time.time_ns()}"),
               "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS", "1")}
        load = os.getloadavg()[0]
        code = CHILD.format(root=str(ROOT), app=str(ROOT / "app.py"), name=name, lp=args.lp, state=state, page=page)
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        line = next((x for x in out.stdout.splitlines() if x.startswith("{")), None)
        if line is None:
            print(f"| {page} | failed: {out.stderr[-300:]!r} |")
            continue
        res = json.loads(line)
        m = res["marks"]

        def cell(k):
            return f"{m[k][0]:.2f} / {m[k][1]:.2f}" if k in m else "–"
        print(f"| {page} | {cell('dataframe')} | {cell('plotly_chart')} | {cell('end')} | {load:.1f} |"
              + (f" ERROR {res['exceptions']}" if res["exceptions"] else ""), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
