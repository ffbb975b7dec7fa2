"""The metric playground: edit a candidate translation and see what every metric makes of it.

A student picks a segment (its source, references and one system's output as the starting
candidate) or types all of them, edits the candidate, and sees at once

* every chosen metric's sentence score against all references (:func:`score_candidate`), with
  the change since the starting text;
* each score with one reference left out in turn (how much a single human translation decides
  the score: Callison-Burch et al. 2006 §3; Amigó et al. 2006 §3 hold references out the same way);
* the candidate's n-grams matched by each reference, highlighted (Papineni et al. 2002 §2.1),
  and the per-order match table (Ananthakrishnan et al. 2007 §5), from
  :func:`evalcore.metrics.engine.ngram_breakdown`.

Ready-made challenges (:data:`CHALLENGES`) turn the seeds' lessons into exercises whose metric
side the page checks; whether the meaning really changed (or stayed) is the student's judgement,
and the page says so. Sentence scores are the metrics' own (sacreBLEU's sentence BLEU, chrF and
TER where evalcore reproduces them), so a number here equals the same metric anywhere else.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from ..metrics._caches import lru_memo
from ..present.highlight import escape, highlight_tokens
from ..scoring.settings import DEFAULTS, Settings

#: metrics offered by default: cheap at sentence level, each a different idea of similarity
DEFAULT_METRICS = ("bleu", "chrf", "chrf++", "ter", "meteor", "rouge-l")


@dataclass(frozen=True)
class Texts:
    """One playground item: the source, the references (id, text) and the starting candidate."""
    source: str
    references: tuple[tuple[str, str], ...]
    start: str


def item_from_dataset(dataset, seg_id: str, system: str) -> Texts:
    """The source, every non-empty reference and ``system``'s output of segment ``seg_id``."""
    pos = {str(s): i for i, s in enumerate(dataset.seg_ids)}
    if str(seg_id) not in pos:
        raise KeyError(f"unknown segment {seg_id!r}")
    i = pos[str(seg_id)]
    refs = dataset.ref_texts()
    out = dataset.sys_texts().get(system)
    if out is None:
        raise KeyError(f"unknown system {system!r}")
    return Texts(source=str(dataset.segments["source"].iloc[i]),
                 references=tuple((r, refs[r][i]) for r in dataset.ref_ids if refs[r][i] is not None),
                 start=out[i] or "")


def parse_references(text: str) -> tuple[tuple[str, str], ...]:
    """References typed by the user, one per non-empty line, named ref-1, ref-2, ..."""
    lines = [ln.strip() for ln in (text or "").splitlines() if ln.strip()]
    return tuple((f"ref-{k}", ln) for k, ln in enumerate(lines, 1))


def _metric(metric_id: str, settings: Settings):
    from ..metrics import get_metric

    return get_metric(metric_id, tokenize=settings.tokenizer)


def sentence_scores(candidate: str, references: Sequence[str], metrics: Sequence[str],
                    settings: Settings = DEFAULTS) -> dict[str, float]:
    """Each metric's sentence score of ``candidate`` against all ``references`` (its own scale;
    word-level metrics with ``settings.tokenizer``)."""
    return {m: float(_metric(m, settings).sentence_score(candidate, list(references))) for m in metrics}


@lru_memo("playground.scale", 256)
def scale_of(metric_id: str, settings: Settings = DEFAULTS) -> str:
    """The scale a metric's sentence scores are on, as a label: the score of a candidate identical
    to its reference (the best score) read off the metric itself, e.g. "0–100, higher is better"
    for BLEU and chrF, "0–1, higher is better" for METEOR, "0 and up, an error rate: lower is
    better" for TER (so that scores on different scales are never read as one scale)."""
    metric = _metric(metric_id, settings)
    best = float(metric.sentence_score("one two three four five", ["one two three four five"]))
    if metric.meta.higher_is_better:  # METEOR's fragmentation penalty keeps a perfect match just under 1
        top = 1 if best <= 1 else 100 if best <= 100 else best
        return f"0–{top:g}, higher is better"
    return f"{best:g} and up, an error rate: lower is better"


def score_candidate(candidate: str, references: Sequence[tuple[str, str]], metrics: Sequence[str],
                    start: str | None = None, settings: Settings = DEFAULTS) -> pd.DataFrame:
    """One row per metric: ``score`` of the candidate against every reference, ``start`` (the
    starting text's score) and ``change``, ``higher_is_better``, ``scale`` (:func:`scale_of`: each
    metric keeps its own scale, labelled), and per reference ``without
    <ref id>``: the score with that reference left out (only with two or more references). Word-level
    metrics tokenize with ``settings.tokenizer``."""
    texts = [t for _, t in references]
    rows = []
    for m in metrics:
        metric = _metric(m, settings)
        score = float(metric.sentence_score(candidate, texts))
        row: dict[str, object] = {"metric": m, "score": score}
        if start is not None:
            start_score = _start_score(m, settings, start, tuple(texts))
            row["start"] = start_score
            row["change"] = score - start_score
        row["higher_is_better"] = bool(metric.meta.higher_is_better)
        row["scale"] = scale_of(m, settings)
        if len(texts) > 1:
            # every leave-one-out score in one call: the metric's segment_block, whose values equal
            # sentence_score(candidate, references without j) (the metric contract; tested here
            # against sacreBLEU)
            _, loo = metric.segment_block([candidate], texts)
            for j, (rid, _) in enumerate(references):
                row[f"without {rid}"] = float(loo[0, j])
        rows.append(row)
    return pd.DataFrame(rows)


@lru_memo("playground.start_score", 256)
def _start_score(metric_id: str, settings: Settings, start: str, references: tuple[str, ...]) -> float:
    """The starting text's score: the same on every edit of one item, so computed once."""
    return float(_metric(metric_id, settings).sentence_score(start, list(references)))


def match_view(candidate: str, references: Sequence[tuple[str, str]], settings: Settings = DEFAULTS,
               max_order: int = 4) -> dict:
    """Where the candidate's n-grams match each reference: escaped HTML with the matched
    candidate tokens marked (``per_reference``: ref id, html, matched n-grams per order) and the
    per-order table (matched / total candidate n-grams, clipped over all references). Tokens:
    ``settings.tokenizer``, else sacreBLEU's default with no target language (13a)."""
    from ..metrics.engine import ngram_breakdown
    from ..metrics.tokenize import default_tokenizer

    tokenize = settings.tokenizer or default_tokenizer(None)

    if not references:
        return {"per_reference": [], "orders": pd.DataFrame(columns=["order", "matched", "total", "precision"])}
    bd = ngram_breakdown(candidate, [t for _, t in references], tokenize=tokenize, max_order=max_order)
    per_ref = []
    for (rid, _), pr in zip(references, bd["per_reference"]):
        per_ref.append({"ref_id": rid, "html": highlight_tokens(bd["cand_tokens"], pr["token_spans"]),
                        "matched": {n: len(v) for n, v in pr["matched_spans"].items()}})
    orders = pd.DataFrame([{"order": o["n"], "matched": o["matched"], "total": o["total"],
                            "precision": o["precision"]} for o in bd["orders"]])
    return {"per_reference": per_ref, "orders": orders, "tokens": bd["cand_tokens"]}


# ---------------------------------------------------------------- challenges
#: words whose presence flips an English sentence's meaning; the meaning check of challenge 1
#: is the student's, this list only confirms that a negation (or a number) was changed
NEGATIONS = frozenset({"not", "no", "never", "none", "nothing", "nobody", "neither", "nor", "n't",
                       "cannot", "without"})
_WORD = re.compile(r"[A-Za-z']+|\d+(?:[.,]\d+)*")


def _words(text: str) -> list[str]:
    words = []
    for w in _WORD.findall(text or ""):
        low = w.lower()
        if low.endswith("n't") and low != "n't":
            words += [low[:-3], "n't"]
        else:
            words.append(low)
    return words


def meaning_flips(start: str, candidate: str) -> list[str]:
    """Negations and numbers whose counts differ between the two texts (each named once)."""
    a, b = _words(start), _words(candidate)
    flips = []
    for w in sorted(set(a) | set(b)):
        if (w in NEGATIONS or w[0].isdigit()) and a.count(w) != b.count(w):
            flips.append(w)
    return flips


@dataclass(frozen=True)
class Result:
    passed: bool
    message: str


@dataclass(frozen=True)
class Challenge:
    key: str
    title: str
    task: str          #: what the student does
    lesson: str        #: what it teaches, with its source
    start_from: str    #: "output" (a system's output) or "reference" (the first reference)
    metrics: tuple[str, ...]
    check: Callable[[dict, dict, str, str], Result]


def _fmt(x: float) -> str:
    return f"{x:.1f}"


def _raise_bleu_wrong_meaning(before: dict, after: dict, start: str, text: str) -> Result:
    gain = after["bleu"] - before["bleu"]
    flips = meaning_flips(start, text)
    if not flips:
        return Result(False, "No negation or number was added, removed or changed yet: change what the "
                             "sentence says (e.g. add or remove 'not', change a number).")
    if gain <= 0:
        return Result(False, f"The meaning changed ({', '.join(flips)}), but BLEU went from {_fmt(before['bleu'])} "
                             f"to {_fmt(after['bleu'])}: it must rise.")
    return Result(True, f"BLEU rose by {_fmt(gain)} points ({_fmt(before['bleu'])} → {_fmt(after['bleu'])}) while "
                        f"the sentence now says something else ({', '.join(flips)} changed). BLEU counts shared "
                        "n-grams; one word that reverses the meaning costs it little.")


def _lower_bleu_same_meaning(before: dict, after: dict, start: str, text: str) -> Result:
    drop = before["bleu"] - after["bleu"]
    n0, n1 = len(_words(start)), len(_words(text))
    flips = meaning_flips(start, text)
    if flips:
        return Result(False, f"A negation or number changed ({', '.join(flips)}): keep the meaning.")
    if n0 and not 0.5 <= n1 / n0 <= 1.5:
        return Result(False, f"The text has {n1} words against {n0} at the start: keep the length within "
                             "half and one and a half times (say the same thing, don't delete it).")
    if drop < 30:
        return Result(False, f"BLEU fell by {_fmt(drop)} points ({_fmt(before['bleu'])} → {_fmt(after['bleu'])}); "
                             "30 are needed.")
    return Result(True, f"BLEU fell by {_fmt(drop)} points with the meaning kept (your judgement). A correct "
                        "translation worded differently from the references is what BLEU penalises most.")


def _chrf_yes_bleu_no(before: dict, after: dict, start: str, text: str) -> Result:
    dc, db = after["chrf"] - before["chrf"], after["bleu"] - before["bleu"]
    if dc > 0 and db < 0:
        return Result(True, f"chrF rose by {_fmt(dc)} while BLEU fell by {_fmt(-db)}: character n-grams reward "
                            "shared word stems and morphology that whole-word n-grams miss.")
    return Result(False, f"chrF changed by {dc:+.1f} and BLEU by {db:+.1f}: chrF must rise and BLEU fall.")


CHALLENGES: tuple[Challenge, ...] = (
    Challenge("wrong-meaning", "Raise BLEU while making the meaning wrong",
              "Edit the output so that it says something false (add or remove a negation, change a "
              "number) and BLEU goes up.",
              "BLEU measures n-gram overlap, not meaning (Callison-Burch et al. 2006; Ananthakrishnan et "
              "al. 2007 §4 on BLEU's blindness to a dropped negation).", "output", ("bleu",),
              _raise_bleu_wrong_meaning),
    Challenge("same-meaning", "Keep the meaning and lower BLEU by 30 points",
              "Start from a reference translation (100 % correct) and reword it so that it keeps its meaning "
              "and its length, but BLEU falls by at least 30 points.",
              "A human translation can score low when worded unlike the references (Callison-Burch 2009, "
              "Figure 4; Amigó et al. 2006 on human-likeness).", "reference", ("bleu",),
              _lower_bleu_same_meaning),
    Challenge("chrf-not-bleu", "Find a paraphrase that chrF prefers and BLEU does not",
              "Edit the output so that chrF goes up and BLEU goes down.",
              "Character n-grams (Popović 2015) credit partial word matches; BLEU's word n-grams do not.",
              "output", ("bleu", "chrf"), _chrf_yes_bleu_no),
)


def challenge(key: str) -> Challenge:
    for c in CHALLENGES:
        if c.key == key:
            return c
    raise KeyError(f"no challenge {key!r}; known: {', '.join(c.key for c in CHALLENGES)}")


def start_text(ch: Challenge, item: Texts) -> str:
    """The text a challenge starts from: the system output, or the first reference."""
    if ch.start_from == "reference" and item.references:
        return item.references[0][1]
    return item.start


def check_challenge(ch: Challenge, item: Texts, start: str, candidate: str,
                    settings: Settings = DEFAULTS) -> Result:
    """Score the starting text and the candidate against the item's references and apply the
    challenge's check. Both are scored against every reference of the item (a challenge that
    starts from a reference therefore starts at BLEU 100: any rewording shows what it costs)."""
    refs = [t for _, t in item.references]
    if not refs:
        return Result(False, "This challenge needs at least one reference.")
    before = sentence_scores(start, refs, ch.metrics, settings)
    after = sentence_scores(candidate, refs, ch.metrics, settings)
    if any(not np.isfinite(v) for v in (*before.values(), *after.values())):
        return Result(False, "A score is undefined for this text (empty, or over the long-segment cap).")
    return ch.check(before, after, start, candidate)


def escaped(text: str) -> str:
    """User text for the page's HTML boxes (:func:`evalcore.present.highlight.escape`)."""
    return escape(text)
