"""CPU seconds of a page's own Python to each of its figures and progress bars, cold and warm.

    python benchmarks/bench_page_order.py PAGE [--data ../shared/data/wmt24_esa] [--lp en-cs]
        [--state KEY=JSON ...]

As benchmarks/bench_page_cpu.py ``--saved`` (a fresh process on a dataset saved, with its
statistics precomputed, by another process; the page opened by a deep link through AppTest),
but it records every *keyed* ``st.plotly_chart`` (the page's own figures: the app shell's
out-of-view prefetch chart has no key, and bench_page_cpu.py's ``figure`` is that chart) and
every ``st.progress`` bar a page starts, in order, with the process CPU time since the app
started. This is the order of a page's work: a progressive page draws its first figure before
its significance work's progress bar. ``--state`` sets session state before the run (e.g.
``--state mt_k=20``). Never part of the test suite.
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
sys.path.insert(0, str(ROOT))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("page")
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "wmt24_esa"))
    ap.add_argument("--lp", default="en-cs")
    ap.add_argument("--state", nargs="*", default=[], help="KEY=JSON session-state values set before the run")
    args = ap.parse_args()
    try:  # the kernels as compiled before (a restarted server)
        from evalcore.metrics._jit import pin_cache_folder
        pin_cache_folder()
    except ImportError:
        pass
    tmp = Path(tempfile.mkdtemp(prefix="bench-page-order-"))
    os.environ["EVALCORE_HOME"] = str(tmp / "home")
    os.environ["EVALCORE_CACHE"] = str(tmp / "cache")
    os.chdir(ROOT)
    name = Path(args.data).name
    subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_page_cpu.py"), args.page, "--data", args.data,
                    "--save-only"], check=True)

    import streamlit as st
    from streamlit.delta_generator import DeltaGenerator
    from streamlit.testing.v1 import AppTest

    events: list[tuple[str, float]] = []
    start: list[float] = []

    def wrap(obj, attr: str) -> None:
        real = getattr(obj, attr)

        def f(*a, **k):
            if attr == "set_page_config":
                start.append(time.process_time())
            elif attr == "plotly_chart" and k.get("key"):
                events.append((f"figure {k['key']}", time.process_time()))
            elif attr == "progress":
                events.append((f"bar: {str(k.get('text') or '')[:60]}", time.process_time()))
            return real(*a, **k)
        setattr(obj, attr, f)

    for obj in (DeltaGenerator, st):  # st.x are bound to the main container at import
        wrap(obj, "plotly_chart")
        wrap(obj, "progress")
    wrap(st, "set_page_config")
    state = {k: json.loads(v) for k, v in (s.split("=", 1) for s in args.state)}

    def run() -> list[str]:
        events.clear()
        start.clear()
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=1800)
        at.query_params["dataset"] = name
        at.query_params["lp"] = args.lp
        for k, v in state.items():
            at.session_state[k] = v
        at.switch_page(f"pages/{args.page}.py")
        at.run()
        end = time.process_time()
        if at.exception:
            raise SystemExit(f"{args.page}: {[e.value for e in at.exception]}")
        s = start[0]
        seen, out = set(), []
        for what, t in events:  # a bar's later updates are the same element: its first call only
            if what.startswith("bar") and what in seen:
                continue
            seen.add(what)
            out.append(f"{t - s:.2f} {what}")
        return out + [f"{end - s:.2f} end"]

    cold = run()
    warm = run()
    print(f"{args.page} {name}/{args.lp} {state or ''} cold CPU s:\n  " + "\n  ".join(cold))
    print("warm CPU s:\n  " + "\n  ".join(warm))


if __name__ == "__main__":
    main()
