"""The WMT24 metrics-task table on wmt24_esa (en-cs, en-ja, en-zh), evalcore beside mt-metrics-eval.

    python benchmarks/bench_metatask.py [--data ../shared/data/wmt24_esa] [--metrics bleu,chrf,...]

Metric segment scores are computed once with evalcore (not timed). Then the same arrays go to

* evalcore: ``evalcore.analysis.metatask.run_task(TASKS["wmt24"], ...)`` (SPA with 1,000 permutations,
  tie-calibrated item-wise acc23, weighted average, average rank), and
* mt-metrics-eval (the oracle snapshot in ../shared/oracles, used here only to time it on the
  same arrays): ``CompareMetricsWithPairwiseConfidenceError`` and ``CompareMetrics(KendallWithTiesOpt,
  'item', perm_test='pairs', sample_rate=1.0)`` per pair with k = 0, then ``TaskSetResults``.

Prints a Markdown table of wall times and the largest difference between the two tables.
Never part of the test suite.
"""
from __future__ import annotations

import argparse
import sys
import time
import types
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

METRICS = "bleu,chrf,chrf++,ter,wer,per,rouge-1,rouge-2,rouge-l,gtm-1"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "wmt24_esa"))
    ap.add_argument("--metrics", default=METRICS)
    args = ap.parse_args()
    metrics = args.metrics.split(",")
    from evalcore.io import load_collection
    from evalcore.analysis.metatask import pair_data, run_task
    from evalcore.analysis.metatask_tasks import TASKS
    from evalcore.metrics.base import get_metric
    from evalcore.metrics.engine import score_table

    task = TASKS["wmt24"]
    t0 = time.perf_counter()
    pairs = {}
    for lp, ds in load_collection(args.data).items():
        seg = score_table(ds, metrics, level="segment", ref_ids=["refA"])
        low = [m for m in metrics if not get_metric(m).meta.higher_is_better]
        seg.loc[seg["metric"].isin(low), "score"] *= -1  # error rates negated, as the command does
        pairs[lp], _ = pair_data(ds, task, seg, None, human="esa", include_human=False)
    t_score = time.perf_counter() - t0

    t0 = time.perf_counter()
    res = run_task(task, pairs, metrics, num_permutations=1000)
    t_ours = time.perf_counter() - t0

    oracle = ROOT.parent / "shared" / "oracles" / "mt-metrics-eval"
    sys.modules.setdefault("apache_beam", types.ModuleType("apache_beam"))
    try:
        import dacite  # noqa: F401
    except ImportError:
        sys.modules["dacite"] = types.ModuleType("dacite")
    sys.path.insert(0, str(oracle))
    from mt_metrics_eval import data, stats, tasks

    def corr(gold, metric):
        g = [None if np.isnan(x) else float(x) for x in gold.ravel()]
        return stats.Correlation(len(gold), g, [float(x) for x in metric.ravel()])

    t0 = time.perf_counter()
    results = []
    for lp in sorted(pairs):
        p = pairs[lp]
        corrs = {m: corr(p.gold, p.seg[m]) for m in metrics}
        r = tasks.TaskResults(None, data.CompareMetricsWithPairwiseConfidenceError(corrs, k=0))
        r.name = "corr_fcn=pce corr_fcn_args={}"
        results.append(r)
        r = tasks.TaskResults(None, data.CompareMetrics(corrs, stats.KendallWithTiesOpt, "item", 0,
                                                        perm_test="pairs", sample_rate=1.0))
        r.name = "corr_fcn=KendallWithTiesOpt corr_fcn_args={'sample_rate':1.0}"
        results.append(r)
    tsr = tasks.TaskSetResults(results)
    w = [1 / len(results)] * len(results)
    avg, ranks = tsr.AverageCorrs(w), tsr.AverageRanks(w)
    t_mtme = time.perf_counter() - t0

    diff = max(max(abs(res.average[m] - avg[m]), abs(res.average_rank[m] - ranks[m])) for m in metrics)
    for st, r in zip(res.subtasks, results):
        diff = max(diff, max(abs(res.values.loc[m, st.name] - r.Corr(m)) for m in metrics))
    n_sys = {lp: len(p.systems) for lp, p in pairs.items()}
    print(f"pairs {sorted(pairs)}, systems {n_sys}, {len(metrics)} metrics, SPA 1,000 permutations, k = 0")
    print("| step | wall (s) |\n|---|---|")
    print(f"| metric segment scores (evalcore, not compared) | {t_score:.1f} |")
    print(f"| task table, evalcore `run_task` | {t_ours:.2f} |")
    print(f"| task table, mt-metrics-eval (same arrays) | {t_mtme:.2f} |")
    print(f"largest |evalcore - MTME| over values, averages and ranks: {diff:.2e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
