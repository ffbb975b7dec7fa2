"""The one set of analysis settings every page and command uses, with one set of defaults.

A number on a page, in an export and on the command line is the same number only when it was
computed under the same settings: which segments the metrics are scored over, the tokenizer,
the reference sets, whether human translations are scored as systems, the orientation of error
rates, and how the raters' judgements become a system's human score. :class:`Settings` holds
them; :meth:`Settings.describe` is the one-line statement put beside every number and into
every export; :data:`DEFAULTS` are the defaults of every page and command.

Defaults (docs/methods.md, "Settings"):

* ``judged_only=True``: wherever human judgements exist, the metric scores that are compared
  with them are computed over the segments the humans judged for each system (what the humans
  saw; the WMT practice of scoring the judged subset, Freitag et al. 2021 §3); without
  judgements every segment is used (:meth:`Settings.resolve` says so).
* ``tokenizer=None``: sacreBLEU's default for the target language (Post 2018).
* ``references=None``: every reference set.
* ``human_systems="exclude"``: human translations judged like systems are left out of the
  correlations (Freitag et al. 2021 show they flip rankings; opt in to score them).
* ``orientation="higher-is-better"``: in correlations and rankings the error rates (TER, WER,
  PER) are negated so that every correlation reads "higher agrees better" (the WMT metrics-task
  convention; Kocmi et al. 2021's pairwise accuracy needs it). Scores themselves are always
  shown raw, on the metric's own scale.
* ``rater_aggregation="segment-mean"``: a system's human score is the mean over its segments of
  the per-segment mean over raters (methods §5.2). ``"rows"``, the mean of the raw judgement
  rows, weights a segment by its number of raters; where a page shows both it labels them.

Nothing here imports streamlit.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

JUDGED_ONLY = "judged_only"
ORIENTATIONS = ("higher-is-better", "raw")
HUMAN_SYSTEMS = ("exclude", "include")
RATER_AGGREGATIONS = ("segment-mean", "rows")

#: How each rater aggregation is labelled wherever a human score is shown.
AGGREGATION_LABELS = {
    "segment-mean": "mean over segments of the per-segment mean over raters",
    "rows": "mean over every judgement row (a segment weighs as many times as it was judged)",
}


@dataclass(frozen=True)
class Settings:
    """The analysis settings shared by every page and command (module docstring: the defaults)."""

    judged_only: bool = True
    tokenizer: str | None = None
    references: tuple[str, ...] | None = None
    human_systems: str = "exclude"
    orientation: str = "higher-is-better"
    rater_aggregation: str = "segment-mean"

    def __post_init__(self):
        if self.orientation not in ORIENTATIONS:
            raise ValueError(f"orientation must be one of {', '.join(ORIENTATIONS)}, not {self.orientation!r}")
        if self.human_systems not in HUMAN_SYSTEMS:
            raise ValueError(f"human_systems must be one of {', '.join(HUMAN_SYSTEMS)}, not {self.human_systems!r}")
        if self.rater_aggregation not in RATER_AGGREGATIONS:
            raise ValueError(f"rater_aggregation must be one of {', '.join(RATER_AGGREGATIONS)}, "
                             f"not {self.rater_aggregation!r}")
        if self.references is not None:
            object.__setattr__(self, "references", tuple(self.references))

    def with_(self, **changes) -> "Settings":
        """A copy with ``changes`` (the object itself is frozen)."""
        return replace(self, **changes)

    @property
    def include_human_systems(self) -> bool:
        return self.human_systems == "include"

    def resolve(self, dataset) -> tuple["Settings", list[str]]:
        """(the settings in force on ``dataset``, notes saying what was decided for it): judged
        segments only falls back to every segment when the dataset has no human judgements."""
        notes = []
        s = self
        if self.judged_only and not dataset.criteria:
            s = replace(self, judged_only=False)
            notes.append("no human judgements: metric scores over every segment")
        return s, notes

    def orient(self, higher_is_better: bool) -> float:
        """The factor a metric's scores are multiplied by before correlating or ranking."""
        return -1.0 if self.orientation == "higher-is-better" and not higher_is_better else 1.0

    def describe(self, dataset=None, criterion: str | None = None) -> str:
        """The one-line statement of these settings, beside every number and in every export."""
        from ..metrics.tokenize import default_tokenizer

        segs = (f"metric scores over the segments judged for {criterion}" if criterion else
                "metric scores over the judged segments") if self.judged_only else "metric scores over every segment"
        if self.tokenizer:
            tok = f"tokenizer {self.tokenizer}"
        elif dataset is not None:
            tok = f"tokenizer {default_tokenizer(dataset.lp)} (sacreBLEU's default for the target language)"
        else:
            tok = "tokenizer: sacreBLEU's default for the target language"
        refs = f"references {', '.join(self.references)}" if self.references else "every reference set"
        hum = ("human translations scored as systems" if self.include_human_systems
               else "human translations left out")
        orient = ("error rates (TER, WER, PER) negated in correlations and rankings"
                  if self.orientation == "higher-is-better" else "metric scores correlated as they are (raw)")
        agg = f"human score = {AGGREGATION_LABELS[self.rater_aggregation]}"
        return "; ".join([segs, tok, refs, hum, orient, agg])

    def signature(self) -> str:
        """A compact form for ``settings``/``signature`` columns."""
        return "|".join([f"judged:{'yes' if self.judged_only else 'no'}", f"tok:{self.tokenizer or 'default'}",
                         f"refs:{','.join(self.references) if self.references else 'all'}",
                         f"humansys:{self.human_systems}", f"orient:{self.orientation}",
                         f"hagg:{self.rater_aggregation}"])


#: The defaults of every page and command.
DEFAULTS = Settings()


def add_judged_arguments(p, judged_help: str | None = None) -> None:
    """``--judged-only``/``--all-segments`` with the shared default: neither given leaves
    ``args.judged_only`` None, which means :data:`DEFAULTS` (on wherever judgements exist)."""
    g = p.add_mutually_exclusive_group()
    g.add_argument("--judged-only", dest="judged_only", action="store_true", default=None,
                   help=judged_help or "metric scores over only the segments the humans judged (per system): the "
                                       "default wherever human judgements exist")
    g.add_argument("--all-segments", dest="judged_only", action="store_false",
                   help="metric scores over every segment, judged or not")
    p.set_defaults(_shared_judged=True)


def judged_only_of(args) -> bool:
    """The judged-only choice of a command: its flag, else the shared default."""
    judged = getattr(args, "judged_only", None)
    return DEFAULTS.judged_only if judged is None else bool(judged)


def add_cli_arguments(p) -> None:
    """``--judged-only``/``--all-segments`` and ``--orientation`` with the shared defaults."""
    add_judged_arguments(p)
    p.add_argument("--orientation", choices=ORIENTATIONS, default=DEFAULTS.orientation,
                   help="higher-is-better (default, the WMT convention): error rates (TER, WER, PER) negated "
                        "before correlating; raw: correlated as they are")


def from_args(args, **fields) -> Settings:
    """The settings of a command: the shared defaults, the command's options, ``fields``."""
    judged = getattr(args, "judged_only", None)
    kw: dict[str, Any] = {"judged_only": DEFAULTS.judged_only if judged is None else bool(judged),
          "orientation": getattr(args, "orientation", None) or DEFAULTS.orientation,
          "tokenizer": getattr(args, "tokenize", None)}
    kw.update(fields)
    return Settings(**kw)


_MISSING = object()


def of_command(args) -> Settings:
    """The settings a command runs under, from its options alone (what ``python -m evalcore``
    states on stderr before a command that does not state its own, resolved on the data):
    ``--judged-only`` where the command has one (the shared flag: :func:`judged_only_of`; an
    opt-in flag: given or not), else the command's rule (``JUDGED_SEGMENTS = True`` in its module:
    its metric scores are compared with the humans on the judged segments only, e.g. ``learn``),
    else every segment; ``--tokenize``, ``--refs``, ``--orientation``
    and ``--include-human-systems`` / ``--include-references`` where it has them."""
    judged = getattr(args, "judged_only", _MISSING)
    if judged is _MISSING:  # no such option: the command's own rule (JUDGED_SEGMENTS of its module)
        judged = bool(getattr(args, "_judged_segments", False))
    elif judged is False:
        judged = False
    elif judged is None:  # the shared flag left out, or an opt-in flag not given
        judged = DEFAULTS.judged_only if getattr(args, "_shared_judged", False) else False
    else:  # True, or a criterion (score --judged-only [CRITERION], "" for the only one)
        judged = True
    refs = getattr(args, "refs", None)
    include = getattr(args, "include_human_systems", None) or getattr(args, "include_references", None)
    return Settings(judged_only=judged, tokenizer=getattr(args, "tokenize", None) or None,
                    references=tuple(r.strip() for r in refs.split(",") if r.strip()) if refs else None,
                    human_systems="include" if include else "exclude",
                    orientation=getattr(args, "orientation", None) or DEFAULTS.orientation)


def command_line(args) -> str:
    """The settings line of a command (:func:`of_command`, with the criterion a
    ``--judged-only CRITERION`` names)."""
    judged = getattr(args, "judged_only", None)
    return of_command(args).describe(criterion=judged if isinstance(judged, str) and judged else None)


def metatask_settings_line(judged_only: bool, tokenizer: str | None = None, include_human: bool | None = None) -> str:
    """The settings line of a WMT metrics-task table (``metatask``, the Metrics task page): the
    task's recipe fixes every segment (the official corpus scores), the primary reference and
    the human translations scored as systems per language pair, unless overridden."""
    s = DEFAULTS.with_(judged_only=bool(judged_only), tokenizer=tokenizer or None,
                       human_systems="include" if include_human else "exclude")
    text = s.describe()
    text = text.replace("every reference set", "the task's primary reference per language pair")
    if include_human is None:
        text = text.replace("human translations left out", "human translations as systems where the task scores them")
    if not judged_only:
        text = text.replace("metric scores over every segment",
                            "metric scores over every segment (the task's recipe, as the official runs)")
    return text
