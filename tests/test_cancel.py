"""Work is cancelled when its session ends: pages.common.liveness_check raises Streamlit's
StopException once the script run has been asked to stop (the tab closed: Streamlit's
disconnect_session / AppSession.shutdown call request_script_stop), and cached() hands every view
function that takes progress= a callback that checks it, so a computation that draws nothing
stops at its next progress report instead of running to the end."""
from __future__ import annotations

import types
import uuid
from dataclasses import dataclass

import numpy as np
import pytest
from streamlit.runtime.scriptrunner_utils.exceptions import StopException
from streamlit.runtime.scriptrunner_utils.script_requests import RerunData, ScriptRequests
from streamlit.testing.v1 import AppTest

from evalcore.views.queries import Query
from pages import common

N_STEPS = 200


@dataclass(frozen=True)
class LoopQuery(Query):
    steps: int = N_STEPS


def looping_view(counter: list, q: LoopQuery, progress=None) -> int:
    """A view function that draws nothing and reports progress once a step."""
    for i in range(q.steps):
        counter.append(i)
        if progress:
            progress((i + 1) / q.steps, "looping")
    return len(counter)


def plain_view(counter: list, q: LoopQuery) -> int:
    counter.append(0)
    return len(counter)


def fresh_query(steps: int = N_STEPS) -> LoopQuery:
    return LoopQuery(f"cancel-test-{uuid.uuid4().hex}", steps=steps)  # never a cache hit


def fake_run(monkeypatch, requests: ScriptRequests | None) -> None:
    """This thread inside a script run whose request object is ``requests``."""
    import streamlit.runtime.scriptrunner_utils.script_run_context as src

    ctx = None if requests is None else types.SimpleNamespace(script_requests=requests)
    monkeypatch.setattr(src, "get_script_run_ctx", lambda suppress_warning=False: ctx)


def test_liveness_check_outside_a_run_never_raises(monkeypatch):
    fake_run(monkeypatch, None)
    common.liveness_check()()  # a command, a test: no script run, nothing to stop


def test_liveness_check_raises_once_stop_is_requested(monkeypatch):
    req = ScriptRequests()
    fake_run(monkeypatch, req)
    check = common.liveness_check()
    check()  # running: nothing happens
    req.request_stop()
    with pytest.raises(StopException):
        check()


def test_liveness_check_leaves_a_rerun_to_streamlit(monkeypatch):
    req = ScriptRequests()
    fake_run(monkeypatch, req)
    req.request_rerun(RerunData())
    common.liveness_check()()  # no raise
    assert req.on_scriptrunner_yield() is not None  # and the rerun request is not consumed


def test_cached_stops_a_silent_view_once_stop_is_requested(monkeypatch):
    req = ScriptRequests()
    fake_run(monkeypatch, req)
    req.request_stop()
    counter: list = []
    with pytest.raises(StopException):
        common.cached(looping_view, fresh_query(), counter)  # no progress= from the page
    assert len(counter) == 1  # stopped at its first progress report, not after N_STEPS


def test_cached_runs_a_silent_view_to_the_end_while_wanted(monkeypatch):
    fake_run(monkeypatch, ScriptRequests())
    counter: list = []
    assert common.cached(looping_view, fresh_query(), counter) == N_STEPS
    assert common.cached(plain_view, fresh_query(), counter) == N_STEPS + 1  # no progress= given


def test_page_progress_callback_checks_liveness(monkeypatch):
    req = ScriptRequests()
    fake_run(monkeypatch, req)
    seen: list = []
    cb = common.alive_progress(lambda f, t: seen.append(f))
    cb(0.5, "half")
    req.request_stop()
    with pytest.raises(StopException):
        cb(1.0, "done")
    assert seen == [0.5]


def _stopping_page(view, query, counter):
    import streamlit as st
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    from pages.common import cached

    get_script_run_ctx().script_requests.request_stop()  # what closing the tab does
    n = cached(view, query, counter)
    st.write(f"finished {n}")


def test_a_page_run_asked_to_stop_stops_its_silent_computation():
    """A real script run (AppTest): its stop requested, the cached computation that draws
    nothing stops after one step (before: all N_STEPS ran to the end)."""
    counter: list = []
    at = AppTest.from_function(_stopping_page, args=(looping_view, fresh_query(), counter), default_timeout=60)
    at.run()
    assert len(counter) == 1
    assert not any("finished" in m.value for m in at.markdown)


def test_segment_statistics_report_progress_every_chunk_rows(monkeypatch):
    """Scoring reports progress at most CHUNK_ROWS rows apart (so a page's liveness check runs
    that often), with the same rows as one call over every item."""
    from evalcore.metrics import engine
    from evalcore.metrics.base import get_metric

    rng = np.random.default_rng(3)
    words = ["a", "cat", "sat", "on", "the", "mat", "dog"]
    n = 103
    cands = [" ".join(rng.choice(words, size=rng.integers(1, 6))) for _ in range(n)]
    refs = [[" ".join(rng.choice(words, size=rng.integers(1, 6)))] for _ in range(n)]
    seg_pos = list(rng.integers(0, 40, size=n))
    metric = get_metric("bleu")
    monkeypatch.setattr(engine, "CHUNK_ROWS", 7)
    done: list = []
    got = engine._stats_by_segment(metric, cands, refs, seg_pos, lambda d, t: done.append(d))
    assert done[-1] == n and len(done) >= n // 7
    assert max(np.diff([0] + done)) <= 7
    want = np.asarray(metric.segment_stats(cands, refs), dtype=float)
    np.testing.assert_array_equal(got, want)


def test_the_systems_table_stops_within_one_chunk_once_stop_is_requested(monkeypatch, workspace_home):
    """The Systems page's scores table, called as the page calls it (no bar): once the run's stop
    is requested it scores one chunk of segments and stops (before: every segment was scored
    and the table returned)."""
    from conftest import SAMPLE

    from evalcore.io import load_dataset
    from evalcore.metrics import engine
    from evalcore.metrics.base import get_metric
    from evalcore.scoring.settings import DEFAULTS
    from evalcore.views import systems as V

    ds = load_dataset(SAMPLE)
    cls = type(get_metric("bleu"))
    scored: list = []
    real = cls.segment_stats

    def counting(self, cands, refs):
        scored.append(len(cands))
        return real(self, cands, refs)

    monkeypatch.setattr(cls, "segment_stats", counting)
    monkeypatch.setattr(engine, "CHUNK_ROWS", 5)
    req = ScriptRequests()
    fake_run(monkeypatch, req)
    req.request_stop()
    q = V.SystemsQuery(ds.content_hash(), DEFAULTS, ("bleu",), (), None, "raw", 0, "bootstrap")
    with pytest.raises(StopException):
        common.cached(V.systems_table, q, ds)
    n_rows = len(ds.seg_ids) * len(ds.systems)
    assert scored and sum(scored) <= 5 < n_rows
