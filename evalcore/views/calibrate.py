"""The calibration section of the Systems and Compare pages (methods §25.1): its query and
view-model. "A chrF difference of 1.3 here means humans agree 78 % [70, 85] of the time", read
from :func:`evalcore.analysis.calibrate.calibrate_datasets` on the page's language pair under the
page's settings, with the curve figure and the tables the page offers for download."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..analysis import calibrate as C
from ..core.dataset import Dataset
from ..core.progress import Progress
from .queries import Query


@dataclass(frozen=True)
class CalibrationQuery(Query):
    """The dataset (content hash), the shared settings, the human criterion, the metrics, the
    bootstrap resamples and seed, and whether only pairs the humans separate significantly count."""

    criterion: str = ""
    metrics: tuple[str, ...] = ()
    n_boot: int = 200
    seed: int = 0
    significant_only: bool = False


def calibration(dataset: Dataset, q: CalibrationQuery, progress: Progress = None) -> C.Calibration:
    """The curves, summary and pairs of ``q.metrics`` on the page's language pair."""
    return C.calibrate_datasets([dataset], list(q.metrics), q.criterion, q.settings, n_boot=q.n_boot, seed=q.seed,
                                significant_only=q.significant_only, progress=progress)


def fitted_metrics(cal: C.Calibration) -> list[str]:
    """The metrics with a fitted curve, in the calibration's order."""
    return list(dict.fromkeys(m for (_lp, m) in cal.fits))


def typical_delta(cal: C.Calibration, metric: str) -> float:
    """The median |Δ| of the metric's pairs (the difference the section reads first)."""
    p = cal.pairs[(cal.pairs["metric"] == metric) & cal.pairs["agree"].notna()]
    return float(np.median(np.abs(p["delta"]))) if len(p) else 0.0


def sentence(cal: C.Calibration, metric: str, delta: float) -> str:
    """The sentence of the metric's logistic curve at ``delta``."""
    (fit,) = [f for (_lp, m), f in cal.fits.items() if m == metric]
    return C.agreement_sentence(fit, delta)


@dataclass(frozen=True)
class CurveQuery(CalibrationQuery):
    """A calibration query with the metric drawn and the difference marked."""

    metric: str = ""
    delta: float = 0.0


def curve_figure(cal: C.Calibration, q: CurveQuery):
    """The curve figure of ``q.metric`` with ``q.delta`` marked (:mod:`evalcore.present.plots_calibrate`)."""
    from ..present.plots_calibrate import agreement_curves

    lp = next(lp for (lp, m) in cal.fits if m == q.metric)
    return agreement_curves(cal.curves, cal.pairs, q.metric, lp, q.delta)


def tables(cal: C.Calibration) -> dict[str, pd.DataFrame]:
    """The tables the page offers: curves, summary, pairs."""
    return {"curves": cal.curves, "summary": cal.summary, "pairs": cal.pairs}
