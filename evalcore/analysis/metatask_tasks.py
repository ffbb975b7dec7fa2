"""The official WMT metrics-task recipes as data (methods §3.13).

Each :class:`TaskDef` says, for one year's metrics shared task, which language pairs are
evaluated, which human scores are the gold per pair, which reference is the primary one (the
reference the metrics use; it is never scored as a system), for which pairs the other human
translations are scored as systems, which systems are outliers (left out), and the list of
sub-tasks: level, statistic, grouping, tie calibration, relative weight. The aggregate is the
weighted average of the sub-task values, each first mapped to [0, 1] by its range
(``(v − lo)/(hi − lo)``), and the weighted average of the metric's per-sub-task rank.

Sources (what the recipe is; the values below were written from them, not copied):

* ``wmt23``: Freitag et al. 2023, "Results of WMT23 Metrics Shared Task", §3 (meta-evaluation):
  system-level pairwise accuracy pooled over all pairs, plus per pair system-level Pearson,
  segment-level Pearson and segment-level acc23 with tie calibration averaged over items;
  the accuracy sub-task weighs as many as there are pairs, every other sub-task 1.
  mt-metrics-eval ``tasks.WMT23`` and ``meta_info.WMT23``/``WMT23_DA`` (std_ref, std_gold).
* ``wmt24``: Freitag et al. 2024, "Are LLMs Breaking MT Metrics? Results of the WMT24 Metrics
  Shared Task", §3: per pair system-level soft pairwise accuracy (SPA, Thompson et al. 2024) and
  segment-level acc23 with tie calibration averaged over items, equal weights.
  mt-metrics-eval ``tasks.WMT24`` and ``meta_info.WMT24``/``WMT24_ESA`` (en-de: refB, MQM;
  the ESA pairs: esa; outlier MSLC for the MQM pairs).
* ``wmt25``: mt-metrics-eval ``tasks.WMT25`` and ``meta_info`` for wmt25: the WMT24 statistics on
  the WMT25 pairs, equal weights, no human translations as systems; its primary submissions and
  baselines (``--metric-set``) are meta_info's WMT25_PRIMARIES / WMT25_BASELINES (Freitag et al.
  2025, findings of the WMT25 metrics task).

* ``wmt22``: Freitag et al. 2022, "Results of WMT22 Metrics Shared Task: Stop Using BLEU –
  Neural Metrics Are Better and More Robust", §3-4, as mt-metrics-eval's notebook
  ``wmt22_metrics.ipynb`` computes the main (MQM) results (``eval_metrics`` on en-de, en-ru,
  zh-en, ``distribute_mass`` for the weights, ``rank_metrics`` for the average rank) and
  ``meta_info.WMT22`` (refA, mqm, outlier M2M100_1.2B-B4 in en-de): system-level pairwise
  accuracy pooled over the pairs without human translations (only with more than one pair);
  per pair, on all segments and on
  each domain's, system-level Pearson and Kendall τ (no grouping) and segment-level Pearson and
  Kendall τ with no grouping, grouped by system and grouped by item, each once without and (when
  the pair has more than one reference) once with the other human translations as systems.
  Weights are nested: equal shares per language pair (the pooled accuracy counts as one), then
  per domain, level, with/without human translations, grouping, statistic. The official
  aggregate is the weighted average rank (the weighted average of the [0, 1]-mapped values is
  shown too, but WMT22 did not publish it). The oracle snapshot's ``tasks.py`` has no WMT22 task
  set: the recipe was written from that notebook (mt-metrics-eval commit 0b82d96) and is tested
  sub-task by sub-task against the snapshot's ``CompareMetrics`` / ``CompareMetricsWithGlobalAccuracy``
  semantics (tests/test_metatask_wmt22.py).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

# statistic -> (lo, hi): the range that maps a value to [0, 1] for the weighted average
STAT_RANGE = {"accuracy": (0.0, 1.0), "spa": (0.0, 1.0), "acc23": (0.0, 1.0), "pearson": (-1.0, 1.0),
              "kendall": (-1.0, 1.0)}

#: the attributes a nested weighting splits the mass by, outermost first (WMT22's order)
NESTED_ATTRIBUTES = ("lang", "domain", "level", "human", "grouping", "statistic")


@dataclass(frozen=True)
class SubTask:
    """One column of the task table. ``lp`` is a language pair, or ``*`` for a statistic pooled
    over every pair (system-level pairwise accuracy). ``weight`` is relative (normalised over the
    task's sub-tasks)."""

    lp: str
    level: str          # "sys" | "seg"
    statistic: str      # "accuracy" | "spa" | "pearson" | "kendall" | "acc23"
    grouping: str = "none"
    tie_calibration: bool = False
    weight: float = 1.0
    domain: str = ""            # "" = every segment; else only that domain's segments
    human: bool | None = None   # None: the pair's systems as built; False/True: without/with human translations

    @property
    def name(self) -> str:
        g = f"/{self.grouping}" if self.grouping != "none" else ""
        t = "+tie" if self.tie_calibration else ""
        d = f"@{self.domain}" if self.domain else ""
        h = "" if self.human is None else ("+human" if self.human else "-human")
        return f"{self.lp}{d}:{self.level}:{self.statistic}{g}{t}{h}"

    def attribute(self, name: str) -> str:
        """The value of one of :data:`NESTED_ATTRIBUTES` (what a nested weighting partitions by)."""
        return {"lang": self.lp, "domain": self.domain, "level": self.level, "human": str(self.human),
                "grouping": self.grouping, "statistic": self.statistic}[name]

    @property
    def range(self) -> tuple[float, float]:
        return STAT_RANGE[self.statistic]


@dataclass(frozen=True)
class TaskDef:
    name: str
    citation: str
    lps: tuple[str, ...]
    gold: str                                   # human score type of every pair …
    gold_by_lp: dict = field(default_factory=dict)  # … unless listed here
    std_ref: str = "refA"
    std_ref_by_lp: dict = field(default_factory=dict)
    human_systems_lps: tuple[str, ...] = ()     # pairs whose other references are scored as systems
    outliers_by_lp: dict = field(default_factory=dict)
    pooled: tuple[tuple, ...] = ()              # (level, statistic, weight per pair) over all pairs
    per_lp: tuple[tuple, ...] = ()              # (level, statistic, grouping, tie_calibration, weight)
    k: int = 0                                  # resamples of the official run (0: no significance)
    human_variants: bool = False   # per-pair sub-tasks without and (>1 reference) with human translations
    by_domain: bool = False        # per-pair sub-tasks also on each domain's segments
    nested_weights: bool = False   # weights split by NESTED_ATTRIBUTES (else the listed weights)
    pooled_min_lps: int = 1        # the pooled sub-tasks only with at least this many pairs
    # the recipe's metric sets (``metatask --metric-set``): base names of the primary submissions
    # and of the baselines (mt-metrics-eval ``MetaInfo.primary_metrics`` / ``baseline_metrics``)
    primary_metrics: frozenset = frozenset()
    baseline_metrics: frozenset = frozenset()

    def metric_set(self, which: str) -> frozenset | None:
        """Base names of ``which`` ("primary", "baseline"); None for "all" (every metric).
        ValueError when the recipe names no such set."""
        if which == "all":
            return None
        if which not in METRIC_SETS:
            raise ValueError(f"metric set must be one of {', '.join(METRIC_SETS)}, not {which!r}")
        names = self.primary_metrics if which == "primary" else self.baseline_metrics
        if not names:
            raise ValueError(f"the {self.name} recipe names no {which} metrics; use --metric-set all")
        return names

    def gold_for(self, lp: str) -> str:
        return self.gold_by_lp.get(lp, self.gold)

    def ref_for(self, lp: str) -> str:
        return self.std_ref_by_lp.get(lp, self.std_ref)

    def subtasks(self, lps, n_refs: dict | None = None, domains: dict | None = None) -> list[SubTask]:
        """The sub-tasks on ``lps`` (sorted, as the official recipes do), weights normalised.
        ``n_refs`` (lp → references in the data) and ``domains`` (lp → domain names) matter only
        to recipes with human variants / domain sub-tasks (absent: one reference, no domains)."""
        lps = sorted(lps)
        hv = False if self.human_variants else None
        out = [SubTask("*", lvl, stat, weight=w * len(lps), human=hv) for lvl, stat, w in self.pooled
               if len(lps) >= self.pooled_min_lps]
        for lp in lps:
            humans: list[bool | None] = [None]
            if self.human_variants:
                humans = [True, False] if (n_refs or {}).get(lp, 1) > 1 else [False]
            doms = [""] + (list((domains or {}).get(lp, ())) if self.by_domain else [])
            for dom in doms:
                for lvl, stat, grp, tie, w in self.per_lp:
                    out += [SubTask(lp, lvl, stat, grp, tie, w, dom, h) for h in humans]
        if self.nested_weights:
            out = _nested(out, NESTED_ATTRIBUTES, 1.0)
        total = sum(s.weight for s in out)
        return [replace(s, weight=s.weight / total) for s in out]


def _nested(subtasks: list[SubTask], attributes, mass: float) -> list[SubTask]:
    """``mass`` split equally over the values of the first attribute, each share over the next
    attribute's values within it, and so on; the last share equally over the sub-tasks left
    (the WMT22 weighting: mt-metrics-eval ``wmt22_metrics.ipynb``, ``distribute_mass``). Order kept."""
    if not attributes:
        return [replace(s, weight=mass / len(subtasks)) for s in subtasks]
    values = list(dict.fromkeys(s.attribute(attributes[0]) for s in subtasks))
    out = list(subtasks)
    for v in values:
        idx = [i for i, s in enumerate(subtasks) if s.attribute(attributes[0]) == v]
        for i, s in zip(idx, _nested([subtasks[i] for i in idx], attributes[1:], mass / len(values))):
            out[i] = s
    return out


#: the values of ``metatask --metric-set``
METRIC_SETS = ("primary", "baseline", "all")

# WMT25's primary submissions and baselines, as mt-metrics-eval's meta_info lists them for wmt25
# (WMT25_PRIMARIES, WMT25_BASELINES); Freitag et al. 2025 (WMT25 metrics findings)
WMT25_PRIMARY = frozenset({"EnsembleSlick", "GEMBA-v2", "MetricX-25", "Polycand-2", "Q_Relative-MQM", "SEGALE-QE",
                           "TASER-No-Ref", "UvA-MT", "comet-multi", "hw-tsc", "mr7_2_1", "rankedCOMET"})
WMT25_BASELINE = frozenset({"BERTScore", "BLEU", "COMET22", "COMETKiwi22", "YiSi-1", "chrF", "sentinel-cand",
                            "spBLEU"})

# WMT23's and WMT24's (meta_info WMT23_/WMT24_PRIMARIES and _BASELINES): there the baselines are
# also in the primary set ("for backward compatibility"); in WMT25's they are not, so
# --metric-set primary keeps the baselines for wmt23/wmt24 and not for wmt25, as primary=True does
WMT23_BASELINE = frozenset({"BERTscore", "BLEU", "BLEURT-20", "chrF", "COMET", "CometKiwi", "docWMT22CometDA",
                            "docWMT22CometKiwiDA", "f200spBLEU", "MS-COMET-QE-22", "prismRef", "prismSrc",
                            "Random-sysname", "YiSi-1"})
WMT23_PRIMARY = WMT23_BASELINE | frozenset({
    "Calibri-COMET22", "Calibri-COMET22-QE", "cometoid22-wmt22", "eBLEU", "embed_llama", "GEMBA-MQM", "KG-BERTScore",
    "MaTESe", "MEE4", "MetricX-23", "MetricX-23-QE", "mre-score-labse-regular", "mbr-metricx-qe", "sescoreX",
    "tokengram_F", "XCOMET-Ensemble", "XCOMET-QE-Ensemble", "XLsim"})
WMT24_BASELINE = frozenset({"BERTScore", "BLEU", "BLEURT-20", "chrF", "COMET-22", "CometKiwi", "PrismRefMedium",
                            "PrismRefSmall", "spBLEU", "YiSi-1", "sentinel-cand-mqm", "sentinel-ref-mqm",
                            "sentinel-src-mqm"})
WMT24_PRIMARY = WMT24_BASELINE | frozenset({
    "BLCOM_1", "bright-qe", "chrfS", "damonmonli", "gemba_esa", "MEE4", "metametrics_mt_mqm_hybrid_kendall",
    "metametrics_mt_mqm_qe_kendall.seg.s", "MetricX-24-Hybrid", "MetricX-24-Hybrid-QE", "XCOMET", "XCOMET-QE",
    "XLsimMqm"})

_ESA_LPS = ("en-cs", "en-hi", "en-is", "en-ja", "en-ru", "en-uk", "en-zh")

TASKS: dict[str, TaskDef] = {
    "wmt22": TaskDef(
        name="wmt22",
        citation="Freitag et al. 2022, Results of WMT22 Metrics Shared Task, §3-4; mt-metrics-eval "
                 "wmt22_metrics.ipynb (eval_metrics, distribute_mass, rank_metrics) and meta_info.WMT22",
        lps=("en-de", "en-ru", "zh-en"),
        gold="mqm",
        std_ref_by_lp={"cs-en": "refB", "en-cs": "refB"},  # meta_info.DATA["wmt22"]
        outliers_by_lp={"en-de": ("M2M100_1.2B-B4",)},
        pooled=(("sys", "accuracy", 1.0),),
        per_lp=(("sys", "pearson", "none", False, 1.0), ("sys", "kendall", "none", False, 1.0))
        + tuple(("seg", stat, grp, False, 1.0) for grp in ("none", "sys", "item") for stat in ("pearson", "kendall")),
        human_variants=True,
        by_domain=True,
        nested_weights=True,
        pooled_min_lps=2,  # "First task is global accuracy, iff more than one language is given."
    ),
    "wmt23": TaskDef(
        name="wmt23",
        citation="Freitag et al. 2023, Results of WMT23 Metrics Shared Task, §3; mt-metrics-eval tasks.WMT23",
        lps=("en-de", "he-en", "zh-en"),
        gold="mqm",
        gold_by_lp={lp: "da-sqm" for lp in ("cs-uk", "de-en", "en-cs", "en-ja", "en-zh", "ja-en", "en-he")},
        std_ref_by_lp={"he-en": "refB", "en-he": "refB"},
        human_systems_lps=("en-he", "he-en"),
        outliers_by_lp={"en-de": ("synthetic_ref",)},
        pooled=(("sys", "accuracy", 1.0),),
        per_lp=(("sys", "pearson", "none", False, 1.0), ("seg", "pearson", "none", False, 1.0),
                ("seg", "acc23", "item", True, 1.0)),
        primary_metrics=WMT23_PRIMARY,
        baseline_metrics=WMT23_BASELINE,
    ),
    "wmt24": TaskDef(
        name="wmt24",
        citation="Freitag et al. 2024, Are LLMs Breaking MT Metrics? Results of the WMT24 Metrics Shared Task, "
                 "§3; mt-metrics-eval tasks.WMT24",
        lps=("en-de", "en-es", "ja-zh"),
        gold="mqm",
        gold_by_lp={lp: "esa" for lp in _ESA_LPS},
        std_ref_by_lp={"en-de": "refB"},
        human_systems_lps=("en-de",),
        outliers_by_lp={lp: ("MSLC",) for lp in ("en-de", "en-es", "ja-zh")},
        per_lp=(("sys", "spa", "none", False, 1.0), ("seg", "acc23", "item", True, 1.0)),
        primary_metrics=WMT24_PRIMARY,
        baseline_metrics=WMT24_BASELINE,
    ),
    "wmt25": TaskDef(
        name="wmt25",
        citation="mt-metrics-eval tasks.WMT25 (WMT25 metrics shared task recipe)",
        lps=("cs-de_DE", "cs-uk_UA", "en-ar_EG", "en-bho_IN", "en-cs_CZ", "en-et_EE", "en-is_IS", "en-it_IT",
             "en-ja_JP", "en-ko_KR", "en-mas_KE", "en-ru_RU", "en-sr_Cyrl_RS", "en-uk_UA", "en-zh_CN", "ja-zh_CN"),
        gold="esa-human1",
        gold_by_lp={"ja-zh_CN": "mqm", "en-ko_KR": "mqm"},
        per_lp=(("sys", "spa", "none", False, 1.0), ("seg", "acc23", "item", True, 1.0)),
        primary_metrics=WMT25_PRIMARY,
        baseline_metrics=WMT25_BASELINE,
    ),
}
