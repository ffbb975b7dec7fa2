"""``python -m evalcore validate PATH [--lp LP]``: load, validate, summarise."""
from __future__ import annotations

NAME = "validate"
HANDLES_ALL_LPS = True  # validates every pair itself
HELP = "Load a dataset, report every problem at once, and print a summary (exit 0 valid, 2 invalid)."


def add_arguments(p):
    p.add_argument("path", help="a tidy TSV folder, plain-text folder, MQM TSV, mt-metrics-eval folder or a zip")
    p.add_argument("--lp", help="language pair to summarise (default or all: every pair)")
    p.add_argument("--format", dest="fmt", choices=["tidy", "plaintext", "mqm", "mtme"],
                   help="force a format instead of detecting it")


def _capabilities(ds) -> None:
    """References per segment and, per analysis, whether this language pair supports it."""
    from ..core.capabilities import capabilities, references_per_segment_text

    print(f"  references per segment (reference sets with text): {references_per_segment_text(ds)}")
    if ds.extras.get("mqm_errors") is not None:
        from ..io import current_mqm_weights
        from ..human.mqm import format_mqm_weights

        print(f"  MQM weights: {format_mqm_weights(current_mqm_weights())}")
    print("  analyses:")
    for c in capabilities(ds):
        if c.available:
            print(f"    yes  {c.analysis} ({c.where}): {c.segments} of {ds.n_segments} segments")
        else:
            print(f"    no   {c.analysis} ({c.where}): needs {c.missing}")


def run(args) -> int:
    from ..io import load_collection

    coll = load_collection(args.path, fmt=args.fmt)
    if args.lp == "all":
        args.lp = None
    if args.lp is not None and args.lp not in coll:
        raise ValueError(f"language pair {args.lp!r} not found; available: {', '.join(k or '-' for k in coll)}")
    for lp, ds in coll.items():
        if args.lp is not None and lp != args.lp:
            continue
        print(f"== {ds.name} {lp or ''}".rstrip())
        for k, v in ds.overview().items():
            print(f"  {k}: {v}")
        _capabilities(ds)
        for w in ds.warnings:
            print(f"  {w}")
    print("valid")
    return 0
