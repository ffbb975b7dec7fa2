"""``python -m evalcore qarla PATH --metrics m1,m2 [...]``: ORANGE and KING of single metrics.

Spec §0.2 / §1.1 (Amigó et al. 2006 §2.2): each reference is held out in turn and scored, like every
system output, against the remaining references. One row per metric: orange, king, the random
baselines (king_random = 1/(|A_s|+1) per case, orange_random = 1/2, king_perm = the exact
shuffle baseline), tie rates, n_cases, Lin & Och's ORANGE (methods §2) and, with
``--bootstrap N``, percentile CIs over segments. ``--cases FILE`` writes the per-case
explanation (which outputs beat or tied the held-out reference, and by how much).
``coverage``: share of the metric's single-reference similarities that are defined among the
(candidate, reference) pairs whose texts exist (below 1 for sparse syntactic sub-metrics,
which are undefined when neither text has the type; see ``search --min-coverage``).
``signature``: the metric's signature (sacreBLEU's own for BLEU/chrF/TER) with ``nrefs`` = the
references each comparison scores against (J − 1); ``--tokenize`` as in ``score``.
"""
from __future__ import annotations

NAME = "qarla"
LP_ALL = True  # --lp all: once per language pair, tables with an lp column (commands/_lp.py)
OUTPUTS = ("out", "cases")  # checked before any work (evalcore.core.export.check_outputs)
HELP = "ORANGE and KING of single metrics (QARLA human-likeness, methods §1.1), one row per metric."


def add_arguments(p):
    from ._qarla_support import add_data_arguments

    add_data_arguments(p)
    p.add_argument("--metrics", default="bleu,chrf,ter", help="comma-separated metric ids (default: bleu,chrf,ter)")
    p.add_argument("--ties", choices=["geq", "strict", "fractional"], default="geq",
                   help="how a tie between reference and output counts (default geq, as in the paper)")
    p.add_argument("--average", choices=["micro", "macro"], default="micro")
    p.add_argument("--bootstrap", type=int, default=0, metavar="N", help="bootstrap resamples of segments for CIs")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--mc", type=int, default=0, metavar="N", help="also a sampled Monte-Carlo baseline, N shuffles per case")
    p.add_argument("--out", help="output TSV (default: stdout)")
    p.add_argument("--cases", metavar="FILE", help="also write the per-case explanation TSV here")
    from ..scoring.parallel import add_scheduler_argument

    add_scheduler_argument(p)


def _prepared(metric, ds):
    from ..metrics.engine import _prepare

    if metric.meta.needs_text:
        _prepare(metric, ds)  # NIST's signature names its fitted information weights
    return metric


def run(args) -> int:
    import pandas as pd

    from ..qarla import king_cases, orange_king
    from ._qarla_support import load_with_tensors, write
    from ..qarla.search import coverage, text_presence

    ds, tens = load_with_tensors(args, args.metrics, "--metrics")
    from ..metrics.base import get_metric
    from ..metrics.tokenize import resolve_tokenizer
    from ..scoring.defaults import qarla_nrefs

    rows, cases = [], []
    presence = text_presence(ds, next(iter(tens.values())))
    nrefs = qarla_nrefs(ds)
    tok = resolve_tokenizer(args.tokenize, ds.lp)[0]
    for m, t in tens.items():
        r = orange_king(t, ties=args.ties, average=args.average, bootstrap=args.bootstrap, seed=args.seed,
                        mc=args.mc)
        row = r.as_row()
        rows.append({"metric": row.pop("metric"), "coverage": coverage(t, *presence), **row,
                     "signature": _prepared(get_metric(m, tokenize=tok), ds).output_signature(nrefs, "segment")})
        if args.cases:
            c = king_cases(t)
            c.insert(0, "metric", m)
            cases.append(c)
    write(pd.DataFrame(rows), args.out, args)
    if args.cases:
        write(pd.concat(cases, ignore_index=True), args.cases, args)
    return 0
