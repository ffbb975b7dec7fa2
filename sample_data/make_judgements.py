"""Deterministic rater model for the teaching set's human judgements.

The *base* adequacy and fluency of every output (and of the judged reference sets ``ref-E``
and ``ref-F``) is the team's own reading of that text, written by hand in
``teaching_corpus.py`` (and exported to ``base_quality.tsv``). This script only turns a base
score into what each of the three simulated raters reports, by the rules documented in
``sample_data/README.md``:

* ``rater1`` (lenient): one point above the base, never above 5 (a base 5 stays 5);
* ``rater2`` (strict): one point below the base, never below 1; a base 5 stays 5 for adequacy
  but becomes 4 for fluency (rater2 hardly ever calls a sentence flawless);
* ``rater3`` (noisy, inconsistent): base + e, e in {-2,-1,0,+1,+2} with probabilities
  {.1,.2,.4,.2,.1}, drawn from a random generator seeded by the string
  ``"rater3|system|seg_id|criterion"``, clipped to 1..5.

Repeated judgements (for intra-rater agreement) are appended to ``judgements.tsv`` after the
first pass (the loader keeps repeats; the k-th judgement of a rater on an item is screen k): rater1
re-judged every output of 3 segments (7 systems + ref-E, ref-F) on both criteria; the second pass is the first pass + e, e in {-1,0,0,+1}
(seeded by ``"repeat|system|seg_id|criterion"``), clipped to 1..5.
"""
from __future__ import annotations

import random

RATERS = ["rater1", "rater2", "rater3", "expert"]
CRITERIA = ["adequacy", "fluency"]
NOISE = [-2, -1, -1, 0, 0, 0, 0, 1, 1, 2]  # rater3: P(-2)=.1, P(-1)=.2, P(0)=.4, P(+1)=.2, P(+2)=.1


def _clip(x: int) -> int:
    return max(1, min(5, x))


def rater_score(rater: str, base: int, system: str, seg_id: str, criterion: str) -> int:
    """What ``rater`` reports for an output whose base score is ``base`` (1..5)."""
    if rater == "rater1":
        return _clip(base + 1)
    if rater == "rater2":
        if base == 5:
            return 5 if criterion == "adequacy" else 4
        return _clip(base - 1)
    if rater == "rater3":
        rng = random.Random(f"rater3|{system}|{seg_id}|{criterion}")
        return _clip(base + rng.choice(NOISE))
    if rater == "expert":
        return base
    raise ValueError(f"unknown rater {rater!r}")


def judgement_rows(base_rows: list[tuple[str, str, int, int]], lp: str) -> list[list]:
    """Rows (lp, system, seg_id, rater, judgement, score) for every base (system, seg_id, adq, flu)."""
    rows = []
    for rater in RATERS:
        for system, seg_id, adq, flu in base_rows:
            for criterion, base in zip(CRITERIA, (adq, flu)):
                rows.append([lp, system, seg_id, rater, criterion, rater_score(rater, base, system, seg_id, criterion)])
    return rows


def repeat_rows(base_rows: list[tuple[str, str, int, int]], lp: str, n_segments: int = 3) -> list[list]:
    """rater1's second pass over every judged output of ``n_segments`` segments picked with a
    fixed seed (see module docstring): whole segments, so that the repeated screen yields
    pairwise (A better / worse / equal) labels for intra-rater agreement."""
    segs = sorted({b[1] for b in base_rows}, key=int)
    chosen = set(random.Random("rater1-repeats").sample(segs, n_segments))
    pick = [i for i, b in enumerate(base_rows) if b[1] in chosen]
    rows = []
    for i in sorted(pick):
        system, seg_id, adq, flu = base_rows[i]
        for criterion, base in zip(CRITERIA, (adq, flu)):
            first = rater_score("rater1", base, system, seg_id, criterion)
            e = random.Random(f"repeat|{system}|{seg_id}|{criterion}").choice([-1, 0, 0, 1])
            rows.append([lp, system, seg_id, "rater1", criterion, _clip(first + e)])
    return rows
