"""All lexical metric families together through the engine.

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_lexical.py                 # 500 segs x 20 systems x 16 refs
    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_lexical.py --scaling       # + growth table (segments x refs)
    python benchmarks/bench_lexical.py --segments 50 --no-main --scaling      # quick

Data: ``evalcore.io.synth.make_synthetic(segments, refs, systems, seed=0)``. Every registered
lexical id (bleu*, chrf, chrf++, ter, nist-*, gtm-*, wer, per, rouge-*, charngram-*, meteor) is
computed by ONE call of ``evalcore.metrics.engine.similarity_tensors_many`` (no disk cache):
for every segment all 36 candidates (20 outputs + 16 references) against all 16 references,
plus every leave-one-reference-out score, i.e. the complete ``SimTensors`` QUEEN/KING need.
Segments are the outer loop and metrics the inner one, so blocks shared between metrics
(tokens, n-gram layers, GTM runs, NIST and character n-gram overlaps) are computed once.

Per-metric time is measured by wrapping each metric's block method (``prepare`` included, e.g.
NIST's corpus weights). Wall and CPU (``time.process_time``) time are both printed because the
machine is shared; the load average is printed too.
"""
from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evalcore.metrics.base import get_metric, metric_ids  # noqa: E402
from evalcore.metrics.engine import clear_block_caches, similarity_tensors_many  # noqa: E402
from evalcore.io.synth import make_synthetic  # noqa: E402

FAMILIES = {"BLEU", "chrF", "edit", "NIST", "GTM", "ROUGE", "char-ngram", "METEOR"}


def lexical_ids() -> list[str]:
    return [m for m in metric_ids() if get_metric(m).meta.family in FAMILIES]


def timed_metrics(ids):
    """Metric instances whose engine-facing methods add their wall / CPU time to ``spent``."""
    spent = {m: [0.0, 0.0] for m in ids}
    out = []
    for mid in ids:
        m = get_metric(mid)
        names = ["segment_blocks" if callable(getattr(m, "segment_blocks", None)) else "segment_block"]
        if callable(getattr(m, "prepare", None)):
            names.append("prepare")
        for name in names:
            f = getattr(m, name)

            def wrapper(*a, _f=f, _mid=mid, **k):
                t, c = time.perf_counter(), time.process_time()
                try:
                    return _f(*a, **k)
                finally:
                    spent[_mid][0] += time.perf_counter() - t
                    spent[_mid][1] += time.process_time() - c
            setattr(m, name, wrapper)
        out.append(m)
    return out, spent


def run(n_seg, n_refs, n_sys, ids):
    ds = make_synthetic(n_seg, n_refs, n_sys, seed=0, judgements=False)
    ds.content_hash()
    clear_block_caches()
    metrics, spent = timed_metrics(ids)
    t, c = time.perf_counter(), time.process_time()
    similarity_tensors_many(ds, metrics, cache_dir=False)
    return time.perf_counter() - t, time.process_time() - c, spent


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--segments", type=int, default=500)
    ap.add_argument("--systems", type=int, default=20)
    ap.add_argument("--refs", type=int, default=16)
    ap.add_argument("--no-main", action="store_true")
    ap.add_argument("--scaling", action="store_true")
    args = ap.parse_args()
    ids = lexical_ids()
    # warm-up: compile the numba kernels (cached on disk after the first run) outside the timing
    for m in ids:
        get_metric(m).segment_block(["a b c d", "c d a b"], ["a b c d", "b a d"])
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}, {len(ids)} lexical ids")
    if not args.no_main:
        la0 = os.getloadavg()
        wall, cpu, spent = run(args.segments, args.refs, args.systems, ids)
        la1 = os.getloadavg()
        print(f"\n## {args.segments} segments x {args.systems} systems x {args.refs} references, "
              f"every lexical id in one similarity_tensors_many call\n")
        print("| metric | wall s | CPU s |")
        print("|---|---:|---:|")
        for mid in sorted(ids, key=lambda m: -spent[m][1]):
            print(f"| {mid} | {spent[mid][0]:.2f} | {spent[mid][1]:.2f} |")
        print(f"| **total (engine call)** | **{wall:.1f}** | **{cpu:.1f}** |")
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"\npeak RSS {peak:.0f} MB; load average before {la0[0]:.1f}, after {la1[0]:.1f} "
              f"(1-min), {la1[1]:.1f} (5-min)")
    if args.scaling:
        print(f"\n## growth: all {len(ids)} lexical ids, {args.systems} systems (seconds, wall / CPU)\n")
        print("| segments | refs | wall s | CPU s | CPU ms per segment |")
        print("|---:|---:|---:|---:|---:|")
        segs = [s for s in (125, 250, 500) if s <= args.segments] or [args.segments]
        for n_seg in segs:
            for n_refs in (4, 8, 16):
                wall, cpu, _ = run(n_seg, n_refs, args.systems, ids)
                print(f"| {n_seg} | {n_refs} | {wall:.1f} | {cpu:.1f} | {cpu / n_seg * 1000:.0f} |", flush=True)
        print(f"\nload average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
