"""Shared page helpers: dataset selection, downloads, error display. Thin: no maths here."""
from __future__ import annotations

import contextvars
import io
import traceback
from pathlib import Path

import pandas as pd
import streamlit as st

from evalcore.io import workspace
from evalcore.core.dataset import Dataset
from evalcore.io import load_collection
from evalcore.core.problems import DataError

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_DIR = ROOT / "sample_data" / "teaching_es_en"
SAMPLE_KEY = "sample: teaching es-en (bundled)"


def ensure_shell(page_file: str) -> None:
    """Deep links on a fresh server: before app.py has declared ``st.navigation`` once,
    Streamlit runs a URL like ``/judges`` as a stand-alone ``pages/`` script, without the app
    shell (sidebar, dataset). Hand over to app.py, which then opens the requested page.
    Every page calls this first (it also forgets the previous run's settings line: see
    :func:`settings_caption`)."""
    st.session_state["_settings_line"] = None
    if st.session_state.get("_shell_ran"):
        return
    try:  # the page run as the entry point itself (AppTest.from_file, streamlit run pages/x.py)
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        ctx = get_script_run_ctx()
        if ctx is not None and Path(ctx.main_script_path).resolve() == Path(page_file).resolve():
            return
    except Exception:  # internal API: without it, fall through to the hand-over
        pass
    st.session_state["_wanted_page"] = f"pages/{Path(page_file).name}"
    st.session_state["_wanted_query"] = st.query_params.to_dict()
    st.switch_page(str(ROOT / "app.py"))


#: the key (CSS class ``st-key-…``) of the out-of-view chart :func:`prefetch_plotly` draws;
#: browser tests and benchmarks leave it out when they wait for a page's first figure
PLOTLY_PREFETCH_KEY = "evalcore_plotly_prefetch"


def prefetch_plotly() -> None:
    """Once per browser session, before anything is computed: a one-point chart placed out of
    view, so the browser fetches and starts Streamlit's Plotly bundle (about 4.7 MB, loaded
    only when a first chart arrives) while the page's Python runs instead of after it.
    Measured in a real browser on wmt24_esa (BENCHMARKS.md, "Every page at real size"). Later
    runs of the session leave the container empty (the bundle stays loaded in the tab); the
    container itself is sent on every run, so the page's own elements keep their positions and
    widgets such as tabs keep their state across reruns."""
    import plotly.graph_objects as go

    # our own fixed CSS (no user text); a style-only st.html takes no room on the page. The
    # container's wrapper leaves the page's flow too, or the column's gap would remain
    k = PLOTLY_PREFETCH_KEY
    st.html(f"<style>div:has(> .st-key-{k}) {{position: fixed; left: -10000px; top: 0;}} "
            f".st-key-{k} {{width: 320px; height: 120px; overflow: hidden; pointer-events: none;}}</style>")
    box = st.container(key=k)
    if st.session_state.get("_plotly_prefetched"):
        return
    st.session_state["_plotly_prefetched"] = True
    fig = go.Figure(go.Scatter(x=[0], y=[0], mode="markers"))
    fig.update_layout(width=320, height=120, margin=dict(l=0, r=0, t=0, b=0))
    box.plotly_chart(fig, config={"staticPlot": True, "displayModeBar": False})


@st.cache_resource(show_spinner="Loading the bundled sample…")
def _load_sample() -> dict[str, Dataset]:
    return load_collection(SAMPLE_DIR, name="sample-teaching-es-en")


@st.cache_resource(show_spinner="Loading dataset…", max_entries=8)
def _load_saved(name: str, content_key: str) -> dict[str, Dataset]:
    """Cached by the dataset's content (:func:`evalcore.io.workspace.content_key`): a repaired
    hand edit keeps its ``saved_at`` but changes the key, so no session sees the old numbers."""
    coll = workspace.load_saved(name)
    for lp, ds in coll.items():  # CoNLL-U parses kept with the dataset
        files = workspace.saved_parses(name, lp)
        if files:
            from evalcore.syntax import register_conllu

            try:
                register_conllu(ds, files)
            except DataError:
                pass  # they were validated on upload; a changed dataset simply loses them
    return coll


def dataset_choices() -> dict[str, dict]:
    """Label -> metadata for the bundled sample and every saved dataset."""
    choices = {SAMPLE_KEY: {"name": None}}
    for meta in workspace.list_saved():
        choices[f"{meta['name']} (saved {meta.get('saved_at') or '?'})"] = meta
    return choices


def load_choice(label: str, meta: dict) -> dict[str, Dataset]:
    if meta.get("name") is None:
        return _load_sample()
    return _load_saved(meta["name"], meta.get("content_key") or workspace.content_key(meta))


def sidebar_dataset() -> Dataset | None:
    """The dataset picker in the sidebar; returns the chosen language pair's dataset."""
    choices = dataset_choices()
    labels = list(choices)
    if "dataset_label" not in st.session_state and st.query_params.get("dataset"):
        # a link like /systems?dataset=NAME&lp=en-de opens that saved dataset
        by_name = {m.get("name"): lbl for lbl, m in choices.items()}
        if st.query_params["dataset"] in by_name:
            st.session_state["dataset_label"] = by_name[st.query_params["dataset"]]
        else:  # never open something else silently
            st.session_state["_unknown_dataset"] = st.query_params["dataset"]
    if st.session_state.get("_unknown_dataset") and st.session_state.get("dataset_label") in (None, SAMPLE_KEY):
        from evalcore.present.highlight import escape

        st.sidebar.warning(f"The link asks for the dataset {escape(st.session_state['_unknown_dataset'])!s}, "
                           "but no saved dataset has that name: showing the bundled sample instead.")
    wanted = st.session_state.get("dataset_label")
    index = labels.index(wanted) if wanted in labels else 0
    label = st.sidebar.selectbox("Dataset", labels, index=index, key="dataset_select")
    st.session_state["dataset_label"] = label
    st.session_state["dataset_meta"] = choices[label]
    try:
        coll = load_choice(label, choices[label])
    except DataError as exc:
        from evalcore.present.highlight import escape

        errs = exc.report.errors
        st.sidebar.error(f"This dataset no longer validates: {len(errs)} problem(s). Repair or delete it "
                         "under Data › Saved datasets.\n\n" + "\n".join(f"- {escape(str(p))}" for p in errs[:10])
                         + (f"\n- … and {len(errs) - 10} more" if len(errs) > 10 else ""))
        return None
    except Exception as exc:  # keep the app running whatever happens
        show_exception(exc, "Could not load the dataset")
        return None
    lps = list(coll)
    if "lp_select" not in st.session_state and st.query_params.get("lp") in lps:
        st.session_state["lp_select"] = st.query_params["lp"]
    lp = st.sidebar.selectbox("Language pair", lps, format_func=lambda x: x or "-", key="lp_select") if len(lps) > 1 else lps[0]
    ds = coll[lp]
    st.sidebar.caption(f"{ds.n_segments} segments · {len(ds.ref_ids)} reference sets · "
                       f"{len(ds.systems)} systems · {len(ds.judgements)} judgements")
    sidebar_tokenizer(ds)
    return ds


def sidebar_tokenizer(ds: Dataset) -> str:
    """The tokenizer box (one choice per language pair, sacreBLEU's default for the target
    language preselected) and a caption stating the choice; returns the checked choice
    (:func:`tokenizer_of`), which each page passes on explicitly."""
    from evalcore.scoring.defaults import tokenizer_note
    from evalcore.metrics.tokenize import TOKENIZERS, SPM_TOKENIZERS, default_tokenizer, installed_tokenizers

    default = default_tokenizer(ds.lp)
    names = installed_tokenizers()  # without importing sacreBLEU: most pages never tokenise
    if default not in names:
        names.insert(0, default)
    missing = [t for t in TOKENIZERS if t not in names]
    spm = [t for t in missing if t in SPM_TOKENIZERS]
    why = (f" Unavailable here: {', '.join(missing)}" + (f" ({', '.join(spm)}: spBLEU's SentencePiece model, which "
           "sacreBLEU downloads on first use, is not on this server; evalcore never downloads at run time)"
           if spm else "") + ".") if missing else ""
    tok = st.sidebar.selectbox("Tokenizer (word-level metrics)", names, index=names.index(default),
                               key=f"tokenize_{ds.lp}", format_func=lambda t: f"{t} (default)" if t == default else t,
                               help="sacreBLEU's tokenizers." + why)
    st.sidebar.caption(md(tokenizer_note(ds, tok)))  # the language pair is user text
    return tokenizer_of(ds)


def tokenizer_of(ds: Dataset) -> str:
    """The tokenizer of the word-level metrics on ``ds`` in this session: the sidebar choice for
    its language pair, else sacreBLEU's default for its target language. Nothing is set
    anywhere: the page passes it (``tokenize=``) to every view that scores, and it is part of
    the page's query, so of its cache key."""
    from evalcore.metrics.tokenize import check_installed, default_tokenizer

    tok = st.session_state.get(f"tokenize_{ds.lp}") or default_tokenizer(ds.lp)
    try:
        return check_installed(tok)
    except ValueError as exc:  # e.g. a tokenizer whose package went away: say so, use the default
        st.warning(str(exc))
        return default_tokenizer(ds.lp)


def syntax_note(ds: Dataset) -> None:
    """Say why the syntactic metrics are missing from the metric lists, when they are."""
    from evalcore.scoring.defaults import syntax_status

    ok, reason = syntax_status(ds)
    if not ok:
        st.caption(f"Syntactic metrics (TREE, GRAM, LEVEL, shallow syntax) are unavailable: {md(reason)}. "
                   "Upload CoNLL-U parses to use them.")


def md(text) -> str:
    """The one escaper for user-derived text (dataset names, language pairs, system, reference,
    rater, criterion and metric names, exception texts) in anything Streamlit renders as
    Markdown: ``st.markdown``/``st.write``/``st.caption``, alerts, titles, widget labels and help.
    Markdown, LaTeX and HTML characters become character references and autolinks
    (``http://``, ``www.``, e-mail) are broken invisibly (:func:`evalcore.present.highlight.escape`);
    line breaks become spaces. Plain-text places (selectbox options, tables, Plotly) need none."""
    from evalcore.present.highlight import escape

    if text is None:
        return ""
    return escape(str(text).replace("\r", " ").replace("\n", " "))


def long_segment_note(ds: Dataset, metric_ids, tokenize: str | None = None) -> None:
    """Say which segments the alignment metrics (TER, WER, ROUGE-L/W/S) refuse because a text
    is longer than their cap (their scores are NaN and left out of corpus scores), in the tokens
    of ``tokenize`` (default: the page's tokenizer, :func:`tokenizer_of`)."""
    from evalcore.views import data as data_view

    query = data_view.MetricsQuery(ds.content_hash(), query_settings(tokenize or tokenizer_of(ds)), tuple(metric_ids))
    try:
        notes = cached(data_view.long_segment_notes, query, ds)
    except Exception:  # an unknown metric id: the page reports it where it scores
        return
    for w in notes:
        st.warning(md(w))


def show_notes(res, notes_as: str = "caption") -> None:
    """What a :class:`evalcore.core.results.Result` says beside its table: each warning as
    ``st.warning``, each note as ``st.caption`` (``notes_as="warning"``: as warnings too), escaped
    (they quote system, rater and metric names). The table itself is ``res.table``."""
    for w in res.warnings:
        st.warning(md(w))
    show = st.warning if notes_as == "warning" else st.caption
    for n in res.notes:
        show(md(n))


def show_exception(exc: BaseException, what: str = "Something went wrong") -> None:
    """A readable error instead of a raw traceback (details folded away)."""
    st.error(f"{md(what)}: {md(str(exc))}")  # messages quote user text (file names, ids)
    with st.expander("Technical details"):
        st.code("".join(traceback.format_exception(exc)), language="text")


#: How many problems a validation report lists in full text above its table.
REPORT_LINES = 30


def show_report(report, key: str = "report") -> None:
    """A validation report: errors first, then warnings, as a table with a download
    (``key`` tells several reports on one page apart)."""
    errors, warnings = report.errors, report.warnings
    if errors:
        st.error(f"{len(errors)} problem(s) found — nothing was loaded. Fix them and upload again.")
    if warnings:
        st.warning(f"{len(warnings)} warning(s) — the data was kept.")
    if errors or warnings:
        df = report.to_frame()
        # each message in full (a table cell cuts a long message to the column's width), errors first
        shown = [p for p in list(errors) + list(warnings)][:REPORT_LINES]
        st.markdown("\n".join(f"- {md(str(p))}" for p in shown))
        if len(errors) + len(warnings) > len(shown):
            st.caption(f"The first {len(shown)} of {len(errors) + len(warnings)} shown in full; every one is in "
                       "the table and its download below.")
        st.dataframe(df, hide_index=True, width="stretch")
        download_table(df, "validation_report", key=key)


def latex_table(df: pd.DataFrame, comment: str | None = None) -> str:
    """A booktabs LaTeX tabular of ``df`` (:func:`evalcore.core.export.latex_table`, the one writer)."""
    from evalcore.core.export import latex_table as write

    return write(download_frame(df), comment)


def download_frame(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` as the flat table a file holds: a meaningful index (named, or not 0..n-1) becomes
    columns, and two-level column names are joined with `` / `` (one header row, so
    ``pandas.read_csv`` and spreadsheets read it back with the shape shown on the page)."""
    out = df
    idx = df.index
    if any(n is not None for n in idx.names) or not idx.equals(pd.RangeIndex(len(df))):
        out = df.reset_index()
    if isinstance(out.columns, pd.MultiIndex):
        out = out.copy()
        out.columns = [" / ".join(str(p) for p in c if str(p) != "") for c in out.columns]
    return out


def table_csv(df: pd.DataFrame) -> bytes:
    """The CSV download of a table: a header row and the rows, nothing else (no comment line:
    ``pandas.read_csv`` and spreadsheets read it as it is; the signatures are a download of
    their own, :func:`signatures_file`). Text cells a spreadsheet would run as formulas (``=``,
    ``+``, ``-``, ``@``, tab, CR) are prefixed with ``'`` and every text cell is quoted
    (OWASP; :mod:`evalcore.core.export`), column names included."""
    from evalcore.core.export import to_safe_csv

    return to_safe_csv(download_frame(df)).encode("utf-8")


def signatures_file(signature: str, name: str) -> bytes:
    """The signatures download of the table ``name``: plain text, one line per metric
    (never inside the CSV, where a system or rater name in it could become a spreadsheet cell)."""
    parts = [p.strip() for p in str(signature).replace("\r", " ").split("\n")]
    return (f"Metric signatures of {name}.csv\n" + "\n".join(p for p in parts if p) + "\n").encode("utf-8")


def download_table(df: pd.DataFrame, name: str, key: str | None = None, signature: str | None = None) -> None:
    """CSV and LaTeX downloads of a table, and its metric signatures as a text file of their own.

    The CSV holds only the table (``pandas.read_csv`` reads it as shown); the LaTeX file has the
    signatures as a ``%`` comment. The files are built only when a button is clicked (deferred
    ``data`` callables), so large tables cost nothing on reruns. The signatures are also shown
    under the table. The page's settings line (:func:`settings_caption`) is added to them."""
    signature = with_settings(signature)
    if signature:
        st.caption(f"Signatures: {md(signature)}")
    cols = st.columns(3 if signature else 2)

    def csv() -> bytes:
        return table_csv(df)

    def tex() -> bytes:
        return latex_table(df, signature).encode("utf-8")

    cols[0].download_button("⬇ CSV", csv, f"{name}.csv", "text/csv", key=f"csv-{key or name}", on_click="ignore")
    cols[1].download_button("⬇ LaTeX", tex, f"{name}.tex", "text/x-tex", key=f"tex-{key or name}", on_click="ignore")
    if signature:
        cols[2].download_button("⬇ Signatures", lambda: signatures_file(signature, name), f"{name}_signatures.txt",
                                "text/plain", key=f"sig-{key or name}", on_click="ignore")


def download_figure(fig, name: str, key: str | None = None) -> None:
    """Downloads of a figure: interactive HTML (embeds plotly.js, works offline) and PNG, SVG and
    PDF for papers (rendered by kaleido with the machine's Chromium, the metric signatures as a
    caption). Every file gets :func:`evalcore.present.figures.paper_figure`'s explicit colour-blind-safe
    colours and label margins (the page's Streamlit theme colours exist only in the browser).
    Every file is built only when its button is clicked."""
    from evalcore.present import figures

    def html() -> bytes:
        buf = io.StringIO()  # paper colours: Streamlit's theme colours exist only in its browser code
        figures.paper_figure(fig).write_html(buf, include_plotlyjs=True, full_html=True)
        return buf.getvalue().encode("utf-8")

    def static(fmt: str):
        def build() -> bytes:
            try:
                return figures.static_image(fig, fmt)
            except figures.FigureExportError as exc:  # the file then explains why
                return f"{exc}\n".encode("utf-8")
        return build

    k = key or name
    cols = st.columns(4)
    cols[0].download_button("⬇ HTML", html, f"{name}.html", "text/html", key=f"fig-{k}", on_click="ignore")
    if figures.find_browser() is None:
        cols[1].caption("PNG/SVG/PDF need a Chromium on the server (`apt-get install chromium`); "
                        "the toolbar's camera icon saves a PNG.")
        return
    for col, fmt in zip(cols[1:], ("png", "svg", "pdf")):
        col.download_button(f"⬇ {fmt.upper()}", static(fmt), f"{name}.{fmt}", figures.FORMATS[fmt],
                            key=f"fig-{fmt}-{k}", on_click="ignore")


def current_dataset() -> Dataset:
    """The dataset chosen in the sidebar, or stop the page with a hint; a page that computes
    stops too, saying the numbers and the setting, when the dataset would exceed the server's
    memory budget (:func:`evalcore.core.budget.check_memory_budget`; the Data page still shows it)."""
    ds = st.session_state.get("dataset")
    if ds is None:
        st.info("No dataset loaded. Choose one in the sidebar.")
        st.stop()
    within_budget(ds)
    return ds


def within_budget(ds: Dataset) -> None:
    """Stop the page with the budget's message when ``ds`` would exceed the memory budget
    (checked once per dataset content and session: the estimate reads every text)."""
    from evalcore.core.budget import OverBudget, check_memory_budget

    seen = st.session_state.setdefault("_budget_checked", {})
    key = ds.content_hash()
    if key not in seen:
        try:
            check_memory_budget(ds)
            seen[key] = ""
        except OverBudget as exc:
            seen[key] = str(exc)
    if seen[key]:
        st.error(f"Not computed here: {md(seen[key])}.")
        st.stop()


def require_judged_multi_reference(ds: Dataset, judgements: bool = True) -> None:
    """Stop a QARLA page (Human-likeness, Likeness vs acceptability, QUEEN vs human) when the
    dataset lacks system outputs, ≥ 2 reference sets with text on a segment or (``judgements``)
    human judgements, saying exactly what it lacks (evalcore.core.capabilities)."""
    from evalcore.core.capabilities import qarla_missing
    from evalcore.present.highlight import escape

    missing = qarla_missing(ds, judgements, quote=escape)
    if missing:
        st.info(f"This page needs what this dataset lacks: {missing}. ORANGE, KING and QUEEN (Amigó et al. "
                "2005, 2006) hold each reference out in turn and score it, and every system output, against the "
                "other references of the segment, so one reference per segment leaves nothing to score against. "
                "Metric scores and their correlation with human judgements (Systems page) need only one "
                "reference; the Data page lists what this dataset supports.")
        st.stop()


def liveness_check():
    """A cheap check that raises Streamlit's ``StopException`` once this script run has been
    asked to stop, and does nothing otherwise (draws nothing; outside a script run, e.g. in a
    command, it never raises). Streamlit asks a run to stop when its session's websocket closes
    (the tab is closed or reloaded: ``disconnect_session`` -> ``request_script_stop``) and when
    the session is shut down (``AppSession.shutdown``; a disconnected session is kept for
    ``server.disconnectedSessionTTL``, 120 s by default, then shut down). Streamlit itself only
    notices at the next element it draws; computations that draw nothing call this through
    their progress callback (:func:`cached`), so they stop at their next progress report.
    The run's request object is taken here, in the script thread, so the check also works from a
    computation's worker threads. A rerun request (a widget changed) is left to Streamlit: the
    computation finishes and is cached."""
    from streamlit.runtime.scriptrunner_utils.script_requests import ScriptRequestType
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    ctx = get_script_run_ctx(suppress_warning=True)
    requests = ctx.script_requests if ctx is not None else None

    def check() -> None:
        # ScriptRequests has no public getter; its state is read without its lock (a stale
        # read only delays the stop to the next check), as Streamlit's own fast path does
        if requests is not None and getattr(requests, "_state", None) is ScriptRequestType.STOP:
            from streamlit.runtime.scriptrunner_utils.exceptions import StopException

            raise StopException()
    return check


def alive_progress(progress=None):
    """``progress`` (a (fraction, text) callback, or None) preceded by :func:`liveness_check`:
    the callback :func:`cached` gives every view function that takes ``progress=``."""
    check = liveness_check()

    def cb(*args, **kwargs) -> None:  # (fraction, text) or a view's own (done, total): passed on as given
        check()
        if progress is not None:
            progress(*args, **kwargs)
    return cb


def progress_bar(text: str):
    """A progress bar and its (fraction, text) callback. The callback runs in the page's
    context, outside any cached function's replay context, so st.cache_data does not record
    the bar; it first checks that the run is still wanted (:func:`liveness_check`: also when
    called from a worker thread, where drawing would not notice)."""
    bar = st.progress(0.0, text=text)
    ctx = contextvars.copy_context()
    check = liveness_check()

    def cb(f: float, t: str) -> None:
        check()
        ctx.run(bar.progress, min(1.0, max(0.0, float(f))), text=t)
    return bar, cb


@st.cache_resource(show_spinner=False, max_entries=8)
def _scoped(_ds, h: str, n: int | None):
    from evalcore.scoring import defaults as common_view

    return common_view.scoped(_ds, n)


def scope(ds: Dataset, key: str) -> Dataset:
    """Every segment by default. For data far bigger than a test set (more than
    ``common_view.SAMPLING_OFFERED_ABOVE`` segments) an explicit subset can be chosen under
    *Sampling*; when it is used the page says so. Also states the tokenizer of the word-level
    metrics (every page with metrics calls this)."""
    from evalcore.scoring import defaults as common_view

    st.caption(md(common_view.tokenizer_note(ds, tokenizer_of(ds))) + " Change it in the sidebar.")
    if ds.n_segments <= common_view.SAMPLING_OFFERED_ABOVE:
        return ds
    with st.expander(f"Sampling (optional): {ds.n_segments} segments, all used"):
        use = st.checkbox("Use a subset of the segments (judged ones first)", value=False, key=f"{key}_sample")
        n = st.number_input("Number of segments", 10, ds.n_segments, min(ds.n_segments, 1000), step=100,
                            key=f"{key}_scope", disabled=not use)
    if not use:
        return ds
    out = _scoped(ds, ds.content_hash(), int(n))
    st.warning(f"Sampled: this page uses {out.n_segments} of {ds.n_segments} segments (judged segments first, "
               "then in order; change under *Sampling*).")
    return out


@st.cache_resource(show_spinner=False)
def computed_keys() -> set:
    """Keys of results some session of this server has finished computing (server-wide): a page
    that draws its figure step by step while computing (Systems, Human-likeness) draws it once
    when the result is already cached, in any session."""
    return set()


def judged_only_control(ds: Dataset, key: str, container=None) -> bool:
    """The shared "judged segments only" switch of the pages that correlate with humans: on by
    default wherever human judgements exist (:data:`evalcore.scoring.settings.DEFAULTS`), as in the CLI."""
    from evalcore.scoring.settings import DEFAULTS

    box = container if container is not None else st
    return box.checkbox("Judged segments only", value=DEFAULTS.judged_only and bool(ds.criteria),
                        key=f"{key}_judged_only",
                        help="System-level metric scores over only the segments the humans judged for each "
                             "system: the default on every page and command wherever human judgements exist "
                             "(the CLI's --judged-only; off = --all-segments).")


#: The two human scores of a system shown side by side (the judges' consensus tables), labelled.
AGGREGATION_COLUMNS = {
    "mean_score": st.column_config.NumberColumn(
        "mean of rows", format="%.3f", help="Mean over every judgement row of the system: a segment weighs as "
                                            "often as it was judged."),
    "human_score": st.column_config.NumberColumn(
        "human score", format="%.3f", help="Mean over segments of the per-segment mean over raters: the human "
                                           "score of the Systems and Campaign pages and of correlate."),
}
AGGREGATION_CAPTION = ("Two aggregations of the same judgements: *human score* = mean over segments of the "
                       "per-segment mean over raters (the number on every other page and in correlate); *mean of "
                       "rows* = mean over every judgement row (segments judged by more raters weigh more).")


def query_settings(tokenize: str | None = None, **fields):
    """The :class:`evalcore.scoring.settings.Settings` a page query carries: the shared defaults
    with the page's explicit tokenizer (:func:`tokenizer_of`; None for a query that scores no
    metric) and the page's own choices (``fields``)."""
    from evalcore.scoring.settings import DEFAULTS

    return DEFAULTS.with_(tokenizer=tokenize, **fields)


def settings_of_page(ds: Dataset, judged_only: bool | None = None, include_refs: bool = False,
                     ref_ids=None, **fields):
    """The :class:`evalcore.scoring.settings.Settings` of this page run: the shared defaults, the
    sidebar's tokenizer, and the page's own choices."""
    from evalcore.metrics.tokenize import default_tokenizer
    from evalcore.scoring.settings import DEFAULTS

    judged = DEFAULTS.judged_only if judged_only is None else judged_only
    tok = tokenizer_of(ds)
    tok = None if tok == default_tokenizer(ds.lp) else tok  # the default, stated as the CLI states it
    settings = DEFAULTS.with_(judged_only=bool(judged), tokenizer=tok,
                              human_systems="include" if include_refs else "exclude",
                              references=tuple(ref_ids) if ref_ids else None, **fields)
    return settings.resolve(ds)[0]


def settings_caption(settings=None, ds: Dataset | None = None, criterion: str | None = None, container=None) -> str:
    """The one settings line (:meth:`evalcore.scoring.settings.Settings.describe`, the text commands write
    to stderr and exports carry) as a caption under a results section; returns the text.
    ``settings`` None: the shared defaults resolved on ``ds`` (:func:`settings_of_page`); a str:
    a line already stated (e.g. :func:`evalcore.scoring.settings.metatask_settings_line`)."""
    from evalcore.scoring.settings import DEFAULTS

    if settings is None:
        settings = settings_of_page(ds) if ds is not None else DEFAULTS
    text = settings if isinstance(settings, str) else settings.describe(ds, criterion)
    (container if container is not None else st).caption(f"Settings: {md(text)}.")
    st.session_state["_settings_line"] = text  # the downloads below carry it (download_table)
    return text


def with_settings(signature: str | None) -> str | None:
    """``signature`` with this page run's settings line (the last :func:`settings_caption`)
    appended, unless it already states it: what every download's signature carries."""
    line = st.session_state.get("_settings_line")
    if not line or (signature and line in signature):
        return signature
    return f"{signature} | settings: {line}" if signature else f"settings: {line}"


def segments_caption(table: pd.DataFrame, n_total: int, judged_only: str | None = None) -> None:
    """Say how many segments the metric scores are over (``n_segments`` of a system table)."""
    if "n_segments" not in table or table.empty:
        return
    kind = table["kind"] == "metric" if "kind" in table else slice(None)
    counts = sorted({int(x) for x in table.loc[kind, "n_segments"].dropna()})
    if not counts:
        return
    span = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"
    what = f"the segments judged for {md(judged_only)}" if judged_only else "every scorable segment"
    st.caption(f"Metric scores over {what}: {span} of {n_total} segments per system.")


@st.cache_data(show_spinner=False, max_entries=256)
def _cached_copy(name: str, key: str, _fn, _query, _data, _progress=None):
    return _fn(_data, _query) if _progress is None else _fn(_data, _query, progress=_progress)


@st.cache_resource(show_spinner=False, max_entries=256)
def _cached_shared(name: str, key: str, _fn, _query, _data, _progress=None):
    return _fn(_data, _query) if _progress is None else _fn(_data, _query, progress=_progress)


def cached(view_fn, query, data=None, *, progress=None, shared: bool = False):
    """The one way a page caches what it computes: ``view_fn(data, query)`` (with ``progress=``
    when given), cached under the view function's name and the query alone.

    ``query`` is the page's frozen dataclass (:mod:`evalcore.views.queries`: dataset content hash,
    tokenizer, every option), so it is the whole cache key; ``data`` is the unhashed input named
    by it (the dataset, or a table computed for the same query). ``view_fn`` must be a named
    function (a lambda has no name to key by). ``shared=False``: st.cache_data, each caller gets
    its own copy (tables a page may change); ``shared=True``: st.cache_resource, the cached object
    itself (figures and tables a page only displays: st.cache_data would unpickle and validate a
    Plotly figure again on every rerun); the caller must not modify it.

    Progress: ``progress`` is a callback of :func:`progress_bar`, which draws in the page's own
    context, outside the cached function's replay context, so the bar is never recorded and
    replayed by the cache. A view function that takes ``progress=`` always gets a callback, also
    without a bar: :func:`alive_progress`, so its work stops at its next progress report once
    the session's run has been asked to stop (the tab closed)."""
    from evalcore.views.queries import check_data, query_key

    name = getattr(view_fn, "__qualname__", "")
    if not name or "<lambda>" in name:
        raise TypeError("cached() needs a named view function (the cache is keyed by its name)")
    check_data(data, query)
    if progress is not None or _takes_progress(view_fn):  # (not part of the key: stops work no one waits for)
        progress = alive_progress(progress)
    run = _cached_shared if shared else _cached_copy  # the key: the function's name and the query's repr
    return run(f"{view_fn.__module__}.{name}", query_key(query), view_fn, query, data, progress)


def on_request(key: str, label: str, progress_text: str, view_fn, query, data, failure: str):
    """What a section computes only when asked: nothing until the button ``label`` is clicked
    (then remembered for the session, ``<key>_on``), then ``cached(view_fn, query, data)`` under a
    progress bar. A ``ValueError`` (too little data: its message says what is needed) becomes an
    info box "``failure``: message", any other failure is shown; None then, or before the click."""
    if not st.session_state.get(f"{key}_on") and not st.button(label, key=f"{key}_go"):
        return None
    st.session_state[f"{key}_on"] = True
    bar, cb = progress_bar(progress_text)
    try:
        result = cached(view_fn, query, data, progress=cb)
    except ValueError as exc:
        bar.empty()
        st.info(f"{failure}: {md(str(exc))}")
        return None
    except Exception as exc:
        bar.empty()
        show_exception(exc, failure)
        return None
    bar.empty()
    return result


def _takes_progress(view_fn) -> bool:
    """Whether ``view_fn`` takes a ``progress=`` argument (:func:`cached` then always passes one)."""
    import inspect

    try:
        return "progress" in inspect.signature(view_fn).parameters
    except (TypeError, ValueError):
        return False


def terms(*names: str) -> None:
    """The "Terms on this page" box: each term with its plain-language definition (also as hover
    help), from :mod:`evalcore.present.glossary`; docs/methods.md has the full definitions."""
    from evalcore.present.glossary import entries

    with st.expander("📖 Terms on this page"):
        for term, text in entries(names):
            st.markdown(f"**{md(term)}**: {md(text)}", help=text)


def ranking_section(ds: Dataset, criterion: str, key: str, name: str) -> None:
    """The human ranking of the systems with significance clusters (WMT24 procedure, methods
    §3.12): the test choice, then, when switched on, the clustered bars, the p-value heatmap and
    the table (Systems and Campaign pages; widget keys prefixed by ``key``)."""
    from evalcore.views import judges as judges_view

    st.caption("System scores macro-averaged over domains, pairwise significance (two-sided Wilcoxon per "
               "domain combined over domains, as WMT24; or paired bootstrap / approximate randomisation), "
               f"rank ranges and clusters of **{md(criterion)}** (methods §3.12).")
    r2, r3 = st.columns(2)
    test = r2.radio("Test", ["wilcoxon", "bootstrap", "ar"], horizontal=True, key=f"{key}_rank_test")
    if not r3.toggle("Compute the ranking", value=False, key=f"{key}_rank_on"):
        return
    try:
        table, bars, heat = cached(judges_view.system_ranking, judges_view.CriterionQuery(ds.content_hash(), query_settings(), criterion, test), ds,
                                   shared=True)
    except Exception as exc:
        show_exception(exc, "Could not rank the systems")
        return
    from evalcore.stats.tables import human_systems

    ranked_humans = human_systems(ds, [str(s) for s in table["system"]]) if "system" in table else []
    if ranked_humans:  # the page's settings line leaves them out of the correlations: say they are ranked here
        st.caption(f"Human translations are ranked here with the systems, as WMT ranks them: "
                   f"{md(', '.join(ranked_humans))} (the correlations and the verdict's best system leave them "
                   "out unless *Include human translations* is on).")
    st.plotly_chart(bars, width="stretch", key=f"{key}_rank_bars")
    download_figure(bars, f"{name}_ranking", key=f"{key}_rank_bars_dl")
    st.plotly_chart(heat, width="stretch", key=f"{key}_rank_heat")
    download_figure(heat, f"{name}_ranking_pvalues", key=f"{key}_rank_heat_dl")
    st.dataframe(table, hide_index=True, width="stretch")
    download_table(table, f"{name}_ranking", key=f"{key}_rank_tab")


def latest_saved(name: str, lp: str) -> Dataset:
    """Language pair ``lp`` of the saved dataset ``name`` as it is on disk now (other sessions may
    have added to it since this run's sidebar loaded it), from the content-keyed cache."""
    meta = next((m for m in workspace.list_saved() if m["name"] == name), None)
    if meta is None:
        raise FileNotFoundError(f"no saved dataset named {name!r}")
    return _load_saved(name, meta.get("content_key") or workspace.content_key(meta))[lp]


def current_collection() -> dict[str, Dataset]:
    """Every language pair of the dataset chosen in the sidebar (the pages that compare pairs),
    or stop the page with a hint or the loading error."""
    current_dataset()  # stops with a hint when nothing is loaded
    label, meta = st.session_state.get("dataset_label"), st.session_state.get("dataset_meta")
    try:
        return load_choice(label, meta or {"name": None})
    except Exception as exc:
        show_exception(exc, "Could not load the dataset")
        st.stop()


def span_layers(ds: Dataset, query) -> dict:
    """The span layers of one output (:func:`evalcore.views.queries.output_layers` of a
    ``SpansQuery``) through the one page cache; the spans each ``xcomet:MODEL`` of
    ``query.metrics`` predicts are read from the neural cache (left there beside the scores when
    the page scored the metric) or predicted for this output under a progress bar. The
    Divergence and Compare pages."""
    from evalcore.views import spans as spans_view

    what = md(", ".join(query.metrics))
    bar, cb = progress_bar("Predicting error spans: " + what) if query.metrics else (None, None)
    try:
        return cached(spans_view.layers, query, ds, shared=True,
                      progress=(lambda d, t: cb(d / max(t, 1), f"Predicting error spans: {what} ({d} of {t} rows)"))
                      if cb else None)
    finally:
        if bar is not None:
            bar.empty()


def span_signature_captions(layers: dict, container=None) -> None:
    """One caption per metric whose predicted spans are drawn: its span signature."""
    where = container if container is not None else st
    for metric, sig in layers.get("span_signatures", {}).items():
        where.caption(f"Spans of {md(metric)}: {md(sig)}")
