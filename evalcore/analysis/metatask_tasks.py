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
  the WMT25 pairs, equal weights, no human translations as systems.

WMT22 is not listed: its recipe (Freitag et al. 2022, §3) is not in the oracle snapshot's
``tasks.py``, so it could not be checked here.
"""
from __future__ import annotations

from dataclasses import dataclass, field

# statistic -> (lo, hi): the range that maps a value to [0, 1] for the weighted average
STAT_RANGE = {"accuracy": (0.0, 1.0), "spa": (0.0, 1.0), "acc23": (0.0, 1.0), "pearson": (-1.0, 1.0)}


@dataclass(frozen=True)
class SubTask:
    """One column of the task table. ``lp`` is a language pair, or ``*`` for a statistic pooled
    over every pair (system-level pairwise accuracy). ``weight`` is relative (normalised over the
    task's sub-tasks)."""

    lp: str
    level: str          # "sys" | "seg"
    statistic: str      # "accuracy" | "spa" | "pearson" | "acc23"
    grouping: str = "none"
    tie_calibration: bool = False
    weight: float = 1.0

    @property
    def name(self) -> str:
        g = f"/{self.grouping}" if self.grouping != "none" else ""
        t = "+tie" if self.tie_calibration else ""
        return f"{self.lp}:{self.level}:{self.statistic}{g}{t}"

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

    def gold_for(self, lp: str) -> str:
        return self.gold_by_lp.get(lp, self.gold)

    def ref_for(self, lp: str) -> str:
        return self.std_ref_by_lp.get(lp, self.std_ref)

    def subtasks(self, lps) -> list[SubTask]:
        """The sub-tasks on ``lps`` (sorted, as the official recipes do), weights normalised."""
        lps = sorted(lps)
        out = [SubTask("*", lvl, stat, weight=w * len(lps)) for lvl, stat, w in self.pooled]
        for lp in lps:
            out += [SubTask(lp, lvl, stat, grp, tie, w) for lvl, stat, grp, tie, w in self.per_lp]
        total = sum(s.weight for s in out)
        return [SubTask(s.lp, s.level, s.statistic, s.grouping, s.tie_calibration, s.weight / total) for s in out]


_ESA_LPS = ("en-cs", "en-hi", "en-is", "en-ja", "en-ru", "en-uk", "en-zh")

TASKS: dict[str, TaskDef] = {
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
    ),
    "wmt25": TaskDef(
        name="wmt25",
        citation="mt-metrics-eval tasks.WMT25 (WMT25 metrics shared task recipe)",
        lps=("cs-de_DE", "cs-uk_UA", "en-ar_EG", "en-bho_IN", "en-cs_CZ", "en-et_EE", "en-is_IS", "en-it_IT",
             "en-ja_JP", "en-ko_KR", "en-mas_KE", "en-ru_RU", "en-sr_Cyrl_RS", "en-uk_UA", "en-zh_CN", "ja-zh_CN"),
        gold="esa-human1",
        gold_by_lp={"ja-zh_CN": "mqm", "en-ko_KR": "mqm"},
        per_lp=(("sys", "spa", "none", False, 1.0), ("seg", "acc23", "item", True, 1.0)),
    ),
}
