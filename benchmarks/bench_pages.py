"""Dashboard speed: cold start, and every page's cold and warm run under Streamlit's AppTest.

    python benchmarks/bench_pages.py [--synthetic-segments 10000] [--synthetic-systems 10]

* cold start: a fresh Python process imports Streamlit and runs app.py once (the Data page on
  the bundled sample), as a user's first page load does;
* per page on the sample and on a synthetic dataset (evalcore.io.synth.make_synthetic): the first
  run with empty caches ("cold"; the synthetic set uses the default bounded scope of
  every segment by default) and the median of 3 reruns ("warm", cached scores);
* the divergence browser on the synthetic set with every segment (scope 0 = all, i.e. every
  (system, segment) row) and two cheap metrics, to show paging/ranking on 100k rows.

Everything runs in a temporary workspace and cache (EVALCORE_HOME / EVALCORE_CACHE).
Prints a Markdown table. Set EVALCORE_BENCH_APP to benchmark another copy of app.py.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
APP = os.environ.get("EVALCORE_BENCH_APP", str(ROOT / "app.py"))
PAGES = ["data", "systems", "human_likeness", "likeness_vs_acceptability", "queen_vs_human", "divergence", "judges",
         "learn"]


def cold_start() -> float:
    code = ("import time; t=time.time(); from streamlit.testing.v1 import AppTest; "
            f"at=AppTest.from_file({APP!r}, default_timeout=120); at.run(); "
            "assert not at.exception, at.exception; print(time.time()-t)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=os.environ)
    if out.returncode:
        raise RuntimeError(out.stderr[-2000:])
    return float(out.stdout.strip().splitlines()[-1])


def time_page(page: str, state: dict, reruns: int = 3) -> tuple[float, float]:
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(APP, default_timeout=1800)
    for k, v in state.items():
        at.session_state[k] = v
    at.run()
    t = time.perf_counter()
    if page != "data":
        at.switch_page(f"pages/{page}.py")
    at.run()
    cold = time.perf_counter() - t
    if at.exception:
        raise RuntimeError(f"{page}: {[e.message for e in at.exception]}")
    warm = []
    for _ in range(reruns):
        t = time.perf_counter()
        at.run()
        warm.append(time.perf_counter() - t)
    return cold, statistics.median(warm)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--synthetic-segments", type=int, default=10000)
    ap.add_argument("--synthetic-systems", type=int, default=10)
    ap.add_argument("--synthetic-refs", type=int, default=4)
    ap.add_argument("--skip-synthetic", action="store_true")
    ap.add_argument("--pages", nargs="*", default=PAGES, help="only these pages")
    ap.add_argument("--skip-sample", action="store_true")
    args = ap.parse_args(argv)
    try:  # the kernels as compiled before (a restarted server), not compiled into the empty cache
        from evalcore.metrics._jit import pin_cache_folder
        pin_cache_folder()
    except ImportError:  # an older checkout: numba's own folder
        pass
    tmp = Path(tempfile.mkdtemp(prefix="bench-pages-"))
    os.environ["EVALCORE_HOME"] = str(tmp / "home")
    os.environ["EVALCORE_CACHE"] = str(tmp / "cache")

    rows = [] if args.skip_sample else [
        ("cold start (new process, app.py on the sample, Data page)", "", f"{cold_start():.2f}", "")]
    for page in [] if args.skip_sample else args.pages:
        c, w = time_page(page, {})
        rows.append(("sample", page, f"{c:.2f}", f"{w:.3f}"))
        print(rows[-1], flush=True)

    if not args.skip_synthetic:
        from evalcore.io import workspace
        from evalcore.io.synth import make_synthetic

        t = time.perf_counter()
        ds = make_synthetic(args.synthetic_segments, args.synthetic_refs, args.synthetic_systems, seed=0)
        workspace.save({ds.lp: ds}, "synthetic-bench", replace=True)
        meta = workspace.list_saved()[0]
        label = f"{meta['name']} (saved {meta.get('saved_at', '?')})"
        print(f"synthetic dataset made and saved in {time.perf_counter() - t:.1f} s", flush=True)
        state = {"dataset_label": label, "dataset_select": label}
        name = f"synthetic {args.synthetic_segments}x{args.synthetic_systems}"
        for page in [p for p in args.pages if p != "learn"]:  # the Learn page always uses the sample
            c, w = time_page(page, state)
            rows.append((f"{name} (default scope)", page, f"{c:.2f}", f"{w:.3f}"))
            print(rows[-1], flush=True)
        if "divergence" not in args.pages:
            args.pages = []
        full = dict(state, div_scope=0, div_metrics=["per", "gtm-1"], div_queen=[])
        c, w = time_page("divergence", full) if args.pages else (float("nan"), float("nan"))
        rows.append((f"{name}, every segment ({args.synthetic_segments * args.synthetic_systems} rows), per+gtm-1",
                     "divergence", f"{c:.2f}", f"{w:.3f}"))
    print("\n| dataset | page | cold run (s) | warm rerun (s, median of 3) |\n|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
