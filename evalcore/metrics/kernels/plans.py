"""Chunk plans: every (candidate, reference) pair of a chunk of items, tokenised and encoded
once (:class:`ChunkPairs`, :func:`chunk_pairs`), and the pair kernels run over a plan
(:func:`levenshtein_pairs`, :func:`overlap_pairs`). The word-level pairwise metrics (WER, PER,
GTM, ROUGE, METEOR) score a chunk through one plan; the family pass shares it between the
metrics of one tokenizer and case. Exact integers throughout; tests compare each metric's chunk
path with its per-pair definition."""
from __future__ import annotations

from itertools import chain
from typing import Any, Protocol, Sequence

import numpy as np

from .._caches import bounded_cache
from ..base import group_by_refs, too_long
from .dp import _dp_pairs
from .overlap import bag_overlap_pairs


class ChunkPairs:
    """Every (candidate, reference) pair of a chunk of items, the texts tokenised and encoded
    once (:func:`chunk_pairs`).

    ``flat``/``offs``: token ids of the distinct token sequences back to back (sequence t =
    ``flat[offs[t]:offs[t+1]]``; ids are only compared for equality); ``rows``: the items that
    have pairs, in order; item ``rows[q]`` owns pairs ``po[q]:po[q+1]``, one per reference in
    the order given; ``ph``/``pr``: sequence index of each pair's candidate and reference;
    ``lc``/``lr``: their lengths (int64); ``long_rows``: rows a quadratic metric refuses (a
    candidate or reference over :data:`~evalcore.metrics.base.MAX_ALIGN_TOKENS` tokens)."""

    __slots__ = ("flat", "offs", "rows", "po", "ph", "pr", "lc", "lr", "n_vocab", "long_rows", "memo")
    flat: np.ndarray
    offs: np.ndarray
    rows: np.ndarray
    po: np.ndarray
    ph: np.ndarray
    pr: np.ndarray
    lc: np.ndarray
    lr: np.ndarray
    n_vocab: int
    long_rows: np.ndarray
    memo: dict[str, Any]

    def pick(self, values: np.ndarray, best: str = "max") -> np.ndarray:
        """Index of the chosen pair of every row: the first maximum (``best="max"``) or first
        minimum of the row's values, as ``np.argmax`` / ``np.argmin`` over its references."""
        n = len(self.rows)
        k = np.diff(self.po)
        width = int(k.max()) if n else 0
        pad = np.full((n, width), -np.inf if best == "max" else np.inf)
        row_of = np.repeat(np.arange(n), k)
        pad[row_of, np.arange(len(values)) - self.po[row_of]] = values
        arg = np.argmax(pad, axis=1) if best == "max" else np.argmin(pad, axis=1)
        return self.po[:-1] + arg


_CHUNK_MEMO = bounded_cache("plans.chunk_pairs", 4)


class WordTokens(Protocol):
    """What :func:`chunk_pairs` reads of a word-level pairwise metric
    (:class:`evalcore.metrics.edit.WordMetric`, named here without importing it)."""

    @property
    def tokenize(self) -> str: ...
    @property
    def lowercase(self) -> bool: ...
    @property
    def quadratic(self) -> bool: ...
    def tok(self, text: str) -> tuple[str, ...]: ...


def chunk_pairs(metric: WordTokens, cands: Sequence[str], refs: Sequence[Sequence[str]]) -> ChunkPairs:
    """The :class:`ChunkPairs` of ``metric``'s tokens (a word-level pairwise metric: its ``tok``,
    ``tokenize``, ``lowercase`` and ``quadratic``) for items ``(cands[i], refs[i])``. Items
    without references have no pairs; for a quadratic metric (``refuses``) an item whose
    candidate or one of whose references is over the cap has none either (NaN rows, as the
    block path). Within a family pass (:func:`evalcore.metrics._pass.shared_blocks`) the last
    chunks are memoised per tokenizer and case, so the metrics of one family (wer/per,
    gtm-1..3) tokenise and encode a chunk once; ``plan.memo`` holds blocks they share."""
    from .. import _pass

    key = None
    plan = None
    if _pass.SHARED:
        key = (metric.tokenize, metric.lowercase, tuple(cands), tuple(map(tuple, refs)))
        plan = _CHUNK_MEMO.get(key)
    if plan is None:
        plan = _chunk_pairs(metric.tok, cands, refs)
        if key is not None:
            _CHUNK_MEMO[key] = plan
    if metric.quadratic and plan.long_rows.any():
        sub = plan.memo.get("quadratic")
        if sub is None:
            sub = plan.memo["quadratic"] = _without_rows(plan, plan.long_rows)
        return sub
    return plan


def chunk_texts(cands: Sequence, refs: Sequence[Sequence], prep) -> tuple:
    """Candidates grouped by their reference list (a segment's outputs) laid out for the
    compiled chunk kernels: ``(texts, r_lo, r_hi, g_cand, cand_text, cand_item)`` where
    ``texts`` are ``prep`` of every reference and candidate, group q's references are texts
    ``r_lo[q]:r_hi[q]``, its candidates ``g_cand[q]:g_cand[q+1]`` (text ``cand_text[c]``, item
    ``cand_item[c]``). Items without a reference are left out. The group layout of every
    chunk kernel that clips against a segment's references (BLEU, chrF, NIST)."""
    texts: list = []
    r_lo, r_hi, g_cand, cand_text, cand_item = [], [], [0], [], []
    for key, idx in group_by_refs(refs):
        if not key:
            continue
        r_lo.append(len(texts))
        texts.extend(prep(r) for r in key)
        r_hi.append(len(texts))
        for i in idx:
            cand_text.append(len(texts))
            cand_item.append(i)
            texts.append(prep(cands[i]))
        g_cand.append(len(cand_item))
    arr = [np.asarray(x, dtype=np.int64) for x in (r_lo, r_hi, g_cand, cand_text, cand_item)]
    return (texts, *arr)


def sequence_index(tok) -> tuple:
    """``(ix, seqs)``: ``ix(text)`` is the index in ``seqs`` of ``tok(text)``, each distinct text
    tokenised once and equal token sequences stored once (the chunk plans and TER's batch)."""
    seq_of: dict[tuple, int] = {}
    seqs: list[tuple] = []
    text_of: dict[str, int] = {}

    def ix(text: str) -> int:
        t = text_of.get(text)
        if t is None:
            tt = tok(text)
            t = seq_of.get(tt)
            if t is None:
                t = seq_of[tt] = len(seqs)
                seqs.append(tt)
            text_of[text] = t
        return t
    return ix, seqs


def _chunk_pairs(tok, cands, refs) -> ChunkPairs:
    ix, seqs = sequence_index(tok)

    rows: list[int] = []
    counts: list[int] = []
    ph: list[int] = []
    pr: list[int] = []
    long_rows: list[bool] = []
    for key_refs, idx in group_by_refs(refs):
        if not key_refs:
            continue
        rix = [ix(r) for r in key_refs]
        ref_long = too_long(*(seqs[t] for t in rix))
        nk = len(rix)
        for i in idx:
            c = ix(cands[i])
            rows.append(i)
            counts.append(nk)
            long_rows.append(ref_long or too_long(seqs[c]))
            ph.extend([c] * nk)
            pr.extend(rix)
    lens = np.fromiter(map(len, seqs), dtype=np.int64, count=len(seqs))
    offs = np.zeros(len(seqs) + 1, dtype=np.int64)
    np.cumsum(lens, out=offs[1:])
    plan = ChunkPairs()
    plan.flat, plan.n_vocab = encode_flat(seqs)
    plan.offs = offs
    plan.rows = np.asarray(rows, dtype=np.int64)
    plan.po = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(np.asarray(counts, dtype=np.int64), out=plan.po[1:])
    plan.ph = np.asarray(ph, dtype=np.int64)
    plan.pr = np.asarray(pr, dtype=np.int64)
    plan.lc, plan.lr = lens[plan.ph], lens[plan.pr]
    plan.long_rows = np.asarray(long_rows, dtype=bool)
    plan.memo = {}
    return plan


def encode_flat(seqs: Sequence[Sequence[str]]) -> tuple[np.ndarray, int]:
    """The tokens of ``seqs`` back to back as int64 ids (in order of first appearance; only
    equality of ids is meaningful) and the number of distinct tokens."""
    allt = list(chain.from_iterable(seqs))
    ids = {w: i for i, w in enumerate(dict.fromkeys(allt))}
    return np.fromiter(map(ids.__getitem__, allt), dtype=np.int64, count=len(allt)), len(ids)


def _without_rows(plan: ChunkPairs, drop: np.ndarray) -> ChunkPairs:
    """``plan`` without the rows ``drop`` (a boolean mask over its rows) and their pairs."""
    k = np.diff(plan.po)
    keep_pair = np.repeat(~drop, k)
    sub = ChunkPairs()
    sub.flat, sub.offs, sub.n_vocab = plan.flat, plan.offs, plan.n_vocab
    sub.rows = plan.rows[~drop]
    sub.po = np.zeros(len(sub.rows) + 1, dtype=np.int64)
    np.cumsum(k[~drop], out=sub.po[1:])
    sub.ph, sub.pr = plan.ph[keep_pair], plan.pr[keep_pair]
    sub.lc, sub.lr = plan.lc[keep_pair], plan.lr[keep_pair]
    sub.long_rows = np.zeros(len(sub.rows), dtype=bool)
    sub.memo = {}
    return sub


# ---------------------------------------------------------------------------------------------
# pair kernels of a chunk plan
# ---------------------------------------------------------------------------------------------


def levenshtein_pairs(plan: ChunkPairs) -> np.ndarray:
    """Edit distance of every pair of a :class:`ChunkPairs` (int64; compiled, one call)."""
    return np.rint(_dp_pairs(plan.flat, plan.offs, plan.ph, plan.pr, 0, np.zeros(1))).astype(np.int64)


def overlap_pairs(plan: ChunkPairs) -> np.ndarray:
    """Bag overlap of every pair of a :class:`ChunkPairs` (int64), memoised in ``plan.memo``
    (PER and GTM-1 of one tokenizer and case share it)."""
    hit = plan.memo.get("overlap")
    if hit is None:
        hit = plan.memo["overlap"] = bag_overlap_pairs(plan.flat, plan.offs, plan.ph, plan.pr, plan.n_vocab)
    return hit
