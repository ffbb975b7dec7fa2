"""Human-likeness page (Amigó et al. 2006 Figure 1; methods §2): ORANGE/KING of every metric
and the KING cases of one metric.

Nothing here imports streamlit. Progress callbacks: ``progress(fraction in [0, 1], text)``.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from ..core.dataset import Dataset
from ..core.progress import Progress, stage
from ..scoring.scores import tensors
from ..scoring.settings import DEFAULTS, Settings
from dataclasses import dataclass
from .queries import Query


def figure1_table(dataset: Dataset, metric_ids: Sequence[str], ties: str = "geq",
                  average: str = "micro", bootstrap: int = 0, progress: Progress = None,
                  settings: Settings = DEFAULTS) -> pd.DataFrame:
    """ORANGE and KING of every metric (methods §0, §1.1; Amigó et al. 2006 §2.2, Figure 1) with the
    random baselines (KING 1/(|A_s|+1) averaged, ORANGE 1/2), the exact shuffle baseline,
    tie rates, optional bootstrap CIs and each metric's signature; the word-level metrics tokenize
    with ``settings.tokenizer``."""
    from ..qarla import orange_king

    ts = tensors(dataset, metric_ids, stage(progress, 0.0, 0.9), settings.tokenizer)
    rows = []
    for m in metric_ids:
        r = orange_king(ts[m], ties=ties, average=average, bootstrap=bootstrap).as_row()
        r["signature"] = ts[m].signature
        rows.append(r)
    if progress:
        progress(1.0, "ORANGE / KING ready")
    out = pd.DataFrame(rows)
    for c in ("orange_lo", "orange_hi", "king_lo", "king_hi"):
        if c not in out:
            out[c] = np.nan
    return out


def king_case_table(dataset: Dataset, metric_id: str, ties: str = "geq",
                    settings: Settings = DEFAULTS) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(cases, outputs) for the case explorer: one row per (segment, held-out reference) case
    with its KING credit, the best output and its margin (failed cases first), and one row per
    output of every case (which outputs beat the held-out human translation)."""
    from ..qarla import king_case_summary, king_cases

    t = tensors(dataset, [metric_id], tokenize=settings.tokenizer)[metric_id]
    summ = king_case_summary(t, ties=ties)
    summ = summ.assign(failed=summ["n_beat"] > 0)
    summ = summ.sort_values(["failed", "best_margin"], ascending=[False, False], kind="stable")
    return summ.reset_index(drop=True), king_cases(t)


# ---------------------------------------------------------------- the page's query and view-model
# (a frozen query: the page's cache key; each function takes (data, query); docs/architecture.md)
@dataclass(frozen=True)
class HumanLikenessQuery(Query):
    metrics: tuple[str, ...] = ()
    ties: str = "geq"
    average: str = "micro"
    bootstrap: int = 0


def human_likeness_rows(dataset: Dataset, q: HumanLikenessQuery, progress: Progress = None) -> pd.DataFrame:
    """ORANGE and KING of ``q.metrics`` (:func:`evalcore.views.human_likeness.figure1_table`)."""
    return figure1_table(dataset, list(q.metrics), q.ties, q.average, q.bootstrap, progress=progress,
                         settings=q.settings)


def human_likeness_cases(dataset: Dataset, q: HumanLikenessQuery):
    """(cases, outputs) of the one metric of ``q`` (:func:`evalcore.views.human_likeness.king_case_table`)."""
    return king_case_table(dataset, q.metrics[0], q.ties, settings=q.settings)


def human_likeness_figure(table: pd.DataFrame, q: HumanLikenessQuery):
    """Figure 1 of the rows computed for ``q`` (display only: the same object on every rerun)."""
    from ..present import plots as P

    return P.figure1(table)
