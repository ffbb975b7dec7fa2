"""``python -m evalcore verify-card card.html DATA``: recompute every number of an evaluation card.

Reads the numbers the card embeds (``<script type="application/json" id="evalcore-card">``),
recomputes the card from DATA with the card's own parameters and settings
(:func:`evalcore.views.card.verify_card`) and writes one row per value (name, in_card,
recomputed, status: equal | different | missing | new) — ``--all`` every row, else the ones
that are not equal — then one row per input file whose SHA-256 changed. Exit 0 only when every
value is equal and every input file has its recorded SHA-256; 1 otherwise (each difference named
on stderr); 2 for a file that is not a card or data that cannot be read.
"""
from __future__ import annotations

import sys

NAME = "verify-card"
STATES_SETTINGS = True  # the card's settings are stated from run()
OUTPUTS = ("out",)
HELP = "Recompute every number of an evaluation card from the data; exit 0 only when all are equal."


def add_arguments(p) -> None:
    p.add_argument("card", help="the card's HTML file")
    p.add_argument("path", help="the dataset folder or zip the card was made from")
    p.add_argument("--all", action="store_true", help="list every value, equal ones too")
    p.add_argument("--out", help="write the comparison table here (TSV; .csv writes CSV)")


def run(args) -> int:
    from pathlib import Path

    from .. import __version__
    from ..core.export import write_table
    from ..io import load_dataset
    from ..views.card import read_card, settings_of, verify_card

    try:
        text = Path(args.card).read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"{args.card}: cannot read the card ({exc.strerror or exc})") from None
    card = read_card(text)
    if card["tool"].get("version") != __version__:
        print(f"note: the card was made by evalcore {card['tool'].get('version')}, this is {__version__}",
              file=sys.stderr)
    ds = load_dataset(args.path, lp=card["parameters"]["lp"] or None)
    settings = settings_of(card)
    crit = card["parameters"]["criterion"]
    print(f"settings: {settings.describe(ds, crit if settings.judged_only else None)}", file=sys.stderr)
    values, files = verify_card(card, ds, args.path)
    bad = values[values["status"] != "equal"]
    changed = files[files["status"] != "equal"]
    table = values if args.all else bad
    if args.out:
        write_table(table, args.out)
    else:
        table.to_csv(sys.stdout, sep="\t", index=False)
    for r in bad.itertuples(index=False):
        print(f"different: {r.name}: card {r.in_card!r}, recomputed {r.recomputed!r} ({r.status})", file=sys.stderr)
    for r in changed.itertuples(index=False):
        print(f"input file {r.status}: {r.file} (card sha256 {r.sha256_card}, now {r.sha256_now})", file=sys.stderr)
    n_eq = int((values["status"] == "equal").sum())
    print(f"verify-card: {n_eq} of {len(values)} values equal; {len(changed)} of {len(files)} input files changed",
          file=sys.stderr)
    return 0 if bad.empty and changed.empty else 1
