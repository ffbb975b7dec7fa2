"""``python -m evalcore detective PATH --metrics bleu,chrf --out F.tsv``: the metric-detective lab
(methods §12): real outputs broken on purpose by perturbation families (copy the source, omit a
clause, hallucinate, change a number, negate, swap named entities, shuffle, leave a word
untranslated, punctuation/casing only, repetition) and each metric's catch rate: the share of the
perturbed outputs whose score drops by more than Δ. See :mod:`evalcore.analysis.detective`.
"""
from __future__ import annotations

import sys

NAME = "detective"
LP_ALL = True  # --lp all: once per language pair, tables with an lp column (commands/_lp.py)
OUTPUTS = ("out", "perturbations_out")  # checked before any work (evalcore.core.export.check_outputs)
HELP = ("Metric-detective lab: perturb real outputs in known ways (copy the source, omit a clause, negate, ...) "
        "and give each metric's catch rate, the share of perturbed outputs whose score drops by more than Δ.")


def add_arguments(p) -> None:
    from ..analysis.detective import DEFAULT_SAMPLE, FAMILIES
    from ..scoring.settings import add_judged_arguments

    p.add_argument("path", help="dataset folder or zip (outputs, sources and at least one reference set)")
    p.add_argument("--lp", help="language pair, when the data holds several ('all': each in turn)")
    p.add_argument("--metrics", default="bleu,chrf", help="comma-separated metric ids (default: bleu,chrf)")
    p.add_argument("--perturbations", default="all",
                   help=f"comma-separated perturbation families (default: all): {', '.join(FAMILIES)}")
    p.add_argument("--sample", type=int, default=DEFAULT_SAMPLE,
                   help=f"outputs drawn (with --seed) and perturbed by every family (default {DEFAULT_SAMPLE}; "
                        "0 = every output)")
    p.add_argument("--seed", type=int, default=0, help="seed of the sample and of every perturbation (default 0)")
    p.add_argument("--delta", action="append", default=[], metavar="METRIC=VALUE",
                   help="the score drop humans notice for METRIC (e.g. a calibrated Δ80; repeatable); default: "
                        "1 point on the 0-100 scale of BLEU, chrF and TER, 1 percent of the scale of the others")
    add_judged_arguments(p, "perturb only outputs the humans judged (the default wherever judgements exist)")
    from . import _tok; _tok.add_argument(p)  # noqa: E702
    p.add_argument("--out", help="write the catch table (perturbation, metric, catch_rate, n) here (TSV; .csv too)")
    p.add_argument("--perturbations-out",
                   help="write every perturbed output beside its original, with the reason where a family skipped "
                        "one, here")


def _deltas(items) -> dict[str, float]:
    out, bad = {}, []
    for item in items:
        name, _, value = item.partition("=")
        try:
            v = float(value)
            if not name.strip() or v < 0 or v != v:
                raise ValueError
            out[name.strip()] = v
        except ValueError:
            bad.append(item)
    if bad:
        raise ValueError(f"--delta takes METRIC=VALUE with a number ≥ 0: {', '.join(map(repr, bad))}")
    return out


def run(args) -> int:
    from ..analysis.detective import FAMILIES, delta_for, run_lab, skip_counts
    from ..metrics.base import get_metric
    from ..scoring.settings import from_args
    from . import _tok
    from ._lp import dataset, emit

    ids = [m.strip() for m in args.metrics.split(",") if m.strip()]
    if not ids:
        raise ValueError("--metrics names no metric")
    metrics = [get_metric(m) for m in ids]  # unknown ids fail before loading
    fams = list(FAMILIES) if args.perturbations.strip() == "all" else [
        f.strip() for f in args.perturbations.split(",") if f.strip()]
    unknown = [f for f in fams if f not in FAMILIES]
    if unknown or not fams:
        raise ValueError(f"unknown perturbation(s) {', '.join(unknown) or '(none given)'}; known: {', '.join(FAMILIES)}")
    if args.sample < 0:
        raise ValueError("--sample must be 0 (every output) or more")
    deltas = _deltas(args.delta)
    _tok.check(args)
    ds = dataset(args)
    if not ds.ref_ids:
        raise ValueError(f"{ds.name}: no reference set; the catch rates compare scores against references")
    tok = _tok.resolve(args, ds, metrics)
    settings = from_args(args, tokenizer=tok)
    res = run_lab(ds, ids, settings, fams, sample=args.sample or None, seed=args.seed, deltas=deltas)
    notes = [f"Δ {m}: {delta_for(m, deltas)[0]:g} ({delta_for(m, deltas)[1]})" for m in ids]
    notes += [f"{r.perturbation}: skipped {r.n} output(s): {r.reason}" for r in skip_counts(res.perturbed).itertuples()]
    notes.append(f"outputs perturbed: {res.perturbed[['system', 'seg_id']].drop_duplicates().shape[0]} "
                 f"(seed {args.seed}); settings: {settings.describe(ds)}")
    notes.append("punctuation_casing keeps the meaning: a catch there is a false alarm")
    emit(res.catch, None, args, float_format="%.4f", section="catch rates", notes=notes)
    if args.out:
        emit(res.catch, args.out, args, float_format="%.6f")
    if args.perturbations_out:
        emit(res.perturbed, args.perturbations_out, args)
    if res.catch["n"].eq(0).all():
        print("warning: no perturbation applied to any output", file=sys.stderr)
    return 0
