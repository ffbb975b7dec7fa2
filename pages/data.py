"""Data page: choose, upload or import a dataset; validation report; overview; segment browser."""
from __future__ import annotations

import streamlit as st

from evalcore.io import workspace
from evalcore.core.dataset import Dataset
from evalcore.io import FileSource, load_collection
from evalcore.present.plots import length_histogram
from evalcore.core.problems import DataError
from evalcore.views import data as data_view, queries as queries_view
from evalcore.views.precompute import precompute_in_background
from pages.common import query_settings  # noqa: E402
from pages.common import SAMPLE_KEY, cached, download_figure, download_table, md, show_exception, show_report, syntax_note, tokenizer_of



def metric_signatures(metrics: tuple, tok: str) -> str:
    from evalcore.scoring.defaults import signature_text

    return signature_text(metrics, level="segment", tokenize=tok)  # with the page's tokenizer


def _capabilities(ds: Dataset) -> None:
    """References per segment and the analyses they enable (evalcore.core.capabilities)."""
    from evalcore.core.capabilities import capability_table, qarla_missing, references_per_segment_text

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
from pages.common import settings_caption, settings_of_page  # noqa: E402  (the one settings line)
st.title("Data")
# open on the bundled sample (where a newcomer starts), closed on the user's own data
with st.expander("What is this?", expanded=st.session_state.get("dataset_label") in (None, SAMPLE_KEY)):
    st.markdown(
        "**evalcore** finds out where automatic machine-translation metrics agree with people, where they fail, "
        "and why. Load system outputs, human references and human judgements (the bundled teaching sample is open "
        "now); then compare metrics with the human judgements (**Systems**, **Campaign**, **Compare two systems**), "
        "measure whether metrics can tell human from machine translations (**Human-likeness**, **Likeness vs "
        "acceptability**, **QUEEN vs human**; Amigó et al. 2006), browse the segments where metrics and people "
        "disagree (**Divergence browser**) and look at the judges themselves (**Judges**, **Experts vs "
        "non-experts**). Every measure is defined in the project's docs/methods.md.")
    try:
        st.page_link("pages/learn.py", label="New here? Take the guided tour on the sample", icon="🎓")
    except Exception:  # the page run on its own (no navigation): the sidebar still lists the tour
        st.caption("New here? Open **Learn (guided tour)** in the sidebar.")
    # every page and what it shows, from the one page list (pages/registry.py): the complete list
    # lives here, the README shows a selection
    from pages.registry import PAGES as _ALL_PAGES

    st.markdown("**Every page**\n\n" + "\n".join(f"- **{md(p.title)}**: {md(p.summary)}" for p in _ALL_PAGES))
from pages.common import terms  # noqa: E402

terms('segment', 'reference set', 'tokenizer', 'signature')
ds = st.session_state.get("dataset")

tab_overview, tab_segments, tab_add, tab_manage = st.tabs(
    ["Overview", "Segments", "Upload or import", "Saved datasets"])

# ---------------------------------------------------------------- overview (first: its length histogram is the page's first figure)
if ds is not None:
    with tab_overview:
        st.subheader(f"{md(ds.name)} {md(ds.lp)}")
        ov = ds.overview()
        settings_caption(settings_of_page(ds), ds)  # the settings every page starts from on this dataset
        cols = st.columns(4)
        for i, key in enumerate(["segments", "reference sets", "systems with text", "judgements"]):
            cols[i].metric(key, ov[key])
        lengths = cached(data_view.length_table, queries_view.Query(ds.content_hash()), ds)
        fig = length_histogram(lengths)
        st.plotly_chart(fig, width="stretch", key="length_hist")
        download_figure(fig, "lengths")
        import pandas as pd

        st.dataframe(pd.DataFrame({"property": list(ov), "value": [str(v) for v in ov.values()]}),
                     hide_index=True, width="stretch")
        _capabilities(ds)
        if ds.warnings:
            from evalcore.core.problems import Report

            with st.expander(f"{len(ds.warnings)} validation warning(s)"):
                show_report(Report(list(ds.warnings)), key="overview_report")
        if len(ds.judgements):
            st.markdown("**Judgements per criterion and rater**")
            counts = ds.judgement_counts()
            st.dataframe(counts, hide_index=True, width="stretch")
            download_table(counts, "judgement_counts")


# ---------------------------------------------------------------- upload / import
def _upload_limit_mb() -> int:
    try:
        return int(st.get_option("server.maxUploadSize"))
    except Exception:  # no server config (e.g. a bare script run)
        return 200


with tab_add:
    st.markdown(
        "Upload a **zip** of a dataset folder, or the files themselves. Formats: tidy TSV "
        "(`segments.tsv`, `references.tsv`, `outputs.tsv`, `judgements.tsv`, optional `tags.tsv`), "
        "plain text (`src.txt`, `ref.<name>.txt`, `sys.<name>.txt`), a Google MQM TSV, an "
        "mt-metrics-eval folder, or a WMT human-evaluation JSONL file (ESA scores and error spans, "
        "`*.jsonl`). Human judgements may also come as an **Appraise** CSV export (`.csv`) or a "
        "**Pearmut** annotation log (`.jsonl`) uploaded with the tidy files instead of `judgements.tsv`; "
        "quality-control rows are kept apart. Everything is validated first; nothing is loaded if any problem "
        "is found.")
    limit_mb = _upload_limit_mb()
    files = st.file_uploader(
        f"Files or a zip (up to {limit_mb} MB per file)", accept_multiple_files=True, key="uploader",
        help=(f"The browser refuses files over {limit_mb} MB before they reach the dashboard. For larger data: "
              "zip the files (text compresses well), import a folder on this machine by its path, use the "
              "command line (python -m evalcore validate PATH), or restart the dashboard with "
              "--server.maxUploadSize N (in MB)."))
    try:  # what the request shows (proxy headers, Host): evalcore.io.workspace.remote_visitor decides
        request_headers = dict(st.context.headers)
    except Exception:  # no request (a bare script run)
        request_headers = {}
    path_ok, path_why = workspace.path_import_allowed(st.get_option("server.address"), headers=request_headers)
    path = st.text_input("…or a folder / file path on this machine", key="import_path",
                         placeholder="/path/to/dataset", disabled=not path_ok,
                         help=f"Reads files of the machine the dashboard runs on: {path_why}.")
    if not path_ok:
        st.caption(f"Path import is off: {md(path_why)}.")
    name = st.text_input("Save as", key="save_name", placeholder="my-dataset",
                         help="Letters and digits of any script are kept; other characters become _. "
                              "A name already taken gets a -2, -3, ... suffix unless you choose to replace it.")
    replace = st.checkbox("Replace a saved dataset of the same name", key="save_replace", value=False)
    unquoted = st.checkbox('Texts are not quoted (read " literally)', key="import_unquoted", value=False,
                           help='By default a TSV field may be quoted ("a\tb", with "" for a quote inside). '
                                'Tick this when texts begin with " without being quoted: every field is then '
                                "read literally.")
    if st.button("Validate and save", type="primary", key="do_import"):
        try:
            if files:
                src = FileSource.from_uploads({f.name: f.getvalue() for f in files})
                source_desc = "upload: " + ", ".join(f.name for f in files)
            elif path.strip() and path_ok:
                src = FileSource.from_path(path.strip())
                source_desc = path.strip()
            else:
                st.warning("Choose files to upload or type a path first.")
                src = None
            if src is not None:
                from evalcore.io.judgement_io import with_platform_judgements

                with st.spinner("Validating…"):
                    src, platform_notes = with_platform_judgements(src)  # an Appraise/Pearmut export, if any
                    coll = load_collection(src, name=name or None, quoting="none" if unquoted else "csv")
                wanted = workspace.safe_name(name or next(iter(coll.values())).name)
                existed = workspace.exists(wanted)
                stored = workspace.save(coll, wanted, source=source_desc, replace=replace)
                precompute_in_background(coll, name=stored)  # the first pages' statistics, off the request
                what = (f"Replaced the earlier dataset **{md(stored)}**" if existed and replace else
                        f"Saved as **{md(stored)}**")
                note = (f" The name {md(wanted)} was taken: tick 'Replace' to overwrite it instead."
                        if stored != wanted else "")
                if name and workspace.safe_name(name) != name:
                    note += f" ({md(name)} is not usable as a folder name as typed.)"
                st.success(f"{what} ({md(', '.join(k or '-' for k in coll))}), "
                           f"read {'unquoted' if unquoted else 'with RFC 4180 quoting'}.{note} "
                           "Choose it in the sidebar.")
                warnings = platform_notes + [w for d in coll.values() for w in d.warnings]
                if warnings:
                    from evalcore.core.problems import Report
                    show_report(Report(warnings), key="import_report")
        except DataError as exc:
            show_report(exc.report)
        except (OSError, ValueError, TimeoutError) as exc:  # OSError: also a full disk (nothing replaced)
            st.error(md(str(exc)))
        except Exception as exc:  # the app keeps running
            show_exception(exc, "Import failed")

# ---------------------------------------------------------------- parses
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
                from evalcore.scoring.defaults import forget_syntax_status
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
                    show_report(rep, key="parses_report")
            except DataError as exc:
                show_report(exc.report, key="parses_report")
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
                               "status": (f"{len(m['problems'])} problem(s)" if m.get("broken") else "ok"),
                               "source": m.get("source", "")} for m in saved])
        st.dataframe(table, hide_index=True, width="stretch")
        download_table(table, "saved_datasets", key="saved")
        broken = [m for m in saved if m.get("broken")]
        for m in broken:
            with st.expander(f"{md(m['name'])}: {len(m['problems'])} problem(s) — repair or delete", expanded=True):
                for p in m["problems"]:
                    st.markdown(f"- {md(p)}")
                st.caption("Repair accepts the files as they are now: they are validated again and, if they "
                           "load, meta.json is rewritten with their hashes. Otherwise delete the dataset below "
                           "and save it again.")
                if st.button(f"Repair {md(m['name'])}", key=f"repair_{m['name']}"):
                    try:
                        workspace.repair(m["name"])
                        st.success(f"Repaired {md(m['name'])}: its current files validate.")
                        st.rerun()
                    except DataError as exc:
                        show_report(exc.report, key=f"repair_report_{m['name']}")
                    except Exception as exc:
                        show_exception(exc, "Repair failed")
        victim = st.selectbox("Delete a saved dataset", ["—"] + [m["name"] for m in saved], key="delete_choice")
        if victim != "—":
            sure = st.checkbox(f"Yes, delete {md(victim)} permanently", key=f"delete_confirm_{victim}", value=False)
            if st.button(f"Delete {md(victim)}", key="do_delete", disabled=not sure):
                try:
                    workspace.delete(victim)
                    st.success(f"Deleted {md(victim)}.")
                    st.rerun()
                except Exception as exc:
                    show_exception(exc, "Delete failed")

if ds is None:
    with tab_overview:
        st.info("No dataset loaded. Choose one in the sidebar or add one under 'Upload or import'.")
    st.stop()

# ---------------------------------------------------------------- segments
with tab_segments:
    wide = cached(data_view.wide_table, queries_view.Query(ds.content_hash()), ds)
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
    # on request: the metric modules (and METEOR's compiled kernels) load only when asked, so
    # opening the Data page never pays for them
    scoring = st.toggle("Score one segment with the metrics", value=False, key="score_on",
                        help="Every system (and every reference, against the others) on the chosen segment. "
                             "Loads the metrics when switched on: the first time takes a few seconds.")
    if not scoring:
        st.caption("Switch on to score one segment: BLEU, chrF, METEOR and ROUGE-L by default, every other "
                   "metric on request.")
        st.stop()
    c1, c2 = st.columns([1, 3])
    seg = c1.selectbox("Segment", ds.seg_ids, key="score_seg")
    from evalcore.scoring.defaults import available_metrics

    available = available_metrics(ds)
    # TER's shift search costs seconds per paragraph-length segment: on request, not by default
    default = [m for m in ("bleu", "chrf", "meteor", "rouge-l") if m in available]
    chosen = c2.multiselect("Metrics", available, default=default, key="score_metrics",
                            help="BLEU, chrF, METEOR and ROUGE-L by default; TER and every other metric on request.")
    syntax_note(ds)
    if chosen:
        try:
            tok = tokenizer_of(ds)
            with st.spinner("Scoring…"):
                table = cached(data_view.segment_scores_of, data_view.SegmentScoresQuery(ds.content_hash(), query_settings(tok), tuple(chosen), str(seg)), ds)
            st.dataframe(table, hide_index=True, width="stretch")
            download_table(table, f"{ds.name}_{ds.lp}_segment_{seg}_scores", key="segscores",
                           signature=metric_signatures(tuple(chosen), tok))
        except Exception as exc:  # keep running
            show_exception(exc, "Scoring failed")
