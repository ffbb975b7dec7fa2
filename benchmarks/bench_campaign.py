"""Scale benchmark of a whole campaign (issue 12 item 4): every lexical metric, system and segment
level, in-process vs a Dask ``local:N`` cluster, and projections from measured per-cell costs.

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_campaign.py --wmt24 ../shared/data/wmt24_esa \
        --segments 60 --synth-segments 1000 --workers 2

* WMT24 (the three pairs of ../shared/data/wmt24_esa): the first ``--segments`` segments of each
  pair (all systems), every lexical metric (``--metrics`` to choose), ``score_table`` at system and
  segment level, once in-process and once on ``local:N``; the two tables are compared (identical).
* Synthetic (``evalcore.synth.make_synthetic``, 10 systems × 4 references): ``--synth-segments``
  segments, same metrics and levels, in-process. With ``--synth-segments 100000`` this is the
  issue's full target; smaller values are measured and **projected linearly** (every metric is a
  sum over segments), and the output says so.
* Projections: measured CPU seconds per (segment × system) cell of every metric × the size of
  all of WMT24 (11 pairs, ~1,000 segments, ~20 systems each: ``--wmt24-cells``), for one process
  and for a 10-worker cluster (ideal scaling divided by the CPU overhead of distributing measured
  with ``local:N`` here: in-process CPU / (driver + workers) CPU).

CPU time is reported beside wall time: on a shared machine the wall time mostly measures the
other jobs.

Each part runs in this process; peak RSS (ru_maxrss) of this process and of the finished worker
processes are reported. Times are wall-clock on a shared machine: note ``uptime`` beside them.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def lexical_ids() -> list[str]:
    from evalcore.metrics.base import get_metric, metric_ids
    from evalcore.syntax.metrics import is_syntactic

    return [m for m in metric_ids() if not is_syntactic(m) and get_metric(m).meta.needs_text]


def load_avg() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def rss_mb(who=resource.RUSAGE_SELF) -> float:
    return resource.getrusage(who).ru_maxrss / 1024


def cells(ds) -> int:
    return int(len(ds.outputs))


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def worker_cpu(sch) -> float:
    """CPU seconds used so far by the cluster's worker processes."""
    return float(sum(sch.client.run(_cpu).values()))


def score_both(ds, metrics, scheduler=None, per_metric=None):
    """(system table, segment table, wall seconds, CPU seconds of this process); ``per_metric``
    dict gets CPU seconds per metric."""
    import pandas as pd

    from evalcore.parallel import score_table

    t0, c0 = time.perf_counter(), _cpu()
    if per_metric is None:
        sys_t = score_table(ds, metrics, level="system", scheduler=scheduler)
        seg_t = score_table(ds, metrics, level="segment", scheduler=scheduler)
    else:
        parts_sys, parts_seg = [], []
        for m in metrics:
            c = _cpu()
            parts_sys.append(score_table(ds, [m], level="system", scheduler=scheduler))
            parts_seg.append(score_table(ds, [m], level="segment", scheduler=scheduler))
            per_metric[m] = per_metric.get(m, 0.0) + _cpu() - c
        sys_t, seg_t = pd.concat(parts_sys, ignore_index=True), pd.concat(parts_seg, ignore_index=True)
    return sys_t, seg_t, time.perf_counter() - t0, _cpu() - c0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--wmt24", default=str(ROOT.parent / "shared" / "data" / "wmt24_esa"))
    ap.add_argument("--segments", type=int, default=60, help="segments per WMT24 pair (997 = all)")
    ap.add_argument("--synth-segments", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--metrics", help="comma-separated ids (default: every lexical metric)")
    ap.add_argument("--wmt24-cells", type=int, default=11 * 997 * 20,
                    help="(segment x system) cells of all of WMT24 for the projection (default 11 x 997 x 20)")
    ap.add_argument("--json", help="also write the raw figures here")
    a = ap.parse_args()
    import pandas as pd

    from evalcore.io import load_collection
    from evalcore.parallel import Scheduler
    from evalcore.qarla.cli_support import restrict_segments
    from evalcore.synth import make_synthetic

    metrics = [m.strip() for m in a.metrics.split(",")] if a.metrics else lexical_ids()
    out = {"metrics": metrics, "uptime_start": load_avg(), "segments": a.segments, "workers": a.workers}
    print(f"# {len(metrics)} metrics; {out['uptime_start']}", flush=True)

    # ---- WMT24: in-process vs local:N -----------------------------------------------------
    coll = load_collection(a.wmt24)
    sl = {lp: restrict_segments(ds, ds.seg_ids[:a.segments]) for lp, ds in coll.items()}
    per_metric: dict[str, float] = {}
    rows = []
    tabs_in = {}
    n_cells = 0
    t_in = cpu_in = 0.0
    for lp, ds in sl.items():
        s, g, t, c = score_both(ds, metrics, per_metric=per_metric)
        tabs_in[lp] = (s, g)
        n_cells += cells(ds)
        t_in += t
        cpu_in += c
        rows.append({"lp": lp, "segments": ds.n_segments, "systems": len(ds.systems), "cells": cells(ds),
                     "in_process_wall_s": t, "in_process_cpu_s": c})
        print(f"in-process {lp}: {t:.1f} s wall, {c:.1f} s CPU ({cells(ds)} cells)", flush=True)
    out["rss_in_process_mb"] = rss_mb()
    t_start = time.perf_counter()
    with Scheduler(f"local:{a.workers}") as sch:
        start = time.perf_counter() - t_start
        t_dist = cpu_dist = 0.0
        same = True
        for r, (lp, ds) in zip(rows, sl.items()):
            w0 = worker_cpu(sch)
            s, g, t, c = score_both(ds, metrics, scheduler=sch)
            wc = worker_cpu(sch) - w0
            same &= s.equals(tabs_in[lp][0]) and g.equals(tabs_in[lp][1])
            r["local_wall_s"], r["local_cpu_driver_s"], r["local_cpu_workers_s"] = t, c, wc
            t_dist += t
            cpu_dist += c + wc
            print(f"local:{a.workers} {lp}: {t:.1f} s wall, CPU {c:.1f} s here + {wc:.1f} s workers", flush=True)
    out.update(wmt24=rows, wmt24_in_s=t_in, wmt24_in_cpu_s=cpu_in, wmt24_local_s=t_dist, wmt24_local_cpu_s=cpu_dist,
               cluster_start_s=start, identical=bool(same),
               wmt24_cells=n_cells, rss_workers_mb=rss_mb(resource.RUSAGE_CHILDREN), uptime_wmt24=load_avg())
    out["per_cell_s"] = {m: v / n_cells for m, v in per_metric.items()}

    # ---- synthetic 100k x 10 x 4 (or a fraction, projected) --------------------------------
    t = time.perf_counter()
    syn = make_synthetic(a.synth_segments, 4, 10, seed=0)
    gen = time.perf_counter() - t
    s, g, t_syn, c_syn = score_both(syn, metrics)
    out.update(synth_segments=a.synth_segments, synth_gen_s=gen, synth_score_s=t_syn, synth_score_cpu_s=c_syn,
               synth_projected_100k_cpu_s=c_syn * 100_000 / a.synth_segments, rss_synth_mb=rss_mb(),
               uptime_end=load_avg(), synth_rows=len(s) + len(g))
    print(f"synthetic {a.synth_segments} x 10 x 4: generate {gen:.1f} s, score {t_syn:.1f} s wall, {c_syn:.1f} s CPU",
          flush=True)

    # ---- projections ---------------------------------------------------------------------------
    per_cell = sum(out["per_cell_s"].values())
    eff = cpu_in / cpu_dist if cpu_dist else float("nan")  # CPU overhead of distributing (1 = none)
    out["projection"] = {"per_cell_all_metrics_cpu_s": per_cell, "cpu_efficiency_local": eff,
                         "wmt24_all_1proc_s": per_cell * a.wmt24_cells,
                         "wmt24_all_10workers_s": per_cell * a.wmt24_cells / (10 * min(1.0, eff))}
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1))
    print(json.dumps(out, indent=1))
    df = pd.DataFrame(rows)
    print(df.to_markdown(index=False) if hasattr(df, "to_markdown") else df.to_string(index=False))


if __name__ == "__main__":
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    main()
