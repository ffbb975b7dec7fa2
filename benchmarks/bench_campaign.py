"""Scale benchmark of a whole campaign: every lexical metric, system and segment
level, in-process vs a Dask ``local:N`` cluster, and projections from measured per-cell costs.

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_campaign.py --wmt24 ../shared/data/wmt24_esa \
        --segments 60 --synth-segments 1000 --workers 2

* WMT24 (the three pairs of ../shared/data/wmt24_esa): the first ``--segments`` segments of each
  pair (all systems), every lexical metric (``--metrics`` to choose), ``score_table`` at system and
  segment level, once in-process and once on ``local:N``; the two tables are compared (identical).
* Synthetic (``evalcore.io.synth.make_synthetic``, 10 systems × 4 references): ``--synth-segments``
  segments, same metrics and levels, in-process. With ``--synth-segments 100000`` this is the
  issue's full target; smaller values are measured and **projected linearly** (every metric is a
  sum over segments), and the output says so.
* Projections: measured CPU seconds per (segment × system) cell of every metric × the size of
  all of WMT24 (11 pairs, ~1,000 segments, ~20 systems each: ``--wmt24-cells``), for one process
  and for a 10-worker cluster (ideal scaling divided by the CPU overhead of distributing measured
  with ``local:N`` here: in-process CPU / (driver + workers) CPU).

The issue's full-size run *as a user runs it* (the synthetic data written to disk, then the
``score --metrics lexical --level both --scheduler local:2`` command, CPU and peak memory of the
driver and of each worker measured from outside) is ``benchmarks/bench_full.py``::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_full.py --segments 100000 --scheduler local:2

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
    import resource as _r  # (also run on the workers)

    return _r.getrusage(who).ru_maxrss / 1024


def cells(ds) -> int:
    return int(len(ds.outputs))


def _cpu() -> float:
    import resource  # (also run on the workers)

    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def worker_cpu(sch) -> float:
    """CPU seconds used so far by the cluster's worker processes."""
    return float(sum(sch.client.run(_cpu).values()))


def score_both(ds, metrics, scheduler=None, per_family=None, keep=True):
    """Both levels from one statistics pass per metric, metric by metric, as ``score --level
    both`` does (:func:`evalcore.scoring.parallel.iter_score_levels`). Returns (system table or None,
    segment table or None, rows, a digest of every table, wall seconds, CPU seconds of this
    process); ``per_family`` dict gets CPU seconds per metric family (a family's shared pass is
    charged to its first metric, so per family is the honest unit). ``keep=False`` keeps only
    the digest (a 100k-segment run never holds every metric's rows)."""
    import hashlib

    import pandas as pd

    from evalcore.scoring.parallel import iter_score_levels

    t0, c0 = time.perf_counter(), _cpu()
    last = c0
    parts_sys, parts_seg, rows = [], [], 0
    digest = hashlib.sha256()
    for m, out in iter_score_levels(ds, metrics, level="both", scheduler=scheduler):
        c = _cpu()
        if per_family is not None:
            per_family[m.meta.family] = per_family.get(m.meta.family, 0.0) + c - last
        for lv in ("system", "segment"):
            t = out[lv]
            rows += len(t)
            digest.update(pd.util.hash_pandas_object(t, index=False).values.tobytes())
            if keep:
                (parts_sys if lv == "system" else parts_seg).append(t)
        last = _cpu()
    cat = (lambda xs: pd.concat(xs, ignore_index=True) if xs else None)
    return cat(parts_sys), cat(parts_seg), rows, digest.hexdigest(), time.perf_counter() - t0, _cpu() - c0


def _wall_split(fn):
    """fn() -> (result, wall seconds)."""
    t = time.perf_counter()
    r = fn()
    return r, time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--wmt24", default=str(ROOT.parent / "shared" / "data" / "wmt24_esa"))
    ap.add_argument("--segments", type=int, default=60, help="segments per WMT24 pair (997 = all; 0 = skip WMT24)")
    ap.add_argument("--synth-segments", type=int, default=1000, help="synthetic segments (0 = skip)")
    ap.add_argument("--synth-local", action="store_true", help="also score the synthetic data on local:N")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--metrics", help="comma-separated ids (default: every lexical metric)")
    ap.add_argument("--wmt24-cells", type=int, default=11 * 997 * 20,
                    help="(segment x system) cells of all of WMT24 for the projection (default 11 x 997 x 20)")
    ap.add_argument("--json", help="also write the raw figures here")
    a = ap.parse_args()
    import pandas as pd

    from evalcore.io import load_collection
    from evalcore.scoring.parallel import Scheduler
    from evalcore.io.synth import make_synthetic

    metrics = [m.strip() for m in a.metrics.split(",")] if a.metrics else lexical_ids()
    out = {"metrics": metrics, "uptime_start": load_avg(), "segments": a.segments, "workers": a.workers}
    print(f"# {len(metrics)} metrics; {out['uptime_start']}", flush=True)
    sch = None
    rows = []

    # ---- WMT24: in-process vs local:N -----------------------------------------------------
    if a.segments:
        coll = load_collection(a.wmt24)
        sl = {lp: ds.subset(seg_ids=ds.seg_ids[:a.segments]) for lp, ds in coll.items()}
        per_family: dict[str, float] = {}
        digests = {}
        n_cells = 0
        t_in = cpu_in = 0.0
        for lp, ds in sl.items():
            _, _, nrows, dig, t, c = score_both(ds, metrics, per_family=per_family, keep=False)
            digests[lp] = dig
            n_cells += cells(ds)
            t_in += t
            cpu_in += c
            rows.append({"lp": lp, "segments": ds.n_segments, "systems": len(ds.systems), "cells": cells(ds),
                         "rows": nrows, "in_process_wall_s": t, "in_process_cpu_s": c})
            print(f"in-process {lp}: {t:.1f} s wall, {c:.1f} s CPU ({cells(ds)} cells)", flush=True)
        out["rss_in_process_mb"] = rss_mb()
        sch, start = _wall_split(lambda: Scheduler(f"local:{a.workers}").__enter__())
        t_dist = cpu_dist = 0.0
        same = True
        for r, (lp, ds) in zip(rows, sl.items()):
            w0 = worker_cpu(sch)
            _, _, _, dig, t, c = score_both(ds, metrics, scheduler=sch, keep=False)
            wc = worker_cpu(sch) - w0
            same &= dig == digests[lp]
            r["local_wall_s"], r["local_cpu_driver_s"], r["local_cpu_workers_s"] = t, c, wc
            t_dist += t
            cpu_dist += c + wc
            print(f"local:{a.workers} {lp}: {t:.1f} s wall, CPU {c:.1f} s here + {wc:.1f} s workers", flush=True)
        out.update(wmt24=rows, wmt24_in_s=t_in, wmt24_in_cpu_s=cpu_in, wmt24_local_s=t_dist,
                   wmt24_local_cpu_s=cpu_dist, cluster_start_s=start, identical=bool(same), wmt24_cells=n_cells,
                   uptime_wmt24=load_avg())
        out["wmt24_per_cell_us"] = {f: v / n_cells * 1e6 for f, v in per_family.items()}

    # ---- synthetic 100k x 10 x 4 (or a fraction, projected) --------------------------------
    if a.synth_segments:
        syn, gen = _wall_split(lambda: make_synthetic(a.synth_segments, 4, 10, seed=0))
        n = cells(syn)
        per_family = {}
        _, _, nrows, dig, t_syn, c_syn = score_both(syn, metrics, per_family=per_family, keep=False)
        out.update(synth_segments=a.synth_segments, synth_cells=n, synth_gen_s=gen, synth_score_s=t_syn,
                   synth_score_cpu_s=c_syn, synth_rows=nrows, rss_synth_mb=rss_mb(), uptime_synth=load_avg(),
                   synth_per_cell_us={f: v / n * 1e6 for f, v in per_family.items()},
                   synth_projected_100k_cpu_s=c_syn * 100_000 / a.synth_segments)
        print(f"synthetic {a.synth_segments} x 10 x 4: generate {gen:.1f} s, score {t_syn:.1f} s wall, "
              f"{c_syn:.1f} s CPU, {nrows} rows", flush=True)
        if a.synth_local:
            if sch is None:
                sch, out["cluster_start_s"] = _wall_split(lambda: Scheduler(f"local:{a.workers}").__enter__())
            w0 = worker_cpu(sch)
            _, _, _, dig2, t, c = score_both(syn, metrics, scheduler=sch, keep=False)
            wc = worker_cpu(sch) - w0
            out.update(synth_local_wall_s=t, synth_local_cpu_driver_s=c, synth_local_cpu_workers_s=wc,
                       synth_local_identical=dig2 == dig, uptime_synth_local=load_avg())
            print(f"synthetic on local:{a.workers}: {t:.1f} s wall, CPU {c:.1f} s here + {wc:.1f} s workers, "
                  f"identical: {dig2 == dig}", flush=True)
    if sch is not None:
        out["rss_workers_mb"] = max(sch.client.run(lambda: rss_mb()).values())
        sch.close()
    out["rss_mb"] = rss_mb()

    # ---- projections ---------------------------------------------------------------------------
    per = out.get("synth_per_cell_us") or out.get("wmt24_per_cell_us") or {}
    per_cell = sum(per.values()) / 1e6
    if "wmt24_in_cpu_s" in out and out.get("wmt24_local_cpu_s"):
        eff = out["wmt24_in_cpu_s"] / out["wmt24_local_cpu_s"]
    elif out.get("synth_local_cpu_workers_s"):
        eff = out["synth_score_cpu_s"] / (out["synth_local_cpu_driver_s"] + out["synth_local_cpu_workers_s"])
    else:
        eff = float("nan")
    out["projection"] = {"per_cell_all_metrics_cpu_s": per_cell, "cpu_efficiency_local": eff,
                         "wmt24_all_1proc_s": per_cell * a.wmt24_cells,
                         "wmt24_all_10workers_s": per_cell * a.wmt24_cells / (10 * min(1.0, eff)),
                         "synth_100k_2cores_s": per_cell * 1_000_000 / (2 * min(1.0, eff))}
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1))
    print(json.dumps(out, indent=1))
    if rows:
        df = pd.DataFrame(rows)
        print(df.to_string(index=False))


if __name__ == "__main__":
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    main()
