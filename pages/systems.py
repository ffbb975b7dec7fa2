"""Systems: corpus scores with bootstrap CIs, paired significance vs a baseline, bar chart,
rank agreement between metrics and humans, Schulze consensus of metrics and of judges."""
from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from evalcore.stats.registry import label as stat_label, names as stat_names
from evalcore.scoring import defaults as common_view
import dataclasses
from evalcore.views import judges as judges_view, systems as systems_view
from evalcore.analysis import system_level
from evalcore.present import plots as P
from pages.common import query_settings  # noqa: E402
from pages.common import cached, computed_keys, current_dataset, download_figure, download_table, ensure_shell, judged_only_control, long_segment_note, md, progress_bar, scope, segments_caption, settings_of_page, show_exception, syntax_note
from pages.common import settings_caption
from pages.common import tokenizer_of  # noqa: E402

ensure_shell(__file__)
st.title("Systems")
from pages.common import terms  # noqa: E402
from pages.common import AGGREGATION_CAPTION, AGGREGATION_COLUMNS  # noqa: E402

terms('system level', 'signature', 'bootstrap CI', 'paired bootstrap / approximate randomisation', 'human translations as systems', 'judged segments only', 'Schulze ranking')
ds = current_dataset()


def point_table(metrics, criteria, progress=None):
    """Scores without CIs or tests (what the page shows first, metric by metric; ``progress``
    moves the bar while a metric scores, e.g. a neural one)."""
    return cached(systems_view.systems_table, dataclasses.replace(query_of(metrics), criteria=tuple(criteria), baseline=None, n_boot=0,
                                             test="bootstrap"), ds, progress=progress)


ds = scope(ds, "systems")
tok = tokenizer_of(ds)  # the word-level metrics' tokenizer, passed to every view that scores
h = ds.content_hash()
ds_criteria = ds.criteria  # a property that scans every judgement: read once per run
notes_box = st.container()  # notes that need the metric modules: filled after the first figure
c1, c2, c3 = st.columns([3, 2, 2])
metrics_box = c1.empty()  # the metric list (it imports every metric module): after the first figure
criteria = c2.multiselect("Human criteria", ds_criteria, default=ds_criteria, key="sys_criteria")
candidates = systems_view.baseline_candidates(ds)
baseline = c3.selectbox("Baseline for the paired test", ["(none)"] + candidates,
                        index=1 if candidates else 0, key="sys_baseline")
c4, c5, c6, c7 = st.columns(4)
include_refs = c4.checkbox("Include human translations", value=False, key="sys_refs",
                           help="Score human translations as systems (Freitag et al. 2021): every candidate is "
                                "scored against the reference set chosen below; a human translation in that set "
                                "is left out.")
norm = c5.selectbox("Human score normalisation", ["raw", "z", "percentile"], key="sys_norm")
test = c6.selectbox("Paired test", ["bootstrap", "ar"], key="sys_test",
                    format_func={"bootstrap": "paired bootstrap", "ar": "approximate randomisation"}.get)
n_boot = c7.number_input("Bootstrap resamples (0 = no CIs)", 0, 2000, systems_view.PAGE_N_BOOT, step=100,
                         key="sys_boot")

ref_ids, judged_only = None, None
if include_refs and ds.ref_ids:
    ref_ids = tuple(st.multiselect("Reference set every candidate is scored against", ds.ref_ids,
                                   default=ds.ref_ids[:1], key="sys_ref_ids",
                                   help="The other reference sets are scored as systems against this one."))
    if not ref_ids:
        st.info("Choose the reference set every candidate is scored against.")
        st.stop()
    left = [r for r in ds.ref_ids if r not in ref_ids]
    st.caption(f"Human translations scored as systems against {md(', '.join(ref_ids))}: "
               f"{md(', '.join(left)) or 'none (every reference set is chosen)'}; left out (the reference): "
               f"{md(', '.join(ref_ids))}.")
if ds_criteria and judged_only_control(ds, "sys"):
    judged_only = criteria[0] if criteria else common_view.default_criterion(ds)
page_settings = settings_of_page(ds, judged_only=bool(judged_only), include_refs=include_refs, ref_ids=ref_ids)
settings_caption(page_settings, ds, judged_only or None)
verdict_slot = st.container()  # the primary answer, shown first (filled once the scores are drawn)


def query_of(metrics) -> systems_view.SystemsQuery:
    """This run's query (its cache key) for ``metrics``."""
    return systems_view.SystemsQuery(h, page_settings.with_(tokenizer=tok), tuple(metrics), tuple(criteria), baseline,
                                     norm, int(n_boot), test)


def show_scores(table, final: bool) -> None:
    """The scores table and the bar chart (into their slots: redrawn as metrics arrive)."""
    wide = cached(systems_view.systems_wide, query, table, shared=True) if final else systems_view.system_wide(table)
    table_slot.dataframe(wide, hide_index=True, width="stretch",
                         column_config={c: st.column_config.NumberColumn(format="%.3f") for c in wide.columns
                                        if c not in ("system",) and not c.endswith("vs baseline")})
    # the memoised figure carries its signature from the start: the same figure on every rerun
    fig = cached(systems_view.systems_bars, query, table, shared=True) if final else P.system_bars(table)
    if final:
        fig_slot.plotly_chart(fig, width="stretch", key="sys_bars")
    else:
        fig_slot.plotly_chart(fig, width="stretch")
    return fig


st.subheader("Scores")
st.caption("Metric scores are corpus scores (summed sufficient statistics, sacreBLEU scale for BLEU/chrF/TER; "
           "TER, WER and PER: lower is better). Human scores: mean over segments (an alternative view: the verdict "
           "above uses the recipe's macro-average over domains). "
           f"Marks: paired {test} test against **{md(baseline)}** at p < 0.05 (▲ better, ▼ worse, ≈ not significant).")
caption_slot = st.empty()
table_slot = st.empty()
table_dl = st.container()
st.subheader("Bar chart")
fig_slot = st.empty()
fig_dl = st.container()
done = computed_keys()
# a result some session of this server has finished is drawn once; otherwise the human scores are
# drawn first (nothing to score), before the metric modules are even imported
guess = st.session_state.get("sys_metrics")
if guess is None and any(k[0] == "systems" and (k[1].dataset, k[1].tokenize) == (h, tok) for k in done):
    guess = systems_view.first_metrics(ds)[0]  # the metric modules are imported already on this server
progressive = guess is None or ("systems", query_of(guess)) not in done
stored_for = None  # the metrics whose full table an earlier process left in the disk cache (a save precomputes it)
if progressive and ds.systems and ds.ref_ids:  # then the first figure is the final one, drawn from it
    wanted = guess if guess is not None else systems_view.first_metrics(ds)[0]
    full = dataclasses.replace(query_of(wanted), baseline=None if baseline == "(none)" else baseline)
    if systems_view.stored_systems_table(ds, full) is not None:
        progressive, stored_for = False, tuple(wanted)
parts = []
if progressive and criteria:
    try:
        parts = [point_table((), criteria)]
        show_scores(parts[0], False)
    except Exception as exc:
        show_exception(exc, "Could not compute the human scores")
        st.stop()

all_metrics = common_view.available_metrics(ds) if ds.systems and ds.ref_ids else []
first, later = systems_view.first_metrics(ds)  # (imports every metric module: after the first figure)
metrics = metrics_box.multiselect("Metrics", all_metrics, default=first, key="sys_metrics")


def _add_later() -> None:
    st.session_state["sys_metrics"] = list(dict.fromkeys(list(st.session_state.get("sys_metrics") or []) + later))


with notes_box:
    if later and not set(later) <= set(metrics):
        n1, n2 = st.columns([4, 1])
        n1.info(f"At this size ({len(ds.outputs):,} system outputs) the page starts with "
                f"{', '.join(m.upper() if m != 'chrf' else 'chrF' for m in first)} (sacreBLEU's metrics, Post 2018). "
                f"The other metrics of Amigó et al. 2006 ({md(', '.join(later))}) take about half as long "
                "again to score the first time (then their scores are cached for every page): add them here or under "
                "*Metrics*.")
        n2.button("Add the other metrics", key="sys_add_later", on_click=_add_later)
    syntax_note(ds)
    long_segment_note(ds, metrics)
if not metrics and not criteria:
    st.info("Choose at least one metric or criterion.")
    st.stop()
sig = common_view.signature_text(metrics, f"CI: {n_boot} bootstrap resamples of segments; test: {test}; "
                                          f"settings: {page_settings.describe(ds, judged_only or None)}",
                                 dataset=ds, level="system", tokenize=tok)
base_name = None if baseline == "(none)" else baseline
query = dataclasses.replace(query_of(metrics), signature=sig)
try:
    if ("systems", query_of(metrics)) not in done and tuple(metrics) != stored_for and (int(n_boot) or base_name):
        # first the scores alone, metric by metric (each one cached), then the bootstrap
        # CIs and the paired tests under a progress bar
        bar, cb = progress_bar("Corpus scores…")
        if criteria and not parts:
            parts = [point_table((), criteria)]
            show_scores(parts[0], False)
        for i, m in enumerate(metrics):
            what = f"Corpus scores: {m} ({i + 1} of {len(metrics)})"
            cb(i / max(len(metrics), 1), what)
            parts.append(point_table((m,), (), progress=lambda f, t, i=i, what=what: cb((i + f) / len(metrics),
                                                                                        f"{what}: {t}")))
            show_scores(pd.concat(parts, ignore_index=True), False)
        bar.empty()
    bar, cb = progress_bar(f"Bootstrap CIs ({int(n_boot)} resamples) and paired tests against the baseline…")
    table = cached(systems_view.systems_table, dataclasses.replace(query_of(metrics), baseline=base_name), ds, progress=cb)
    bar.empty()
    done.add(("systems", query_of(metrics)))
except Exception as exc:
    show_exception(exc, "Could not score the systems")
    st.stop()

fig = show_scores(table, True)
with caption_slot.container():
    segments_caption(table, ds.n_segments, judged_only)
    if metrics:  # a metric that cannot run here is left out of the table, never failing it: say which and why
        left_note = cached(systems_view.systems_left_out, query_of(metrics), ds)
        if left_note:
            st.warning(md(left_note[0].upper() + left_note[1:] + "."))
    if judged_only and metrics:  # candidates nobody judged have no judged segments: say who is not shown
        shown = set(table.loc[table["kind"] == "metric", "system"])
        wanted = ds.systems + ([r for r in ds.ref_ids if r not in (ref_ids or ())] if include_refs else [])
        unjudged = [s for s in wanted if s not in shown]
        if unjudged:
            st.caption(f"Not judged for {md(judged_only)}, so without metric scores under *judged segments only* "
                       f"(switch it off to score them on every segment): {md(', '.join(unjudged))}.")
with table_dl:
    download_table(table, f"{ds.name}_systems", key="sys_table", signature=sig)
with fig_dl:
    download_figure(fig, f"{ds.name}_system_bars", key="sys_bars_fig")
if ds_criteria:  # which system is best: the recipe's answer, above everything (methods §21)
    from pages.sections import verdict as verdict_section

    verdict_section.best_system(ds, page_settings, criteria[0] if criteria else common_view.default_criterion(ds),
                                verdict_slot)

st.subheader("Rank agreement")
ranks = cached(systems_view.systems_ranks, query, table, shared=True)
left, right = st.columns([3, 2])
with left:
    RANK_STATS = list(stat_names("system", p_value=True, aliases=False))  # the classic correlations
    method = st.selectbox("Agreement between rankings", RANK_STATS, index=RANK_STATS.index("kendall"),
                          key="sys_rank_method", format_func=stat_label)
    agree = cached(systems_view.systems_agreement, dataclasses.replace(query, rank_method=method), table, shared=True)
    off_diag = agree.to_numpy(float)[~np.eye(len(agree), dtype=bool)] if len(agree) > 1 else np.array([])
    if off_diag.size and np.isfinite(off_diag).any():
        hfig = cached(systems_view.systems_agreement_figure, dataclasses.replace(query, rank_method=method), agree, shared=True)
        st.plotly_chart(hfig, width="stretch", key="sys_rank_heat")
        download_figure(hfig, f"{ds.name}_rank_agreement", key="sys_rank_fig")
        if np.isnan(off_diag).any():
            st.caption("Empty cells: fewer than 3 systems scored by both measures, or a measure that gives every "
                       "system the same score (no agreement can be computed).")
    else:  # no figure drawn from nothing
        st.info("No agreement between rankings to draw: it needs two measures that both score at least 3 systems "
                "and do not give every system the same score.")
    download_table(agree.reset_index().rename(columns={"index": "measure"}), f"{ds.name}_rank_agreement",
                   key="sys_rank_tab", signature=sig)
with right:
    st.markdown("**Rank of every system** (1 = best)")
    st.dataframe(ranks, hide_index=True, width="stretch")
    download_table(ranks, f"{ds.name}_ranks", key="sys_ranks", signature=sig)

st.subheader("Metrics vs humans")
if not ds_criteria:
    st.info("No human judgements in this dataset: nothing to agree with.")
elif not metrics:
    st.info("Choose at least one metric above.")
else:
    v1, v2 = st.columns([2, 2])
    vs_crit = v1.selectbox("Human criterion", ds_criteria, key="sys_vs_crit",
                           index=ds_criteria.index(criteria[0] if criteria else common_view.default_criterion(ds)))
    vs_test = v2.selectbox("Test between two metrics (Pearson)", ["williams", "perm"], key="sys_vs_test",
                           format_func={"williams": "Williams test", "perm": "permutation (PERM-BOTH)"}.get)
    vs_settings = page_settings.with_(judged_only=bool(judged_only))
    try:
        with st.spinner("Correlations with the humans and their bootstrap CIs…"):
            vs = cached(systems_view.metrics_vs_humans, systems_view.MetricsVsHumansQuery(h, vs_settings, tuple(metrics), vs_crit,
                                                                     int(n_boot), vs_test, norm), ds)
    except Exception as exc:
        show_exception(exc, "Could not correlate the metrics with the humans")
        vs = None
    if vs is not None:
        st.caption(f"System-level agreement of each metric with **{md(vs_crit)}** over {len(vs['systems'])} "
                   f"systems; CI: {int(n_boot)} bootstrap resamples of the systems (percentile, seed 0; Deutsch et "
                   f"al. 2021). Settings: {md(vs['settings'])}.")
        for n in vs["notes"]:
            (st.warning if ("undefined" in n or "degenerate" in n or "needs" in n) else st.caption)(md(n))
        vt = vs["table"]
        best = system_level.best_metrics(vt)
        if best:
            st.markdown("**Agrees best:** " + "; ".join(md(b) for b in best))
        st.dataframe(vt.drop(columns=["method"]), hide_index=True, width="stretch",
                     column_config={c: st.column_config.NumberColumn(format="%.4f")
                                    for c in ("value", "ci_low", "ci_high")})
        vs_sig = common_view.signature_text(metrics, f"CI: {int(n_boot)} bootstrap resamples of systems, seed 0; "
                                            f"settings: {vs['settings']}", dataset=ds, level="system",
                                            tokenize=tok)
        download_table(vt, f"{ds.name}_metrics_vs_humans", key="sys_vs_tab", signature=vs_sig)
        if len(vs["tests"]):
            st.markdown("**Is the difference between two metrics significant?** One-sided p-value that "
                        "*metric_a* agrees better than *metric_b* (Williams 1959 on Pearson r; PERM-BOTH, "
                        "Deutsch et al. 2021, on the others). Rank: clusters of significance at p ≤ 0.05.")
            st.dataframe(vs["tests"], hide_index=True, width="stretch",
                         column_config={c: st.column_config.NumberColumn(format="%.4f")
                                        for c in ("value_a", "value_b", "p_value")})
            download_table(vs["tests"], f"{ds.name}_metric_tests", key="sys_vs_tests", signature=vs_sig)
            st.dataframe(vs["ranks"], hide_index=True, width="stretch")
        st.caption("The same numbers and tests on the command line (`--method kendall` or `acc23` with "
                   "`--compare perm` for the other statistics):")
        st.code(vs["commands"]["pearson"], language="bash")  # literal text: names from the data stay inert

st.subheader("Consensus rankings (Schulze)")
cc1, cc2 = st.columns(2)
with cc1:
    st.markdown("**Of all chosen metrics** (each metric's ranking is one ballot)")
    cons = cached(systems_view.systems_schulze, query, table, shared=True)
    st.dataframe(cons, hide_index=True, width="stretch")
    download_table(cons, f"{ds.name}_schulze_metrics", key="sys_sch_m", signature=sig)
with cc2:
    if ds_criteria:
        crit = st.selectbox("Of all judges of", ds_criteria, key="sys_sch_crit",
                            index=ds_criteria.index(common_view.default_criterion(ds)))
        try:
            jc, support = cached(judges_view.consensus, judges_view.CriterionQuery(h, query_settings(), crit), ds)
            st.caption("Every (rater, segment) is a partial ballot ranking the systems it scored "
                       f"(Callison-Burch 2009; Schulze 2011): {support.summary()}.")
            if support.few:
                st.warning(support.warning())
            st.dataframe(jc, hide_index=True, width="stretch", column_config=AGGREGATION_COLUMNS)
            st.caption(AGGREGATION_CAPTION)
            from evalcore.stats.tables import human_systems

            ballot_humans = human_systems(ds, [str(x) for x in jc["system"]]) if "system" in jc else []
            if ballot_humans:  # true beside the settings line, which leaves them out of the correlations
                st.caption(f"The judges' ballots rank the human translations they judged too: "
                           f"{md(', '.join(ballot_humans))} (an alternative to the verdict above, which leaves "
                           "them out and weighs score differences, not wins).")
            download_table(jc, f"{ds.name}_schulze_judges_{crit}", key="sys_sch_j", signature=support.summary())
        except Exception as exc:
            show_exception(exc, "Could not rank by the judges")
    else:
        st.info("No human judgements in this dataset.")

if ds_criteria:
    with st.expander("System ranking with significance clusters (WMT24 procedure)"):
        from pages.common import ranking_section  # noqa: E402

        rk_crit = st.selectbox("Human criterion", ds_criteria, key="sysrk_crit",
                               index=ds_criteria.index(common_view.default_criterion(ds)))
        ranking_section(ds, rk_crit, "sysrk", ds.name)
        from pages.sections.stability import render as stability_section  # noqa: E402
        stability_section(ds, mode="human", key="sysrk", name=ds.name, criterion=rk_crit)

with st.expander("Metric signatures"):
    st.dataframe(common_view.signature_frame(metrics, ds, "system", tok), hide_index=True, width="stretch")

from pages.sections import share  # noqa: E402

share.render(ds, page_settings, criteria[0] if criteria else common_view.default_criterion(ds), metrics, "sys_share")

from pages.sections import calibration  # noqa: E402

calibration.render(ds, page_settings, criteria[0] if criteria else common_view.default_criterion(ds), metrics, "sys_cal")
from pages.sections import plan as plan_section  # noqa: E402

plan_section.render(ds, page_settings, criteria[0] if criteria else common_view.default_criterion(ds))
