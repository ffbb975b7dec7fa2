"""Speed of the lexical families other than BLEU/chrF/TER on a synthetic pairwise task.

For every segment the engine asks each metric for ``segment_block(systems + references,
references)`` (all candidates × all references, plus leave-one-reference-out). This script
times exactly that, segments in the outer loop and metrics in the inner loop (so the
per-block caches shared by nist-1..5, gtm-2/gtm-3/meteor and the 18 charngram ids are used as
the engine would), and compares a few segments with the default reference loop
``Metric.segment_block``.

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_lexical.py --segments 500 --systems 20 --refs 16

Synthetic text: Zipf-distributed vocabulary of 3000 words, source-like sentence of ~25
tokens per segment, each system output / reference a noisy copy (20 % substitutions, 5 %
deletions). Prints a table of ms per segment per metric and the total.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evalcore.metrics import get_metric  # noqa: E402
from evalcore.metrics.base import Metric  # noqa: E402

IDS = ([f"nist-{n}" for n in range(1, 6)] + ["gtm-1", "gtm-2", "gtm-3", "wer", "per", "rouge-1", "rouge-2",
       "rouge-l", "rouge-w", "rouge-s*", "rouge-su*", "meteor"]
       + [f"charngram-{m}{n}" for m in "prf" for n in range(1, 7)])


def make_blocks(n_seg: int, n_sys: int, n_ref: int, seed: int = 0):
    rnd = random.Random(seed)
    vocab = [f"w{i}" for i in range(3000)]
    weights = [1 / (i + 1) for i in range(3000)]

    def noisy(base):
        out = []
        for t in base:
            x = rnd.random()
            if x < 0.2:
                out.append(rnd.choices(vocab, weights)[0])
            elif x >= 0.25:
                out.append(t)
        return " ".join(out)

    blocks = []
    for _ in range(n_seg):
        src = rnd.choices(vocab, weights, k=max(1, int(rnd.gauss(25, 10))))
        refs = [noisy(src) for _ in range(n_ref)]
        systems = [noisy(src) for _ in range(n_sys)]
        blocks.append((systems + refs, refs))
    return blocks


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--segments", type=int, default=500)
    ap.add_argument("--systems", type=int, default=20)
    ap.add_argument("--refs", type=int, default=16)
    ap.add_argument("--loop-segments", type=int, default=3, help="segments for the default-loop comparison")
    args = ap.parse_args()
    blocks = make_blocks(args.segments, args.systems, args.refs)
    metrics = {m: get_metric(m) for m in IDS}
    for m in metrics.values():
        if hasattr(m, "fit"):
            m.fit([refs for _, refs in blocks])
    spent = {m: 0.0 for m in IDS}
    t_all = time.perf_counter()
    for cands, refs in blocks:
        for mid, m in metrics.items():
            t = time.perf_counter()
            m.segment_block(cands, refs)
            spent[mid] += time.perf_counter() - t
    total = time.perf_counter() - t_all
    print(f"# {args.segments} segments x ({args.systems} systems + {args.refs} refs) x {args.refs} refs")
    print(f"{'metric':16s} {'ms/segment':>11s}")
    for mid in IDS:
        print(f"{mid:16s} {spent[mid] / args.segments * 1000:11.2f}")
    print(f"{'TOTAL':16s} {total / args.segments * 1000:11.2f}   ({total:.1f} s)")
    # default loop on a few segments (fresh metric objects, no shared caches)
    k = min(args.loop_segments, len(blocks))
    print(f"\n# speed-up over Metric.segment_block (default loop) on {k} segments, fresh caches")
    for mid in ("nist-4", "gtm-2", "wer", "rouge-l", "rouge-w", "rouge-su*", "charngram-f6", "meteor"):
        m = get_metric(mid)
        t = time.perf_counter()
        for cands, refs in blocks[:k]:
            Metric.segment_block(m, cands, refs)
        slow = time.perf_counter() - t
        from evalcore.metrics import charngram, gtm, nist
        for mod in (charngram, gtm, nist):
            mod._BLOCK_CACHE.clear()
        t = time.perf_counter()
        for cands, refs in blocks[:k]:
            m.segment_block(cands, refs)
        fast = time.perf_counter() - t
        print(f"{mid:16s} loop {slow / k * 1000:9.1f} ms/seg   block {fast / k * 1000:7.1f} ms/seg   x{slow / fast:6.1f}")


if __name__ == "__main__":
    main()
