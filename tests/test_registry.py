"""The statistic registry (evalcore.stats.registry) against its references, and every place that
lists statistics reads it: CLI choices, glossary, the generated docs table, the page selectors."""
from __future__ import annotations

import os
import re
import sys

import numpy as np
import pytest
import scipy.stats

from evalcore.stats import correlation
from evalcore.stats.registry import REGISTRY, markdown_table, names

from conftest import ROOT, SHARED_DATA  # noqa: E402

names()  # statistics of the registry's plugin modules too (REGISTRY is then complete)

SHARED = SHARED_DATA.parent


@pytest.fixture(scope="module")
def mtme():
    path = SHARED / "oracles" / "mt-metrics-eval"
    if not path.exists():
        if os.environ.get("CI") == "true":  # as conftest.shared: CI must run the oracle checks
            pytest.fail(f"{path} is missing, but CI must run the mt-metrics-eval oracle checks")
        pytest.skip("../shared/oracles/mt-metrics-eval is absent (the mt-metrics-eval oracle; the literal "
                    "examples of test_literal_example still run)")
    sys.path.insert(0, str(path))
    from mt_metrics_eval import stats  # (stats imports pce: numpy and scipy only)

    return stats


# one dataset: 6 systems x 8 items, integer-valued so that ties occur on both sides, one missing gold
RNG = np.random.default_rng(11)
G = RNG.integers(0, 60, size=(6, 8)).astype(float)
M = (G + RNG.integers(-30, 30, size=G.shape)).astype(float)
M[0, :3] = M[1, :3]  # metric ties
G[2, 5] = np.nan


def _flat(mtme_corr, average_by, fn, **kw):
    gold = [None if np.isnan(x) else float(x) for x in G.ravel()]
    return mtme_corr(fn, len(G), average_by, **kw)(gold, list(M.ravel()))[0]


def _refs(st):
    """name -> (grouping, reference value) computed by scipy or mt-metrics-eval."""
    avg = st.AverageCorrelation
    ok = ~np.isnan(G.ravel())
    g, m = G.ravel()[ok], M.ravel()[ok]
    sg, sm = G[:, 0], M[:, 0]  # a system-level vector (one item as the system score)
    agree, pairs = st.Agreement(list(sg), list(sm))
    return {
        "pearson": ("none", scipy.stats.pearsonr(g, m)[0]),
        "spearman": ("none", scipy.stats.spearmanr(g, m)[0]),
        "kendall": ("none", scipy.stats.kendalltau(g, m)[0]),
        "tau_b": ("none", scipy.stats.kendalltau(g, m, variant="b")[0]),
        "tau_c": ("none", scipy.stats.kendalltau(g, m, variant="c")[0]),
        "tau_23": ("none", st.KendallVariants(g, m, variant="23")[0]),
        "acc23": ("none", st.KendallVariants(g, m, variant="acc23")[0]),
        "kendall_like": ("none", st.KendallLike(g, m, thresh=25)[0]),
        "darr": ("item", _flat(lambda *a, **k: avg(*a, macro=False, **k), "item", st.KendallLike, thresh=25)),
        "accuracy": ("system", agree / pairs),
        # pairwise difference Pearson: mt-metrics-eval's Pearson(pdp=True) on the flat vectors
        "pdp": ("none", _flat(avg, "none", scipy.stats.pearsonr, pdp=True)),
        # soft pairwise accuracy on the segments judged for every system (MTME drops the unjudged
        # cells and reshapes per system, which needs as many per system: column 5 left out here)
        "spa": ("matrices", st.PairwiseConfidenceError(list(np.delete(G, 5, axis=1).ravel()),
                                                       list(np.delete(M, 5, axis=1).ravel()), len(G))[0]),
    }


def _example_value(stat, grouping):
    """The entry's value on the registry's worked example (registry.EXAMPLE_GOLD/EXAMPLE_METRIC):
    the matrices for a statistic of segment matrices, the first column as system vectors for one
    defined at system level only, else the (systems × items) matrices with ``grouping``."""
    from evalcore.stats.registry import EXAMPLE_GOLD, EXAMPLE_METRIC

    g, m = np.array(EXAMPLE_GOLD), np.array(EXAMPLE_METRIC)
    if stat.segment_matrices:
        return stat.value(g, m)
    if "segment" not in stat.levels:
        return stat.value(g[:, 0], m[:, 0], grouping)
    return stat.value(g, m, grouping)


@pytest.mark.parametrize("name", list(REGISTRY))
def test_literal_example(name):
    """mt-metrics-eval stats_test.py style, on a plain clone: every entry's ``example`` (its value on
    a 4 × 5 worked example, a literal computed outside evalcore: scipy, mt-metrics-eval or by hand,
    the provenance written beside it) is what evalcore computes. Derived from the registry: a new
    statistic brings its example in its own registration, and an entry without one fails here."""
    stat = REGISTRY[name]
    assert stat.example, f"{name}: give the statistic an example=(grouping, value, provenance) (registry.py)"
    for grouping, expected, provenance in stat.example:
        assert grouping in stat.groupings and provenance and "evalcore" not in provenance, (name, provenance)
        assert _example_value(stat, grouping) == pytest.approx(expected, abs=1e-9), (name, grouping, provenance)


def test_literal_examples_are_the_references_of_the_oracle(mtme):
    """The literal examples themselves against the oracle, recomputed here (the wider check)."""
    from evalcore.stats.registry import EXAMPLE_GOLD, EXAMPLE_METRIC

    g2, m2 = np.array(EXAMPLE_GOLD), np.array(EXAMPLE_METRIC)
    ok = ~np.isnan(g2.ravel())
    g, m = g2.ravel()[ok], m2.ravel()[ok]
    agree, pairs = mtme.Agreement(list(g2[:, 0]), list(m2[:, 0]))
    keep = ~np.isnan(g2).any(axis=0)
    gold = [None if np.isnan(x) else float(x) for x in g2.ravel()]
    avg = mtme.AverageCorrelation
    want = {("pearson", "none"): scipy.stats.pearsonr(g, m)[0],
            ("pearson", "item"): avg(scipy.stats.pearsonr, len(g2), "item")(gold, list(m2.ravel()))[0],
            ("spearman", "none"): scipy.stats.spearmanr(g, m)[0],
            ("kendall", "none"): scipy.stats.kendalltau(g, m)[0],
            ("tau_b", "none"): scipy.stats.kendalltau(g, m, variant="b")[0],
            ("tau_c", "none"): scipy.stats.kendalltau(g, m, variant="c")[0],
            ("tau_23", "none"): mtme.KendallVariants(g, m, variant="23")[0],
            ("acc23", "none"): mtme.KendallVariants(g, m, variant="acc23")[0],
            ("kendall_like", "none"): mtme.KendallLike(g, m, thresh=25)[0],
            ("darr", "item"): avg(mtme.KendallLike, len(g2), "item", macro=False, thresh=25)(gold, list(m2.ravel()))[0],
            ("accuracy", "none"): agree / pairs,
            ("pdp", "none"): avg(scipy.stats.pearsonr, len(g2), "none", pdp=True)(gold, list(m2.ravel()))[0],
            ("pdp", "item"): avg(scipy.stats.pearsonr, len(g2), "item", pdp=True)(gold, list(m2.ravel()))[0],
            ("spa", "none"): mtme.PairwiseConfidenceError(list(g2[:, keep].ravel()), list(m2[:, keep].ravel()),
                                                          len(g2))[0]}
    for name, stat in REGISTRY.items():
        for grouping, expected, _ in stat.example:
            if (name, grouping) in want:  # a statistic added later is checked by test_literal_example
                assert expected == pytest.approx(want[(name, grouping)], abs=1e-12), (name, grouping)


def test_every_entry_matches_its_reference(mtme):
    """The wider check on the 6 × 8 dataset, for every entry with an oracle here (a statistic added
    later needs no line here: its literal example is checked by test_literal_example)."""
    refs = _refs(mtme)
    assert set(refs) <= set(REGISTRY), sorted(set(refs) - set(REGISTRY))
    for name, stat in REGISTRY.items():
        if name not in refs:
            continue
        grouping, expected = refs[name]
        if grouping == "system":
            got = stat.value(G[:, 0], M[:, 0])
        elif grouping == "matrices":
            assert stat.segment_matrices, name
            got = stat.value(G, M)
        else:
            got = stat.value(G, M, grouping)
        assert got == pytest.approx(expected, abs=1e-9), name


def test_grouped_entries_match_mtme_averaging(mtme):
    """Every statistic allowed with grouping item/sys equals mt-metrics-eval's AverageCorrelation
    (macro unless the entry pools)."""
    fns = {"pearson": (scipy.stats.pearsonr, {}), "spearman": (scipy.stats.spearmanr, {}),
           "kendall": (scipy.stats.kendalltau, {}), "tau_b": (mtme.KendallVariants, {"variant": "b"}),
           "tau_c": (mtme.KendallVariants, {"variant": "c"}), "tau_23": (mtme.KendallVariants, {"variant": "23"}),
           "acc23": (mtme.KendallVariants, {"variant": "acc23"}), "kendall_like": (mtme.KendallLike, {"thresh": 25}),
            "darr": (mtme.KendallLike, {"thresh": 25}), "pdp": (scipy.stats.pearsonr, {"pdp": True})}
    assert set(fns) <= set(REGISTRY)
    for name, stat in REGISTRY.items():
        for grouping in sorted(set(stat.groupings) & {"item", "sys"}) if name in fns else ():
            fn, kw = fns[name]
            expected = _flat(lambda *a, **k: mtme.AverageCorrelation(*a, macro=not stat.pooled, **k), grouping,
                             fn, **kw)
            assert correlation(G, M, name, grouping).value == pytest.approx(expected, abs=1e-9), (name, grouping)


def test_p_values_match_mtme(mtme):
    gold = [None if np.isnan(x) else float(x) for x in G.ravel()]
    corr = mtme.Correlation(len(G), gold, list(M.ravel()))
    ref = {"pearson": corr.Pearson, "spearman": corr.Spearman, "kendall": corr.Kendall}
    for name in names(p_value=True, aliases=False):
        for grouping in ("none", "item"):
            assert correlation(G, M, name, grouping, p_values=True).p_value == pytest.approx(
                ref[name](grouping)[1], abs=1e-9), (name, grouping)


def test_cli_choices_are_the_registry():
    from evalcore.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    method = next(a for a in sub.choices["correlate"]._actions if a.dest == "method")
    assert list(method.choices) == list(REGISTRY)


def test_glossary_has_every_statistic():
    from evalcore.present.glossary import define

    for stat in REGISTRY.values():
        assert define(stat.term) == stat.definition, stat.name


def test_docs_table_is_generated_from_the_registry():
    text = (ROOT / "docs" / "methods.md").read_text(encoding="utf-8")
    m = re.search(r"<!-- registry:start -->\n(.*?)<!-- registry:end -->", text, flags=re.S)
    assert m, "docs/methods.md lacks the generated statistics table"
    assert m.group(1) == markdown_table()
    for name in REGISTRY:
        assert f"| `{name}` |" in m.group(1)


def test_page_selectors_read_the_registry():
    """No page lists statistic names by hand in a selector."""
    hard = re.compile(r"(selectbox|radio)\([^)]*\[\s*\"(pearson|kendall|spearman)\"")
    for page in (ROOT / "pages").glob("*.py"):
        assert not hard.search(page.read_text(encoding="utf-8")), page.name


def test_registry_refuses_duplicates_and_bad_groupings():
    from evalcore.stats.registry import Statistic, register

    with pytest.raises(ValueError, match="twice"):
        register(REGISTRY["pearson"])
    with pytest.raises(ValueError, match="grouping"):
        register(Statistic("x_test", "x", REGISTRY["pearson"].rows, groupings=("none",), default_grouping="item"))
    assert "x_test" not in REGISTRY


def test_a_plugin_module_adds_a_statistic_everywhere(tmp_path, monkeypatch):
    """How a statistic defined in another module joins: named in registry.PLUGINS, it registers
    itself and appears in the CLI choices, the glossary and the docs table without other edits."""
    import importlib

    from evalcore.stats import registry

    (tmp_path / "extra_stat_plugin.py").write_text(
        "from evalcore.stats.registry import REGISTRY, Statistic, register\n"
        "register(Statistic('x_plugin', 'X', REGISTRY['pearson'].rows, term='X plugin statistic',\n"
        "                   definition='A statistic registered by a plugin module in a test.'))\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "PLUGINS", ("extra_stat_plugin",))
    monkeypatch.setattr(registry, "_plugins_loaded", False)
    try:
        assert "x_plugin" in registry.names()
        from evalcore.cli import build_parser

        sub = next(a for a in build_parser()._actions if a.__class__.__name__ == "_SubParsersAction")
        assert "x_plugin" in next(a for a in sub.choices["correlate"]._actions if a.dest == "method").choices
        import evalcore.present.glossary as glossary

        importlib.reload(glossary)
        assert glossary.define("X plugin statistic").startswith("A statistic registered")
        assert "| `x_plugin` |" in registry.markdown_table()
    finally:
        REGISTRY.pop("x_plugin", None)
        sys.modules.pop("extra_stat_plugin", None)
        import evalcore.present.glossary as glossary

        glossary.GLOSSARY.pop("X plugin statistic", None)
