"""``python -m evalcore export-judgements PATH --format appraise --out FILE``.

Writes a dataset's human judgements (one kind, ``--judgement``) in Appraise's CSV export
layout or as Pearmut annotation lines (docs/formats.md, "Appraise and Pearmut"), e.g. to merge
them with a campaign's own export or to hand them to WMT-style scripts. Judgements imported
with ``import-judgements`` carry their platform fields (document, times, error spans, item
index) and are written back unchanged; Pearmut lines get the outputs' and sources' texts.
"""
from __future__ import annotations

import sys

NAME = "export-judgements"
OUTPUTS = ("out",)  # checked before any work (evalcore.core.export.check_outputs)
HANDLES_ALL_LPS = True  # every pair (or those of --lp) goes into the one file
HELP = "Write a dataset's human judgements in Appraise's CSV export layout or as Pearmut annotation lines."


def add_arguments(p) -> None:
    p.add_argument("path", help="dataset folder or zip")
    p.add_argument("--format", dest="fmt", default="appraise", choices=["appraise", "pearmut"],
                   help="the layout to write: appraise (CSV, the default) or pearmut (JSONL)")
    p.add_argument("--out", required=True, help="the file to write")
    p.add_argument("--lp", help="comma-separated language pairs (default or all: every pair)")
    p.add_argument("--judgement", help="which judgements (default: the only kind the data holds)")


def run(args) -> int:
    import pandas as pd

    from ..io import load_collection
    from ..io.appraise import write_appraise
    from ..io.judgement_io import dataset_judgements

    coll = load_collection(args.path)  # a saved dataset's folder: its row journals merged, with a note
    lps = list(coll) if args.lp in (None, "all") else [x.strip() for x in args.lp.split(",")]
    missing = [x for x in lps if x not in coll]
    if missing:
        raise ValueError(f"language pair(s) {missing} not in {args.path}; it has {', '.join(coll)}")
    results = [dataset_judgements(coll[lp], args.judgement) for lp in lps]
    for res in results:
        for n in res.notes:
            print(f"note: {n}", file=sys.stderr)
    tables = [res.table for res in results]
    table = pd.concat(tables, ignore_index=True) if tables else pd.DataFrame()
    if table.empty:
        raise ValueError(f"{args.path} has no segment-level judgements to write")
    if args.fmt == "pearmut":
        if len(lps) > 1:
            raise ValueError(f"Pearmut lines carry no language pair; write one pair at a time (--lp; "
                             f"{args.path} has {', '.join(lps)})")
        from ..io.judgement_io import write_text
        from ..io.pearmut import pearmut_jsonl

        texts = pd.concat([pd.concat([coll[lp].outputs[["system", "seg_id", "text"]],
                                      coll[lp].references.rename(columns={"ref_id": "system"})[
                                          ["system", "seg_id", "text"]]]) for lp in lps], ignore_index=True)
        sources = pd.concat([coll[lp].segments[["seg_id", "source"]] for lp in lps], ignore_index=True)
        write_text(args.out, pearmut_jsonl(table, texts, sources))
    else:
        write_appraise(table, args.out)
    print(f"wrote {len(table)} judgement(s) of {', '.join(lps)} to {args.out}", file=sys.stderr)
    return 0
