"""Reading-comprehension evaluation (Callison-Burch 2009, §5.3, Table 3; methods §5.12).

Readers answer questions about a document using one system's translation; graders mark each
answer correct (1), wrong (0) or partly correct (a value in between). The optional file
``comprehension.tsv`` of a tidy folder holds one row per answer:

    lp, system, doc_id, question_id, rater, correct[, question][, answer]

``system`` is an MT system or a reference set (a human translation read as the control, the
seed's "reference" row); ``doc_id`` names a document of ``segments.tsv``. The table travels
with the dataset as ``dataset.extras["comprehension"]``.

Score of a system: the mean over questions of the mean grade of that question's answers (each
question counts once however many readers answered it), shown as % correct, with a
percentile bootstrap CI over questions (the same resampled questions for every system).
"""
from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..io.comprehension import COLUMNS, FILE, OPTIONAL, REQUIRED, read_file  # noqa: F401  (the reader lives in io/)
from ..core.results import Result
from ..scoring.settings import DEFAULTS, Settings

AGGREGATION = ("% correct = mean over questions of the mean grade of the question's answers "
               "(each question counts once); CI: percentile bootstrap over questions")


def table_of(dataset) -> pd.DataFrame:
    """The comprehension answers of a dataset (empty frame with the columns when absent)."""
    t = dataset.extras.get("comprehension")
    if t is None or not len(t):
        return pd.DataFrame(columns=COLUMNS)
    t = t.copy()
    t["correct"] = pd.to_numeric(t["correct"], errors="coerce")
    return t


def question_matrix(answers: pd.DataFrame) -> pd.DataFrame:
    """Rows = questions (doc_id, question_id), columns = systems: the mean grade of that
    question's answers for that system (NaN when nobody answered it on that system)."""
    q = answers.assign(question_key=answers["doc_id"].astype(str) + "\x00" + answers["question_id"].astype(str))
    m = q.groupby(["question_key", "system"], sort=False)["correct"].mean().unstack("system")
    return m.reindex(columns=list(dict.fromkeys(answers["system"])))


def results(dataset, n_boot: int = 1000, seed: int = 1, alpha: float = 0.05) -> Result:
    """The seed's Table 3: % correct per system (the human-reference control rows first), with
    a percentile bootstrap CI over questions, the number of questions and answers.

    A :class:`~evalcore.core.results.Result` with columns system, kind ("reference"/"system"),
    pct_correct, ci_lo, ci_hi, n_questions, n_answers; its ``method`` states the aggregation."""
    answers = table_of(dataset)
    if not len(answers):
        raise ValueError("this dataset has no reading-comprehension answers (an optional comprehension.tsv "
                         "with lp, system, doc_id, question_id, rater, correct)")
    mat = question_matrix(answers)
    vals = mat.to_numpy(float)
    point = np.nanmean(vals, axis=0)
    lo = hi = np.full(len(point), np.nan)
    if n_boot:
        from ..stats.bootstrap import percentile_ci, resample_indices

        idx = resample_indices(len(mat), n_boot, seed)
        with warnings.catch_warnings():  # a draw without any of a system's questions: NaN, left out
            warnings.simplefilter("ignore", RuntimeWarning)
            samples = np.array([np.nanmean(vals[i], axis=0) for i in idx])
        lo, hi = percentile_ci(samples, alpha, axis=0)
    refs = set(dataset.references["ref_id"])
    out = pd.DataFrame({
        "system": mat.columns,
        "kind": ["reference" if s in refs else "system" for s in mat.columns],
        "pct_correct": 100 * point, "ci_lo": 100 * lo, "ci_hi": 100 * hi,
        "n_questions": np.isfinite(vals).sum(axis=0),
        "n_answers": answers.groupby("system", sort=False).size().reindex(mat.columns).to_numpy(),
    })
    out = out.sort_values(["kind", "pct_correct"], ascending=[True, False], kind="stable").reset_index(drop=True)
    return Result(out, method=AGGREGATION + (f" ({n_boot} resamples, {100 * (1 - alpha):.0f} %)" if n_boot else ""))


def correlations(dataset, table: pd.DataFrame, metric_ids: Sequence[str] = ("bleu", "chrf"),
                 criteria: Sequence[str] | None = None, settings: Settings = DEFAULTS) -> Result:
    """System-level correlation of % correct with every metric (corpus score) and every human
    criterion (mean score), over the MT systems that have both (the control rows are left out).
    ``table``: the table of :func:`results`.

    A :class:`~evalcore.core.results.Result` with columns measure, kind (metric/human), n_systems,
    pearson, spearman, kendall; its ``method`` says what was correlated. ``settings.tokenizer``:
    the word-level metrics' tokenizer (None: the metric's default)."""
    from scipy import stats

    from ..human.scores import system_scores
    from ..metrics.engine import score_table

    mt = table[table["kind"] == "system"].set_index("system")["pct_correct"]
    rows = []
    measures: list[tuple[str, str, pd.Series]] = []
    if metric_ids:
        sc = score_table(dataset, list(metric_ids), level="system", tokenize=settings.tokenizer)
        for m, sub in sc.groupby("metric", sort=False):
            measures.append((str(m), "metric", sub.set_index("system")["score"]))
    for crit in (dataset.criteria if criteria is None else criteria):
        s = system_scores(dataset, crit)
        measures.append((crit, "human", s.set_index("system")["score"].astype(float)))
    for name, kind, series in measures:
        common = [s for s in mt.index if s in series.index and np.isfinite(series[s])]
        rec = {"measure": name, "kind": kind, "n_systems": len(common)}
        if len(common) >= 3:
            x, y = mt[common].to_numpy(float), series[common].to_numpy(float)
            rec["pearson"] = stats.pearsonr(x, y)[0]
            rec["spearman"] = stats.spearmanr(x, y)[0]
            rec["kendall"] = stats.kendalltau(x, y)[0]
        else:
            rec.update(pearson=np.nan, spearman=np.nan, kendall=np.nan)
        rows.append(rec)
    out = pd.DataFrame(rows, columns=["measure", "kind", "n_systems", "pearson", "spearman", "kendall"])
    return Result(out, method=("system-level correlation of % correct with each measure over the MT systems that "
                               "have both (human-reference control rows left out; fewer than 3 systems: no value)"))
