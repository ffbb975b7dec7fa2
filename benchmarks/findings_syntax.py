"""Finding: do the syntactic families (TREE / GRAM / GRAMF / LEVEL / SP, methods §1.5)
enter the metric set chosen by the QARLA greedy search (methods §0, §1.4; Amigó et al. 2006 §3.3)?

    python benchmarks/findings_syntax.py [--data sample,ted,news] [--exhaustive-top 12]
                                         [--min-coverage 0.95] [--out-dir DIR]

For each dataset: candidates = the 26 lexical metrics of docs/findings.md (QARLA section) plus
every registered syntactic metric whose type occurs in the dataset's parses
(:func:`evalcore.syntax.present_metric_ids`); one :class:`~evalcore.qarla.QueenIndex`
(``mode=auto``, ≥ inside QUEEN); greedy search with KING ties ≥ and fractional; the same
search over the lexical metrics only; optionally an exhaustive search over the top-k metrics
(k ≤ 12) by QUEEN-based single KING; ORANGE/KING (§1.1) of the top metrics; and the
segment-level correlation of the chosen set's QUEEN (over all references, methods §1.2) with the
human scores, next to sentence BLEU and chrF (Amigó et al. 2006 Figure 4).

Data is read from ../shared/data and never copied. Parses and similarity tensors are cached on
disk (the first TED zh-en run parses ~5,400 texts once). Prints markdown tables and the
runtimes; ``--out-dir`` also writes the traces / tables as TSV.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SHARED = ROOT.parent / "shared" / "data"

#: The lexical candidates of the QARLA section of docs/findings.md (bleus left out: it is
#: sentence BLEU with a different smoothing, a near-duplicate of bleu).
LEXICAL = ["bleu", "bleu-1", "bleu-2", "bleu-3", "bleu-4", "nist-1", "nist-2", "nist-3", "nist-4",
           "nist-5", "gtm-1", "gtm-2", "gtm-3", "wer", "per", "ter", "rouge-1", "rouge-2", "rouge-l",
           "rouge-w", "rouge-s*", "rouge-su*", "chrf", "chrf++", "meteor"]

DATASETS = {
    "sample": (ROOT / "sample_data" / "teaching_es_en", None, ["adequacy", "fluency"]),
    "ted": (SHARED / "wmt21_ted_mqm", "zh-en", ["mqm"]),
    "news": (SHARED / "wmt21_news_mqm", "en-de", ["mqm"]),
}


def is_syntactic(mid: str) -> bool:
    from evalcore.syntax import is_syntactic as _is

    return bool(_is(mid))


def family(mid: str) -> str:
    if not is_syntactic(mid):
        return "lexical"
    f = mid.split("-", 1)[0]
    return "sp" if f == "sp" else f


def candidates(ds, lexical=LEXICAL, syntactic: bool = True) -> tuple[list[str], str]:
    """Lexical ids + the syntactic ids present in the data; and the availability reason."""
    from evalcore import syntax

    ok, reason = syntax.availability(ds)
    ids = list(lexical)
    if syntactic and ok:
        ids += syntax.present_metric_ids(ds)
    return ids, reason


def compute_tensors(ds, ids) -> dict:
    """{metric id: SimTensors} through the engine (cached on disk, methods §0)."""
    from evalcore.metrics.engine import similarity_tensors

    out = {}
    for m in ids:
        out[m] = similarity_tensors(ds, m)
    return out


def coverage(t, lay=None) -> float:
    """Share of the leave-one-out similarities (outputs and held-out references against
    R_s − {r_j}, methods §0) that are defined, among the (candidate, segment, held-out reference)
    cells where the candidate and the reference exist (``lay``: a QueenLayout; default: every cell)."""
    ls = np.asarray(t.loo_sys, float)
    lr = np.asarray(t.loo_ref, float)
    if lay is None:
        ms, mr = np.ones(ls.shape, bool), np.ones(lr.shape, bool)
    else:
        mr = lay.ref_present & (lay.m >= 2)[:, None]
        ms = lay.sys_present[:, :, None] & mr[None]
    den = ms.sum() + mr.sum()
    return float((np.isfinite(ls) & ms).sum() + (np.isfinite(lr) & mr).sum()) / den if den else float("nan")


def single_table(idx, ranking: pd.DataFrame, names, bootstrap: int = 0) -> pd.DataFrame:
    """ORANGE / KING (methods §1.1, direct) with ≥ and fractional ties, shuffle baseline, tie rate,
    plus the QUEEN-based single KING (§1.3) from the search ranking."""
    from evalcore.qarla import orange_king

    rows = []
    for n in names:
        t = idx.tensors[n]
        g = orange_king(t, ties="geq", bootstrap=bootstrap)
        f = orange_king(t, ties="fractional")
        r = {"metric": n, "family": family(n), "coverage": coverage(t, idx.layout),
             "king_queen": float(ranking.loc[ranking["metric"] == n, "king_single"].iloc[0]),
             "orange_geq": g.orange, "king_geq": g.king, "king_perm": g.king_perm,
             "tie_rate": g.tie_rate, "orange_frac": f.orange, "king_frac": f.king,
             "king_random": g.king_random, "n_cases": g.n_cases}
        if bootstrap:
            r["king_lo"], r["king_hi"] = g.ci.get("king", (np.nan, np.nan))
        rows.append(r)
    return pd.DataFrame(rows)


def greedy(idx, ties: str, names=None, rank_by: str = "queen"):
    """Greedy search (methods §0) on ``idx`` restricted to ``names`` (an index over a subset
    shares the bits, so nothing is recomputed)."""
    from evalcore.qarla import greedy_search

    sub = idx if names is None else sub_index(idx, names)
    # the unguarded search of methods §0, as documented in docs/findings.md
    return greedy_search({}, index=sub, ties=ties, rank_by=rank_by, min_coverage=0, exclude_degenerate=False)


def sub_index(idx, names):
    """A shallow view of a QueenIndex over ``names`` (same layout and bits)."""
    import copy

    v = copy.copy(idx)
    v.bits = {n: idx.bits[n] for n in names}
    v.tensors = {n: idx.tensors[n] for n in names}
    return v


def human_frame(ds, criterion: str) -> pd.DataFrame:
    from evalcore.human.scores import human_scores

    h = human_scores(ds, criterion, "raw", include_references=False)
    h["seg_id"] = h["seg_id"].astype(str)
    return h[["system", "seg_id", "score"]]


def correlations(ds, idx, sets, criterion: str) -> pd.DataFrame:
    """Segment-level correlation with the human scores of: QUEEN of each (label, metric set) of
    ``sets`` over all references (methods §1.2; Amigó et al. 2006 Figure 4), sentence BLEU and chrF
    (multi-reference x(c, R_s)). Pooled over every judged MT output (grouping none) and
    within segments (grouping item, macro mean)."""
    from evalcore.metrics.engine import score_table
    from evalcore.stats.correlation import correlation, pivot_scores

    h = human_frame(ds, criterion)
    gold, systems, segs = pivot_scores(h)
    signals = {}
    for label, names in sets:
        q = idx.values(list(names)).to_frame()
        q["seg_id"] = q["seg_id"].astype(str)
        signals[label] = q.rename(columns={"queen": "score"})[["system", "seg_id", "score"]]
    st = score_table(ds, ["bleu", "chrf"], level="segment")
    st["seg_id"] = st["seg_id"].astype(str)
    for m in ("bleu", "chrf"):
        signals[f"sentence {m}"] = st[st["metric"] == m][["system", "seg_id", "score"]]
    rows = []
    for label, fr in signals.items():
        mat, _, _ = pivot_scores(fr.drop_duplicates(["system", "seg_id"]), systems, segs)
        keep = np.isfinite(gold) & np.isfinite(mat)
        g = np.where(keep, gold, np.nan)
        mm = np.where(keep, mat, 0.0)
        row = {"signal": label, "criterion": criterion, "n": int(keep.sum())}
        for meth in ("pearson", "spearman", "kendall"):
            row[f"{meth}"] = correlation(g, mm, meth, "none").value
        row["kendall_item"] = correlation(g, mm, "kendall", "item").value
        row["acc23_item"] = correlation(g, mm, "acc23", "item").value
        rows.append(row)
    return pd.DataFrame(rows)


def fmt(df: pd.DataFrame, floatfmt: str = "{:.3f}") -> str:
    cols = list(df.columns)
    out = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for _, r in df.iterrows():
        cells = []
        for c in cols:
            v = r[c]
            if isinstance(v, (float, np.floating)):
                cells.append("—" if not np.isfinite(v) else floatfmt.format(v))
            else:
                cells.append(str(v))
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def trace_text(res) -> str:
    tr = res.trace.copy()
    tr = tr[["step", "metric", "king_single", "king_before", "king_after", "kept"]]
    return fmt(tr.head(8)) + f"\n({len(tr)} steps; kept: {', '.join(res.chosen)})"


def case_credits(idx, names, ties: str) -> pd.Series:
    """KING credit of every (segment, held-out reference) case for the set ``names`` (methods §1.1
    credits on the §1.3 leave-one-out QUEEN values), indexed by (segment index, reference index)."""
    from evalcore.qarla import case_stats, king_credit

    qv = idx.values(list(names))
    cs = case_stats(qv.loo_ref, qv.loo_sys)
    return pd.Series(king_credit(cs.above, cs.tied, ties), index=pd.MultiIndex.from_arrays([cs.seg, cs.ref]))


def paired_king_diff(idx, a, b, ties: str, n_boot: int = 1000, seed: int = 0) -> dict:
    """KING(a) − KING(b) (micro, same cases) with a paired percentile bootstrap over segments
    (both sets resampled with the same segment draws) and the share of draws with diff ≤ 0."""
    ca, cb = case_credits(idx, a, ties), case_credits(idx, b, ties)
    d = (ca - cb.reindex(ca.index)).to_numpy()
    seg = ca.index.get_level_values(0).to_numpy()
    segs, inv = np.unique(seg, return_inverse=True)
    per_sum = np.bincount(inv, weights=d, minlength=len(segs))
    per_n = np.bincount(inv, minlength=len(segs)).astype(float)
    rng = np.random.default_rng(seed)
    w = rng.multinomial(len(segs), np.full(len(segs), 1.0 / len(segs)), size=n_boot)
    boot = (w @ per_sum) / (w @ per_n)
    lo, hi = np.quantile(boot, [0.025, 0.975])
    return {"diff": float(d.mean()), "lo": float(lo), "hi": float(hi), "p_le_0": float((boot <= 0).mean())}


def search_block(idx, names, exhaustive_top: int = 12) -> dict:
    """Every search of one candidate list (all on the shared index): greedy (methods §0) with
    KING ties ≥ and fractional, ranked by QUEEN-based single KING (§1.3, the default) and by
    direct KING (§1.1); the same over the lexical / syntactic candidates only; exhaustive over
    the top ``exhaustive_top`` (≤ 12) metrics of the QUEEN-based ranking of the same tie mode."""
    from evalcore.qarla import exhaustive_search

    lex = [i for i in names if not is_syntactic(i)]
    syn = [i for i in names if is_syntactic(i)]
    out = {"names": list(names), "times": {}}
    t = time.time()
    out["greedy"] = {ties: greedy(idx, ties, names) for ties in ("geq", "fractional")}
    out["times"]["greedy"] = time.time() - t
    out["greedy_direct"] = {ties: greedy(idx, ties, names, rank_by="direct") for ties in ("geq", "fractional")}
    out["greedy_lexical"] = {ties: greedy(idx, ties, lex) for ties in ("geq", "fractional")} if lex else {}
    out["greedy_syntactic"] = {ties: greedy(idx, ties, syn) for ties in ("geq", "fractional")} if syn else {}
    out["times"]["all greedy"] = time.time() - t
    if exhaustive_top:
        k = min(exhaustive_top, 12)
        t = time.time()
        out["exhaustive"] = {}
        for ties in ("geq", "fractional"):
            cand = out["greedy"][ties].ranking["metric"].head(k).tolist()
            out["exhaustive"][ties] = exhaustive_search({}, index=sub_index(idx, cand), ties=ties,
                                                      min_coverage=0, exclude_degenerate=False)
        out["times"]["exhaustive"] = time.time() - t
    return out


def analyse(name: str, path, lp, criteria, exhaustive_top: int = 12, lexical=LEXICAL,
            syntactic: bool = True, only=None, min_coverage: float = 0.95, out_dir=None,
            log=print) -> dict:
    """Everything reported for one dataset; returns the pieces (for tests and the doc).

    Two candidate lists share one QueenIndex: ``present`` (lexical + every syntactic metric
    whose type occurs in the parses) and ``dense`` (the same, keeping only metrics whose
    leave-one-out similarities are defined in ≥ ``min_coverage`` of the cases). ``only``:
    restrict the candidates to these ids (tests)."""
    from evalcore.io import load_dataset
    from evalcore.qarla import QueenIndex

    res = {"name": name, "times": {}}
    t0 = time.time()
    ds = load_dataset(str(path), lp=lp)
    res["dataset"] = ds
    ids, reason = candidates(ds, lexical, syntactic)
    if only is not None:
        ids = [i for i in ids if i in set(only)]
    res["availability"] = reason
    res["times"]["load+parse"] = time.time() - t0
    n_syn = sum(is_syntactic(i) for i in ids)
    log(f"## {name}: {ds.lp}, {len(ds.seg_ids)} segments, refs {ds.ref_ids}, {len(ds.systems)} systems")
    log(f"syntax: {reason}; candidates: {len(ids)} ({len(ids) - n_syn} lexical, {n_syn} syntactic)")
    res["ids"] = ids
    if len(ds.ref_ids) < 2:
        log("fewer than 2 references: no QARLA")
        return res
    t = time.time()
    tens = compute_tensors(ds, ids)
    res["times"]["tensors"] = time.time() - t
    t = time.time()
    idx = QueenIndex(tens, mode="auto", ties="geq")
    res["times"]["queen_index"] = time.time() - t
    res["coverage"] = {m: coverage(tens[m], idx.layout) for m in ids}
    dense = [m for m in ids if res["coverage"][m] >= min_coverage]
    res["min_coverage"] = min_coverage
    res["index"] = idx
    lay = idx.layout
    res["pool"] = (lay.pool_size, int((lay.loo_pooled & ~lay.loo_local).sum()), int(lay.loo_local.sum()))
    t = time.time()
    res["present"] = search_block(idx, ids, exhaustive_top)
    res["dense"] = search_block(idx, dense, exhaustive_top)
    res["times"]["searches"] = time.time() - t
    rk = res["present"]["greedy"]["geq"].ranking
    rkf = res["present"]["greedy"]["fractional"].ranking
    rdf = res["dense"]["greedy"]["fractional"].ranking
    top = (rk["metric"].head(5).tolist() + rkf["metric"].head(5).tolist() + rdf["metric"].head(8).tolist()
           + ["bleu", "chrf"])
    for fam in ("tree", "gram", "gramf", "level", "sp"):  # family means and best dense member
        if fam in ids:
            top.append(fam)
        f = rdf[[family(m) == fam for m in rdf["metric"]]]
        if len(f):
            top.append(f["metric"].iloc[0])
    top = [m for m in dict.fromkeys(top) if m in ids]
    t = time.time()
    st = single_table(idx, rk, top, bootstrap=1000)
    st["king_queen_frac"] = [float(rkf.loc[rkf["metric"] == m, "king_single"].iloc[0]) for m in st["metric"]]
    res["single"] = st
    res["times"]["single"] = time.time() - t
    t = time.time()
    rows = []
    for blk in ("present", "dense"):
        for ties in ("geq", "fractional"):
            for kind in ("greedy", "greedy_lexical", "greedy_syntactic"):
                if not res[blk][kind]:
                    continue
                g = res[blk][kind][ties]
                k = idx.king(g.chosen, ties=ties, bootstrap=1000)
                rows.append({"candidates": blk, "search": kind.replace("greedy_", "") if "_" in kind else "all",
                             "ties": ties, "set": ",".join(g.chosen), "size": len(g.chosen),
                             "n_syntactic": sum(is_syntactic(m) for m in g.chosen),
                             "min_coverage": min(res["coverage"][m] for m in g.chosen),
                             "king": k.king, "king_lo": k.ci["king"][0], "king_hi": k.ci["king"][1],
                             "king_perm": k.king_perm, "king_random": k.king_random, "orange": k.orange,
                             "tie_rate": k.tie_rate})
    res["sets"] = pd.DataFrame(rows)
    diffs = []
    for ties in ("geq", "fractional"):
        pairs = [("present", "dense"), ("present", "lexical"), ("dense", "lexical")]
        sets = {"present": res["present"]["greedy"][ties].chosen, "dense": res["dense"]["greedy"][ties].chosen,
                "lexical": res["dense"]["greedy_lexical"][ties].chosen if res["dense"]["greedy_lexical"] else None}
        for x, y in pairs:
            if sets[x] is None or sets[y] is None or sets[x] == sets[y]:
                continue
            d = paired_king_diff(idx, sets[x], sets[y], ties)
            diffs.append({"ties": ties, "a": f"{x}: {','.join(sets[x])}", "b": f"{y}: {','.join(sets[y])}", **d})
    res["diffs"] = pd.DataFrame(diffs)
    res["times"]["set CIs"] = time.time() - t
    fam_rows = []
    for label, r in (("present, ≥", rk), ("present, frac.", rkf), ("dense, frac.", rdf)):
        fr = r.assign(family=[family(m) for m in r["metric"]]).groupby("family", sort=False).head(1)
        fam_rows.append(fr.assign(candidates=label)[["candidates", "family", "metric", "king_single", "rank"]])
    res["family_best"] = pd.concat(fam_rows, ignore_index=True)
    t = time.time()
    sets = []
    for blk in ("dense", "present"):
        for ties in ("fractional", "geq"):
            sets.append((f"QUEEN{{{','.join(res[blk]['greedy'][ties].chosen)}}} ({blk}, {ties})",
                         res[blk]["greedy"][ties].chosen))
        if res[blk]["greedy_lexical"]:
            g = res[blk]["greedy_lexical"]["fractional"].chosen
            sets.append((f"QUEEN{{{','.join(g)}}} ({blk}, lexical only, fractional)", g))
    sets += [("QUEEN{bleu}", ["bleu"]), ("QUEEN{chrf}", ["chrf"])]
    seen, uniq = set(), []
    for lab, names in sets:
        if tuple(names) not in seen and all(n in ids for n in names):
            seen.add(tuple(names))
            uniq.append((lab, names))
    corr = [correlations(ds, idx, uniq, c) for c in criteria if c in ds.criteria]
    res["corr"] = pd.concat(corr, ignore_index=True) if corr else pd.DataFrame()
    res["times"]["correlation"] = time.time() - t
    res["times"]["total"] = time.time() - t0
    if out_dir:
        od = Path(out_dir)
        od.mkdir(parents=True, exist_ok=True)
        for blk in ("present", "dense"):
            for ties, r in res[blk]["greedy"].items():
                r.trace.to_csv(od / f"{name}_{blk}_greedy_{ties}.tsv", sep="\t", index=False)
        res["single"].to_csv(od / f"{name}_single.tsv", sep="\t", index=False)
        res["sets"].to_csv(od / f"{name}_sets.tsv", sep="\t", index=False)
        res["corr"].to_csv(od / f"{name}_corr.tsv", sep="\t", index=False)
        pd.Series(res["coverage"], name="coverage").to_csv(od / f"{name}_coverage.tsv", sep="\t")
    return res


def report_block(blk: dict, label: str, log=print) -> None:
    for ties in ("geq", "fractional"):
        g = blk["greedy"][ties]
        syn_in = [m for m in g.chosen if is_syntactic(m)]
        log(f"\n### {label}: greedy, ties {ties}: chosen {g.chosen}  KING {g.king:.4f}  ORANGE {g.orange:.4f}"
            f"  syntactic in set: {syn_in or 'none'}")
        log(trace_text(g))
        gd = blk["greedy_direct"][ties]
        log(f"rank-by direct: chosen {gd.chosen} KING {gd.king:.4f}")
        for k in ("greedy_lexical", "greedy_syntactic"):
            if blk[k]:
                log(f"{k.split('_')[1]} only: chosen {blk[k][ties].chosen} KING {blk[k][ties].king:.4f}")
        if "exhaustive" in blk:
            ex = blk["exhaustive"][ties]
            log(f"exhaustive over the top {len(ex.ranking)} ({', '.join(ex.ranking['metric'])}): "
                f"best {ex.chosen} KING {ex.king:.4f}")
            log(fmt(ex.trace.head(5)))


def report(res, log=print) -> None:
    if "present" not in res:
        return
    ps, lp_, ll = res["pool"]
    log(f"QUEEN layout: pool of {ps} reference pairs; leave-one-out pooled in {lp_} segments, local in {ll}")
    dense = res["dense"]["names"]
    log(f"dense candidates (coverage >= {res['min_coverage']}): {len(dense)}: {', '.join(dense)}")
    report_block(res["present"], "all present", log)
    report_block(res["dense"], f"dense (coverage >= {res['min_coverage']})", log)
    log("\n### chosen sets: KING (§1.3) with 95 % bootstrap CI (1,000 segment resamples) and baselines")
    log(fmt(res["sets"]))
    if len(res["diffs"]):
        log("\n### paired KING differences of the chosen sets (bootstrap over segments, 1,000 draws)")
        log(fmt(res["diffs"]))
    log("\n### single metrics (QUEEN-based KING §1.3 and direct §1.1)")
    cols = ["metric", "family", "coverage", "king_queen", "king_queen_frac", "orange_geq", "king_geq",
            "king_lo", "king_hi", "king_perm", "tie_rate", "orange_frac", "king_frac", "king_random"]
    log(fmt(res["single"][cols]))
    log("\n### best metric of each family (QUEEN-based KING)")
    log(fmt(res["family_best"]))
    if len(res["corr"]):
        log("\n### segment-level correlation with human scores (judged MT outputs)")
        log(fmt(res["corr"]))
    log("\ntimes (s): " + ", ".join(f"{k} {v:.1f}" for k, v in res["times"].items()))
    for blk in ("present", "dense"):
        log(f"  {blk}: " + ", ".join(f"{k} {v:.1f}" for k, v in res[blk]["times"].items()))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default="sample,ted,news")
    ap.add_argument("--exhaustive-top", type=int, default=12)
    ap.add_argument("--min-coverage", type=float, default=0.95)
    ap.add_argument("--out-dir")
    args = ap.parse_args(argv)
    for name in [x.strip() for x in args.data.split(",") if x.strip()]:
        path, lp, crit = DATASETS[name]
        if not Path(path).exists():
            print(f"## {name}: {path} not found, skipped")
            continue
        if name == "news":  # German target: report availability only (lexical runs: QARLA section)
            from evalcore import syntax
            from evalcore.io import load_dataset

            ds = load_dataset(str(path), lp=lp)
            ok, reason = syntax.availability(ds)
            print(f"## news {lp}: syntactic metrics available: {ok} ({reason})")
            continue
        res = analyse(name, path, lp, crit, args.exhaustive_top, min_coverage=args.min_coverage,
                      out_dir=args.out_dir)
        report(res)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
