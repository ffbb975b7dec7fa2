"""Benchmark: full pairwise similarity tensors (evalcore) vs a loop over sacreBLEU's sentence_score.

    python benchmarks/bench_metrics.py                # 500 segments x 20 systems x 16 references
    python benchmarks/bench_metrics.py --quick        # smaller, for a smoke run
    python benchmarks/bench_metrics.py --all          # also every lexical id in one similarity_tensors_many call

For each of bleu / chrf / ter the engine computes, per segment, every candidate (20 system
outputs + 16 references) against every reference (``sim``: 36 x 16 single-reference scores)
and against every "all references but one" set (``loo``: 36 x 16 multi-reference scores).
The sacreBLEU loop computes the same numbers with ``BLEU(effective_order=True)``, ``CHRF()``
and ``TER()`` ``.sentence_score`` calls. Timing the whole loop would take very long, so the
loop is timed on a random sample of segments and extrapolated linearly (segments are
independent and alike); the sample's values are checked to be identical (|diff| <= 1e-9) to
the engine's. The tensor computation is single-threaded, without the disk cache. The
"sim only" speed-up divides sacreBLEU's time for the single-reference pairs alone by the
engine's time for the *whole* tensors (sim + loo), so it understates the engine's advantage.
Engine times are printed as wall and CPU (``time.process_time``) seconds: the machine is
shared, so CPU time is the stable figure; the load average is printed as well.
"""
from __future__ import annotations

import argparse
import os
import random
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sacrebleu.metrics import BLEU as SBLEU, CHRF as SCHRF, TER as STER  # noqa: E402

from evalcore.core.dataset import Dataset  # noqa: E402
from evalcore.metrics.base import get_metric  # noqa: E402
from evalcore.metrics.engine import clear_block_caches, similarity_tensors, similarity_tensors_many  # noqa: E402

ORACLES = {"bleu": lambda: SBLEU(effective_order=True), "chrf": SCHRF, "ter": STER}


def make_data(n_seg: int, n_refs: int, n_sys: int) -> Dataset:
    try:
        from evalcore.io.synth import make_synthetic

        return make_synthetic(n_seg, n_refs, n_sys, seed=0, judgements=False)
    except ImportError:  # fallback: random sentences
        import pandas as pd

        rng = random.Random(0)
        vocab = [f"w{i}" for i in range(3000)]
        segs = pd.DataFrame({"seg_id": [str(i + 1) for i in range(n_seg)]})
        refs, outs = [], []
        for s in segs.seg_id:
            base = [rng.choice(vocab) for _ in range(rng.randint(8, 35))]
            for j in range(n_refs):
                refs.append((s, f"ref-{j:02d}", " ".join(w if rng.random() < 0.8 else rng.choice(vocab) for w in base)))
            for a in range(n_sys):
                outs.append((f"sys-{a:02d}", s, " ".join(w if rng.random() < 0.6 else rng.choice(vocab) for w in base)))
        return Dataset("bench", "xx-en", segs, pd.DataFrame(refs, columns=["seg_id", "ref_id", "text"]),
                       pd.DataFrame(outs, columns=["system", "seg_id", "text"]))


def sacrebleu_sample(ds: Dataset, mid: str, seg_idx: list[int]):
    """Time sacreBLEU's sentence_score over the segments' sim and loo pairs; return the values."""
    oracle = ORACLES[mid]()
    rt, st = ds.ref_texts(), ds.sys_texts()
    t_sim = t_loo = c_sim = c_loo = 0.0
    vals = {}
    for s in seg_idx:
        refs = [rt[r][s] for r in ds.ref_ids]
        cands = [st[a][s] for a in ds.systems] + refs
        t0, c0 = time.perf_counter(), time.process_time()
        sim = [[oracle.sentence_score(c, [r]).score for r in refs] for c in cands]
        t1, c1 = time.perf_counter(), time.process_time()
        loo = [[oracle.sentence_score(c, refs[:j] + refs[j + 1:]).score for j in range(len(refs))] for c in cands]
        t2, c2 = time.perf_counter(), time.process_time()
        t_sim += t1 - t0
        t_loo += t2 - t1
        c_sim += c1 - c0
        c_loo += c2 - c1
        vals[s] = (np.array(sim), np.array(loo))
    return (t_sim, t_loo, c_sim, c_loo), vals


def check_equal(ds, t, vals, mid) -> float:
    sign = 1.0 if get_metric(mid).meta.higher_is_better else -1.0
    worst = 0.0
    A = len(ds.systems)
    for s, (sim, loo) in vals.items():
        ours_sim = np.concatenate([t.sys_ref[:, s, :], t.ref_ref[s]], axis=0) * sign
        ours_loo = np.concatenate([t.loo_sys[:, s, :], np.full((len(ds.ref_ids), len(ds.ref_ids)), np.nan)]) * sign
        d = np.abs(ours_sim - sim)
        worst = max(worst, float(np.nanmax(d)))
        # ref_ref diagonal is NaN by definition; loo is compared on the system rows and the
        # held-out-reference diagonal (the only reference entries SimTensors keeps)
        worst = max(worst, float(np.nanmax(np.abs(ours_loo[:A] - loo[:A]))))
        worst = max(worst, float(np.nanmax(np.abs(t.loo_ref[s] * sign - np.diag(loo[A:])))))
    return worst


def run_main(n_seg, n_refs, n_sys, sample, metrics):
    ds = make_data(n_seg, n_refs, n_sys)
    pairs = (n_sys + n_refs) * n_refs * n_seg
    print(f"\n## {n_seg} segments x {n_sys} systems x {n_refs} references "
          f"({pairs:,} candidate-reference pairs + as many leave-one-out scores)\n")
    print("| metric | evalcore tensors wall / CPU (s) | sacreBLEU sim only wall / CPU (s, extrap.) "
          "| sacreBLEU sim+loo wall / CPU (s, extrap.) | speed-up sim only wall / CPU | speed-up sim+loo wall / CPU "
          "| sample segs | max abs diff |")
    print("|---|---|---|---|---|---|---|---|")
    rng = random.Random(1)
    for mid in metrics:
        get_metric(mid).segment_block(["a b"], ["a b", "b a"])  # warm-up (numba compile / load)
        clear_block_caches()
        t0, c0 = time.perf_counter(), time.process_time()
        t = similarity_tensors(ds, mid, cache_dir=False)
        ours, ours_cpu = time.perf_counter() - t0, time.process_time() - c0
        k = sample.get(mid, 10)
        idx = rng.sample(range(n_seg), min(k, n_seg))
        (t_sim, t_loo, c_sim, c_loo), vals = sacrebleu_sample(ds, mid, idx)
        scale = n_seg / len(idx)
        sim_full, all_full = t_sim * scale, (t_sim + t_loo) * scale
        csim_full, call_full = c_sim * scale, (c_sim + c_loo) * scale
        diff = check_equal(ds, t, vals, mid)
        print(f"| {mid} | {ours:.2f} / {ours_cpu:.2f} | {sim_full:.1f} / {csim_full:.1f} | {all_full:.1f} / "
              f"{call_full:.1f} | {sim_full / ours:.1f}x / {csim_full / ours_cpu:.1f}x | {all_full / ours:.0f}x / "
              f"{call_full / ours_cpu:.0f}x | {len(idx)} | {diff:.1e} |", flush=True)
    print(f"\nload average (1, 5 min): {os.getloadavg()[0]:.1f}, {os.getloadavg()[1]:.1f}")
    return ds


def run_scaling(n_sys, seg_list, ref_list, metrics):
    print(f"\n## evalcore tensor time (s, wall / CPU) vs segments and references ({n_sys} systems)\n")
    print("| segments | refs | " + " | ".join(metrics) + " |")
    print("|---|---|" + "---|" * len(metrics))
    for n_seg in seg_list:
        for n_refs in ref_list:
            ds = make_data(n_seg, n_refs, n_sys)
            row = []
            for mid in metrics:
                clear_block_caches()
                t0, c0 = time.perf_counter(), time.process_time()
                similarity_tensors(ds, mid, cache_dir=False)
                row.append(f"{time.perf_counter() - t0:.2f} / {time.process_time() - c0:.2f}")
            print(f"| {n_seg} | {n_refs} | " + " | ".join(row) + " |", flush=True)


def run_all(ds):
    """Every lexical id in one ``similarity_tensors_many`` call (per-metric time via wrappers)."""
    from bench_lexical import lexical_ids, timed_metrics

    ids = lexical_ids()
    for m in ids:
        get_metric(m).segment_block(["a b c d", "c d a b"], ["a b c d", "b a d"])
    clear_block_caches()
    metrics, spent = timed_metrics(ids)
    t0, c0 = time.perf_counter(), time.process_time()
    similarity_tensors_many(ds, metrics, cache_dir=False)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(f"\n## every lexical id ({len(ids)}) on the main set, one similarity_tensors_many call\n")
    print("| metric | wall s | CPU s |")
    print("|---|---|---|")
    for mid in sorted(ids, key=lambda m: -spent[m][1]):
        print(f"| {mid} | {spent[mid][0]:.2f} | {spent[mid][1]:.2f} |")
    print(f"| **total** | {wall:.1f} | {cpu:.1f} |")
    print(f"\nload average (1, 5 min): {os.getloadavg()[0]:.1f}, {os.getloadavg()[1]:.1f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--no-scaling", action="store_true")
    args = ap.parse_args()
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    metrics = ["bleu", "chrf", "ter"]
    if args.quick:
        ds = run_main(60, 6, 5, {"bleu": 5, "chrf": 5, "ter": 3}, metrics)
        seg_list, ref_list = [30, 60], [2, 6]
    else:
        ds = run_main(500, 16, 20, {"bleu": 25, "chrf": 10, "ter": 3}, metrics)
        seg_list, ref_list = [125, 250, 500], [4, 8, 16]
    if not args.no_scaling:
        run_scaling(20 if not args.quick else 5, seg_list, ref_list, metrics)
    if args.all:
        run_all(ds)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\npeak RSS: {peak:.0f} MB; python {sys.version.split()[0]}; cpu count {os.cpu_count()}")


if __name__ == "__main__":
    main()
