"""Human-likeness: Amigó et al. 2006 Figure 1 (ORANGE and KING per metric with random baselines), the
tie-mode and averaging options, and the KING case explorer."""
from __future__ import annotations


import pandas as pd
import streamlit as st

from evalcore.scoring import defaults as common_view
import dataclasses
from evalcore.views import human_likeness as human_likeness_view
from evalcore.present import plots as P
from pages.common import query_settings  # noqa: E402
from pages.common import cached, computed_keys, current_dataset, download_figure, download_table, ensure_shell, long_segment_note, md, progress_bar, require_judged_multi_reference, scope, show_exception, syntax_note
from pages.common import tokenizer_of  # noqa: E402

ensure_shell(__file__)
from pages.common import settings_caption, settings_of_page  # noqa: E402  (the one settings line)
st.title("Human-likeness")
from pages.common import terms  # noqa: E402

terms('human-likeness', 'held-out reference', 'ORANGE', 'KING', 'tie rate', 'micro / macro average')
ds = current_dataset()
QARLA_NREFS = common_view.qarla_nrefs(ds)  # nrefs of each comparison in the signatures


ds = scope(ds, "hl")
tok = tokenizer_of(ds)  # the word-level metrics' tokenizer, passed to every view that scores
from pages.sections.second_reference import render as second_reference  # noqa: E402

second_reference(current_dataset(), "hl")  # one reference set: offer a human translation as a second
require_judged_multi_reference(ds, judgements=False)

st.markdown(
    "Each reference is held out in turn; it and every system output are scored against the **remaining** "
    "references. **ORANGE** = probability that the held-out human translation scores at least as high as an "
    "output; **KING** = probability that it scores at least as high as **every** output of its segment "
    "(Amigó et al. 2006 §2.2). A random metric gets ORANGE 1/2 and KING 1/(|A|+1).")
c1, c2, c3, c4 = st.columns([3, 1, 1, 1])
metrics = c1.multiselect("Metrics", common_view.available_metrics(ds), default=common_view.default_metrics(ds), key="hl_metrics")
long_segment_note(ds, metrics)
syntax_note(ds)
ties = c2.selectbox("Ties", ["geq", "strict", "fractional"], key="hl_ties",
                    help="geq: a tie counts for the reference (the seed's ≥); strict: against; fractional: half "
                         "(KING: 1/(1+t) when t outputs tie at the top).")
average = c3.selectbox("Averaging", ["micro", "macro"], key="hl_avg",
                       help="micro: pool all cases; macro: average per segment first.")
boot = c4.number_input("Bootstrap CIs", 0, 2000, 200, step=100, key="hl_boot",
                       help="Resamples of segments for 95% CIs (0 = off).")
if not metrics:
    st.info("Choose at least one metric.")
    st.stop()

query = human_likeness_view.HumanLikenessQuery(ds.content_hash(), query_settings(tok), tuple(metrics), ties, average, int(boot))
settings_caption(settings_of_page(ds, judged_only=False), ds)  # every segment: QARLA needs no judgement
fig_slot = st.empty()
done = computed_keys()
try:
    bar, cb = progress_bar("Scoring every reference and output against the other references…")
    parts = []
    for i, m in enumerate(metrics):  # the rows of Figure 1 are independent: drawn as each metric arrives
        what = f"ORANGE and KING: {m} ({i + 1} of {len(metrics)}; each reference held out in turn)"
        cb(i / len(metrics), what)
        parts.append(cached(human_likeness_view.human_likeness_rows, dataclasses.replace(query, metrics=(m,)), ds,
                            progress=lambda f, t, i=i, what=what: cb((i + f) / len(metrics), f"{what}: {t}")))
        if ("hl", query) not in done and i < len(metrics) - 1:  # the figure so far, while the next metric is scored
            fig_slot.plotly_chart(P.figure1(pd.concat(parts, ignore_index=True)), width="stretch")
    table = pd.concat(parts, ignore_index=True)
    bar.empty()
    done.add(("hl", query))
except Exception as exc:
    show_exception(exc, "Could not compute ORANGE and KING")
    st.stop()

fig = cached(human_likeness_view.human_likeness_figure, query, table)
fig_slot.plotly_chart(fig, width="stretch", key="hl_fig1")
download_figure(P.with_signature(fig, common_view.signature_text(metrics, f"ties={ties}; average={average}", tokenize=tok, nrefs=QARLA_NREFS)),
                f"{ds.name}_figure1", key="hl_fig1_dl")
below = int((table["orange"] < 0.5).sum())
st.caption(f"{below} of {len(table)} metrics have ORANGE below 0.5: the outputs look *more* like the references "
           "than the references look like each other (systems as centroids, Amigó et al. 2006 §2.3). "
           f"Mean tie rate {table['tie_rate'].mean():.3f}.")
show_cols = ["metric", "orange", "king", "king_random", "king_perm", "orange_random", "tie_rate", "king_tie_rate",
             "n_cases", "orange_lin_och", "orange_lo", "orange_hi", "king_lo", "king_hi", "signature"]
shown = table[[c for c in show_cols if c in table]]
st.dataframe(shown, hide_index=True, width="stretch",
             column_config={c: st.column_config.NumberColumn(format="%.3f") for c in shown.columns
                            if c not in ("metric", "signature", "n_cases")})
download_table(shown, f"{ds.name}_orange_king", key="hl_table",
               signature=common_view.signature_text(metrics, f"ties={ties}; average={average}; bootstrap={boot}", tokenize=tok, nrefs=QARLA_NREFS))

# ---------------------------------------------------------------- case explorer
st.subheader("Case explorer")
st.markdown("A **case** is one (segment, held-out reference). KING fails on a case when some output scores "
            "above the held-out human translation.")
e1, e2 = st.columns([1, 2])
metric = e1.selectbox("Metric", metrics, key="hl_case_metric")
only_failed = e2.checkbox("Only the cases KING failed", value=True, key="hl_only_failed")
try:
    cases, outputs = cached(human_likeness_view.human_likeness_cases, dataclasses.replace(query, metrics=(metric,), bootstrap=0), ds)
except Exception as exc:
    show_exception(exc, "Could not list the cases")
    st.stop()
view = cases[cases["failed"]] if only_failed else cases
st.caption(f"{int(cases['failed'].sum())} of {len(cases)} cases failed under {md(metric)} "
           f"(KING = {cases['king'].mean():.3f}).")
st.dataframe(view, hide_index=True, width="stretch", height=260,
             column_config={"king": st.column_config.NumberColumn(format="%.2f"),
                            "orange": st.column_config.NumberColumn(format="%.2f"),
                            "best_margin": st.column_config.NumberColumn(format="%.3f")})
download_table(view, f"{ds.name}_king_cases_{metric}", key="hl_cases", signature=common_view.signature_text([metric], tokenize=tok, nrefs=QARLA_NREFS))
if len(view):
    labels = [f"segment {s} · held out {r}" for s, r in zip(view["seg_id"], view["held_out"])]
    pick = st.selectbox("Inspect a case", range(len(view)), format_func=lambda i: labels[i], key="hl_case_pick")
    seg, held = str(view["seg_id"].iloc[pick]), view["held_out"].iloc[pick]
    rows = outputs[(outputs["seg_id"].astype(str) == seg) & (outputs["held_out"] == held)]
    pos = ds.seg_ids.index(seg)
    texts = ds.sys_texts()
    refs = ds.ref_texts()
    detail = rows.assign(text=[texts[s][pos] for s in rows["system"]]).sort_values("margin", ascending=False)
    st.markdown(f"**Held-out human translation ({md(held)})** — score against the other references: "
                f"{float(rows['ref_score'].iloc[0]) if len(rows) else float('nan'):.3f}")
    st.text(refs[held][pos] or "")
    st.markdown("**Outputs of this segment** (beats = scores above the human translation)")
    st.dataframe(detail[["system", "outcome", "sys_score", "margin", "text"]], hide_index=True, width="stretch",
                 column_config={"sys_score": st.column_config.NumberColumn(format="%.3f"),
                                "margin": st.column_config.NumberColumn(format="%+.3f")})
    others = pd.DataFrame({"reference": [r for r in ds.ref_ids if r != held and refs[r][pos] is not None],
                           "text": [refs[r][pos] for r in ds.ref_ids if r != held and refs[r][pos] is not None]})
    with st.expander("The other references (what both were scored against)"):
        st.dataframe(others, hide_index=True, width="stretch")
