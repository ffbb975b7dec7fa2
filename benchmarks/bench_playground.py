"""Playground latency per edit: what the page computes after each edit of the candidate
(every default metric's score with every reference left out in turn, the matched n-grams, a
challenge check), on every segment × system of the bundled sample, warm (after one call that
loads the metrics and compiles the kernels). Target: ≤ 300 ms per edit.

    python benchmarks/bench_playground.py
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    from evalcore.io import load_collection
    from evalcore.views import playground as P

    ds = load_collection(ROOT / "sample_data" / "teaching_es_en")["es-en"]
    ch = P.challenge("chrf-not-bleu")

    def edit(item, text):
        P.score_candidate(text, item.references, P.DEFAULT_METRICS, start=item.start, tokenize="13a")
        P.match_view(text, item.references, tokenize="13a")
        P.check_challenge(ch, item, item.start, text, tokenize="13a")

    first = P.item_from_dataset(ds, str(ds.seg_ids[0]), ds.systems[0])
    t0 = time.perf_counter()
    edit(first, first.start + " x")
    cold = time.perf_counter() - t0
    times = []
    for seg in ds.seg_ids:
        for system in ds.systems:
            item = P.item_from_dataset(ds, str(seg), system)
            text = (item.start or "") + " indeed"  # an edit: one word appended
            t0 = time.perf_counter()
            edit(item, text)
            times.append(time.perf_counter() - t0)
    ms = np.array(times) * 1000
    print(f"edits: {len(ms)} ({len(ds.seg_ids)} segments x {len(ds.systems)} systems, "
          f"{len(ds.ref_ids)} references, metrics {', '.join(P.DEFAULT_METRICS)})")
    print(f"first edit (metrics loaded, kernels compiled): {cold * 1000:.0f} ms")
    print(f"per edit: median {np.median(ms):.0f} ms, p95 {np.percentile(ms, 95):.0f} ms, max {ms.max():.0f} ms "
          f"(target <= 300 ms)")


if __name__ == "__main__":
    main()
