"""CPU seconds of a page's own Python to its first figure / table / message, cold and warm.

    python benchmarks/bench_page_cpu.py PAGE [--data ../shared/data/wmt24_esa] [--lp en-cs] [--saved]

Runs app.py through Streamlit's AppTest as a deep link does (``/PAGE?dataset=NAME&lp=LP``: the
app shell, then the page), in a fresh process with an empty cache (a new ``EVALCORE_CACHE``),
the dataset saved in a temporary workspace. Prints the process CPU time (``time.process_time``)
from the start of app.py (``st.set_page_config``) to the page's first ``st.plotly_chart``
(``figure``), first ``st.dataframe`` (``table``) and first ``st.info`` (``info``) and to the end
of the run (``end``); then the same for a second session (``warm``: every cache warm).

Two set-ups (the output line says which):

* default: the dataset is saved in this process just before the page runs, nothing else computed
  (the caches and the statistics store empty): the very first visit after an upload;
* ``--saved``: a fresh server on a dataset saved earlier: a separate process saves it as the
  Data page does, including the statistics a save precomputes
  (:func:`evalcore.views.precompute.precompute_statistics`), and exits; this process then
  runs the page with nothing in memory, reading the workspace and the on-disk caches.

``--state DIR`` (with ``--saved``) keeps what the helper process saved (the workspace and the
cache folder) in DIR and reuses it on the next run; each run works on a copy of the cache folder,
so the state stays as the save left it (``benchmarks/bench_server_cpu.py`` shares it).

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
    ap.add_argument("--saved", action="store_true",
                    help="a fresh server on a dataset saved (and its statistics precomputed) by another process")
    ap.add_argument("--state", default=None,
                    help="with --saved: keep the saved workspace and cache in this folder and reuse them")
    ap.add_argument("--save-only", action="store_true", help=argparse.SUPPRESS)  # the --saved helper process
    args = ap.parse_args()
    if args.save_only:
        _save_only(args.data)
        return
    try:  # the kernels as compiled before (a restarted server), not compiled into the empty cache
        from evalcore.metrics._jit import pin_cache_folder
        pin_cache_folder()
    except ImportError:  # an older checkout: numba's own folder
        pass
    tmp = Path(tempfile.mkdtemp(prefix="bench-page-cpu-"))
    os.environ["EVALCORE_HOME"] = str(tmp / "home")
    os.environ["EVALCORE_CACHE"] = str(tmp / "cache")
    os.chdir(ROOT)
    name = Path(args.data).name
    if args.saved and args.state:
        import shutil

        saved_state(Path(args.state), args.data)
        os.environ["EVALCORE_HOME"] = str(Path(args.state) / "home")
        shutil.copytree(Path(args.state) / "cache", tmp / "cache")
        mode = "saved earlier, fresh server"
    elif args.saved:
        import subprocess

        subprocess.run([sys.executable, __file__, args.page, "--data", args.data, "--save-only"], check=True)
        mode = "saved earlier, fresh server"
    else:
        from evalcore.io import load_collection, workspace

        workspace.save(load_collection(args.data), name)
        mode = "saved in-process, empty caches"

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
    print(f"{args.page} {name}/{args.lp} ({mode}): cold CPU s {cold} | warm CPU s {warm}")


def saved_state(state: Path, data: str) -> None:
    """Save ``data`` and precompute its statistics (the ``--save-only`` helper process) into
    ``state/home`` and ``state/cache``, unless an earlier run did (``state/READY`` names the data)."""
    import subprocess

    ready = state / "READY"
    want = str(Path(data).resolve())
    if ready.exists() and ready.read_text().strip() == want:
        return
    if state.exists() and any(state.iterdir()):  # never delete a folder someone named by mistake
        raise SystemExit(f"{state}: not empty and not a saved state of {want}: name a new folder")
    state.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, EVALCORE_HOME=str(state / "home"), EVALCORE_CACHE=str(state / "cache"))
    subprocess.run([sys.executable, __file__, "x", "--data", data, "--save-only"], check=True, env=env, cwd=ROOT)
    ready.write_text(str(Path(data).resolve()) + "\n")


def _save_only(data: str) -> None:
    """Save ``data`` into the workspace as the Data page does, then precompute its statistics
    (the page starts that in the background after a save; here it is awaited)."""
    from evalcore.io import load_collection, workspace

    coll = load_collection(data)
    workspace.save(coll, Path(data).name)
    try:
        from evalcore.views.precompute import precompute_statistics
    except ImportError:  # an older checkout: the save alone
        return
    precompute_statistics(coll)


if __name__ == "__main__":
    main()
