"""Learned metrics: train a BEER-style ranker (Stanojević & Sima'an 2015) or a human-likeness classifier
(Kulesza 2004) on the chosen dataset, inspect it, compare it with sentence BLEU and chrF on held-out
segments, and save it as the metric ``learned:NAME``. Thin: the work is in evalcore.learned."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import streamlit as st

from evalcore.present import plots_learned as PL
from evalcore.learned import pipeline as LP
from evalcore.learned import store
from evalcore.learned.humanlike import segment_references
from evalcore.core.problems import DataError
from pages.common import current_dataset, download_figure, download_table, progress_bar, show_exception

from pages.common import ensure_shell

ensure_shell(__file__)
from pages.common import settings_caption, settings_of_page  # noqa: E402  (the one settings line)
st.title("Learned metrics")
from pages.common import terms  # noqa: E402

terms('BEER', 'human-likeness', 'Pearson')
st.markdown(
    "Train a metric from the data you already have, then check whether it beats sentence BLEU and chrF on "
    "segments it never saw.\n\n"
    "* **BEER-style ranker** (Stanojević & Sima'an 2015, methods §6.1): character n-gram and function/content-word P/R/F plus "
    "word-order (permutation-tree) features; a logistic regression learns, from pairs of outputs of the same "
    "segment that the humans ranked, which output is better. Needs human judgements.\n"
    "* **Human-likeness classifier** (Kulesza 2004): each reference scored against the *other* references is a "
    "'human' example, each system output scored against the same references a 'machine' example; an SVM "
    "(or a logistic regression) learns to tell them apart, and its signed distance to the boundary is the "
    "metric. Needs at least two references per segment; human judgements are only used for evaluation.")

ds = current_dataset()

KIND_LABELS = {"beer": "BEER-style ranker (Stanojević & Sima'an 2015)", "humanlike": "Human-likeness classifier (Kulesza 2004)"}
C_CHOICES = [0.01, 0.1, 1.0, 10.0, 100.0, 1000.0]
GAMMA_CHOICES = [0.001, 0.01, 0.1, 1.0, 10.0]


def show_data_error(exc: DataError, what: str) -> None:
    """A data problem: a short message and the problems as a table (user text stays in cells)."""
    st.error(f"{what}: the data does not support it.")
    st.dataframe(exc.report.to_frame(), hide_index=True, width="stretch")


def default_name(kind: str) -> str:
    """kind-DATASET[-LP], reduced to the characters a model name allows."""
    base = ds.name if not ds.lp or str(ds.name).endswith(str(ds.lp)) else f"{ds.name}-{ds.lp}"
    return re.sub(r"[^a-z0-9_.\-]+", "-", f"{kind}-{base}".lower()).strip("-.")[:80] or kind


h = ds.content_hash()  # (training uses its own tokenizer option, not the sidebar's)
n_multi = sum(1 for refs in segment_references(ds).values() if len(refs) >= 2)
n_judged = len(LP.judged_segments(ds))

# ------------------------------------------------------------------ options
kind = st.radio("Kind of learned metric", list(KIND_LABELS), format_func=KIND_LABELS.get, horizontal=True,
                key="lm_kind")
can_train = True
criterion = None
c1, c2, c3 = st.columns(3)
if ds.criteria:
    criterion = c1.selectbox("Human criterion", ds.criteria, index=0, key="lm_criterion",
                             help="BEER: the human scores the ranker learns from and is evaluated on; "
                                  "human-likeness: used only to evaluate.")
    lower = c1.checkbox("Lower is better (ranks, error counts)", value=False, key="lm_lower")
else:
    lower = False
    if kind == "beer":
        c1.warning("This dataset has no human judgements: the BEER-style ranker cannot be trained.")
        can_train = False
    else:
        c1.info("No human judgements: the classifier can still be trained, but not compared with humans.")
settings_caption(settings_of_page(ds), ds, criterion)
if kind == "humanlike" and n_multi < 3:
    st.warning(f"The human-likeness classifier needs segments with at least two references (each reference is "
               f"scored against the others); {n_multi} of {ds.n_segments} segments have two or more, and at "
               "least 3 are needed.")
    can_train = False
if kind == "beer" and ds.criteria and n_judged < 2:
    st.warning(f"Only {n_judged} judged segment(s): too few to train and hold some out.")
    can_train = False

test_fraction = c2.slider("Held-out fraction of segments", 0.0, 0.6, 1 / 3, step=0.05, key="lm_test",
                          help="Segments kept out of training for the evaluation; no segment is on both sides. "
                               "0 = train on everything (no held-out comparison).")
threshold = c2.number_input("Human-score threshold", 0.0, value=0.0, step=0.5, key="lm_threshold",
                            help="Pairs of outputs count only when their human scores differ by more than this "
                                 "(BEER training pairs and daRR pairs; WMT DA used 25 on a 0-100 scale).")
seed = c2.number_input("Random seed (split)", 0, 10_000, 0, key="lm_seed")
if kind == "beer":
    C = c3.select_slider("Regularisation C (logistic regression)", C_CHOICES, value=100.0, key="lm_beer_C",
                         help="Larger = weaker L2 regularisation (Stanojević & Sima'an 2015 used almost none).")
    options = dict(C=float(C))
else:
    estimator = c3.selectbox("Estimator", ["svc", "logreg"], key="lm_estimator",
                             format_func={"svc": "SVM, RBF kernel (Kulesza 2004)",
                                          "logreg": "logistic regression (fast baseline)"}.get)
    C_grid = c3.multiselect("C grid", C_CHOICES, default=[0.1, 1.0, 10.0, 100.0], key="lm_C_grid")
    gamma_grid = c3.multiselect("γ grid (RBF)", GAMMA_CHOICES, default=[0.01, 0.1, 1.0], key="lm_gamma_grid",
                                disabled=estimator != "svc")
    if not C_grid or (estimator == "svc" and not gamma_grid):
        c3.warning("Choose at least one value in each grid.")
        can_train = False
    options = dict(estimator=estimator, C_grid=tuple(sorted(C_grid)),
                   gamma_grid=tuple(sorted(gamma_grid)) if estimator == "svc" else (0.1,))
options.update(criterion=criterion, test_fraction=float(test_fraction), threshold=float(threshold),
               higher_is_better=not lower, seed=int(seed))
run_key = (h, kind, tuple(sorted((k, str(v)) for k, v in options.items())))

clicked = st.button("Train", type="primary", key="lm_train", disabled=not can_train)
if clicked:
    bar, cb = progress_bar("Training…")
    try:
        run = LP.train_and_compare(ds, kind, default_name(kind), progress=cb, **options)
        st.session_state["lm_run"] = {"key": run_key, "run": run}
        st.session_state.pop("lm_saved_as", None)
        st.session_state["lm_save_name"] = default_name(kind)  # the save box follows the new model
    except DataError as exc:
        show_data_error(exc, "Could not train")
    except Exception as exc:
        show_exception(exc, "Could not train")
    finally:
        bar.empty()

stored = st.session_state.get("lm_run")
run: LP.LearnedRun | None = None
if stored is not None and stored["key"][0] == h:
    run = stored["run"]
    if stored["key"] != run_key:
        st.info("The options changed since this model was trained: the results below are for the earlier "
                "options. Press **Train** to retrain.")
elif can_train:
    st.info("Choose the options and press **Train**. Nothing is trained until you do: on the bundled sample "
            "(33 segments, 6 references, 7 systems) it takes a few seconds; on large datasets, minutes.")


def fmt(x) -> str:
    return "n/a" if x is None or (isinstance(x, float) and not np.isfinite(x)) else f"{x:.3f}"


def num_config(df: pd.DataFrame, digits: int = 3) -> dict:
    return {c: st.column_config.NumberColumn(format=f"%.{digits}f") for c in df.columns
            if pd.api.types.is_float_dtype(df[c])}


def show_results(run: LP.LearnedRun) -> None:
    model, base = run.model, f"{ds.name}_{run.kind}"
    st.header(f"Results: {KIND_LABELS[run.kind]}")
    m = st.columns(4)
    m[0].metric("training segments", len(run.train_segments))
    m[1].metric("held-out judged segments", len(run.test_segments))
    if run.kind == "beer":
        m[2].metric("training pairs", model.scores.get("train_pairs", 0))
        m[3].metric("training pairwise accuracy", fmt(model.scores.get("train_pairwise_accuracy")))
    else:
        acc = run.accuracy or {}
        m[2].metric("held-out accuracy" if "note" not in acc else "CV accuracy", fmt(acc.get("overall")))
        m[3].metric("ROC AUC (learned)", fmt(run.roc["learned"]["auc"]) if "learned" in run.roc else "n/a")
    for note in run.notes:
        st.text(f"Note: {note}")

    # ---- weights / importances
    if run.kind == "beer":
        st.subheader("Feature weights")
        st.markdown("Weights of the logistic regression on feature differences (methods §6.1): positive = the "
                    "feature makes an output look better. Features are not standardised, so compare signs and "
                    "orders of magnitude rather than exact sizes.")
        wt, value, err = run.weights, "weight", None
    else:
        st.subheader("Feature importances")
        st.markdown("Permutation importance on the held-out examples: the drop in classification accuracy when "
                    "one feature's values are shuffled (mean ± sd of 10 shuffles). An RBF SVM has no per-feature "
                    "weights; a logistic regression's standardised weights are shown too.")
        wt = run.weights
        value, err = ("importance", "importance_sd") if "importance" in wt else ("weight", None)
    if value in wt:
        fig = PL.weights_figure(wt, value, err, title="Feature weights" if value == "weight"
                                else "Permutation importance (held-out accuracy drop)")
        st.plotly_chart(fig, width="stretch", key="lm_weights_fig")
        download_figure(fig, f"{base}_weights", key="lm_weights_fig_dl")
    st.dataframe(wt, hide_index=True, width="stretch", height=260, column_config=num_config(wt, 4))
    download_table(wt, f"{base}_weights", key="lm_weights")

    # ---- ROC
    st.subheader("Telling human from machine translations")
    if run.roc:
        st.markdown("Held-out references (each scored against the other references) against system outputs "
                    "scored against the same references. Axes as in Kulesza 2004 Fig. 2.2: a curve bending to the "
                    "upper right separates better; the diagonal is chance. WER and PER are negated so that "
                    "higher = more human-like.")
        fig = PL.roc_figure(run.roc)
        st.plotly_chart(fig, width="stretch", key="lm_roc_fig")
        download_figure(fig, f"{base}_roc", key="lm_roc_fig_dl")
        auc = pd.DataFrame({"metric": list(run.roc), "auc": [v["auc"] for v in run.roc.values()]})
        st.dataframe(auc, hide_index=True, column_config=num_config(auc))
        download_table(auc, f"{base}_roc_auc", key="lm_auc")
    else:
        st.info("No ROC curves: they need held-out segments with at least two references.")

    # ---- accuracy vs correlation
    if run.kind == "humanlike" and run.grid is not None:
        st.subheader("Accuracy vs correlation across the grid")
        meta = (run.meta_correlation or {})
        acc_col = meta.get("accuracy", "cv_accuracy")
        if "pearson" in run.grid:
            st.markdown("Each point is one grid model (C, γ). If training for *human-likeness* also trains for "
                        "*agreement with humans*, the points rise to the right (Kulesza 2004 Fig. 4.2 found a "
                        "meta-correlation of 0.855).")
            fig = PL.accuracy_correlation_figure(run.grid, acc_col, meta.get("pearson"),
                                                 {"C": model.params.get("C"), "gamma": model.params.get("gamma")})
            st.plotly_chart(fig, width="stretch", key="lm_acc_fig")
            download_figure(fig, f"{base}_accuracy_vs_correlation", key="lm_acc_fig_dl")
            st.caption(f"Meta-correlation (Pearson of {acc_col.replace('_', ' ')} and Pearson-with-humans across "
                       f"{meta.get('n_grid', len(run.grid))} models): {fmt(meta.get('pearson'))}. "
                       f"Selected model (best cross-validated accuracy): C = {model.params.get('C')}, "
                       f"γ = {model.params.get('gamma')}.")
        else:
            st.info("No correlation with human judgements (no judged held-out outputs): only accuracies are shown.")
        st.dataframe(run.grid, hide_index=True, width="stretch", column_config=num_config(run.grid))
        download_table(run.grid, f"{base}_grid", key="lm_grid")

    # ---- held-out comparison
    st.subheader("Held-out comparison with sentence BLEU and chrF")
    if run.heldout is not None:
        st.markdown("On the held-out segments only. **seg_darr**: WMT daRR Kendall-like τ (pairs of outputs of "
                    "a segment whose human scores differ; metric ties count against). **seg_acc23**: pairwise "
                    "accuracy with ties per segment (ε = 0); **seg_acc23_cal** with WMT23 tie calibration "
                    "(the ε it chose is **acc23_epsilon**, on each metric's own scale). **sys_pearson**: "
                    "Pearson r of the system means. With few systems or segments these numbers are noisy.")
        fig = PL.comparison_figure(run.heldout)
        st.plotly_chart(fig, width="stretch", key="lm_cmp_fig")
        download_figure(fig, f"{base}_heldout_comparison", key="lm_cmp_fig_dl")
        st.dataframe(run.heldout, hide_index=True, width="stretch", column_config=num_config(run.heldout, 4),
                     key="lm_heldout_table")
        download_table(run.heldout, f"{base}_heldout_comparison", key="lm_heldout",
                       signature="sentBLEU/chrF: sacreBLEU defaults; " + model.name)
        with st.expander("Scored held-out outputs"):
            rows = run.heldout_frame.drop(columns=["refs"])
            st.dataframe(rows, hide_index=True, width="stretch", height=300, column_config=num_config(rows))
            download_table(rows, f"{base}_heldout_rows", key="lm_heldout_rows")
    else:
        st.info("No held-out comparison (it needs a held-out fraction above 0 and judged held-out segments).")

    # ---- save
    st.subheader("Save the model")
    s1, s2 = st.columns([3, 1])
    if "lm_save_name" not in st.session_state:
        st.session_state["lm_save_name"] = default_name(run.kind)
    name = s1.text_input("Model name (lower-case letters, digits, '-', '_', '.')", key="lm_save_name")
    if s2.button("Save model", key="lm_save"):
        try:
            key = store.check_name(name)
            exists = key in store.list_models()
            model.name = key
            store.save_model(model)
            st.session_state["lm_saved_as"] = (key, exists)
        except ValueError as exc:
            st.error("Invalid model name.")
            st.text(str(exc))
        except Exception as exc:
            show_exception(exc, "Could not save the model")
    saved = st.session_state.get("lm_saved_as")
    if saved:
        st.success("Saved (replacing the earlier model of that name). It is now a metric on every page:"
                   if saved[1] else "Saved. It is now a metric on every page:")
        st.code(f"learned:{saved[0]}", language="text")


if run is not None:
    try:
        show_results(run)
    except Exception as exc:
        show_exception(exc, "Could not show the results")

# ------------------------------------------------------------------ saved models
st.header("Saved models")
try:
    names = store.list_models()
    rows = []
    for n in names:
        try:
            mdl = store.load_model(n)
            learned = [r for r in mdl.scores.get("heldout", []) if str(r.get("metric", "")).startswith("learned")]
            rows.append({"metric id": f"learned:{n}", "kind": mdl.kind, "features": len(mdl.features),
                         "created": mdl.created, "trained on this dataset": mdl.data_hash == h,
                         "held-out daRR τ": (learned[0].get("seg_darr") if learned else None),
                         "held-out sys Pearson": (learned[0].get("sys_pearson") if learned else None)})
        except Exception as exc:  # a broken file must not hide the others
            rows.append({"metric id": f"learned:{n}", "kind": f"unreadable: {type(exc).__name__}"})
    if rows:
        table = pd.DataFrame(rows)
        st.dataframe(table, hide_index=True, width="stretch", column_config=num_config(table),
                     key="lm_saved_table")
        download_table(table, "learned_models", key="lm_saved")
        d1, d2 = st.columns([3, 1])
        victim = d1.selectbox("Model to delete", names, key="lm_delete_pick")
        if d2.button("Delete", key="lm_delete"):
            store.delete_model(victim)
            st.session_state.pop("lm_saved_as", None)
            st.rerun()
        st.caption("Saved models appear as metrics `learned:NAME` in every metric picker and in the CLI "
                   "(`python -m evalcore score … --metrics learned:NAME`). Models folder:")
        st.text(str(store.models_dir()))
    else:
        st.caption("No saved model yet. Train one above and save it.")
except Exception as exc:
    show_exception(exc, "Could not list the saved models")
