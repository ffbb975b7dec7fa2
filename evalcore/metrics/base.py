"""Metric interface, metadata and registry (design-lessons.md lessons 1, 2 and 5).

Every metric is a :class:`Metric` subclass registered with :func:`register`. A metric
provides

(a) ``sentence_score(cand, refs)``: the multi-reference score x(c, R) on the metric's own
    scale (sacreBLEU's 0-100 for BLEU/chrF/TER; 0-1 for the others; error rates as rates);
(b) ``similarity(cand, ref)``: the single-reference similarity x(c, r) = x(c, {r})
    (methods §0), on the same scale;
(c) ``segment_stats`` / ``score_from_stats``: per-segment sufficient statistics, so corpus
    scores, bootstrap resamples and subsets are array sums (``corpus_score`` uses them);
    optionally ``sentence_scores_of(stats, refs)``: the sentence scores of those rows, identical
    to ``sentence_scores`` (then one statistics table serves segment and corpus scores,
    :func:`evalcore.scoring.scores.segment_scores`).

``oriented`` turns a score into a similarity where higher always means more similar:
error rates (TER, WER, PER) are negated (methods §0). Rank-based measures (ORANGE, KING,
QUEEN) consume oriented values only.

The whole contract, every hook a caller may use, is declared on :class:`Metric` with a
default, so the engine, the level and family passes (:mod:`evalcore.metrics.levels`) and the
Dask path (:mod:`evalcore.scoring.parallel`) call the hooks directly instead of probing for them:

* ``prepare(dataset)`` – corpus-wide state (NIST's information weights); default: nothing.
* ``segment_blocks(blocks)`` – :meth:`Metric.segment_block` of many segments at once.
* ``serves_segments`` / ``sentence_scores_of(stats, refs)`` – sentence scores from the rows of
  ``segment_stats`` (one statistics pass serves both levels).
* ``family_segment_stats(metrics, cands, refs)`` – a family's statistics of one chunk in one run.
* ``quadratic`` / ``tokens(text)`` / ``refuses_lengths(lengths)`` – the long-segment cap
  (:data:`MAX_ALIGN_TOKENS`), checked before any alignment work.
* ``shared_state`` / ``with_shared_state(state)`` / ``state_from_arrays(arrays)`` – corpus
  state sent once per worker as raw arrays (:class:`evalcore.scoring.parallel.Packed`).
* ``signature(nrefs, level)`` – the :class:`Signature` written beside the scores.

``tests/test_metric_contract.py`` checks every registered id against this contract.
"""
from __future__ import annotations

import contextlib
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence, TypeVar, overload

import numpy as np


@dataclass(frozen=True)
class MetricOption:
    name: str
    default: Any
    description: str
    choices: tuple[Any, ...] | None = None


@dataclass(frozen=True)
class MetricMeta:
    id: str  # lower-case registry id, e.g. "bleu", "nist-4", "gtm-1"
    family: str  # e.g. "BLEU", "NIST", "GTM", "edit", "ROUGE", "chrF", "char-ngram", "METEOR"
    description: str
    citation: str
    higher_is_better: bool = True
    options: tuple[MetricOption, ...] = ()
    needs_text: bool = True  # False for bring-your-own scores


class Metric(ABC):
    meta: MetricMeta

    # ---- required -------------------------------------------------------------------
    @abstractmethod
    def sentence_score(self, cand: str, refs: Sequence[str]) -> float:
        """Multi-reference score x(c, R) on the metric's own scale."""

    @abstractmethod
    def signature(self, nrefs: int | str | None = None, level: str | None = None) -> "Signature":
        """The reproducibility signature (Post 2018, §3) of scores with ``nrefs`` references per
        segment (a number, ``"var"`` when it differs, None when unknown) at ``level``
        ("segment", "system", or None for similarities): a :class:`Signature` built with
        :func:`make_signature`, e.g. ``nrefs:3|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0``.
        Metrics reproducing a sacreBLEU metric return sacreBLEU's own string; the others start
        with their id and end with ``version:evalcore-X``."""

    # ---- defaults (override with faster or corpus-aware versions) ------------------------
    def similarity(self, cand: str, ref: str) -> float:
        return self.sentence_score(cand, [ref])

    def segment_stats(self, cands: Sequence[str], refs: Sequence[Sequence[str]]) -> np.ndarray:
        """Per-segment sufficient statistics, shape (n_segments, k). Default: the sentence score."""
        return np.array([[self.sentence_score(c, r)] for c, r in zip(cands, refs)], dtype=float)

    def score_from_stats(self, stats: np.ndarray) -> float:
        """Corpus score from summed (or, for the default, averaged) statistics."""
        return float(np.mean(stats[:, 0])) if len(stats) else float("nan")

    def corpus_score(self, cands: Sequence[str], refs: Sequence[Sequence[str]]) -> float:
        return self.score_from_stats(self.segment_stats(cands, refs))

    def scores_from_sums(self, sums: np.ndarray) -> np.ndarray:
        """The corpus score of every row of already summed statistics, (m, k) -> (m,): what
        resampling tests need for thousands of resamples. Default: :meth:`score_from_stats`
        of each row; metrics with a vectorised formula override it (same values)."""
        return np.array([self.score_from_stats(row[None, :]) for row in np.atleast_2d(sums)], dtype=float)

    def sentence_scores(self, cands: Sequence[str], refs: Sequence[Sequence[str]]) -> np.ndarray:
        return np.array([self.sentence_score(c, r) for c, r in zip(cands, refs)], dtype=float)

    def segment_block(self, cands: Sequence[str], refs: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """All similarities one segment needs for QARLA, on the metric's own scale.

        Returns ``(sim, loo)``, both of shape (len(cands), len(refs)):
        ``sim[c, j] = x(cands[c], refs[j])`` and ``loo[c, j] = x(cands[c], refs − {refs[j]})``
        (NaN when only one reference exists). The engine passes the segment's system outputs
        followed by its references as ``cands``. This loop is the reference behaviour;
        metrics override it with vectorised versions that must give identical values.
        """
        sim = np.array([[self.similarity(c, r) for r in refs] for c in cands], dtype=float).reshape(len(cands), len(refs))
        loo = np.full((len(cands), len(refs)), np.nan)
        if len(refs) > 1:
            for j in range(len(refs)):
                rest = [r for k, r in enumerate(refs) if k != j]
                for c, cand in enumerate(cands):
                    loo[c, j] = self.sentence_score(cand, rest)
        return sim, loo

    # ---- tokenisation -------------------------------------------------------------------
    #: True for metrics that split text into words with a sacreBLEU tokenizer (option ``tokenize``)
    uses_tokenizer: bool = False

    def with_tokenize(self, name: str) -> "Metric":
        """This metric with sacreBLEU tokenizer ``name`` (a new object; ``self`` is unchanged).
        Metrics that do not split text into words (chrF, bring-your-own scores...) return
        ``self``: a tokenizer choice does not apply to them."""
        return self

    def output_signature(self, nrefs: int | str | None = None, level: str | None = None) -> "Signature":
        """The signature written beside this metric's scores: :meth:`signature` (kept as the
        name the callers use)."""
        return self.signature(nrefs, level)

    # ---- optional hooks: declared here with their defaults (the contract) ---------------
    def prepare(self, dataset: Any) -> "Metric":
        """Fit corpus-wide state on ``dataset`` before scoring it (NIST's information weights
        from the references). Called by every scoring path before the first segment; returns
        ``self``. Default: nothing to fit."""
        return self

    def unavailable(self, dataset: Any = None) -> str | None:
        """Why this metric cannot score ``dataset`` (or, without one, anything) on this machine:
        a missing optional package, model or parser, said as the message a user acts on; None
        when it can. Nothing is loaded to answer. The capability tag the contract tests skip on
        (a missing optional extra is a skip with its reason, never an error). Default: None."""
        return None

    def reporting(self, progress: Callable[[int, int], Any] | None) -> "contextlib.AbstractContextManager[Any]":
        """A context within which the metric reports the rows it scores to ``progress(done,
        total)``, for a caller's progress bar while one call scores many rows (neural models);
        the scores do not change. Default: nothing to report (the caller reports between calls)."""
        return contextlib.nullcontext()

    def expect(self, cands: Sequence[str], refs: Sequence[Sequence[str]]) -> None:
        """The items the calls that follow will score, all of them, told before the first call
        (the scoring passes hand a metric its items in chunks): a metric that reports its own
        progress takes its total from them (a neural model: the rows it will actually run, e.g.
        only the judged segments' under ``--judged-only``). The scores do not change. Default:
        nothing to count."""
        return None

    def segment_blocks(self, blocks: Sequence[tuple[Sequence[str], Sequence[str]]]) -> list[tuple[np.ndarray, np.ndarray]]:
        """:meth:`segment_block` of several segments, ``blocks`` = ``[(cands, refs), ...]``;
        batched implementations (BLEU, chrF) override it with identical values."""
        return [self.segment_block(c, r) for c, r in blocks]

    #: how :meth:`score_from_stats` follows from the rows of :meth:`segment_stats`: ``"mean"``
    #: (the mean of one value per segment, NaN rows left out: the default's sentence scores,
    #: ROUGE, the syntactic and learned metrics) or ``"sum"`` (a function of the column sums:
    #: BLEU, chrF, TER, NIST, WER…, :meth:`scores_from_sums`). Resampling uses it
    #: (:mod:`evalcore.stats.bootstrap`: resample counts × statistics).
    stats_mode: str = "mean"

    #: True when :meth:`sentence_scores_of` turns rows of :meth:`segment_stats` into the
    #: sentence scores (then one statistics table serves the segment and the system level)
    serves_segments: bool = False

    def sentence_scores_of(self, stats: np.ndarray, refs: Sequence[Sequence[str]]) -> np.ndarray:
        """The sentence scores of rows of :meth:`segment_stats`, identical to
        :meth:`sentence_scores` (NaN where a segment has no reference or is refused). Only
        metrics with ``serves_segments`` provide it."""
        raise NotImplementedError(f"{self.id}: sentence scores are not a function of its statistics")

    @classmethod
    def family_segment_stats(cls, metrics: Sequence["Metric"], cands: Sequence[str],
                             refs: Sequence[Sequence[str]]) -> list[np.ndarray]:
        """Each metric's :meth:`segment_stats` of one chunk of items (all of this class):
        families override it to compute the blocks their members share once (identical rows)."""
        return [m.segment_stats(cands, refs) for m in metrics]

    @property
    def quadratic(self) -> bool:
        """True for alignment metrics whose cost grows with the product of the lengths (TER, WER,
        ROUGE-L/W/S/SU, METEOR and GTM runs): they refuse a text over :data:`MAX_ALIGN_TOKENS`
        tokens before any alignment work. Subclasses set it as a class attribute or a property."""
        return False

    def tokens(self, text: str) -> tuple[str, ...]:
        """The metric's own tokens of ``text``: what :data:`MAX_ALIGN_TOKENS` counts. Default:
        whitespace-separated words."""
        return tuple(text.split())

    def refuses(self, cand: Sequence[Any], refs: Sequence[Sequence[Any]]) -> bool:
        """Whether a candidate / references pair (token sequences) is refused: a ``quadratic``
        metric refuses it when one of them is longer than :data:`MAX_ALIGN_TOKENS` tokens."""
        return self.quadratic and too_long(cand, *refs)

    #: the text options that decide which metrics share tokenised blocks (family passes)
    tokenize: str | None = None
    lowercase: bool | None = None

    @property
    def shared_state(self) -> Any:
        """Corpus-wide state computed by :meth:`prepare` that several metrics share and that a
        worker needs once (NIST's weight table): an object with ``to_arrays() -> {name: array}``;
        None (the default) when there is none."""
        return None

    def with_shared_state(self, state: Any) -> "Metric":
        """This metric with ``state`` (a :attr:`shared_state`, or None to strip it before the
        metric travels). Default: ``self`` (nothing to set)."""
        return self

    @staticmethod
    def state_from_arrays(arrays: dict[str, np.ndarray]) -> Any:
        """Rebuild a :attr:`shared_state` from its ``to_arrays()`` (views of one buffer)."""
        raise NotImplementedError("this metric has no shared state")

    def oriented(self, values: Any) -> Any:
        """Map scores to similarities (higher = more similar): error rates are negated."""
        return values if self.meta.higher_is_better else -np.asarray(values, dtype=float)

    @property
    def id(self) -> str:
        return self.meta.id


# ---- signatures -------------------------------------------------------------------------------
class Signature(str):
    """A reproducibility signature (Post 2018, "A call for clarity in reporting BLEU scores",
    §3; sacreBLEU's ``Signature``): ordered ``key:value`` fields joined by ``|``, ``nrefs``
    first and ``version`` last, optionally preceded by the metric id (evalcore's own metrics;
    sacreBLEU's signatures carry no id). It *is* the formatted string (a ``str``), so it can be
    written, compared and used in cache keys as before; :attr:`fields` and :meth:`get` give the
    values, :meth:`parse` reads one back (``Signature.parse(s.format()) == s``)."""

    metric: str | None
    fields: tuple[tuple[str, str], ...]

    def __new__(cls, fields: Sequence[tuple[str, Any]] = (), metric: str | None = None) -> "Signature":
        pairs = tuple((str(k), _sig_value(v)) for k, v in fields if v is not None)
        for k, v in pairs:
            if not k or any(ch in k + v for ch in "|\n") or ":" in k:
                raise ValueError(f"signature field {k!r}:{v!r} cannot be written (no '|', newline, ':' in names)")
        text = "|".join(([metric] if metric else []) + [f"{k}:{v}" for k, v in pairs])
        obj = super().__new__(cls, text)
        obj.metric, obj.fields = metric, pairs
        return obj

    def __getnewargs__(self) -> tuple[tuple[tuple[str, str], ...], str | None]:  # type: ignore[override]
        return (self.fields, self.metric)

    # sacreBLEU's name and arity (Signature.format() takes no template arguments), hence the narrower
    # override of str.format: a signature is never used as a format template
    def format(self) -> str:  # type: ignore[override]  # noqa: A003
        """The signature string (what sacreBLEU's ``Signature.format()`` gives)."""
        return str.__str__(self)

    def get(self, key: str, default: Any = None) -> Any:
        return dict(self.fields).get(key, default)

    def with_fields(self, **extra: Any) -> "Signature":
        """This signature with ``extra`` fields added (or replaced) before ``version``."""
        pairs = [(k, v) for k, v in self.fields if k not in extra]
        at = next((i for i, (k, _) in enumerate(pairs) if k == "version"), len(pairs))
        return Signature(pairs[:at] + list(extra.items()) + pairs[at:], self.metric)

    @classmethod
    def parse(cls, text: str) -> "Signature":
        """Read a formatted signature back: a leading part without ``:`` is the metric id."""
        parts = str(text).split("|") if text else []
        metric = parts.pop(0) if parts and ":" not in parts[0] else None
        fields: list[tuple[str, str]] = []
        for part in parts:
            k, sep, v = part.partition(":")
            if not sep:
                raise ValueError(f"signature part {part!r} is not key:value")
            fields.append((k, v))
        return cls(fields, metric)


def _sig_value(v: Any) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"  # sacreBLEU writes booleans so
    return str(v)


def make_signature(fields: Sequence[tuple[str, Any]], *, nrefs: int | str | None = None, version: str,
                   metric: str | None = None) -> Signature:
    """The one way a metric builds its signature: ``nrefs`` first (left out when None: no
    scores yet), then the metric's ``fields`` in order, ``version`` last (the order of
    sacreBLEU 2.x's ``Signature.format``). ``metric``: the id written first (evalcore's own
    metrics)."""
    return Signature([("nrefs", nrefs)] + list(fields) + [("version", version)], metric)


def metric_signature(metric: "str | Metric", nrefs: int | str | None = None, level: str | None = None,
                     tokenize: str | None = None) -> Signature:
    """The signature of ``metric`` (an id or a :class:`Metric`) for scores with ``nrefs``
    references at ``level``: every command, export and page writes signatures through here."""
    if not isinstance(metric, Metric):
        metric = get_metric(metric, tokenize=tokenize)
    elif tokenize:
        metric = metric.with_tokenize(tokenize)
    return metric.signature(nrefs, level)


# ---- long segments (the quadratic metrics refuse them, never hang on them) -------------------
MAX_ALIGN_TOKENS = 1000
"""Metrics whose cost grows with the product of the lengths (``Metric.quadratic``: TER, WER,
ROUGE-L/W/S/SU, GTM-2/3, METEOR) refuse a segment when the candidate or one of its references
has more than this many tokens (after the metric's own tokenisation, :meth:`Metric.tokens`),
before any alignment work: its score is NaN, it is left out of the corpus score, and
:func:`evalcore.metrics.engine.long_segment_warnings` names it. One 20,000-word segment
otherwise costs minutes and gigabytes per pair. Below the cap every value is unchanged
(sacreBLEU parity). Documented in docs/formats.md, "Limits", and docs/methods.md §7.3."""


def too_long(*token_seqs: Sequence[Any]) -> bool:
    """Whether any of the token sequences exceeds :data:`MAX_ALIGN_TOKENS`: the one test every
    path of a ``quadratic`` metric applies before aligning (:meth:`Metric.refuses`)."""
    return any(len(t) > MAX_ALIGN_TOKENS for t in token_seqs)


def over_cap(lengths: Any) -> np.ndarray:
    """:func:`too_long` elementwise on token counts (the vectorised and compiled chunk paths)."""
    over: np.ndarray = np.asarray(lengths) > MAX_ALIGN_TOKENS
    return over


def valid_stats(stats: Any) -> np.ndarray:
    """Per-segment statistics as a 2-D array without the NaN rows (segments without any
    reference), the rows a corpus score is computed from."""
    arr: np.ndarray = np.asarray(stats, dtype=float)
    if arr.ndim == 1:
        arr = arr[None, :]
    kept: np.ndarray = arr[~np.isnan(arr).any(axis=1)]
    return kept


def group_by_refs(refs: Sequence[Sequence[str]]) -> list[tuple[tuple[str, ...], list[int]]]:
    """Item indices grouped by their reference list, in order of first appearance: the
    segments of a score table over several systems (every system's output of a segment shares
    its references), so each group is one vectorised block."""
    groups: dict[tuple[str, ...], list[int]] = {}
    for i, r in enumerate(refs):
        groups.setdefault(tuple(r), []).append(i)
    return list(groups.items())


# ---- registry ----------------------------------------------------------------------------
_REGISTRY: dict[str, Callable[[], Metric]] = {}


_Factory = TypeVar("_Factory", bound=Callable[[], Metric])


@overload
def register(metric_id: str, factory: _Factory) -> _Factory: ...
@overload
def register(metric_id: str, factory: None = None) -> Callable[[_Factory], _Factory]: ...
def register(metric_id: str, factory: Callable[[], Metric] | None = None) -> Any:
    """Register a factory (usually the class) under a lower-case id. Usable as a decorator."""

    def _do(f: _Factory) -> _Factory:
        key = metric_id.lower()
        if key in _REGISTRY:
            raise ValueError(f"metric id {key!r} registered twice")
        _REGISTRY[key] = f
        return f

    return _do(factory) if factory is not None else _do


def unregister(metric_id: str) -> None:
    _REGISTRY.pop(metric_id.lower(), None)


@dataclass(frozen=True)
class MetricProvider:
    """A family of metrics whose ids are discovered at run time (``learned:NAME`` for saved
    trained models): ``ensure(id)`` registers one id if it exists (it gets the id as written,
    and registers it lower-case) and says whether it did; ``register_all()`` registers every
    id the provider knows (cheap: no model is loaded)."""

    prefix: str
    ensure: Callable[[str], bool]
    register_all: Callable[[], Any]
    #: ids that belong to a scope (a dataset, a session) rather than the process: ``resolve(id)``
    #: gives the metric of the current scope, None when there is no scope (then the process-wide
    #: registry answers), or raises KeyError naming what the scope has
    resolve: Callable[[str], "Metric | None"] | None = None


_PROVIDERS: dict[str, MetricProvider] = {}


def register_provider(prefix: str, ensure: Callable[[str], bool], register_all: Callable[[], Any],
                      resolve: Callable[[str], "Metric | None"] | None = None) -> None:
    """Hook for packages above the metrics layer (``evalcore.learned``): the registry asks the
    provider of a prefix for ids it does not know, without importing that package. Packages
    are loaded through the plugin list of :mod:`evalcore.metrics._load_all`. ``resolve``: ids
    scoped to a dataset or session (``stored:NAME``, :mod:`evalcore.metrics.byo`), asked first."""
    _PROVIDERS[prefix.lower()] = MetricProvider(prefix.lower(), ensure, register_all, resolve)


def get_metric(metric_id: str, tokenize: str | None = None) -> Metric:
    """The registered metric ``metric_id``; with ``tokenize`` (a sacreBLEU tokenizer name) the
    word-level metrics use that tokenizer (:meth:`Metric.with_tokenize`; others are unchanged).
    Without it, the metric's own default (sacreBLEU's 13a for the word-level metrics): there is
    no hidden per-session choice, callers (pages, commands) pass the tokenizer they mean."""
    from . import _load_all  # noqa: F401  (imports every metric module and plugin once)

    key = metric_id.strip().lower()
    for prefix, provider in _PROVIDERS.items():
        if provider.resolve is not None and key.startswith(prefix):
            scoped = provider.resolve(metric_id.strip())  # KeyError when the scope has no such id
            if scoped is not None:
                return scoped.with_tokenize(tokenize) if tokenize else scoped
    if key not in _REGISTRY:
        # ids registered lazily by a provider (saved learned metrics: evalcore/learned/store.py;
        # it gets the id as written, since ``learned:DIR/NAME.json`` may name a folder)
        for prefix, provider in _PROVIDERS.items():
            if key.startswith(prefix):
                provider.ensure(metric_id.strip())
    if key not in _REGISTRY:
        raise KeyError(f"unknown metric {metric_id!r}; known: {', '.join(sorted(_REGISTRY))}")
    metric = _REGISTRY[key]()
    return metric.with_tokenize(tokenize) if tokenize else metric


def signature_nrefs(ref_lists: Sequence[Sequence[Any]]) -> int | str:
    """sacreBLEU's ``nrefs`` of scored segments: the number of references when every segment
    has the same number, else ``"var"``."""
    counts = {len(r) for r in ref_lists}
    return counts.pop() if len(counts) == 1 else "var"


def metric_ids() -> list[str]:
    from . import _load_all  # noqa: F401

    for provider in list(_PROVIDERS.values()):
        try:  # saved learned models as ``learned:NAME`` (lists a folder; loads no model)
            provider.register_all()
        except Exception:  # an unreadable models folder must not hide the other metrics
            pass
    return sorted(_REGISTRY)


# ---- similarity tensors (what QARLA consumes) ---------------------------------------------
@dataclass
class SimTensors:
    """All similarities of one metric on one dataset, *oriented* (higher = more similar).

    Axes: systems in ``systems`` order, segments in ``seg_ids`` order, references in
    ``ref_ids`` order. NaN marks a missing text (a reference set lacking a segment, a system
    lacking an output) and the diagonal of ``ref_ref``.

    * ``sys_ref[a, s, j]``  = x(a_s, r_j)            single-reference similarity
    * ``ref_ref[s, i, j]``  = x(r_i, r_j)             r_i as the candidate against r_j
    * ``loo_sys[a, s, j]``  = x(a_s, R_s − {r_j})     multi-reference, r_j held out
    * ``loo_ref[s, j]``     = x(r_j, R_s − {r_j})     the held-out reference scored the same way
    (loo_* are NaN when r_j is missing or R_s − {r_j} is empty.)
    """

    metric_id: str
    seg_ids: list[str]
    systems: list[str]
    ref_ids: list[str]
    sys_ref: np.ndarray
    ref_ref: np.ndarray
    loo_sys: np.ndarray
    loo_ref: np.ndarray
    signature: str = ""
    meta: dict[str, Any] = field(default_factory=dict)
