"""One primary answer per question, declared, with the other views labelled (methods §21).

A page, a command and the evaluation card answer four questions about one language pair:
*which system is best*, *which metric is best*, *does system B beat system A*, and *which
metric to trust for this pair of systems*. Each has one **primary** answer computed by one
declared recipe, and every other view of the same question is an **alternative** that says
why it differs.

Primary recipe for human judgements (ESA, MQM, DA…): the WMT24 human ranking (Kocmi et al.
2024, Findings of WMT24 §3), as ``rank`` computes it (:func:`evalcore.stats.system_ranking.
rank_systems`, test ``wilcoxon``): per (system, segment) the mean over raters (a rater's repeats
averaged first), per system the mean over each domain's segments, macro-averaged over the
domains; two systems differ when the per-domain Wilcoxon signed-rank p-values combined by
Stouffer's method give p < α; clusters by significance. Human translations follow the shared
settings (:class:`~evalcore.scoring.settings.Settings` ``human_systems``): left out of the
answer by default, and a note names one that would rank above it.

Alternatives of "best system": the mean over segments (the Systems page's scores table: every
segment weighs the same, so domains of unequal size weigh differently), the mean over judgement
rows (a segment weighs as often as it was judged), and the Schulze consensus of the judges
(Schulze 2011; each (rater, segment) is a ballot: wins, not score magnitudes).

A :class:`Verdict` is a small frozen object: the answer, the one-sentence verdict, its evidence
(difference, CI, p, cluster) and its alternatives. :func:`verdict_line` is the text the commands
print (``verdict: …``). Nothing here imports streamlit.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any, Sequence

import numpy as np
import pandas as pd

from ..core.dataset import Dataset
from ..metrics._caches import bounded_cache
from ..scoring.settings import DEFAULTS, Settings

#: the declared recipe of the primary human answer (its name and citation)
HUMAN_RECIPE = ("WMT24 human ranking (Kocmi et al. 2024, Findings of WMT24 §3): per-domain mean of the "
                "per-segment mean over raters, macro-averaged over domains; per-domain Wilcoxon combined "
                "by Stouffer")
#: paired bootstrap resamples and seed of the CI of a difference (Koehn 2004)
N_BOOT = 1000
SEED = 12345


@dataclass(frozen=True)
class Alternative:
    """Another view of the same question: its ``view``, its ``answer``, whether it ``agrees``
    with the primary answer and the ``reason`` it differs (or the view's nature when it agrees)."""

    view: str
    answer: str
    agrees: bool
    reason: str

    def text(self) -> str:
        return (f"{self.view}: agrees ({self.answer})" if self.agrees
                else f"{self.view}: {self.reason}; here it puts {self.answer} first")


@dataclass(frozen=True)
class Verdict:
    """The primary answer to one question (module docstring)."""

    question: str                # "best system" | "best metric" | "does B beat A" | "metric to trust"
    answer: str                  # a system, a metric, or for "does B beat A": the winner or "undecided"
    sentence: str                # the one-sentence verdict
    recipe: str                  # the declared recipe that computed it
    evidence: dict = field(default_factory=dict)   # plain numbers: difference, ci_low, ci_high, p_value, …
    alternatives: tuple[Alternative, ...] = ()
    notes: tuple[str, ...] = ()

    def line(self) -> str:
        return verdict_line(self)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["alternatives"] = [asdict(a) for a in self.alternatives]
        d["evidence"] = {k: _plain(v) for k, v in self.evidence.items()}
        d["notes"] = list(self.notes)
        return d


def _plain(v):
    if isinstance(v, (np.floating, float)):
        return None if not math.isfinite(float(v)) else float(v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v


def verdict_line(verdict: Verdict, alternatives: bool = True) -> str:
    """``verdict: <sentence>`` and, on the same line, each alternative that differs and why."""
    text = f"verdict: {verdict.sentence}"
    if verdict.notes:
        text += " (" + "; ".join(verdict.notes) + ")"
    differ = [a.text() for a in verdict.alternatives if not a.agrees]
    if alternatives and differ:
        text += " Alternatives: " + "; ".join(differ) + "."
    return text


def _fmt(x: float, digits: int = 2) -> str:
    return "–" if x is None or not math.isfinite(float(x)) else f"{float(x):.{digits}f}"


def _evidence(lo: float, hi: float, p: float) -> str:
    return (f"95% paired-bootstrap CI of the difference [{_fmt(lo)}, {_fmt(hi)}]; "
            f"Wilcoxon per domain, Stouffer: p = {_fmt_p(p)}")


def _fmt_p(p: float) -> str:
    return "–" if p is None or not math.isfinite(float(p)) else f"{float(p):.3g}"


# ---------------------------------------------------------------------------------------------
# human system scores under the recipe and its alternatives
# ---------------------------------------------------------------------------------------------
def domains_of(dataset: Dataset) -> dict:
    """seg_id → domain (empty without domains), as ``rank`` reads them."""
    dom = dataset.extras.get("segment_domains")
    return dict(zip(dom["seg_id"].astype(str), dom["domain"].astype(str))) if dom is not None and len(dom) else {}


_RANKINGS = bounded_cache("verdict.recipe_ranking", 16)  # (content hash, criterion, alpha) -> (ranking, items)


def recipe_ranking(dataset: Dataset, criterion: str, alpha: float = 0.05):
    """(the :class:`~evalcore.stats.system_ranking.SystemRanking` of ``rank --human criterion``,
    the (system, seg_id, score) item scores it ranks): every judged system, human translations
    included, as the command ranks them. Memoised by content hash (read-only results)."""
    from ..human.scores import criterion_judgements
    from ..stats.system_ranking import item_scores, rank_systems

    key = (dataset.content_hash(), criterion, float(alpha))
    if key not in _RANKINGS:
        items = item_scores(criterion_judgements(dataset, criterion))
        _RANKINGS[key] = (rank_systems(items, domains_of(dataset), test="wilcoxon", alpha=alpha), items)
    return _RANKINGS[key]


def _human_names(dataset: Dataset, systems: Sequence[str]) -> list[str]:
    from ..stats.tables import human_systems

    return human_systems(dataset, list(systems))


def _diff_ci(xa: np.ndarray, xb: np.ndarray, dom: np.ndarray, alpha: float, n_boot: int = N_BOOT,
             seed: int = SEED) -> tuple[float, float]:
    """Percentile CI of the macro-over-domains mean difference a − b over paired segments
    resampled with replacement (Koehn 2004; the recipe's statistic recomputed per resample)."""
    n = len(xa)
    if n < 2:
        return float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(n_boot, n))
    d = (xa - xb)[idx]
    doms = np.unique(dom)
    means = []
    for g in doms:
        w = (dom[idx] == g)
        cnt = w.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            means.append(np.where(cnt > 0, (d * w).sum(axis=1) / np.where(cnt > 0, cnt, 1), np.nan))
    with np.errstate(invalid="ignore"):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            stat = np.nanmean(np.vstack(means), axis=0)
    lo, hi = np.nanpercentile(stat, [100 * alpha / 2, 100 * (1 - alpha / 2)])
    return float(lo), float(hi)


def disagreement_note(xa: np.ndarray, xb: np.ndarray, dom: np.ndarray, a: str, b: str, lo: float, hi: float,
                      significant: bool) -> str | None:
    """A note when the recipe's test and the CI of the difference disagree (one says the pair
    differs, the other does not), None when they agree. They measure different things: the CI is
    of the macro-averaged *mean* difference a − b; the test is a rank test per domain whose
    two-sided p-values Stouffer's method combines without their direction (§3.12), so it can
    separate two systems whose mean difference is uncertain, or whose domains point opposite
    ways. The note gives the mean difference per domain (segments) so a reader sees which."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return None
    excludes_zero = lo > 0 or hi < 0
    if excludes_zero == significant:
        return None
    d = xa - xb
    parts = []
    for g in sorted(set(dom.tolist())):
        m = dom == g
        parts.append(f"{g or '(no domain)'} {float(d[m].mean()):+.2f} ({int(m.sum())})")
    said = ("the test separates them but the 95% CI of the mean difference includes 0" if significant
            else "the 95% CI of the mean difference excludes 0 but the test does not separate them")
    return (f"evidence disagrees: {said}; the per-domain Wilcoxon p-values are two-sided and Stouffer "
            f"combines them without their direction. Mean {a} − {b} per domain (segments): "
            + ", ".join(parts) + "; read this order as uncertain")


def _paired(items: pd.DataFrame, domains: dict, a: str, b: str):
    """(xa, xb, domain per common segment) of two systems' item scores."""
    wa = items[items["system"] == a].set_index("seg_id")["score"]
    wb = items[items["system"] == b].set_index("seg_id")["score"]
    common = sorted(s for s in wa.index if s in wb.index and pd.notna(wa[s]) and pd.notna(wb[s]))  # one order
    dom = np.array([domains.get(str(s), "") for s in common])
    return wa.loc[common].to_numpy(float), wb.loc[common].to_numpy(float), dom


def _top(scores: pd.Series) -> str:
    """The system with the highest score (ties: the first by name, as ``rank`` orders them)."""
    s = scores.dropna()
    best = s.max()
    return sorted(str(k) for k, v in s.items() if v >= best - 1e-12)[0]


def best_system(dataset: Dataset, criterion: str, settings: Settings = DEFAULTS, alpha: float = 0.05) -> Verdict:
    """"Which system is best" by the humans of ``criterion`` (module docstring: the recipe and its
    alternatives). The answer is ``rank``'s first system, its first MT system when the settings
    leave human translations out (the default)."""
    from ..human.ranking import schulze_from_judgements
    from ..human.scores import criterion_judgements

    r, items = recipe_ranking(dataset, criterion, alpha)
    humans = set(_human_names(dataset, r.systems))
    keep = [k for k, s in enumerate(r.systems) if settings.include_human_systems or s not in humans]
    if not keep:
        raise ValueError(f"no system to rank by {criterion!r} once the human translations are left out")
    notes = []
    left = [s for s in r.systems[:keep[0]]]
    if left:
        notes.append("human translation(s) left out of the answer by the settings score higher: "
                     + ", ".join(f"{s} ({_fmt(r.scores[r.systems.index(s)])})" for s in left))
    i = keep[0]
    top = r.systems[i]
    domains = domains_of(dataset)
    ev = {"system": top, "score": float(r.scores[i]), "rank_range": f"{r.rank_best[i]}-{r.rank_worst[i]}"
          if r.rank_best[i] != r.rank_worst[i] else str(r.rank_best[i]), "cluster": int(r.clusters[i]),
          "n_segments": int(r.n_segments[i]), "n_domains": len(r.domains), "alpha": alpha}
    same = [r.systems[k] for k in keep if r.clusters[k] == r.clusters[i] and k != i]
    ev["cluster_with"] = same
    if len(keep) > 1:
        j = keep[1]
        xa, xb, dom = _paired(items, domains, top, r.systems[j])
        lo, hi = _diff_ci(xa, xb, dom, alpha)
        ev.update(runner_up=r.systems[j], difference=float(r.scores[i] - r.scores[j]), ci_low=lo, ci_high=hi,
                  p_value=float(r.pvalues[i, j]))
        sig = bool(r.significant[i, j])
        note = disagreement_note(xa, xb, dom, top, r.systems[j], lo, hi, sig)
        if note:
            notes.append(note)
        vs = (f"ahead of {r.systems[j]} by {_fmt(ev['difference'])} ({_evidence(lo, hi, ev['p_value'])}, "
              f"{'significant' if sig else 'not significant'} at {alpha:g})")
        tie = f"; cluster {ev['cluster']} also holds {len(same)} other system(s)" if same else ""
    else:
        vs, tie = "the only system", ""
    sentence = (f"{top} is the best system by {criterion} ({_fmt(ev['score'])}, macro-average over "
                f"{max(len(r.domains), 1)} domain(s)), {vs}{tie}.")
    # alternatives
    cand = [r.systems[k] for k in keep]
    sub = items[items["system"].isin(cand)]
    alts = []
    seg_mean = sub.groupby("system")["score"].mean()
    a1 = _top(seg_mean)
    sizes = pd.Series([domains.get(str(s), "") for s in sub[sub["system"] == top]["seg_id"]]).value_counts()
    size_text = ", ".join(f"{k or '(none)'} {v}" for k, v in sizes.items())
    alts.append(Alternative("mean over segments", a1, a1 == top,
                            f"every segment weighs the same, so domains of unequal size weigh differently "
                            f"(segments per domain: {size_text})"))
    judged = criterion_judgements(dataset, criterion)
    judged = judged[judged["system"].isin(cand)]
    rows = judged.assign(score=judged["score"].astype(float)).groupby("system")["score"].mean()
    a2 = _top(rows)
    alts.append(Alternative("mean over judgement rows", a2, a2 == top,
                            "a segment weighs as often as it was judged (repeated ratings count again)"))
    sch = schulze_from_judgements(judged)
    if sch.ranking:
        first = sorted(str(s) for s in sch.ranking[0])
        a3 = " and ".join(first)
        alts.append(Alternative("Schulze consensus of the judges", a3, first == [top],
                                "each (rater, segment) is a ballot counting wins, not score differences"))
    return Verdict("best system", top, sentence, HUMAN_RECIPE + f"; human:{criterion}; alpha {alpha:g}", ev,
                   tuple(alts), tuple(notes))


def a_beats_b(dataset: Dataset, a: str, b: str, criterion: str, alpha: float = 0.05,
              headline: pd.DataFrame | None = None) -> Verdict:
    """"Does B beat A" by the humans of ``criterion`` under the recipe (the pairwise test of
    ``rank``: macro-over-domains difference, per-domain Wilcoxon combined by Stouffer, on the
    segments both systems are judged on). Alternatives: the mean over segments with its paired
    test, and each signal of the ``compare`` headline (``headline``) that picks another winner."""
    r, items = recipe_ranking(dataset, criterion, alpha)
    for s in (a, b):
        if s not in r.systems:
            raise ValueError(f"{s!r} has no {criterion} judgements; judged: {', '.join(r.systems)}")
    ia, ib = r.systems.index(a), r.systems.index(b)
    diff = float(r.scores[ib] - r.scores[ia])
    p = float(r.pvalues[ia, ib])
    xa, xb, dom = _paired(items, domains_of(dataset), b, a)
    lo, hi = _diff_ci(xa, xb, dom, alpha)
    sig = math.isfinite(p) and p < alpha
    winner = (b if diff > 0 else a) if sig else "undecided"
    ev = {"a": a, "b": b, "score_a": float(r.scores[ia]), "score_b": float(r.scores[ib]), "difference": diff,
          "ci_low": lo, "ci_high": hi, "p_value": p, "n_segments": int(len(xa)), "alpha": alpha,
          "cluster_a": int(r.clusters[ia]), "cluster_b": int(r.clusters[ib])}
    if sig:
        sentence = (f"{winner} beats {a if winner == b else b} by {criterion}: {b} − {a} = {_fmt(diff)} "
                    f"({_evidence(lo, hi, p)}, {len(xa)} segments).")
    else:
        sentence = (f"Neither {b} nor {a} is significantly better by {criterion}: {b} − {a} = {_fmt(diff)} "
                    f"({_evidence(lo, hi, p)}, {len(xa)} segments).")
    alts = []
    xa2, xb2, _ = _paired(items, {}, b, a)
    d2 = float(np.mean(xa2) - np.mean(xb2)) if len(xa2) else float("nan")
    ahead = b if d2 > 0 else a
    primary_ahead = b if diff > 0 else a
    alts.append(Alternative("mean over segments", ahead, ahead == primary_ahead,
                            "every segment weighs the same, so domains of unequal size weigh differently "
                            f"({b} − {a} = {_fmt(d2)})"))
    if headline is not None and len(headline):
        for row in headline.itertuples(index=False):
            w = str(getattr(row, "winner", "") or "")
            if not w or w == "-" or str(row.signal) == f"human:{criterion}":
                continue
            ok = (w == winner) or (winner == "undecided" and w not in (a, b))
            why = ("a metric is a proxy for the humans; its paired test" if row.kind == "metric"
                   else "another human criterion")
            alts.append(Alternative(str(row.signal), w, ok, f"{why} decides differently"))
    note = disagreement_note(xa, xb, dom, b, a, lo, hi, sig)
    return Verdict("does B beat A", winner, sentence, HUMAN_RECIPE + f"; human:{criterion}; alpha {alpha:g}", ev,
                   tuple(alts), (note,) if note else ())


# ---------------------------------------------------------------------------------------------
# metrics
# ---------------------------------------------------------------------------------------------
def best_metric(table: pd.DataFrame, statistic: str, *, value: str = "value", rank_column: str | None = None,
                recipe: str = "", alternatives: dict | None = None) -> Verdict:
    """"Which metric is best" from a table with one row per metric (``metric``, ``value`` and,
    when present, ``ci_low``/``ci_high`` and a ``cluster``): the highest ``value`` of
    ``statistic``. ``alternatives``: view name → (Series metric → value, reason it can differ)."""
    t = table.dropna(subset=[value])
    if t.empty:
        raise ValueError("no metric has a value: nothing to rank")
    t = t.sort_values([value, "metric"], ascending=[False, True], kind="stable")
    top = t.iloc[0]
    ev: dict[str, Any] = {"metric": str(top["metric"]), "value": float(top[value])}
    for c in ("ci_low", "ci_high"):
        if c in t.columns:
            ev[c] = float(top[c]) if pd.notna(top[c]) else float("nan")
    ci = (f" (95% CI [{_fmt(ev['ci_low'], 3)}, {_fmt(ev['ci_high'], 3)}])"
          if "ci_low" in ev and math.isfinite(ev["ci_low"]) else "")
    tail = ""
    if len(t) > 1:
        second = t.iloc[1]
        ev.update(runner_up=str(second["metric"]), difference=float(top[value] - second[value]))
        tail = f", ahead of {second['metric']} by {_fmt(ev['difference'], 3)}"
    if rank_column and rank_column in t.columns and pd.notna(top[rank_column]):
        ev["cluster"] = int(top[rank_column])
        same = [str(m) for m, c in zip(t["metric"], t[rank_column]) if pd.notna(c) and int(c) == ev["cluster"]
                and m != top["metric"]]
        ev["cluster_with"] = same
        tail += (f"; not significantly better than {', '.join(same)} (same cluster)" if same
                 else "; significantly better than every other metric")
    sentence = f"{top['metric']} is the best metric by {statistic}: {_fmt(ev['value'], 4)}{ci}{tail}."
    alts = []
    for view, (series, reason) in (alternatives or {}).items():
        s = series.dropna()
        if s.empty:
            continue
        a = _top(s)
        alts.append(Alternative(view, a, a == ev["metric"], reason))
    return Verdict("best metric", ev["metric"], sentence, recipe or statistic, ev, tuple(alts))


def metric_to_trust(segments: pd.DataFrame, a: str, b: str, metrics: Sequence[str], human_signal: str,
                    higher_is_better: dict) -> Verdict:
    """"Which metric to trust for this pair": per metric, the share of segments (where both the
    metric and the humans prefer one system) on which the metric prefers the same system as the
    humans — pairwise segment agreement on the two systems (the pairwise accuracy of Kocmi et al.
    2021 restricted to one pair of systems, over segments). ``segments``: a comparison's segment
    table (``a|<signal>`` / ``b|<signal>`` columns, :class:`evalcore.analysis.compare.Comparison`)."""
    ha = segments[f"a|{human_signal}"].to_numpy(float)
    hb = segments[f"b|{human_signal}"].to_numpy(float)
    dh = hb - ha
    rows = []
    for m in metrics:
        sig = f"metric:{m}" if not m.startswith("metric:") else m
        if f"a|{sig}" not in segments:
            continue
        o = 1.0 if higher_is_better.get(m, True) else -1.0
        dm = o * (segments[f"b|{sig}"].to_numpy(float) - segments[f"a|{sig}"].to_numpy(float))
        ok = np.isfinite(dm) & np.isfinite(dh) & (dm != 0) & (dh != 0)
        n = int(ok.sum())
        agree = float(np.mean(np.sign(dm[ok]) == np.sign(dh[ok]))) if n else float("nan")
        rows.append({"metric": m, "value": agree, "n": n})
    t = pd.DataFrame(rows, columns=["metric", "value", "n"])
    v = best_metric(t, "per-segment agreement", recipe="segment-level pairwise agreement with "
                    f"{human_signal} on one pair of systems (Kocmi et al. 2021's pairwise accuracy, over segments)")
    n = int(t.loc[t["metric"] == v.answer, "n"].iloc[0])
    ev = dict(v.evidence, n_segments=n)
    rest = (f", ahead of {ev['runner_up']} ({_fmt(100 * (ev['value'] - ev['difference']), 1)}%)"
            if "runner_up" in ev else "")
    sentence = (f"{v.answer} is the metric to trust for {a} vs {b}: it prefers the system the humans prefer "
                f"({human_signal}) on {_fmt(100 * ev['value'], 1)}% of {n} segments{rest}.")
    return Verdict("metric to trust", v.answer, sentence, v.recipe, ev, v.alternatives)


def correlate_verdict(table: pd.DataFrame, method: str, level: str, criterion: str) -> Verdict | None:
    """The ``correlate`` table's verdict: the best metric by ``method`` at ``level`` (its
    ``cluster`` column when ``--compare`` made one); None when no value is defined."""
    if table.empty or table["value"].dropna().empty:
        return None
    t = table.groupby("metric", sort=False).first().reset_index() if table["metric"].duplicated().any() else table
    return best_metric(t, f"{level}-level {method} with {criterion}",
                       rank_column="cluster" if "cluster" in t.columns else None,
                       recipe=f"correlate --level {level} --method {method} --human {criterion}")


def metatask_verdict(table: pd.DataFrame, task: str) -> Verdict | None:
    """The metrics task's verdict: the best metric by the recipe's weighted average (its
    ``cluster`` column when ``--k`` made one); the average rank as an alternative."""
    if table.empty or table["average"].dropna().empty:
        return None
    alts = {}
    if "average_rank" in table.columns:
        alts["average rank"] = (-table.set_index("metric")["average_rank"].astype(float),
                                "it averages each metric's rank per sub-task, not the values")
    return best_metric(table, f"the {task} weighted average", value="average",
                       rank_column="cluster" if "cluster" in table.columns else None,
                       recipe=f"metatask --task {task}", alternatives=alts)
