"""Data page: choose, upload or import a dataset; validation report; overview; segment browser."""
from __future__ import annotations

import streamlit as st

from evalcore import workspace
from evalcore.dataset import Dataset
from evalcore.io import FileSource, load_collection
from evalcore.plots import length_histogram
from evalcore.problems import DataError
from pages.common import download_figure, download_table, md, show_exception, show_report, syntax_note



@st.cache_data(show_spinner="Scoring…", max_entries=32)
def segment_scores(ds_hash: str, _ds, metrics: tuple, seg_id: str):
    """Every system's (and every reference's, against the others) scores on one segment."""
    from evalcore.metrics.engine import score_table

    sub = _ds.subset(seg_ids=[seg_id])
    table = score_table(sub, list(metrics), level="segment", include_references=True)
    wide = table.pivot_table(index="system", columns="metric", values="score", sort=False).reset_index()
    wide.insert(1, "kind", ["reference (vs the others)" if sub.is_reference(s) else "system" for s in wide["system"]])
    return wide[["system", "kind"] + [m for m in metrics if m in wide]]


@st.cache_data(show_spinner=False, max_entries=8)
def _wide(ds_hash: str, _ds):
    return _ds.wide_table()


@st.cache_data(show_spinner=False, max_entries=8)
def _lengths(ds_hash: str, _ds):
    return _ds.length_table()


def metric_signatures(metrics: tuple) -> str:
    from evalcore.metrics import get_metric

    return " ; ".join(f"{m}: {get_metric(m).signature()}" for m in metrics)


def _capabilities(ds: Dataset) -> None:
    """References per segment and the analyses they enable (evalcore.capabilities)."""
    from evalcore.capabilities import capability_table, qarla_missing, references_per_segment_text

    st.markdown(f"**References per segment** (reference sets with text): {references_per_segment_text(ds)}")
    missing = qarla_missing(ds, judgements=False, quote=md)
    if missing:
        st.warning(f"ORANGE, KING, QUEEN and the metric-set search (Human-likeness, Likeness vs acceptability, "
                   f"QUEEN vs human) are unavailable: they need {missing}. Each reference is held out in turn and "
                   "scored against the others (Amigó et al. 2005, 2006). Metric scores and correlations work.")
    caps = capability_table(ds)
    st.markdown("**What this dataset supports**")
    st.dataframe(caps, hide_index=True, width="stretch")
    download_table(caps, f"{ds.name}_{ds.lp}_capabilities", key="capabilities")


from pages.common import ensure_shell

ensure_shell(__file__)
st.title("Data")
ds = st.session_state.get("dataset")

tab_overview, tab_segments, tab_add, tab_manage = st.tabs(
    ["Overview", "Segments", "Upload or import", "Saved datasets"])

# ---------------------------------------------------------------- upload / import
with tab_add:
    st.markdown(
        "Upload a **zip** of a dataset folder, or the files themselves. Formats: tidy TSV "
        "(`segments.tsv`, `references.tsv`, `outputs.tsv`, `judgements.tsv`, optional `tags.tsv`), "
        "plain text (`src.txt`, `ref.<name>.txt`, `sys.<name>.txt`), a Google MQM TSV, or an "
        "mt-metrics-eval folder. Everything is validated first; nothing is loaded if any problem is found.")
    files = st.file_uploader("Files or a zip", accept_multiple_files=True, key="uploader")
    path = st.text_input("…or a folder / file path on this machine", key="import_path",
                         placeholder="/path/to/dataset")
    name = st.text_input("Save as", key="save_name", placeholder="my-dataset")
    if st.button("Validate and save", type="primary", key="do_import"):
        try:
            if files:
                src = FileSource.from_uploads({f.name: f.getvalue() for f in files})
                source_desc = "upload: " + ", ".join(f.name for f in files)
            elif path.strip():
                src = FileSource.from_path(path.strip())
                source_desc = path.strip()
            else:
                st.warning("Choose files to upload or type a path first.")
                src = None
            if src is not None:
                with st.spinner("Validating…"):
                    coll = load_collection(src, name=name or None)
                stored = workspace.save(coll, name or next(iter(coll.values())).name, source=source_desc)
                st.success(f"Saved as **{md(stored)}** ({md(', '.join(k or '-' for k in coll))}). "
                           "Choose it in the sidebar.")
                for d in coll.values():
                    if d.warnings:
                        from evalcore.problems import Report
                        show_report(Report(list(d.warnings)))
                pass
        except DataError as exc:
            show_report(exc.report)
        except (FileNotFoundError, ValueError) as exc:
            st.error(str(exc))
        except Exception as exc:  # the app keeps running
            show_exception(exc, "Import failed")

# ---------------------------------------------------------------- parses (issue 8)
with tab_add:
    if ds is not None:
        st.markdown("**Parses for the syntactic metrics (CoNLL-U, any language, any parser)**")
        st.caption("Each sentence needs `# sent_id = <system or ref_id>:<seg_id>` (or `# system` / "
                   "`# ref_id` and `# seg_id` comments). Parses of the current dataset's texts let "
                   "TREE, GRAM, LEVEL and the shallow-syntax metrics work for languages without a "
                   "built-in parser; with a saved dataset they are kept with it.")
        parse_files = st.file_uploader("CoNLL-U files", accept_multiple_files=True, key="conllu_upload")
        if st.button("Validate and use the parses", key="do_parses", disabled=not parse_files):
            try:
                from evalcore.analysis import forget_syntax_status
                from evalcore.syntax import register_conllu

                files = [(f.getvalue(), f.name) for f in parse_files]
                rep = register_conllu(ds, files)
                forget_syntax_status(ds)
                saved_name = (st.session_state.get("dataset_meta") or {}).get("name")
                if saved_name:
                    for data, fname in files:
                        workspace.save_parses(saved_name, ds.lp, fname, data)
                st.success(f"Parses registered for {md(ds.name)} {md(ds.lp)}"
                           + (f" and kept with the saved dataset {md(saved_name)}." if saved_name else
                              " for this session (save the dataset to keep them)."))
                if rep.problems:
                    show_report(rep)
            except DataError as exc:
                show_report(exc.report)
            except Exception as exc:
                show_exception(exc, "Reading the parses failed")

# ---------------------------------------------------------------- saved datasets
with tab_manage:
    saved = workspace.list_saved()
    st.caption(f"Workspace: `{workspace.datasets_dir()}` (set `EVALCORE_HOME` to move it)")
    if not saved:
        st.info("No saved datasets yet. The bundled sample is always available.")
    else:
        import pandas as pd

        table = pd.DataFrame([{"name": m["name"], "saved at": m.get("saved_at"),
                               "language pairs": ", ".join(m.get("language_pairs", [])) or "-",
                               "source": m.get("source", "")} for m in saved])
        st.dataframe(table, hide_index=True, width="stretch")
        victim = st.selectbox("Delete a saved dataset", ["—"] + [m["name"] for m in saved], key="delete_choice")
        if victim != "—" and st.button(f"Delete {md(victim)}", key="do_delete"):
            workspace.delete(victim)
            st.success(f"Deleted {md(victim)}.")
            st.rerun()

if ds is None:
    with tab_overview:
        st.info("No dataset loaded. Choose one in the sidebar or add one under 'Upload or import'.")
    st.stop()

# ---------------------------------------------------------------- overview
with tab_overview:
    st.subheader(f"{md(ds.name)} {md(ds.lp)}")
    ov = ds.overview()
    cols = st.columns(4)
    for i, key in enumerate(["segments", "reference sets", "systems with text", "judgements"]):
        cols[i].metric(key, ov[key])
    import pandas as pd

    st.dataframe(pd.DataFrame({"property": list(ov), "value": [str(v) for v in ov.values()]}),
                 hide_index=True, width="stretch")
    _capabilities(ds)
    if ds.warnings:
        from evalcore.problems import Report

        with st.expander(f"{len(ds.warnings)} validation warning(s)"):
            show_report(Report(list(ds.warnings)))
    if len(ds.judgements):
        st.markdown("**Judgements per criterion and rater**")
        counts = ds.judgement_counts()
        st.dataframe(counts, hide_index=True, width="stretch")
        download_table(counts, "judgement_counts")
    lengths = _lengths(ds.content_hash(), ds)
    fig = length_histogram(lengths)
    st.plotly_chart(fig, width="stretch", key="length_hist")
    download_figure(fig, "lengths")

# ---------------------------------------------------------------- segments
with tab_segments:
    wide = _wide(ds.content_hash(), ds)
    query = st.text_input("Search (any text column; case-insensitive)", key="seg_query")
    if query:
        mask = wide.astype(str).apply(lambda col: col.str.contains(query, case=False, regex=False)).any(axis=1)
        wide = wide[mask]
    page_size = 50
    n_pages = max(1, (len(wide) + page_size - 1) // page_size)
    page = st.number_input(f"Page (of {n_pages})", 1, n_pages, 1, key="seg_page")
    st.caption(f"{len(wide)} segment(s)")
    st.dataframe(wide.iloc[(page - 1) * page_size: page * page_size], hide_index=True, width="stretch")
    download_table(wide, f"{ds.name}_{ds.lp}_segments", key="segments")

    st.markdown("**Scores of one segment**")
    c1, c2 = st.columns([1, 3])
    seg = c1.selectbox("Segment", ds.seg_ids, key="score_seg")
    from evalcore.analysis import available_metrics

    available = available_metrics(ds)
    default = [m for m in ("bleu", "chrf", "ter", "meteor", "rouge-l") if m in available]
    chosen = c2.multiselect("Metrics", available, default=default, key="score_metrics")
    syntax_note(ds)
    if chosen:
        try:
            table = segment_scores(ds.content_hash(), ds, tuple(chosen), seg)
            st.dataframe(table, hide_index=True, width="stretch")
            download_table(table, f"{ds.name}_{ds.lp}_segment_{seg}_scores", key="segscores",
                           signature=metric_signatures(tuple(chosen)))
        except Exception as exc:  # keep running
            show_exception(exc, "Scoring failed")
