"""`score bleu,chrf,ter --level both` on a synthetic campaign, in CPU seconds, beside a plain
sacreBLEU loop, and optionally beside another checkout of evalcore (before / after):

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_score_cli.py [--segments 10000] [--systems 10]
        [--peer-segments 1000] [--mean-len 20] [--code PATH ...] [--repeat 1]

The data: ``evalcore.io.synth`` (one reference, ``--segments`` × ``--systems`` outputs), written
once to a temporary folder. Each run is a child process (imports included) whose CPU time
(user + system, ``resource.getrusage(RUSAGE_CHILDREN)``) is measured: the machine is shared, so
wall time would measure the other jobs. ``--code`` names evalcore checkouts to time (default:
this one), each run in that folder with ``PYTHONPATH`` set to it (after one small run that
fills its own numba cache, ``$NUMBA_CACHE_DIR``; each timed run gets an empty evalcore cache), alternating when ``--repeat`` > 1.

The peer is what a user would write instead: sacreBLEU's ``sentence_bleu``, ``sentence_chrf``,
``sentence_ter`` for every output and ``corpus_bleu``, ``corpus_chrf``, ``corpus_ter`` for every
system, over the first ``--peer-segments`` segments (a full-size sacreBLEU loop takes minutes);
the ratio is per output (CPU per segment × system), stated with the row. Never part of the tests.
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PEER = r"""
import csv, sys
import sacrebleu
folder, n = sys.argv[1], int(sys.argv[2])
def rows(name):
    with open(f"{folder}/{name}", encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
ref = {r["seg_id"]: r["text"] for r in rows("references.tsv")}
segs = [str(i) for i in range(1, n + 1)]
by_sys = {}
for r in rows("outputs.tsv"):
    by_sys.setdefault(r["system"], {})[r["seg_id"]] = r["text"]
outs = 0
for system, texts in by_sys.items():
    hyp = [texts[s] for s in segs]
    refs = [ref[s] for s in segs]
    for h, r in zip(hyp, refs):
        sacrebleu.sentence_bleu(h, [r]); sacrebleu.sentence_chrf(h, [r]); sacrebleu.sentence_ter(h, [r])
        outs += 1
    sacrebleu.corpus_bleu(hyp, [refs]); sacrebleu.corpus_chrf(hyp, [refs]); sacrebleu.corpus_ter(hyp, [refs])
print(outs)
"""


def child_cpu(cmd: list[str], env: dict, cwd: Path | str = ROOT) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--segments", type=int, default=10000)
    ap.add_argument("--systems", type=int, default=10)
    ap.add_argument("--peer-segments", type=int, default=1000)
    ap.add_argument("--mean-len", type=float, default=20, help="mean words per segment (synth's default 20)")
    ap.add_argument("--code", nargs="*", default=[str(ROOT)], help="evalcore checkouts to time")
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args(argv)
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "synth"
        subprocess.run([sys.executable, "-m", "evalcore.io.synth", "--segments", str(a.segments), "--refs", "1",
                        "--systems", str(a.systems), "--out", str(data), "--no-judgements", "--mean-len", str(a.mean_len)],
                       cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
        warm = Path(tmp) / "warm"  # fills each checkout's numba cache first (not counted)
        subprocess.run([sys.executable, "-m", "evalcore.io.synth", "--segments", "50", "--refs", "1", "--systems", "2",
                        "--out", str(warm), "--no-judgements"], cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
        numba_dir = {code: str(Path(tmp) / f"numba-{i}") for i, code in enumerate(a.code)}
        for code in a.code:
            child_cpu([sys.executable, "-m", "evalcore", "score", str(warm), "--metrics", "bleu,chrf,ter", "--level", "both",
                       "--out", str(Path(tmp) / "warm.tsv")],
                      dict(env, PYTHONPATH=code, NUMBA_CACHE_DIR=numba_dir[code], EVALCORE_CACHE=str(Path(tmp) / "warm-cache"),
                           EVALCORE_HOME=str(Path(tmp) / "home")), cwd=code)
        cpu: dict[str, list[float]] = {c: [] for c in a.code}
        for k in range(a.repeat):
            for i, code in enumerate(a.code):
                out = Path(tmp) / "scores.tsv"
                # a fresh statistics cache per run (nothing computed earlier is read back)
                cpu[code].append(child_cpu([sys.executable, "-m", "evalcore", "score", str(data),
                                            "--metrics", "bleu,chrf,ter", "--level", "both", "--out", str(out)],
                                           dict(env, PYTHONPATH=code, NUMBA_CACHE_DIR=numba_dir[code],
                                                EVALCORE_CACHE=str(Path(tmp) / f"cache-{k}-{i}"),
                                                EVALCORE_HOME=str(Path(tmp) / "home")), cwd=code))
        peer = child_cpu([sys.executable, "-c", PEER, str(data), str(a.peer_segments)], env)
    n_out = a.segments * a.systems
    per_peer = peer / (a.peer_segments * a.systems)
    print(f"| {a.segments} segments × {a.systems} systems, mean length {a.mean_len:g} | sacreBLEU loop over {a.peer_segments} segments: "
          f"{peer:.2f} CPU-s ({1000 * per_peer:.3f} ms per output) |")
    for code, runs in cpu.items():
        best = min(runs)
        print(f"| {code} | score bleu,chrf,ter --level both: {best:.2f} CPU-s (runs {', '.join(f'{x:.2f}' for x in runs)}); "
              f"{1000 * best / n_out:.3f} ms per output; {per_peer * n_out / best:.1f}× the sacreBLEU loop per output |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
