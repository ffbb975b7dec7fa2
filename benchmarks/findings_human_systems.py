"""Human translations as systems on WMT21 news en-de (docs/findings.md).

Freitag et al. (2021, TACL) found that BLEU's system-level correlation with MQM changes sign
when human translations are scored as systems. This script scores the 8 MT systems and the two
human translations that are not the reference with BLEU and chrF against each of ref-A, ref-C
and ref-D in turn (every candidate against the same one reference), on the 527 MQM-judged
segments and on all 1,002, and prints the system-level Pearson and Kendall (τ_b) correlation
with MQM (mean over each system's judged segments), MT systems only and with the human
translations, as a Markdown table.

    python benchmarks/findings_human_systems.py [../shared/data/wmt21_news_mqm]
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from evalcore.io import load_dataset
from evalcore.human.scores import human_scores
from evalcore.metrics.engine import score_table
from evalcore.stats.tables import correlation_table

METRICS = ["bleu", "chrf"]


def main(path: str) -> None:
    ds = load_dataset(path, lp="en-de")
    human = human_scores(ds, "mqm")
    judged = {s: set(g["seg_id"]) for s, g in human.groupby("system", sort=False)}
    with_text = set(ds.systems) | set(ds.ref_ids)
    no_text = [s for s in judged if s not in with_text]
    print(f"MQM-judged systems without text (cannot be scored, left out): {', '.join(no_text)}\n")
    print("| reference | metric | segments | MT only: Pearson | Kendall τ_b | n | with human translations: "
          "Pearson | Kendall τ_b | n | human translations as systems |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for ref in ds.ref_ids:
        others = [r for r in ds.ref_ids if r != ref]
        for seg_label, segs in (("527 judged", judged), ("all 1,002", None)):
            scores = score_table(ds, METRICS, level="system", ref_ids=[ref], include_references=True, segments=segs)
            for metric in METRICS:
                ms = scores[scores["metric"] == metric]
                cells = []
                for exclude in (list(ds.ref_ids) + no_text, [ref] + no_text):
                    vals = {}
                    for method in ("pearson", "kendall"):
                        t = correlation_table(human, ms, level="system", method=method, exclude_systems=exclude)
                        vals[method], n = float(t["value"].iloc[0]), int(t["n"].iloc[0])
                    cells += [f"{vals['pearson']:+.3f}", f"{vals['kendall']:+.3f}", str(n)]
                print(f"| {ref} | {metric} | {seg_label} | " + " | ".join(cells) + f" | {', '.join(others)} |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else str(Path(__file__).resolve().parent.parent.parent / "shared" / "data"
                                                    / "wmt21_news_mqm"))
