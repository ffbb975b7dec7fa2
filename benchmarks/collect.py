"""Assemble BENCHMARKS.md from the per-topic results in benchmarks/RESULTS_*.md.

Each RESULTS file is written by the benchmark it belongs to (with the exact command and the
machine state); this script only concatenates them under one index, so the figures live in
one place and are never edited by hand twice.  Run: python benchmarks/collect.py
"""
from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent
ORDER = ["long_segments", "metrics", "lexical", "syntax", "qarla", "stats", "pages", "browser", "synth", "campaign"]
TITLES = {
    "long_segments": "One over-long segment: the long-segment cap",
    "metrics": "Metric engine: BLEU, chrF, TER and all lexical families (issue 3)",
    "lexical": "Lexical families NIST, GTM, WER/PER, ROUGE, character n-grams, METEOR (issue 3)",
    "syntax": "Syntactic families and parsing (issue 8)",
    "qarla": "QARLA: ORANGE, KING, QUEEN, metric-set search (issue 4)",
    "stats": "Correlations and significance (issue 5)",
    "pages": "Dashboard pages (issue 6)",
    "browser": "Every page at real size in a real browser (issue 12)",
    "synth": "Synthetic data generator (issue 2)",
    "campaign": "Campaign scale: several language pairs, Dask (issue 12)",
}


def main() -> None:
    files = {p.stem.removeprefix("RESULTS_"): p for p in ROOT.glob("RESULTS_*.md")}
    order = [k for k in ORDER if k in files] + sorted(set(files) - set(ORDER))
    out = ["# Benchmarks", "",
           "Speed and memory figures, each with the command that produced it. Machine: 2 cores, "
           "24 GiB, shared with other jobs while these ran (each section says what it measured, "
           "wall and/or CPU time). Targets come from the issues; timed assertions are never "
           "part of the test suite. Regenerate this file with `python benchmarks/collect.py` "
           "after re-running a benchmark.", "", "| section | source |", "|---|---|"]
    out += [f"| {TITLES.get(k, k)} | `benchmarks/{files[k].name}` |" for k in order]
    for k in order:
        body = files[k].read_text(encoding="utf-8").strip().split("\n")
        if body and body[0].startswith("#"):
            body = body[1:]
        out += ["", f"## {TITLES.get(k, k)}", ""] + ["#" + ln if ln.startswith("#") else ln for ln in body]
    (ROOT.parent / "BENCHMARKS.md").write_text("\n".join(out).rstrip() + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
