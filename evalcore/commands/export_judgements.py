"""``python -m evalcore export-judgements PATH --format appraise --out FILE``.

Writes a dataset's human judgements (one kind, ``--judgement``) in Appraise's CSV export
layout (docs/formats.md, "Appraise and Pearmut"), e.g. to merge them with a campaign's own
export or to hand them to WMT-style scripts. Judgements imported with ``import-judgements``
carry their Appraise fields (document, times, error spans) and are written back unchanged.
"""
from __future__ import annotations

import sys

NAME = "export-judgements"
OUTPUTS = ("out",)  # checked before any work (evalcore.export.check_outputs)
HANDLES_ALL_LPS = True  # every pair (or those of --lp) goes into the one file
HELP = "Write a dataset's human judgements in Appraise's CSV export layout."


def add_arguments(p) -> None:
    p.add_argument("path", help="dataset folder or zip")
    p.add_argument("--format", dest="fmt", default="appraise", choices=["appraise"],
                   help="the layout to write (default appraise)")
    p.add_argument("--out", required=True, help="the CSV file to write")
    p.add_argument("--lp", help="comma-separated language pairs (default or all: every pair)")
    p.add_argument("--judgement", help="which judgements (default: the only kind the data holds)")


def run(args) -> int:
    import pandas as pd

    from ..io import load_collection
    from ..io.appraise import write_appraise
    from ..io.judgement_io import dataset_judgements

    coll = load_collection(args.path)
    lps = list(coll) if args.lp in (None, "all") else [x.strip() for x in args.lp.split(",")]
    missing = [x for x in lps if x not in coll]
    if missing:
        raise ValueError(f"language pair(s) {missing} not in {args.path}; it has {', '.join(coll)}")
    tables = [dataset_judgements(coll[lp], args.judgement) for lp in lps]
    table = pd.concat(tables, ignore_index=True) if tables else pd.DataFrame()
    if table.empty:
        raise ValueError(f"{args.path} has no segment-level judgements to write")
    write_appraise(table, args.out)
    print(f"wrote {len(table)} judgement(s) of {', '.join(lps)} to {args.out}", file=sys.stderr)
    return 0
