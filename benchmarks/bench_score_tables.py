"""Where a cold page's time goes at real size: the score tables behind the Systems page and the
divergence browser, per metric, on one WMT24 language pair.

    python benchmarks/bench_score_tables.py [--data ../shared/data/wmt24_esa] [--lp en-cs]
        [--metrics bleu,chrf,...] [--code PATH]

Per metric, CPU seconds (``time.process_time``: the machine is shared, so wall time would
measure the other jobs) of ``views.scores.system_stats`` (the corpus statistics of every system)
and then ``views.scores.segment_scores`` (every system's segment scores), each with an empty disk
cache; then the bootstrap CIs of the Systems page (``views.systems.system_table``, 200 resamples,
paired test against the first system) from the cached statistics; and loading the saved
dataset. ``--code`` runs another checkout of evalcore (e.g. an older commit from ``git archive``)
to compare before and after. Prints a Markdown table.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def cpu(f):
    t = time.process_time()
    out = f()
    return time.process_time() - t, out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "wmt24_esa"))
    ap.add_argument("--lp", default="en-cs")
    ap.add_argument("--metrics", default="bleu,chrf,ter,meteor,rouge-l,nist-4,gtm-1,wer,per")
    ap.add_argument("--code", default=str(ROOT), help="the evalcore checkout to time")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(Path(args.code).resolve()))
    try:  # the kernels as compiled before (a restarted server), not compiled into the empty cache
        from evalcore.metrics._jit import pin_cache_folder
        pin_cache_folder()
    except ImportError:  # an older checkout: numba's own folder
        pass
    tmp = tempfile.mkdtemp(prefix="bench-tables-")
    os.environ["EVALCORE_CACHE"] = str(Path(tmp) / "cache")
    os.environ["EVALCORE_HOME"] = str(Path(tmp) / "home")
    from evalcore.scoring import defaults as common_view
    from evalcore.scoring import scores as scores_view
    from evalcore.views import systems as systems_view
    from evalcore.io import workspace
    from evalcore.io import load_collection

    name = workspace.save(load_collection(args.data), "bench")
    t_load, coll = cpu(lambda: workspace.load_saved(name))
    ds = coll[args.lp]
    print(f"{ds.n_segments} segments x {len(ds.systems)} systems, {len(ds.ref_ids)} reference set(s); "
          f"code {args.code}; load average {os.getloadavg()[0]:.1f}", flush=True)
    rows, tot = [], [0.0, 0.0]
    metrics = args.metrics.split(",")
    for m in metrics:
        a, _ = cpu(lambda: scores_view.system_stats(ds, [m]))
        b, _ = cpu(lambda: scores_view.segment_scores(ds, [m]))
        tot[0] += a
        tot[1] += b
        rows.append((m, a, b))
        print(f"{m}: corpus statistics {a:.2f} s, then segment scores {b:.2f} s", flush=True)
    crit = common_view.default_criterion(ds)
    t_boot, _ = cpu(lambda: systems_view.system_table(ds, metrics, [crit] if crit else [], ds.systems[0], n_boot=200))
    print(f"\nload average at the end {os.getloadavg()[0]:.1f}\n")
    print("| metric | corpus statistics (CPU s) | then segment scores (CPU s) |")
    print("|---|---|---|")
    for m, a, b in rows:
        print(f"| {m} | {a:.2f} | {b:.2f} |")
    print(f"| **all** | **{tot[0]:.2f}** | **{tot[1]:.2f}** |")
    print(f"\nSystems page bootstrap CIs + paired tests (200 resamples, statistics cached): {t_boot:.2f} CPU s; "
          f"loading the saved dataset (3 language pairs): {t_load:.2f} CPU s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
