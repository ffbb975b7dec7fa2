"""CPU seconds of a page's own Python to its first figure / table / message, cold and warm.

    python benchmarks/bench_page_cpu.py PAGE [--data ../shared/data/wmt24_esa] [--lp en-cs]

Runs app.py through Streamlit's AppTest as a deep link does (``/PAGE?dataset=NAME&lp=LP``: the
app shell, then the page), in a fresh process with an empty cache (a new ``EVALCORE_CACHE``),
the dataset saved in a temporary workspace. Prints the process CPU time (``time.process_time``)
from the start of app.py (``st.set_page_config``) to the page's first ``st.plotly_chart``
(``figure``), first ``st.dataframe`` (``table``) and first ``st.info`` (``info``) and to the end
of the run (``end``); then the same for a second session (``warm``: every cache warm).

CPU time, unlike wall time, hardly depends on what else the machine runs, so it compares
before/after on a shared machine; the browser adds its own ~3 s (benchmarks/bench_browser_pages.py
measures the wall time a user sees). Never part of the test suite.
"""
from __future__ import annotations

import argparse
import os
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
    args = ap.parse_args()
    try:  # the kernels as compiled before (a restarted server), not compiled into the empty cache
        from evalcore.metrics._jit import pin_cache_folder
        pin_cache_folder()
    except ImportError:  # an older checkout: numba's own folder
        pass
    tmp = Path(tempfile.mkdtemp(prefix="bench-page-cpu-"))
    os.environ["EVALCORE_HOME"] = str(tmp / "home")
    os.environ["EVALCORE_CACHE"] = str(tmp / "cache")
    os.chdir(ROOT)
    from evalcore.io import workspace
    from evalcore.io import load_collection

    name = Path(args.data).name
    workspace.save(load_collection(args.data), name)

    import streamlit as st
    from streamlit.delta_generator import DeltaGenerator
    from streamlit.testing.v1 import AppTest

    marks: dict[str, float] = {}

    def wrap(obj, attr: str, tag: str) -> None:
        real = getattr(obj, attr)

        def f(*a, **k):
            marks.setdefault(tag, time.process_time())
            return real(*a, **k)
        setattr(obj, attr, f)

    for obj in (DeltaGenerator, st):  # st.x are bound to the main container at import
        wrap(obj, "plotly_chart", "figure")
        wrap(obj, "dataframe", "table")
        wrap(obj, "info", "info")
    wrap(st, "set_page_config", "start")

    def run() -> dict:
        marks.clear()
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=1800)
        at.query_params["dataset"] = name
        at.query_params["lp"] = args.lp
        at.switch_page(f"pages/{args.page}.py")
        at.run()
        end = time.process_time()
        if at.exception:
            raise SystemExit(f"{args.page}: {[e.value for e in at.exception]}")
        s = marks.pop("start")
        out = {k: round(v - s, 2) for k, v in sorted(marks.items(), key=lambda kv: kv[1])}
        out["end"] = round(end - s, 2)
        return out

    cold = run()
    warm = run()
    print(f"{args.page} {name}/{args.lp}: cold CPU s {cold} | warm CPU s {warm}")


if __name__ == "__main__":
    main()
