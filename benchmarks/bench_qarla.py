"""Benchmark of evalcore.qarla on the IWSLT-sized synthetic set of Amigó et al. 2006 §4.2.

500 segments x 16 references x 20 systems, random SimTensors built directly (the similarity
computation is not part of the target). Targets: KING of a 13-metric set <= 2 s,
greedy search over 40 metrics <= 60 s, memory <= 2 GB. Also times the literal brute force
of tests/test_qarla.py on a small set to show the speed ratio.

    python benchmarks/bench_qarla.py            # full run (about a minute)
    python benchmarks/bench_qarla.py --quick    # smaller, for a smoke test
"""
from __future__ import annotations

import argparse
import os
import resource
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from evalcore.metrics.base import SimTensors  # noqa: E402
from evalcore.qarla import QueenIndex, greedy_search, king_of_set, orange_king  # noqa: E402


def synthetic(n_metrics: int, S: int, N: int, A: int, seed: int = 0) -> dict[str, SimTensors]:
    """Random similarities with a weak shared "human-likeness" signal: references are a bit
    closer to each other than outputs are to references, differently per metric."""
    rng = np.random.default_rng(seed)
    seg_ids = [str(i) for i in range(S)]
    systems = [f"sys{i}" for i in range(A)]
    refs = [f"ref{j}" for j in range(N)]
    out = {}
    for m in range(n_metrics):
        bonus = rng.uniform(0.0, 0.15)
        rr = rng.random((S, N, N)) + bonus
        rr[:, np.arange(N), np.arange(N)] = np.nan
        sr = rng.random((A, S, N))
        lr = rng.random((S, N)) + bonus
        ls = rng.random((A, S, N))
        out[f"m{m:02d}"] = SimTensors(f"m{m:02d}", seg_ids, systems, refs, sr, rr, ls, lr)
    return out


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    S, N, A = (100, 16, 20) if args.quick else (500, 16, 20)
    n_greedy = 10 if args.quick else 40
    rows = []

    tens = synthetic(n_greedy, S, N, A)
    names = sorted(tens)
    base_mb = peak_mb()

    t0 = time.perf_counter()
    for n in names[:13]:
        orange_king(tens[n])
    rows.append(("ORANGE/KING of 13 single metrics (§1.1)", time.perf_counter() - t0, ""))

    t0 = time.perf_counter()
    r = king_of_set([tens[n] for n in names[:13]], mode="local")
    dt = time.perf_counter() - t0
    rows.append(("KING of a 13-metric set, from SimTensors (bits built + AND + count)", dt,
                 f"KING={r.king:.4f}, target <= 2 s"))

    idx = QueenIndex({n: tens[n] for n in names[:13]}, mode="local")
    t0 = time.perf_counter()
    r2 = idx.king(names[:13])
    rows.append(("KING of the same set, bits already built (AND + count)", time.perf_counter() - t0,
                 f"KING={r2.king:.4f}"))
    per_metric_mb = sum(b.nbytes for b in idx.bits.values()) / 13 / 2**20
    del idx

    t0 = time.perf_counter()
    res = greedy_search(tens, mode="local")
    dt = time.perf_counter() - t0
    rows.append((f"greedy search over {n_greedy} metrics (incl. building bits)", dt,
                 f"chose {len(res.chosen)}: KING {res.trace['king_after'].iloc[0]:.4f} -> {res.king:.4f}, "
                 "target <= 60 s"))

    # pooled QUEEN (3 references: leave-one-out needs the pool), WMT21 en-de shape
    pooled = synthetic(13, 527, 3, 8, seed=2)
    t0 = time.perf_counter()
    rp = king_of_set(list(pooled.values()), mode="auto")
    rows.append(("KING of a 13-metric set, 527 seg x 3 ref x 8 sys (pooled, 3162 pairs)",
                 time.perf_counter() - t0, f"KING={rp.king:.4f}"))

    # brute force vs fast on a small set
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))
    from test_qarla import bf_king_of_set  # the literal implementation used by the tests

    small = synthetic(3, 40, 8, 10, seed=1)
    ts = list(small.values())
    present = np.ones((40, 8), bool)
    sys_ok = np.ones((10, 40), bool)
    t0 = time.perf_counter()
    kb = bf_king_of_set(ts, "local", "geq", "geq", present, sys_ok)[1]
    t_bf = time.perf_counter() - t0
    t0 = time.perf_counter()
    kf = king_of_set(ts, mode="local").king
    t_f = time.perf_counter() - t0
    assert abs(kb - kf) < 1e-12
    rows.append(("brute force, KING of a 3-metric set, 40 seg x 8 ref x 10 sys", t_bf, f"KING={kb:.4f}"))
    rows.append(("fast, same", t_f, f"ratio {t_bf / t_f:.0f}x"))

    print(f"synthetic set: {S} segments x {N} references x {A} systems; numpy {np.__version__}; "
          f"{os.cpu_count()} cpu(s)")
    print(f"{'what':<72} {'seconds':>9}  note")
    for what, sec, note in rows:
        print(f"{what:<72} {sec:>9.3f}  {note}")
    print(f"comparison bits per metric: {per_metric_mb:.1f} MiB")
    print(f"peak RSS: {peak_mb():.0f} MiB (after building the inputs: {base_mb:.0f} MiB); target <= 2048 MiB")


if __name__ == "__main__":
    main()
