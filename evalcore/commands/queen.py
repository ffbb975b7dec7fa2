"""``python -m evalcore queen PATH --set m1,m2 [--mode local|pooled|auto]``: QUEEN of a metric set.

Spec §0.3 / §1.2 (Amigó et al. 2006 §3.1): QUEEN_X(a) = P over reference triples (r, r', r'') that
x(a, r) ≥ x(r', r'') for every metric x in X. Writes system, seg_id, queen, mode; the KING
(and ORANGE) of the set (methods §1.3) goes to stderr. ``--loo FILE`` writes the leave-one-out
QUEENs of references and outputs that KING compares; ``--explain SYSTEM,SEG_ID`` prints the
triples that candidate won and lost instead.
"""
from __future__ import annotations

import sys

NAME = "queen"
LP_ALL = True  # --lp all: once per language pair, tables with an lp column (commands/_lp.py)
OUTPUTS = ("out", "loo")  # checked before any work (evalcore.core.export.check_outputs)
HELP = "QUEEN of a metric set per (system, segment) and the set's KING (QARLA, methods §1.2-1.3)."


def add_arguments(p):
    from ._qarla_support import add_data_arguments

    add_data_arguments(p)
    p.add_argument("--set", required=True, help="comma-separated metric ids forming the set X")
    p.add_argument("--mode", choices=["local", "pooled", "auto"], default="auto",
                   help="reference triples: local (>= 3 refs), pooled (pairs of all segments), auto (default)")
    p.add_argument("--queen-ties", choices=["geq", "strict"], default="geq", help="x(a,r) >= or > x(r',r'')")
    p.add_argument("--ties", choices=["geq", "strict", "fractional"], default="geq", help="tie mode of KING")
    p.add_argument("--average", choices=["micro", "macro"], default="micro")
    p.add_argument("--out", help="output TSV (default: stdout)")
    p.add_argument("--loo", metavar="FILE", help="also write leave-one-out QUEENs (seg_id, held_out, candidate, queen)")
    p.add_argument("--explain", metavar="SYSTEM,SEG_ID", help="print the triples one candidate won/lost and exit")
    p.add_argument("--held-out", help="with --explain: the held-out reference (leave-one-out QUEEN)")


def run(args) -> int:
    from ..qarla import QueenIndex, queen_triples
    from ._qarla_support import load_with_tensors, write

    ds, tens = load_with_tensors(args, args.set, "--set")
    if args.explain:
        system, _, seg = args.explain.partition(",")
        df = queen_triples(tens, system.strip(), seg.strip(), mode=args.mode, ties=args.queen_ties,
                           held_out=args.held_out)
        write(df, args.out, args)
        print(f"QUEEN = {df['won'].mean() if len(df) else float('nan'):.6f} over {len(df)} triples",
              file=sys.stderr)
        return 0
    idx = QueenIndex(tens, mode=args.mode, ties=args.queen_ties)
    qv = idx.values(idx.names)
    from ..qarla.single import orange_king_arrays

    k = orange_king_arrays(qv.loo_ref, qv.loo_sys, ties=args.ties, average=args.average, metric=qv.metric_id)
    write(qv.to_frame(), args.out, args)
    if args.loo:
        write(qv.loo_frame(), args.loo, args)
    print(f"set {{{', '.join(tens)}}} mode={args.mode}: KING = {k.king:.4f} (random {k.king_random:.4f}, "
          f"shuffle {k.king_perm:.4f}), ORANGE = {k.orange:.4f}, tie rate {k.tie_rate:.3f}, "
          f"{k.n_cases} cases", file=sys.stderr)
    return 0
