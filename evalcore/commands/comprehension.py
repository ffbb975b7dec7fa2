"""``python -m evalcore comprehension PATH --lp LP``: reading-comprehension results
(Callison-Burch 2009, §5.3, Table 3) from a dataset's optional ``comprehension.tsv``."""
from __future__ import annotations

NAME = "comprehension"
LP_ALL = True  # --lp all: once per language pair, tables with an lp column (commands/_lp.py)
OUTPUTS = ("out",)  # checked before any work (evalcore.core.export.check_outputs)
HELP = ("Reading comprehension: the share of questions answered correctly per system with bootstrap CIs, the "
        "human-reference control row, and its system-level correlation with metrics and human scores "
        "(Callison-Burch 2009, Table 3).")


def add_arguments(p) -> None:
    p.add_argument("path", help="dataset folder or zip with a comprehension.tsv")
    p.add_argument("--lp", help="language pair, when the data holds several ('all': each in turn)")
    p.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples over questions (default 1000)")
    p.add_argument("--metrics", default="bleu,chrf",
                   help="metrics to correlate the share of correct answers with (comma-separated; '' for none; default bleu,chrf)")
    from . import _tok; _tok.add_argument(p)  # noqa: E702
    p.add_argument("--out", help="write the Table 3 TSV here")


def run(args) -> int:
    from ..analysis.comprehension import correlations, results
    from ..metrics.base import get_metric
    from ..scoring.defaults import dataset_nrefs, metric_signature
    from ..scoring.settings import from_args
    from . import _tok
    from ._lp import dataset, emit

    ids = [m.strip() for m in (args.metrics or "").split(",") if m.strip()]
    for m in ids:
        get_metric(m)
    if args.bootstrap < 0:
        raise ValueError("--bootstrap must be 0 or more")
    _tok.check(args)
    ds = dataset(args)
    res = results(ds, n_boot=args.bootstrap)
    table = res.table
    # the tokenizer (--tokenize or the target language's default) of the metrics correlated
    tok = _tok.resolve(args, ds, [get_metric(m) for m in ids]) if ids else None
    cres = correlations(ds, table, ids, settings=from_args(args, tokenizer=tok))
    nrefs = dataset_nrefs(ds)
    sig = {m: metric_signature(m, nrefs, "system", tok) for m in ids}
    emit(table, None, args, section=f"reading comprehension (Callison-Burch 2009, Table 3): {res.method}",
         float_format="%.2f")
    if args.out:
        emit(table, args.out, args)
    corr = cres.table
    if len(corr):  # each metric row with its signature; human rows: the criterion
        corr = corr.assign(signature=[sig.get(m, "human") for m in corr["measure"]])
    emit(corr, None, args, section=cres.method,
         float_format="%.4f", first=False)
    return 0
