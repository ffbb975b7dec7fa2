"""``python -m evalcore compare PATH --lp LP --a SYS --b SYS``: two systems side by side.

Prints the headline table (corpus scores, paired bootstrap and approximate-randomisation
p-values, who wins each signal) to stdout; with ``--out DIR`` writes every table of the Compare
page as TSV into DIR: headline, segments, disagreements (per metric × criterion), buckets,
word_f_by_frequency, characteristic_ngrams, length_ratios, length_bias. Every TSV has a
``signature`` column (metric signatures and the comparison's settings). Notes about left-out
segments or metrics go to stderr and into ``notes.txt``.
"""
from __future__ import annotations

import sys
from pathlib import Path

NAME = "compare"
STATES_SETTINGS = True  # its settings line, resolved on the data, goes to stderr from run()
HANDLES_ALL_LPS = True  # two systems of one language pair: --lp all is refused with a message
HELP = "Compare two systems: headline with paired significance, buckets, characteristic n-grams, length bias."
# no OUTPUTS: --out is a folder, created and checked (export.check_outputs on every table) in run() before any work


def add_arguments(p) -> None:
    p.add_argument("path", help="dataset folder or zip (tidy TSV, plain text, MQM TSV or mt-metrics-eval)")
    p.add_argument("--lp", help="language pair, when the data holds several")
    p.add_argument("--a", required=True, metavar="SYS", help="system A (the baseline of the paired tests)")
    p.add_argument("--b", required=True, metavar="SYS", help="system B")
    p.add_argument("--metrics", default="bleu,chrf,ter", help="comma-separated metric ids (default: bleu,chrf,ter)")
    p.add_argument("--human", default=None,
                   help="comma-separated human criteria (default: every criterion of the data; 'none' for none)")
    p.add_argument("--tokenize", default=None,
                   help="sacreBLEU tokenizer for every word-level metric, lengths and n-grams "
                        "(13a, intl, char, zh, ja-mecab, ko-mecab, none, flores101/200, spm, spBLEU-1K; default: sacreBLEU's for "
                        "the target language: zh for Chinese, ja-mecab for Japanese, ko-mecab for Korean, else "
                        "13a; the choice is reported)")
    p.add_argument("--normalisation", choices=["raw", "z", "percentile"], default="raw",
                   help="per-rater normalisation of the human scores (default raw)")
    from ..scoring.settings import add_judged_arguments

    add_judged_arguments(p, "only the segments both systems are judged on (metric and human scores over the same "
                            "segments): the default wherever human judgements exist")
    p.add_argument("--bootstrap", type=int, default=1000, help="paired bootstrap resamples (default 1000, as sacreBLEU)")
    p.add_argument("--ar", type=int, default=10000,
                   help="approximate randomisation trials (default 10000, as sacreBLEU)")
    p.add_argument("--test", choices=["bootstrap", "ar"], default="bootstrap",
                   help="the test that decides the 'winner' column (default bootstrap)")
    p.add_argument("--alpha", type=float, default=0.05)
    p.add_argument("--top", type=int, default=50, help="characteristic n-grams per system (default 50)")
    p.add_argument("--out", help="folder to write every table into as TSV (created if missing)")


TABLES = ("headline", "segments", "disagreements", "buckets", "word_f_by_frequency", "characteristic_ngrams",
          "length_ratios", "length_bias")


def _check_out(out: str | None) -> Path | None:
    """Before any computation: --out must be (or become) a folder where every table can be
    written (:func:`evalcore.core.export.check_outputs` lists every problem; exit code 2)."""
    if not out:
        return None
    from ..core.export import check_outputs

    path = Path(out)
    if path.exists() and not path.is_dir():
        raise ValueError(f"--out {out}: exists and is not a folder; give a folder for the tables")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"--out {out}: cannot create the folder ({exc.strerror or exc})") from None
    check_outputs([path / f"{name}.tsv" for name in TABLES] + [path / "notes.txt"])
    return path


def tables(cmp, n_bootstrap: int, n_ar: int, test: str, alpha: float, top: int) -> dict:
    """Every table of a comparison by file stem (what the CLI writes and the page shows)."""
    from ..analysis import compare as C

    return {name: C.table(cmp, name, n_bootstrap, n_ar, test, alpha, top) for name in C.TABLES}


def run(args) -> int:
    from ..analysis import compare as C
    from ..io import load_dataset
    from ..scoring.settings import from_args

    out_dir = _check_out(args.out)
    metrics = [m.strip() for m in args.metrics.split(",") if m.strip()]
    for m in metrics:
        C.configured_metric(m, from_args(args))  # unknown ids or tokenizers fail before loading
    if args.lp == "all":
        raise ValueError("compare takes two systems of one language pair; choose it with --lp LP")
    ds = load_dataset(args.path, lp=args.lp)
    if args.tokenize is None:
        args.tokenize, why = C.default_tokenizer(ds.lp)
        print(f"note: tokenizer {args.tokenize} ({why}); choose another with --tokenize", file=sys.stderr)
    from ..scoring.defaults import tokenizer_caveat

    caveat = tokenizer_caveat(ds.lp, args.tokenize)
    if caveat:
        print(f"note: {ds.lp}: {caveat}", file=sys.stderr)
    if args.human is None:
        criteria = None
    elif args.human.strip().lower() == "none":
        criteria = []
    else:
        criteria = [c.strip() for c in args.human.split(",") if c.strip()]
    # --judged-only given insists on the judged segments; neither flag: the shared default, which
    # falls back to every segment (saying why) where nothing is judged for both systems
    cmp = C.build(ds, args.a, args.b, metrics, criteria, from_args(args), normalisation=args.normalisation,
                  require_judged=args.judged_only is True)
    if args.judged_only is None and cmp.judged_only:
        print("note: judged segments only (the default; --all-segments for every segment)", file=sys.stderr)
    for note in cmp.notes:
        print(f"note: {note}", file=sys.stderr)
    print(f"settings: {cmp.settings().describe(ds)}", file=sys.stderr)
    tabs = tables(cmp, args.bootstrap, args.ar, args.test, args.alpha, args.top)
    sig = cmp.signature(f"paired bootstrap {args.bootstrap} resamples, approximate randomisation {args.ar} "
                        f"trials, seed 12345; winner by {args.test} at alpha {args.alpha}")
    head = tabs["headline"].copy()
    head["signature"] = sig
    head.to_csv(sys.stdout, sep="\t", index=False, float_format="%.6f")
    for line in verdict_lines(ds, cmp, tabs["headline"], args.alpha):
        print(line, file=sys.stderr)
    if out_dir is not None:
        from ..core.export import atomic_write, write_table

        for name in TABLES:  # exact TSV for tools, each written atomically, with the signature column
            write_table(tabs[name].assign(signature=sig), out_dir / f"{name}.tsv", lineterminator="\n")
        atomic_write(out_dir / "notes.txt", lambda fh: fh.write("".join(f"{n}\n" for n in cmp.notes)
                                                                 or "nothing left out\n"))
        print(f"wrote {len(tabs)} tables to {out_dir}", file=sys.stderr)
    return 0


def verdict_lines(ds, cmp, headline, alpha: float = 0.05) -> list[str]:
    """The ``verdict:`` lines of a comparison (methods §21): does B beat A by the first human
    criterion under the recipe, and which metric to trust for this pair."""
    from ..analysis.verdict import a_beats_b, metric_to_trust

    if not cmp.criteria:
        return []
    crit = cmp.criteria[0]
    try:
        out = [a_beats_b(ds, cmp.a, cmp.b, crit, alpha, headline=headline).line()]
    except ValueError as exc:  # e.g. fewer than two systems judged: no verdict, the tables stand
        return [f"note: no verdict on {cmp.a} vs {cmp.b} by {crit}: {exc}"]
    if cmp.metrics:
        hib = {m: cmp.higher_is_better(f"metric:{m}") for m in cmp.metrics}
        try:
            out.append(metric_to_trust(cmp.segments, cmp.a, cmp.b, cmp.metrics, f"human:{crit}", hib).line())
        except ValueError as exc:  # no segment where both sides prefer one system
            out.append(f"note: no metric to trust for this pair: {exc}")
    return out
