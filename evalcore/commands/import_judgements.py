"""``python -m evalcore import-judgements FILE --format appraise --out judgements.tsv``.

Reads the human judgements a campaign exported from Appraise (its CSV export) or Pearmut (its
JSONL annotations) into evalcore's tidy ``judgements.tsv`` (docs/formats.md, "Appraise and
Pearmut"): every problem of the file at once, with its line. Rows that are not scores of a
system's segment (quality-control items, document scores, unscored items) are written to a file
of their own (``--set-aside``), never mixed into the scores. ``--wmt-filters`` applies the
filters of WMT's official ranking and ``--repeats`` says what a re-rating counts as
(:mod:`evalcore.io.wmt_rules`; without it a re-rated output is refused). With ``--dataset`` the ids are
checked against the dataset the judgements belong to, so the written file loads with it.
"""
from __future__ import annotations

import sys

NAME = "import-judgements"
OUTPUTS = ("out", "set_aside")  # checked before any work (evalcore.core.export.check_outputs)
HANDLES_ALL_LPS = True  # --lp renames the pair; it never runs per pair
HELP = ("Read human judgements exported by Appraise (CSV), Pearmut (JSONL) or a WMT human-evaluation JSONL release "
        "into a tidy judgements.tsv; quality-control rows are written apart.")


def add_arguments(p) -> None:
    from ..io.judgement_io import FORMATS

    p.add_argument("file", help="the platform's export (Appraise: ExportSystemScoresToCSV output; "
                                "Pearmut: annotations .jsonl; wmtjsonl: WMT's human-evaluation .jsonl, either layout)")
    p.add_argument("--format", dest="fmt", required=True, choices=FORMATS, help="which platform wrote the file")
    p.add_argument("--out", required=True, help="the tidy judgements TSV to write (lp, system, seg_id, rater, "
                                                "judgement, score and the platform's fields)")
    p.add_argument("--set-aside", help="TSV for the rows that are not segment scores (quality-control items, "
                                       "document scores, unscored items); default: OUT with .set_aside.tsv")
    p.add_argument("--judgement", help="name of the judgements (default: esa when the file has error spans, "
                                       "else da)")
    p.add_argument("--lp", help="language pair for every row (e.g. en-cs), instead of the file's own "
                                "(Appraise: <sourceLanguage>-<targetLanguage>, e.g. eng-ces; Pearmut has none)")
    from ..io.wmt_rules import REPEATS

    p.add_argument("--wmt-filters", action="store_true",
                   help="apply the filters of WMT's official ranking: set aside tutorial items (system names "
                        "containing 'tutorial'), BAD quality-control rows, filler documents (document ids ending "
                        "in #bad, #dup, #incomplete) and exact repeat rows, each counted")
    p.add_argument("--repeats", choices=REPEATS, default="refuse",
                   help="one rater scoring one output twice: refuse (default: every case listed), latest (WMT's "
                        "rule: keep the later rating) or mean (one row with their mean score)")
    p.add_argument("--dataset", help="dataset folder or zip the judgements belong to: their language pair and "
                                     "segment ids are checked against it")


def _set_aside_path(args) -> str:
    if args.set_aside:
        return args.set_aside
    out = str(args.out)
    return (out[:-4] if out.endswith(".tsv") else out) + ".set_aside.tsv"


def run(args) -> int:
    from ..core.export import check_outputs
    from ..io.judgement_io import check_against, judgements_tsv, loadable_tsv, read_export_file, write_text
    from ..core.problems import DataError

    aside_path = _set_aside_path(args)
    check_outputs([aside_path])
    kw = {"judgement": args.judgement, "lp": args.lp, "wmt_filters": args.wmt_filters, "repeats": args.repeats}
    imp = read_export_file(args.fmt, args.file, **kw)
    for w in imp.warnings:
        print(str(w), file=sys.stderr)
    if args.dataset:
        from ..io import load_collection

        report = check_against(imp, load_collection(args.dataset), args.dataset)
        if not report.ok:
            raise DataError(report)
        for w in report.warnings:
            print(str(w), file=sys.stderr)
    write_text(args.out, loadable_tsv(imp.judgements, imp.source))  # read back before it is written
    j = imp.judgements
    print(f"wrote {len(j)} judgement(s) ({j['rater'].nunique()} rater(s), {j['system'].nunique()} system(s), "
          f"language pair(s) {', '.join(dict.fromkeys(j['lp'])) or '-'}) to {args.out}", file=sys.stderr)
    if len(imp.set_aside):
        write_text(aside_path, judgements_tsv(imp.set_aside))
        counts = imp.set_aside["item_type"].value_counts()
        print(f"wrote {len(imp.set_aside)} row(s) set aside ({', '.join(f'{k} {v}' for k, v in counts.items())}) "
              f"to {aside_path}", file=sys.stderr)
    return 0
