"""The registry of correlation statistics: one :class:`Statistic` per ``--method`` name.

Everything that lists or dispatches on a statistic reads it from here: the maths
(:func:`evalcore.stats.correlation.group_values`, p-values, pooling defaults, Fisher intervals,
tie calibration), the CLI's ``--method`` choices, the dashboard's selectors, the glossary
(:mod:`evalcore.present.glossary`) and the generated table of docs/methods.md §3.3
(:func:`markdown_table`; a test checks the docs equal it).

Adding a statistic
------------------
1. Write its row function in :mod:`evalcore.stats.correlation` (or in its own module):
   ``rows(g, m, *, epsilon, thresh, thresh_inclusive) -> (values, weights)`` on the (G, L)
   group matrices of :func:`~evalcore.stats.correlation.grouped` (NaN = missing gold); return
   ``weights=None`` to weight groups by their cell counts (used when pooling, ``macro=False``).
2. Add one :class:`Statistic` to :data:`REGISTRY` below (name, label, levels, groupings,
   pooling default, ε / Fisher support, citation, glossary term and definition).
3. Give it an ``example``: its value on the worked example (:data:`EXAMPLE_GOLD`,
   :data:`EXAMPLE_METRIC`) written as a literal with its provenance (computed by scipy,
   mt-metrics-eval or by hand, never by evalcore), as mt-metrics-eval's ``stats_test.py`` does;
   ``tests/test_registry.py`` iterates the registry, checks every example on a plain clone and
   fails for an entry without one (the ../shared oracle stays the wider check).
4. Regenerate the docs table: ``python -m evalcore.stats.registry > /tmp/t`` and paste it
   between the ``registry:start`` / ``registry:end`` markers of docs/methods.md §3.3.
The CLI choices, selectors and glossary then pick it up by themselves.

A statistic that needs the segment-level matrices at system level (soft pairwise accuracy: a
permutation test per pair of systems over their segment scores) sets ``segment_matrices=True``
and gives ``matrix(G, M, **options) -> value`` on the (systems × segments) gold and metric
matrices instead of ``rows``; ``options`` names the keyword options it takes (e.g.
``num_permutations``, ``seed``). :func:`~evalcore.stats.correlation.correlation` and
:func:`~evalcore.stats.tables.correlation_table` then hand it the matrices (``correlate`` scores
the metrics per segment for it), and selectors of system-vector statistics leave it out
(``names(..., vectors=True)``). A statistic defined
elsewhere can call :func:`register` at import time instead of editing this file: a module in
``evalcore/stats/plugins/`` is found and imported by itself (a new statistic is that one file
and its test), as soft pairwise accuracy (``plugins/spa.py``) is; :data:`PLUGINS` may name a
module elsewhere in this layer or below (the registry never reaches up a layer).
Both are imported before the registry is first listed, so the CLI parser and pages see them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

LEVELS = ("system", "segment")
GROUPINGS = ("none", "item", "sys")


@dataclass(frozen=True)
class Statistic:
    """One correlation statistic.

    ``rows``: per-group values (see the module docstring). ``p_value``: ``f(gold, metric) -> p``
    for one complete pair of vectors (scipy), or None. ``levels``: "system" and/or "segment".
    ``groupings``: the groupings it allows (``default_grouping`` when the user gives none).
    ``pooled``: groups are pooled (weighted by pairs, ``macro=False``) by default.
    ``fisher``: a Fisher z interval applies ("pearson" SE 1/√(n−3) or "kendall" SE
    √(0.437/(n−4))), else None. ``epsilon``: accepts a metric tie threshold ε;
    ``tie_calibration``: ε can be chosen to maximise it (methods §3.3). ``uses_threshold``:
    takes the gold-difference threshold (``--threshold``). ``higher_is_better`` of the statistic
    itself. ``term``/``definition``: its glossary entry (several names may share a term).
    ``alias_of``: another name for that statistic (left out of selectors).
    ``pools_language_pairs``: over several language pairs (``correlate --lp all``) the statistic
    has one pooled row per metric, Σ agreeing pairs / Σ pairs (Kocmi et al. 2021's accuracy).
    ``segment_matrices``: at system level the statistic is computed from the (systems ×
    segments) gold and metric matrices by ``matrix(G, M, **options)`` (``options``: the names
    of the keyword options it takes), not from system vectors; ``rows`` is then None.
    ``example``: ``(grouping, value, provenance)`` triples, its value on the worked example
    (:data:`EXAMPLE_GOLD`, :data:`EXAMPLE_METRIC`; a statistic defined at system level only
    takes the first column as the system vectors), each computed outside evalcore.
    """

    name: str
    label: str
    rows: Callable[..., Any] | None = None
    levels: tuple[str, ...] = LEVELS
    groupings: tuple[str, ...] = GROUPINGS
    default_grouping: str = "none"
    p_value: Callable[[Any, Any], float] | None = None
    pooled: bool = False
    fisher: str | None = None
    epsilon: bool = False
    tie_calibration: bool = False
    uses_threshold: bool = False
    higher_is_better: bool = True
    citation: str = ""
    section: str = "§3.3"
    term: str = ""
    definition: str = ""
    alias_of: str | None = None
    pools_language_pairs: bool = False
    segment_matrices: bool = False
    matrix: Callable[..., Any] | None = None
    options: tuple[str, ...] = ()
    example: tuple[tuple[str, float, str], ...] = ()

    def value(self, gold: Any, metric: Any, grouping: str | None = None, **kw: Any) -> float:
        """The statistic of ``gold`` and ``metric`` (vectors or matrices) with MTME semantics
        (:func:`evalcore.stats.correlation.correlation`, named not imported: that module reads
        this registry)."""
        import importlib

        correlation = importlib.import_module(".correlation", __package__).correlation
        value: float = correlation(gold, metric, self.name, grouping or self.default_grouping, **kw).value
        return value


REGISTRY: dict[str, Statistic] = {}

#: The worked example of every statistic's ``example``: 4 systems × 5 items, gold on a 0-100
#: scale with ties and one unjudged cell (NaN), metric scores with a tie (systems 1 and 2 on item 1).
EXAMPLE_GOLD = ((70.0, 40.0, 85.0, 20.0, 55.0), (60.0, 40.0, 90.0, 35.0, 50.0),
                (20.0, 75.0, 30.0, 65.0, float("nan")), (45.0, 10.0, 60.0, 80.0, 25.0))
EXAMPLE_METRIC = ((0.62, 0.41, 0.80, 0.30, 0.55), (0.62, 0.35, 0.91, 0.28, 0.50),
                  (0.20, 0.70, 0.33, 0.50, 0.47), (0.51, 0.12, 0.58, 0.25, 0.35))
_SCIPY = "scipy.stats.{} on the 19 judged cells"
_MTME = "mt-metrics-eval stats.{} on the 19 judged cells"

#: Modules outside ``plugins/`` (this layer or below: the registry never imports upward) that
#: register further statistics with :func:`register` when imported; imported by name, once, before the
#: registry is first listed or searched, so the CLI choices, selectors and glossary include them.
PLUGINS: tuple[str, ...] = ()
_plugins_loaded = False


def _load_plugins() -> None:
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True
    import importlib
    import pkgutil
    from pathlib import Path

    found = sorted(m.name for m in pkgutil.iter_modules([str(Path(__file__).parent / "plugins")])
                   if not m.name.startswith("_"))
    for name in [*PLUGINS, *(f"{__package__}.plugins.{n}" for n in found)]:
        importlib.import_module(name)


def register(stat: Statistic) -> Statistic:
    """Add ``stat`` to the registry (a name may be registered once)."""
    if stat.name in REGISTRY:
        raise ValueError(f"statistic {stat.name!r} registered twice")
    if (stat.rows is None) == (stat.matrix is None) or stat.segment_matrices != (stat.matrix is not None):
        raise ValueError(f"statistic {stat.name!r}: give rows, or matrix with segment_matrices=True")
    bad = [x for x in stat.levels if x not in LEVELS] + [x for x in stat.groupings if x not in GROUPINGS]
    if bad or stat.default_grouping not in stat.groupings:
        raise ValueError(f"statistic {stat.name!r}: bad level/grouping {bad or stat.default_grouping}")
    REGISTRY[stat.name] = stat
    return stat


def get(name: str) -> Statistic:
    """The statistic ``name``; ValueError lists the known names."""
    _load_plugins()
    try:
        return REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown method {name!r}; choose from {names()}") from None


def names(level: str | None = None, *, p_value: bool | None = None, aliases: bool = True,
          vectors: bool = False) -> tuple[str, ...]:
    """Names in registry order, optionally only those defined at ``level`` / with a p-value /
    without aliases (what a selector offers) / computable from system vectors or cell lists
    alone (``vectors=True`` leaves out the statistics that need segment matrices)."""
    _load_plugins()
    out = []
    for s in REGISTRY.values():
        if not aliases and s.alias_of:
            continue
        if vectors and s.segment_matrices:
            continue
        if level is not None and level not in s.levels:
            continue
        if p_value is not None and (s.p_value is not None) != p_value:
            continue
        out.append(s.name)
    return tuple(out)


def label(name: str) -> str:
    """Display label (for selectors): ``"Kendall τ_b"`` for ``kendall``."""
    return get(name).label


def _scipy(fn_name: str) -> Callable[[Any, Any], float]:
    def p(gold: Any, metric: Any) -> float:
        import warnings

        import scipy.stats

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return float(getattr(scipy.stats, fn_name)(gold, metric)[1])

    p.__name__ = f"scipy.stats.{fn_name}"
    return p


def _rows(name: str) -> Callable[..., Any]:
    def rows(g: Any, m: Any, **kw: Any) -> Any:
        import importlib

        # the module, not the function evalcore.stats.correlation that the package re-exports
        return getattr(importlib.import_module(".correlation", __package__), name)(g, m, **kw)

    rows.__name__ = name
    return rows


_KENDALL_DEF = ("Rank correlation: concordant minus discordant pairs, with a tie correction (τ_b) "
                "(Kendall 1945; methods §3.3).")

register(Statistic(
    "pearson", "Pearson r", _rows("rows_pearson"), p_value=_scipy("pearsonr"), fisher="pearson",
    citation="Pearson 1895; MTME stats.Pearson", section="§3.3", term="Pearson",
    definition="Linear correlation of two lists of scores (−1 to 1).",
    example=(("none", 0.8131113958498329, _SCIPY.format("pearsonr")),
             ("item", 0.82830583605369, "mt-metrics-eval AverageCorrelation(scipy.stats.pearsonr, 'item')"))))
register(Statistic(
    "spearman", "Spearman ρ", _rows("rows_spearman"), p_value=_scipy("spearmanr"), fisher="pearson",
    citation="Spearman 1904; MTME stats.Spearman", term="Spearman ρ",
    definition="Pearson correlation of the ranks of the two lists (ties get mid-ranks) (methods §3.3).",
    example=(("none", 0.7713280562884783, _SCIPY.format("spearmanr")),)))
register(Statistic(
    "kendall", "Kendall τ_b", _rows("rows_tau_b"), p_value=_scipy("kendalltau"), fisher="kendall", epsilon=True,
    citation="Kendall 1945; MTME stats.Kendall", term="Kendall τ", definition=_KENDALL_DEF,
    example=(("none", 0.7083333333333334, _SCIPY.format("kendalltau")),)))
register(Statistic(
    "tau_b", "Kendall τ_b (same as kendall)", _rows("rows_tau_b"), p_value=_scipy("kendalltau"), fisher="kendall",
    epsilon=True, citation="Kendall 1945; MTME KendallVariants(variant='b')", term="Kendall τ",
    definition=_KENDALL_DEF, alias_of="kendall",
    example=(("none", 0.7083333333333334, _SCIPY.format("kendalltau(variant='b')")),)))
register(Statistic(
    "tau_c", "Kendall τ_c", _rows("rows_tau_c"),
    citation="Stuart 1953; MTME KendallVariants(variant='c')", term="Kendall τ_c",
    definition="Stuart's Kendall variant for tables with unequal numbers of distinct values: "
               "2(C − D)/(n²(m − 1)/m) (methods §3.3).",
    example=(("none", 0.7032317636195753, _SCIPY.format("kendalltau(variant='c')")),)))
register(Statistic(
    "tau_23", "Kendall τ_23", _rows("rows_tau_23"), epsilon=True, tie_calibration=True,
    citation="Deutsch, Foster & Freitag 2023; MTME KendallVariants(variant='23')", term="τ_23",
    definition="Kendall variant that rewards a metric for predicting ties: (C + T_hm − D − T_h − T_m)/N; "
               "used with tie calibration (Deutsch et al. 2023; methods §3.3).",
    example=(("none", 0.6608187134502924, _MTME.format("KendallVariants(variant='23')")),)))
register(Statistic(
    "acc23", "pairwise accuracy with ties (acc23)", _rows("rows_acc23"), epsilon=True, tie_calibration=True,
    citation="Deutsch, Foster & Freitag 2023; MTME KendallVariants(variant='acc23')", term="acc23",
    definition="Pairwise accuracy with ties: the share of pairs the metric orders as the humans do, counting "
               "pairs tied on both sides as agreements (Deutsch et al. 2023; methods §3.3).",
    example=(("none", 0.8304093567251462, _MTME.format("KendallVariants(variant='acc23')")),)))
register(Statistic(
    "kendall_like", "WMT Kendall-like τ", _rows("rows_kendall_like"), pooled=True, uses_threshold=True,
    citation="Ma et al. 2018; MTME stats.KendallLike", term="Kendall-like τ",
    definition="WMT's τ = (C − D)/(C + D) over pairs whose human scores differ by at least a threshold; "
               "metric ties count as discordant (methods §3.3).",
    example=(("none", 0.8043478260869565, _MTME.format("KendallLike(thresh=25)") + ": 83 C, 9 D"),)))
register(Statistic(
    "darr", "DARR (WMT17-20 segment level)", _rows("rows_kendall_like"), levels=("segment",), groupings=("item",),
    default_grouping="item", pooled=True, uses_threshold=True,
    citation="Ma et al. 2018; Mathur et al. 2020; MTME stats.KendallLike(average_by='item')", term="DARR",
    definition="WMT's Kendall-like statistic on pairs of outputs whose human scores differ by at least 25 points; "
               "metric ties count as discordant (methods §3.3).",
    example=(("item", 0.8, "mt-metrics-eval AverageCorrelation(KendallLike, 'item', macro=False, thresh=25)"),)))
register(Statistic(
    "accuracy", "pairwise accuracy", _rows("rows_accuracy"), levels=("system",), groupings=("none",), pooled=True,
    pools_language_pairs=True,
    citation="Kocmi et al. 2021 (To Ship or Not to Ship); MTME stats.Agreement", term="pairwise accuracy",
    definition="The share of pairs of systems the metric orders as the humans do (a tie on both sides agrees); "
               "pooled over the pairs of every language pair under --lp all (Kocmi et al. 2021; methods §3.3).",
    example=(("none", 5 / 6, "by hand, = mt-metrics-eval stats.Agreement: 5 of the 6 pairs of "
                                    "(70, 60, 20, 45) vs (.62, .62, .20, .51) agree"),)))


@dataclass(frozen=True)
class SignificanceTest:
    """A test between two metrics' correlations with the humans (``correlate --compare``, the
    Systems page's "Metrics vs humans" tests): ``methods`` the statistics it applies to (None:
    every one), ``levels``, and the label every table and line shows."""

    name: str
    label: str
    methods: tuple[str, ...] | None = None
    levels: tuple[str, ...] = LEVELS
    citation: str = ""

    def check(self, method: str) -> None:
        """ValueError when the test does not apply to ``method``."""
        if self.methods is not None and method not in self.methods:
            raise ValueError(f"{self.label} compares {' or '.join(label(m) for m in self.methods)} correlations "
                             f"only, not {label(method)}; use perm for the other statistics")


#: The tests between metrics, by ``--compare`` name (one-sided: H1 "the first metric agrees better").
SIGNIFICANCE: dict[str, SignificanceTest] = {
    "perm": SignificanceTest("perm", "PERM-BOTH",
                             citation="Deutsch, Tsvetkov & Roth 2021; MTME stats.PermutationSigDiff; methods §3.4"),
    "williams": SignificanceTest("williams", "Williams", methods=("pearson",),
                                 citation="Williams 1959; Graham & Baldwin 2014; methods §3.5"),
    "pairs": SignificanceTest("pairs", "PERM-BOTH over pairs", methods=("acc23", "tau_23"), levels=("segment",),
                              citation="Deutsch, Foster & Freitag 2023; MTME stats.PairwisePermutationSigDiff "
                                       "(perm_test='pairs'); methods §22.2"),
}


def significance_test(name: str) -> SignificanceTest:
    """The metric-vs-metric test ``name``; ValueError lists the known ones."""
    try:
        return SIGNIFICANCE[name]
    except KeyError:
        raise ValueError(f"test must be one of {tuple(SIGNIFICANCE)}, not {name!r}") from None


def markdown_table() -> str:
    """The generated table of docs/methods.md §3.3 (between the registry markers)."""
    lines = ["| method | statistic | levels | groupings (default) | pooled | ε / tie calibration | Fisher z | "
             "p-value | reference |",
             "|---|---|---|---|---|---|---|---|---|"]
    _load_plugins()
    for s in REGISTRY.values():
        grp = ", ".join(f"**{g}**" if g == s.default_grouping else g for g in s.groupings)
        eps = ("ε, calibrated" if s.tie_calibration else "ε") if s.epsilon else "–"
        p = s.p_value.__name__ if s.p_value is not None else "–"
        levels = ", ".join(s.levels) + (" (from segment scores)" if s.segment_matrices else "")
        lines.append(f"| `{s.name}` | {s.label} | {levels} | {grp} | {'yes' if s.pooled else 'no'} | "
                     f"{eps} | {s.fisher or '–'} | {p} | {s.citation} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":  # python -m evalcore.stats.registry: the docs table
    # the package's module (not this __main__ copy): the one plugin modules register into
    from evalcore.stats.registry import markdown_table as _table

    print(_table(), end="")
