"""How far a single split-half validation of `plan` can go (docs/methods.md §25.2).

WMT24 ESA en-cs, the crossed pilot (16 systems, 297 segments) split into two halves (by
document, or by segment), ``--splits`` splits from seed 100 on. For each split and N in 50, 150
(Wilcoxon with Stouffer over domains, 200 simulated campaigns), the gap between the mean power
over the 120 pairs predicted from half A and the rate at which the test is significant on
resamples of size N from half B (B at its own differences), for three predictions from A:

* ``obs``    A's power at A's observed differences (plan's ``observed`` rows);
* ``setB``   A's noise at B's observed differences (each pair's differences shifted to B's:
             the variance model checked apart from the effect);
* ``assur``  A's assurance (plan's ``--assurance`` rows);

and ``assur_vs_assur`` (A's assurance minus B's), the per-pair RMS gaps of ``obs`` and ``setB``.
Prints one JSON line per split, then the mean, SD and share within ±0.05 of each gap.

    python benchmarks/findings_plan_split.py [doc|seg] [--splits 20] [../shared/data/wmt24_esa]
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from evalcore.analysis import plan as P  # noqa: E402
from evalcore.io import load_dataset  # noqa: E402

NS = (50, 150)


def halves(pil, doc, seed, how):
    rng = np.random.default_rng(seed)
    if how == "doc":
        docs = sorted({doc[s] for s in pil.seg_ids})
        half = dict(zip(docs, rng.permutation(len(docs)) % 2))
        mask = np.array([half[doc[s]] == 0 for s in pil.seg_ids])
    else:
        mask = rng.permutation(len(pil.seg_ids)) % 2 == 0
    return pil.segments(mask), pil.segments(~mask)


def by_pair(frame):
    return {frozenset((r.system_a, r.system_b)): r.power for r in frame.itertuples()}


def one_split(pil, doc, split, how):
    a, b = halves(pil, doc, 100 + split, how)
    out = {"split": split, "how": how, "na": len(a.seg_ids), "nb": len(b.seg_ids)}
    for n in NS:
        ob, _ = P.simulate(b, n, resamples=200, seed=2)
        target = {(r.system_a, r.system_b): r.delta for r in ob.itertuples()}
        oa, _ = P.simulate(a, n, resamples=200, seed=1)
        sa, _ = P.simulate(a, n, resamples=200, seed=1, shift_to=target)
        aa, _ = P.simulate(a, n, resamples=200, seed=1, assurance=True)
        ab, _ = P.simulate(b, n, resamples=200, seed=2, assurance=True)
        m = ob["power"].mean()
        kb, ka, ks = by_pair(ob), by_pair(oa), by_pair(sa)
        out[str(n)] = {"obs": oa["power"].mean() - m, "setB": sa["power"].mean() - m,
                       "assur": aa["power"].mean() - m, "assur_vs_assur": aa["power"].mean() - ab["power"].mean(),
                       "pair_rms_obs": float(np.sqrt(np.mean([(ka[k] - kb[k]) ** 2 for k in kb]))),
                       "pair_rms_setB": float(np.sqrt(np.mean([(ks[k] - kb[k]) ** 2 for k in kb]))), "B": m}
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("how", nargs="?", default="doc", choices=["doc", "seg"])
    ap.add_argument("path", nargs="?", default="../shared/data/wmt24_esa")
    ap.add_argument("--splits", type=int, default=20)
    args = ap.parse_args()
    ds = load_dataset(args.path, lp="en-cs")
    pil = P.pilot_of(ds, "esa")
    doc = dict(zip(ds.segments["seg_id"].astype(str), ds.segments["doc_id"].astype(str)))
    rows = []
    for split in range(args.splits):
        rows.append(one_split(pil, doc, split, args.how))
        print(json.dumps(rows[-1]), flush=True)
    for n in NS:
        for k in ["obs", "setB", "assur", "assur_vs_assur", "pair_rms_obs", "pair_rms_setB"]:
            v = np.array([r[str(n)][k] for r in rows])
            print(f"N={n} {k:15s} mean {v.mean():+.3f} sd {v.std(ddof=1):.3f} "
                  f"within ±0.05 {np.mean(np.abs(v) <= 0.05):.2f} max |gap| {np.abs(v).max():.3f}")


if __name__ == "__main__":
    main()
