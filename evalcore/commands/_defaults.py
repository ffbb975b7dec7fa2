"""What a command starts from when only the data is given: the pages' defaults.

``correlate DATA``, ``compare DATA --a X --b Y``, ``metatask DATA`` and ``rank DATA`` run with no
other flag: the human judgement kind the data has (an error listing them when there are
several), the metrics the pages start from, the metrics-task recipe that matches the data (a
note names it), judged segments only as everywhere (:data:`evalcore.scoring.settings.DEFAULTS`).
Each choice is said on stderr as a ``note:`` line.
"""
from __future__ import annotations

import sys

#: the Metrics task page's default metrics (pages/metatask.py: fast to score on every pair)
METATASK_METRICS = ("bleu", "chrf")
#: the Metrics task page's default recipe
METATASK_TASK = "wmt24"


def note(text: str) -> None:
    print(f"note: {text}", file=sys.stderr)


def criterion(criteria, given: str | None, option: str = "--human") -> str | None:
    """``given``, else the data's only human judgement kind; several: an error listing them;
    none: None."""
    if given:
        return given
    crit = list(criteria)
    if len(crit) > 1:
        raise ValueError(f"the data has several kinds of human judgement ({', '.join(crit)}): choose one with "
                         f"{option}")
    if crit:
        note(f"{option} {crit[0]}: the only kind of human judgement in the data")
        return crit[0]
    return None


def system_metrics(dataset) -> list[str]:
    """The metrics the Systems page starts from on ``dataset``
    (:func:`evalcore.views.systems.first_metrics`), those that can run on it."""
    from ..scoring.availability import runnable
    from ..views.systems import first_metrics

    first = first_metrics(dataset)[0]
    keep, left = runnable(dataset, first)
    for mid, why in left:
        note(f"{mid} left out: {why}")
    if keep:
        note(f"--metrics {','.join(keep)}: the metrics the Systems page starts from")
    return keep


def task_for(collection: dict) -> str:
    """The metrics-task recipe that matches the data: the one whose human score type per
    language pair the data has on most pairs (pairs of the task first); ties and no match: the
    Metrics task page's default (:data:`METATASK_TASK`)."""
    from ..analysis.metatask_tasks import TASKS

    def fit(name):
        t = TASKS[name]
        gold = sum(t.gold_for(lp) in d.criteria for lp, d in collection.items())
        return (gold, sum(lp in t.lps for lp in collection), name == METATASK_TASK)

    best = max(sorted(TASKS), key=fit)
    if fit(best)[0] == 0:
        best = METATASK_TASK
    t = TASKS[best]
    note(f"--task {best}: the recipe that matches the data ({t.citation}); human scores per pair: "
         + ", ".join(f"{lp} {t.gold_for(lp)}" for lp in sorted(collection)))
    return best
