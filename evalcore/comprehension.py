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

from .problems import Report

FILE = "comprehension.tsv"
REQUIRED = ["system", "doc_id", "question_id", "rater", "correct"]
OPTIONAL = ["lp", "question", "answer"]
COLUMNS = ["system", "doc_id", "question_id", "rater", "correct", "question", "answer"]
AGGREGATION = ("% correct = mean over questions of the mean grade of the question's answers "
               "(each question counts once); CI: percentile bootstrap over questions")


def read_file(src, report: Report, segments: pd.DataFrame, outputs: pd.DataFrame,
              references: pd.DataFrame) -> pd.DataFrame | None:
    """Read and check ``comprehension.tsv`` from a file source, if present; every problem goes
    into ``report`` with its line. ``segments``/``outputs``/``references`` are the long tables
    of the same folder (with ``lp``), used to check document, system and language-pair names."""
    from .io.text import describe_lines, read_tsv

    fname = src.find(FILE)
    if fname is None:
        return None
    table = read_tsv(src.read(fname), fname, report, REQUIRED, OPTIONAL, {"doc": "doc_id", "sys": "system"})
    if table is None:
        return None
    cols = {c: (table.col(c) if table.has(c) else [""] * len(table.rows)) for c in ["lp", *COLUMNS]}
    df = pd.DataFrame(cols, dtype=object)
    for c in df:
        df[c] = df[c].astype(str).str.strip() if c not in ("question", "answer") else df[c].astype(str)
    df["_line"] = table.lines
    seg_lp = lambda t: t["lp"].fillna("").astype(str).str.strip() if "lp" in t else pd.Series([""] * len(t))  # noqa: E731
    lps = sorted(set(seg_lp(segments)) - {""})
    if len(lps) == 1:
        df.loc[df["lp"] == "", "lp"] = lps[0]
    elif len(lps) > 1 and (df["lp"] == "").any():
        blank = df[df["lp"] == ""]
        report.error(fname, int(blank["_line"].iloc[0]),
                     f"{len(blank)} rows have no lp value but the data holds several language pairs "
                     f"({', '.join(lps)}); add an lp column ({describe_lines(blank['_line'].tolist())})")

    def bad(mask, message):
        sub = df[mask]
        if len(sub):
            report.error(fname, int(sub["_line"].iloc[0]), message.format(n=len(sub), where=describe_lines(sub["_line"].tolist())))

    for c in ("system", "doc_id", "question_id", "rater"):
        bad(df[c] == "", f"{{n}} row(s) with an empty {c} ({{where}}); every answer needs a {c}")
    grade = pd.to_numeric(df["correct"], errors="coerce")
    bad(grade.isna() & (df["correct"] != ""),
        "{n} non-numeric 'correct' value(s) (" + ", ".join(repr(v) for v in list(dict.fromkeys(df.loc[grade.isna(), "correct"]))[:5])
        + ") at {where}; use 1 (correct), 0 (wrong) or a grade between 0 and 1")
    bad(df["correct"] == "", "{n} empty 'correct' value(s) ({where}); leave unanswered questions out or grade them 0")
    bad(grade.notna() & ((grade < 0) | (grade > 1)),
        "{n} 'correct' value(s) outside 0..1 ({where}); grades must be 1 (correct), 0 (wrong) or in between")
    if lps or len(segments):
        known_lp = set(lps) | {""}
        bad(~df["lp"].isin(known_lp), "{n} row(s) name a language pair that is not in the segments file ({where})")
        docs = set(zip(seg_lp(segments), segments["doc_id"].fillna("").astype(str).str.strip())) if "doc_id" in segments else set()
        known_doc = pd.Series([(a, b) in docs for a, b in zip(df["lp"], df["doc_id"])], index=df.index, dtype=bool)
        unknown = df[~known_doc & (df["doc_id"] != "")]
        if len(unknown):
            ids = list(dict.fromkeys(unknown["doc_id"]))
            report.error(fname, int(unknown["_line"].iloc[0]),
                         f"{len(unknown)} row(s) name document(s) not in the segments file's doc_id column: "
                         f"{', '.join(map(repr, ids[:8]))}{' ...' if len(ids) > 8 else ''} "
                         f"({describe_lines(unknown['_line'].tolist())}); fix the ids or add doc_id to segments.tsv")
        names = set(zip(seg_lp(outputs), outputs["system"].astype(str).str.strip())) | \
            set(zip(seg_lp(references), references["ref_id"].astype(str).str.strip()))
        known_sys = pd.Series([(a, b) in names for a, b in zip(df["lp"], df["system"])], index=df.index, dtype=bool)
        unknown = df[~known_sys & (df["system"] != "")]
        if len(unknown):
            ids = list(dict.fromkeys(unknown["system"]))
            report.error(fname, int(unknown["_line"].iloc[0]),
                         f"{len(unknown)} row(s) name system(s) that are neither a system of outputs.tsv nor a "
                         f"reference set of references.tsv: {', '.join(map(repr, ids[:8]))} "
                         f"({describe_lines(unknown['_line'].tolist())})")
    keys = ["lp", "system", "doc_id", "question_id", "rater"]
    dup = df[df.duplicated(keys, keep=False)]
    for _, sub in dup.groupby(keys, sort=False):
        report.error(fname, int(sub["_line"].iloc[1]),
                     f"duplicate answer (system={sub['system'].iloc[0]!r}, doc_id={sub['doc_id'].iloc[0]!r}, "
                     f"question_id={sub['question_id'].iloc[0]!r}, rater={sub['rater'].iloc[0]!r}), also at line "
                     f"{int(sub['_line'].iloc[0])}; keep one row per answer")
    df["correct"] = grade
    return df.drop(columns=["_line"]).reset_index(drop=True)


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


def results(dataset, n_boot: int = 1000, seed: int = 1, alpha: float = 0.05) -> pd.DataFrame:
    """The seed's Table 3: % correct per system (the human-reference control rows first), with
    a percentile bootstrap CI over questions, the number of questions and answers.

    Columns: system, kind ("reference"/"system"), pct_correct, ci_lo, ci_hi, n_questions,
    n_answers. ``attrs["note"]`` states the aggregation."""
    answers = table_of(dataset)
    if not len(answers):
        raise ValueError("this dataset has no reading-comprehension answers (an optional comprehension.tsv "
                         "with lp, system, doc_id, question_id, rater, correct)")
    mat = question_matrix(answers)
    vals = mat.to_numpy(float)
    point = np.nanmean(vals, axis=0)
    lo = hi = np.full(len(point), np.nan)
    if n_boot:
        rng = np.random.default_rng(seed)
        idx = rng.integers(0, len(mat), size=(n_boot, len(mat)))
        with warnings.catch_warnings():  # a draw without any of a system's questions: NaN, left out
            warnings.simplefilter("ignore", RuntimeWarning)
            samples = np.array([np.nanmean(vals[i], axis=0) for i in idx])
        lo = np.nanquantile(samples, alpha / 2, axis=0)
        hi = np.nanquantile(samples, 1 - alpha / 2, axis=0)
    refs = set(dataset.references["ref_id"])
    out = pd.DataFrame({
        "system": mat.columns,
        "kind": ["reference" if s in refs else "system" for s in mat.columns],
        "pct_correct": 100 * point, "ci_lo": 100 * lo, "ci_hi": 100 * hi,
        "n_questions": np.isfinite(vals).sum(axis=0),
        "n_answers": answers.groupby("system", sort=False).size().reindex(mat.columns).to_numpy(),
    })
    out = out.sort_values(["kind", "pct_correct"], ascending=[True, False], kind="stable").reset_index(drop=True)
    out.attrs["note"] = AGGREGATION + (f" ({n_boot} resamples, {100 * (1 - alpha):.0f} %)" if n_boot else "")
    return out


def correlations(dataset, table: pd.DataFrame, metric_ids: Sequence[str] = ("bleu", "chrf"),
                 criteria: Sequence[str] | None = None) -> pd.DataFrame:
    """System-level correlation of % correct with every metric (corpus score) and every human
    criterion (mean score), over the MT systems that have both (the control rows are left out).

    Columns: measure, kind (metric/human), n_systems, pearson, spearman, kendall."""
    from scipy import stats

    from .judges import system_scores
    from .metrics.engine import score_table

    mt = table[table["kind"] == "system"].set_index("system")["pct_correct"]
    rows = []
    measures: list[tuple[str, str, pd.Series]] = []
    if metric_ids:
        sc = score_table(dataset, list(metric_ids), level="system")
        for m, sub in sc.groupby("metric", sort=False):
            measures.append((m, "metric", sub.set_index("system")["score"]))
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
    out.attrs["note"] = ("system-level correlation of % correct with each measure over the MT systems that have "
                         "both (human-reference control rows left out; fewer than 3 systems: no value)")
    return out
