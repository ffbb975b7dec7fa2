"""``python -m evalcore search PATH --metrics m1,...,mk [--exhaustive]``: KING-driven metric-set search.

Spec §0.5 / §1.4 (seed 000 §3.3): greedy by default (rank metrics by their single-metric KING,
add each next one only if the set's KING strictly increases, one pass); ``--exhaustive``
scores every subset (at most 12 metrics). Prints the chosen set, its KING and the trace;
``--out FILE`` writes the trace TSV.
"""
from __future__ import annotations

NAME = "search"
HELP = "Greedy (or exhaustive) search for the metric set with the highest KING (QARLA, spec §1.4)."


def add_arguments(p):
    from ..qarla.cli_support import add_data_arguments

    add_data_arguments(p)
    p.add_argument("--metrics", required=True, help="comma-separated candidate metric ids")
    p.add_argument("--exhaustive", action="store_true", help="score every subset (<= 12 metrics)")
    p.add_argument("--mode", choices=["local", "pooled", "auto"], default="auto")
    p.add_argument("--queen-ties", choices=["geq", "strict"], default="geq")
    p.add_argument("--ties", choices=["geq", "strict", "fractional"], default="geq")
    p.add_argument("--average", choices=["micro", "macro"], default="micro")
    p.add_argument("--rank-by", choices=["queen", "direct"], default="queen",
                   help="greedy order: single-metric KING via QUEEN (§1.3, default) or direct (§1.1)")
    p.add_argument("--out", help="write the trace TSV here")


def run(args) -> int:
    from ..qarla import exhaustive_search, greedy_search
    from ..qarla.cli_support import Progress, load, split, tensors, write

    ids = split(args.metrics)
    if len(ids) < 1:
        raise ValueError("--metrics is empty")
    ds = load(args)
    tens = tensors(ds, ids)
    kw = dict(mode=args.mode, queen_ties=args.queen_ties, ties=args.ties, average=args.average,
              progress=Progress("search"))
    if args.exhaustive:
        res = exhaustive_search(tens, **kw)
    else:
        res = greedy_search(tens, rank_by=args.rank_by, **kw)
    print(f"# method: {res.method}  mode={args.mode} ties={args.ties} queen_ties={args.queen_ties}")
    print(f"# chosen: {','.join(res.chosen)}")
    print(f"# KING = {res.king:.4f}  ORANGE = {res.orange:.4f}")
    print("# single-metric KING (QUEEN-based" + (", and direct §1.1" if "king_direct" in res.ranking else "") + "):")
    print(res.ranking.to_string(index=False))
    print("# trace:")
    print(res.trace.head(50).to_string(index=False))
    if args.out:
        write(res.trace, args.out)
    return 0
