"""Compare two systems: headline with paired significance and who wins, per-segment scatter and
disagreements, the side-by-side view, compare-mt-style buckets, characteristic n-grams and
length bias. Thin: every number comes from evalcore.analysis.compare."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from evalcore.scoring import defaults as common_view
from evalcore.analysis import compare as C
from evalcore.present import highlight as H
import dataclasses
from evalcore.views import compare as compare_view, spans as spans_view
from pages.common import query_settings  # noqa: E402
from pages.common import (
    cached,
    current_dataset,
    download_figure,
    computed_keys,
    download_table,
    ensure_shell,
    md,
    progress_bar,
    settings_caption,
    show_exception,
    syntax_note,
)
from evalcore.scoring.settings import DEFAULTS

ensure_shell(__file__)
st.title("Compare two systems")
from pages.common import terms  # noqa: E402

terms('paired bootstrap / approximate randomisation', 'segment level', 'signature', 'tokenizer')
ds = current_dataset()

PAGE_SIZE = 20
from evalcore.metrics.tokenize import installed_tokenizers  # noqa: E402

# sacreBLEU's tokenizers whose packages are installed, found without importing sacreBLEU (one
# that still fails to load says why when the metrics are scored with it)
TOKENIZERS = installed_tokenizers()


def build(metrics, progress=None):
    """The comparison with ``metrics``: the human comparison first, then one metric at a time
    (each step cached, so the page shows the headline as the metrics arrive; ``progress``
    moves the bar while the last of ``metrics`` scores)."""
    if not metrics:  # the token counts (every text tokenised) wait for the tables that need them
        return cached(compare_view.compare_start, dataclasses.replace(query_of(()), criteria=tuple(criteria)), ds, shared=True)
    prev = build(metrics[:-1])
    return cached(compare_view.compare_add_metric, query_of(metrics), (ds, prev), progress=progress, shared=True)


def table(cmp, q, name, n_boot=0, n_ar=0, test="bootstrap"):
    """One table of the comparison ``q``, computed where the page shows it (headline first)."""
    return cached(compare_view.compare_table, dataclasses.replace(q, table=name, n_boot=n_boot, n_ar=n_ar, test=test), cmp)


if len(ds.systems) < 2:
    st.info("Comparing needs at least two systems with outputs.")
    st.stop()
h = ds.content_hash()
syntax_note(ds)
st.caption("Two systems side by side, in the manner of compare-mt (Neubig et al. 2019) and MT-Telescope "
           "(Rei et al. 2021), with every reference and the human judgements in the same view.")
c1, c2 = st.columns(2)
for k, i in (("cmp_a", 0), ("cmp_b", 1)):  # keep a choice made elsewhere (e.g. the Learn tour) if still valid
    if st.session_state.get(k) not in ds.systems:
        st.session_state[k] = ds.systems[i]
a = c1.selectbox("System A (orange; the baseline of the paired tests)", ds.systems, key="cmp_a")
b = c2.selectbox("System B (blue)", ds.systems, key="cmp_b")
if a == b:
    st.warning("Choose two different systems.")
    st.stop()
tok0, why = C.default_tokenizer(ds.lp)
with st.expander("Signals and tests", expanded=False):
    s1, s2 = st.columns([3, 2])
    metrics_box = s1.empty()  # the metric list imports every metric module: after the human rows are shown
    criteria = s2.multiselect("Human criteria", ds.criteria, default=ds.criteria, key="cmp_criteria")
    s3, s4, s5, s6, s7 = st.columns(5)
    tokenize = s3.selectbox("Tokenizer", TOKENIZERS, index=TOKENIZERS.index(tok0) if tok0 in TOKENIZERS else 0, key="cmp_tok",
                            help="Passed to every metric with a tokenizer option; also used for lengths, "
                                 "n-grams and the word F-measure.")
    norm = s4.selectbox("Human score normalisation", ["raw", "z", "percentile"], key="cmp_norm")
    test = s5.selectbox("Winner decided by", ["bootstrap", "ar"], key="cmp_test",
                        format_func={"bootstrap": "paired bootstrap", "ar": "approximate randomisation"}.get)
    n_boot = int(s6.number_input("Bootstrap resamples", 0, 10000, compare_view.PAGE_N_BOOT, step=100, key="cmp_boot"))
    n_ar = int(s7.number_input("Randomisation trials", 0, 20000, compare_view.PAGE_N_AR, step=500, key="cmp_ar",
                               help="sacreBLEU's default is 10,000; 1,000 keeps the page fast."))
    judged_box = st.checkbox("Judged segments only", value=DEFAULTS.judged_only, key="cmp_judged",
                             disabled=not criteria,
                             help="Only the segments both systems are judged on, so metric and human scores are "
                                  "over the same segments: the default on every page and command wherever human "
                                  "judgements exist (the CLI's --judged-only; off = --all-segments). Where the two "
                                  "systems are not both judged anywhere, every segment is used and a note says so.")
st.caption(f"Tokenizer **{md(tokenize)}**" + (f" (chosen for you: {md(why)})" if tokenize == tok0 else "")
           + f"; paired tests with seed 12345, {n_boot:,} bootstrap resamples and {n_ar:,} randomisation trials "
           "(sacreBLEU's semantics).")

name = f"{ds.name}_{a}_vs_{b}"
HEAD_FORMAT = {c: st.column_config.NumberColumn(format="%.4f") for c in
               ("score_a", "score_b", "difference_b_minus_a", "p_bootstrap", "p_ar")}

# ---------------------------------------------------------------- headline
st.header("Who wins")
verdict_slot = st.container()  # the primary answer first (filled once the headline is computed)
head_caption = st.empty()
head_slot = st.empty()
head_dl = st.container()
win_slot = st.empty()
win_dl = st.container()
done = computed_keys()


def query_of(metrics) -> compare_view.CompareQuery:
    """This run's query (its cache key) with ``metrics``."""
    return compare_view.CompareQuery(h, query_settings(tokenize, judged_only=bool(judged_box)), a, b, tuple(metrics),
                                     tuple(criteria), norm)


# this session's metrics, or in a new session the default ones (the metric list is not built yet):
# when that comparison is already computed (any session), the full headline is drawn straight away.
# Otherwise the page is progressive: the scores first (the human rows, then one metric at a time,
# with the win rates drawn from them), and the paired tests after them, under a progress bar


def point_headline(part, metrics):
    """The headline of ``part`` (the comparison with ``metrics``) without its paired tests."""
    return cached(compare_view.compare_point_headline, dataclasses.replace(query_of(metrics), test=test), part)


def draw_point(part, metrics, figure_key: str):
    """The scores of ``part`` and their win rates, drawn before any paired test."""
    head0 = point_headline(part, metrics)
    head_slot.dataframe(head0, hide_index=True, width="stretch", column_config=HEAD_FORMAT)
    wfig0 = cached(compare_view.compare_point_win_figure, dataclasses.replace(query_of(metrics), test=test),
                   (part, head0), shared=True)
    win_slot.plotly_chart(wfig0, width="stretch", key=figure_key)


def ready(metrics) -> bool:
    """Whether the full headline with ``metrics`` is at hand: computed by some session of this
    server, or kept on disk by an earlier process (a save precomputes a first visit's tables)."""
    return (("compare", query_of(metrics), n_boot, n_ar, test) in done
            or compare_view.is_stored(dataclasses.replace(query_of(metrics), lengths=True, table="headline",
                                                          n_boot=n_boot, n_ar=n_ar, test=test)))


guess = st.session_state.get("cmp_metrics", list(compare_view.PAGE_METRICS) if ds.ref_ids else [])
guess_ready = ready(guess)
if criteria and not guess_ready:
    try:  # the human rows first: nothing to score, the metric modules not even imported yet
        draw_point(build(()), (), "cmp_win_fig_human")
    except Exception as exc:
        show_exception(exc, "Could not compare the systems")
        st.stop()
known = common_view.available_metrics(ds) if ds.ref_ids else []
metrics = metrics_box.multiselect("Metrics", known, default=[m for m in compare_view.PAGE_METRICS if m in known],
                                  key="cmp_metrics")
if not metrics and not criteria:
    st.info("Choose at least one metric or human criterion under *Signals and tests*.")
    st.stop()
key = query_of(metrics)
at_hand = guess_ready if list(metrics) == list(guess) else ready(metrics)
try:
    if not at_hand:
        # the human rows first (no metric to score), then one metric at a time, each cached
        bar, cb = progress_bar("Scoring both systems…")
        for i in range(len(metrics) + 1):  # every metric, the last one included, is scored under the bar
            prog = None
            if i:
                what = (f"Scoring both systems: {metrics[i - 1]} ({i} of {len(metrics)}); the table above grows "
                        "as each metric is scored")
                cb((i - 1) / len(metrics), what)
                prog = (lambda f, t, i=i, what=what: cb((i - 1 + f) / len(metrics), f"{what}: {t}"))
            part = build(tuple(metrics[:i]), progress=prog)
            if part.signals and 0 < i < len(metrics):  # (i = 0: the human rows, shown above; the last: below)
                head_slot.dataframe(point_headline(part, metrics[:i]), hide_index=True, width="stretch",
                                    column_config=HEAD_FORMAT)
        bar.empty()
        if metrics and part.signals:  # every score and its win rates, still before any paired test
            draw_point(part, metrics, "cmp_win_fig_point")
    cmp = cached(compare_view.compare_lengths, key, build(tuple(metrics)), shared=True)
    key = dataclasses.replace(key, lengths=True)  # the tables below are of the comparison with its token counts
    bar = None
    if not at_hand and (n_boot or n_ar):
        bar, _ = progress_bar(f"Paired tests of every signal: {n_boot:,} bootstrap resamples and {n_ar:,} "
                              "randomisation trials…")
    try:
        head = table(cmp, key, "headline", n_boot, n_ar, test)  # (the scores above, now with their tests)
    finally:
        if bar is not None:
            bar.empty()
    done.add(("compare", query_of(metrics), n_boot, n_ar, test))
except Exception as exc:
    show_exception(exc, "Could not compare the systems")
    st.stop()
for note in cmp.notes:
    st.info(md(note))
settings_caption(cmp.settings(), ds, container=head_dl)
sig = cmp.signature(f"paired bootstrap {n_boot}, approximate randomisation {n_ar}, seed 12345; winner by {test}")
head_caption.caption(f"**{len(cmp.segments):,} segments** both systems translated"
                     + (" and are judged on" if cmp.judged_only else "") + ". Metric scores are corpus scores "
                     "over the segments with a reference (TER, WER, PER: lower is better); human scores are means "
                     "over the segments both systems are judged on. Winner: the better system when the paired "
                     "test's p < 0.05.")
head_slot.dataframe(head, hide_index=True, width="stretch", column_config=HEAD_FORMAT)
with head_dl:
    download_table(head, f"{name}_headline", key="cmp_head", signature=sig)
if criteria:  # does B beat A: the recipe's answer, the headline's other winners as alternatives (methods §21)
    from evalcore.views.queries import query_key
    from pages.sections import verdict as verdict_section

    verdict_section.b_beats_a(ds, cmp.settings(), a, b, criteria[0], head,
                              query_key(query_of(metrics)) + f"|{n_boot}|{n_ar}|{test}", verdict_slot)
fkey = dataclasses.replace(key, signature=sig)  # the figures carry the signatures
wfig = cached(compare_view.compare_win_figure, dataclasses.replace(fkey, n_boot=n_boot, n_ar=n_ar, test=test), (cmp, head), shared=True)
win_slot.plotly_chart(wfig, width="stretch", key="cmp_win_fig")
with win_dl:
    download_figure(wfig, f"{name}_win_rates", key="cmp_win_dl")

# ---------------------------------------------------------------- per segment
st.header("Per segment")
seg = table(cmp, key, "segments")
signal = st.selectbox("Signal", cmp.signals, key="cmp_signal")
l, r = st.columns(2)
with l:
    sfig = cached(compare_view.compare_scatter, dataclasses.replace(fkey, signal=signal), seg, shared=True)
    st.plotly_chart(sfig, width="stretch", key="cmp_scatter")
    download_figure(sfig, f"{name}_scatter", key="cmp_scatter_dl")
with r:
    hfig = cached(compare_view.compare_differences, dataclasses.replace(fkey, signal=signal), seg, shared=True)
    st.plotly_chart(hfig, width="stretch", key="cmp_hist")
    download_figure(hfig, f"{name}_differences", key="cmp_hist_dl")
download_table(seg, f"{name}_segments", key="cmp_segs", signature=sig)

pick_seg = None
if cmp.metrics and cmp.criteria:
    st.subheader("Where a metric and the humans disagree")
    d1, d2 = st.columns(2)
    dm = d1.selectbox("Metric", cmp.metrics, key="cmp_dis_metric")
    dc = d2.selectbox("Human criterion", cmp.criteria, key="cmp_dis_crit")
    dres = C.disagreements(cmp, f"metric:{dm}", f"human:{dc}")
    dis = dres.table
    st.caption(f"{len(dis):,} of {dres.n_compared:,} segments with both signals: the metric prefers one "
               "system and the humans the other, ranked by |z(metric difference)| + |z(human difference)|.")
    if len(dis):
        n_pages = max(1, -(-len(dis) // PAGE_SIZE))
        page = st.number_input(f"Page (of {n_pages})", 1, n_pages, 1, key="cmp_dis_page")
        rows = dis.iloc[(page - 1) * PAGE_SIZE: page * PAGE_SIZE]
        st.dataframe(rows, hide_index=True, width="stretch",
                     column_config={"disagreement": st.column_config.NumberColumn(format="%.2f")})
        download_table(dis, f"{name}_disagreements_{dm}_{dc}", key="cmp_dis", signature=sig)
        pick_seg = st.selectbox("Open in the side-by-side view", rows["seg_id"].tolist(), key="cmp_dis_pick",
                                format_func=lambda s: f"segment {s}")

# ---------------------------------------------------------------- human error spans (ESA / MQM)
def compare_spans(ds, h, a: str, b: str, seg_id: str, metrics=()) -> None:
    """Each output's human error spans (every rater stacked) above the tokens BLEU leaves
    unmatched and the spans a chosen xcomet:MODEL metric predicts (as on the Divergence page:
    from the neural cache its scoring filled, else predicted for this output under a bar), side
    by side; computed for this segment only (evalcore.views.spans)."""
    from pages.common import span_layers, span_signature_captions

    xc = spans_view.span_metric_ids(metrics)
    if not spans_view.shows_spans(ds, xc):
        return
    cols = st.columns(2)
    for col, name, label in ((cols[0], a, "A"), (cols[1], b, "B")):
        try:
            layers = span_layers(ds, spans_view.SpansQuery(h, query_settings(), name, seg_id, xc, markers=("bleu",)))
        except Exception as exc:
            show_exception(exc, "Could not read the error spans")
            return
        if not layers["raters"]:
            col.caption(f"{md(label)} = {md(name)}: no error-span annotation of this output.")
            continue
        col.markdown(H.box(f"{label} = {name}: error spans (red solid major, orange dashed minor) and BLEU's "
                           "unmatched tokens (blue)",
                           H.span_layers_html(layers["text"], spans_view.layers_for_html(layers))),
                     unsafe_allow_html=True)
        span_signature_captions(layers, col)


# ---------------------------------------------------------------- side by side
st.header("Side by side")
segs = cmp.segments["seg_id"].tolist()
if pick_seg is None:
    pick_seg = st.selectbox("Segment", segs, key="cmp_seg_pick", format_func=lambda s: f"segment {s}")
try:
    d = cached(compare_view.compare_side_by_side, dataclasses.replace(key, seg_id=str(pick_seg)), cmp)
except Exception as exc:
    show_exception(exc, "Could not build the side-by-side view")
    st.stop()
st.markdown(H.plain_box(f"Source (segment {d['seg_id']})", d["source"]), unsafe_allow_html=True)
o1, o2 = st.columns(2)
o1.markdown(H.box(f"A = {a}", H.diff_html(d["diff_a"], C.COLOURS["a"], f"A = {a}"), "underlined: words B does not have"),
            unsafe_allow_html=True)
o2.markdown(H.box(f"B = {b}", H.diff_html(d["diff_b"], C.COLOURS["b"], f"B = {b}"), "underlined: words A does not have"),
            unsafe_allow_html=True)
compare_spans(ds, h, a, b, str(d["seg_id"]), cmp.metrics)
refs_a, refs_b = d["detail_a"]["references"], d["detail_b"]["references"]
if refs_a:
    st.markdown(f"**{len(refs_a)} reference(s)** — highlighted: the n-grams (n ≤ 4) each output shares with each "
                "reference, on both sides.")
    for ra, rb in zip(refs_a, refs_b):
        x1, x2 = st.columns(2)
        for col, ref, det, label in ((x1, ra, d["detail_a"], "A"), (x2, rb, d["detail_b"], "B")):
            with col:
                if ref["tokens"] is None:
                    st.markdown(H.plain_box(ref["ref_id"], ref["text"]), unsafe_allow_html=True)
                else:
                    st.markdown(H.reference_pair_html(f"{ref['ref_id']} · {label}", ref["tokens"], ref["ref_spans"],
                                                      det["cand_tokens"], ref["cand_spans"], ref["matched"]),
                                unsafe_allow_html=True)
s_l, s_r = st.columns(2)
with s_l:
    st.markdown("**Every signal of both outputs**")
    st.dataframe(d["scores"], hide_index=True, width="stretch")
with s_r:
    if len(d["judgements"]):
        st.markdown("**Every judgement of both outputs**")
        st.dataframe(d["judgements"], hide_index=True, width="stretch")
download_table(pd.concat([d["scores"].assign(kind="signal"), d["judgements"].assign(kind="judgement")],
                         ignore_index=True), f"{name}_segment_{d['seg_id']}", key="cmp_sbs", signature=sig)

# ---------------------------------------------------------------- buckets
st.header("Buckets")
bk = table(cmp, key, "buckets")
kinds = list(dict.fromkeys(bk["bucket_type"]))
b1, b2 = st.columns(2)
kind = b1.selectbox("Bucket by", kinds, key="cmp_bucket_kind")
bsig = b2.selectbox("Signal", cmp.signals, key="cmp_bucket_signal")
sub = bk[bk["bucket_type"] == kind]
st.caption({"reference length": "Mean token count of the segment's references.",
            "source-word frequency": "Median number of times the segment's source words occur in the whole test set "
                                     "(low: rare words).",
            "phenomenon tag": "“A: tag”: segments where A's output carries the tag; “B: tag” likewise.",
            "document": "Documents of the test set.", "domain": "Domains of the test set."}.get(kind, "")
           + " Win rate: share of the bucket's segments where A's per-segment score is better (ties count ½).")
shown = sub[sub["signal"] == bsig]
n_buckets = shown["bucket"].nunique()
if n_buckets > 40:
    st.caption(f"Showing the 40 largest of {n_buckets:,} buckets; the download has all of them.")
    shown = shown.sort_values("n_segments", ascending=False, kind="stable").head(40)
st.dataframe(shown, hide_index=True, width="stretch",
             column_config={"score_a": st.column_config.NumberColumn(format="%.3f"),
                            "score_b": st.column_config.NumberColumn(format="%.3f"),
                            "a_win_rate": st.column_config.NumberColumn(format="%.2f")})
download_table(bk, f"{name}_buckets", key="cmp_buckets", signature=sig)
bfig = cached(compare_view.compare_bucket_figure, dataclasses.replace(fkey, bucket_kind=kind, signal=bsig), shown, shared=True)
st.plotly_chart(bfig, width="stretch", key="cmp_bucket_fig")
download_figure(bfig, f"{name}_buckets", key="cmp_bucket_dl")

st.subheader("Word F-measure by frequency")
wf = table(cmp, key, "word_f_by_frequency")
st.caption("Words pooled over every (segment, reference) pair; a word's frequency is its number of occurrences in "
           "all references of the test set.")
ffig = cached(compare_view.compare_word_f_figure, fkey, wf, shared=True)
st.plotly_chart(ffig, width="stretch", key="cmp_wordf_fig")
download_figure(ffig, f"{name}_word_f", key="cmp_wordf_dl")
st.dataframe(wf, hide_index=True, width="stretch")
download_table(wf, f"{name}_word_f", key="cmp_wordf", signature=sig)

# ---------------------------------------------------------------- n-grams
st.header("Characteristic n-grams")
ng = table(cmp, key, "characteristic_ngrams")
st.caption("N-grams (n ≤ 4) one system matches in the references more often than the other, ranked by the smoothed "
           "ratio (matches of A + 1) / (matches of A + matches of B + 2), as in compare-mt (Neubig et al. 2019); "
           "the top 50 each way.")
n1, n2 = st.columns(2)
for col, who, label in ((n1, a, "A"), (n2, b, "B")):
    with col:
        st.markdown(f"**Favour {label} = {md(who)}**")
        part = ng[ng["favours"] == who]
        st.dataframe(part, hide_index=True, width="stretch", column_config={
            "score": st.column_config.NumberColumn(format="%.3f")})
download_table(ng, f"{name}_ngrams", key="cmp_ngrams", signature=sig)

# ---------------------------------------------------------------- length bias
st.header("Length and tuning bias")
st.caption("A metric that rewards longer (or shorter) outputs at equal human quality is one a system tuned on it "
           "will exploit: tuning on a recall-heavy metric produced translations 15 % longer than the references "
           "(Stanojević & Sima'an 2015). Partial correlation of each metric's segment score with the output/reference "
           "length ratio, controlling for the human score, over both systems' outputs.")
lr = table(cmp, key, "length_ratios")
st.dataframe(lr, hide_index=True, width="stretch")
download_table(lr, f"{name}_length_ratios", key="cmp_lr", signature=sig)
lb = table(cmp, key, "length_bias")
if len(lb):
    crit_lb = st.selectbox("Controlling for", list(dict.fromkeys(lb["criterion"])), key="cmp_lb_crit")
    lbs = lb[lb["criterion"] == crit_lb]
    st.dataframe(lbs, hide_index=True, width="stretch",
                 column_config={c: st.column_config.NumberColumn(format="%.3f") for c in ("r_length", "partial_r")})
    download_table(lb, f"{name}_length_bias", key="cmp_lb", signature=sig)
    lfig = cached(compare_view.compare_length_bias_figure, dataclasses.replace(fkey, criterion=crit_lb), lbs, shared=True)
    st.plotly_chart(lfig, width="stretch", key="cmp_lb_fig")
    download_figure(lfig, f"{name}_length_bias", key="cmp_lb_dl")
else:
    st.info("Length bias needs a human criterion and at least one metric.")

with st.expander("Metric signatures"):
    st.dataframe(pd.DataFrame([{"metric": m, "signature": cmp.metric_signature(m)} for m in cmp.metrics]),
                 hide_index=True, width="stretch")

from pages.sections import calibration  # noqa: E402

calibration.render(ds, cmp.settings(), criteria[0] if criteria else None, metrics, "cmp_cal")

from pages.sections import share  # noqa: E402

share.render(ds, cmp.settings(), criteria[0] if criteria else None, metrics, "cmp_share", a, b)
