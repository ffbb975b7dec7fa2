"""``python -m evalcore card DATA --out card.html``: the evaluation card (methods §21).

One self-contained HTML file that opens offline: the verdicts with their evidence and
alternatives, the tables with CIs, static figures, the settings, the metric signatures, the
SHA-256 of every input file, the command that re-creates it, the tool version and every number
as embedded JSON (:mod:`evalcore.views.card`). ``verify-card`` recomputes it.
"""
from __future__ import annotations

import sys

NAME = "card"
STATES_SETTINGS = True  # its settings line, resolved on the data, goes to stderr from run()
OUTPUTS = ("out",)
HELP = "Write the evaluation card: one offline HTML file with the verdicts, tables, figures and numbers."


def add_arguments(p) -> None:
    p.add_argument("path", help="dataset folder or zip")
    p.add_argument("--lp", help="language pair (needed when the data holds several)")
    p.add_argument("--human", help="human criterion (default: the data's only kind of human judgement)")
    p.add_argument("--metrics", help="comma-separated metric ids (default: the metrics the Systems page starts "
                                     "from; 'none' for none)")
    p.add_argument("--bootstrap", type=int, default=200, help="bootstrap resamples of the CIs (default 200, as the "
                                                              "Systems page)")
    p.add_argument("--a", metavar="SYS", help="system A of 'does B beat A' (default: the best system)")
    p.add_argument("--b", metavar="SYS", help="system B (default: the runner-up)")
    p.add_argument("--refs", help="comma-separated reference sets (default: all)")
    p.add_argument("--include-human-systems", action="store_true",
                   help="score human translations as systems (default: left out, the shared settings)")
    from ..scoring.settings import add_judged_arguments

    add_judged_arguments(p)
    p.add_argument("--out", required=True, help="the HTML file to write")
    from . import _tok; _tok.add_argument(p)  # noqa: E702


def run(args) -> int:
    from ..core.export import atomic_write
    from ..scoring.settings import DEFAULTS, judged_only_of
    from ..views.card import build_card, render_card
    from ._lp import dataset

    ds = dataset(args)
    metrics = None
    if args.metrics:
        metrics = [] if args.metrics.strip().lower() == "none" else [m.strip() for m in args.metrics.split(",")
                                                                      if m.strip()]
    refs = tuple(r.strip() for r in args.refs.split(",") if r.strip()) if args.refs else None
    settings = DEFAULTS.with_(judged_only=judged_only_of(args), tokenizer=getattr(args, "tokenize", None),
                              references=refs, human_systems="include" if args.include_human_systems else "exclude")
    if bool(args.a) != bool(args.b):
        raise ValueError("give both --a and --b, or neither (the best system and the runner-up)")
    card = build_card(ds, settings, criterion=args.human, metrics=metrics, n_boot=args.bootstrap, a=args.a,
                      b=args.b, data_path=args.path)
    print(f"settings: {card['settings']['line']}", file=sys.stderr)
    for n in card["notes"]:
        print(f"note: {n}", file=sys.stderr)
    for v in card["verdicts"]:
        print(f"verdict: {v['sentence']}", file=sys.stderr)
    text = render_card(card)
    atomic_write(args.out, lambda fh: fh.write(text))  # UTF-8
    print(f"wrote {args.out} ({len(text.encode('utf-8')) / 1e6:.2f} MB)", file=sys.stderr)
    return 0
