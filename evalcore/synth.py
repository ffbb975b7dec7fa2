"""Deterministic generator of large synthetic datasets for benchmarks and tests.

The generative story (documented here because benchmarks and tests rely on it):

* **Vocabulary.** ``vocab_size`` pseudo-words of the target language (consonant-vowel
  syllables, e.g. ``dake``), grouped into synonym sets of three: words ``3g``, ``3g+1`` and
  ``3g+2`` all express concept ``g`` (word ``3g`` is the *canonical* one). The source language
  has one pseudo-word per concept, from a different syllable inventory.
* **Hidden meaning.** Segment ``s`` has a length ``L_s = max(3, round(Gamma(4, mean_len/4)))``
  and a sequence of ``L_s`` concepts drawn from a Zipf-like law (P(g) proportional to
  1/(g+1)^1.1), so frequent concepts are shared between segments as function words are.
  The source text is the concepts' source words.
* **References** are noisy paraphrases of the meaning: each concept is realised by its
  canonical word with probability 0.8, otherwise by one of its two synonyms (chosen
  independently per reference), and adjacent words are swapped with probability 0.08 (local
  reordering). References therefore share most content but differ in wording and order.
  With ``missing_ref_rate > 0`` each (segment, reference set) pair is dropped with that
  probability, but every segment keeps at least one reference.
* **Systems** have hidden qualities ``q_k`` evenly spaced in [0.45, 0.95] (assigned to the
  systems in a seeded random order, returned in ``dataset.extras["system_quality"]``).
  An output's quality is ``q_ks = clip(q_k + N(0, 0.08), 0.05, 1)``. Each concept is
  translated correctly with probability ``q_ks`` (realised like a reference), otherwise
  replaced by a uniformly random word (an error); words are dropped with probability
  ``0.3 (1 - q_ks)`` (never the first one) and adjacent words swapped with probability
  ``0.25 (1 - q_ks)``.
* **Human scores** (criterion ``da``, 0..100, two raters) come from what actually happened
  to the output: ``acc`` = share of concepts translated correctly and kept, ``flu`` = 1 -
  share of swapped positions; ``da = 100 (0.75 acc + 0.25 flu) + bias_r + N(0, sd_r)``,
  clipped to 0..100 and rounded to 0.1, with ``rater1``: bias 0, sd 7 and ``rater2``: bias
  -5, sd 12. Metrics that reward overlap with the references therefore correlate with them.

Everything is drawn from ``numpy.random.default_rng([seed, stream])`` with one fixed stream
per component (meaning, each reference set, each system, missing references, each rater),
so the same arguments always give the same dataset (same :meth:`Dataset.content_hash`), and
the references do not change when only the number of systems changes.

Vectorised with numpy (no per-token Python loop): 500 segments x 16 references x 20 systems
takes well under a second; 100k segments x 10 systems x 4 references about 6 seconds and
under 1 GB (see benchmarks/bench_synth.py).

Command line (writes tidy TSVs with pandas)::

    python -m evalcore.io.synth --segments 500 --refs 16 --systems 20 --out FOLDER
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from ..core.dataset import Dataset

__all__ = ["make_synthetic", "main"]

_TGT_SYLLABLES = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]  # 70
_SRC_SYLLABLES = [c + v for c in "cjlnqrsxyh" for v in "aeiouy"]  # 60

P_CANONICAL = 0.8  # probability that a concept is realised by its canonical word
REF_SWAP = 0.08  # adjacent-swap probability in references
SYS_DROP = 0.3  # drop probability factor for systems (times 1 - quality)
SYS_SWAP = 0.25  # swap probability factor for systems (times 1 - quality)
QUALITY_RANGE = (0.45, 0.95)
QUALITY_SD = 0.08
RATERS = (("rater1", 0.0, 7.0), ("rater2", -5.0, 12.0))  # name, bias, noise sd
ZIPF_S = 1.1

# stream ids for default_rng([seed, stream])
_S_MEANING, _S_QUALITY, _S_MISSING = 1, 2, 3
_S_REF, _S_SYS, _S_RATER = 1000, 100000, 200000


def _words(n: int, syllables: list[str]) -> np.ndarray:
    """``n`` distinct pseudo-words: the base-len(syllables) digits of i + len(syllables)."""
    b = len(syllables)
    out = []
    for i in range(n):
        k = i + b  # at least two syllables
        parts = []
        while k:
            k, r = divmod(k, b)
            parts.append(syllables[r])
        out.append("".join(parts))
    return np.array(out, dtype=object)


def _rng(seed: int, stream: int) -> np.random.Generator:
    return np.random.default_rng([int(seed), stream])


def _swap_adjacent(ids: np.ndarray, seg_of: np.ndarray, prob: np.ndarray | float,
                   rng: np.random.Generator) -> np.ndarray:
    """Swap ids[i] and ids[i+1] (same segment) at non-overlapping positions drawn with ``prob``.

    Returns the boolean mask of the positions i that were swapped (ids is modified in place).
    """
    t = len(ids)
    pick = rng.random(t) < prob
    pick[-1] = False
    pick[:-1] &= seg_of[:-1] == seg_of[1:]
    pick[1:] &= ~pick[:-1]  # no two overlapping swaps (i, i+1) and (i+1, i+2)
    i = np.flatnonzero(pick)
    ids[i], ids[i + 1] = ids[i + 1], ids[i].copy()
    return pick


def _join(words: np.ndarray, seg_of: np.ndarray) -> list[str]:
    """Join ``words`` (object array, in segment order) into one string per segment.

    Every segment must contribute at least one word.
    """
    last = np.ones(len(seg_of), dtype=bool)
    last[:-1] = seg_of[:-1] != seg_of[1:]
    inter = np.empty(2 * len(words), dtype=object)
    inter[0::2] = words
    inter[1::2] = np.where(last, "\n", " ")
    return "".join(inter.tolist()).split("\n")[:-1]


def make_synthetic(n_segments: int, n_refs: int, n_systems: int, seed: int = 0, mean_len: float = 20,
                   vocab_size: int = 5000, missing_ref_rate: float = 0.0,
                   judgements: bool = True) -> Dataset:
    """A synthetic :class:`Dataset` (lp ``xx-en``) following the story in the module docstring.

    Reference sets are ``ref-01`` .., systems ``sys-01`` .., segments ``1`` .. ``n_segments``
    in documents of 10 segments (``doc-1`` ..). ``extras["system_quality"]`` (system, quality)
    holds each system's hidden quality ``q_k``.
    """
    if n_segments < 1 or n_refs < 0 or n_systems < 0:
        raise ValueError("n_segments must be >= 1 and n_refs, n_systems >= 0")
    if vocab_size < 30:
        raise ValueError("vocab_size must be at least 30")
    if not 0.0 <= missing_ref_rate < 1.0:
        raise ValueError("missing_ref_rate must be in [0, 1)")
    if mean_len < 1:
        raise ValueError("mean_len must be >= 1")

    n_groups = vocab_size // 3
    tgt_vocab = _words(3 * n_groups, _TGT_SYLLABLES)
    src_vocab = _words(n_groups, _SRC_SYLLABLES)

    # hidden meaning
    rng = _rng(seed, _S_MEANING)
    lengths = np.maximum(3, np.rint(rng.gamma(4.0, mean_len / 4.0, n_segments))).astype(np.int64)
    seg_of = np.repeat(np.arange(n_segments), lengths)
    t = len(seg_of)
    zipf = 1.0 / np.arange(1, n_groups + 1) ** ZIPF_S
    meaning = rng.choice(n_groups, size=t, p=zipf / zipf.sum())
    first = np.zeros(t, dtype=bool)
    first[np.concatenate([[0], np.cumsum(lengths)[:-1]])] = True

    seg_ids = np.array([str(i) for i in range(1, n_segments + 1)], dtype=object)
    doc_ids = np.array([f"doc-{i // 10 + 1}" for i in range(n_segments)], dtype=object)
    segments = pd.DataFrame({"seg_id": seg_ids, "doc_id": doc_ids,
                             "source": _join(src_vocab[meaning], seg_of)})

    def realise(r: np.random.Generator) -> np.ndarray:
        member = np.where(r.random(t) < P_CANONICAL, 0, r.integers(1, 3, t))
        return 3 * meaning + member

    # references
    ref_names = [f"ref-{k + 1:02d}" for k in range(n_refs)]
    present = np.ones((n_segments, n_refs), dtype=bool)
    if n_refs and missing_ref_rate > 0:
        r = _rng(seed, _S_MISSING)
        present = r.random((n_segments, n_refs)) >= missing_ref_rate
        empty = np.flatnonzero(~present.any(axis=1))
        present[empty, r.integers(0, n_refs, len(empty))] = True
    ref_frames = []
    for k, name in enumerate(ref_names):
        r = _rng(seed, _S_REF + k)
        ids = realise(r)
        _swap_adjacent(ids, seg_of, REF_SWAP, r)
        texts = np.array(_join(tgt_vocab[ids], seg_of), dtype=object)
        keep = present[:, k]
        ref_frames.append(pd.DataFrame({"seg_id": seg_ids[keep], "ref_id": name, "text": texts[keep]}))

    # systems
    sys_names = [f"sys-{k + 1:02d}" for k in range(n_systems)]
    qualities = np.linspace(*QUALITY_RANGE, n_systems) if n_systems != 1 else np.array([np.mean(QUALITY_RANGE)])
    qualities = _rng(seed, _S_QUALITY).permutation(qualities)
    out_frames, human = [], []
    for k, name in enumerate(sys_names):
        r = _rng(seed, _S_SYS + k)
        q_seg = np.clip(qualities[k] + r.normal(0.0, QUALITY_SD, n_segments), 0.05, 1.0)
        q_tok = q_seg[seg_of]
        correct = r.random(t) < q_tok
        ids = realise(r)
        n_wrong = int((~correct).sum())
        ids[~correct] = r.integers(0, 3 * n_groups, n_wrong)
        kept = (r.random(t) >= SYS_DROP * (1.0 - q_tok)) | first
        swapped = _swap_adjacent(ids, seg_of, SYS_SWAP * (1.0 - q_tok), r)
        texts = _join(tgt_vocab[ids[kept]], seg_of[kept])
        out_frames.append(pd.DataFrame({"system": name, "seg_id": seg_ids, "text": texts}))
        acc = np.bincount(seg_of, weights=(correct & kept), minlength=n_segments) / lengths
        flu = 1.0 - np.bincount(seg_of, weights=swapped, minlength=n_segments) / lengths
        human.append(100.0 * (0.75 * acc + 0.25 * flu))

    judgement_frames = []
    if judgements:
        for j, (rater, bias, sd) in enumerate(RATERS):
            r = _rng(seed, _S_RATER + j)
            for name, base in zip(sys_names, human):
                score = np.round(np.clip(base + bias + r.normal(0.0, sd, n_segments), 0.0, 100.0), 1)
                judgement_frames.append(pd.DataFrame({"system": name, "seg_id": seg_ids, "rater": rater,
                                                      "judgement": "da", "score": score}))

    def cat(frames: list[pd.DataFrame], columns: list[str]) -> pd.DataFrame:
        if not frames:
            return pd.DataFrame({c: pd.Series(dtype="float64" if c == "score" else "object") for c in columns})
        return pd.concat(frames, ignore_index=True)

    extras = {"system_quality": pd.DataFrame({"system": sys_names, "quality": qualities})}
    return Dataset(
        name=f"synthetic-{n_segments}x{n_refs}x{n_systems}-seed{seed}",
        lp="xx-en",
        segments=segments,
        references=cat(ref_frames, ["seg_id", "ref_id", "text"]),
        outputs=cat(out_frames, ["system", "seg_id", "text"]),
        judgements=cat(judgement_frames, ["system", "seg_id", "rater", "judgement", "score"]),
        extras=extras,
    )


def _write(ds: Dataset, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    tables = {"segments": ds.segments, "references": ds.references, "outputs": ds.outputs,
              "judgements": ds.judgements}
    for name, frame in tables.items():
        frame = frame.copy()
        frame.insert(0, "lp", ds.lp)
        frame.to_csv(folder / f"{name}.tsv", sep="\t", index=False, lineterminator="\n")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m evalcore.io.synth",
                                description="Write a deterministic synthetic dataset as tidy TSVs.")
    p.add_argument("--segments", type=int, required=True)
    p.add_argument("--refs", type=int, required=True)
    p.add_argument("--systems", type=int, required=True)
    p.add_argument("--out", type=Path, required=True, help="folder to write the TSVs into")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--mean-len", type=float, default=20)
    p.add_argument("--vocab-size", type=int, default=5000)
    p.add_argument("--missing-ref-rate", type=float, default=0.0)
    p.add_argument("--no-judgements", action="store_true")
    a = p.parse_args(argv)
    try:
        ds = make_synthetic(a.segments, a.refs, a.systems, seed=a.seed, mean_len=a.mean_len,
                            vocab_size=a.vocab_size, missing_ref_rate=a.missing_ref_rate,
                            judgements=not a.no_judgements)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    _write(ds, a.out)
    print(f"wrote {ds.n_segments} segments, {len(ds.references)} references, {len(ds.outputs)} outputs, "
          f"{len(ds.judgements)} judgements to {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
