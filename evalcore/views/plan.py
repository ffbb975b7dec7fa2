"""The judgement-planning section of the Systems page (methods §25.2) and its part of the
evaluation card: from the page's human judgements as a pilot, the power of the ranking test for
every pair of systems at N judged segments per system (:func:`evalcore.analysis.plan.plan`, the
``evalcore plan`` command's defaults), and the answer to "how many judgements to buy": the
smallest N of the grid at which the most pairs reach 80 % power."""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ..analysis import plan as P
from ..core.dataset import Dataset
from ..core.progress import Progress
from .queries import Query

#: the columns of :func:`pairs_at_80`
N_COLUMNS = ["n", "pairs_at_80", "n_pairs", "expected_clusters"]


@dataclass(frozen=True)
class PlanQuery(Query):
    """The dataset (content hash), the shared settings, the human criterion of the pilot, and the
    simulation: N grid, ranking test, simulated campaigns per N, α and seed (``plan``'s defaults)."""

    criterion: str = ""
    grid: tuple[int, ...] = P.DEFAULT_GRID
    test: str = P.TESTS[0]
    resamples: int = 200
    alpha: float = 0.05
    seed: int = 0


@dataclass(frozen=True)
class PlanView:
    """``evalcore plan``'s result, the pilot's number of segments per system and the human
    translations the settings left out of the pilot."""

    plan: P.Plan
    pilot_n: int
    left_out: tuple[str, ...] = ()


def plan_of(dataset: Dataset, q: PlanQuery, progress: Progress = None) -> PlanView:
    """``plan``'s result for the page's language pair under the page's settings: every judged
    system of the criterion is in the pilot, but the human translations when the settings leave
    them out (the default; the command ranks them, as ``rank`` does, and says so)."""
    from ..human.scores import criterion_judgements
    from ..stats.tables import human_systems

    judged = list(dict.fromkeys(criterion_judgements(dataset, q.criterion)["system"].astype(str)))
    left = () if q.settings.include_human_systems else tuple(human_systems(dataset, judged))
    pilot = P.pilot_of(dataset, q.criterion, systems=[s for s in judged if s not in set(left)])
    res = P.plan(pilot, q.grid, test=q.test, resamples=q.resamples, alpha=q.alpha, seed=q.seed, progress=progress)
    return PlanView(res, len(pilot.seg_ids), left)


def pairs_at_80(res: P.Plan) -> pd.DataFrame:
    """Per N: how many system pairs reach 80 % power at their observed difference, of how many,
    and the expected number of significance clusters (:data:`N_COLUMNS`)."""
    obs = res.power[res.power["which"] == "observed"]
    rows = []
    clusters = dict(zip(res.clusters["n"], res.clusters["expected_clusters"]))
    for n in sorted(obs["n"].astype(int).unique()):
        g = obs[obs["n"] == n]
        rows.append((int(n), int((g["power"] >= 0.8).sum()), int(len(g)), float(clusters.get(n, float("nan")))))
    return pd.DataFrame(rows, columns=N_COLUMNS)


def headline(res: P.Plan, pilot_n: int) -> str:
    """The answer: the smallest N at which the most pairs reach 80 % power, how many they are,
    and what the pilot's own N gives (:func:`pairs_at_80`)."""
    t = pairs_at_80(res)
    if not len(t):
        return "No pair of systems to plan for."
    best = int(t["pairs_at_80"].max())
    n_best = int(t.loc[t["pairs_at_80"] == best, "n"].min())
    total = int(t["n_pairs"].iloc[0])
    own = t[t["n"] == pilot_n]
    own_text = (f"; the pilot's own {pilot_n} segments give {int(own['pairs_at_80'].iloc[0])}"
                if len(own) else "")
    top = int(t["n"].max())
    more = ("the largest N simulated: a larger one may add pairs" if n_best == top
            else f"no larger N of the grid, up to {top}, adds a pair")
    return (f"Judge N = {n_best} segments per system: {best} of {total} system pairs then reach 80 % power at their "
            f"observed difference ({more}){own_text}. The other pairs differ by less than the test can see at "
            "these N.")
