"""Campaign: every language pair of the dataset side by side — systems × language pairs, the
metrics' system-level correlations per pair and averaged (WMT metrics-task tables; Kocmi et al.
2021), and each metric's rank across pairs. The maths is in evalcore.analysis.campaign."""
from __future__ import annotations

import streamlit as st

from evalcore.scoring import defaults as common_view
import dataclasses
from evalcore.views import campaign as campaign_view, queries as queries_view
from evalcore.analysis import system_level
from evalcore.analysis.campaign import ALL, STATISTICS, WILLIAMS_STATISTICS
from evalcore.scoring.settings import DEFAULTS
from evalcore.stats.registry import label as stat_label
from pages.common import (cached, computed_keys, download_figure, download_table, ensure_shell, long_segment_note, md, progress_bar, show_exception)

ensure_shell(__file__)
from pages.common import settings_caption  # noqa: E402  (the one settings line)
st.title("Campaign")
from pages.common import terms  # noqa: E402

terms('system level', 'Pearson', 'Kendall τ', 'pairwise accuracy', 'human translations as systems',
      'judged segments only', 'tokenizer', 'stored metric scores', 'significance clusters')
from pages.common import current_collection  # noqa: E402

coll = current_collection()

from evalcore.human.scores import human_criteria  # noqa: E402

criteria_of = {lp: human_criteria(d) for lp, d in coll.items()}  # judged per segment or given per system
judged_lps = [lp for lp in coll if criteria_of[lp]]
if not judged_lps:
    st.info("This page needs human judgements in at least one language pair.")
    st.stop()
st.caption(f"{len(coll)} language pair(s) in this dataset; {len(judged_lps)} with human judgements. "
           "System-level meta-evaluation as in the WMT metrics tasks: Pearson r and Kendall τ_b per language "
           "pair and their average, and the pairwise accuracy of Kocmi et al. (2021) over all pairs of systems "
           "of all language pairs.")

c1, c2, c3 = st.columns([3, 3, 2])
metrics_box = c1.empty()  # the metric list imports every metric module: filled after the human scores are shown
lps = c2.multiselect("Language pairs", judged_lps, default=judged_lps, key="camp_lps",
                     format_func=lambda x: x or "-")
criteria = list(dict.fromkeys(c for lp in lps for c in criteria_of[lp]))
crit = c3.selectbox("Human criterion", ["(default per language pair)"] + criteria, key="camp_crit")
c4, c5, c6 = st.columns(3)
judged_only = c4.checkbox("Judged segments only", value=DEFAULTS.judged_only, key="camp_judged",
                          help="Score the metrics on the segments with a human judgement (what the humans saw): "
                               "the default on every page and command (the CLI's --judged-only). "
                               "Off: on every segment (--all-segments).")
include_human = c5.checkbox("Include human translations", value=False, key="camp_human",
                            help="Human translations judged like systems (e.g. WMT's refA) are left out of the "
                                 "correlations by default.")
rank_by = c6.selectbox("Rank metrics by", list(STATISTICS), key="camp_rank", format_func=stat_label)

if not lps:
    st.info("Choose at least one language pair.")
    st.stop()
camp_settings = DEFAULTS.with_(judged_only=judged_only, human_systems="include" if include_human else "exclude")
settings_caption(camp_settings)  # tokenizer: sacreBLEU's default for each pair's target language


st.subheader("Systems × language pairs")
sys_caption = st.empty()
sys_slot = st.empty()
sys_dl = st.container()
human_fig_slot = st.empty()
human_fig_dl = st.container()
crit_v = None if crit.startswith("(") else crit
base = campaign_view.CampaignQuery(queries_view.collection_key(coll, lps), camp_settings, (), tuple(lps), crit_v, rank_by)
done = computed_keys()
guess = st.session_state.get("camp_metrics", list(campaign_view.PAGE_METRICS))  # a new session: the default metrics


def ready(query) -> bool:
    """Whether the tables of ``query`` are at hand: computed by some session of this server, or
    kept on disk by an earlier process (a save precomputes a first visit's)."""
    return ("campaign", query) in done or campaign_view.is_stored(query)


guess_ready = ready(dataclasses.replace(base, metrics=tuple(guess)))
try:  # the human scores first: nothing to score, drawn before any metric module is imported
    first = cached(campaign_view.campaign_result, base, coll)
except Exception as exc:
    show_exception(exc, "Could not compute the human scores")
    st.stop()
if not guess_ready:
    sys_caption.caption("Human scores of every system (mean over the judged segments) and their rank within the "
                        "language pair; the metric columns are being computed and fill in one metric at a time.")
    sys_slot.dataframe(first.wide(), hide_index=True, width="stretch")
hfig = cached(campaign_view.campaign_human_figure, base, first, shared=True)
human_fig_slot.plotly_chart(hfig, width="stretch", key="camp_human_bars")
with human_fig_dl:
    download_figure(hfig, "campaign_human_scores", key="camp_human_fig")

fast = [m for m in campaign_view.PAGE_METRICS if m in common_view.available_metrics()]
metrics = metrics_box.multiselect("Metrics", common_view.available_metrics(collection=coll), default=fast, key="camp_metrics",
                                  help="Corpus scores over each language pair's segments. The slower metrics "
                                       "(METEOR, GTM, TER on long segments) take minutes on a whole campaign.")
if not metrics:
    st.info("Choose at least one metric.")
    st.stop()
query = dataclasses.replace(base, metrics=tuple(metrics))
key = ("campaign", query)
try:
    if not (guess_ready if list(metrics) == list(guess) else ready(query)):
        # one (metric, language pair) at a time into the shared statistics cache; each metric's
        # column appears in the table above as soon as every pair has it
        plan = campaign_view.lp_plan(coll, lps, crit_v)
        todo = [(i, m, lp, c, tok) for i, m in enumerate(metrics) for lp, c, tok in plan]
        bar, cb = progress_bar("Scoring every language pair…")
        for k, (i, m, lp, c, tok) in enumerate(todo):
            text = md(f"Scoring {m} on {lp or '-'} ({k + 1} of {len(todo)}; tokenizer {tok})")  # user text
            lo, hi = k / len(todo), (k + 1) / len(todo)
            system_level.cached_scores(coll[lp], [m], tokenize=tok, include_references=include_human,
                                       criterion=c if judged_only else None,
                                       progress=lambda f, _t, lo=lo, hi=hi, text=text: cb(lo + (hi - lo) * f, text))
            if k + 1 == len(todo) or todo[k + 1][0] != i:  # metric m is scored on every pair: show its column
                part = cached(campaign_view.campaign_result, dataclasses.replace(base, metrics=tuple(metrics[:i + 1])), coll)
                sys_slot.dataframe(part.wide(), hide_index=True, width="stretch")
        bar.empty()
    res = cached(campaign_view.campaign_result, query, coll)
    done.add(key)
except Exception as exc:
    show_exception(exc, "Could not compute the campaign tables")
    st.stop()

sig = f"{res.signature} | settings: {camp_settings.describe()}"
sys_caption.caption("Human score: mean over the judged segments; metric scores: corpus scores; rank within the "
                    "language pair (1 = best; TER, WER, PER: lower is better).")
wide = res.wide()
sys_slot.dataframe(wide, hide_index=True, width="stretch")
with sys_dl:
    download_table(wide, "campaign_systems", key="camp_sys", signature=sig)
with st.expander(f"What was computed ({len(res.notes)} note(s))", expanded=False):
    st.markdown("\n".join(f"- {md(n)}" for n in res.notes))
from evalcore.metrics.tokenize import default_tokenizer  # noqa: E402

for lp in lps:  # alignment metrics refuse over-long segments (in the pair's own tokenizer): say which
    long_segment_note(coll[lp], metrics, default_tokenizer(lp))

st.subheader("Metric correlations per language pair")
st.caption(f"Rows `{ALL}`: Pearson and Kendall averaged over the language pairs; accuracy over the pooled pairs of "
           "systems (Kocmi et al. 2021). Metric scores are oriented so that higher is better (TER, WER, PER negated).")
corr = res.correlations
for note in campaign_view.undefined_notes(res):  # an empty or ±1 value is explained beside the table
    st.warning(md(note))
camp_verdict = cached(campaign_view.campaign_verdict, query, res)
if camp_verdict is not None:  # which metric is best over the pairs: the primary answer first (methods §21)
    from pages.sections import verdict as verdict_section

    verdict_section.show(camp_verdict, "Best metric:")
st.dataframe(corr, hide_index=True, width="stretch",
             column_config={c: st.column_config.NumberColumn(format="%.3f") for c in STATISTICS})
download_table(corr, "campaign_correlations", key="camp_corr", signature=sig)
stat = st.radio("Figure", list(STATISTICS), horizontal=True, key="camp_stat", format_func=stat_label)
fig = cached(campaign_view.campaign_correlation_figure, dataclasses.replace(query, statistic=stat, signature=sig), res, shared=True)
st.plotly_chart(fig, width="stretch", key="camp_bars")
download_figure(fig, "campaign_correlations", key="camp_bars_fig")

st.subheader("Metric significance clusters")
st.caption("Per language pair, metrics compared pairwise on the same systems (mt-metrics-eval's CompareMetrics): "
           "PERM-BOTH (1,000 permutations, the same for every pair) or Williams' test (Pearson). Rank = cluster: "
           "metrics in one cluster are not significantly different (p > 0.05).")
s1, s2, s3 = st.columns(3)
sig_lp = s1.selectbox("Language pair", [lp for lp in lps if (corr["lp"] == lp).any()], key="camp_sig_lp",
                      format_func=lambda x: x or "-")
sig_test = s2.radio("Test", ["perm", "williams"], horizontal=True, key="camp_sig_test",
                    format_func={"perm": "permutation (PERM-BOTH)", "williams": "Williams"}.get)
sig_stat = s3.selectbox("Statistic", list(WILLIAMS_STATISTICS if sig_test == "williams" else STATISTICS),
                        key="camp_sig_stat", format_func=stat_label)


if len(metrics) < 2 or sig_lp is None:
    st.info("Choose at least two metrics to compare them.")
else:
    try:
        with st.spinner("Comparing metrics…"):
            cl, pairs, sig_notes = cached(campaign_view.campaign_clusters, dataclasses.replace(query, cluster_lp=sig_lp, test=sig_test,
                                                                         statistic=sig_stat), res)
        st.dataframe(cl, hide_index=True, width="stretch")
        download_table(cl, f"campaign_clusters_{sig_lp}", key="camp_clusters", signature=sig)
        with st.expander("Pairwise p-values"):
            st.dataframe(pairs, hide_index=True, width="stretch")
            download_table(pairs, f"campaign_metric_pvalues_{sig_lp}", key="camp_pvalues", signature=sig)
        for n in sig_notes:
            st.caption(md(n))
    except ValueError as exc:
        st.info(md(str(exc)))

st.subheader("Each metric's rank across language pairs")
st.caption(f"1 = the highest {rank_by} in that language pair; mean rank over the pairs; rank by the `{ALL}` row.")
st.dataframe(res.metric_ranks, hide_index=True, width="stretch")
download_table(res.metric_ranks, "campaign_metric_ranks", key="camp_ranks", signature=sig)

with st.expander("Metric signatures"):
    st.caption("Each language pair's word-level metrics use sacreBLEU's default tokenizer for its target language "
               "(Post 2018).")
    sigs = cached(campaign_view.campaign_signatures, query, coll)
    st.dataframe(sigs, hide_index=True, width="stretch")
    download_table(sigs, "campaign_signatures", key="camp_sigs")

with st.expander("System ranking with significance clusters (WMT24 procedure)"):
    from pages.common import ranking_section  # noqa: E402

    rk_lp = st.selectbox("Language pair", lps, key="camp_rank_lp", format_func=lambda x: x or "-")
    ranking_section(coll[rk_lp], crit_v or common_view.default_criterion(coll[rk_lp]), "camp", "campaign")

from pages.common import current_dataset, settings_of_page  # noqa: E402
from pages.sections import share  # noqa: E402

_card_ds = current_dataset()  # the card is of one language pair: the sidebar's
share.render(_card_ds, settings_of_page(_card_ds), crit_v, metrics, "camp_share")
