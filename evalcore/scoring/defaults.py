"""Scope, defaults and signatures shared by the pages' view-models, the analyses and the
commands: the default metrics and criterion, the tokenizer note, the sacreBLEU-style
signatures, the syntactic metrics' status, the ``--metrics lexical`` selection.

Nothing here imports streamlit. Progress callbacks: ``progress(fraction in [0, 1], text)``.
"""
from __future__ import annotations

import math
from typing import Iterable

import pandas as pd

from .. import __version__
from ..core.dataset import Dataset
from ..metrics._caches import bounded_cache


DEFAULT_METRICS = ["bleu", "chrf", "ter", "meteor", "rouge-l", "nist-4", "gtm-1", "wer", "per"]

# Every page uses every segment by default (a sample would change the numbers unasked). Above
# this many segments the pages also offer an explicit, labelled subset of segments
# (:func:`scoped`); it is never applied unasked.
SAMPLING_OFFERED_ABOVE = 5000


_SYNTAX_STATUS = bounded_cache("defaults.syntax_status", 256)  # content hash -> (available, reason)


def syntax_status(dataset: Dataset) -> tuple[bool, str]:
    """(available, reason) of the syntactic metrics on this dataset (an unavailable metric is
    said so, never silently zero), memoised by content hash."""
    key = dataset.content_hash()
    if key not in _SYNTAX_STATUS:
        from ..syntax import availability

        _SYNTAX_STATUS[key] = availability(dataset)
    return _SYNTAX_STATUS[key]


def forget_syntax_status(dataset: Dataset) -> None:
    """Drop the memoised availability (e.g. after parses were uploaded)."""
    _SYNTAX_STATUS.pop(dataset.content_hash(), None)


def available_metrics(dataset: Dataset | None = None, collection: dict | None = None) -> list[str]:
    """Registered metric ids; with a dataset, the syntactic ones only when they can be
    computed on it (see :func:`syntax_status` for the reason when not). The metric scores the
    dataset (or every dataset of ``collection``) stores are registered first, for this session
    only, and listed as ``stored:NAME`` (:func:`evalcore.metrics.byo.register_stored`)."""
    from ..metrics.base import metric_ids
    from ..metrics.byo import register_stored, scoped_stored_ids
    from ..syntax import is_syntactic

    datasets = ([dataset] if dataset is not None else []) + list((collection or {}).values())
    if datasets:  # this session's stored ids only: another session's data never shows here
        register_stored({i: ds for i, ds in enumerate(datasets)})
    ids = metric_ids() + (scoped_stored_ids() if datasets else [])
    if dataset is not None and not syntax_status(dataset)[0]:
        ids = [m for m in ids if not is_syntactic(m)]
    return ids


def default_metrics(dataset: Dataset | None = None) -> list[str]:
    """The metrics of Amigó et al. 2006's experiments that are registered (BLEU, chrF, TER, METEOR,
    ROUGE-L, NIST-4, GTM-1, WER, PER). Datasets without text get none."""
    known = set(available_metrics())
    if dataset is not None and (not len(dataset.outputs) or not len(dataset.references)):
        return []
    return [m for m in DEFAULT_METRICS if m in known]


def default_criterion(dataset: Dataset) -> str | None:
    """``adequacy`` when judged, else ``mqm``, else the first criterion (None without judgements)."""
    crit = dataset.criteria
    for c in ("adequacy", "mqm", "da"):
        if c in crit:
            return c
    return crit[0] if crit else None


def scoped(dataset: Dataset, max_segments: int | None) -> Dataset:
    """A copy of ``dataset`` restricted to at most ``max_segments`` segments, judged segments
    first, in the original order: the explicit subset the pages offer for data far bigger than
    a test set (:data:`SAMPLING_OFFERED_ABOVE`); never a default. ``None`` or a limit at least
    the size of the dataset returns the dataset itself."""
    if not max_segments or dataset.n_segments <= max_segments:
        return dataset
    segs = dataset.seg_ids
    judged = set(dataset.judgements["seg_id"].astype(str))
    first = [s for s in segs if s in judged]
    rest = [s for s in segs if s not in judged]
    return dataset.subset(seg_ids=(first + rest)[:max_segments])


def page_tokenizer(dataset: Dataset | None = None, tokenize: str | None = None) -> str:
    """The tokenizer of the word-level metrics here: ``tokenize`` (the page's or command's
    choice) when given, else sacreBLEU's default for the dataset's target language (Post 2018:
    zh → zh, ja → ja-mecab, ko → ko-mecab, else 13a)."""
    from ..metrics.tokenize import default_tokenizer

    return tokenize or default_tokenizer(dataset.lp if dataset is not None else None)


def tokenizer_note(dataset: Dataset, chosen: str | None = None) -> str:
    """One sentence stating the tokenizer of the word-level metrics and why (page captions)."""
    from ..metrics.tokenize import default_tokenizer, target_language

    default = default_tokenizer(dataset.lp)
    tok = chosen or default
    if tok == default:
        trg = target_language(dataset.lp)
        why = f"sacreBLEU's default for target language {trg}" if trg else "sacreBLEU's default"
    else:
        why = f"chosen; sacreBLEU's default here would be {default}"
    note = f"Word-level metrics (BLEU, WER, NIST, …) use the {tok} tokenizer ({why}); chrF is character-based"
    if tok in ("13a", "none"):
        note += "; TER keeps Tercom's own word splitting"
    caveat = tokenizer_caveat(dataset.lp, tok)
    return note + "." + (f" {caveat}" if caveat else "")


#: target languages written with the danda (।, U+0964) and double danda (॥, U+0965) as full stop
DANDA_LANGUAGES = {"hi": "Hindi", "mr": "Marathi", "ne": "Nepali", "sa": "Sanskrit", "bn": "Bengali",
                   "as": "Assamese", "pa": "Punjabi", "or": "Odia", "mai": "Maithili", "bho": "Bhojpuri",
                   "awa": "Awadhi", "mag": "Magahi", "hne": "Chhattisgarhi", "doi": "Dogri", "kok": "Konkani"}


def tokenizer_caveat(lp: str | None, tok: str) -> str:
    """A warning where tokenizer ``tok`` is known to mis-split the target language of ``lp``
    ('' otherwise). 13a (mteval-v13a; Post 2018) splits off ASCII punctuation only, so the
    danda ``।`` of Hindi, Marathi, Nepali, Bengali... stays glued to the word before it
    (``है।`` is one token, never matching ``है``); sacreBLEU's ``intl`` tokenizer splits off
    every Unicode punctuation character, the danda included."""
    from ..metrics.tokenize import target_language

    lang = DANDA_LANGUAGES.get(target_language(lp))
    if lang and tok in ("13a", "none"):
        return (f"{lang}: the {tok} tokenizer keeps the danda (।) glued to the word before it (\"है।\" is one "
                "token, so a sentence-final word never matches its reference), which lowers BLEU; consider the "
                "intl tokenizer (--tokenize intl), which splits Unicode punctuation.")
    return ""


def dataset_nrefs(dataset: Dataset) -> int | str:
    """sacreBLEU's ``nrefs`` of a dataset: references per segment (present texts), ``var`` when
    it differs between segments."""
    texts = list(dataset.ref_texts().values())
    counts = {sum(t[s] is not None for t in texts) for s in range(dataset.n_segments)} - {0}
    return counts.pop() if len(counts) == 1 else "var"


def metric_signature(metric_id: str, nrefs: int | str | None = None, level: str | None = None,
                     tokenize: str | None = None) -> str:
    """The metric's signature (sacreBLEU's own string for BLEU/chrF/TER) with tokenizer
    ``tokenize`` (None: the metric's default); ``nrefs`` and ``level`` ("segment"/"system") as
    in the CLI's tables."""
    from ..metrics.base import metric_signature as signature_of

    try:
        return signature_of(metric_id, nrefs, level, tokenize)
    except Exception as exc:  # unknown or broken metric: still export something readable
        return f"unavailable ({exc})"


def qarla_nrefs(dataset: Dataset) -> int | str:
    """References each QARLA comparison scores against: a held-out reference and every output
    are scored against the other references of the segment (J − 1; ``var`` when it differs)."""
    texts = list(dataset.ref_texts().values())
    counts = {sum(t[s] is not None for t in texts) - 1 for s in range(dataset.n_segments)}
    counts = {c for c in counts if c >= 1}
    return counts.pop() if len(counts) == 1 else "var"


def signature_text(metric_ids: Iterable[str], extra: str = "", dataset: Dataset | None = None,
                   level: str | None = None, nrefs: int | str | None = None, tokenize: str | None = None) -> str:
    """One line naming every metric with its signature (put into every export); with
    ``dataset`` the signatures carry its ``nrefs`` (references per segment), or ``nrefs`` as
    given (the QARLA pages: :func:`qarla_nrefs`); ``tokenize``: the word-level metrics' tokenizer."""
    if nrefs is None and dataset is not None:
        nrefs = dataset_nrefs(dataset)
    parts = [f"{m}={metric_signature(m, nrefs, level, tokenize)}" for m in metric_ids]
    text = "metrics: " + "; ".join(parts) if parts else "metrics: none"
    return f"{text} | evalcore-{__version__}" + (f" | {extra}" if extra else "")


def signature_frame(metric_ids: Iterable[str], dataset: Dataset | None = None, level: str | None = None,
                    tokenize: str | None = None) -> pd.DataFrame:
    nrefs = dataset_nrefs(dataset) if dataset is not None else None
    return pd.DataFrame([{"metric": m, "signature": metric_signature(m, nrefs, level, tokenize)} for m in metric_ids])


def orientation(metric_id: str) -> float:
    """+1 when higher is better, −1 for error rates (methods §0)."""
    from ..metrics.base import get_metric

    try:
        return 1.0 if get_metric(metric_id).meta.higher_is_better else -1.0
    except KeyError:
        return 1.0


def format_ratio(x: float) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.2f}"


# ---- metric selections ---------------------------------------------------------------------
# (here, above evalcore.metrics: the lexical filter reads evalcore.syntax and evalcore.neural,
# which plug into the metrics layer from above)
#: the ``--metrics`` keyword that stands for every lexical metric (:func:`lexical_metric_ids`)
LEXICAL = "lexical"


def lexical_metric_ids() -> list[str]:
    """Every registered metric computed from the texts alone (string overlap and edit
    distance: the BLEU, NIST, chrF, character n-gram, GTM, ROUGE, METEOR and TER/WER/PER
    families, methods §7): not the syntactic metrics (they parse), not learned models, not
    bring-your-own scores."""
    from ..metrics.base import get_metric, metric_ids
    from ..neural import PREFIXES as NEURAL
    from ..syntax.metrics import is_syntactic

    return [m for m in metric_ids() if not m.startswith(("learned:",) + NEURAL) and not is_syntactic(m)
            and get_metric(m).meta.needs_text]


def expand_metric_ids(spec: str) -> list[str]:
    """A comma-separated ``--metrics`` value with the keyword ``lexical`` replaced by
    :func:`lexical_metric_ids` (in place, duplicates dropped, order kept)."""
    out: list[str] = []
    for m in (x.strip() for x in spec.split(",")):
        for mid in (lexical_metric_ids() if m.lower() == LEXICAL else [m] if m else []):
            if mid.lower() not in (o.lower() for o in out):
                out.append(mid)
    return out
