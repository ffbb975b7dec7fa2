"""Learn: a guided tour of the seeds' lessons, every number computed live from the bundled sample."""
from __future__ import annotations


import streamlit as st

from evalcore.scoring import defaults as common_view
from evalcore.views import learn as learn_view
from evalcore.present import highlight as H
from evalcore.present import plots as P
from pages.common import query_settings  # noqa: E402
from pages.common import SAMPLE_KEY, download_figure, download_table, ensure_shell, load_choice, md, progress_bar, show_exception
from pages.common import cached, tokenizer_of  # noqa: E402

ensure_shell(__file__)
from pages.common import settings_caption, settings_of_page  # noqa: E402  (the one settings line)
st.title("Learn (guided tour)")
from pages.common import terms  # noqa: E402

terms('human-likeness', 'human acceptability', 'ORANGE', 'KING', 'QUEEN')
st.page_link("pages/playground.py", label="Break a metric yourself: the metric playground and its challenges",
             icon="🧪")
from pages.sections.detective_link import render as detective_link  # noqa: E402

detective_link()
st.page_link("pages/annotate.py", label="Be a human judge: annotate outputs (DA or ESA) with your class", icon="✍️")
st.page_link("pages/classroom.py", label="Compare the class's judgements with the experts' and the metrics",
             icon="🧑‍🏫")


def span_stop() -> None:
    """Stop 6: BLEU against a rater's error spans, on the chosen dataset when it has spans
    (the bundled sample has none); the two examples are chosen by evalcore.views.learn.span_lesson."""
    from evalcore.views import spans as spans_view

    st.header("6 · Where the errors are: BLEU against a rater's error spans")
    cur = st.session_state.get("dataset")
    if cur is None or not spans_view.has_spans(cur):
        st.info("This stop needs a dataset with human error spans (ESA's esa_spans_json column, or MQM error "
                "rows), e.g. WMT24 ESA or WMT21 TED MQM: choose one in the sidebar. The bundled sample has none.")
        return
    try:
        L6 = cached(learn_view.learn_span_lesson, learn_view.LearnQuery(cur.content_hash(), query_settings(tokenizer_of(cur))), cur)
    except Exception as exc:
        show_exception(exc, "Could not choose the examples")
        return
    st.markdown("ESA and MQM raters mark *where* an output is wrong. BLEU only counts n-grams shared with the "
                "reference, so it can be high on an output with a serious error and low on one nobody faulted. "
                "Two outputs of this dataset, chosen now from its scores and spans:")
    for key, head in (("high_bleu_major", "BLEU is high but a rater marked a major error"),
                      ("low_bleu_clean", "BLEU is low but nothing was marked")):
        e = L6.get(key)
        st.markdown(f"**{head}**")
        if e is None:
            st.caption("No such output in this dataset.")
            continue
        st.markdown(f"**{md(e['system'])}, segment {md(e['seg_id'])}** — sentence BLEU {e['bleu']:.1f}; "
                    f"annotated by {md(e['rater'])}.")
        st.markdown(H.box("Output: the rater's error spans, then BLEU's unmatched tokens",
                          H.span_layers_html(e["layers"]["text"], spans_view.layers_for_html(e["layers"]))),
                    unsafe_allow_html=True)
    st.caption("Span precision and recall of BLEU, chrF and TER against the raters, with the inter-rater ceiling: "
               "the Divergence browser's detail view and the `evalcore spans` command (methods §5.13).")
    st.page_link("pages/divergence.py", label="Browse outputs with their error spans", icon="🔎")


try:
    sample = next(iter(load_choice(SAMPLE_KEY, {"name": None}).values()))
except Exception as exc:
    show_exception(exc, "Could not load the bundled sample")
    st.stop()
current = st.session_state.get("dataset")
on_sample = current is not None and current.content_hash() == sample.content_hash()
if not on_sample:
    st.warning("The tour uses the bundled sample corpus. Choose “sample: teaching es-en” in the sidebar so the "
               "linked pages show the same data.")
ds = sample
tok = tokenizer_of(ds)  # the sample's tokenizer (es-en: 13a), whatever the sidebar dataset
h = ds.content_hash()
settings_caption(settings_of_page(ds), ds)
st.markdown(f"The sample: {ds.n_segments} Spanish sentences, **{len(ds.ref_ids)} independent human translations** "
            f"each, **{len(ds.systems)} hand-written 'systems'** that each show one behaviour, and judgements of "
            f"adequacy and fluency by {len(ds.raters)} raters. Every number below is computed now from that data.")
STOPS = {1: "BLEU and paraphrases", 2: "Systems are centroids", 3: "Human-like ≠ acceptable",
         4: "Why several judges", 5: "Two systems, two verdicts", 6: "Where the errors are"}
PART_OF = {1: "paraphrase", 2: "orange", 3: "quadrant", 4: "raters", 5: None, 6: None}
stop = st.radio("Stop of the tour", list(STOPS), format_func=lambda i: f"{i} · {STOPS[i]}", horizontal=True,
                key="learn_stop")
st.caption("Each stop computes its numbers when you open it (once; then they are kept).")
try:
    bar, cb = progress_bar("Computing this stop's lesson…")
    L = cached(learn_view.learn_lessons, learn_view.LearnQuery(h, query_settings(tok), (PART_OF[stop],) if PART_OF[stop] else ()), ds, progress=cb)
    bar.empty()
except Exception as exc:
    show_exception(exc, "Could not compute the lessons")
    st.stop()
crit = L["criterion"]

# ---------------------------------------------------------------- 1
if stop == 1:
    st.header("1 · BLEU punishes acceptable paraphrases and misses meaning errors")
    t = L.get("paraphrase")
    if t is not None and len(t):
        worst = t.loc[t["rank_gap"].idxmax()]
        flatter = t.loc[t["rank_gap"].idxmin()]
        st.markdown(
            f"Humans rank **{md(worst['system'])}** #{int(worst['human_rank'])} of {len(t)} on {crit} "
            f"(mean {worst['human']:.2f}), but sentence BLEU ranks it #{int(worst['bleu_rank'])} "
            f"(mean {worst['bleu']:.1f}): its words are acceptable but absent from the references. "
            f"The other way round, **{md(flatter['system'])}** is #{int(flatter['bleu_rank'])} for BLEU and only "
            f"#{int(flatter['human_rank'])} for humans: n-gram overlap does not see the meaning error "
            "(Ananthakrishnan et al. 2007: BLEU failures on paraphrases and on meaning-changing edits).")
        st.dataframe(t, hide_index=True, width="stretch",
                     column_config={"bleu": st.column_config.NumberColumn("mean sentence BLEU", format="%.1f"),
                                    "human": st.column_config.NumberColumn(f"mean {crit}", format="%.2f")})
        download_table(t, "learn_bleu_vs_humans", key="learn_t1", signature=common_view.signature_text(["bleu"], tokenize=tok))
        try:
            ex = cached(learn_view.learn_paraphrase_example, learn_view.LearnQuery(h, query_settings(tok), system=worst["system"], criterion=crit), ds)
        except Exception as exc:
            ex = None
            show_exception(exc, "Could not build the example")
        if ex is not None:
            st.markdown("**The clearest case**: the output BLEU likes least relative to the humans.")
            st.markdown(H.plain_box(f"Output of {ex['system']} (segment {ex['seg_id']})", ex["output"]),
                        unsafe_allow_html=True)
            c1, c2 = st.columns(2)
            with c1:
                for ref in ex["references"][:3]:
                    st.markdown(H.reference_pair_html(ref["ref_id"], ref["tokens"], ref["ref_spans"], ex["cand_tokens"],
                                                      ref["cand_spans"]), unsafe_allow_html=True)
            with c2:
                st.dataframe(ex["orders"], hide_index=True, width="stretch")
                st.caption(f"Average n-gram precision P = {ex['summary']['average_precision']:.3f} (Ananthakrishnan et al. 2007 §5.8); "
                           f"sentence BLEU {ex['summary']['sentence_bleu']:.1f}. Human judgements: "
                           + ", ".join(f"{md(r.rater)} {r.score:g}" for r in ex["judgements"].itertuples()
                                       if r.judgement == crit))
    st.page_link("pages/divergence.py", label="Find more such cases in the divergence browser", icon="🔎")
    st.page_link("pages/systems.py", label="Compare all metrics and humans on the Systems page", icon="📊")

# ---------------------------------------------------------------- 2
elif stop == 2:
    st.header("2 · Systems are centroids: ORANGE < 0.5")
    f1 = L.get("orange")
    if f1 is not None and len(f1):
        below = f1[f1["orange"] < 0.5]
        st.markdown(
            f"Hold out one human translation, score it and every system output against the other "
            f"{len(ds.ref_ids) - 1}. For **{len(below)} of {len(f1)} metrics** the held-out human translation beats a "
            f"system output **less than half** the time (ORANGE {f1['orange'].min():.2f}–{f1['orange'].max():.2f}; "
            "a random metric gets 0.5). Outputs share words with *most* references; human translations differ from "
            f"each other more. KING (the human beats *every* output) is {f1['king'].min():.2f}–{f1['king'].max():.2f}, "
            f"close to the random {f1['king_random'].mean():.2f} (Amigó et al. 2006 §2.3).")
        fig = P.figure1(f1)
        st.plotly_chart(fig, width="stretch", key="learn_fig1")
        download_figure(P.with_signature(fig, common_view.signature_text(L["metrics"], tokenize=tok)), "learn_figure1", key="learn_fig1_dl")
    st.page_link("pages/human_likeness.py", label="Explore ORANGE, KING and the failed cases", icon="👑")

# ---------------------------------------------------------------- 3
elif stop == 3:
    st.header("3 · Human-like is not the same as human-acceptable")
    q = L.get("quadrant")
    if q:
        pts, quad = q["points"], q["table"]
        by = q["by_system"]
        top = by.iloc[0] if len(by) else None
        st.markdown(
            f"QUEEN{{{', '.join(L['queen_set'])}}} measures how human-like each output is. Of {len(pts)} judged outputs, "
            f"**{len(quad)}** are as acceptable as most human translations ({crit} ≥ {q['human_threshold']:.2f}) yet "
            f"have QUEEN ≤ {q['queen_threshold']:.2f}"
            + (f"; **{int(top['n'])}** of them come from **{md(top['system'])}**." if top is not None else ".")
            + " High QUEEN goes with high human scores, but not the reverse (Amigó et al. 2006 Figure 4).")
        fig = P.figure4(pts, q["human_threshold"], q["queen_threshold"], crit, "QUEEN{" + ",".join(L["queen_set"]) + "}")
        st.plotly_chart(fig, width="stretch", key="learn_fig4")
        download_figure(P.with_signature(fig, common_view.signature_text(L["queen_set"], tokenize=tok)), "learn_figure4", key="learn_fig4_dl")
    st.page_link("pages/queen_vs_human.py", label="Select points in Figure 4 and open them", icon="👸")
    st.page_link("pages/likeness_vs_acceptability.py", label="KING vs correlation for every metric (Figure 3)", icon="🎯")

# ---------------------------------------------------------------- 4
elif stop == 4:
    st.header("4 · Why several judges, and why normalise")
    r = L.get("raters")
    if r is not None and len(r):
        lo, hi = r.loc[r["mean"].idxmin()], r.loc[r["mean"].idxmax()]
        agree = L.get("agreement")
        st.markdown(
            f"The same outputs, different raters: **{md(hi['rater'])}** gives {hi['mean']:.2f} on average, "
            f"**{md(lo['rater'])}** {lo['mean']:.2f} (sd {hi['std']:.2f} vs {lo['std']:.2f}). Averaging raw scores "
            "mixes strictness with quality; per-rater z-scores or percentiles remove it (Callison-Burch 2009, methods §5.1-5.2)."
            + (f" On pairwise comparisons the raters agree {agree['p_agree']:.0%} of the time (κ = {agree['kappa']:.2f}): "
               "one judge alone is a noisy instrument." if agree else ""))
        st.dataframe(r, hide_index=True, width="stretch")
    st.page_link("pages/judges.py", label="See distributions, agreement and kappa", icon="⚖️")

# ---------------------------------------------------------------- 5
elif stop == 5:
    st.header("5 · Two systems, two verdicts: compare them side by side")

    pair = ("synonyms", "literal")
    if crit and all(s in ds.systems for s in pair):
        try:
            head, tags = cached(learn_view.learn_two_verdicts, learn_view.LearnQuery(h, query_settings(), system=pair[0], other=pair[1],
                                                                   criterion=crit), ds)
        except Exception as exc:
            head = None
            show_exception(exc, "Could not compare the two systems")
        if head is not None:
            hv = head.set_index("signal")
            bl, hu = hv.loc["metric:bleu"], hv.loc[f"human:{crit}"]
            st.markdown(
                f"Put **{pair[0]}** (A) beside **{pair[1]}** (B). Corpus BLEU: {bl['score_a']:.1f} vs {bl['score_b']:.1f} "
                f"(paired bootstrap p = {bl['p_bootstrap']:.3f}: **{md(bl['winner'])}** wins). Mean {md(crit)}: "
                f"{hu['score_a']:.2f} vs {hu['score_b']:.2f} (p = {hu['p_bootstrap']:.3f}: **{md(hu['winner'])}** wins). "
                "Both verdicts are significant and opposite: the paraphrases use words no reference has (Amigó et al. "
                "2006; Ananthakrishnan et al. 2007). The Compare page shows where: the segments where BLEU and the humans "
                "disagree, every reference with the matched n-grams, and the phenomenon buckets.")
            st.dataframe(head, hide_index=True, width="stretch")
            download_table(head, "learn_compare_headline", key="learn_t5", signature=common_view.signature_text(["bleu", "chrf"], tokenize=tok))
            if st.button(f"Open the Compare page with {pair[0]} vs {pair[1]}", key="learn_open_compare"):
                st.session_state["cmp_a"], st.session_state["cmp_b"] = pair
                st.switch_page("pages/compare.py")
    st.page_link("pages/compare.py", label="Compare any two systems", icon="🆚")

# ---------------------------------------------------------------- 6
elif stop == 6:
    span_stop()



def _next_stop() -> None:
    st.session_state["learn_stop"] = stop + 1


if stop < len(STOPS):
    st.button(f"Next stop: {stop + 1} · {STOPS[stop + 1]} →", on_click=_next_stop, key="learn_next")
