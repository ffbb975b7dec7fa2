"""``--tokenize`` and the ``signature`` column, shared by the commands (not a command itself).

The tokenizer default follows sacreBLEU's recommendation for the target language of the
language pair (Post 2018: zh → zh, ja → ja-mecab, ko → ko-mecab, else 13a); the choice is
stated on stderr whenever a word-level metric uses it, and it is in every signature (``tok:``).
"""
from __future__ import annotations

import sys

import pandas as pd


def add_argument(p) -> None:
    from ..metrics.tokenize import TOKENIZERS

    p.add_argument("--tokenize", metavar="NAME", choices=TOKENIZERS,
                   help="sacreBLEU tokenizer for the word-level metrics (BLEU, NIST, GTM, WER, PER, TER, ROUGE, "
                        f"METEOR...; chrF is character-based): {', '.join(TOKENIZERS)}. Default: sacreBLEU's "
                        "for the target language (zh: zh, ja: ja-mecab, ko: ko-mecab, else 13a)")


def check(args) -> None:
    """Fail early (before loading data) when the chosen tokenizer is not usable here."""
    if getattr(args, "tokenize", None):
        from ..metrics.tokenize import check_tokenizer

        check_tokenizer(args.tokenize)


def resolve(args, dataset, metrics=None) -> str:
    """The tokenizer to use on ``dataset`` (``--tokenize`` or the target-language default),
    stated on stderr when one of ``metrics`` (metric objects; None = assume some) splits words."""
    from ..metrics.tokenize import resolve_tokenizer

    from ..scoring.defaults import tokenizer_caveat

    tok, note = resolve_tokenizer(getattr(args, "tokenize", None), dataset.lp)
    split = [m for m in metrics if m.uses_tokenizer] if metrics is not None else None
    # TER with 13a / none is sacreBLEU's TER: Tercom's own splitting, the tokenizer a no-op
    tercom = [m.id for m in split or () if tok in getattr(m, "TERCOM_ONLY", ())]
    words = [m.id for m in split if m.id not in tercom] if split is not None else None
    where = dataset.lp or "language pair unknown"
    if words is None or words:
        which = f" for {', '.join(words)}" if words else " for the word-level metrics"
        print(f"note: {where}: {note}{which}" + (f" ({', '.join(tercom)}: Tercom's own word splitting)"
                                                 if tercom else ""), file=sys.stderr)
        caveat = tokenizer_caveat(dataset.lp, tok)
        if caveat:
            print(f"note: {where}: {caveat}", file=sys.stderr)
    elif tercom:
        print(f"note: {where}: {', '.join(tercom)} uses Tercom's own word splitting (sacreBLEU's TER; "
              f"the {tok} tokenizer does not apply to it)", file=sys.stderr)
    return tok


def metric_signatures(table: pd.DataFrame, scores: pd.DataFrame) -> pd.DataFrame:
    """``table`` (one row per metric) with a ``signature`` column from the score rows'
    ``signature`` column (bring-your-own scores: ``external``)."""
    sig = {}
    if "signature" in scores.columns:
        sig = scores.drop_duplicates("metric").set_index("metric")["signature"].to_dict()
    table = table.copy()
    table["signature"] = [sig.get(m) if isinstance(sig.get(m), str) and sig.get(m) else "external"
                          for m in table["metric"]]
    return table


def correlation_settings(args, grouping: str) -> str:
    """The correlation's own settings in signature style (the ``settings`` column of correlate)."""
    parts = [f"human:{args.human}", f"norm:{args.normalisation}", f"agg:{args.aggregate}", f"group:{grouping}"]
    if getattr(args, "bootstrap", 0):
        parts += [f"bs:{args.bootstrap}", f"over:{args.bootstrap_over or 'default'}", f"seed:{args.seed}"]
    elif getattr(args, "fisher", False):
        parts.append("ci:fisher")
    return "|".join(parts)


