"""Error spans (methods §5.13): what each step costs on WMT24 ESA en-cs.

    PYTHONPATH=. python benchmarks/bench_spans.py [--data ../shared/data/wmt24_esa] [--lp en-cs] [--outputs 200]

Measures (wall and process-CPU seconds; CPU is the figure to compare under load): reading the
span table of the loaded dataset (``evalcore.io.spans.dataset_spans``), the Divergence detail's
per-output work (``evalcore.views.spans.output_layers``: BLEU, chrF and TER marks of one output
and their P/R/F1), and each marker's mean cost per output over ``--outputs`` annotated outputs
(the ``spans`` command's work is this times the number of outputs). Never part of the tests.
"""
from __future__ import annotations

import argparse
import time


def timed(fn):
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="../shared/data/wmt24_esa")
    ap.add_argument("--lp", default="en-cs")
    ap.add_argument("--outputs", type=int, default=200)
    args = ap.parse_args()
    from evalcore.analysis import spans as S
    from evalcore.io import load_collection
    from evalcore.io.spans import dataset_spans
    from evalcore.views import spans as V

    ds = load_collection(args.data)[args.lp]
    st, w, c = timed(lambda: dataset_spans(ds))
    print(f"span table: {len(st.items):,} annotations, {len(st.spans):,} spans: {w:.2f} s wall, {c:.2f} s CPU")
    texts = S._texts(ds)
    outs = [(s, g) for s, g in dict.fromkeys(zip(st.items["system"], st.items["seg_id"]))
            if (s, g) in texts and S._refs_for(ds, s, g)][:args.outputs]
    s0, g0 = outs[0]
    _, w, c = timed(lambda: V.output_layers(ds, s0, g0))
    print(f"one output's layers (first call: imports, kernels): {w:.2f} s wall, {c:.2f} s CPU")
    _, w, c = timed(lambda: V.output_layers(ds, *outs[1]))
    print(f"one output's layers (next): {w:.3f} s wall, {c:.3f} s CPU")
    for mk in S.MARKERS:
        def run(mk=mk):
            for s, g in outs:
                S.metric_marks(mk, texts[(s, g)], S._refs_for(ds, s, g))
        _, w, c = timed(run)
        print(f"{mk}: {1000 * c / len(outs):.1f} ms CPU per output ({1000 * w / len(outs):.1f} ms wall), "
              f"{len(outs)} outputs")


if __name__ == "__main__":
    main()
