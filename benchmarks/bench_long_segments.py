"""One over-long segment: CPU time and peak memory of every alignment metric.

    python benchmarks/bench_long_segments.py                  # 20,000 words, every metric below
    python benchmarks/bench_long_segments.py --words 2500 5000 --metrics meteor
    python benchmarks/bench_long_segments.py --timeout 120     # give up on a metric after 120 s

One segment (two references, two outputs: one output and one reference of ``--words`` words,
the others short; ``--short-ref``: only the output is long) is scored at
segment and system level through ``score_table`` (the path of ``evalcore score``), then its
similarity tensors (the QARLA pages), each metric in a fresh Python process so that peak memory
is that metric's alone: ``ru_maxrss`` of the child minus the same child's after importing
evalcore and compiling the kernels on a short warm-up segment (numba's allocations do not show
in ``tracemalloc``). Reported: CPU seconds (``time.process_time``, not wall time: the machine is
shared) and the peak memory increase in MB, and whether the long output was refused (NaN).

The target (issue "the long-segment cap must cap"): ROUGE and METEOR on a 20,000-word segment
under 500 MB and 5 s CPU. Words are drawn from a 300-word vocabulary, so the number of equal
word pairs (what an alignment or a run search visits) grows with the square of the length.
``--tokenize char`` scores TER on character tokens (paragraph-length texts).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
METRICS = ["rouge-1", "rouge-2", "rouge-l", "rouge-w", "rouge-s*", "rouge-su*", "meteor", "gtm-1", "gtm-2", "ter",
           "wer", "per"]

CHILD = r"""
import json, random, resource, sys, time
sys.path.insert(0, {root!r})
import numpy as np
from evalcore.core.dataset import Dataset
from evalcore.metrics.engine import score_table, similarity_tensors

metric, words, tokenize, long_ref = {metric!r}, {words}, {tokenize!r}, {long_ref!r}
rng = random.Random(16)
def text(n):
    return " ".join(f"w{{rng.randrange(300)}}" for _ in range(n))

def dataset(n_long):
    import pandas as pd
    segs = pd.DataFrame({{"seg_id": ["1", "2"], "source": ["uno", "dos"]}})
    refs = pd.DataFrame({{"seg_id": ["1", "1", "2", "2"], "ref_id": ["A", "B", "A", "B"],
                          "text": [text(12), text(12), text(n_long if long_ref else 12), text(12)]}})
    outs = pd.DataFrame({{"system": ["s1", "s2", "s1", "s2"], "seg_id": ["1", "1", "2", "2"],
                          "text": [text(12), text(12), text(n_long), text(12)]}})
    return Dataset("long", "xx-en", segs, refs, outs)

def run(ds):
    seg = score_table(ds, [metric], level="segment", tokenize=tokenize)
    sys_ = score_table(ds, [metric], level="system", tokenize=tokenize)
    t = similarity_tensors(ds, metric, cache_dir=False, tokenize=tokenize)
    long = seg[(seg.system == "s1") & (seg.seg_id == "2")]["score"]
    return bool(long.isna().all()), bool(np.isfinite(sys_["score"]).all()), t

run(dataset(12))  # imports, kernels compiled
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
ds = dataset(words)
c0 = time.process_time()
refused, finite, _ = run(ds)
cpu = time.process_time() - c0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({{"metric": metric, "words": words, "cpu_s": round(cpu, 2), "peak_mb": round((peak - base) / 1024, 1),
                  "refused": refused, "system_finite": finite}}))
"""


def measure(metric: str, words: int, tokenize: str | None, timeout: float, long_ref: bool = True) -> dict:
    code = CHILD.format(root=str(ROOT), metric=metric, words=words, tokenize=tokenize, long_ref=long_ref)
    try:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"metric": metric, "words": words, "cpu_s": f">{timeout:g} (wall, killed)", "peak_mb": "?",
                "refused": "?", "system_finite": "?"}
    if out.returncode:
        return {"metric": metric, "words": words, "error": out.stderr.strip().splitlines()[-1:]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--words", type=int, nargs="+", default=[20000])
    ap.add_argument("--metrics", default=",".join(METRICS))
    ap.add_argument("--tokenize", default=None, help="sacreBLEU tokenizer for the word metrics (e.g. char)")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--short-ref", action="store_true",
                    help="short references only (default: reference A of the long segment is as long as the output)")
    args = ap.parse_args(argv)
    print("| metric | words | CPU s | peak +MB | long output refused | system score finite |")
    print("|---|---:|---:|---:|---|---|")
    for w in args.words:
        for m in [x.strip() for x in args.metrics.split(",") if x.strip()]:
            r = measure(m, w, args.tokenize, args.timeout, not args.short_ref)
            if "error" in r:
                print(f"| {m} | {w} | error: {r['error']} | | | |")
            else:
                print(f"| {m} | {w} | {r['cpu_s']} | {r['peak_mb']} | {r['refused']} | {r['system_finite']} |")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
