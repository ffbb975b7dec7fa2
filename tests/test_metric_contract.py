"""Every registered metric keeps the contract declared on ``evalcore.metrics.base.Metric``.

Iterates ``metric_ids()`` (no list written here: a metric added later is checked too) and, for
each id, on a small synthetic dataset (missing references included, so ``nrefs`` varies):

* the hooks it overrides take the parameters the base class declares, ``serves_segments`` is
  set exactly when it provides ``sentence_scores_of``, and ``signature(nrefs, level)`` is a
  :class:`~evalcore.metrics.base.Signature` (``nrefs`` first, ``version`` last) that formats
  stably and parses back to the same fields;
* the per-pair definition (``sentence_score`` / ``similarity`` one item at a time) equals the
  block path (``segment_blocks``, the similarity tensors), the statistics path (``score_table``),
  the family/chunk path (``levels.iter_score_levels``) and the Dask path (``parallel`` with a
  ``local:2`` cluster), value for value;
* with the length cap lowered, a text over it is refused (NaN for the quadratic metrics) without
  any quadratic kernel ever touching it (``kernel_spy``: work counted, not time), and every
  quadratic metric's normal run does go through the instrumented kernels (so the check bites).

One test, ``test_contract``, parametrised per id AND per check (as scikit-learn's
``parametrize_with_checks``): test ids read ``test_contract[bleu-every_path]``, so
``pytest -k bleu-4`` runs that id's checks alone, and each id computes only its own score tables
(:func:`_tables`, kept per id). The Dask path scores the ids this session selected in one pass on
one ``local:2`` cluster (``dask_tables``, per session). Capability tags: a metric that cannot
score here (``Metric.unavailable``: torch, spaCy or a model missing) skips its scoring checks with
that reason, never an error.
"""
from __future__ import annotations

import functools
import inspect

import numpy as np
import pandas as pd
import pytest

import evalcore.metrics.base as base
from evalcore.core.dataset import Dataset
from evalcore.metrics.base import Metric, Signature, get_metric, metric_ids
from kernel_spy import spy_quadratic

IDS = metric_ids()
CAP = 30  # the lowered cap of the long-segment checks

#: the hooks of the contract: every public method the base class declares (read from it, so a
#: hook added to Metric is checked without editing this list)
HOOKS = [name for name, v in vars(Metric).items()
         if not name.startswith("_") and (inspect.isfunction(v) or isinstance(v, (staticmethod, classmethod)))]


def _params(fn) -> list[str]:
    return [p for p in inspect.signature(fn).parameters if p not in ("self", "cls")]


def _dataset() -> Dataset:
    rng = np.random.default_rng(7)
    words = ("the a cat dog sat ran on under mat house red small big quickly slowly and of to in it is was "
             "bird tree river green old new man woman child saw".split())

    def sent(n=None):
        return " ".join(rng.choice(words, size=n or int(rng.integers(4, 11)))) + "."

    segs = pd.DataFrame({"seg_id": [str(i) for i in range(1, 6)]})
    refs, outs = [], []
    for s in segs["seg_id"]:
        for j in range(3):
            if not (s == "2" and j == 2) and not (s == "4" and j > 0):  # 3, 2 or 1 references
                refs.append((s, f"ref-{j}", sent()))
        for a in range(3):
            if not (s == "3" and a == 1):  # a missing output
                outs.append((f"sys-{a}", s, sent()))
    return Dataset("contract", "xx-en", segs, pd.DataFrame(refs, columns=["seg_id", "ref_id", "text"]),
                   pd.DataFrame(outs, columns=["system", "seg_id", "text"]))


DS = _dataset()


def _text_ids() -> list[str]:
    return [m for m in IDS if get_metric(m).meta.needs_text]


@functools.lru_cache(maxsize=None)
def _tables(metric_id: str) -> dict:
    """One text metric through each in-process scoring path: the engine's score tables
    (statistics path), its similarity tensors (``segment_blocks``) and the family pass of
    ``levels``; only this id (kept for its other checks)."""
    from evalcore.metrics import engine, levels

    return {"engine": {lv: engine.score_table(DS, [metric_id], level=lv) for lv in ("segment", "system")},
            "tensors": engine.similarity_tensors_many(DS, [metric_id], cache_dir=False),
            "levels": {m.id: t for m, t in levels.iter_score_levels(DS, [metric_id], level="both")}}


def _skip_reason(metric_id: str) -> str | None:
    """The capability tag: why ``metric_id`` cannot score here (a skip, never an error)."""
    why = get_metric(metric_id).unavailable(DS)
    return f"{metric_id} cannot score on this machine: {why}" if why else None


@pytest.fixture(scope="session")
def dask_tables(request):
    """The Dask path, once per session on one ``local:2`` cluster, for the text ids this session
    selected whose scoring checks run (``pytest -k ID`` scores that id alone)."""
    from evalcore.scoring import parallel

    ids = sorted({it.callspec.params["metric_id"] for it in request.session.items
                  if getattr(it, "originalname", "") == "test_contract"
                  and it.callspec.params.get("check") in SCORING_CHECKS})
    ids = [m for m in IDS if m in ids and get_metric(m).meta.needs_text and _skip_reason(m) is None]
    if not ids:
        return {}
    with parallel.Scheduler("local:2") as sched:
        return {"dask": {lv: parallel.score_table(DS, ids, level=lv, scheduler=sched) for lv in ("segment", "system")},
                "dask_tensors": parallel.similarity_tensors_many(DS, ids, cache_dir=False, scheduler=sched)}


def _eq(a, b, what):
    """Equal values (NaN where NaN). 1e-12: the syntactic families' vectorised blocks sum in
    another order than their per-pair loop (measured: 1.4e-17 apart); the lexical metrics are
    identical to the last bit."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert a.shape == b.shape, what
    np.testing.assert_allclose(a, b, rtol=0, atol=1e-12, err_msg=what)


def check_declares(metric_id):
    m = get_metric(metric_id)
    assert isinstance(m, Metric) and m.id == metric_id
    for hook in HOOKS:  # an override takes at least the parameters the contract declares
        mine = getattr(type(m), hook)
        declared = getattr(Metric, hook)
        if mine is not declared:
            assert _params(declared) == _params(mine)[:len(_params(declared))], (metric_id, hook)
    provides = type(m).sentence_scores_of is not Metric.sentence_scores_of
    assert m.serves_segments == provides, f"{metric_id}: serves_segments must say whether sentence_scores_of exists"
    assert isinstance(m.quadratic, bool)
    if m.shared_state is not None:
        assert callable(getattr(m.shared_state, "to_arrays", None))


def check_signature(metric_id):
    m = get_metric(metric_id)
    for nrefs, level in ((1, "segment"), (3, "system"), ("var", "system"), (None, None)):
        sig = m.signature(nrefs, level)
        assert isinstance(sig, Signature)
        assert sig.format() == m.signature(nrefs, level).format() == str(sig)  # stable
        back = Signature.parse(sig.format())
        assert back == sig and back.fields == sig.fields and back.format() == sig.format()
        keys = [k for k, _ in sig.fields]
        assert keys[-1] == "version" and len(set(keys)) == len(keys)
        if m.meta.needs_text and nrefs is not None:
            assert sig.fields[0] == ("nrefs", str(nrefs)), sig
        assert base.metric_signature(metric_id, nrefs, level) == sig  # the one function


def check_every_path(metric_id, dask):
    tables = {**_tables(metric_id), **dask}
    m = get_metric(metric_id)
    m.prepare(DS)
    sys_t, ref_t = DS.sys_texts(), DS.ref_texts()
    t = tables["tensors"][metric_id]
    seg = tables["engine"]["segment"].query("metric == @metric_id").set_index(["system", "seg_id"])["score"]
    n_items = 0
    for s, sid in enumerate(DS.seg_ids):
        P = [j for j, r in enumerate(DS.ref_ids) if ref_t[r][s] is not None]
        refs = [ref_t[DS.ref_ids[j]][s] for j in P]
        for a, name in enumerate(DS.systems):
            c = sys_t[name][s]
            if c is None:
                continue
            n_items += 1
            # statistics path (score tables) = the multi-reference sentence score
            _eq(seg[(name, sid)], m.sentence_score(c, refs), f"{metric_id} {name} {sid}: score_table")
            # block path (similarity tensors) = single-reference similarity and leave-one-out
            _eq(t.sys_ref[a, s, P], m.oriented([m.similarity(c, r) for r in refs]), f"{metric_id}: sys_ref")
            if len(refs) > 1:
                loo = [m.sentence_score(c, [r for k, r in enumerate(refs) if k != j]) for j in range(len(refs))]
                _eq(t.loo_sys[a, s, P], m.oriented(loo), f"{metric_id}: loo_sys")
        got = m.segment_blocks([([sys_t[n][s] for n in DS.systems if sys_t[n][s] is not None] + refs, refs)])[0]
        one = m.segment_block([sys_t[n][s] for n in DS.systems if sys_t[n][s] is not None] + refs, refs)
        _eq(got[0], one[0], f"{metric_id}: segment_blocks vs segment_block")
    assert n_items == len(seg)
    # the family/chunk pass and Dask give the same tables (rows, values, signatures)
    for lv in ("segment", "system"):
        ref = tables["engine"][lv].query("metric == @metric_id").reset_index(drop=True)
        for path in ("levels", "dask"):
            got = (tables["levels"][metric_id][lv] if path == "levels"
                   else tables["dask"][lv].query("metric == @metric_id")).reset_index(drop=True)
            assert list(got["system"]) == list(ref["system"]) and list(got["seg_id"]) == list(ref["seg_id"]), path
            _eq(got["score"], ref["score"], f"{metric_id} {lv}: {path}")
            assert list(got["signature"]) == list(ref["signature"]), (metric_id, lv, path)
    for field in ("sys_ref", "ref_ref", "loo_sys", "loo_ref"):
        _eq(getattr(tables["dask_tensors"][metric_id], field), getattr(t, field), f"{metric_id}: dask {field}")
    # corpus score = the score of the summed statistics of the scored items
    system = tables["engine"]["system"].query("metric == @metric_id").set_index("system")["score"]
    for name in DS.systems:
        items = [(sys_t[name][s], [ref_t[r][s] for r in DS.ref_ids if ref_t[r][s] is not None])
                 for s in range(DS.n_segments) if sys_t[name][s] is not None]
        cands, refs = [c for c, _ in items], [r for _, r in items]
        if type(m).corpus_score is Metric.corpus_score:
            _eq(system[name], m.score_from_stats(m.segment_stats(cands, refs)), f"{metric_id}: corpus {name}")
        st = np.asarray(m.segment_stats(cands, refs), dtype=float)
        valid = base.valid_stats(st)
        assert m.stats_mode in ("sum", "mean"), metric_id
        if len(valid):  # stats_mode says how the corpus score follows from the rows (resampling relies on it)
            want = valid[:, 0].mean() if m.stats_mode == "mean" else m.scores_from_sums(valid.sum(axis=0)[None])[0]
            _eq(m.score_from_stats(st), want, f"{metric_id}: stats_mode {m.stats_mode}")
        if m.serves_segments:
            _eq(m.sentence_scores_of(m.segment_stats(cands, refs), refs), m.sentence_scores(cands, refs),
                f"{metric_id}: sentence_scores_of")


def check_long_text(metric_id, monkeypatch):
    monkeypatch.setattr(base, "MAX_ALIGN_TOKENS", CAP)
    from evalcore.metrics import levels

    m = get_metric(metric_id)
    m.prepare(DS)
    short_c, refs = "the cat sat on the mat .", ["a cat sat on a mat .", "the dog sat under the mat ."]
    long_c = " ".join(["the cat sat on the mat under a red house"] * 6)  # 60 words > CAP
    assert len(m.tokens(long_c)) > CAP >= max(len(m.tokens(x)) for x in [short_c] + refs)
    if m.quadratic:  # the instrumented kernels are the ones this metric's paths use
        with spy_quadratic() as seen:
            m.sentence_score(short_c + " again", refs)
            m.segment_stats([short_c + " once more"], [refs])
            m.segment_blocks([([short_c + " and more"], refs)])
        assert seen.n_calls > 0, f"{metric_id} is quadratic but no instrumented kernel ran"
    with spy_quadratic() as seen:
        one = m.sentence_score(long_c, refs)
        stats = levels.family_stats([m], [long_c, short_c], [refs, refs], [0, 0])[0]
        sim, loo = m.segment_blocks([([long_c, short_c], refs)])[0]
        long_ref = m.sentence_score(short_c, refs + [long_c])
    assert seen.longest <= CAP, f"{metric_id}: quadratic work on a {seen.longest}-token text (cap {CAP})"
    if m.quadratic:
        assert np.isnan(one) and np.isnan(long_ref) and np.isnan(sim[0]).all() and np.isnan(loo[0]).all()
        assert np.isnan(stats[0]).all() and np.isfinite(stats[1]).all()
        assert np.isfinite(sim[1]).all()
    else:
        assert np.isfinite(one) or not m.serves_segments  # a linear metric scores it


#: check name -> whether it scores texts (skipped, with its reason, for a metric that cannot
#: score here; run only for the metrics that read texts)
CHECKS = {"declares": False, "signature": False, "every_path": True, "long_text": True}
SCORING_CHECKS = frozenset(c for c, scores in CHECKS.items() if scores)
CASES = [(m, c) for m in IDS for c in CHECKS if not CHECKS[c] or get_metric(m).meta.needs_text]


@pytest.mark.parametrize(("metric_id", "check"), CASES, ids=[f"{m}-{c}" for m, c in CASES])
def test_contract(metric_id, check, request, monkeypatch):
    """One check of one metric (``test_contract[ID-CHECK]``)."""
    if check in SCORING_CHECKS:
        why = _skip_reason(metric_id)
        if why:
            pytest.skip(why)
    if check == "every_path":
        check_every_path(metric_id, request.getfixturevalue("dask_tables"))
    elif check == "long_text":
        check_long_text(metric_id, monkeypatch)
    else:
        globals()[f"check_{check}"](metric_id)


def test_every_check_is_run():
    """Every ``check_*`` function of this module is a check of ``test_contract`` (none forgotten)."""
    assert sorted(n[len("check_"):] for n in globals() if n.startswith("check_")) == sorted(CHECKS)
