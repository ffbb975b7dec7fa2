"""One student's "Save and next" on the Annotate page: ``annotate.save_judgement`` (load the newest
version under the dataset's lock, check, append one line to the rater's journal file, swap in a
folder of hard links with the new journal and meta.json), on the bundled sample and on the three
WMT24 ESA pairs (3 × 997 paragraphs, ~21,000 judgements) in a temporary workspace; then the load
of the dataset with its journals merged, a full save of it (which must load back identical), and
the Class page's numbers (``views.classroom.overview``). Target: a save ≤ 2 s on the sample.

    python benchmarks/bench_annotate.py [--saves 5] [--no-wmt24]
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def run(folder: Path, label: str, saves: int, protocol: str) -> None:
    from evalcore.analysis import annotate as A
    from evalcore.io import workspace
    from evalcore.io import load_collection
    from evalcore.views import classroom as V

    t0 = time.perf_counter()
    coll = load_collection(folder, name=label)
    name = workspace.save(coll, label)
    lp = next(iter(coll))
    print(f"{label}: loaded and saved in {time.perf_counter() - t0:.2f} s ({len(coll)} pair(s))")
    ds = workspace.load_saved(name)[lp]
    plan = A.Plan(items_per_student=saves, overlap=0.5, qc=False)
    times = []
    for k, t in enumerate(A.task_sequence(ds, plan, "bench")):
        spans = [A.words_to_span(t.text, 0, 0, "minor")] if protocol == "esa" and t.text.split() else []
        t1 = time.perf_counter()
        A.save_judgement(name, lp, "bench", protocol, t, 50 + k, spans if protocol == "esa" else None)
        times.append(time.perf_counter() - t1)
    times.sort()
    print(f"{label}: {len(times)} saves, median {times[len(times) // 2]:.2f} s, max {times[-1]:.2f} s")
    t1 = time.perf_counter()
    ds = workspace.load_saved(name)[lp]
    t2 = time.perf_counter()
    workspace.update(name, lambda c: c)  # the journals written into the TSVs; refused if they load back different
    assert workspace.load_saved(name)[lp].content_hash() == ds.content_hash()
    print(f"{label}: load with the journals merged {t2 - t1:.2f} s; a full save of it "
          f"{time.perf_counter() - t2:.2f} s (loads back identical)")
    crit = next((c for c in ds.criteria if not c.startswith("class_")), None)
    t2 = time.perf_counter()
    V.overview(ds, protocol, crit, ["bleu", "chrf"], tokenize="13a")
    t3 = time.perf_counter()
    V.overview(ds, protocol, crit, ["bleu", "chrf"], tokenize="13a")
    print(f"{label}: Class overview {t3 - t2:.2f} s cold (metric scores computed), "
          f"{time.perf_counter() - t3:.2f} s warm")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--saves", type=int, default=5)
    ap.add_argument("--no-wmt24", action="store_true")
    args = ap.parse_args()
    try:  # the kernels as compiled before (a restarted server), not compiled into the empty cache
        from evalcore.metrics._jit import pin_cache_folder
        pin_cache_folder()
    except ImportError:  # an older checkout: numba's own folder
        pass
    with tempfile.TemporaryDirectory() as home:
        os.environ["EVALCORE_HOME"] = home
        os.environ["EVALCORE_CACHE"] = str(Path(home) / "cache")
        run(ROOT / "sample_data" / "teaching_es_en", "sample", args.saves, "da")
        wmt = ROOT.parent / "shared" / "data" / "wmt24_esa"
        if not args.no_wmt24 and wmt.exists():
            run(wmt, "wmt24", args.saves, "esa")
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
