"""The detection section of the Metrics task page (no streamlit): error-free detection (WMT26)
and criticality (WMT25) of :mod:`evalcore.analysis.detect` on the page's language pairs and
metrics (methods §23). Its query is a frozen dataclass of plain values and the shared
:class:`~evalcore.scoring.settings.Settings`, the whole cache key."""
from __future__ import annotations

from dataclasses import dataclass

from ..analysis.detect import TASKS, detect
from ..core.results import Result
from ..scoring.settings import DEFAULTS, Settings


@dataclass(frozen=True)
class DetectQuery:
    """``dataset``: the content hashes of the pairs (in ``lps`` order); every option the table
    depends on."""

    dataset: str
    lps: tuple[str, ...] = ()
    metrics: tuple[str, ...] = ()
    task: str = TASKS[0]
    human: str = ""
    human2: str | None = None
    threshold_from: str | None = None
    settings: Settings = DEFAULTS


def dataset_key(collection: dict, lps) -> str:
    """The ``dataset`` of a query over several pairs: their content hashes, in order."""
    return "|".join(collection[lp].content_hash() for lp in lps)


def detect_table(collection: dict, q: DetectQuery) -> Result:
    """The ``detect`` table of ``q`` (what ``evalcore detect`` writes for the same options)."""
    from ..metrics.tokenize import resolve_tokenizer
    from ..scoring.scores import segment_scores

    coll = {lp: collection[lp] for lp in q.lps}
    seg = {}
    for lp, ds in coll.items():
        tok, _ = resolve_tokenizer(q.settings.tokenizer, ds.lp)
        seg[lp] = segment_scores(ds, list(q.metrics), include_references=q.settings.include_human_systems,
                                 tokenize=tok)[["metric", "system", "seg_id", "score"]]
    return detect(coll, q.task, q.human, seg, q.settings, criterion2=q.human2, threshold_from=q.threshold_from)


def human_choices(collection: dict, lps) -> list[str]:
    """The human score types every chosen pair has (the gold labels need one in each)."""
    sets = [set(collection[lp].criteria) for lp in lps]
    common = set.intersection(*sets) if sets else set()
    return sorted(common)
