"""``python -m evalcore comprehension PATH --lp LP``: reading-comprehension results
(Callison-Burch 2009, §5.3, Table 3) from a dataset's optional ``comprehension.tsv``."""
from __future__ import annotations

import sys

NAME = "comprehension"
OUTPUTS = ("out",)  # checked before any work (evalcore.export.check_outputs)
HELP = ("Reading comprehension: the share of questions answered correctly per system with bootstrap CIs, the "
        "human-reference control row, and its system-level correlation with metrics and human scores "
        "(Callison-Burch 2009, Table 3).")


def add_arguments(p) -> None:
    p.add_argument("path", help="dataset folder or zip with a comprehension.tsv")
    p.add_argument("--lp", help="language pair, when the data holds several")
    p.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples over questions (default 1000)")
    p.add_argument("--metrics", default="bleu,chrf",
                   help="metrics to correlate the share of correct answers with (comma-separated; '' for none; default bleu,chrf)")
    p.add_argument("--out", help="write the Table 3 TSV here")


def run(args) -> int:
    from ..views.common import signature_text
    from ..comprehension import correlations, results
    from ..export import write_table
    from ..io import load_dataset
    from ..metrics.base import get_metric

    ids = [m.strip() for m in (args.metrics or "").split(",") if m.strip()]
    for m in ids:
        get_metric(m)
    if args.bootstrap < 0:
        raise ValueError("--bootstrap must be 0 or more")
    ds = load_dataset(args.path, lp=args.lp)
    table = results(ds, n_boot=args.bootstrap)
    corr = correlations(ds, table, ids)
    out = sys.stdout
    out.write(f"# reading comprehension (Callison-Burch 2009, Table 3): {table.attrs['note']}\n")
    table.to_csv(out, sep="\t", index=False, float_format="%.2f")
    out.write(f"\n# {corr.attrs['note']}\n# {signature_text(ids)}\n")
    corr.to_csv(out, sep="\t", index=False, float_format="%.4f")
    if args.out:
        write_table(table, args.out)
        print(f"wrote {len(table)} rows to {args.out}", file=sys.stderr)
    return 0
