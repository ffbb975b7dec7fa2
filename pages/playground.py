"""Metric playground: edit a candidate and watch every metric react; ready-made challenges."""
from __future__ import annotations

import hashlib

import streamlit as st

from evalcore.views import playground as P
from pages.common import current_dataset, download_table, ensure_shell, md, show_exception

ensure_shell(__file__)
from pages.common import settings_caption  # noqa: E402  (the one settings line)
from evalcore.scoring.settings import DEFAULTS  # noqa: E402
st.title("Metric playground")
from pages.common import terms  # noqa: E402

terms("segment", "reference set", "tokenizer", "signature")
ds = current_dataset()
from pages.common import tokenizer_of  # noqa: E402

tok = tokenizer_of(ds)
from pages.sections.detective_link import render as detective_link  # noqa: E402

detective_link()
st.caption("Edit the candidate translation and see each metric's sentence score against the references, "
           "what each reference contributes (the score with that reference left out) and which n-grams "
           "match. Scores update when the box loses focus or on Ctrl+Enter. The tokenizer of the word-level "
           f"metrics is the sidebar's: {md(tok)}.")

mode = st.radio("Texts", ["A segment of this dataset", "Type your own"], horizontal=True, key="pg_mode")
if mode == "A segment of this dataset":
    if not ds.systems or not ds.ref_ids:
        st.info("This dataset needs system outputs and references for the playground; choose "
                "“Type your own” instead.")
        st.stop()
    c1, c2 = st.columns(2)
    seg = c1.selectbox("Segment", [str(s) for s in ds.seg_ids], key="pg_seg")
    system = c2.selectbox("Start from the output of", list(ds.systems), key="pg_sys")
    try:
        item = P.item_from_dataset(ds, seg, system)
    except KeyError as exc:
        show_exception(exc, "Cannot open this segment")
        st.stop()
else:
    source = st.text_area("Source", "El ayuntamiento aprobó ayer el presupuesto.", key="pg_src")
    refs = st.text_area("References (one per line)", "The city council approved the budget yesterday.",
                        key="pg_refs")
    start = st.text_input("Starting candidate", "The town hall approved yesterday the budget.", key="pg_start")
    item = P.Texts(source=source, references=P.parse_references(refs), start=start)
    if not item.references:
        st.info("Type at least one reference.")
        st.stop()

st.markdown(f"**Source:** {md(item.source)}")
challenge_titles = {"": "No challenge: free play"} | {c.key: c.title for c in P.CHALLENGES}
chosen = st.selectbox("Challenge", list(challenge_titles), format_func=challenge_titles.get, key="pg_challenge")
ch = P.challenge(chosen) if chosen else None
start = P.start_text(ch, item) if ch else item.start
if ch:
    st.info(f"**{md(ch.title)}.** {md(ch.task)}  \n*Why:* {md(ch.lesson)}  \nThe page checks the metric side; "
            "whether the meaning changed (or was kept) is your judgement.")

# the candidate box restarts from the starting text whenever the item or the challenge changes
box_key = "pg_cand::" + hashlib.sha256(repr((item, chosen)).encode("utf-8")).hexdigest()[:16]
candidate = st.text_area("Candidate (edit me)", start, key=box_key, height=90)
metrics = st.multiselect("Metrics", [m for m in P.DEFAULT_METRICS], default=list(P.DEFAULT_METRICS), key="pg_metrics")

try:
    if ch:
        result = P.check_challenge(ch, item, start, candidate, settings=DEFAULTS.with_(tokenizer=tok))
        (st.success if result.passed else st.warning)(("✅ " if result.passed else "Not yet: ") + md(result.message))
    if metrics:
        table = P.score_candidate(candidate, item.references, metrics, start=start, settings=DEFAULTS.with_(tokenizer=tok))
        st.subheader("Scores")
        settings_caption(DEFAULTS.with_(judged_only=False, tokenizer=tok))
        st.caption("`score`: against every reference; `start`: the starting text's score; `change`: the "
                   "difference; `without REF`: the score with that reference left out. Each metric is on its own "
                   "scale, named in the `scale` column (BLEU and chrF 0–100, METEOR and ROUGE 0–1; TER is an "
                   "error rate, lower is better): compare changes within a row, not scores across rows.")
        st.dataframe(table.round(3), hide_index=True, width="stretch")
        download_table(table, f"{ds.name}_playground_scores", key="pg_scores")
    view = P.match_view(candidate, item.references, settings=DEFAULTS.with_(tokenizer=tok))
    st.subheader("Matched n-grams per reference")
    st.caption("Candidate tokens covered by an n-gram (up to 4-grams) that the reference shares, marked "
               "(clipped counts, as BLEU counts them; Papineni et al. 2002 §2.1).")
    for ref, pr in zip(item.references, view["per_reference"]):
        st.markdown(f"**{md(ref[0])}**: {md(ref[1])}")
        st.markdown(pr["html"], unsafe_allow_html=True)  # built from escaped tokens (evalcore.present.highlight)
    if len(view["orders"]):
        st.dataframe(view["orders"], hide_index=True)
except Exception as exc:  # a metric's own error: show it, keep the page usable
    show_exception(exc, "Could not score this text")
