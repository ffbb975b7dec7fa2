"""Time and peak memory of evalcore.io.synth.make_synthetic for the two benchmark shapes.

    python benchmarks/bench_synth.py            # both shapes
    python benchmarks/bench_synth.py --small    # 500 x 16 x 20 only

Each shape runs in a fresh subprocess so that its peak RSS (ru_maxrss) is its own.
Prints a markdown table.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHAPES = [(500, 16, 20), (100_000, 4, 10)]  # segments, references, systems

CHILD = r"""
import json, resource, sys, time
from evalcore.io.synth import make_synthetic
n, r, s = map(int, sys.argv[1:4])
t = time.perf_counter()
d = make_synthetic(n, r, s, seed=0)
gen = time.perf_counter() - t
t = time.perf_counter()
d.content_hash()
hsh = time.perf_counter() - t
print(json.dumps({"gen": gen, "hash": hsh, "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "refs": len(d.references), "outputs": len(d.outputs), "judgements": len(d.judgements)}))
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--small", action="store_true")
    shapes = SHAPES[:1] if ap.parse_args().small else SHAPES
    print("| segments | refs | systems | reference rows | output rows | judgement rows | generate (s) | content_hash (s) | peak RSS (MB) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for n, r, s in shapes:
        out = subprocess.run([sys.executable, "-c", CHILD, str(n), str(r), str(s)], check=True, cwd=ROOT,
                             capture_output=True, text=True).stdout
        m = json.loads(out)
        print(f"| {n} | {r} | {s} | {m['refs']} | {m['outputs']} | {m['judgements']} | {m['gen']:.2f} | "
              f"{m['hash']:.2f} | {m['rss_mb']:.0f} |")


if __name__ == "__main__":
    main()
