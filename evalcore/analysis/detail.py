"""The detail of one (system, segment): source, output, every reference with the n-grams it
shares with the output on both sides, the per-order match table, every signal and judgement
of the row. The divergence browser (:mod:`evalcore.views.divergence`) and the Compare page's
side-by-side view (:func:`evalcore.analysis.compare.side_by_side`) show it.
"""
from __future__ import annotations

from collections import Counter
from typing import Sequence

import pandas as pd

from ..core.dataset import Dataset
from ..metrics.engine import ngram_breakdown
from ..scoring.defaults import page_tokenizer
from ..scoring.settings import DEFAULTS, Settings


def signal_columns(signals: pd.DataFrame) -> list[str]:
    return [c for c in signals.columns if c.split(":")[0] in ("metric", "human", "judge", "queen")]



def ref_side_spans(cand_tokens: Sequence[str], ref_tokens: Sequence[str], max_order: int = 4) -> list[tuple[int, int]]:
    """Half-open token spans of the reference covered by n-grams (n ≤ ``max_order``) it shares
    with the candidate, clipped by the candidate's counts (the reference side of BLEU's
    modified precision, Papineni et al. 2002 §2.1), merged into maximal runs."""
    covered: set[int] = set()
    for n in range(1, max_order + 1):
        cc = Counter(tuple(cand_tokens[i:i + n]) for i in range(len(cand_tokens) - n + 1))
        for p in range(len(ref_tokens) - n + 1):
            g = tuple(ref_tokens[p:p + n])
            if cc.get(g, 0) > 0:
                cc[g] -= 1
                covered.update(range(p, p + n))
    spans: list[list[int]] = []
    for p in sorted(covered):
        if spans and spans[-1][1] == p:
            spans[-1][1] = p + 1
        else:
            spans.append([p, p + 1])
    return [(x, y) for x, y in spans]


_ORDER_NAMES = {1: "unigrams", 2: "bigrams", 3: "trigrams", 4: "4-grams"}


def segment_detail(dataset: Dataset, system: str, seg_id: str, signals: pd.DataFrame | None = None,
                   settings: Settings = DEFAULTS, max_order: int = 4) -> dict:
    """Everything about one (system, segment) for the divergence browser and the Compare
    side-by-side view:

    ``source``, ``output``; ``references``: per reference id, its text, tokens and the matched
    token spans on both sides (output tokens matched by this reference, reference tokens
    matched by the output); ``orders``: the per-order match table of Ananthakrishnan et al. 2007 (matched / total
    candidate n-grams, clipped over all references, e.g. "unigrams 3/4"), with brevity penalty
    and the average precision P of Ananthakrishnan et al. 2007 §5.8; ``scores``: every signal of the row;
    ``judgements``: every rating of the output; ``tags``. ``settings.tokenizer``: the BLEU
    tokenizer (None: sacreBLEU's default for the target language; pages pass their choice).
    """
    tokenize = page_tokenizer(dataset, settings.tokenizer)

    seg_id = str(seg_id)
    pos = {s: i for i, s in enumerate(dataset.seg_ids)}
    if seg_id not in pos:
        raise KeyError(f"unknown segment {seg_id!r}")
    s = pos[seg_id]
    out_text = dataset.sys_texts().get(system, [None] * len(pos))[s]
    ref_t = dataset.ref_texts()
    refs: list[tuple[str, str]] = [(r, t) for r in dataset.ref_ids if (t := ref_t[r][s]) is not None]
    detail = {"system": system, "seg_id": seg_id, "source": dataset.segments["source"].iloc[s],
              "output": out_text, "references": [], "orders": pd.DataFrame(), "summary": {}}
    if out_text is not None and refs:
        bd = ngram_breakdown(out_text, [t for _, t in refs], tokenize=tokenize, max_order=max_order)
        for (rid, text), pr, rtoks in zip(refs, bd["per_reference"], bd["ref_tokens"]):
            detail["references"].append({
                "ref_id": rid, "text": text, "tokens": rtoks,
                "ref_spans": ref_side_spans(bd["cand_tokens"], rtoks, max_order),
                "cand_spans": pr["token_spans"],
                "matched": {n: len(v) for n, v in pr["matched_spans"].items()},
            })
        detail["cand_tokens"] = bd["cand_tokens"]
        detail["orders"] = pd.DataFrame([{
            "order": _ORDER_NAMES.get(o["n"], f"{o['n']}-grams"), "matched": o["matched"], "total": o["total"],
            "match": f"{o['matched']}/{o['total']}", "precision": o["precision"]} for o in bd["orders"]])
        detail["summary"] = {"hyp_len": bd["hyp_len"], "ref_len": bd["ref_len"],
                             "brevity_penalty": bd["brevity_penalty"],
                             "average_precision": bd["average_precision"], "sentence_bleu": bd["bleu"]}
    else:
        detail["references"] = [{"ref_id": r, "text": t, "tokens": None, "ref_spans": [], "cand_spans": [],
                                 "matched": {}} for r, t in refs]
    j = dataset.judgements
    jj = j[(j["system"] == system) & (j["seg_id"].astype(str) == seg_id)]
    detail["judgements"] = jj[["judgement", "rater", "score"]].reset_index(drop=True)
    tg = dataset.tags
    detail["tags"] = tg[(tg["system"] == system) & (tg["seg_id"].astype(str) == seg_id)]["tag"].tolist()
    if signals is not None:
        row = signals[(signals["system"] == system) & (signals["seg_id"].astype(str) == seg_id)]
        cols = signal_columns(signals)
        scores = pd.DataFrame({"signal": cols, "value": row[cols].iloc[0].to_numpy(float)}) \
            if len(row) else pd.DataFrame(columns=["signal", "value"])
        # only the raters who judged this output: a rater's column is empty for every other one
        silent = scores["signal"].str.startswith("judge:") & scores["value"].isna()
        detail["not_judged"] = int(silent.sum())
        detail["scores"] = scores[~silent].reset_index(drop=True)
    else:
        detail["scores"] = pd.DataFrame(columns=["signal", "value"])
        detail["not_judged"] = 0
    return detail
