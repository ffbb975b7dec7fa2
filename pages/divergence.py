"""Divergence browser: (system, segment) pairs ranked by disagreement between two signals, with
filters, paging, and the full detail of one pair (every reference with matched n-grams)."""
from __future__ import annotations


import pandas as pd
import streamlit as st

from evalcore.scoring import defaults as common_view
from evalcore.analysis import detail as segment_detail_view
from evalcore.views import divergence as divergence_view
from evalcore.present import highlight as H
from pages.common import query_settings  # noqa: E402
from pages.common import cached, current_dataset, download_figure, download_table, ensure_shell, long_segment_note, md, progress_bar, scope, show_exception, syntax_note
from pages.common import tokenizer_of  # noqa: E402
import dataclasses
from evalcore.views import spans as spans_view  # noqa: E402

ensure_shell(__file__)
from pages.common import settings_caption, settings_of_page  # noqa: E402  (the one settings line)
st.title("Divergence browser")
from pages.common import terms  # noqa: E402

terms('segment level', 'signature')
ds = current_dataset()

PAGE_SIZE = 20
EAGER_ROWS = 5000  # larger tables are prepared for download on request (keeps reruns fast)
SCATTER_MAX = 10000


KEY = ["system", "seg_id"]


def assemble(needed_metrics, with_queen, text):
    """The signal table (= ``divergence_view.signal_table`` over every chosen signal) restricted to the metric
    columns in ``needed_metrics`` (and the QUEEN column when ``with_queen``), computing only
    what is not cached yet, under a progress bar."""
    todo = [m for m in needed_metrics] + (["queen"] if with_queen else [])
    bar, cb = progress_bar(text) if todo else (None, None)
    base_sig = segment_detail_view.signal_columns(base)
    out = base[[c for c in base.columns if c not in base_sig]]
    for i, m in enumerate(needed_metrics):
        part = cached(divergence_view.divergence_metric, divergence_view.DivergenceQuery(h, query_settings(tok), (m,)), ds,
                      progress=(lambda f, t, i=i: cb((i + f) / len(todo), t)))
        out = out.merge(part, on=KEY, how="left")
    out = pd.concat([out, base[base_sig]], axis=1)
    if with_queen:
        out = out.merge(cached(divergence_view.divergence_queen, divergence_view.DivergenceQuery(h, query_settings(tok), queen_set=tuple(queen_set)), ds,
                               progress=lambda f, t: cb((len(todo) - 1 + f) / len(todo), t)),
                        on=KEY, how="left")
    if bar is not None:
        bar.empty()
    return out


# ---------------------------------------------------------------- human error spans (ESA / MQM)
# Kept in these two functions (called below) so that the rest of the page stays as it was.
def spans_detail(ds, h, system: str, seg_id: str, metrics=()) -> None:
    """The selected output with each rater's error spans and each metric's marks stacked on the
    same text (computed for this output only, evalcore.views.spans), and their P/R/F1; the
    spans a selected xcomet:MODEL metric predicts join them."""
    from pages.common import span_layers, span_signature_captions

    xc = spans_view.span_metric_ids(metrics)
    if not spans_view.shows_spans(ds, xc):
        return
    try:
        layers = span_layers(ds, spans_view.SpansQuery(h, query_settings(tokenizer_of(ds)), system, seg_id, xc))
    except Exception as exc:
        show_exception(exc, "Could not read the error spans of this output")
        return
    st.markdown("**Human error spans beside what each metric marks** — red solid: major, orange dashed: minor "
                "(hover: severity and category); blue double underline: BLEU tokens without an n-gram match, "
                "chrF characters without a character n-gram match, TER edits (methods §5.13).")
    st.markdown(H.box(f"Output of {system} (segment {seg_id})",
                      H.span_layers_html(layers["text"], spans_view.layers_for_html(layers))),
                unsafe_allow_html=True)
    span_signature_captions(layers)
    if len(layers["scores"]):
        st.dataframe(layers["scores"], hide_index=True, width="stretch", key="div_spans_prf",
                     column_config={k: st.column_config.NumberColumn(format="%.3f") for k in ("precision", "recall", "f1")})


def spans_profiles(ds, h, metrics) -> None:
    """Errors per segment of each system by severity or category (stacked bars + table with
    CIs) and the categories each metric penalises; filters narrow both. Built on request."""

    if not spans_view.has_spans(ds):
        return
    st.subheader("Error profiles (human error spans)")
    if not st.toggle("Show each system's errors by severity and category", value=False, key="div_spans_profile"):
        return
    opts = spans_view.filter_options(ds)
    f1, f2, f3, f4 = st.columns([2, 3, 2, 2])
    sev = f1.multiselect("Severity (none = all)", opts["severity"], key="div_sp_sev")
    cats = f2.multiselect("Category (none = all)", opts["category"], key="div_sp_cat")
    raters = f3.multiselect("Rater (none = all)", opts["rater"], key="div_sp_rater")
    by = f4.radio("Split by", ["severity", "category"], horizontal=True, key="div_sp_by")
    query = spans_view.SpansQuery(h, query_settings(), severities=tuple(sev), categories=tuple(cats), raters=tuple(raters), by=by)
    prof = cached(spans_view.span_profile, query, ds, shared=True)
    if prof.empty:
        st.info("No error spans match these filters.")
        return
    fig = cached(spans_view.span_profile_figure, query, prof, shared=True)
    st.plotly_chart(fig, width="stretch", key="div_sp_chart")
    download_figure(fig, f"{ds.name}_error_profile", key="div_sp_fig")
    st.dataframe(prof, hide_index=True, width="stretch", key="div_sp_table",
                 column_config={k: st.column_config.NumberColumn(format="%.3f")
                                for k in ("errors_per_segment", "lo", "hi")})
    download_table(prof, f"{ds.name}_error_profile", key="div_sp_table_dl",
                   signature="errors per annotated segment; 95% percentile bootstrap over annotations (1000, seed 0)")
    if metrics:
        st.markdown("**Which categories each metric penalises** — correlation over the annotated outputs between "
                    "the metric's segment score and the number (or MQM weight) of errors of each category (negative: the metric "
                    "scores outputs with that error lower).")
        value = st.radio("Per output, count the errors or sum their MQM weights", ["count", "weight"], horizontal=True,
                         key="div_sp_value")
        pen = cached(spans_view.span_penalties, spans_view.SpansQuery(h, query_settings(tokenizer_of(ds)), metrics=tuple(metrics), severities=tuple(sev),
                                                    raters=tuple(raters), value=value), ds, shared=True)
        if cats:
            pen = pen[pen["category"].isin(cats)]
        st.dataframe(pen, hide_index=True, width="stretch", key="div_sp_pen",
                     column_config={k: st.column_config.NumberColumn(format="%.3f") for k in ("pearson", "spearman")})
        download_table(pen, f"{ds.name}_category_penalties", key="div_sp_pen_dl",
                       signature=common_view.signature_text(metrics, dataset=ds, level="segment", tokenize=tokenizer_of(ds)))


ds = scope(ds, "div")
tok = tokenizer_of(ds)  # the word-level metrics' tokenizer, passed to every view that scores
h = ds.content_hash()
if not ds.systems:
    st.info("The divergence browser needs system outputs with text.")
    st.stop()
focus = st.session_state.get("divergence_focus")

syntax_note(ds)
ds_criteria = ds.criteria  # a property that scans every judgement: read once per run
crit0 = common_view.default_criterion(ds)
with st.expander("Signals", expanded=False):
    c1, c2 = st.columns([3, 2])
    metrics_slot = c1.empty()  # the metric list (it imports every metric module): after the first figure
    criteria = c2.multiselect("Human criteria", ds_criteria, default=ds_criteria, key="div_criteria")
    c3, c4 = st.columns([3, 2])
    queen_slot = c3.empty()
    norm = c4.selectbox("Human score normalisation", ["raw", "z", "percentile"], key="div_norm")
settings_caption(settings_of_page(ds), ds)
add_slot = st.empty()  # the note offering the metrics a first visit of a large dataset leaves out
try:
    base = cached(divergence_view.divergence_base, divergence_view.DivergenceQuery(h, query_settings(), criteria=tuple(criteria), normalisation=norm), ds)
except Exception as exc:
    show_exception(exc, "Could not collect the human signals")
    st.stop()

# the first figure: the human scores of the outputs by system (no metric needed), the signal b
# of the default comparison (or the human signal chosen as b)
human_cols = [c for c in segment_detail_view.signal_columns(base) if c.startswith("human:")]
if human_cols:
    chosen_b = st.session_state.get("div_b")
    hcol = chosen_b if chosen_b in human_cols else (f"human:{crit0}" if f"human:{crit0}" in human_cols else human_cols[0])
    hfig = cached(divergence_view.divergence_human_figure, divergence_view.DivergenceQuery(h, query_settings(), criteria=tuple(criteria), normalisation=norm,
                                                               b=hcol), base, shared=True)
    st.plotly_chart(hfig, width="stretch", key="div_human")
    download_figure(hfig, f"{ds.name}_divergence_human_scores", key="div_human_fig")

known = common_view.available_metrics(ds) if ds.ref_ids else []
first, later = divergence_view.first_metrics(ds, [m for m in ("bleu", "chrf") if m in common_view.default_metrics(ds)])
wanted = (focus or {}).get("signals") or ()  # another page asked for these two signals (Metrics task)
if (focus or {}).get("metric") in known and focus["metric"] not in first:
    first = first + [focus["metric"]]
# BLEU and chrF first (what the table ranks by default; BLEU alone first on a large dataset); every other metric on request
metrics = metrics_slot.multiselect("Metrics", known, default=first, key="div_metrics",
                                   help="BLEU and chrF by default (BLEU alone first above "
                                        f"{divergence_view.FIRST_METRICS_ABOVE:,} outputs); add any metric as a signal.")


def _add_later() -> None:
    st.session_state["div_metrics"] = list(dict.fromkeys(list(st.session_state.get("div_metrics") or []) + later))


if later and not set(later) <= set(metrics):
    with add_slot.container():
        n1, n2 = st.columns([4, 1])
        n1.info(f"At this size ({len(ds.outputs):,} system outputs) the browser starts with BLEU as its only metric "
                f"signal; {md(', '.join(later))} adds to the first scoring (then it is cached for every "
                "page): add it here or under *Signals*.")
        n2.button("Add " + ", ".join(later), key="div_add_later", on_click=_add_later)
default_set = (focus or {}).get("queen_set") or st.session_state.get("metric_set") or \
    [m for m in ("bleu", "chrf", "meteor") if m in metrics]
queen_set = queen_slot.multiselect("QUEEN of the set (needs ≥ 2 references)", known if len(ds.ref_ids) >= 2 else [],
                                   default=[m for m in default_set if m in known] if len(ds.ref_ids) >= 2 else [],
                                   key="div_queen")
long_segment_note(ds, metrics + [m for m in queen_set if m not in metrics])
# every chosen signal is offered; only the two compared are computed before the table, the
# others (for the detail view below) after it
queen_col = ("queen:" + ",".join(queen_set)) if queen_set else None
cols = [f"metric:{m}" for m in metrics] + segment_detail_view.signal_columns(base) + ([queen_col] if queen_col else [])
if len(cols) < 2:
    st.info("Two signals are needed (choose metrics and/or criteria under *Signals*).")
    st.stop()
sk = divergence_view.DivergenceQuery(h, query_settings(tok), tuple(metrics), tuple(criteria), tuple(queen_set), norm)

default_a = "metric:bleu" if "metric:bleu" in cols else cols[0]
default_b = f"human:{crit0}" if f"human:{crit0}" in cols else next(c for c in cols if c != default_a)
if len(wanted) == 2 and wanted[0] in cols and wanted[1] in cols:
    default_a, default_b = wanted
c1, c2, c3 = st.columns([2, 2, 2])
a = c1.selectbox("Signal a", cols, index=cols.index(default_a), key="div_a")
b = c2.selectbox("Signal b", cols, index=cols.index(default_b), key="div_b")
direction = c3.selectbox("Show", ["both", "a_higher", "b_higher"], key="div_dir",
                         format_func={"both": "all disagreements", "a_higher": "a likes it more than b",
                                      "b_higher": "b likes it more than a"}.get)
pair_metrics = [m for m in metrics if f"metric:{m}" in (a, b)]
try:
    sig = assemble(pair_metrics, queen_col in (a, b), "Scoring the two compared signals…")
except Exception as exc:
    show_exception(exc, "Could not compute the signals")
    st.stop()
missing = [c for c in (a, b) if c not in sig]
if missing:
    st.info(f"No values for {md(', '.join(missing))} on this dataset: choose another signal.")
    st.stop()
with st.expander("Filters", expanded=False):
    f1, f2 = st.columns(2)
    systems = f1.multiselect("Systems (none = all)", ds.systems, key="div_systems")
    all_tags = sorted(set(ds.tags["tag"])) if len(ds.tags) else []
    tags = f2.multiselect("Phenomenon tags (any of; none = all)", all_tags, key="div_tags")
    lmin, lmax = int(sig["src_len"].min()), int(sig["src_len"].max())
    length = st.slider("Source length (tokens)", lmin, max(lmax, lmin + 1), (lmin, max(lmax, lmin + 1)),
                       key="div_len")
    r1, r2 = st.columns(2)
    ranges = []
    for col, box, label in ((a, r1, "a"), (b, r2, "b")):
        v = sig[col].dropna()
        vmin, vmax = (float(v.min()), float(v.max())) if len(v) else (0.0, 1.0)
        if vmax <= vmin:
            vmax = vmin + 1.0
        ranges.append(box.slider(f"Range of signal {md(label)}", vmin, vmax, (vmin, vmax), key=f"div_range_{label}_{col}"))
if a == b:
    st.warning("Choose two different signals.")
    st.stop()

fk = dataclasses.replace(sk, a=a, b=b, direction=direction, systems=tuple(systems), tags=tuple(tags), length=tuple(length),
               range_a=tuple(ranges[0]), range_b=tuple(ranges[1]))
div = cached(divergence_view.divergence_ranked, fk, sig, shared=True)
if focus and wanted and not focus.get("pairs"):
    fc1, fc2 = st.columns([4, 1])
    fc1.info(f"Opened from {md(focus.get('source', 'another page'))}.")
    if fc2.button("Dismiss", key="div_clear_focus"):
        st.session_state.pop("divergence_focus", None)
        st.rerun()
    view = div
elif focus:
    pairs = set((str(s), str(g)) for s, g in focus["pairs"])
    keep = [(s, str(g)) in pairs for s, g in zip(div["system"], div["seg_id"])]
    view = div[keep].reset_index(drop=True)
    fc1, fc2 = st.columns([4, 1])
    fc1.info(f"Showing the outputs from {md(focus.get('source', 'another page'))}: "
             f"{len(view)} of {len(pairs)} have both signals.")
    if fc2.button("Show all outputs", key="div_clear_focus"):
        st.session_state.pop("divergence_focus", None)
        st.rerun()
else:
    view = div

st.caption(f"{len(view)} output(s) ranked by |rank(a) − rank(b)| (ranks normalised to 0–1 over the filtered "
           "outputs, error rates reversed; positive divergence: a rates the output higher than b).")
n_pages = max(1, -(-len(view) // PAGE_SIZE))
page = st.number_input(f"Page (of {n_pages})", 1, n_pages, 1, key="div_page")
page_rows = view.iloc[(page - 1) * PAGE_SIZE: page * PAGE_SIZE]
st.dataframe(page_rows.rename(columns={"a": f"a = {a}", "b": f"b = {b}"}), hide_index=True, width="stretch",
             column_config={"rank_a": st.column_config.NumberColumn(format="%.2f"),
                            "rank_b": st.column_config.NumberColumn(format="%.2f"),
                            "divergence": st.column_config.NumberColumn(format="%+.2f")})
div_sig = common_view.signature_text(metrics, f"a={a}; b={b}; normalisation={norm}", dataset=ds, level="segment", tokenize=tok)
if len(view) <= EAGER_ROWS or st.checkbox(f"Prepare the whole ranked table ({len(view):,} rows) for download",
                                          key="div_prepare"):
    download_table(view.rename(columns={"a": a, "b": b}), f"{ds.name}_divergence", key="div_table",
                   signature=div_sig)
# the scatter (every output a point) is built only when asked: an expander would build it on every run
if st.toggle("Show the scatter of the two ranks", value=False, key="div_show_scatter"):
    shown = view if len(view) <= SCATTER_MAX else pd.concat(
        [view.head(SCATTER_MAX // 5), view.iloc[SCATTER_MAX // 5:].sample(SCATTER_MAX - SCATTER_MAX // 5, random_state=0)])
    if len(shown) < len(view):
        st.caption(f"Showing the {SCATTER_MAX // 5:,} most divergent outputs and a random sample of the rest "
                   f"({len(shown):,} of {len(view):,}).")
    scatter_sig = common_view.signature_text(metrics, f"a={a}; b={b}", dataset=ds, level="segment", tokenize=tok)
    sfig = cached(divergence_view.divergence_scatter, dataclasses.replace(fk, focus=bool(focus), signature=scatter_sig), shown, shared=True)
    st.plotly_chart(sfig, width="stretch", key="div_scatter")
    download_figure(sfig,
                    f"{ds.name}_divergence_scatter", key="div_scatter_fig")

spans_profiles(ds, h, metrics)
if page_rows.empty:
    st.stop()

# ---------------------------------------------------------------- one pair in detail
st.subheader("Inspect an output")
# options keyed by (system, segment): they change with the table, so the choice and its label
# can never point at another row than the one shown (row numbers 0-19 stayed the same)
options = divergence_view.pick_options(page_rows)
if st.session_state.get("div_pick") not in options:
    st.session_state.pop("div_pick", None)
pick = st.selectbox("Output (from this page of the table)", list(options), format_func=options.get, key="div_pick")
row = page_rows[(page_rows["system"] == pick[0]) & (page_rows["seg_id"].astype(str) == pick[1])].iloc[0]
try:
    rest = [m for m in metrics if m not in pair_metrics]
    full = sig if not rest and (queen_col is None or queen_col in (a, b)) else \
        assemble(metrics, bool(queen_col), "Collecting the other signals for the detail view ("
                 + ", ".join(rest + (["QUEEN"] if queen_col and queen_col not in (a, b) else [])) + ")…")
    d = cached(divergence_view.divergence_detail, dataclasses.replace(sk, system=row["system"], seg_id=str(row["seg_id"])), (ds, full))
except Exception as exc:
    show_exception(exc, "Could not build the detail view")
    st.stop()

st.markdown(H.plain_box(f"Source (segment {d['seg_id']})", d["source"]), unsafe_allow_html=True)
st.markdown(H.plain_box(f"Output of {d['system']}" + (f" — tags: {', '.join(d['tags'])}" if d["tags"] else ""),
                        d["output"]), unsafe_allow_html=True)
spans_detail(ds, h, d["system"], str(d["seg_id"]), metrics)
if d["references"]:
    st.markdown(f"**{len(d['references'])} reference(s)** — highlighted: the n-grams (n ≤ 4) each reference "
                "shares with the output (13a tokens), on the reference and on the output.")
    refs = d["references"]
    per_row = 3 if len(refs) > 2 else len(refs)
    for start in range(0, len(refs), per_row):
        cols_ = st.columns(per_row)
        for col, ref in zip(cols_, refs[start:start + per_row]):
            with col:
                if ref["tokens"] is None:
                    html = H.plain_box(ref["ref_id"], ref["text"])
                else:
                    html = H.reference_pair_html(ref["ref_id"], ref["tokens"], ref["ref_spans"], d["cand_tokens"],
                                                 ref["cand_spans"], ref["matched"])
                st.markdown(html, unsafe_allow_html=True)
left, right = st.columns(2)
with left:
    if len(d["orders"]):
        st.markdown("**N-gram matches over all references** (clipped, as BLEU counts them; Ananthakrishnan et al. 2007)")
        st.dataframe(d["orders"], hide_index=True, width="stretch",
                     column_config={"precision": st.column_config.NumberColumn(format="%.3f")})
        sm = d["summary"]
        st.caption(" · ".join(f"{k.replace('_', ' ')} {v:.3f}" if isinstance(v, float) else f"{k.replace('_', ' ')} {v}"
                              for k, v in sm.items()))
with right:
    st.markdown("**Every signal of this output**")
    st.dataframe(d["scores"], hide_index=True, width="stretch",
                 column_config={"value": st.column_config.NumberColumn(format="%.4f")})
    if d.get("not_judged"):
        st.caption(f"{d['not_judged']} rater(s) who did not judge this output are not listed.")
    if len(d["judgements"]):
        st.markdown("**Every judgement**")
        st.dataframe(d["judgements"], hide_index=True, width="stretch")
pd_export = pd.concat([d["scores"].assign(kind="signal"),
                       d["judgements"].rename(columns={"judgement": "signal", "score": "value"}).assign(kind="judgement")],
                      ignore_index=True)
download_table(pd_export, f"{ds.name}_detail", key="div_detail", signature=common_view.signature_text(metrics, dataset=ds, level="segment", tokenize=tokenizer_of(ds)))
